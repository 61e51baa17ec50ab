// SPDX-License-Identifier: GPL-2.0
/*
 * Aged-memory THP benchmark for make bench, in the manner of MMTests'
 * thpchallenge: a THP workload faults while a background load ages the
 * memory, and every second the region's placement (distance class x page
 * size) is read page by page.
 *
 * Background load, started before and running during the measurement:
 *  - page cache: a child on node 0's CPU writes files on an ext4 file
 *    system on the scratch disk (the virtio disk with serial thp-scratch,
 *    tools/run-guest --scratch), more than node 0 holds (-F), then reads
 *    them back in a loop and rewrites one file per pass;
 *  - churn: a child on node 0's CPU maps and frees anonymous regions of
 *    mixed sizes (4k to 24M, some MADV_NOHUGEPAGE, some freed only every
 *    other 16k), up to -C % of node 0; it is started again for every run
 *    and killed halfway through the run's fault phase;
 *  - with -b PCT, a child bound to node 1 holds PCT % of node 1 in 4k pages.
 *
 * The workload (-j threads on node 0's CPUs) faults a MADV_HUGEPAGE region
 * 2M step by 2M step and times each step's first touch (every 4k page
 * written).  The fault phase lasts at least -f seconds (the steps are paced).
 *  - normal: -n regions (3; at least one per mode, region k in mode
 *    k mod modes, so the unpatched kernel faults as much as the patched
 *    one) of -s MiB, taking turns step by step (numa_fallback switched
 *    between steps, outside the timing, the first rotating per run), so
 *    the modes meet the same background; mapped in an order that rotates
 *    per run (khugepaged scans by address); then khugepaged runs at the
 *    kernel's defaults for Pd
 *    seconds and at a fast setting (pages_to_scan 4096,
 *    scan_sleep_millisecs 100) for Pf seconds (-P Pd,Pf), the regions
 *    still mapped, and the defaults are put back.
 *  - vm (-v PCT, 0 to skip): per mode in turn, a region of PCT % of node
 *    0's memory bound to node 0 (MPOL_BIND), like QEMU guest RAM under
 *    strict numatune.
 * Each variant runs -R times per mode.  compaction_proactiveness,
 * watermark_boost_factor and khugepaged keep the kernel's defaults except
 * in the fast khugepaged phase; all of them are printed.
 *
 *   thp_challenge [-m modes] [-R runs] [-n regions] [-s MiB] [-v PCT] [-F MiB] [-C PCT]
 *                 [-a s] [-f s] [-P Pd,Pf] [-j threads] [-b PCT]
 *
 * TAP: per variant, mode and run, every page of the region is present and
 * on an allowed node (any node; node 0 only for vm) and the page counts by
 * node and size add up to the region, at the end of the fault phase and
 * after khugepaged; the page cache was written and read; the churn ran
 * and was killed partway in every run.  Timings are printed, never
 * checked.
 *
 * Machine-readable lines (tools/guest-output.awk documents them too):
 *   # challenge-param|NAME|VALUE
 *   # challenge-sample VARIANT|MODE|RUN|PHASE|T|HIST|faulted=PCT
 *   # challenge-result VARIANT|MODE|RUN|STEPS|p50=US p90=US p99=US max=US|HIST|COUNTERS
 *   # challenge-khugepaged VARIANT|MODE|RUN|SETTING|T|HIST|collapsed=N
 *   # challenge-cdf|VARIANT|MODE|RUN|Q0 Q1 ... Q100   (us per 2M step)
 *   # challenge-load|NAME|VALUE                        (after the runs)
 * HIST is placement_format()'s "D0 THP 97% | D0 4k 3% | ..." over the whole
 * region; T is seconds since the run's first fault; PHASE is fault,
 * post-default or post-fast; COUNTERS are vmstat deltas over the steps of
 * that mode ("compact_stall=N compact_success=N ...").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "thp_settings.h"
#include "vm_util.h"

#define MAX_MODES	3
#define MAX_REGIONS	6
#define MAX_THREADS	8
#define MNT		"/tmp/thp-challenge"

static const char *const counters[] = {
	"compact_stall", "compact_success", "pgscan_direct", "pgsteal_anon",
	"pgsteal_file", "thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
};
#define NR_CNT ARRAY_LEN(counters)

/* settings */
static int reps = 3, nthreads = 1, vm_pct = 80, churn_pct = 15, node1_pct;
static double age_s = 3, fault_s = 5, post_default_s = 10, post_fast_s = 10;
static size_t region_mib, cache_mib;
static char *modes[MAX_MODES];
static int nmodes, nregions = 3;
static long node0_kb;

