#!/bin/sh
# Host-side tests of tools/host.sh (make host-check, make host-bench) on a
# stand-in tree: HOST_THP, HOST_SYS_NODE and HOST_VM point it at files in
# a temporary directory, and stand-ins on PATH take the place of id, the
# test programs and run-tests.sh.  So a refusal that did not happen would
# write the stand-ins, never this machine's sysfs; and the real machine is
# asked once, read-only, to refuse (it has no numa_fallback knob).  The
# same script runs for real in a guest (mm-tests/host-check-test.sh).
# TAP on stdout.
#
#   tools/test-host.sh
set -u
TOOL=test-host
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"

# a stand-in machine with NODES memory nodes, a THP tree (with the knob
# unless NOKNOB=1) and two vm sysctls
machine() { # machine NODES
	rm -rf "$tmp/m"
	mkdir -p "$tmp/m/thp/khugepaged" "$tmp/m/node" "$tmp/m/vm"
	i=0
	while [ "$i" -lt "$1" ]; do
		mkdir "$tmp/m/node/node$i"
		printf 'Node %d MemTotal:       1048576 kB\n' "$i" >"$tmp/m/node/node$i/meminfo"
		i=$((i + 1))
	done
	mkdir "$tmp/m/node/node$i"		# a memory-less node
	printf 'Node %d MemTotal:       0 kB\n' "$i" >"$tmp/m/node/node$i/meminfo"
	# the SLIT: 10 local, ${FAR:-20} remote
	for d in "$tmp/m/node"/node*; do
		n=${d##*node}
		awk -v n="$n" -v last="$i" -v far="${FAR:-20}" \
			'BEGIN { for (j = 0; j <= last; j++) printf("%s%d", j ? " " : "", j == n ? 10 : far); print "" }' >"$d/distance"
	done
	echo "always [madvise] never" >"$tmp/m/thp/enabled"
	echo "always defer defer+madvise [madvise] never" >"$tmp/m/thp/defrag"
	echo 10000 >"$tmp/m/thp/khugepaged/scan_sleep_millisecs"
	[ "${NOKNOB:-0}" = 1 ] || echo "[node-first] guest legacy" >"$tmp/m/thp/numa_fallback"
	echo 10 >"$tmp/m/vm/watermark_scale_factor"
	echo 0 >"$tmp/m/vm/zone_reclaim_mode"
	chmod u+w "$tmp/m/thp/enabled"
	state >"$tmp/m.before"
}
# every value, a bracketed choice as the chosen word (what a write of it
# to sysfs leaves; the stand-in files keep just the word)
state() {
	( cd "$tmp/m" && find thp vm -type f | sort | xargs grep -H . ) |
		sed 's/:.*\[\(.*\)\].*/:\1/'
}

# stand-ins: id says UID, thp_local exists, run-tests.sh changes values as
# a test that died without restoring them would, then does STANDIN_DO
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "${STANDIN_UID:-0}"\n' >"$tmp/bin/id"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/thp_local"
# insmod and rmmod stand-ins: nothing is ever loaded into this machine
printf '#!/bin/sh\necho "insmod $*" >>"$STANDIN_LOG"\n' >"$tmp/bin/insmod"
printf '#!/bin/sh\necho "rmmod $*" >>"$STANDIN_LOG"\n' >"$tmp/bin/rmmod"
cat >"$tmp/bin/run-tests.sh" <<'EOF'
#!/bin/sh
echo "$*" >>"$STANDIN_LOG"
echo never >"$HOST_THP/enabled"
[ ! -e "$HOST_THP/numa_fallback" ] || echo legacy >"$HOST_THP/numa_fallback"
echo 400 >"$HOST_VM/watermark_scale_factor"
echo "ok 1 stand-in"
case ${STANDIN_DO:-} in
fail) echo "not ok 2 stand-in failure" ;;
exit) echo "# thp_local exited 3" ;;
sleep) : >"$STANDIN_LOG.sleeping"; sleep 30 ;;
esac
exit 0
EOF
chmod +x "$tmp/bin/"*

