#!/bin/sh
# Host-side tests of the run plan (tools/runs.conf) and its helper
# (tools/runs.sh), with a stand-in for tools/run-guest: no guest boots.
# TAP on stdout.
#
#   tools/test-runs.sh
#
# The stand-in runs the guest command on the host with a stand-in
# run-tests.sh, which prints what the real one prints for each argument
# it gets, so quoting is tested end to end; it counts its boots, so reuse
# is tested too.
set -u
TOOL=test-runs
. "$(dirname "$0")/lib.sh"
REAL=$TOPDIR
# the knobs a user may have set for make check must not change these runs
unset ACCEL FRESH STRESS_SECONDS SELFTEST_LIMIT STORM_FILLS

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"

# ---- every row of the plan is well-formed ----------------------------------
awk -v topos="$(awk '!/^#/ && NF { printf " %s ", $1 }' "$REAL/tools/topologies.conf")" '
	/^#/ || !NF { next }
	{
		bad = ""
		if ($1 !~ /^(check|bench|bench-quick)$/) bad = bad " plan"
		if ($3 !~ /^(7\.3-)?(patched|baseline|debug|nodrain)$/) bad = bad " flavour"
		if (!index(topos, " " $4 " ")) bad = bad " topo"
		if ($5 !~ /^(-|node-first|guest|legacy)$/) bad = bad " mode"
		if ($6 !~ /^(-|[0-9]+)$/) bad = bad " swap"
		if ($7 !~ /^(-|[0-9]+)$/) bad = bad " scratch"
		if ($8 !~ /^(yes|no)$/) bad = bad " reuse"
		if ($9 !~ /^(fg|quiet|bg|alone)$/) bad = bad " start"
		if ($10 !~ /^[0-9]+$/) bad = bad " timeout"
		if (NF < 11) bad = bad " commands"
		if (seen[$1 " " $2]++) bad = bad " name(twice)"
		if (bad != "") print NR ":" bad
	}' "$REAL/tools/runs.conf" >"$tmp/bad-rows"
[ ! -s "$tmp/bad-rows" ]
tap $? "runs.conf: every row has a known plan, flavour, topology, mode, swap, scratch, reuse, start, a timeout and commands ($(tr '\n' ';' <"$tmp/bad-rows"))"

# The counters of the storm and aged rows move with the CPU time a guest
# gets: they and their references run quiet (no guest beside them), and a
# storm's reference is booted afresh each time, not one boot's sample
# judged again in every make check.
awk '$1 == "check" && ($0 ~ /thp_usemem -b|thp_aged/) && $9 != "quiet" { print $2 }
	$1 == "check" && $2 ~ /baseline-storm$/ && $8 != "no" { print $2 " reused" }' \
	"$REAL/tools/runs.conf" >"$tmp/loud"
[ ! -s "$tmp/loud" ]
tap $? "runs.conf: every check row of thp_usemem -b or thp_aged starts quiet, and no storm reference is reused ($(tr '\n' ';' <"$tmp/loud"))"

# ---- a tree with stand-ins ---------------------------------------------------
T=$tmp/tree
mkdir -p "$T/tools" "$T/mm-tests" "$T/rootfs" "$tmp/bin" "$tmp/kernel/arch/x86/boot"
for f in runs.conf topologies.conf guest-output.awk guest-init.sh lib.sh runs.sh; do
	ln -s "$REAL/tools/$f" "$T/tools/$f"
done
ln -s "$REAL/mm-tests/splat-patterns" "$T/mm-tests/splat-patterns"
echo image >"$tmp/kernel/arch/x86/boot/bzImage"
printf '#!/bin/sh\necho "%s"\n' "$tmp/kernel" >"$T/tools/kernel.sh"
printf '#!/bin/sh\necho "%s"\n' "$tmp/rootfs.ext4" >"$T/rootfs/build.sh"
printf '#!/bin/sh\necho "QEMU emulator version 0 (stand-in)"\n' >"$tmp/bin/qemu-stand-in"
cat >"$T/tools/run-guest" <<'EOF'
#!/bin/sh
# stand-in: record the arguments, "boot", run the command with a stand-in
# run-tests.sh on PATH
out= accel=
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--swap | --scratch) echo "$1 $2" >>"$FAKE_BOOTS.disks"; shift 2 ;;
	--append) echo "$2" >"$FAKE_BOOTS.append"; shift 2 ;;
	--) shift; break ;;
	*) shift ;;
	esac
