#!/bin/sh
# The test suite on the machine itself, for someone booted into a patched
# (or unpatched) kernel on real NUMA hardware.  It writes THP sysfs knobs
# and vm sysctls and fills memory, so it refuses to start unless:
#   - the running kernel has the numa_fallback knob, or --unpatched names
#     it the unpatched reference (and it has no knob);
#   - the machine has at least two memory nodes;
#   - --yes-this-machine is given;
#   - it runs as root.
# Every reason that holds is printed, and nothing is written before all of
# them pass.  Then every value under /sys/kernel/mm/transparent_hugepage
# and the vm sysctls the tests touch are saved, and written back when it
# ends: normally, on failure, on Ctrl-C (INT), TERM or HUP.  The values
# after the restore are compared with the saved ones and any difference is
# a failure.
#
#   tools/host.sh check|bench --yes-this-machine [--unpatched] [--quick]
#                 [--module nodestate.ko] [--fills N] [--out DIR]
#                 [--compare DIR]
#
# check    thp_local, thp_knob (patched), the placement rows (thp_scenarios:
#          the design's rows, the class rows, 64K mTHP; need --module, a
#          nodestate.ko built for the running kernel); --quick stops there.
#          Then thp_aged (memory aged by a workload that exited, defrag
#          madvise and never), thp_policy and thp_usemem -b (the storm: one
#          kswapd wake on the CPU's node per fill), each mode in turn
#          (legacy only with --unpatched).
# bench    numa-lat's per-distance table (the real one, unlike the
#          emulator's); with --module the placement rows of every mode and
#          thp_faultcost (node 0 FREE, FRAG, and FAR: every nearer class
#          full); the storm.  Then the report (tools/report.sh --host):
#          report.md, CSV files and plots, with numa-lat's measured cost
#          table for the projection.  --compare DIR names the host-bench
#          directory of the other kernel (patched or unpatched) on this
#          machine, whose placement and storm become the report's other
#          columns.
# --out    where output.log and the saved values go (default: bench,
#          results/host-DATE in this repository; check, a new directory
#          under ${TMPDIR:-/tmp}); the TAP goes to stdout too.
#
# Exit status: 0 when every test passed, 1 when one failed or the restore
# left a value changed, 2 when it refused to start.  The binaries are those
# on PATH (the guest's), else built from mm-tests/ into $CACHE/host/bin.
# make check runs this in a guest, which plays the host
# (mm-tests/host-check-test.sh); it never runs it on the machine it runs on.
set -u
prog=host.sh
here=$(cd "$(dirname "$0")" && pwd)
verb=${1:-}
[ $# -gt 0 ] && shift
yes='' unpatched='' quick='' module='' fills=2 out='' compare=''
usage() {
	echo "usage: $prog check|bench --yes-this-machine [--unpatched] [--quick] [--module nodestate.ko] [--fills N] [--out DIR] [--compare DIR]" >&2
	exit 2
}
case $verb in check | bench) ;; *) usage ;; esac
while [ $# -gt 0 ]; do
	case $1 in
	--yes-this-machine) yes=1 ;;
	--unpatched) unpatched=1 ;;
	--quick) quick=1 ;;
	--module) [ $# -ge 2 ] || usage; module=$2; shift ;;
	--fills) [ $# -ge 2 ] || usage; fills=$2; shift ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift ;;
	--compare) [ $# -ge 2 ] || usage; compare=$2; shift ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift
done
case $fills in '' | *[!0-9]* | 0) echo "$prog: --fills takes a whole number from 1, not '$fills'" >&2; exit 2 ;; esac

# HOST_THP, HOST_SYS_NODE and HOST_VM put the tree it reads and writes
# elsewhere (tools/test-host.sh, which must never reach the real ones).
THP=${HOST_THP:-/sys/kernel/mm/transparent_hugepage}
SYS_NODE=${HOST_SYS_NODE:-/sys/devices/system/node}
VM=${HOST_VM:-/proc/sys/vm}

