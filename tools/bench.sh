#!/bin/sh
# make bench: boot the default topology on the patched kernel, print the
# guest's NUMA topology and the placement each numa_fallback mode gets in
# each scenario of the design's table, and write them under results/.
#
#   tools/bench.sh [--topo epyc4] [--out DIR]
set -eu
TOOL=bench
. "$(dirname "$0")/lib.sh"

topo=${TOPO:-epyc4}
out=$TOPDIR/results/$(date +%Y%m%d-%H%M%S)
while [ $# -gt 0 ]; do
	case $1 in
	--topo) topo=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done
ensure_packages $ALL_PKGS

say "step 1/4: kernels (patched, baseline)"
"$TOPDIR/tools/kernel.sh" patched
"$TOPDIR/tools/kernel.sh" baseline
say "step 2/4: guest image and test programs"
"$TOPDIR/rootfs/build.sh" >/dev/null
"$TOPDIR/tools/stage.sh" patched baseline

mkdir -p "$out"
run=$CACHE/runs/bench-patched-$topo
rm -rf "$run"
say "step 3/4: patched kernel on $topo: topology and placement in every mode"
QUIET=1 "$TOPDIR/tools/run-guest" --kernel patched --topo "$topo" --out "$run" -- \
	'numactl -H' 'insmod /mnt/thp/mod/patched/nodestate.ko' \
	'thp_scenarios -m node-first,guest,legacy' || true
[ -f "$run/booted" ] || die "the guest did not boot; console log: $run/console.log"
base=$CACHE/runs/bench-baseline-$topo
rm -rf "$base"
say "step 4/4: baseline kernel on $topo: placement of stock 6.12"
QUIET=1 "$TOPDIR/tools/run-guest" --kernel baseline --topo "$topo" --out "$base" -- \
	'insmod /mnt/thp/mod/baseline/nodestate.ko' 'thp_scenarios -m legacy' || true

{
	echo "## Guest topology ($topo, emulated by QEMU TCG)"
	echo
	echo '```'
	sed -n '/^available:/,/^TAP version/p' "$run/output.log" | grep -v '^TAP'
	echo '```'
	echo
	echo "## Placement of a 16 MiB MADV_HUGEPAGE region faulted from node 0"
	echo
	echo "Share of the region's 4k pages by distance class and page size, measured"
	echo "page by page (move_pages, PAGEMAP_SCAN, kpageflags)."
	echo
	echo "| kernel | mode | node0,node1 | placement |"
	echo "|---|---|---|---|"
	for f in "$run" "$base"; do
		k=patched
		[ "$f" = "$base" ] && k=baseline
		sed -n 's/^# placement //p' "$f/output.log" |
			awk -F'|' -v k="$k" '{ printf("| %s | %s | %s | %s |\n", k, $2, $5, $6) }'
	done
} >"$out/placement.md"
{
	echo "kernel,rows,mode,cpu_node,madvise,states,placement"
	for f in "$run" "$base"; do
		k=patched
		[ "$f" = "$base" ] && k=baseline
		sed -n 's/^# placement //p' "$f/output.log" | tr '|' ',' | sed "s/^/$k,/"
	done
} >"$out/placement.csv"
cat "$out/placement.md"
say "results in $out (placement.md, placement.csv); guest logs in $run and $base"