/* what the children report back, in shared memory */
struct load_stats {
	long cache_written_mib, cache_read_mib, cache_passes, cache_rewrites;
	long churn_maps, churn_frees, churn_punches, churn_peak_kb;
	int cache_ready;
};
static struct load_stats *ls;

/* ---- the scratch disk and the page cache ---------------------------------- */

/* The block device whose virtio serial is @serial, as /dev/NAME. */
static int find_disk(const char *serial, char *dev, size_t len, long *mib)
{
	char path[300], buf[64];
	struct dirent *d;
	DIR *dir = opendir("/sys/block");

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/block/%s/serial", d->d_name);
		if (read_file(path, buf, sizeof(buf)) || strcmp(buf, serial))
			continue;
		snprintf(dev, len, "/dev/%.40s", d->d_name);
		snprintf(path, sizeof(path), "/sys/block/%s/size", d->d_name);
		*mib = read_file(path, buf, sizeof(buf)) ? 0 : atol(buf) / 2048;
		closedir(dir);
		return 0;
	}
	closedir(dir);
	return -1;
}

static bool mounted;

static void scratch_umount(void)
{
	if (mounted)
		umount2(MNT, MNT_DETACH);
}

static int scratch_setup(char *why, size_t len)
{
	char dev[48], cmd[128];
	long mib = 0;

	if (find_disk("thp-scratch", dev, sizeof(dev), &mib)) {
		snprintf(why, len, "no scratch disk (virtio serial thp-scratch; run-guest --scratch MiB)");
		return -1;
	}
	if (mib < (long)cache_mib + 64) {
		snprintf(why, len, "scratch disk %s has %ld MiB, the page cache load needs %zu + 64",
			 dev, mib, cache_mib);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s >/dev/null 2>&1", dev);
	if (system(cmd)) {
		snprintf(why, len, "mkfs.ext4 %s failed", dev);
		return -1;
	}
	mkdir(MNT, 0755);
	if (mount(dev, MNT, "ext4", 0, NULL)) {
		snprintf(why, len, "mount %s: %s", dev, strerror(errno));
		return -1;
	}
	mounted = true;
	atexit(scratch_umount);
	printf("# challenge-param|scratch disk|%s %ld MiB ext4\n", dev, mib);
	return 0;
}

static int write_file_mib(const char *path, char *buf, long mib, long seed)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	long i, j;

	if (fd < 0)
		return -1;
	for (i = 0; i < mib; i++) {
		for (j = 0; j < (1 << 20); j += 4096)	/* no two pages alike */
			*(long *)(buf + j) = seed * 1000003 + i * 256 + j / 4096;
		if (write(fd, buf, 1 << 20) != 1 << 20) {
			close(fd);
			return -1;
		}
	}
	return close(fd);
}

/* Child: write the files, say so, then read them back forever. */
static void cache_child(void)
{
	long nfiles = (cache_mib + 63) / 64, f, pass;
	char *buf = malloc(1 << 20), path[96];
	ssize_t n;
	int fd;

	if (!buf || run_on_node(0))
		_exit(3);
	memset(buf, 0x5a, 1 << 20);
	for (f = 0; f < nfiles; f++) {
		snprintf(path, sizeof(path), MNT "/cache.%ld", f);
		if (write_file_mib(path, buf, 64, f))
			_exit(4);
		ls->cache_written_mib += 64;
	}
	__atomic_store_n(&ls->cache_ready, 1, __ATOMIC_SEQ_CST);
	for (pass = 0;; pass++) {
		for (f = 0; f < nfiles; f++) {
			snprintf(path, sizeof(path), MNT "/cache.%ld", f);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				_exit(5);
			while ((n = read(fd, buf, 1 << 20)) > 0)
				ls->cache_read_mib += n == 1 << 20;
			close(fd);
		}
		ls->cache_passes++;
		/* one file rewritten per pass: dirty pages and writeback too */
		snprintf(path, sizeof(path), MNT "/cache.%ld", pass % nfiles);
		if (write_file_mib(path, buf, 64, pass + nfiles))
			_exit(6);
		ls->cache_rewrites++;
	}
}

/* ---- churn: mixed-size anonymous regions on node 0 ----------------------- */

