// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers for the guest tests: kselftest-style TAP, node topology
 * and node-state control, page-by-page placement (node from
 * move_pages(), size from PAGEMAP_SCAN and kpageflags, distance class
 * from the SLIT in sysfs), /proc counters, timing, and expect().
 *
 * Needs root in the guest (pagemap PFNs, kpageflags, debugfs).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "thp_settings.h"
#include "vm_util.h"

#define KPF_THP_BIT	22

/* ---- TAP ---------------------------------------------------------------- */

static int tap_n, tap_pass, tap_fail, tap_skip;

void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void tap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", ok ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	ok ? tap_pass++ : tap_fail++;
}

void tap_skipped(const char *why, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
	tap_skip++;
}

int tap_finish(void)
{
	printf("# Totals: pass:%d fail:%d skip:%d\n", tap_pass, tap_fail, tap_skip);
	return tap_fail ? 1 : 0;
}

/* ---- small sysfs helpers ------------------------------------------------ */

/* A field of /sys/devices/system/node/nodeN/meminfo in kB, or -1. */
long node_meminfo_kb(int nid, const char *field)
{
	char path[96], line[256], name[64];
	long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d %63[^:]: %ld", name, &v) == 2 &&
		    !strcmp(name, field)) {
			fclose(f);
			return v;
		}
	fclose(f);
	return -1;
}

/* ---- topology ------------------------------------------------------------ */

int nr_nodes;				/* nodes with memory, 0..nr_nodes-1 */
static int slit[MAX_NODES][MAX_NODES];

int topo_init(void)
{
	char path[96], buf[256], *p;
	int i, j;

	for (i = 0; i < MAX_NODES; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", i);
		if (read_file(path, buf, sizeof(buf)))
			break;
		for (j = 0, p = buf; j < MAX_NODES && *p; j++)
			slit[i][j] = strtol(p, &p, 10);
	}
	nr_nodes = i;
	return nr_nodes;
}

/* Distance class of @mem seen from @cpu: rank of its distinct SLIT value. */
int dist_class(int cpu_node, int mem_node)
{
	int d = slit[cpu_node][mem_node], j, k, rank = 0;

	for (j = 0; j < nr_nodes; j++) {
		bool seen = false;

		if (slit[cpu_node][j] >= d)
			continue;
		for (k = 0; k < j; k++)
			if (slit[cpu_node][k] == slit[cpu_node][j])
				seen = true;
		if (!seen)
			rank++;
	}
	return rank;
}

/*
 * The kernel's own fallback order for @from, from its boot message
 * "Fallback order for Node N: a b c ..." (build_zonelists()).  Among nodes
 * at equal distance it is not id order: find_next_best_node() spreads the
 * load, so chain4's node 1 walks 1 2 0 3.  Returns the count, 0 if the
 * message is gone from the log.
 */
int kernel_walk_order(int from, int *order)
{
	char key[48], *buf, *p, *last = NULL;
	int len = klogctl(10, NULL, 0), n = 0;	/* SYSLOG_ACTION_SIZE_BUFFER */

	if (len <= 0 || !(buf = malloc(len + 1)))
		return 0;
	len = klogctl(3, buf, len);		/* SYSLOG_ACTION_READ_ALL */
	if (len <= 0) {
		free(buf);
		return 0;
	}
	buf[len] = '\0';
	snprintf(key, sizeof(key), "Fallback order for Node %d: ", from);
	for (p = strstr(buf, key); p; p = strstr(p + 1, key))
		last = p + strlen(key);
	for (p = last; p && n < MAX_NODES; ) {
		char *e;
		long v = strtol(p, &e, 10);

		if (e == p)
			break;
		order[n++] = v;
		p = e;
		while (*p == ' ')
			p++;
		if (*p == '\n')
			break;
	}
	free(buf);
	return n;
}

