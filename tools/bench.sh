#!/bin/sh
# make bench: what the series buys, measured in the emulated NUMA guest.
#
#   tools/bench.sh [--topo epyc4] [--out DIR] [--cost FILE]... [--quick]
#                  [--fills N]
#
#   1. numa-lat: per-distance latency table (THP, 64k mTHP and 4k, every
#      page verified)
#   2. placement of every scenario set in each numa_fallback mode, and on
#      the unpatched baseline kernel
#   3. fault cost A/B: node-first and guest against legacy, same boot;
#      and the walk's cost as the machine grows (2node, epyc4, epyc8,
#      hpe16): node 0 FREE, and every class but the farthest FULL
#   4. aged memory (thp_challenge, thpchallenge-style): THP share by
#      distance and size over time, fault latency, khugepaged recovery,
#      on the topology and on 1node, each mode and the baseline kernel;
#      on the topology also each of node-first and legacy in a boot of its
#      own, and the series without its per-cpu drain (the nodrain kernel)
#   5. the usemem storm (thp_usemem -b): one kswapd wake on node 0 in
#      every fill; swap-outs, kswapd passes and the rest per fill, each
#      mode of the patched kernel against the unpatched kernel, on 6.12
#      and on 7.3, N fills per mode (--fills N, 4; make bench FILLS=N)
#   6. projected access latency: placements x cost tables (tools/costs/,
#      plus the guest's own numa-lat table and any --cost FILE)
#   7. the report: results/<date>/report.md, CSV files and plots
#
# --quick cuts the repetitions and scenario sets for a smoke run; its
# storm is on 6.12 only, one fill per mode unless --fills says otherwise.
#
# The guest runs are the "bench" rows of tools/runs.conf ("bench-quick"
# with --quick), started and reported by tools/runs.sh like make check's:
# each command runs under run-tests.sh, so a kernel WARNING, a failed
# placement or a run that did not finish fails the bench (after the
# report is written), with the log that shows it.
set -eu
TOOL=bench
. "$(dirname "$0")/lib.sh"

topo=${TOPO:-epyc4}
out=$TOPDIR/results/$(date +%Y%m%d-%H%M%S)
costs=
quick=0
unset fills
while [ $# -gt 0 ]; do
	case $1 in
	--topo) topo=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--cost) [ -r "$2" ] || die "cannot read cost table $2"; costs="$costs $(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
	--quick) quick=1; shift ;;
	--fills) [ $# -ge 2 ] || die "--fills takes a number of fills per mode"; fills=$2; shift 2 ;;
	*) die "unknown option $1 (see the head of tools/bench.sh)" ;;
	esac
done
# Fills per mode of the storm rows ({storm_fills} in tools/runs.conf):
# thp_usemem -n takes 1-100.  4 keeps the warm bench short and still
# gives the permutation test 70 labellings per mode and tree.
if [ -z "${fills+given}" ]; then
	[ "$quick" = 1 ] && storm_fills=1 || storm_fills=4
else
	case $fills in
	'' | *[!0-9]* | 0*) die "--fills (FILLS=) takes a whole number of fills per mode, 1-100, not '$fills'" ;;
	esac
	[ "$fills" -le 100 ] || die "--fills (FILLS=) takes 1-100 fills per mode (thp_usemem -n), not $fills"
	storm_fills=$fills
fi
STORM_FILLS=$storm_fills
export STORM_FILLS
ensure_packages $ALL_PKGS gnuplot-nox
. "$TOPDIR/tools/runs.sh"
start=$(date +%s)
plan=bench
[ "$quick" = 1 ] && plan=bench-quick
runs_topo=$topo
# The storm rows' timeout allows about 25 s per fill under TCG: each
# boot fills FILLS times in its one mode after a warm-up fill.  (r_timeout:
# run_row's.)
# shellcheck disable=SC2154
if run_row "$plan" storm-baseline && [ $(((storm_fills + 1) * 25)) -gt "$r_timeout" ]; then
	say "FILLS=$storm_fills: $((storm_fills + 1)) fills in one boot may not fit the storm rows' $r_timeout s timeout (tools/runs.conf); a run that times out fails the bench"
fi
failed=0
# Reports of the runs (tools/runs.sh): a failed check is named with its
# log; the bench goes on and fails at the end.
result() {
	[ "$1" = ok ] && return
	failed=$((failed + 1))
	say "not ok: $2"
}
note() {
	case $1 in dmesg | diag | console | rerun) say "$2" ;; esac
}
commas() { # commas "a b c" -> "a, b, c"
	printf '%s\n' "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//; s/ /, /g'
}
bench_run() { # bench_run NAME: one run of the plan, its directory in $run
	run=$(run_dir "$plan" "$1")
	t=$(date +%s)
	run_one "$plan" "$1" || true
	say "$1: done in $(($(date +%s) - t)) s; output $run/output.log"
}

# the kernels the plan boots, first use first: 6.12's patched and
# baseline, and for the storm 7.3-patched and 7.3-baseline (not in --quick)
kernels=$(run_flavours "$plan" | tr '\n' ' ')
say "step 1/9: kernels ($(commas "$kernels"))"
for k in $kernels; do
	"$TOPDIR/tools/kernel.sh" "$k"
done
say "step 2/9: guest image and benchmark programs"
"$TOPDIR/rootfs/build.sh" >/dev/null
# shellcheck disable=SC2086
"$TOPDIR/tools/stage.sh" $kernels

