#!/bin/sh
# Why an aged node gives fewer THPs: trace the fault phase of thp_aged's
# "aged" row (defrag=madvise, MADV_HUGEPAGE) in each mode, in a trace
# instance of its own, and count per mode what the allocator did for
# order 9: direct compactions, direct reclaims, per-cpu pages drained to
# the buddy lists, kswapd and kcompactd wake-ups.
#
#   aged-trace.sh [MODES [THP_AGED-OPTIONS]]
#
# MODES: default every mode the kernel has; the options go to thp_aged
# (-D: under vm.defrag_mode=1).
T=/sys/kernel/tracing
I=$T/instances/aged
modes=${1:-$(sed 's/[][]//g' /sys/kernel/mm/transparent_hugepage/numa_fallback 2>/dev/null | tr ' ' ',')}
[ -n "$modes" ] || modes=legacy
[ $# -gt 0 ] && shift
mkdir -p "$I" || { echo "Bail out! no tracefs instances"; exit 1; }
echo 16384 >"$I/buffer_size_kb"
for e in compaction/mm_compaction_begin compaction/mm_compaction_end \
	vmscan/mm_vmscan_direct_reclaim_begin kmem/mm_page_pcpu_drain \
	compaction/mm_compaction_wakeup_kcompactd vmscan/mm_vmscan_wakeup_kswapd; do
	echo 1 >"$I/events/$e/enable" || echo "# cannot enable $e"
done
for m in $(echo "$modes" | tr ',' ' '); do
	echo >"$I/trace"
	thp_aged -r aged -d madvise -m "$m" -T aged "$@" | grep -E '^# aged aged(-dm1)?\|'
	awk -v mode="$m" '
		/thp_aged fault-start/ { on = 1; next }
		/thp_aged fault-end/ { on = 0; next }
		!on { next }
		/mm_compaction_begin/ { compact++ }
		/mm_compaction_end/ && /status=success/ { compact_ok++ }
		/mm_vmscan_direct_reclaim_begin/ && /order=9/ { reclaim9++ }
		/mm_page_pcpu_drain/ { drained++ }
		/mm_compaction_wakeup_kcompactd/ && /order=9/ { kcompactd9++ }
		/mm_vmscan_wakeup_kswapd/ && /order=9/ { kswapd9++ }
		END { printf("# aged-trace %s: direct compactions %d (%d success), order-9 direct reclaims %d, per-cpu pages drained to buddy %d, order-9 wake-ups kswapd %d kcompactd %d\n",
			mode, compact, compact_ok, reclaim9, drained, kswapd9, kcompactd9) }' "$I/trace"
done
for e in "$I"/events/*/*/enable; do echo 0 >"$e" 2>/dev/null; done
rmdir "$I" 2>/dev/null
exit 0