/* Nodes in the order a zonelist of @from walks them. */
int walk_order(int from, int *order)
{
	int i, j, n = kernel_walk_order(from, order);

	if (n == nr_nodes)
		return n;
	/* No boot message: SLIT distance, then node id. */
	for (n = 0, i = 0; i < nr_nodes; i++)
		order[n++] = i;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (slit[from][order[j]] < slit[from][order[i]] ||
			    (slit[from][order[j]] == slit[from][order[i]] &&
			     order[j] < order[i])) {
				int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
	return n;
}

int node_first_cpu(int node)
{
	char path[96], buf[256];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (read_file(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	return atoi(buf);
}

int run_on_node(int node)
{
	int cpu = node_first_cpu(node);
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The scheduler state of @nid's kswapd ('S' asleep, 'R' running, 'D' in
 * reclaim IO), or '?'.  wakeup_kswapd() fires mm_vmscan_wakeup_kswapd
 * only when kswapd sleeps on its wait queue, so a fault that begins while
 * kswapd is awake (still reclaiming after the state was made, say) can miss
 * a THP, ask for the wake-up and leave no event.
 */
char kswapd_state(int nid)
{
	static char path[MAX_NODES][64];
	char comm[32], want[32], buf[256], *p;
	struct dirent *de;
	DIR *d;

	if (nid < 0 || nid >= MAX_NODES)
		return '?';
	if (!path[nid][0]) {
		snprintf(want, sizeof(want), "kswapd%d", nid);
		d = opendir("/proc");
		while (d && (de = readdir(d))) {
			int pid = atoi(de->d_name);

			if (pid <= 0)
				continue;
			snprintf(buf, sizeof(buf), "/proc/%d/comm", pid);
			if (read_file(buf, comm, sizeof(comm)) || strcmp(comm, want))
				continue;
			snprintf(path[nid], sizeof(path[nid]), "/proc/%d/stat", pid);
			break;
		}
		if (d)
			closedir(d);
	}
	if (!path[nid][0] || read_file(path[nid], buf, sizeof(buf)))
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Wait up to @ms for every node's kswapd to sleep.  Only waits: what
 * kswapd does meanwhile it would do anyway.  Returns the nodes whose
 * kswapd was still awake, as a bit mask.
 */
unsigned long kswapds_settle(int ms)
{
	unsigned long awake;
	int nid;

	for (;; ms -= 50) {
		awake = 0;
		for (nid = 0; nid < nr_nodes; nid++)
			if (kswapd_state(nid) != 'S')
				awake |= 1UL << nid;
		if (!awake || ms <= 0)
			return awake;
		usleep(50 * 1000);
	}
}

/* ---- node states (mm-tests/nodestate module) ----------------------------- */

const char *const nstate_name[] = { "FREE", "FRAG", "FULL", "LOW", "SPLIT" };

int node_state_set(int node, enum nstate s)
{
	static const char *const val[] = { "free", "frag", "full", "low", "split" };
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/nodestate/node%d", node);
	return write_file(path, val[s]);
}

/*
 * The settings every node-state scenario runs under, restored at exit:
 * THP @enabled with defrag=madvise, and node states that hold for the
 * whole row (no proactive compaction, no watermark boost that kswapd
 * would take away again); the task runs on @cpu_node's first CPU.
 */
void scenario_env(const char *enabled, int cpu_node)
{
	thp_save();
	thp_set("enabled", enabled);
	thp_set("defrag", "madvise");
	sysctl_set("/proc/sys/vm/compaction_proactiveness", "0");
	sysctl_set("/proc/sys/vm/watermark_boost_factor", "0");
	run_on_node(cpu_node);
}

/*
 * Free pages and min/low/high watermarks of @node's zone with the most managed
 * pages, from /proc/zoneinfo alone (cheap enough to poll).
 */
static int node_zone_read(int node, struct node_mem *m)
{
	char line[1024], zone[32];
	bool in_zone = false;
	FILE *f;
	int nid;

	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return -errno;
	{
		long zfree = 0, zmin = 0, zlow = 0, zhigh = 0, zmanaged = 0, best = 0, v;

		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Node %d, zone %31s", &nid, zone) == 2) {
				in_zone = nid == node;
				zfree = zmin = zlow = zhigh = zmanaged = 0;
				continue;
			}
			if (!in_zone)
				continue;
			if (sscanf(line, " pages free %ld", &v) == 1)
				zfree = v;
			else if (sscanf(line, " min %ld", &v) == 1)
				zmin = v;
			else if (sscanf(line, " low %ld", &v) == 1)
				zlow = v;
			else if (sscanf(line, " high %ld", &v) == 1)
				zhigh = v;
			else if (sscanf(line, " managed %ld", &v) == 1) {
				zmanaged = v;
				if (zmanaged > best) {
					best = zmanaged;
					m->free = zfree;
					m->min = zmin;
					m->low = zlow;
					m->high = zhigh;
				}
			}
		}
	}
	fclose(f);
	return 0;
}

int node_mem_read(int node, struct node_mem *m)
{
	char line[1024], zone[32], type[32];
	FILE *f;
	int nid;

	memset(m, 0, sizeof(*m));
	f = fopen("/proc/pagetypeinfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		long c[11] = { 0 };

		if (sscanf(line, "Node %d, zone %31s type %31s %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld",
			   &nid, zone, type, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5],
			   &c[6], &c[7], &c[8], &c[9], &c[10]) >= 13 && nid == node &&
		    (!strcmp(type, "Unmovable") || !strcmp(type, "Movable") ||
		     !strcmp(type, "Reclaimable"))) {
			int o;

			m->huge_blocks += c[9] + c[10];
			for (o = 4; o <= 10; o++)
				m->mthp_blocks += c[o];
		}
	}
	fclose(f);

	return node_zone_read(node, m);
}

/* Pages on the per-cpu lists of @nid's zones, all CPUs, from /proc/zoneinfo. */
long node_pcp_pages(int nid)
{
	char line[256];
	bool in_node = false;
	long sum = 0, v;
	int n;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &n) == 1)
			in_node = n == nid;
		else if (in_node && sscanf(line, " count: %ld", &v) == 1)
			sum += v;
	}
	fclose(f);
	return sum;
}