# host ARGS...: host.sh on the stand-in machine; rc, out (stdout+stderr)
host() {
	rc=0
	HOST_THP=$tmp/m/thp HOST_SYS_NODE=$tmp/m/node HOST_VM=$tmp/m/vm PATH=$tmp/bin:$PATH \
		STANDIN_LOG=$tmp/ran TMPDIR=$tmp "$TOPDIR/tools/host.sh" "$@" >"$tmp/out" 2>&1 || rc=$?
	out=$(cat "$tmp/out")
}
unchanged() { state | cmp -s - "$tmp/m.before"; }
ran() { [ -s "$tmp/ran" ]; }

# ---- refusals ----------------------------------------------------------------
machine 1
rm -f "$tmp/ran"
host check --yes-this-machine
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: this machine has 1 memory node(s)" && unchanged && ! ran
tap $? "one memory node (and a memory-less one): refused, exit 2, nothing written, nothing run (exit $rc)"

machine 4
host check
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: .*pass --yes-this-machine" && unchanged && ! ran
tap $? "without --yes-this-machine: refused, nothing written (exit $rc)"

NOKNOB=1 machine 4
host check --yes-this-machine
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: the running kernel .* has no .*numa_fallback" && unchanged && ! ran
tap $? "no numa_fallback knob: refused unless named the unpatched reference (exit $rc)"

machine 4
host check --yes-this-machine --unpatched
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: --unpatched names the unpatched reference, but" && unchanged && ! ran
tap $? "--unpatched on a kernel with the knob: refused (exit $rc)"

machine 4
STANDIN_UID=1000 host check --yes-this-machine
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: it writes sysfs: run it as root" && unchanged && ! ran
tap $? "not root: refused (exit $rc)"

NOKNOB=1 machine 1
host bench
n=$(echo "$out" | grep -c "refused:")
[ "$rc" = 2 ] && [ "$n" = 3 ]
tap $? "every reason is named at once: one node, no knob, no --yes-this-machine ($n of 3)"

machine 4
host check --yes-this-machine --fills 0
[ "$rc" = 2 ] && echo "$out" | grep -q "fills takes a whole number" && unchanged
tap $? "a bad --fills: exit 2 before anything is written"
host frobnicate
[ "$rc" = 2 ] && echo "$out" | grep -q "^usage: host.sh check|bench"
tap $? "an unknown verb: usage, exit 2"

# ---- runs: the saved values come back ---------------------------------------
machine 4
rm -f "$tmp/ran"
host check --yes-this-machine --out "$tmp/o1"
[ "$rc" = 0 ] && ran && unchanged && echo "$out" | grep -q "^ok - host.sh: every saved value restored (6 values)"
tap $? "a green run: exit 0, and the values the tests left changed are restored (exit $rc)"
grep -q "thp_local" "$tmp/ran" && grep -q "thp_knob" "$tmp/ran" &&
	grep -q "placement rows # SKIP no --module" "$tmp/o1/output.log" 2>/dev/null || echo "$out" | grep -q "placement rows # SKIP no --module"
tap $? "check runs thp_local and thp_knob, and says why the placement rows are left out"
grep -q "^# host.sh: 1 passed, 0 failed, 1 skipped" "$tmp/o1/output.log" 2>/dev/null || echo "$out" | grep -q "^# host.sh: 1 passed, 0 failed, 1 skipped"
tap $? "the summary counts the left-out placement rows as a skip, not a pass"
grep -q "thp_usemem -b -n 2 -m node-first" "$tmp/ran" && grep -q "thp_usemem -b -n 2 -m legacy" "$tmp/ran" &&
	grep -q "thp_aged -R 3  -r aged -d madvise,never" "$tmp/ran"
tap $? "check runs the aged rows, and the storm in each mode, --fills 2 by default"

machine 4
rm -f "$tmp/ran"
STANDIN_DO=fail host check --yes-this-machine --quick --out "$tmp/o2"
[ "$rc" = 1 ] && unchanged && ! grep -q thp_usemem "$tmp/ran"
tap $? "a failed test: exit 1, values restored; --quick leaves the storm out (exit $rc)"
machine 4
STANDIN_DO="exit" host check --yes-this-machine --quick --out "$tmp/o3"
[ "$rc" = 1 ] && unchanged
tap $? "a command that exited non-zero: exit 1, values restored (exit $rc)"