static void churn_child(unsigned int seed)
{
	static const long sizes_kb[] = { 4, 8, 16, 64, 256, 1024, 2048, 4096, 8192 };
	struct { char *p; size_t len; bool punched; } slot[4096];
	long pool_max = node0_kb * churn_pct / 100 * 1024, pool = 0;
	int nslot = 0;

	memset(slot, 0, sizeof(slot));
	if (run_on_node(0))
		_exit(3);
	srand(seed);
	for (;;) {
		size_t len = sizes_kb[rand() % ARRAY_LEN(sizes_kb)] * 1024 * (1 + rand() % 3), o;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(4);
		if (rand() % 2)
			madvise(p, len, MADV_NOHUGEPAGE);
		for (o = 0; o < len; o += PAGE_SZ)
			p[o] = 1;
		ls->churn_maps++;
		pool += len;
		if (pool / 1024 > ls->churn_peak_kb)
			ls->churn_peak_kb = pool / 1024;
		if (nslot == (int)ARRAY_LEN(slot)) {
			munmap(p, len);
			pool -= len;
		} else {
			slot[nslot].p = p;
			slot[nslot].len = len;
			slot[nslot++].punched = false;
		}
		while (pool > pool_max && nslot) {
			int i = rand() % nslot;

			if (!slot[i].punched && slot[i].len >= 32768 && rand() % 2) {
				/* free every other 16k: holes, and half the pages stay */
				for (o = 0; o + 16384 <= slot[i].len; o += 32768)
					madvise(slot[i].p + o, 16384, MADV_DONTNEED);
				slot[i].punched = true;
				pool -= slot[i].len / 2;
				ls->churn_punches++;
				continue;
			}
			munmap(slot[i].p, slot[i].len);
			pool -= slot[i].punched ? slot[i].len / 2 : slot[i].len;
			slot[i] = slot[--nslot];
			ls->churn_frees++;
		}
	}
}

static pid_t start_child(void (*fn)(unsigned int), unsigned int arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* not thp_save()'s handlers: a killed child restores nothing */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void cache_entry(unsigned int unused)
{
	(void)unused;
	cache_child();
}

/* Child bound to node 1: holds @node1_pct % of its free memory in 4k pages. */
static void node1_child(unsigned int unused)
{
	unsigned long mask = 2;
	struct node_mem m;
	size_t len, o;
	char *p;

	(void)unused;
	if (node_mem_read(1, &m))
		_exit(3);
	len = (size_t)m.free * PAGE_SZ / 100 * node1_pct;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || syscall(SYS_mbind, p, len, MPOL_BIND_, &mask, MAX_NODES + 1, 0) ||
	    madvise(p, len, MADV_NOHUGEPAGE))
		_exit(4);
	for (o = 0; o < len; o += PAGE_SZ)
		p[o] = 1;
	for (;;)
		pause();
}

/* ---- khugepaged settings (thp_save() saved them) ---------------------------- */

static void kh_fast(void)
{
	thp_set("khugepaged/pages_to_scan", "4096");
	thp_set("khugepaged/scan_sleep_millisecs", "100");
}

static void kh_default(void)
{
	thp_restore_knob("khugepaged/pages_to_scan");
	thp_restore_knob("khugepaged/scan_sleep_millisecs");
}

/* ---- one region and the threads that fault it -------------------------------- */

struct region {
	char *buf;
	size_t len;
	long steps;
	double *lat;		/* us per step */
	long cnt[NR_CNT];	/* vmstat deltas over its steps */
	const char *mode;
	char run[32];		/* "2", or "2.1" for a mode's second region in run 2 */
};

static struct region *cur;
static long cur_round;
static bool workers_stop;
static pthread_barrier_t b_start, b_end;
static int node0_cpus[64], nr_node0_cpus;

static void pin_node0(int tid)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(node0_cpus[tid % nr_node0_cpus], &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *worker(void *arg)
{
	int tid = (int)(long)arg;

	pin_node0(tid);
	for (;;) {
		long idx;

		pthread_barrier_wait(&b_start);
		if (workers_stop)
			break;
		idx = cur_round * nthreads + tid;
		if (idx < cur->steps) {
			char *p = cur->buf + idx * HPAGE_SZ;
			double t = now_ns();
			size_t o;

			for (o = 0; o < HPAGE_SZ; o += PAGE_SZ)
				p[o] = 1;
			cur->lat[idx] = (now_ns() - t) / 1e3;
		}
		pthread_barrier_wait(&b_end);
	}
	return NULL;
}

/* node 0's CPUs from its cpulist ("0-1,4") */
static void read_node0_cpus(void)
{
	char buf[256], *p = buf;

	if (read_file("/sys/devices/system/node/node0/cpulist", buf, sizeof(buf)))
		buf[0] = '\0';
	while (*p && nr_node0_cpus < 64) {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b && nr_node0_cpus < 64; a++)
			node0_cpus[nr_node0_cpus++] = a;
		if (*p == ',')
			p++;
		else
			break;
	}
	if (!nr_node0_cpus)
		node0_cpus[nr_node0_cpus++] = 0;
}