/* Does @node really look like @s?  Fills @why when it does not. */
bool node_state_check(int node, enum nstate s, char *why, size_t len)
{
	struct node_mem m;

	if (node_mem_read(node, &m)) {
		snprintf(why, len, "cannot read /proc/pagetypeinfo or zoneinfo");
		return false;
	}
	switch (s) {
	case FREE:
		if (m.huge_blocks >= 16 && m.free > m.low)
			return true;
		break;
	case FRAG:
		if (m.huge_blocks == 0 && m.free > 2 * m.low + 4096)
			return true;
		break;
	case FULL:
		if (m.huge_blocks == 0 && m.free < m.low)
			return true;
		break;
	case LOW:
		if (m.huge_blocks > 0 && m.free < m.low && m.free > m.min)
			return true;
		break;
	case SPLIT:
		if (m.mthp_blocks == 0 && m.free > 2 * m.low + 4096)
			return true;
		break;
	}
	snprintf(why, len, "node%d not %s: %ld free blocks >= 2M, %ld >= 64K, free %ld low %ld min %ld pages",
		 node, nstate_name[s], m.huge_blocks, m.mthp_blocks, m.free, m.low, m.min);
	return false;
}

/* ---- page-by-page placement ---------------------------------------------- */

const char *const psize_name[] = { "4k", "mTHP", "THP" };

