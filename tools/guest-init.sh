#!/bin/sh
# Runs as PID 1 in the guest (exec'd by /sbin/thp-init from the rootfs).
# Sets the guest up, runs /mnt/out/cmds, records the exit code, powers off.
export PATH=/mnt/thp/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux}
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts 2>/dev/null
hostname thpguest
# Placement tests want pages to stay where the fault put them.
[ -w /proc/sys/kernel/numa_balancing ] && echo 0 >/proc/sys/kernel/numa_balancing
touch /mnt/out/booted
echo "thp-guest: userspace up, kernel $(uname -r)"

if grep -q 'thp.interactive=1' /proc/cmdline; then
	echo "thp-guest: root shell; tests and tools are on PATH (/mnt/thp/bin); 'poweroff -f' or Ctrl-D to quit"
	setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
else
	cd /tmp
	sh -c '. /mnt/out/cmds' >>/mnt/out/output.log 2>&1
	echo $? >/mnt/out/rc.tmp
	dmesg >/mnt/out/dmesg.log
	mv /mnt/out/rc.tmp /mnt/out/rc
fi
sync
echo o >/proc/sysrq-trigger
sleep 5
poweroff -f