done
echo "boot accel=$accel" >>"$FAKE_BOOTS"
[ -f "$FAKE_BOOTS.append" ] || : >"$FAKE_BOOTS.append"
mkdir -p "$out"
[ "${FAKE_NO_BOOT:-0}" = 1 ] && { echo "stand-in: no userspace" >"$out/console.log"; exit 3; }
: >"$out/booted"
printf '%s\n' "$1" >"$out/cmds"
sh -c "$1" >"$out/output.log" 2>&1
echo $? >"$out/rc"
echo "[    0.0] stand-in kernel log" >"$out/dmesg.log"
exit "$(cat "$out/rc")"
EOF
cat >"$tmp/bin/run-tests.sh" <<'EOF'
#!/bin/sh
# stand-in: each argument as one command, as run-tests.sh prints it.
# FAKE_PLAN=N: the plans say 1..N; FAKE_NO_PLAN=1: no plans; FAKE_DROP=NAME:
# that command never reports; FAKE_EXIT=N: the exit status.
skip=0
for t in "$@"; do
	case $skip in 1) skip=0; continue ;; esac
	[ "$t" = --allow ] && { skip=1; continue; }
	name=${t%% *}
	[ "$name" = "${FAKE_DROP:-}" ] && continue
	echo "# === $t"
	[ "${FAKE_NO_PLAN:-0}" = 1 ] || echo "1..${FAKE_PLAN:-1}"
	echo "ok 1 arg: $t"
	echo "# $name took 0.1s"
	echo "ok - $name: kernel log clean"
done
exit "${FAKE_EXIT:-0}"
EOF
chmod +x "$T/tools/kernel.sh" "$T/rootfs/build.sh" "$T/tools/run-guest" "$tmp/bin/"*

# plan RUN: run_one check RUN in a subshell with the stand-ins; its TAP
# lines in $tmp/out, boots appended to $tmp/boots
plan() {
	( TOPDIR=$T CACHE=$tmp/cache QEMU=$tmp/bin/qemu-stand-in PATH=$tmp/bin:$PATH \
	  FAKE_BOOTS=$tmp/boots
	  export TOPDIR CACHE QEMU PATH FAKE_BOOTS
	  . "$T/tools/runs.sh"
	  result() { echo "$1 - $2${3:+ $3}"; }
	  note() { echo "note $1 $2"; }
	  run_one check "$1" ) >"$tmp/out" 2>"$tmp/err"
}
boots() { wc -l <"$tmp/boots" 2>/dev/null | tr -d ' '; }

: >"$tmp/boots"
plan baseline-2node
is "a run boots once" "$(boots)" 1
grep -q "^ok - \[baseline 2node\] arg: thp-numa splat-check: planted" "$tmp/out"
[ $? = 1 ]
tap $? "--allow REGEX reaches run-tests.sh as an option, not as a command"
grep -qx "ok - \[baseline 2node\] arg: topology.sh 1,1 1024,1024 10,20/20,10" "$tmp/out"
tap $? "{topology} is the preset's cpus, MiB and SLIT, one argument"
grep -qx "ok - \[baseline 2node\] the kernel log was read after each of the 3 test commands" "$tmp/out"
tap $? "the kernel log was read after each command: 3 of 3"
grep -c '^fail' "$tmp/out" | grep -qx 0
tap $? "a good run has no failed check ($(grep '^fail' "$tmp/out" | head -n 1))"
grep -qx "ok - \[baseline 2node\] kernel log of the whole run is clean" "$tmp/out"
tap $? "the whole kernel log is read"
grep -qx "ok - \[baseline 2node\] thp_local: 1 results, as its plan 1..1 said" "$tmp/out"
tap $? "a command's results are counted against its plan"
grep -qx "ok - \[baseline 2node\] each of the 3 test commands reported" "$tmp/out"
tap $? "every command of the run is counted"

plan baseline-2node
is "reuse=yes: an unchanged run is not booted again" "$(boots)" 1
grep -q '^note reuse # \[baseline 2node\] reusing the run of' "$tmp/out" && grep -q '^ok - \[baseline 2node\] arg: thp_local' "$tmp/out"
tap $? "a reused run says so and is checked again"
ACCEL=kvm plan baseline-2node
is "ACCEL is part of the key: ACCEL=kvm boots again" "$(boots)" 2
tail -n 1 "$tmp/boots" | grep -qx 'boot accel=kvm'
tap $? "ACCEL reaches run-guest"
FRESH=1 plan baseline-2node
is "FRESH=1 boots again" "$(boots)" 3
plan patched-2node
plan patched-2node
is "reuse=no: booted every time" "$(boots)" 5

