// SPDX-License-Identifier: GPL-2.0
/*
 * No swap storm: like Mel Gorman's usemem run, fault a MADV_HUGEPAGE
 * region of 80% of guest memory (defrag=always) from a node-0 CPU with a
 * swap device on, and count swap-outs, kswapd's balance passes, direct
 * compaction and where the region went, page by page.
 *
 * -b makes the case the series is judged on (the swap storm of the seeds):
 * a neighbour bound to node 0 wakes node 0's kswapd once during the fill
 * (neighbour_start()).  kswapd then reclaims node 0 while the fill goes on;
 * a fill that keeps taking node 0's pages while kswapd refills them keeps
 * kswapd reclaiming (swapping) pass after pass.  That is the case under
 * test: no fill is repeated or skipped for it.  Each fill's TAP result
 * says whether the case was made (the neighbour took node 0 below its low
 * watermark, where its allocation wakes kswapd); make check compares the
 * fills' swap-outs and kswapd passes with the unpatched kernel's
 * (tools/check.sh), since a kernel is only judged against stock here.
 * Without -b each fill's result says it was filled and measured.
 *
 *   thp_usemem [-m modes] [-p percent] [-n fills] [-b]
 *
 * -n: fills per mode, the modes taken in a balanced order (m1 m2 m3, m3
 * m2 m1, ...), each fill waiting (up to 5 s, only waiting) for every
 * kswapd to sleep first.
 *
 * Prints per fill, for the report and the host's comparison:
 *   # usemem|MODE[+bound]|MiB|SECONDS|THP%|PSWPOUT|PSWPIN|NEIGHBOUR|
 *     PAGEOUTRUN|COMPACT_STALL|PGSCAN_KSWAPD|PGSCAN_DIRECT|HIT_QUICKLY|NODE0%
 * (one line; NEIGHBOUR fired, not fired, not started, or - without -b;
 * HIT_QUICKLY is kswapd_high_wmark_hit_quickly, kswapd woken again within
 * its 100 ms nap; counters are -1 where the kernel has none), and a
 * "# usemem-diag" line with every counter and the placement by distance.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "thp_settings.h"
#include "vm_util.h"

static const char *const diag_names[] = {
	"pgscan_direct", "pgscan_kswapd", "compact_stall", "compact_success",
	"thp_fault_alloc", "thp_fault_fallback", "pageoutrun",
	"kswapd_high_wmark_hit_quickly", "kswapd_low_wmark_hit_quickly",
	"thp_fault_huge_local", "thp_fault_small_local",
};
enum { D_SCAN_DIRECT, D_SCAN_KSWAPD, D_STALL, D_STALL_OK, D_THP, D_THP_FB,
       D_PAGEOUTRUN, D_HIGH_QUICK, D_LOW_QUICK, D_HUGE_LOCAL, D_SMALL_LOCAL };
#define NR_DIAG ARRAY_LEN(diag_names)

/*
 * How many pages a node-0-bound task must take for every zone of node 0 to
 * be below its low watermark for a user page, from one read of
 * /proc/zoneinfo; -1 if it cannot be read.
 */
static long node_pages_to_low(int node)
{
	long free = 0, low = 0, managed = 0, need = 0, v;
	char line[1024], zone[32];
	bool in_node = false;
	FILE *f = fopen("/proc/zoneinfo", "r");
	int nid;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c;

		if (sscanf(line, "Node %d, zone %31s", &nid, zone) == 2) {
			in_node = nid == node;
			free = low = managed = 0;
		} else if (!in_node) {
			continue;
		} else if (sscanf(line, " pages free %ld", &v) == 1) {
			free = v;
		} else if (sscanf(line, " low %ld", &v) == 1) {
			low = v;
		} else if (sscanf(line, " managed %ld", &v) == 1) {
			managed = v;
		} else if (strstr(line, "protection: (")) {
			/* the last entry: a movable user page's */
			c = strrchr(line, ',');
			v = low + (c ? atol(c + 1) : 0);
			if (managed && free >= v)
				need += free - v + 1;
		}
	}
	fclose(f);
	return need;
}

/*
 * The node-0-bound neighbour of -b, on a node-1 CPU.  When the fill has
 * written 30% of the region (a byte on @go), it faults 4k pages bound to
 * node 0 (MPOL_BIND) until every zone of the node is below its low
 * watermark for a user page (node 0's small ZONE_DMA counts: kswapd sees
 * a node balanced while any one zone is, pgdat_balanced()), then 64 more,
 * which take the slow path: that wakes node 0's kswapd.  One wake-up at
 * the same point of every fill, whatever the mode left on node 0, as a
 * task bound to the node, or a kernel allocation pinned to it, makes.
 * Exits 0 once it got there, 3 if 128 MiB did not.
 */
