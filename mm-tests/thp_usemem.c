// SPDX-License-Identifier: GPL-2.0
/*
 * No swap storm: like Mel Gorman's usemem run, fault a MADV_HUGEPAGE
 * region of 80% of guest memory (defrag=always) from a node-0 CPU with a
 * swap device on, and count swap-outs.  Other nodes have free memory the
 * whole time, so the new modes must not swap: no direct reclaim of node 0
 * by the fault's own attempts.  Legacy (and the unpatched kernel) are
 * measured for comparison.
 *
 * kswapd is the exception.  Once anything wakes node 0's kswapd while the
 * region fills node 0 (a kernel allocation pinned to the node, a task
 * bound to it), kswapd reclaims node 0 while the fill goes on, and stock
 * kernels swap out tens of thousands of the region's pages there too; the
 * same goes for the nodes the region spills to.  A fill during which any
 * kswapd ran (pgscan_kswapd or pageoutrun moved; both count every node)
 * is run once more, and a mode is asserted only on a fill kswapd stayed
 * out of (a skip says so otherwise): swap-outs there, from direct reclaim
 * by the fault's own attempts, fail it.  The first fill's swap-outs are
 * printed, not asserted.  Each fill waits (up to 5 s) for every kswapd
 * to sleep before it starts.
 *
 *   thp_usemem [-m modes] [-p percent] [-b]
 *
 * -b: make that case on purpose, for make bench: a neighbour bound to
 * node 0 (MPOL_BIND) wakes node 0's kswapd once during the fill
 * (neighbour_start()).  Every mode is measured, none asserted.
 *
 * Prints "# usemem|mode|MiB|seconds|thp%|pswpout|pswpin|neighbour" per fill
 * for the report (neighbour: fired, not fired, not started, or - without
 * -b).
 */
#include "placement.h"
#include <sys/prctl.h>
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
	struct node_mem nm = { 0 };
	char *p;

	if (pid)
		return pid;
	/* Not past the test: a stray neighbour would fire in a later fill. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1 || run_on_node(1))
		_exit(1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED ||
	    syscall(SYS_mbind, p, len, MPOL_BIND_, &mask, MAX_NODES + 1, 0) ||
	    madvise(p, len, MADV_NOHUGEPAGE))
		_exit(1);
	while (!node_zone_read(0, &nm) && nm.free > nm.low + 256)
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

struct fill {
	long out, in, thp_pct, diag[NR_DIAG];
	double secs;
	bool kswapd_ran;	/* any node's kswapd */
	unsigned long awake;	/* kswapds still awake at the start (node mask) */
	const char *neighbour;	/* -b: "fired", "not fired", else "-" */
	int failed;		/* errno of mmap/madvise */
};

/*
 * Fault a MADV_HUGEPAGE region of @len from node 0's CPU, with the
 * neighbour of -b if @bound, and print what happened ("# usemem-diag" and
 * "# usemem" lines).  Returns nonzero if the region could not be mapped.
 */