# ---- refusals: all of them, before anything is written ---------------------
# the kernel this run is of, as kernel.txt and --compare name it
if [ -n "$unpatched" ]; then kernel=baseline; else kernel=patched; fi
mem_nodes() {
	n=0
	for d in "$SYS_NODE"/node[0-9]*; do
		[ -r "$d/meminfo" ] || continue
		kb=$(awk '/MemTotal:/ { print $4 }' "$d/meminfo")
		[ "${kb:-0}" -gt 0 ] && n=$((n + 1))
	done
	echo "$n"
}
# what makes two runs one machine's: its CPUs and its SLIT, row by row
# (kernel.txt says which kernel; memory sizes move a little with it)
machine_key() {
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(grep -c '^processor' /proc/cpuinfo) CPUs"
	for d in "$SYS_NODE"/node[0-9]*; do
		[ -r "$d/distance" ] && echo "${d##*/}: $(cat "$d/distance")"
	done
}
no=
refuse() { no="$no$1
"; }
nodes=$(mem_nodes)
[ "$nodes" -ge 2 ] ||
	refuse "this machine has $nodes memory node(s): there is no placement to test on fewer than two"
if [ -e "$THP/numa_fallback" ]; then
	[ -z "$unpatched" ] ||
		refuse "--unpatched names the unpatched reference, but the running kernel ($(uname -r)) has $THP/numa_fallback: boot the unpatched kernel, or leave --unpatched out"
elif [ -z "$unpatched" ]; then
	refuse "the running kernel ($(uname -r)) has no $THP/numa_fallback: boot a kernel with the series (make deb), or pass --unpatched if this is the unpatched reference"
fi
[ -n "$yes" ] ||
	refuse "it writes THP sysfs knobs and vm sysctls and fills most of memory on this machine: pass --yes-this-machine to agree"
[ "$(id -u)" = 0 ] || refuse "it writes sysfs: run it as root"
if [ -n "$module" ] && [ ! -r "$module" ]; then
	refuse "--module $module: no such file"
fi
if [ -n "$compare" ]; then
	[ "$verb" = bench ] || refuse "--compare is for bench: it adds another host-bench run to the report"
	if [ -r "$compare/kernel.txt" ] && [ -s "$compare/output.log" ]; then
		ck=$(cut -d' ' -f2 "$compare/kernel.txt")
		[ "$ck" != "$kernel" ] ||
			refuse "--compare $compare is a run of the $ck kernel, as this one is: name the other kernel's run (patched against unpatched)"
		[ "$(machine_key)" = "$(cat "$compare/machine.key" 2>/dev/null)" ] ||
			refuse "--compare $compare ran on another machine (its machine.key, CPUs and SLIT, is not this one's): compare two kernels on one machine"
	else
		refuse "--compare $compare: not a host-bench directory (no kernel.txt or output.log)"
	fi
fi
if [ -n "$no" ]; then
	printf '%s' "$no" | sed "s/^/$prog: refused: /" >&2
	exit 2
fi

# ---- the binaries -----------------------------------------------------------
if command -v thp_local >/dev/null 2>&1 && command -v run-tests.sh >/dev/null 2>&1; then
	:
else
	top=$(cd "$here/.." && pwd)
	bin=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thp-numa}/host/bin
	echo "# $prog: building the test programs into $bin"
	mkdir -p "$bin" && make -s -C "$top/mm-tests" O="$bin" >&2 ||
		{ echo "$prog: cannot build mm-tests into $bin (needs cc and the kernel's UAPI headers: KHDR=)" >&2; exit 2; }
	for s in run-tests.sh splat-patterns; do
		cp "$top/mm-tests/$s" "$bin/" || exit 2
	done
	if [ "$verb" = bench ]; then
		make -s -C "$top/tools/numa-lat" O="$bin" >&2 ||
			{ echo "$prog: cannot build numa-lat into $bin" >&2; exit 2; }
	fi
	PATH=$bin:$PATH
	export PATH