static pid_t neighbour_start(int go)
{
	const size_t len = 128UL << 20;
	unsigned long mask = 1;
	size_t i = 0, end;
	pid_t pid = fork();
	long need;
	char c;
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
	if (read(go, &c, 1) != 1)
		_exit(1);
	while ((need = node_pages_to_low(0)) > 0) {
		end = i + (size_t)need * PAGE_SZ;
		if (end + 64 * PAGE_SZ > len)
			_exit(3);
		for (; i < end; i += PAGE_SZ)
			p[i] = 1;
	}
	if (need < 0)
		_exit(1);
	for (end = i + 64 * PAGE_SZ; i < end; i += PAGE_SZ)
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
	long out, in, thp_pct, node0_pct, diag[NR_DIAG];
	double secs;
	unsigned long awake;	/* kswapds still awake at the start (node mask) */
	const char *neighbour;	/* -b: "fired", "not fired", else "-" */
	int failed;		/* errno of mmap/madvise or of the placement read */
};

/*
 * Fault a MADV_HUGEPAGE region of @len from node 0's CPU, with the
 * neighbour of -b if @bound, and print what happened ("# usemem-diag" and
 * "# usemem" lines).  Returns nonzero if the region could not be mapped
 * or measured.
 */
static int fill(const char *mode, bool bound, size_t len, struct fill *f)
{
	long out0, in0, out1, in1, thp = 0, node0 = 0, diag0[NR_DIAG], diag1[NR_DIAG];
	long hist[MAX_NODES][NR_SIZES];
	struct placement pl;
	char place[256];
	double t0, t1;
	pid_t nb = 0;
	int node, sz, status, go[2] = { -1, -1 };
	size_t wake_at = len / 100 * 30 & ~(PAGE_SZ - 1);
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
		nb = pipe(go) ? -1 : neighbour_start(go[0]);
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
		if (go[0] >= 0) {
			close(go[0]);
			close(go[1]);
		}
		if (buf)
			munmap(buf, len);
		return -1;
	}
	/* Data, not zeroes: 6.12 splits mostly-zero THPs under pressure. */
	for (i = 0; i < len; i += PAGE_SZ) {
		if (i == wake_at && go[1] >= 0 && write(go[1], "g", 1) != 1)
			f->neighbour = "not started";
		memset(buf + i, (int)(i >> 12) | 1, 64);
	}
	t1 = now();
	out1 = vmstat("pswpout");
	in1 = vmstat("pswpin");
	vmstat_many(diag_names, NR_DIAG, diag1);
	if (nb > 0) {
		kill(nb, SIGKILL);
		waitpid(nb, &status, 0);
		f->neighbour = WIFEXITED(status) && !WEXITSTATUS(status) ? "fired" : "not fired";
	}
	if (go[0] >= 0) {
		close(go[0]);
		close(go[1]);
	}
	place[0] = '\0';
	if (placement_measure(buf, len, &pl)) {
		f->failed = errno ? errno : EIO;
		memset(&pl, 0, sizeof(pl));
	} else {
		for (node = 0; node < nr_nodes; node++)
			thp += pl.cnt[node][SZ_THP];
		for (sz = 0; sz < NR_SIZES; sz++)
			node0 += pl.cnt[0][sz];
		placement_by_class(&pl, 0, hist);
		placement_format(hist, pl.pages, place, sizeof(place));
	}
	munmap(buf, len);

	f->out = out1 - out0;
	f->in = in1 - in0;
	f->secs = t1 - t0;
	f->thp_pct = pl.pages ? thp * 100 / pl.pages : 0;
	f->node0_pct = pl.pages ? node0 * 100 / pl.pages : 0;
	for (i = 0; i < NR_DIAG; i++)
		f->diag[i] = diag0[i] < 0 || diag1[i] < 0 ? -1 : diag1[i] - diag0[i];
	/*
	 * Who reclaimed, and where the region went: a swap-out names its
	 * cause here (direct reclaim or kswapd, and how often kswapd was
	 * woken again straight after reaching its high watermark).
	 */
	printf("# usemem-diag|%s%s|%s|", mode, bound ? "+bound" : "", place);
	for (i = 0; i < NR_DIAG; i++)
		printf("%s%s=%ld", i ? " " : "", diag_names[i], f->diag[i]);
	printf(" kswapd_awake_at_start=%#lx\n", f->awake);
	printf("# usemem|%s%s|%zu|%.2f|%ld|%ld|%ld|%s|%ld|%ld|%ld|%ld|%ld|%ld\n",
	       mode, bound ? "+bound" : "", len >> 20, f->secs, f->thp_pct, f->out,
	       f->in, f->neighbour, f->diag[D_PAGEOUTRUN], f->diag[D_STALL],
	       f->diag[D_SCAN_KSWAPD], f->diag[D_SCAN_DIRECT], f->diag[D_HIGH_QUICK],
	       f->node0_pct);
	fflush(stdout);
	return f->failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *modes = NULL;
	char *mode_v[4];
	size_t len;
	int nmodes = 0, asserted, m, k, r, opt, pct = 80, fills = 1;
	bool bound = false;

	while ((opt = getopt(argc, argv, "m:p:n:b")) != -1) {
		switch (opt) {
		case 'm': modes = optarg; break;
		case 'p': pct = atoi(optarg); break;
		case 'n': fills = atoi(optarg); break;
		case 'b': bound = true; break;
		default:
			fprintf(stderr, "usage: %s [-m modes] [-p percent] [-n fills] [-b]\n", argv[0]);
			return 2;
		}
	}
	if (pct < 1 || pct > 95 || fills < 1 || fills > 100) {
		fprintf(stderr, "%s: -p takes 1-95 (percent of memory), -n 1-100 (fills per mode)\n",
			argv[0]);
		return 2;
	}
	nmodes = parse_modes(modes, mode_v, 4);
	/*
	 * Without -b, a mode that walks must not swap at all while other
	 * nodes have free memory; legacy is stock, judged only against the
	 * unpatched kernel on the host, so its fills are printed, not
	 * results here.
	 */
	for (m = 0, asserted = 0; m < nmodes; m++)
		if (bound || strcmp(mode_v[m], "legacy"))
			asserted++;

	topo_init();
	tap_plan(asserted * fills);
	if (bound && nr_nodes < 2) {
		for (m = 0; m < nmodes * fills; m++)
			tap_skipped("-b needs a second node for the neighbour's CPU and the spill",
				    "usemem %s", mode_v[m % nmodes]);
		return tap_finish();
	}
	if (proc_value("/proc/meminfo", "SwapTotal") <= 0) {
		printf("Bail out! thp_usemem: no swap device on (run-guest --swap); the fills count swap-outs\n");
		return 1;
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
	 * unpatched one.
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

	for (r = 0; r < fills; r++) {
		for (k = 0; k < nmodes; k++) {
			struct fill f;
			bool judged;

			/* Balanced: m1 m2 m3, m3 m2 m1, ... */
			m = r % 2 ? nmodes - 1 - k : k;
			judged = bound || strcmp(mode_v[m], "legacy");
			if (have_numa_fallback() && thp_set("numa_fallback", mode_v[m])) {
				printf("Bail out! thp_usemem: numa_fallback refused %s\n", mode_v[m]);
				return 1;
			}
			if (fill(mode_v[m], bound, len, &f) && !judged) {
				printf("Bail out! thp_usemem: %s fill %d: %zu MiB: %s\n",
				       mode_v[m], r + 1, len >> 20, strerror(f.failed));
				return 1;
			}
			if (f.failed) {
				tap_result(false, "usemem %s fill %d: %zu MiB: %s", mode_v[m], r + 1,
					   len >> 20, strerror(f.failed));
				continue;
			}
			/*
			 * The case under test is node 0's kswapd running during
			 * the fill: the neighbour wakes it, unless kswapd was
			 * already refilling the node faster than 128 MiB of
			 * the neighbour's faults could empty it ("not fired",
			 * 7.3 guest: 10 kswapd passes in that fill).  A fill
			 * in which kswapd never ran fails.
			 */
			if (bound)
				tap_result(!strcmp(f.neighbour, "fired") || f.diag[D_PAGEOUTRUN] > 0,
					   "usemem %s fill %d, node 0's kswapd woken (neighbour %s): %ld swap-outs, %ld kswapd passes, %ld compaction stalls, THP %ld%%, %ld%% on node 0",
					   mode_v[m], r + 1, f.neighbour, f.out, f.diag[D_PAGEOUTRUN],
					   f.diag[D_STALL], f.thp_pct, f.node0_pct);
			else if (judged)
				tap_result(f.out == 0,
					   "usemem %s fill %d: %d%% of memory (%zu MiB) with free remote nodes: %ld swap-outs, %ld kswapd passes, THP %ld%%, %ld%% on node 0",
					   mode_v[m], r + 1, pct, len >> 20, f.out, f.diag[D_PAGEOUTRUN],
					   f.thp_pct, f.node0_pct);
		}
	}
	return tap_finish();
}