/* Page-by-page node and size of [addr, addr + len). */
int placement_measure(void *addr, size_t len, struct placement *pl)
{
	long n = len / PAGE_SZ, i;
	void **pages = calloc(n, sizeof(void *));
	int *status = calloc(n, sizeof(int));
	uint64_t *pm = calloc(n, sizeof(uint64_t));
	unsigned char *huge = calloc(n, 1);
	struct page_region *regs = calloc(n, sizeof(*regs));
	struct pm_scan_arg arg;
	int fd = -1, kfd = -1, ret = -1;
	long r;

	memset(pl, 0, sizeof(*pl));
	if (!pages || !status || !pm || !huge || !regs)
		goto out;
	for (i = 0; i < n; i++)
		pages[i] = (char *)addr + i * PAGE_SZ;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0))
		goto out;

	fd = open("/proc/self/pagemap", O_RDONLY);
	kfd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0 || kfd < 0)
		goto out;
	if (pread(fd, pm, n * sizeof(uint64_t), (uintptr_t)addr / PAGE_SZ * 8) !=
	    (ssize_t)(n * sizeof(uint64_t)))
		goto out;

	/* PMD-mapped ranges: PAGEMAP_SCAN's PAGE_IS_HUGE. */
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.start = (uintptr_t)addr;
	arg.end = (uintptr_t)addr + len;
	arg.vec = (uintptr_t)regs;
	arg.vec_len = n;
	arg.category_mask = PAGE_IS_HUGE | PAGE_IS_PRESENT;
	arg.return_mask = PAGE_IS_HUGE;
	r = ioctl(fd, PAGEMAP_SCAN, &arg);
	if (r < 0)
		goto out;
	while (r-- > 0)
		for (i = (regs[r].start - (uintptr_t)addr) / PAGE_SZ;
		     i < (long)((regs[r].end - (uintptr_t)addr) / PAGE_SZ); i++)
			huge[i] = 1;

	for (i = 0; i < n; i++) {
		uint64_t pfn = pm[i] & ((1ULL << 55) - 1), kf = 0;
		enum psize sz = SZ_4K;

		pl->pages++;
		if (!(pm[i] >> 63) || status[i] < 0 || status[i] >= MAX_NODES) {
			pl->unplaced++;
			continue;
		}
		if (huge[i])
			sz = SZ_THP;
		else if (pread(kfd, &kf, 8, pfn * 8) == 8 && (kf >> KPF_THP_BIT) & 1)
			sz = SZ_MTHP;
		pl->cnt[status[i]][sz]++;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (kfd >= 0)
		close(kfd);
	free(pages);
	free(status);
	free(pm);
	free(huge);
	free(regs);
	return ret;
}

/*
 * placement_measure(), repeated while some page of the range is not placed
 * (one that compaction or NUMA balancing is migrating shows no node), for
 * up to a second.  Only waits: the kernel's state is left as it is.
 * *@waits counts the repeats.
 */
int placement_measure_settled(void *addr, size_t len,
			      struct placement *pl, int *waits)
{
	int ret;

	*waits = 0;
	while (!(ret = placement_measure(addr, len, pl)) && pl->unplaced && *waits < 10) {
		usleep(100000);
		++*waits;
	}
	return ret;
}

/* Fold by distance class from @cpu_node: hist[class][size] in pages. */
void placement_by_class(const struct placement *pl, int cpu_node,
			long hist[MAX_NODES][NR_SIZES])
{
	int node, s;

	memset(hist, 0, sizeof(long) * MAX_NODES * NR_SIZES);
	for (node = 0; node < nr_nodes; node++)
		for (s = 0; s < NR_SIZES; s++)
			hist[dist_class(cpu_node, node)][s] += pl->cnt[node][s];
}

/* Class and size holding most of the pages. */
void placement_majority(long hist[MAX_NODES][NR_SIZES], int *cls, int *sz)
{
	long best = -1;
	int c, s;

	for (c = 0; c < MAX_NODES; c++)
		for (s = 0; s < NR_SIZES; s++)
			if (hist[c][s] > best) {
				best = hist[c][s];
				*cls = c;
				*sz = s;
			}
}