fi

# bench's report goes where make bench's do, when this is the repository
top=$(cd "$here/.." && pwd)
if [ -z "$out" ] && [ "$verb" = bench ] && [ -x "$here/report.sh" ] && [ -w "$top" ]; then
	out=$top/results/host-$(date +%Y%m%d-%H%M%S)
	# root writes it, into a checkout that is someone's: theirs
	owner=$(stat -c %u:%g "$top")
	mkdir -p "$out" && chown "$owner" "$top/results" "$out" 2>/dev/null
fi
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/thp-numa-host.XXXXXX")
mkdir -p "$out" || exit 2
# what ran where, for the report: "TREE KERNEL RELEASE", the machine, the SLIT
release=$(uname -r)
tree=$(echo "$release" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
echo "${tree:-unknown} $kernel $release" >"$out/kernel.txt"
{
	echo "kernel: $release ($kernel), $(date -u '+%Y-%m-%d %H:%M UTC')"
	machine_key | head -n 1
	echo "memory nodes: $nodes"
	echo "command line: $(cat /proc/cmdline 2>/dev/null)"
} >"$out/machine.txt"
machine_key >"$out/machine.key"
if command -v numactl >/dev/null 2>&1; then
	numactl -H >"$out/topology.txt" 2>&1
else
	for d in "$SYS_NODE"/node[0-9]*; do
		[ -r "$d/distance" ] && echo "${d##*/}: distances $(cat "$d/distance")"
	done >"$out/topology.txt"
fi

# ---- save, and restore on every way out --------------------------------------
# One "path<TAB>value" line per value: a bracketed choice ("always
# [madvise] never") as the chosen word.
VM_KNOBS="compaction_proactiveness watermark_boost_factor watermark_scale_factor min_free_kbytes zone_reclaim_mode percpu_pagelist_high_fraction defrag_mode"
snapshot() {
	{
		find "$THP" -type f -perm -u+w 2>/dev/null | sort
		for k in $VM_KNOBS; do
			[ -w "$VM/$k" ] && echo "$VM/$k"
		done
	} | while IFS= read -r f; do
		v=$(cat "$f" 2>/dev/null) || continue
		case $v in *"["*"]"*) v=$(echo "$v" | sed 's/.*\[\(.*\)\].*/\1/') ;; esac
		printf '%s\t%s\n' "$f" "$v"
	done
}
snapshot >"$out/sysfs.before"
echo "# $prog: saved $(wc -l <"$out/sysfs.before" | tr -d ' ') values ($out/sysfs.before)"
loaded=
restored=
restore() {
	[ -n "$restored" ] && return
	restored=1
	[ -z "$loaded" ] || rmmod nodestate 2>/dev/null
	# twice: some knobs refuse a value until another one is back (khugepaged
	# settings while THP is off, say)
	for _ in 1 2; do
		while IFS='	' read -r f v; do
			cur=$(cat "$f" 2>/dev/null)
			case $cur in *"["*"]"*) cur=$(echo "$cur" | sed 's/.*\[\(.*\)\].*/\1/') ;; esac
			[ "$cur" = "$v" ] || echo "$v" >"$f" 2>/dev/null
		done <"$out/sysfs.before"
	done
	snapshot >"$out/sysfs.after"
	if cmp -s "$out/sysfs.before" "$out/sysfs.after"; then
		echo "ok - $prog: every saved value restored ($(wc -l <"$out/sysfs.before" | tr -d ' ') values)"
	else
		echo "not ok - $prog: every saved value restored"
		diff "$out/sysfs.before" "$out/sysfs.after" | sed 's/^/# /'
		failed=1
	fi
}
failed=0
trap 'restore; exit $((failed ? 1 : 0))' EXIT
trap 'echo "# $prog: interrupted (INT): restoring"; failed=1; exit 1' INT
trap 'echo "# $prog: terminated: restoring"; failed=1; exit 1' TERM HUP