mkdir -p "$out"
echo "make bench${TOPO:+ TOPO=$TOPO}$([ "$quick" = 0 ] || echo " QUICK=1")${fills:+ FILLS=$fills}$(echo "$costs" | sed 's/ / --cost /g')" >"$out/command.txt"
date -u '+%Y-%m-%d %H:%M UTC' >"$out/date.txt"

say "step 3/9: numa-lat on the patched kernel ($topo; about 2 min under TCG)"
bench_run numa-lat
guest_output "$run/output.log" text | awk -F'\t' '$2 == "numactl" { print $3 }' >"$out/topology.txt"
for e in md csv json cost; do
	[ -f "$run/numa-lat.$e" ] && cp "$run/numa-lat.$e" "$out/"
done

say "step 4/9: placement, patched kernel, modes node-first, guest, legacy"
bench_run placement-patched
say "step 5/9: placement, baseline (unpatched 6.12) kernel"
bench_run placement-baseline
{
	echo "kernel,rows,mode,cpu_node,madvise,states,placement,classes"
	for kernel in patched baseline; do
		placement_csv "$kernel" "$(run_dir "$plan" "placement-$kernel")/output.log"
	done
} >"$out/placement.csv"
{
	for kernel in patched baseline; do
		guest_output "$(run_dir "$plan" "placement-$kernel")/output.log" tap | awk -F'\t' -v k="$kernel" '
			$2 == "fail" { off[++n] = $3 }
			$2 != "fail" { ok++ }
			END {
				printf("- %s kernel: %d placements as the design'"'"'s order predicts, %d not.\n", k, ok, n)
				for (i = 1; i <= n; i++)
					print "  - not ok " off[i]
			}'
	done
} >"$out/placement-tap.txt"
# processes with their own order beside each other in that boot (thp_permm)
{
	echo "knob,process,cpu_node,madvise,states,placement"
	guest_output "$(run_dir "$plan" placement-patched)/output.log" permm |
		awk -F'\t' '{ s = $6; gsub(",", "/", s); printf("%s,%s,%s,%s,%s,%s\n", $2, $3, $4, $5, s, $7) }'
} >"$out/permm.csv"

say "step 6/9: fault cost A/B, node0 FREE then FRAG, modes alternating (a few minutes)"
bench_run faultcost
cp "$run/output.log" "$out/faultcost.log" 2>/dev/null || true
cp "$run/perf-faultcost.txt" "$out/" 2>/dev/null || true

walks=$(run_names "$plan" "fg quiet" | grep '^walkcost-' | tr '\n' ' ')
say "step 7/9: the walk's fault cost as the machine grows: $(commas "$walks")"
rm -f "$out"/walkcost-*.log
for name in $walks; do
	# each on its own topology, whatever TOPO= says
	topo_saved=$runs_topo
	runs_topo=
	bench_run "$name"
	runs_topo=$topo_saved
	# shellcheck disable=SC2154 # run_row's
	cat "$run/output.log" >"$out/walkcost-$r_topo.log" 2>/dev/null || true
done

ageds=$(run_names "$plan" "fg quiet" | grep '^aged-' | tr '\n' ' ')
say "step 8/9: aged memory (thp_challenge) on $topo and 1node: $(commas "$ageds") (about $([ "$quick" = 1 ] && echo 1 || echo 14) min)"
rm -f "$out"/challenge-*.log
for name in $ageds; do
	topo_saved=$runs_topo
	case $name in *-1node) runs_topo= ;; esac
	bench_run "$name"
	runs_topo=$topo_saved
	# challenge-<topology>-<kernel>.log, the topology as run_row read it;
	# the kernel is the flavour, or "alone" for the boots of one mode each
	# (their logs go together: each holds one mode)
	case $name in aged-alone-*) k=alone ;; *) k=$r_flavour ;; esac
	cat "$run/output.log" >>"$out/challenge-$r_topo-$k.log" 2>/dev/null || true
done

storms=$(run_names "$plan" "fg quiet" | grep '^storm-' | tr '\n' ' ')
say "step 9/9: the usemem storm (thp_usemem -b -n $storm_fills), one kswapd wake on node 0 in every fill: $(commas "$storms")"
storm_logs=
for name in $storms; do
	bench_run "$name"
	# storm-<tree>-<kernel>.log, the kernel as its row names it
	# (7.3-baseline: tree 7.3, kernel baseline); report.sh reads them.
	# The patched kernel's modes run in a boot each (fills of different
	# modes in one boot change each other's memory), one log per kernel.
	case $r_flavour in
	*-*) log=storm-${r_flavour%%-*}-${r_flavour#*-}.log ;;
	*) log=storm-6.12-$r_flavour.log ;;
	esac
	case " $storm_logs " in *" $log "*) ;; *) : >"$out/$log"; storm_logs="$storm_logs $log" ;; esac
	cat "$run/output.log" >>"$out/$log" 2>/dev/null || true
done

say "report: projections, tables and plots"
# shellcheck disable=SC2086
"$TOPDIR/tools/report.sh" "$out" $costs
ln -sfn "$(basename "$out")" "$TOPDIR/results/latest" 2>/dev/null || true
say "results in $out (report.md, *.csv, plots/); took $(($(date +%s) - start)) s"
[ "$failed" = 0 ] || die "$failed checks of the bench runs failed (named above with their logs)"
