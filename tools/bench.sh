#!/bin/sh
# make bench: what the series buys, measured in the emulated NUMA guest.
#
#   tools/bench.sh [--topo epyc4] [--out DIR] [--cost FILE]... [--quick]
#
#   1. numa-lat: per-distance latency table (THP, 64k mTHP and 4k, every
#      page verified)
#   2. placement of every scenario set in each numa_fallback mode, and on
#      the unpatched baseline kernel
#   3. fault cost A/B: node-first and guest against legacy, same boot
#   4. projected access latency: placements x cost tables (tools/costs/,
#      plus the guest's own numa-lat table and any --cost FILE)
#   5. the report: results/<date>/report.md, CSV files and plots
#
# --quick cuts the repetitions and scenario sets for a smoke run.
set -eu
TOOL=bench
. "$(dirname "$0")/lib.sh"

topo=${TOPO:-epyc4}
out=$TOPDIR/results/$(date +%Y%m%d-%H%M%S)
costs=
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--topo) topo=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--cost) [ -r "$2" ] || die "cannot read cost table $2"; costs="$costs $(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
	--quick) quick=1; shift ;;
	*) die "unknown option $1 (see the head of tools/bench.sh)" ;;
	esac
done
ensure_packages $ALL_PKGS gnuplot-nox
start=$(date +%s)
failed=

say "step 1/6: kernels (patched, baseline)"
"$TOPDIR/tools/kernel.sh" patched
"$TOPDIR/tools/kernel.sh" baseline
say "step 2/6: guest image and benchmark programs"
"$TOPDIR/rootfs/build.sh" >/dev/null
"$TOPDIR/tools/stage.sh" patched baseline

mkdir -p "$out"
echo "make bench${TOPO:+ TOPO=$TOPO}$(echo "$costs" | sed 's/ / --cost /g')" >"$out/command.txt"
date -u '+%Y-%m-%d %H:%M UTC' >"$out/date.txt"

# guest NAME FLAVOUR COMMAND...: one boot; the run dir is $CACHE/runs/bench-NAME
guest() {
	name=$1 flavour=$2
	shift 2
	run=$CACHE/runs/bench-$name
	rm -rf "$run"
	t=$(date +%s)
	if QUIET=1 "$TOPDIR/tools/run-guest" --kernel "$flavour" --topo "$topo" --out "$run" -- "$@"; then
		say "$name: done in $(($(date +%s) - t)) s"
	else
		say "$name: FAILED after $(($(date +%s) - t)) s; output $run/output.log, console $run/console.log"
		failed="$failed $name"
	fi
}

tracefs='mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing'
if [ "$quick" = 1 ]; then
	lat='numa-lat -c 0 -n 1 -s 16 -x -o /mnt/out/numa-lat'
	sets='-r epyc4'
	fc='thp_faultcost -r 3 -s 64'
else
	lat='numa-lat -t 64 -x -o /mnt/out/numa-lat'
	sets='-r epyc4|-r epyc4 -n|-r deep|-r epyc4 -c 2'
	fc='thp_faultcost'
fi

say "step 3/6: numa-lat on the patched kernel ($topo; about 2 min under TCG)"
# 64k mTHP as a third size: enabled in the guest only, as "inherit".
guest numa-lat patched 'numactl -H' \
	'echo inherit >/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled' \
	"NUMA_LAT_PROGRESS=1 $lat"
r=$CACHE/runs/bench-numa-lat
sed -n '/^available:/,/^# numa-lat/p' "$r/output.log" 2>/dev/null | grep -v '^#* *numa-lat' >"$out/topology.txt" || true
for e in md csv json cost; do
	[ -f "$r/numa-lat.$e" ] && cp "$r/numa-lat.$e" "$out/"
done

scen_cmds() { # thp_scenarios command lines for each set, modes $1
	echo "$sets" | tr '|' '\n' | while read -r s; do
		echo "thp_scenarios -m $1 $s"
	done
}
say "step 4/6: placement, patched kernel, modes node-first, guest, legacy ($(echo "$sets" | tr '|' '\n' | wc -l) scenario sets)"
# shellcheck disable=SC2046
IFS='
'
set -- 'insmod /mnt/thp/mod/patched/nodestate.ko' $(scen_cmds node-first,guest,legacy)
unset IFS
guest placement-patched patched "$@"
say "step 5/6: placement, baseline (unpatched 6.12) kernel"
IFS='
'
set -- 'insmod /mnt/thp/mod/baseline/nodestate.ko' $(scen_cmds legacy)
unset IFS
guest placement-baseline baseline "$@"
{
	echo "kernel,rows,mode,cpu_node,madvise,states,placement,classes"
	for k in patched baseline; do
		sed -n 's/^# placement //p' "$CACHE/runs/bench-placement-$k/output.log" 2>/dev/null |
			awk -F'|' -v k="$k" '{
				# rows|mode|cpu|madvise|states|hist (itself "a | b | ...")|classes
				h = $6
				for (i = 7; i < NF; i++)
					h = h "|" $i
				st = $5; cl = $NF
				gsub(",", "/", st); gsub(",", "/", cl)
				printf("%s,%s,%s,%s,%s,%s,%s,%s\n", k, $1, $2, $3, $4, st, h, cl)
			}'
	done
} >"$out/placement.csv"
{
	for k in patched baseline; do
		f=$CACHE/runs/bench-placement-$k/output.log
		ok=$(grep -c '^ok ' "$f" 2>/dev/null || true)
		nok=$(grep -c '^not ok ' "$f" 2>/dev/null || true)
		echo "- $k kernel: $ok placements as the design's order predicts, $nok not."
		grep '^not ok ' "$f" 2>/dev/null | sed 's/^/  - /' || true
	done
} >"$out/placement-tap.txt"
grep -q ', [1-9][0-9]* not\.$' "$out/placement-tap.txt" && failed="$failed placement(rows-off-the-design's-order)"

say "step 6/6: fault cost A/B, node0 FREE then FRAG, modes alternating (a few minutes)"
guest faultcost patched "$tracefs" 'insmod /mnt/thp/mod/patched/nodestate.ko' \
	"perf stat -x, -o /mnt/out/perf-faultcost.txt -e kmem:mm_page_alloc_multi_order -- $fc"
r=$CACHE/runs/bench-faultcost
cp "$r/output.log" "$out/faultcost.log" 2>/dev/null || true
cp "$r/perf-faultcost.txt" "$out/" 2>/dev/null || true

say "report: projections, tables and plots"
# shellcheck disable=SC2086
"$TOPDIR/tools/report.sh" "$out" $costs
ln -sfn "$(basename "$out")" "$TOPDIR/results/latest" 2>/dev/null || true
say "results in $out (report.md, *.csv, plots/); took $(($(date +%s) - start)) s"
[ -z "$failed" ] || die "these bench steps failed:$failed (their logs are named above)"