run_command_of() { # run_command_of RUN
	( TOPDIR=$T CACHE=$tmp/cache
	  . "$T/tools/runs.sh"
	  run_row check "$1" && run_command )
}
is "a command with quotes and redirections stays one argument, make check's 20 storm fills by default" \
	"$(run_command_of patched-storm-nf)" \
	"run-tests.sh 'mkswap /dev/vdb >/dev/null && swapon /dev/vdb && echo '\\''# swap on /dev/vdb'\\''' 'thp_usemem -b -n 20 -m node-first'"
key_of() { # key_of RUN [START]: the run's reuse key, as START if given
	( TOPDIR=$T CACHE=$tmp/cache QEMU=$tmp/bin/qemu-stand-in
	  export TOPDIR CACHE QEMU
	  . "$T/tools/runs.sh"
	  run_row check "$1" && r_start=${2:-$r_start} && run_key "$(run_command)" 2>/dev/null )
}
[ -n "$(key_of baseline-aged)" ] && [ "$(key_of baseline-aged)" != "$(key_of baseline-aged fg)" ]
tap $? "a quiet run is not reused from a boot that ran in the foreground (keys $(key_of baseline-aged), $(key_of baseline-aged fg))"
is "STORM_FILLS reaches {storm_fills}" "$(STORM_FILLS=30 run_command_of patched-storm-nf | sed 's/.* \(.thp_usemem\)/\1/')" "'thp_usemem -b -n 30 -m node-first'"
is "STRESS_SECONDS reaches {stress_seconds}" "$(STRESS_SECONDS=7 run_command_of debug-epyc4 | sed 's/.* \(.stress\)/\1/')" "'stress.sh 7'"

FAKE_PLAN=2 plan patched-2node
grep -q "^fail - \[patched 2node\] thp_local: 1 results where its plan said 1..2" "$tmp/out"
tap $? "a plan off by one fails"
FAKE_NO_PLAN=1 plan patched-2node
grep -q "^fail - \[patched 2node\] thp_local: 1 results and no TAP plan" "$tmp/out"
tap $? "results without a plan fail"
FAKE_DROP=thp_local plan patched-2node
grep -q "^fail - \[patched 2node\] each test command reported ([0-9]* of [0-9]*)" "$tmp/out"
tap $? "a command that never reports fails"
FAKE_EXIT=1 plan patched-2node
grep -q "^fail - \[patched 2node\] guest finished its commands, exit status 1" "$tmp/out"
tap $? "a run whose commands exit non-zero fails"

rm -f "$tmp/boots.append"
plan patched-kunit-1node
is "a run that reports KUnit boots with the suite" "$(cat "$tmp/boots.append" 2>/dev/null)" ""
rm -f "$tmp/boots.append"
FRESH=1 plan baseline-2node
is "a run that does not report KUnit boots without it" "$(cat "$tmp/boots.append" 2>/dev/null)" "kunit.enable=0"

FAKE_NO_BOOT=1 plan patched-cxl
grep -q "^fail - \[patched cxl\] guest boots to userspace (console: $tmp/cache/runs/check-patched-cxl/console.log)" "$tmp/out"
tap $? "a guest that never boots fails, naming its console log"