/* "D0 THP 0% | D0 4k 100% | D1 THP 0% ..." */
char *placement_format(long hist[MAX_NODES][NR_SIZES], long total,
		       char *buf, size_t len)
{
	int classes = 0, c, s, off = 0, node;

	for (node = 0; node < nr_nodes; node++)
		if (dist_class(0, node) + 1 > classes)
			classes = dist_class(0, node) + 1;
	for (c = 0; c < MAX_NODES; c++)
		for (s = 0; s < NR_SIZES; s++)
			if (hist[c][s] && c + 1 > classes)
				classes = c + 1;
	buf[0] = '\0';
	for (c = 0; c < classes; c++)
		for (s = NR_SIZES - 1; s >= 0; s--) {
			if (s == SZ_MTHP && !hist[c][s])
				continue;
			off += snprintf(buf + off, len - off, "%sD%d %s %ld%%",
					off ? " | " : "", c, psize_name[s],
					total ? (hist[c][s] * 100 + total / 2) / total : 0);
			if ((size_t)off >= len)
				return buf;
		}
	return buf;
}

/* An anonymous region aligned to 2M, so every 2M range can be a THP. */
void *map_aligned(size_t len)
{
	char *p = mmap(NULL, len + HPAGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + HPAGE_SZ - 1) & ~(HPAGE_SZ - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, (p + len + HPAGE_SZ) - (a + len));
	return a;
}

/* Value of @name in a "key value" or "Key: value kB" file, or -1. */
long proc_value(const char *path, const char *name)
{
	char line[256], key[128];
	long v, ret = -1;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %ld", key, &v) != 2)
			continue;
		n = strlen(key);
		if (n && key[n - 1] == ':')
			key[n - 1] = '\0';
		if (!strcmp(key, name))
			ret = v;
	}
	fclose(f);
	return ret;
}

long vmstat(const char *name)
{
	return proc_value("/proc/vmstat", name);
}

/* Several /proc/vmstat counters from one read; a missing one reads 0. */
void vmstat_many(const char *const *names, int n, long *v)
{
	char line[256], key[128];
	long val;
	int i;
	FILE *f = fopen("/proc/vmstat", "r");

	for (i = 0; i < n; i++)
		v[i] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld", key, &val) == 2)
			for (i = 0; i < n; i++)
				if (!strcmp(key, names[i]))
					v[i] = val;
	fclose(f);
}

/* ---- timing and quantiles ------------------------------------------------ */

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @p quantile of @v[0..n) (nearest rank); sorts @v. */
double pct(double *v, int n, double p)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(int)((n - 1) * p + 0.5)];
}

/*
 * The modes a test runs: "-m a,b,c" if given, else every mode the kernel
 * offers (only legacy without the numa_fallback knob).  Returns how many.
 */
int parse_modes(const char *arg, char **v, int max)
{
	char *list = strdup(arg ? arg : have_numa_fallback() ?
			    "node-first,guest,legacy" : "legacy");
	char *tok;
	int n = 0;

	for (tok = strtok(list, ","); tok && n < max; tok = strtok(NULL, ","))
		v[n++] = tok;
	return n;
}

/* ---- the expected placement -------------------------------------------- */

/*
 * Whether a node in state @s at zonelist position @pos can give a page of
 * size @sz without reclaim, which none of the scenarios needs: FREE gives
 * every size, FRAG every size below 2M, SPLIT only 4k, FULL nothing.  LOW
 * (first position only) gives a THP to the local attempt that a PMD fault
 * makes on the node it starts from (its min-watermark try), and nothing
 * to the fast path of any size.
 */
static bool state_gives(enum nstate s, int pos, enum psize sz)
{
	switch (s) {
	case FREE:
		return true;
	case FRAG:
		return sz != SZ_THP;
	case SPLIT:
		return sz == SZ_4K;
	case LOW:
		return pos == 0 && sz == SZ_THP;
	default:
		return false;
	}
}

