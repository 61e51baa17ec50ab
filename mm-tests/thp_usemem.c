// SPDX-License-Identifier: GPL-2.0
/*
 * No swap storm: like Mel Gorman's usemem run, fault a MADV_HUGEPAGE
 * region of 80% of guest memory (defrag=always) from a node-0 CPU with a
 * swap device on, and count swap-outs.  Other nodes have free memory the
 * whole time, so the new modes must not swap at all; legacy (and the
 * unpatched kernel) are measured for comparison.
 *
 *   thp_usemem [-m modes] [-p percent] [-b]
 *
 * -b: a neighbour bound to node 0 (MPOL_BIND) wakes node 0's kswapd once
 * while the region fills node 0 (neighbour_start()).  kswapd then
 * reclaims node 0 while the faults go on; a mode that keeps allocating on
 * node 0 below its high watermark keeps it reclaiming there.
 *
 * Prints "# usemem|mode|MiB|seconds|thp%|pswpout|pswpin" for the report.
 */
#include "placement.h"
#include <sys/wait.h>
#include <time.h>

static const char *const diag_names[] = {
	"pgscan_direct", "pgscan_kswapd", "compact_stall", "compact_success",
	"thp_fault_alloc", "thp_fault_fallback", "pageoutrun",
};
#define NR_DIAG ARRAY_LEN(diag_names)

/*
 * The node-0-bound neighbour of -b: waits (on a node-1 CPU) until node 0
 * is within 1 MiB of its low watermark, then faults 2 MiB of 4k pages
 * bound to node 0 once and exits.  Below the low watermark its allocation
 * takes the slow path, which wakes node 0's kswapd: one wake-up, as any
 * task bound to the node, or a kernel allocation pinned to it, makes.
 */
static pid_t neighbour_start(void)
{
	unsigned long mask = 1;
	size_t len = HPAGE_SZ, i;
	pid_t pid = fork();
	struct node_mem nm;
	char *p;

	if (pid)
		return pid;
	run_on_node(1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED ||
	    syscall(SYS_mbind, p, len, MPOL_BIND_, &mask, MAX_NODES + 1, 0) ||
	    madvise(p, len, MADV_NOHUGEPAGE))
		_exit(1);
	while (!node_mem_read(0, &nm) && nm.free > nm.low + 256)
		usleep(2000);
	for (i = 0; i < len; i += PAGE_SZ)
		p[i] = 1;
	_exit(0);
}

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
	bool bound = false;

	while ((opt = getopt(argc, argv, "m:p:b")) != -1) {
		switch (opt) {
		case 'm': modes = optarg; break;
		case 'p': pct = atoi(optarg); break;
		case 'b': bound = true; break;
		default:
			fprintf(stderr, "usage: %s [-m modes] [-p percent] [-b]\n", argv[0]);
			return 2;
		}
	}
	nmodes = parse_modes(modes, mode_v, 4);

	topo_init();
	tap_plan(nmodes);
	if (bound && nr_nodes < 2) {
		for (m = 0; m < nmodes; m++)
			tap_skipped("-b needs a second node for the neighbour's CPU and the spill",
				    "usemem %s", mode_v[m]);
		return tap_finish();
	}
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
		const char *fired = NULL;
		pid_t nb = 0;
		char *buf;
		size_t i;
		int node, status;
		bool strict = strcmp(mode_v[m], "legacy") != 0;

		if (have_numa_fallback() && thp_set("numa_fallback", mode_v[m])) {
			tap_skipped("numa_fallback refused the mode", "usemem %s", mode_v[m]);
			continue;
		}
		write_file("/proc/sys/vm/drop_caches", "3");
		vmstat_many(diag_names, NR_DIAG, diag0);
		out0 = vmstat("pswpout");
		in0 = vmstat("pswpin");
		if (bound)
			nb = neighbour_start();
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
		if (nb > 0) {
			kill(nb, SIGKILL);
			waitpid(nb, &status, 0);
			nb = 0;
			fired = WIFEXITED(status) && !WEXITSTATUS(status) ? "fired" : "not fired";
		}
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
		printf("# usemem-diag|%s%s|%s|", mode_v[m], bound ? "+bound" : "", place);
		for (i = 0; i < NR_DIAG; i++)
			printf("%s%s=%ld", i ? " " : "", diag_names[i],
			       diag0[i] < 0 || diag1[i] < 0 ? -1 : diag1[i] - diag0[i]);
		if (fired)
			printf(" neighbour=%s", fired);
		printf("\n");
		printf("# usemem|%s%s|%zu|%.2f|%ld|%ld|%ld\n", mode_v[m], bound ? "+bound" : "",
		       len >> 20, t1 - t0,
		       pl.pages ? thp * 100 / pl.pages : 0, out1 - out0, in1 - in0);
		if (strict)
			tap_result(out1 == out0,
				   "usemem %s%s: %d%% of memory (%zu MiB) with free remote nodes: %ld swap-outs, THP %ld%%, %.1fs",
				   mode_v[m], bound ? " +bound neighbour" : "", pct, len >> 20, out1 - out0,
				   pl.pages ? thp * 100 / pl.pages : 0, t1 - t0);
		else
			tap_result(true,
				   "usemem %s%s (measured, not asserted): %zu MiB, %ld swap-outs, %ld swap-ins, THP %ld%%, %.1fs",
				   mode_v[m], bound ? " +bound neighbour" : "", len >> 20, out1 - out0, in1 - in0,
				   pl.pages ? thp * 100 / pl.pages : 0, t1 - t0);
	}
	return tap_finish();
}