/* ---- the sampler: every region's placement, every second ------------------- */

static struct region *sreg[MAX_REGIONS];
static int nsreg;
static const char *s_variant, *s_phase = "fault";
static int s_rep;
static double s_t0;
static volatile bool sampler_stop;
static long samples;

static void sample_once(void)
{
	long hist[MAX_NODES][NR_SIZES];
	struct placement pl;
	char h[256];
	double t = (now_ns() - s_t0) / 1e9;
	int i;

	for (i = 0; i < nsreg; i++) {
		if (placement_measure(sreg[i]->buf, sreg[i]->len, &pl))
			continue;
		placement_by_class(&pl, 0, hist);
		placement_format(hist, pl.pages, h, sizeof(h));
		printf("# challenge-sample %s|%s|%s|%s|%.1f|%s|faulted=%ld%%\n", s_variant,
		       sreg[i]->mode, sreg[i]->run, s_phase, t, h,
		       pl.pages ? ((pl.pages - pl.unplaced) * 100 + pl.pages / 2) / pl.pages : 0);
		samples++;
	}
	fflush(stdout);
}

static void *sampler(void *arg)
{
	double next = now_ns();

	(void)arg;
	while (!sampler_stop) {
		double wait;

		sample_once();
		next += 1e9;
		wait = next - now_ns();
		if (wait < 0)
			next = now_ns();	/* a slow sample: no catching up */
		else
			while (wait > 0 && !sampler_stop) {
				usleep(wait > 1e8 ? 100000 : wait / 1e3);
				wait = next - now_ns();
			}
	}
	return NULL;
}

/* ---- checks and results ------------------------------------------------------ */

/*
 * The pages of @r that have no node now: a page that compaction or
 * khugepaged is migrating is a migration entry for a moment (with the
 * fast khugepaged setting, whose allocations compact, some page nearly
 * always is).  Ask again for those pages alone, every 20 ms for up to
 * 2 s.  Returns how many never got a node; *off counts the ones that got
 * a node not allowed (not node 0 when @bound).
 */
static long recheck(struct region *r, bool bound, long *off)
{
	long n = r->len / PAGE_SZ, i, k = 0, tries;
	void **pages = calloc(n, sizeof(void *));
	int *status = calloc(n, sizeof(int));

	*off = 0;
	if (!pages || !status) {
		free(pages);
		free(status);
		return n;
	}
	for (i = 0; i < n; i++)
		pages[i] = r->buf + i * PAGE_SZ;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0))
		k = n;
	else
		for (i = 0; i < n; i++)
			if (status[i] < 0)
				pages[k++] = pages[i];
	for (tries = 0; k && tries < 100; tries++) {
		long left = 0;

		usleep(20000);
		if (syscall(SYS_move_pages, 0, k, pages, NULL, status, 0))
			continue;
		for (i = 0; i < k; i++) {
			if (status[i] < 0)
				pages[left++] = pages[i];
			else if (status[i] >= nr_nodes || (bound && status[i]))
				(*off)++;
		}
		k = left;
	}
	free(pages);
	free(status);
	return k;
}

/*
 * Every page of @r present, on an allowed node (node 0 only when @bound)
 * and counted once by node and size; a page without a node at the first
 * read (under migration) must get one within 2 s (recheck()).
 */
static bool verify(struct region *r, bool bound, char *h, size_t hlen, char *why, size_t wlen)
{
	long hist[MAX_NODES][NR_SIZES], sum = 0, off = 0, off2 = 0, left = 0;
	struct placement pl;
	int n, s;

	if (placement_measure(r->buf, r->len, &pl)) {
		snprintf(why, wlen, "placement_measure: %s", strerror(errno));
		return false;
	}
	for (n = 0; n < MAX_NODES; n++)
		for (s = 0; s < NR_SIZES; s++) {
			sum += pl.cnt[n][s];
			if (pl.cnt[n][s] && (n >= nr_nodes || (bound && n)))
				off += pl.cnt[n][s];
		}
	placement_by_class(&pl, 0, hist);
	placement_format(hist, pl.pages, h, hlen);
	if (pl.unplaced)
		left = recheck(r, bound, &off2);
	if (left || sum + pl.unplaced != (long)(r->len / PAGE_SZ) || off || off2) {
		snprintf(why, wlen, "%ld of %zu pages without a node (%ld still after 2 s), %ld counted, %ld on a node not allowed",
			 pl.unplaced, r->len / PAGE_SZ, left, sum, off + off2);
		return false;
	}
	if (pl.unplaced)
		tap_diag("%s run %s: %ld pages were under migration at the first read; each had a node within 2 s",
			 r->mode, r->run, pl.unplaced);
	return true;
}