NOKNOB=1 machine 4
rm -f "$tmp/ran"
host check --yes-this-machine --unpatched --out "$tmp/o4"
[ "$rc" = 0 ] && unchanged && ! grep -q "thp_knob\|node-first" "$tmp/ran" && grep -q "thp_usemem -b -n 2 -m legacy" "$tmp/ran"
tap $? "the unpatched reference: legacy only, no thp_knob (exit $rc)"

machine 4
rm -f "$tmp/ran"
host bench --yes-this-machine --fills 3 --out "$tmp/o5"
[ "$rc" = 0 ] && unchanged && grep -q "numa-lat -t 64 -x -o $tmp/o5/numa-lat" "$tmp/ran" && grep -q "thp_usemem -b -n 3 -m guest" "$tmp/ran"
tap $? "bench: numa-lat into the output directory, the storm with --fills (exit $rc)"
! grep -q "thp_faultcost\|thp_scenarios" "$tmp/ran" && grep -q "placement rows and fault cost # SKIP no --module" "$tmp/o5/output.log"
tap $? "bench without --module: no placement or fault cost, and a skip that says why"
[ "$(cat "$tmp/o5/kernel.txt" 2>/dev/null)" = "$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/') patched $(uname -r)" ] &&
	[ -s "$tmp/o5/machine.txt" ] && [ -e "$tmp/o5/topology.txt" ]
tap $? "bench: kernel.txt, machine.txt and topology.txt for the report ($(cat "$tmp/o5/kernel.txt" 2>/dev/null))"
head -n 1 "$tmp/o5/report.md" 2>/dev/null | grep -q "^# make host-bench results" &&
	echo "$out" | grep -q "^# host.sh: report in $tmp/o5/report.md"
tap $? "bench: the report (report.sh --host), and where it is"
grep -q "^- patched: skipped - host.sh: placement rows and fault cost (no --module" "$tmp/o5/report.md" &&
	! grep -q "^Every check" "$tmp/o5/report.md"
tap $? "bench: the report lists the skipped check before its tables"
[ "$(sed -n 2p "$tmp/o5/machine.key")" = "node0: 10 20 20 20 20" ]
tap $? "bench: machine.key has the SLIT ($(sed -n 2p "$tmp/o5/machine.key"))"
STANDIN_DO=fail host bench --yes-this-machine --out "$tmp/o6"
[ "$rc" = 1 ] && grep -q "^\*\*Not every check passed" "$tmp/o6/report.md" &&
	grep -q "^- patched: not ok - stand-in failure" "$tmp/o6/report.md"
tap $? "bench with a failed check: the report says so before its tables (exit $rc)"

NOKNOB=1 machine 4
host bench --yes-this-machine --unpatched --out "$tmp/o8"
[ "$rc" = 0 ] && unchanged && [ "$(cut -d' ' -f2 "$tmp/o8/kernel.txt")" = baseline ]
tap $? "bench of the unpatched reference: kernel.txt says baseline (exit $rc)"

machine 4
rm -f "$tmp/ran"
: >"$tmp/nodestate.ko"
host bench --yes-this-machine --module "$tmp/nodestate.ko" --out "$tmp/o7" --compare "$tmp/o8"
[ "$rc" = 0 ] && unchanged && grep -q "thp_scenarios -m node-first,guest,legacy -r classes" "$tmp/ran" &&
	grep -q "thp_faultcost -m node-first,guest,legacy -S FREE,FRAG,FAR" "$tmp/ran" &&
	grep -q "patched: .*; baseline: " "$tmp/o7/report.md" && grep -q "^insmod $tmp/nodestate.ko" "$tmp/ran" &&
	grep -q "^rmmod" "$tmp/ran"
tap $? "bench with --module (insmod, rmmod: stand-ins) and --compare of the unpatched run: the placement rows, the fault cost, both kernels in the report (exit $rc)"

machine 4
host bench --yes-this-machine --compare "$tmp/o5"
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: --compare $tmp/o5 is a run of the patched kernel, as this one is" && unchanged
tap $? "--compare with a run of the same kernel: refused before anything runs (exit $rc)"

