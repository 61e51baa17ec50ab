// SPDX-License-Identifier: GPL-2.0
/*
 * Fault cost A/B for make bench (a benchmark, not a test): first-touch
 * fault throughput and per-2M fault latency of a MADV_HUGEPAGE region in
 * each numa_fallback mode, in one boot, with node 0 FREE and then FRAG.
 *
 *   thp_faultcost [-s MiB] [-r reps] [-m modes] [-S FREE,FRAG,SPLIT,FAR] [-k]
 *
 * FAR makes every node nearer to node 0 than its farthest distance class
 * FULL (node 0 included) and leaves that class FREE: each fault's walk
 * crosses every class before it finds a page, which is what its cost per
 * class and per node (make bench's walk cost against the machine's width)
 * is measured on.  The other states are node 0's, every other node FREE.
 *
 * -k turns 64K mTHP on (inherit) and adds "+64K" to the state names: with
 * node 0 FRAG the faults then take local 64K folios, with SPLIT (no free
 * 64K block) 4k pages after a 64K attempt, one fault per 4k page, each
 * through the walk in node-first and guest.
 *
 * The modes take turns 2M by 2M: a repetition maps one region per mode
 * and faults range c of every region before range c + 1, switching
 * numa_fallback in between (outside the timing) and rotating which mode
 * goes first.  Emulator and host noise, large under TCG, so hits every
 * mode alike.  The ratio of a mode to legacy is taken within one
 * repetition; its median, quartiles, min and max over the repetitions are
 * printed.  Per-mode vmstat deltas and the count of
 * kmem:mm_page_alloc_multi_order events (perf_event_open on the
 * tracepoint, as perf stat does) are printed beside them.
 *
 * Machine-readable lines, "|"-separated, one set per node0 state (their
 * fields are listed where they are printed; tools/guest-output.awk reads
 * them and documents them again for the host):
 *   # faultcost-setup|STATE|MiB|repetitions       before the runs
 *   # faultcost-warmup|STATE|MODE|tracepoint hits the unrecorded warm-up
 *   # faultcost|STATE|MODE|REP|...                one per repetition
 *   # faultcost-ratio|STATE|MODE|...              the summary against legacy
 *   # faultcost-vmstat|STATE|MODE|name=delta|...  counters over the repetitions
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "thp_settings.h"
#include "vm_util.h"

#define MAX_MODES 3
#define MAX_REPS 101

static const char *const counters[] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_fault_huge_local",
	"thp_fault_huge_remote", "thp_fault_small_local", "thp_fault_small_remote",
	"compact_stall",
};
#define NR_COUNTERS ARRAY_LEN(counters)

struct run {
	double gbps, p50, p99;		/* GB/s, us per 2M */
	double fault_p50;		/* us per fault */
	double thp_pct, local_pct;
	long tp;			/* tracepoint hits, -1 if unavailable */
};

static struct run runs[MAX_MODES][MAX_REPS];
static const char *state_suffix = "";

/* "FRAG", or "FRAG+64K" with -k; FULL stands for FAR (see above). */
static const char *state_label(enum nstate st)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s%s", st == FULL ? "FAR" : nstate_name[st],
		 state_suffix);
	return buf;
}

/* The state @st (FULL: FAR) gives node @nid. */
static enum nstate node_want(enum nstate st, int nid)
{
	int i, last = 0;

	if (st != FULL)
		return nid == 0 ? st : FREE;
	for (i = 0; i < nr_nodes; i++)
		if (dist_class(0, i) > last)
			last = dist_class(0, i);
	return dist_class(0, nid) < last ? FULL : FREE;
}

static void nodes_free(void)
{
	int i;

	for (i = 0; i < nr_nodes; i++)
		node_state_set(i, FREE);
}

static long deltas[MAX_MODES][NR_COUNTERS];

/* Median over the repetitions of mode @m of the double at @off in struct run. */
static double median(int m, int reps, size_t off)
{
	double v[MAX_REPS];
	int r;

	for (r = 0; r < reps; r++)
		v[r] = *(double *)((char *)&runs[m][r] + off);
	return pct(v, reps, 0.5);
}