static void print_result(const char *variant, struct region *r, const char *h)
{
	double *v = malloc(r->steps * sizeof(double));
	int q;

	if (!v)
		return;
	memcpy(v, r->lat, r->steps * sizeof(double));
	qsort(v, r->steps, sizeof(double), cmp_double);
	printf("# challenge-result %s|%s|%s|%ld|p50=%.0f p90=%.0f p99=%.0f max=%.0f|%s|"
	       "compact_stall=%ld compact_success=%ld pgscan_direct=%ld pgsteal=%ld "
	       "thp_fault_alloc=%ld thp_fault_fallback=%ld thp_collapse_alloc=%ld\n",
	       variant, r->mode, r->run, r->steps, pct(v, r->steps, 0.5), pct(v, r->steps, 0.9),
	       pct(v, r->steps, 0.99), v[r->steps - 1], h, r->cnt[0], r->cnt[1], r->cnt[2],
	       r->cnt[3] + r->cnt[4], r->cnt[5], r->cnt[6], r->cnt[7]);
	printf("# challenge-cdf|%s|%s|%s|", variant, r->mode, r->run);
	for (q = 0; q <= 100; q++)
		printf("%s%.0f", q ? " " : "", v[(long)((r->steps - 1) * q / 100.0 + 0.5)]);
	printf("\n");
	fflush(stdout);
	free(v);
}

static bool region_map(struct region *r, size_t len, const char *mode, const char *run, bool bind)
{
	unsigned long mask = 1;

	memset(r, 0, sizeof(*r));
	snprintf(r->run, sizeof(r->run), "%s", run);
	r->len = len;
	r->steps = len / HPAGE_SZ;
	r->mode = mode;
	r->buf = map_aligned(len);
	r->lat = calloc(r->steps, sizeof(double));
	if (!r->buf || !r->lat || madvise(r->buf, len, MADV_HUGEPAGE))
		return false;
	if (bind && syscall(SYS_mbind, r->buf, len, MPOL_BIND_, &mask, MAX_NODES + 1, 0))
		return false;
	return true;
}

static void region_unmap(struct region *r)
{
	if (r->buf)
		munmap(r->buf, r->len);
	free(r->lat);
	r->buf = NULL;
	r->lat = NULL;
}

static void sleep_s(double s)
{
	if (s > 0)
		usleep(s * 1e6);
}

/*
 * The fault phase of one run: the regions of @reg, the modes taking turns
 * step by step from @first; the churn child is killed halfway.  Returns
 * whether it was killed before the last step.
 */
static bool fault_phase(struct region *reg, int nreg, int first, pid_t churn)
{
	long rounds = (reg[0].steps + nthreads - 1) / nthreads, c;
	long b[NR_CNT], a[NR_CNT];
	bool churn_killed = false;
	unsigned int i;
	int k, st;

	for (c = 0; c < rounds; c++) {
		for (k = 0; k < nreg; k++) {
			struct region *r = &reg[(first + k) % nreg];

			fallback_mode_set(r->mode);
			vmstat_many(counters, NR_CNT, b);
			cur = r;
			cur_round = c;
			pthread_barrier_wait(&b_start);
			pthread_barrier_wait(&b_end);
			vmstat_many(counters, NR_CNT, a);
			for (i = 0; i < NR_CNT; i++)
				r->cnt[i] += a[i] - b[i];
		}
		if (c == rounds / 2 && churn > 0) {
			/* it must still be running, and die of this signal */
			bool alive = !kill(churn, SIGTERM);

			waitpid(churn, &st, 0);
			churn_killed = alive && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM &&
				       (c + 1 < rounds || rounds == 1);
		}
		/* paced: round c ends no earlier than its share of fault_s */
		sleep_s(s_t0 / 1e9 + fault_s * (c + 1) / rounds - now_ns() / 1e9);
	}
	return churn_killed;
}

static pthread_t sampler_tid;

static void sampler_start(const char *variant, int rep, struct region *reg, int nreg)
{
	int i;

	s_variant = variant;
	s_rep = rep;
	s_phase = "fault";
	nsreg = nreg;
	for (i = 0; i < nreg; i++)
		sreg[i] = &reg[i];
	sampler_stop = false;
	s_t0 = now_ns();
	pthread_create(&sampler_tid, NULL, sampler, NULL);
}

