// SPDX-License-Identifier: GPL-2.0
/*
 * On an idle guest, a MADV_HUGEPAGE fault from each CPU node gets huge
 * pages on that node: every 4k page of the region is PMD-mapped and local.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "thp_settings.h"
#include "vm_util.h"

int main(void)
{
	size_t len = 8 * HPAGE_SZ;
	char got[256];
	int node, i;

	topo_init();
	tap_plan(nr_nodes);
	thp_save();
	thp_set("enabled", "madvise");
	thp_set("defrag", "madvise");
	for (node = 0; node < nr_nodes; node++) {
		long hist[MAX_NODES][NR_SIZES];
		struct placement pl;
		char *buf;

		if (node_first_cpu(node) < 0) {
			tap_skipped("CPU-less node", "node%d: local THP", node);
			continue;
		}
		run_on_node(node);
		buf = map_aligned(len);
		if (!buf || madvise(buf, len, MADV_HUGEPAGE)) {
			tap_result(false, "node%d: mmap/madvise: %s", node, strerror(errno));
			continue;
		}
		for (i = 0; i < (int)(len / PAGE_SZ); i++)
			buf[i * PAGE_SZ] = 1;
		if (placement_measure(buf, len, &pl)) {
			tap_result(false, "node%d: cannot read placement: %s", node, strerror(errno));
			munmap(buf, len);
			continue;
		}
		munmap(buf, len);
		placement_by_class(&pl, node, hist);
		placement_format(hist, pl.pages, got, sizeof(got));
		tap_result(pl.cnt[node][SZ_THP] == pl.pages,
			   "node%d: MADV_HUGEPAGE fault is local THP (%s)", node, got);
	}
	return tap_finish();
}