/* A counting perf event on the series' tracepoint, or -1. */
static int tracepoint_open(void)
{
	static const char *const ids[] = {
		"/sys/kernel/tracing/events/kmem/mm_page_alloc_multi_order/id",
		"/sys/kernel/debug/tracing/events/kmem/mm_page_alloc_multi_order/id",
	};
	struct perf_event_attr a;
	char buf[32];
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(ids); i++)
		if (!read_file(ids[i], buf, sizeof(buf)))
			break;
	if (i == ARRAY_LEN(ids))
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = strtoull(buf, NULL, 10);
	a.disabled = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* All counters from one read of /proc/vmstat. */
static void vmstat_all(long *v)
{
	vmstat_many(counters, NR_COUNTERS, v);
}

static uint64_t tp_read(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * One repetition: a region per mode, faulted 2M at a time with the modes
 * taking turns (the mode switches between ranges, outside the timing), so
 * every mode meets the same emulator and host noise within milliseconds.
 */
static int one_rep(size_t len, char **mode_v, int nmodes, int rep, int tp_fd,
		   struct run *out, long (*delta)[NR_COUNTERS])
{
	long nchunks = len / HPAGE_SZ, c, b[NR_COUNTERS], a[NR_COUNTERS];
	double *lat[MAX_MODES], *per_fault[MAX_MODES], total[MAX_MODES] = { 0 }, t;
	long tp[MAX_MODES] = { 0 };
	char *buf[MAX_MODES];
	struct rusage ru0, ru1;
	int m, k, ret = -1;
	unsigned int i;

	for (m = 0; m < nmodes; m++) {
		lat[m] = calloc(nchunks, sizeof(double));
		per_fault[m] = calloc(nchunks, sizeof(double));
		buf[m] = map_aligned(len);
		if (!lat[m] || !per_fault[m] || !buf[m] || madvise(buf[m], len, MADV_HUGEPAGE))
			return -1;
	}
	if (tp_fd >= 0)
		ioctl(tp_fd, PERF_EVENT_IOC_ENABLE, 0);
	for (c = 0; c < nchunks; c++)
		for (k = 0; k < nmodes; k++) {
			uint64_t t0;
			size_t off;

			m = (c + k + rep) % nmodes;
			if (have_numa_fallback() && thp_set("numa_fallback", mode_v[m]))
				goto out;
			vmstat_all(b);
			t0 = tp_read(tp_fd);
			getrusage(RUSAGE_SELF, &ru0);
			t = now_ns();
			for (off = 0; off < HPAGE_SZ; off += PAGE_SZ)
				buf[m][c * HPAGE_SZ + off] = 1;
			lat[m][c] = now_ns() - t;
			getrusage(RUSAGE_SELF, &ru1);
			tp[m] += tp_read(tp_fd) - t0;
			vmstat_all(a);
			for (i = 0; i < NR_COUNTERS; i++)
				delta[m][i] += a[i] - b[i];
			total[m] += lat[m][c];
			/* one THP fault, or one fault per small page */
			per_fault[m][c] = lat[m][c] / (ru1.ru_minflt - ru0.ru_minflt > 0 ?
						       ru1.ru_minflt - ru0.ru_minflt : 1);
		}
	if (tp_fd >= 0)
		ioctl(tp_fd, PERF_EVENT_IOC_DISABLE, 0);

	for (m = 0; m < nmodes; m++) {
		struct placement pl;
		long local = 0, thp = 0;
		int node;

		if (placement_measure(buf[m], len, &pl))
			goto out;
		for (node = 0; node < nr_nodes; node++) {
			thp += pl.cnt[node][SZ_THP];
			if (!dist_class(0, node))
				local += pl.cnt[node][SZ_4K] + pl.cnt[node][SZ_MTHP] +
					 pl.cnt[node][SZ_THP];
		}
		out[m].gbps = len / total[m];		/* bytes per ns = GB/s */
		out[m].p50 = pct(lat[m], nchunks, 0.50) / 1e3;
		out[m].p99 = pct(lat[m], nchunks, 0.99) / 1e3;
		out[m].fault_p50 = pct(per_fault[m], nchunks, 0.50) / 1e3;
		out[m].thp_pct = 100.0 * thp / pl.pages;
		out[m].local_pct = 100.0 * local / pl.pages;
		out[m].tp = tp_fd >= 0 ? tp[m] : -1;
	}
	ret = 0;
out:
	for (m = 0; m < nmodes; m++) {
		munmap(buf[m], len);
		free(lat[m]);
		free(per_fault[m]);
	}
	return ret;
}

static int run_state(enum nstate st, char **mode_v, int nmodes, int reps, size_t len,
		     int tp_fd)
{
	double ratio[MAX_REPS], v[MAX_REPS];
	struct run warm[MAX_MODES], cur[MAX_MODES];
	int legacy = -1, m, r, i;
	char why[256];

	nodes_free();
	for (i = 0; i < nr_nodes; i++) {
		if (node_want(st, i) == FREE || !node_state_set(i, node_want(st, i)))
			continue;
		fprintf(stderr, "thp_faultcost: cannot put node%d in %s for %s (is nodestate.ko loaded?)\n",
			i, nstate_name[node_want(st, i)], state_label(st));
		nodes_free();
		return -1;
	}
	for (i = 0; i < nr_nodes; i++) {
		if (node_state_check(i, node_want(st, i), why, sizeof(why)))
			continue;
		fprintf(stderr, "thp_faultcost: node%d is not %s for %s: %s\n", i,
			nstate_name[node_want(st, i)], state_label(st), why);
		nodes_free();
		return -1;
	}
	printf("# faultcost-setup|%s|%zu|%d\n", state_label(st), len >> 20, reps);
	/* One unrecorded repetition: the first faults of a boot pay for cold caches. */
	memset(deltas, 0, sizeof(deltas));
	if (one_rep(len, mode_v, nmodes, 0, tp_fd, warm, deltas)) {
		fprintf(stderr, "thp_faultcost: run failed: %s\n", strerror(errno));
		return -1;
	}
	for (m = 0; m < nmodes; m++)
		printf("# faultcost-warmup|%s|%s|%ld\n", state_label(st), mode_v[m], warm[m].tp);
	memset(deltas, 0, sizeof(deltas));
	for (r = 0; r < reps; r++) {
		if (one_rep(len, mode_v, nmodes, r, tp_fd, cur, deltas)) {
			fprintf(stderr, "thp_faultcost: run failed: %s\n", strerror(errno));
			return -1;
		}
		for (m = 0; m < nmodes; m++) {
			runs[m][r] = cur[m];
			/* state|mode|rep|GB/s|p50|p99 us per 2M|us per fault|THP%|local%|tp */
			printf("# faultcost|%s|%s|%d|%.3f|%.0f|%.0f|%.1f|%.1f|%.1f|%ld\n",
			       state_label(st), mode_v[m], r, runs[m][r].gbps, runs[m][r].p50,
			       runs[m][r].p99, runs[m][r].fault_p50, runs[m][r].thp_pct,
			       runs[m][r].local_pct, runs[m][r].tp);
		}
		fflush(stdout);
	}
	nodes_free();

	for (m = 0; m < nmodes; m++)
		if (!strcmp(mode_v[m], "legacy"))
			legacy = m;
	printf("\n%s: %zu MiB MADV_HUGEPAGE region faulted from node0, %d repetitions\n",
	       state_label(st), len >> 20, reps);
	printf("%-10s %7s %11s %11s %10s %5s %6s %22s\n", "mode", "GB/s", "p50 us/2M",
	       "p99 us/2M", "us/fault", "THP%", "local%", "GB/s ratio to legacy");
	for (m = 0; m < nmodes; m++) {
		double gb = median(m, reps, offsetof(struct run, gbps));
		double p50 = median(m, reps, offsetof(struct run, p50));
		double p99 = median(m, reps, offsetof(struct run, p99));
		double thp = median(m, reps, offsetof(struct run, thp_pct));
		double loc = median(m, reps, offsetof(struct run, local_pct));
		double pf = median(m, reps, offsetof(struct run, fault_p50));

		printf("%-10s %7.3f %11.0f %11.0f %10.1f %5.1f %6.1f", mode_v[m], gb, p50, p99,
		       pf, thp, loc);
		if (legacy >= 0) {
			double med, p99r;

			for (r = 0; r < reps; r++)
				ratio[r] = runs[m][r].gbps / runs[legacy][r].gbps;
			med = pct(ratio, reps, 0.5);	/* sorts: [0] min, [reps - 1] max */
			for (r = 0; r < reps; r++)
				v[r] = runs[m][r].p99 / runs[legacy][r].p99;
			p99r = pct(v, reps, 0.5);
			printf("   %.3f (IQR %.3f-%.3f)\n", med, pct(ratio, reps, 0.25),
			       pct(ratio, reps, 0.75));
			/*
			 * state|mode|GB/s|ratio median|min|max|p50 us/2M|p99 us/2M|
			 * p99 ratio|us per fault|THP%|local%|ratio p25|p75
			 */
			printf("# faultcost-ratio|%s|%s|%.3f|%.3f|%.3f|%.3f|%.0f|%.0f|%.3f|%.1f|%.1f|%.1f|%.3f|%.3f\n",
			       state_label(st), mode_v[m], gb, med, ratio[0], ratio[reps - 1],
			       p50, p99, p99r, pf, thp, loc, pct(ratio, reps, 0.25),
			       pct(ratio, reps, 0.75));
		} else {
			printf("\n");
		}
	}
	for (m = 0; m < nmodes; m++) {
		long tp = 0;

		printf("# faultcost-vmstat|%s|%s", state_label(st), mode_v[m]);
		for (i = 0; i < (int)NR_COUNTERS; i++)
			printf("|%s=%ld", counters[i], deltas[m][i]);
		for (r = 0; r < reps; r++)
			tp = runs[m][r].tp < 0 || tp < 0 ? -1 : tp + runs[m][r].tp;
		printf("|mm_page_alloc_multi_order=%ld\n", tp);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *modes = NULL, *states = "FREE,FRAG";
	int reps = 21, opt, nmodes, tp_fd, rc = 0;
	size_t mib = 128;
	char *mode_v[MAX_MODES], *s, *list;

	while ((opt = getopt(argc, argv, "s:r:m:S:k")) != -1) {
		switch (opt) {
		case 's': mib = strtoul(optarg, NULL, 10); break;
		case 'r': reps = atoi(optarg); break;
		case 'm': modes = optarg; break;
		case 'S': states = optarg; break;
		case 'k': state_suffix = "+64K"; break;
		default:
			fprintf(stderr, "usage: %s [-s MiB] [-r reps] [-m modes] [-S FREE,FRAG,SPLIT,FAR] [-k]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS || mib < 2) {
		fprintf(stderr, "thp_faultcost: -r takes 1..%d, -s at least 2 (MiB)\n", MAX_REPS);
		return 2;
	}
	nmodes = parse_modes(modes, mode_v, MAX_MODES);
	if (topo_init() < 1) {
		fprintf(stderr, "thp_faultcost: no NUMA topology in sysfs\n");
		return 1;
	}
	tp_fd = tracepoint_open();
	if (tp_fd < 0)
		fprintf(stderr, "thp_faultcost: no kmem:mm_page_alloc_multi_order tracepoint (unpatched kernel, or tracefs not mounted)\n");

	scenario_env("madvise", 0);
	if (thp_set("hugepages-64kB/enabled", *state_suffix ? "inherit" : "never") &&
	    *state_suffix) {
		fprintf(stderr, "thp_faultcost: -k: no 64K mTHP control (hugepages-64kB)\n");
		return 1;
	}

	list = strdup(states);
	for (s = strtok(list, ","); s; s = strtok(NULL, ",")) {
		enum nstate st = !strcmp(s, "FRAG") ? FRAG : !strcmp(s, "FREE") ? FREE :
				 !strcmp(s, "SPLIT") ? SPLIT : !strcmp(s, "FAR") ? FULL : LOW;

		if (st == LOW) {
			fprintf(stderr, "thp_faultcost: state '%s': use FREE, FRAG, SPLIT or FAR\n", s);
			return 2;
		}
		if (run_state(st, mode_v, nmodes, reps, mib << 20, tp_fd))
			rc = 1;
	}
	return rc;
}