static void sampler_end(void)
{
	sampler_stop = true;
	pthread_join(sampler_tid, NULL);
}

static long churn_runs, churn_partway;

/*
 * The normal variant's run @rep: @nregions regions (at least one per
 * mode; region k runs modes[k % nmodes]), turn by turn, so a kernel
 * without the knob faults as much memory as one with it.  The regions are
 * mapped in an order that rotates per run: khugepaged scans an mm by
 * address, so no mode's region is always scanned first.
 */
static void run_normal(int rep)
{
	struct region reg[MAX_REGIONS];
	int nreg = nregions > nmodes ? nregions : nmodes, k, m;
	char h[256], why[256], tag[32];
	bool ok[MAX_REGIONS];
	long coll0, coll;
	pid_t churn;

	for (k = 0; k < nreg; k++) {
		m = (k + rep) % nreg;
		if (m < nmodes)
			snprintf(tag, sizeof(tag), "%d", rep);
		else
			snprintf(tag, sizeof(tag), "%d.%d", rep, m / nmodes);
		if (!region_map(&reg[m], region_mib << 20, modes[m % nmodes], tag, false)) {
			for (m = 0; m < nreg; m++)
				tap_result(false, "challenge normal %s run %d # cannot map the region",
					   modes[m % nmodes], rep);
			return;
		}
	}
	churn = start_child(churn_child, 1000 + rep);
	churn_runs++;
	sleep_s(age_s);
	sampler_start("normal", rep, reg, nreg);
	churn_partway += fault_phase(reg, nreg, rep % nreg, churn);
	for (k = 0; k < nreg; k++) {
		ok[k] = verify(&reg[k], false, h, sizeof(h), why, sizeof(why));
		print_result("normal", &reg[k], h);
		if (!ok[k])
			tap_diag("normal %s run %s after faulting: %s", reg[k].mode, reg[k].run, why);
	}

	/* khugepaged: the kernel's defaults, then the fast setting */
	coll0 = vmstat("thp_collapse_alloc");
	s_phase = "post-default";
	sleep_s(post_default_s);
	coll = vmstat("thp_collapse_alloc");
	for (k = 0; post_default_s > 0 && k < nreg; k++) {
		ok[k] &= verify(&reg[k], false, h, sizeof(h), why, sizeof(why));
		printf("# challenge-khugepaged normal|%s|%s|default|%.1f|%s|collapsed=%ld\n",
		       reg[k].mode, reg[k].run, (now_ns() - s_t0) / 1e9, h, coll - coll0);
	}
	kh_fast();
	s_phase = "post-fast";
	sleep_s(post_fast_s);
	kh_default();
	coll = vmstat("thp_collapse_alloc");
	sampler_end();
	for (k = 0; post_fast_s > 0 && k < nreg; k++) {
		ok[k] &= verify(&reg[k], false, h, sizeof(h), why, sizeof(why));
		printf("# challenge-khugepaged normal|%s|%s|fast|%.1f|%s|collapsed=%ld\n",
		       reg[k].mode, reg[k].run, (now_ns() - s_t0) / 1e9, h, coll - coll0);
	}
	fflush(stdout);
	for (k = 0; k < nreg; k++) {
		tap_result(ok[k], "challenge normal %s run %s: every page of %zu MiB present, on a node, counted once, after faulting and after khugepaged",
			   reg[k].mode, reg[k].run, region_mib);
		if (!ok[k])
			tap_diag("%s", why);
		region_unmap(&reg[k]);
	}
}

/* The vm variant's run @rep: each mode in turn, a region bound to node 0. */
static void run_vm(int rep)
{
	size_t len = (size_t)node0_kb * vm_pct / 100 / 2048 * HPAGE_SZ;
	char h[256], why[256], tag[32];
	struct region r;
	pid_t churn;
	int k, m;
	bool ok;

	for (k = 0; k < nmodes; k++) {
		m = (k + rep) % nmodes;
		snprintf(tag, sizeof(tag), "%d", rep);
		if (!region_map(&r, len, modes[m], tag, true)) {
			tap_result(false, "challenge vm %s run %d # cannot map and bind the region", modes[m], rep);
			region_unmap(&r);
			continue;
		}
		churn = start_child(churn_child, 2000 + rep * MAX_MODES + m);
		churn_runs++;
		sleep_s(age_s);
		sampler_start("vm", rep, &r, 1);
		churn_partway += fault_phase(&r, 1, 0, churn);
		sampler_end();
		ok = verify(&r, true, h, sizeof(h), why, sizeof(why));
		print_result("vm", &r, h);
		tap_result(ok, "challenge vm %s run %d: every page of %zu MiB present, on node0 (MPOL_BIND), counted once",
			   modes[m], rep, len >> 20);
		if (!ok)
			tap_diag("%s", why);
		region_unmap(&r);
	}
}

