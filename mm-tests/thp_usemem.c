// SPDX-License-Identifier: GPL-2.0
/*
 * No swap storm: like Mel Gorman's usemem run, fault a MADV_HUGEPAGE
 * region of 80% of guest memory (defrag=always) from a node-0 CPU with a
 * swap device on, and count swap-outs.  Other nodes have free memory the
 * whole time, so the new modes must not swap at all; legacy (and the
 * unpatched kernel) are measured for comparison.
 *
 *   thp_usemem [-m modes] [-p percent]
 *
 * Prints "# usemem|mode|MiB|seconds|thp%|pswpout|pswpin" for the report.
 */
#include "placement.h"
#include <time.h>

static const char *const diag_names[] = {
	"pgscan_direct", "pgscan_kswapd", "compact_stall", "compact_success",
	"thp_fault_alloc", "thp_fault_fallback",
};
#define NR_DIAG ARRAY_LEN(diag_names)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *modes = NULL;
	char *mode_v[4];
	size_t len;
	int nmodes = 0, m, opt, pct = 80;

	while ((opt = getopt(argc, argv, "m:p:")) != -1) {
		switch (opt) {
		case 'm': modes = optarg; break;
		case 'p': pct = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-m modes] [-p percent]\n", argv[0]);
			return 2;
		}
	}
	nmodes = parse_modes(modes, mode_v, 4);

	topo_init();
	tap_plan(nmodes);
	if (proc_value("/proc/meminfo", "SwapTotal") <= 0) {
		for (m = 0; m < nmodes; m++)
			tap_skipped("no swap device on (run-guest --swap)", "usemem %s", mode_v[m]);
		return tap_finish();
	}
	thp_save();
	thp_set("enabled", "madvise");
	thp_set("defrag", "always");
	run_on_node(0);
	len = ((size_t)proc_value("/proc/meminfo", "MemTotal") * 1024 / 100 * pct) &
	      ~(HPAGE_SZ - 1);

	/*
	 * Untimed warm-up pass: under emulation the first touch of guest RAM
	 * also faults it in on the host, which made whichever mode ran first
	 * 7x slower here.
	 */
	{
		char *buf = map_aligned(len);
		size_t i;

		if (buf) {
			madvise(buf, len, MADV_HUGEPAGE);
			for (i = 0; i < len; i += PAGE_SZ)
				buf[i] = 1;
			munmap(buf, len);
		}
	}

	for (m = 0; m < nmodes; m++) {
		long out0, in0, out1, in1, thp = 0;
		long diag0[NR_DIAG], diag1[NR_DIAG], hist[MAX_NODES][NR_SIZES];
		char place[256];
		struct placement pl;
		double t0, t1;
		char *buf;
		size_t i;
		int node;
		bool strict = strcmp(mode_v[m], "legacy") != 0;

		if (have_numa_fallback() && thp_set("numa_fallback", mode_v[m])) {
			tap_skipped("numa_fallback refused the mode", "usemem %s", mode_v[m]);
			continue;
		}
		write_file("/proc/sys/vm/drop_caches", "3");
		vmstat_many(diag_names, NR_DIAG, diag0);
		out0 = vmstat("pswpout");
		in0 = vmstat("pswpin");
		t0 = now();
		buf = map_aligned(len);
		if (!buf || madvise(buf, len, MADV_HUGEPAGE)) {
			tap_result(false, "usemem %s: mmap/madvise %zu MiB: %s", mode_v[m],
				   len >> 20, strerror(errno));
			continue;
		}
		/* Data, not zeroes: 6.12 splits mostly-zero THPs under pressure. */
		for (i = 0; i < len; i += PAGE_SZ)
			memset(buf + i, (int)(i >> 12) | 1, 64);
		t1 = now();
		out1 = vmstat("pswpout");
		in1 = vmstat("pswpin");
		vmstat_many(diag_names, NR_DIAG, diag1);
		place[0] = '\0';
		if (!placement_measure(buf, len, &pl)) {
			for (node = 0; node < nr_nodes; node++)
				thp += pl.cnt[node][SZ_THP];
			placement_by_class(&pl, 0, hist);
			placement_format(hist, pl.pages, place, sizeof(place));
		}
		munmap(buf, len);
		/*
		 * Who reclaimed, and where the region went: a swap-out names
		 * its cause here (direct reclaim in the fault's local attempt,
		 * or kswapd), not only its count.
		 */
		printf("# usemem-diag|%s|%s|", mode_v[m], place);
		for (i = 0; i < NR_DIAG; i++)
			printf("%s%s=%ld", i ? " " : "", diag_names[i],
			       diag0[i] < 0 || diag1[i] < 0 ? -1 : diag1[i] - diag0[i]);
		printf("\n");
		printf("# usemem|%s|%zu|%.2f|%ld|%ld|%ld\n", mode_v[m], len >> 20, t1 - t0,
		       pl.pages ? thp * 100 / pl.pages : 0, out1 - out0, in1 - in0);
		if (strict)
			tap_result(out1 == out0,
				   "usemem %s: %d%% of memory (%zu MiB) with free remote nodes: %ld swap-outs, THP %ld%%, %.1fs",
				   mode_v[m], pct, len >> 20, out1 - out0,
				   pl.pages ? thp * 100 / pl.pages : 0, t1 - t0);
		else
			tap_result(true,
				   "usemem %s (measured, not asserted): %zu MiB, %ld swap-outs, %ld swap-ins, THP %ld%%, %.1fs",
				   mode_v[m], len >> 20, out1 - out0, in1 - in0,
				   pl.pages ? thp * 100 / pl.pages : 0, t1 - t0);
	}
	return tap_finish();
}