static int fill(const char *mode, bool bound, size_t len, struct fill *f)
{
	long out0, in0, out1, in1, thp = 0, diag0[NR_DIAG], diag1[NR_DIAG];
	long hist[MAX_NODES][NR_SIZES];
	struct placement pl;
	char place[256];
	double t0, t1;
	pid_t nb = 0;
	int node, status;
	char *buf;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->neighbour = "-";
	write_file("/proc/sys/vm/drop_caches", "3");
	/*
	 * Start with every kswapd asleep (only waits), so the fill does not
	 * inherit the last fill's reclaim; a kswapd still awake after 5 s is
	 * printed with the fill.
	 */
	f->awake = kswapds_settle(5000);
	vmstat_many(diag_names, NR_DIAG, diag0);
	out0 = vmstat("pswpout");
	in0 = vmstat("pswpin");
	if (bound) {
		nb = neighbour_start();
		if (nb < 0)
			f->neighbour = "not started";
	}
	t0 = now();
	buf = map_aligned(len);
	if (!buf || madvise(buf, len, MADV_HUGEPAGE)) {
		f->failed = errno ? errno : ENOMEM;
		if (nb > 0) {
			kill(nb, SIGKILL);
			waitpid(nb, &status, 0);
		}
		if (buf)
			munmap(buf, len);
		return -1;
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
		f->neighbour = WIFEXITED(status) && !WEXITSTATUS(status) ? "fired" : "not fired";
	}
	place[0] = '\0';
	if (!placement_measure(buf, len, &pl)) {
		for (node = 0; node < nr_nodes; node++)
			thp += pl.cnt[node][SZ_THP];
		placement_by_class(&pl, 0, hist);
		placement_format(hist, pl.pages, place, sizeof(place));
	}
	munmap(buf, len);

	f->out = out1 - out0;
	f->in = in1 - in0;
	f->secs = t1 - t0;
	f->thp_pct = pl.pages ? thp * 100 / pl.pages : 0;
	for (i = 0; i < NR_DIAG; i++)
		f->diag[i] = diag0[i] < 0 || diag1[i] < 0 ? -1 : diag1[i] - diag0[i];
	/* diag_names: [1] pgscan_kswapd, [NR_DIAG - 1] pageoutrun (all nodes) */
	f->kswapd_ran = f->diag[1] > 0 || f->diag[NR_DIAG - 1] > 0;
	/*
	 * Who reclaimed, and where the region went: a swap-out names its
	 * cause here (direct reclaim in the fault's local attempt, or
	 * kswapd), not only its count.
	 */
	printf("# usemem-diag|%s%s|%s|", mode, bound ? "+bound" : "", place);
	for (i = 0; i < NR_DIAG; i++)
		printf("%s%s=%ld", i ? " " : "", diag_names[i], f->diag[i]);
	printf(" kswapd_awake_at_start=%#lx\n", f->awake);
	printf("# usemem|%s%s|%zu|%.2f|%ld|%ld|%ld|%s\n", mode, bound ? "+bound" : "",
	       len >> 20, f->secs, f->thp_pct, f->out, f->in, f->neighbour);
	fflush(stdout);
	return 0;
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
	 * 7x slower here.  It runs in legacy mode, the stock path, so the
	 * first fill starts from the same memory on a patched kernel as on an
	 * unpatched one (node-first, the boot default, would leave node 0
	 * filled to its low watermark with 4k pages and freed).
	 */
	if (have_numa_fallback())
		thp_set("numa_fallback", "legacy");
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
		bool strict = strcmp(mode_v[m], "legacy") != 0 && !bound;
		const char *tag = bound ? " +bound neighbour" : "";
		struct fill f;
		int attempt;

		if (have_numa_fallback() && thp_set("numa_fallback", mode_v[m])) {
			tap_skipped("numa_fallback refused the mode", "usemem %s", mode_v[m]);
			continue;
		}
		/*
		 * Without -b, kswapd has no reason to run: whatever woke it
		 * during the fill (a kernel allocation pinned to node 0, say)
		 * makes stock kernels swap too (-b in make bench measures that
		 * case), so such a fill is run once more and only a fill kswapd
		 * stayed out of is asserted.
		 */
		for (attempt = 0; attempt < 2; attempt++) {
			if (fill(mode_v[m], bound, len, &f))
				break;
			if (bound || !f.kswapd_ran)
				break;
			tap_diag("usemem %s: kswapd ran during fill %d (pgscan_kswapd +%ld, pageoutrun +%ld, %ld swap-outs)%s",
				 mode_v[m], attempt + 1, f.diag[1], f.diag[NR_DIAG - 1], f.out,
				 attempt ? "" : ": filling once more");
		}
		if (f.failed) {
			tap_result(false, "usemem %s%s: mmap/madvise %zu MiB: %s", mode_v[m], tag,
				   len >> 20, strerror(f.failed));
		} else if (strict && f.kswapd_ran) {
			tap_skipped("kswapd ran during both fills, which stock kernels swap on too (make bench: usemem -b)",
				    "usemem %s: %ld swap-outs, THP %ld%%", mode_v[m], f.out, f.thp_pct);
		} else if (strict) {
			tap_result(f.out == 0,
				   "usemem %s: %d%% of memory (%zu MiB) with free remote nodes: %ld swap-outs, THP %ld%%, %.1fs",
				   mode_v[m], pct, len >> 20, f.out, f.thp_pct, f.secs);
		} else {
			tap_result(true,
				   "usemem %s%s (measured, not asserted): %zu MiB, %ld swap-outs, %ld swap-ins, THP %ld%%, %.1fs",
				   mode_v[m], tag, len >> 20, f.out, f.in, f.thp_pct, f.secs);
		}
	}
	return tap_finish();
}