static void print_param(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("# challenge-param|%s|", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void print_settings(void)
{
	static const char *const vm_knobs[] = {
		"compaction_proactiveness", "watermark_boost_factor", "watermark_scale_factor",
		"min_free_kbytes", "zone_reclaim_mode", "percpu_pagelist_high_fraction",
	};
	char path[160], buf[256], v[64];
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(vm_knobs); i++) {
		snprintf(path, sizeof(path), "/proc/sys/vm/%s", vm_knobs[i]);
		print_param(vm_knobs[i], "%s", read_file(path, buf, sizeof(buf)) ? "?" : buf);
	}
	for (i = 0; i < ARRAY_LEN(thp_knobs); i++) {
		snprintf(path, sizeof(path), THP_DIR "%s", thp_knobs[i]);
		if (read_file(path, buf, sizeof(buf)))
			continue;
		bracketed(buf, v, sizeof(v));
		print_param(thp_knobs[i], "%s", v);
	}
	print_param("khugepaged fast", "pages_to_scan=4096 scan_sleep_millisecs=100 (the rest as above)");
	print_param("node0 MiB", "%ld", node0_kb / 1024);
	print_param("nodes", "%d", nr_nodes);
	print_param("page cache MiB", "%zu (files of 64 MiB on ext4, written, then read back in a loop, one rewritten per pass; writer on node0's CPU)", cache_mib);
	print_param("churn", "up to %d%% of node0 (%ld MiB) in anonymous regions of 4k-24M, half MADV_NOHUGEPAGE, freed whole or every other 16k; killed halfway through each fault phase",
		    churn_pct, node0_kb * churn_pct / 100 / 1024);
	print_param("node1 load", node1_pct ? "%d%% of node1's free memory in 4k pages, bound to node1" : "none",
		    node1_pct);
	print_param("aging before each run s", "%.1f", age_s);
	print_param("fault phase s (at least)", "%.1f", fault_s);
	print_param("normal regions", "%d of %zu MiB (region k in modes[k mod %d]), MADV_HUGEPAGE, taking turns step by step, mapped in an order that rotates per run",
		    nregions > nmodes ? nregions : nmodes, region_mib, nmodes);
	print_param("vm region", vm_pct ? "%d%% of node0, MPOL_BIND node0, MADV_HUGEPAGE" : "not run", vm_pct);
	print_param("khugepaged phases s", "%.1f default, then %.1f fast", post_default_s, post_fast_s);
	print_param("threads", "%d on node0's CPUs (%d)", nthreads, nr_node0_cpus);
	print_param("runs per mode", "%d", reps);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *modes_arg = NULL;
	pthread_t tids[MAX_THREADS];
	pid_t cache_pid, node1_pid = 0;
	char why[256];
	double t, load_t;
	int opt, rep, i, planned;
	bool cache_ok;

	while ((opt = getopt(argc, argv, "m:R:n:s:v:F:C:a:f:P:j:b:")) != -1) {
		switch (opt) {
		case 'm': modes_arg = optarg; break;
		case 'R': reps = atoi(optarg); break;
		case 's': region_mib = strtoul(optarg, NULL, 10) / 2 * 2; break;
		case 'v': vm_pct = atoi(optarg); break;
		case 'F': cache_mib = strtoul(optarg, NULL, 10); break;
		case 'C': churn_pct = atoi(optarg); break;
		case 'a': age_s = atof(optarg); break;
		case 'f': fault_s = atof(optarg); break;
		case 'P':
			if (sscanf(optarg, "%lf,%lf", &post_default_s, &post_fast_s) != 2) {
				fprintf(stderr, "-P takes DEFAULT_SECONDS,FAST_SECONDS\n");
				return 2;
			}
			break;
		case 'j': nthreads = atoi(optarg); break;
		case 'n': nregions = atoi(optarg); break;
		case 'b': node1_pct = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-m modes] [-R runs] [-n regions] [-s MiB] [-v PCT] [-F MiB] [-C PCT] [-a s] [-f s] [-P Pd,Pf] [-j threads] [-b PCT]\n",
				argv[0]);
			return 2;
		}
	}
	if ((region_mib && region_mib < 2) || nregions < 1 || nregions > MAX_REGIONS || reps < 1 || reps > 20 || nthreads < 1 || nthreads > MAX_THREADS || vm_pct < 0 ||
	    vm_pct > 95 || churn_pct < 1 || churn_pct > 50 || node1_pct < 0 || node1_pct > 90) {
		fprintf(stderr, "thp_challenge: -s 2 or more, -n 1-6, -R 1-20, -j 1-%d, -v 0-95, -C 1-50, -b 0-90\n", MAX_THREADS);
		return 2;
	}
	nmodes = parse_modes(modes_arg, modes, MAX_MODES);
	topo_init();
	read_node0_cpus();
	node0_kb = node_meminfo_kb(0, "MemTotal");
	if (node0_kb <= 0) {
		printf("Bail out! thp_challenge: cannot read node0's meminfo\n");
		return 1;
	}
	if (!region_mib)	/* a sixth of node 0 per mode */
		region_mib = node0_kb / 1024 / 6 / 2 * 2;
	if (!cache_mib)		/* more than node 0 holds */
		cache_mib = node0_kb / 1024 * 5 / 4;
	if (node1_pct && nr_nodes < 2)
		node1_pct = 0;
	planned = ((nregions > nmodes ? nregions : nmodes) + (vm_pct ? nmodes : 0)) * reps + 2;
	tap_plan(planned);
	thp_save();
	thp_set("enabled", "madvise");
	thp_set("defrag", "madvise");
	run_on_node(0);
	print_settings();

	ls = mmap(NULL, sizeof(*ls), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ls == MAP_FAILED || scratch_setup(why, sizeof(why))) {
		printf("Bail out! thp_challenge: %s\n", ls == MAP_FAILED ? "mmap" : why);
		return 1;
	}
	memset(ls, 0, sizeof(*ls));
	t = now_ns();
	cache_pid = start_child(cache_entry, 0);
	while (!__atomic_load_n(&ls->cache_ready, __ATOMIC_SEQ_CST)) {
		if (waitpid(cache_pid, NULL, WNOHANG) == cache_pid) {
			printf("Bail out! thp_challenge: the page cache writer died after %ld MiB\n",
			       ls->cache_written_mib);
			return 1;
		}
		usleep(100000);
	}
	load_t = (now_ns() - t) / 1e9;
	{
		struct node_mem nm;

		node_mem_read(0, &nm);
		tap_diag("page cache: %ld MiB written in %.1f s; node0's largest zone has %ld MiB free",
			 ls->cache_written_mib, load_t, nm.free * PAGE_SZ >> 20);
	}
	if (node1_pct)
		node1_pid = start_child(node1_child, 0);

	pthread_barrier_init(&b_start, NULL, nthreads + 1);
	pthread_barrier_init(&b_end, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(long)i);

	for (rep = 0; rep < reps; rep++) {
		run_normal(rep);
		if (vm_pct)
			run_vm(rep);
	}

	workers_stop = true;
	pthread_barrier_wait(&b_start);
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	cache_ok = ls->cache_written_mib >= (long)cache_mib && ls->cache_read_mib > 0 &&
		   waitpid(cache_pid, NULL, WNOHANG) == 0;
	kill(cache_pid, SIGKILL);
	waitpid(cache_pid, NULL, 0);
	if (node1_pid > 0) {
		kill(node1_pid, SIGKILL);
		waitpid(node1_pid, NULL, 0);
	}
	printf("# challenge-load|page cache written MiB|%ld\n", ls->cache_written_mib);
	printf("# challenge-load|page cache write s|%.1f\n", load_t);
	printf("# challenge-load|page cache read MiB|%ld\n", ls->cache_read_mib);
	printf("# challenge-load|page cache read passes|%ld\n", ls->cache_passes);
	printf("# challenge-load|page cache files rewritten|%ld\n", ls->cache_rewrites);
	printf("# challenge-load|churn maps|%ld\n", ls->churn_maps);
	printf("# challenge-load|churn frees|%ld\n", ls->churn_frees);
	printf("# challenge-load|churn punched|%ld\n", ls->churn_punches);
	printf("# challenge-load|churn peak MiB|%ld\n", ls->churn_peak_kb / 1024);
	printf("# challenge-load|samples|%ld\n", samples);
	tap_result(cache_ok, "challenge page cache: %ld MiB written on ext4 (node0 has %ld MiB), %ld MiB read back while the runs went on",
		   ls->cache_written_mib, node0_kb / 1024, ls->cache_read_mib);
	tap_result(churn_runs && churn_partway == churn_runs && ls->churn_maps && ls->churn_frees,
		   "challenge churn: killed partway through %ld of %ld fault phases; %ld maps, %ld frees",
		   churn_partway, churn_runs, ls->churn_maps, ls->churn_frees);
	return tap_finish();
}