machine 4
host check --yes-this-machine --compare "$tmp/o5"
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: --compare is for bench" && unchanged
tap $? "--compare with check: refused (exit $rc)"
host bench --yes-this-machine --compare "$tmp"
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: --compare $tmp: not a host-bench directory" && unchanged
tap $? "--compare with a directory that is no host-bench run: refused (exit $rc)"
NOKNOB=1 FAR=32 machine 4
host bench --yes-this-machine --unpatched --compare "$tmp/o5"
[ "$rc" = 2 ] && echo "$out" | grep -q "refused: --compare $tmp/o5 ran on another machine" && unchanged
tap $? "--compare with a run on another machine (another SLIT): refused (exit $rc)"
rc=0
"$TOPDIR/tools/report.sh" --host "$tmp/o7" "$tmp/o5" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "are both runs of the patched kernel" "$tmp/out"
tap $? "report.sh --host with two runs of one kernel: refused (exit $rc)"
cp -r "$tmp/o8" "$tmp/o9" && sed -i 's/^node0: .*/node0: 10 32 32 32 32/' "$tmp/o9/machine.key"
rc=0
"$TOPDIR/tools/report.sh" --host "$tmp/o7" "$tmp/o9" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "are not runs on one machine" "$tmp/out"
tap $? "report.sh --host with another machine's run: refused (exit $rc)"

# Ctrl-C: INT to the whole process group, as a terminal sends it (a
# background job of a script starts with INT ignored, which a shell cannot
# trap, so env puts the default back first)
machine 4
rm -f "$tmp/ran" "$tmp/ran.sleeping"
( HOST_THP=$tmp/m/thp HOST_SYS_NODE=$tmp/m/node HOST_VM=$tmp/m/vm PATH=$tmp/bin:$PATH \
	STANDIN_LOG=$tmp/ran STANDIN_DO=sleep TMPDIR=$tmp \
	setsid env --default-signal=INT "$TOPDIR/tools/host.sh" check --yes-this-machine --out "$tmp/o6" >"$tmp/out" 2>&1
  echo $? >"$tmp/rc6" ) &
i=0
while [ ! -e "$tmp/ran.sleeping" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
changed=0
unchanged || changed=1
pg=$(ps -eo pid=,pgid=,args= | awk -v o="$tmp/o6" 'index($0, "host.sh check") && index($0, o) { print $2; exit }')
[ -n "$pg" ] && kill -INT "-$pg"
wait
rc=$(cat "$tmp/rc6" 2>/dev/null)
[ "$changed" = 1 ] && [ "$rc" = 1 ] && unchanged && grep -q "interrupted (INT): restoring" "$tmp/out" &&
	grep -q "^ok - host.sh: every saved value restored" "$tmp/out"
tap $? "Ctrl-C in the middle of a test that changed values: exit 1, every value restored (changed before: $changed, exit $rc)"

# ---- this machine, read-only: it has no knob, so it must refuse --------------
if [ -e /sys/kernel/mm/transparent_hugepage/numa_fallback ]; then
	tap 0 "this machine refuses # SKIP its kernel has numa_fallback"
else
	# stand-ins that only record: had the refusal failed, nothing
	# would have been changed here
	mkdir "$tmp/rec"
	for p in id thp_local run-tests.sh; do
		printf '#!/bin/sh\necho "$0 $*" >>"%s"\n[ "${0##*/}" != id ] || echo 0\n' "$tmp/ran-real" >"$tmp/rec/$p"
	done
	chmod +x "$tmp/rec/"*
	rc=0
	PATH=$tmp/rec:$PATH TMPDIR=$tmp "$TOPDIR/tools/host.sh" check --yes-this-machine >"$tmp/out" 2>&1 || rc=$?
	[ "$rc" = 2 ] && grep -q "refused: the running kernel .* has no /sys/kernel/mm/transparent_hugepage/numa_fallback" "$tmp/out" &&
		! grep -q "run-tests.sh" "$tmp/ran-real" 2>/dev/null
	tap $? "this machine (no numa_fallback knob): refused before anything, exit $rc ($(head -n 1 "$tmp/out"))"
fi
tap_done
