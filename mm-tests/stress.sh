#!/bin/sh
# Guest side: bounded stress for the debug kernel.  stress-ng's vm, numa,
# mmap and page-migration stressors with THP on, memory pressure spread
# over all nodes, while numa_fallback is switched between its modes
# underneath them.  Pass/fail is stress-ng's exit status; run-tests.sh
# then reads the kernel log for splats.
#   stress.sh [SECONDS]
t=${1:-60}
k=/sys/kernel/mm/transparent_hugepage
old_enabled=$(sed 's/.*\[\(.*\)\].*/\1/' $k/enabled)
old_defrag=$(sed 's/.*\[\(.*\)\].*/\1/' $k/defrag)
old_mode=$(sed 's/.*\[\(.*\)\].*/\1/' $k/numa_fallback 2>/dev/null)
restore() {
	echo "$old_enabled" >$k/enabled
	echo "$old_defrag" >$k/defrag
	[ -n "$old_mode" ] && echo "$old_mode" >$k/numa_fallback
}
trap restore EXIT
echo always >$k/enabled
echo madvise >$k/defrag
if [ -w $k/numa_fallback ]; then
	(end=$(($(date +%s) + t)); while [ "$(date +%s)" -lt "$end" ]; do
		for m in node-first guest legacy; do echo $m >$k/numa_fallback; sleep 2; done
	done) &
	flip=$!
fi
stress-ng --timeout "${t}s" --metrics-brief \
	--vm 2 --vm-bytes 40% --vm-madvise hugepage \
	--numa 1 --mmap 1 --mmap-bytes 10% --madvise 1 >/tmp/stress-ng.log 2>&1
rc=$?
sed 's/^/# /' /tmp/stress-ng.log
[ -n "${flip:-}" ] && wait "$flip"
if [ "$rc" = 0 ]; then echo "ok - stress-ng ${t}s (vm, numa, mmap, madvise) with mode flips"
else echo "not ok - stress-ng ${t}s exited $rc"; fi
