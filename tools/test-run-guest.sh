#!/bin/sh
# Host-side tests of tools/run-guest's boot handling, with a stand-in for
# QEMU (no guest is booted).  TAP on stdout.
#
#   tools/test-run-guest.sh
#
# The stand-in plays one boot per call from a script of outcomes:
#   int3   the console gets "Oops: int3" and no userspace (the TCG
#          text-patching race, docs/testbed.md)
#   panic  the console gets an unrelated panic and no userspace
#   ok     the guest reaches userspace and its commands exit 0
# run-guest must boot once more after int3 only, keep the first console
# log, and fail with the console's path when the guest never got up.
set -u
TOOL=test-run-guest
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/qemu" <<'EOF'
#!/bin/sh
# Stand-in for qemu-system-x86_64: the next outcome from $FAKE_QEMU_PLAN.
serial= out=
for a in "$@"; do
	case $a in
	file:*) serial=${a#file:} ;;
	local,path=*,mount_tag=out,*) out=${a#local,path=}; out=${out%%,mount_tag=*} ;;
	esac
done
calls=$(($(cat "$FAKE_QEMU_CALLS" 2>/dev/null || echo 0) + 1))
echo "$calls" >"$FAKE_QEMU_CALLS"
what=$(echo "$FAKE_QEMU_PLAN" | cut -d, -f"$calls")
case $what in
int3) printf '[    1.43] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n[    1.44] Kernel panic - not syncing: Fatal exception in interrupt\n' >"$serial" ;;
panic) printf '[    2.00] Kernel panic - not syncing: VFS: Unable to mount root fs\n' >"$serial" ;;
ok) echo "booted" >"$serial"; : >"$out/booted"; echo "# fake guest ran its commands" >"$out/output.log"; echo 0 >"$out/rc" ;;
*) echo "fake qemu: no outcome for boot $calls" >"$serial" ;;
esac
exit 0
EOF
chmod +x "$tmp/qemu"

# run NAME PLAN: one run-guest call; sets rc, calls, dir
run() {
	dir=$tmp/$1
	rm -f "$tmp/calls"
	rc=0
	FAKE_QEMU_PLAN=$2 FAKE_QEMU_CALLS=$tmp/calls QEMU=$tmp/qemu QUIET=1 \
		"$TOPDIR/tools/run-guest" --topo 2node --timeout 30 --out "$dir" -- true \
		>"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
	calls=$(cat "$tmp/calls" 2>/dev/null || echo 0)
}

echo "TAP version 13"
run int3-ok int3,ok
[ "$rc" = 0 ] && [ "$calls" = 2 ]
tap $? "int3 then a good boot: booted twice, exit 0 (got $calls boots, exit $rc)"
grep -q 'Oops: int3' "$dir/console-int3.log" 2>/dev/null && [ -f "$dir/booted" ]
tap $? "int3 then a good boot: the first console log is kept as console-int3.log"
grep -q 'booting again' "$tmp/int3-ok.err"
tap $? "int3 then a good boot: the retry is announced"

run int3-int3 int3,int3,ok
[ "$rc" = 3 ] && [ "$calls" = 2 ]
tap $? "int3 twice: no third boot, exit 3 (got $calls boots, exit $rc)"
grep -q "console log: $dir/console.log" "$tmp/int3-int3.err" && grep -q 'Oops: int3' "$tmp/int3-int3.err"
tap $? "int3 twice: the error names the console log and shows its last lines"

run panic panic,ok
[ "$rc" = 3 ] && [ "$calls" = 1 ]
tap $? "another boot failure is not retried: exit 3 (got $calls boots, exit $rc)"

run ok ok
[ "$rc" = 0 ] && [ "$calls" = 1 ] && [ ! -f "$dir/console-int3.log" ]
tap $? "a good boot boots once (got $calls boots, exit $rc)"

# --scratch: a disk with the serial the guest looks for, after the root
# disk (which must stay /dev/vda), as a sparse file removed after the run
dry=$(QEMU=$tmp/qemu "$TOPDIR/tools/run-guest" --topo 2node --swap 64 --scratch 100 --out "$tmp/scratch" --dry-run)
echo "$dry" | grep -q "serial=thp-scratch,addr=0x10" && echo "$dry" | grep -q "file=$tmp/scratch/scratch.img" &&
	[ "$(echo "$dry" | tr ' ' '\n' | grep -n 'rootfs.ext4' | cut -d: -f1)" -lt "$(echo "$dry" | tr ' ' '\n' | grep -n 'scratch.img' | cut -d: -f1)" ]
tap $? "--scratch adds a disk with serial thp-scratch in PCI slot 0x10, after the root disk"
rm -f "$tmp/calls"
FAKE_QEMU_PLAN=ok FAKE_QEMU_CALLS=$tmp/calls QEMU=$tmp/qemu QUIET=1 \
	"$TOPDIR/tools/run-guest" --topo 2node --timeout 30 --scratch 100 --out "$tmp/scratch-run" -- true >/dev/null 2>&1
[ $? = 0 ] && [ ! -e "$tmp/scratch-run/scratch.img" ]
tap $? "--scratch: the disk file is removed when the guest is done"

tap_done