/*
 * Which node and size a fault gets, given the state of each node in
 * zonelist order (@walk, from the node the walk starts from) and the sizes
 * the region may take (@sizes, bits of enum psize: SZ_THP with PMD-sized
 * THP on, SZ_MTHP with one mTHP size on; 4k always).  Every fault of a 2M
 * range gets the same answer, so this is the whole range's.
 *
 * legacy: the PMD fault tries a local THP, then (madvised, so it may
 * reclaim) a THP on any node; the PTE fault then tries each smaller size
 * on every node in zonelist order before the next size.  node-first: by
 * distance class from walk[0], every size from the largest on every node
 * of the class before the next class.  guest: the THP leads and the
 * smaller sizes trail it by one class; without THP, as node-first.  Both
 * walks keep the band rule: a node below its high watermark (LOW, FULL)
 * is passed over while a FREE node can take the range above its own high
 * watermark, so LOW's local THP goes to the walk only when no node is
 * FREE.
 */
void expect(const char *mode, bool madvise, unsigned int sizes,
	    const enum nstate *st, const int *walk, int n,
	    int *pos, int *sz)
{
	static const enum psize down[] = { SZ_THP, SZ_MTHP, SZ_4K };
	int cls[MAX_NODES], ncls = 0, i, c, k;
	bool thp = sizes & (1u << SZ_THP), spare = false;
#define HAS(s) ((s) == SZ_4K || (sizes & (1u << (s))))
#define WALK_GIVES(i, s) (state_gives(st[i], i, s) && !(st[i] == LOW && spare))
#define GOT(i, s) do { *pos = (i); *sz = (s); return; } while (0)

	/*
	 * Classes among the walk's own nodes (a policy or cpuset may leave a
	 * distance out): the rank of each node's distance from walk[0].
	 */
	for (i = 0; i < n; i++) {
		int j, m, d = slit[walk[0]][walk[i]];

		cls[i] = 0;
		for (j = 0; j < n; j++) {
			bool seen = false;

			if (slit[walk[0]][walk[j]] >= d)
				continue;
			for (m = 0; m < j; m++)
				seen |= slit[walk[0]][walk[m]] == slit[walk[0]][walk[j]];
			cls[i] += !seen;
		}
		if (cls[i] + 1 > ncls)
			ncls = cls[i] + 1;
	}
	for (i = 0; i < n; i++)
		spare |= st[i] == FREE;
	if (!strcmp(mode, "legacy")) {
		if (thp && state_gives(st[0], 0, SZ_THP))
			GOT(0, SZ_THP);
		for (i = 0; thp && madvise && i < n; i++)
			if (state_gives(st[i], i, SZ_THP))
				GOT(i, SZ_THP);
		for (k = 1; k < 3; k++)
			for (i = 0; HAS(down[k]) && i < n; i++)
				if (state_gives(st[i], i, down[k]))
					GOT(i, down[k]);
	} else if (!strcmp(mode, "node-first") || !thp) {
		for (c = 0; c < ncls; c++)
			for (k = 0; k < 3; k++)
				for (i = 0; HAS(down[k]) && i < n; i++)
					if (cls[i] == c && WALK_GIVES(i, down[k]))
						GOT(i, down[k]);
	} else {	/* guest: smaller sizes trail the THP by one class */
		for (c = 0; c <= ncls; c++) {
			for (i = 0; c < ncls && i < n; i++)
				if (cls[i] == c && WALK_GIVES(i, SZ_THP))
					GOT(i, SZ_THP);
			for (k = 1; c > 0 && k < 3; k++)
				for (i = 0; HAS(down[k]) && i < n; i++)
					if (cls[i] == c - 1 && WALK_GIVES(i, down[k]))
						GOT(i, down[k]);
		}
	}
	*pos = -1;
	*sz = SZ_4K;
#undef HAS
#undef GOT
#undef WALK_GIVES
}