# ---- the commands -------------------------------------------------------------
set --
skipped=''
if [ -n "$unpatched" ]; then modes=legacy; else modes="node-first guest legacy"; fi
if [ -n "$module" ]; then
	# one already loaded is used, and left loaded at the end
	if grep -q '^nodestate ' /proc/modules; then
		echo "# $prog: nodestate is loaded already: using it, and leaving it loaded"
	else
		insmod "$module" || { echo "not ok - $prog: insmod $module"; failed=1; exit 1; }
		loaded=1
	fi
fi
m="-m $(echo "$modes" | tr ' ' ,)"
if [ "$verb" = check ]; then
	set -- "$@" thp_local
	[ -n "$unpatched" ] || set -- "$@" thp_knob
	if [ -n "$module" ]; then
		set -- "$@" "thp_scenarios $m" "thp_scenarios $m -r classes" "thp_scenarios $m -r mthp -k inherit"
	else
		skipped="ok - $prog: placement rows # SKIP no --module: they need nodestate.ko built for $release"
	fi
	if [ -z "$quick" ]; then
		# thp_aged orders its modes itself (legacy first, the reference)
		a=
		[ -z "$unpatched" ] || a="-m legacy"
		set -- "$@" "thp_aged -R 3 $a -r aged -d madvise,never"
		set -- "$@" --allow "oom-kill|Call Trace" thp_policy
		for m in $modes; do
			set -- "$@" "thp_usemem -b -n $fills -m $m"
		done
	fi
else
	set -- "$@" "NUMA_LAT_PROGRESS=1 numa-lat -t 64 -x -o $out/numa-lat"
	if [ -n "$module" ]; then
		set -- "$@" "thp_scenarios $m" "thp_scenarios $m -r classes" "thp_scenarios $m -r mthp -k inherit" \
			"thp_faultcost $m -S FREE,FRAG,FAR"
	else
		skipped="ok - $prog: placement rows and fault cost # SKIP no --module: they need nodestate.ko built for $release"
	fi
	for m in $modes; do
		set -- "$@" "thp_usemem -b -n $fills -m $m"
	done
fi
echo "# $prog: $verb on $release, $nodes memory nodes, output in $out"
{ [ -z "$skipped" ] || echo "$skipped"; run-tests.sh "$@" 2>&1; } | tee "$out/output.log"
# a failed check, a command that exited non-zero, a program that bailed out
bad=$(grep -cE '^not ok|^# [^ ]+ exited [0-9]+$|^Bail out!' "$out/output.log")
# shellcheck disable=SC2034 # read by the EXIT trap
[ "$bad" = 0 ] || failed=1
# a skip is counted apart, never as a pass
echo "# $prog: $(grep '^ok' "$out/output.log" | grep -vc '# SKIP') passed, $bad failed, $(grep '^ok' "$out/output.log" | grep -c '# SKIP') skipped ($out/output.log)"
# bench: the report, as make bench's (when report.sh is at hand: not in
# the guest that plays the host)
if [ "$verb" = bench ]; then
	# the machine back as it was first: the report reads files only
	restore
	if [ -x "$here/report.sh" ]; then
		if "$here/report.sh" --host "$out" ${compare:+"$compare"} >"$out/report.log" 2>&1; then
			echo "# $prog: report in $out/report.md"
		else
			echo "not ok - $prog: the report (tools/report.sh --host $out${compare:+ $compare}; see $out/report.log)"
			tail -n 5 "$out/report.log" | sed 's/^/# /'
			# shellcheck disable=SC2034 # read by the EXIT trap
			failed=1
		fi
	else
		echo "# $prog: no report.sh beside $prog: output.log only (tools/report.sh --host $out makes the report)"
	fi
	[ -z "${owner:-}" ] || chown -R "$owner" "$out" 2>/dev/null
fi