names() { ( TOPDIR=$T; . "$T/tools/runs.sh"; run_names "$@" | tr '\n' ' ' ); }
is "run_names: background runs on the default topologies" "$(names check bg "2node epyc4 chain4 cxl")" "debug-epyc4 "
is "run_names: without epyc4 the epyc4 runs are left out" "$(names check fg "2node")" "baseline-2node patched-2node 7.3-patched-2node "
is "run_names: fg and quiet together, in plan order" "$(names check "fg quiet" "1node")" "baseline-1node patched-kunit-1node patched-1node 7.3-baseline-1node 7.3-patched-kunit-1node 7.3-patched-1node "
is "run_names: the quiet runs alone" "$(names check quiet "1node")" "baseline-1node patched-1node 7.3-baseline-1node 7.3-patched-1node "
is "run_names: the runs that need the machine alone, 7.3's debug run first" "$(names check alone)" "7.3-debug-epyc4 baseline-selftests patched-selftests "
is "run_names: the bench plan in order" "$(names bench fg)" "numa-lat placement-patched placement-baseline faultcost walkcost-2node walkcost-epyc4 walkcost-epyc8 walkcost-hpe16 aged-patched aged-baseline aged-patched-1node aged-baseline-1node aged-alone-nf aged-alone-legacy aged-nodrain storm-patched-nf storm-patched-guest storm-patched-legacy storm-baseline storm-7.3-patched-nf storm-7.3-patched-guest storm-7.3-patched-legacy storm-7.3-baseline "
is "run_names: the quick bench's storm is 6.12's" "$(names bench-quick fg | tr ' ' '\n' | grep '^storm-' | tr '\n' ' ')" "storm-patched-nf storm-patched-guest storm-patched-legacy storm-baseline "
flavours() { ( TOPDIR=$T; . "$T/tools/runs.sh"; run_flavours "$@" | tr '\n' ' ' ); }
is "run_flavours: make check builds each kernel once, both trees" "$(flavours check)" "baseline patched 7.3-baseline 7.3-patched debug 7.3-debug "
is "run_flavours: only the chosen topologies' kernels" "$(flavours check "2node chain4")" "baseline patched 7.3-patched "
is "run_flavours: make bench boots both trees' kernels, 7.3's for the storm, and the nodrain kernel for the aged attribution" "$(flavours bench)" "patched baseline nodrain 7.3-patched 7.3-baseline "
is "run_flavours: make bench QUICK=1 boots the 6.12 kernels only" "$(flavours bench-quick)" "patched baseline "
run_scratch_of() { # the run-guest arguments of a row, from run_start with a stand-in run-guest
	( TOPDIR=$T CACHE=$tmp/cache QEMU=$tmp/bin/qemu-stand-in PATH=$tmp/bin:$PATH FAKE_BOOTS=$tmp/boots
	  export TOPDIR CACHE QEMU PATH FAKE_BOOTS
	  . "$T/tools/runs.sh"
	  result() { :; }
	  run_row "$1" "$2" && echo "$r_swap|$r_scratch|$r_reuse|$r_start|$r_timeout" )
}
is "the scratch column is read as its own field" "$(run_scratch_of bench aged-patched-1node)" "-|2048|no|fg|900"
plan patched-epyc4
is "the scratch column reaches run-guest as --scratch" "$(cat "$tmp/boots.disks" 2>/dev/null)" "--scratch 512"
is "a row with swap and no scratch keeps its fields" "$(run_scratch_of check patched-storm-nf)" "1024|-|no|quiet|1200"
is "the bench's storm rows: swap, an hour's timeout" "$(run_scratch_of bench storm-7.3-patched-nf)" "1024|-|no|fg|3600"
is "the commands follow the timeout column" "$( ( TOPDIR=$T; . "$T/tools/runs.sh"; run_row check patched-1node && echo "${r_cmds%% ;*}" ) )" "topology.sh {topology}"

# ---- the whole kernel log: each command's allowance in its own window --------
cat >"$tmp/dmesg" <<'EOF2'
[    0.1] boot line
[    1.0] thp-numa run-tests: 7.1 thp_local starts
[    1.1] thp-numa run-tests: 9.1 echo starts
[    1.2] WARNING: planted inside a nested run-tests.sh
[    2.0] thp-numa run-tests: 7.2 thp_policy starts
[    2.1] thp_policy invoked oom-killer
[    2.2] Call Trace:
[    2.3] oom-kill:constraint=CONSTRAINT_MEMCG
[    3.0] thp-numa run-tests: 7.3 thp_challenge starts
[    3.1] thp_challenge: all fine
EOF2
printf '1\tWARNING: planted\n2\toom-kill|Call Trace\n' >"$tmp/allowed"
splats() { ( TOPDIR=$T; . "$T/tools/runs.sh"; run_splats "$tmp/dmesg" "$T/mm-tests/splat-patterns" "$tmp/allowed" | wc -l | tr -d ' ' ); }
is "splats: each allowance in its command's window, a nested run's markers ignored" "$(splats)" 0
sed 's/^\[    3.1\] thp_challenge: all fine/[    3.1] Call Trace:/' "$tmp/dmesg" >"$tmp/d2" && mv "$tmp/d2" "$tmp/dmesg"
is "splats: thp_policy's allowance does not reach the next command" "$(splats)" 1
sed -i '1a [    0.2] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' "$tmp/dmesg"
is "splats: an RCU stall at boot, before any command, is a splat" "$(splats)" 2

tap_done
