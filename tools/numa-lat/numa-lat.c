// SPDX-License-Identifier: GPL-2.0
/*
 * numa-lat: memory latency by NUMA distance and page size.
 *
 * For every CPU node (row) and memory node, and for THP and 4k pages, bind
 * a buffer to the memory node, fault it in from the row's CPU node (so its
 * page tables are on that node too, as for any task's own memory), verify
 * where every page landed and how big it is, then time a dependent-load pointer
 * chase over a random single-cycle permutation of the buffer's cache lines
 * (so both the caches and the TLB miss).  The result is printed in the
 * shape of Andrea Arcangeli's 2019 table:
 *
 *   D0 THP | D0 4k | D1 THP | D1 4k | D2 THP | ...
 *
 * with ns per access and the cost over local THP; nodes at equal distance
 * from the CPU node are folded into one class, and named.
 *
 * It needs nothing but a Linux kernel: no libnuma, no root (root only adds
 * a kpageflags cross-check on kernels without PAGEMAP_SCAN), any kernel
 * version, bare metal or guest.  Build: make -C tools/numa-lat.
 *
 *   numa-lat [-s MiB] [-n passes] [-c cpu-nodes] [-t KiB] [-x]
 *            [-f table|csv|json|cost] [-o prefix]
 *
 * -t adds an mTHP size: its buffer leaves the last piece of that size of
 * every 2M window PROT_NONE, so no PMD THP fits and every other piece can
 * be an mTHP, verified from /proc/kpageflags (root).
 *
 * Every output opens with the version and the command line, as Intel's
 * MLC does.  Versions: 1.0, unversioned, faulted every buffer from the
 * first row's node; 1.1 faults each row's buffers from that row's node.
 */
#define _GNU_SOURCE
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
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define NUMA_LAT_VERSION "1.1"
#define MAXN		64		/* nodes */
#define LINE		64UL
#define PG		4096UL
#define HPG		(2UL << 20)
#define MPOL_BIND_	2
#define KPF_THP		22
#define KPF_HEAD	15
#define KPF_TAIL	16

/* PAGEMAP_SCAN (Linux 6.7) for kernels whose headers predate it. */
#ifndef PAGEMAP_SCAN
#define PAGEMAP_SCAN	_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_PRESENT	(1 << 3)
#define PAGE_IS_HUGE	(1 << 6)
struct page_region {
	uint64_t start, end, categories;
};

struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#endif

/*
 * Page sizes, smallest first as in mm-tests/vm_util.h; both print them
 * largest first, in Andrea's column order (D0 THP | D0 4k | ...).
 */
enum { SZ_4K, SZ_MTHP, SZ_THP, NR_SIZES };
static const char *size_name[NR_SIZES] = { "4k", "mTHP", "THP" };
static bool size_on[NR_SIZES] = { true, false, true };
static size_t mthp_size;		/* -t: the mTHP size in bytes, or 0 */
static char mthp_name[24];
/* The sizes measured, largest first: a statement or block follows. */
#define for_each_size(s) for ((s) = NR_SIZES - 1; (s) >= 0; (s)--) if (!size_on[s]) {} else

static int nr_sizes(void)
{
	return 2 + size_on[SZ_MTHP];
}

struct cell {
	bool done;
	double ns;
	char why[160];			/* why it was refused */
};

static int nodes[MAXN], nr;		/* memory nodes */
static int cpu_nodes[MAXN], nr_cpu;	/* nodes with CPUs (rows) */
static int slit[MAXN][MAXN];
static bool numa = true;		/* mbind() works */
static struct cell cells[MAXN][MAXN][NR_SIZES];
static const char *verify_how[NR_SIZES];
static size_t buf_len;
static int passes = 3;
static char env[256], llc_desc[64];
static char cmdline[512];		/* argv, for every output's first line */
static int nargs;
static char **args;
static void *volatile sink;		/* keeps the chase alive */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("numa-lat: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static int slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* "0-3,8,10-11" -> ids[], returns the count */
static int parse_list(const char *s, int *ids, int max)
{
	int n = 0;

	while (*s) {
		char *e;
		long a = strtol(s, &e, 10), b = a;

		if (e == s)
			break;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (; a <= b && n < max; a++)
			ids[n++] = a;
		s = *e == ',' ? e + 1 : e;
	}
	return n;
}

static int node_index(int node)
{
	int i;

	for (i = 0; i < nr; i++)
		if (nodes[i] == node)
			return i;
	return -1;
}

static void topology(void)
{
	char buf[4096], path[128], *p;
	int ids[MAXN], n, i, j;

	if (slurp("/sys/devices/system/node/has_memory", buf, sizeof(buf)) ||
	    !(nr = parse_list(buf, nodes, MAXN))) {
		/* CONFIG_NUMA=n: one node, everything local */
		nr = 1;
		nodes[0] = 0;
		slit[0][0] = 10;
		numa = false;
	}
	for (i = 0; numa && i < nr; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", nodes[i]);
		if (slurp(path, buf, sizeof(buf)))
			die("cannot read %s", path);
		/* the distance file has one entry per online node, in id order */
		for (j = 0, p = buf; *p && j < MAXN; j++)
			ids[j] = strtol(p, &p, 10);
		n = j;
		if (slurp("/sys/devices/system/node/online", buf, sizeof(buf)) == 0) {
			int online[MAXN], no = parse_list(buf, online, MAXN), k;

			for (k = 0; k < no && k < n; k++) {
				int m = node_index(online[k]);

				if (m >= 0)
					slit[i][m] = ids[k];
			}
		}
	}
	if (!numa || slurp("/sys/devices/system/node/has_cpu", buf, sizeof(buf)) ||
	    !(n = parse_list(buf, ids, MAXN))) {
		ids[0] = 0;
		n = 1;
	}
	nr_cpu = 0;
	for (i = 0; i < n; i++)
		if (node_index(ids[i]) >= 0)
			cpu_nodes[nr_cpu++] = ids[i];
}

/* Distance class of memory node index @m from CPU node index @c. */
static int dist_class(int c, int m)
{
	int d = slit[c][m], seen[MAXN], ns = 0, i, j;

	for (i = 0; i < nr; i++) {
		bool dup = false;

		if (slit[c][i] >= d)
			continue;
		for (j = 0; j < ns; j++)
			dup |= seen[j] == slit[c][i];
		if (!dup)
			seen[ns++] = slit[c][i];
	}
	return ns;
}

static int nr_classes(int c)
{
	int i, k = 0;

	for (i = 0; i < nr; i++)
		if (dist_class(c, i) + 1 > k)
			k = dist_class(c, i) + 1;
	return k;
}

static int pin_to_node(int node)
{
	char path[128], buf[4096];
	int cpus[1024], n, i;
	cpu_set_t set;

	CPU_ZERO(&set);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (!numa)
		return 0;
	if (slurp(path, buf, sizeof(buf)) || !(n = parse_list(buf, cpus, 1024)))
		return -1;
	for (i = 0; i < n; i++)
		CPU_SET(cpus[i], &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* ---- what we run on --------------------------------------------------- */

static void environment(void)
{
	char hv[13] = "", vendor[128] = "", product[128] = "", xen[32] = "";
	bool hv_bit = false;
	int off = 0;

#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (__get_cpuid(1, &a, &b, &c, &d))
		hv_bit = c & (1u << 31);
	if (hv_bit) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(hv, &b, 4);
		memcpy(hv + 4, &c, 4);
		memcpy(hv + 8, &d, 4);
		hv[12] = '\0';
	}
#endif
	slurp("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	slurp("/sys/class/dmi/id/product_name", product, sizeof(product));
	slurp("/sys/hypervisor/type", xen, sizeof(xen));

	if (!strcmp(hv, "TCGTCGTCGTCG"))
		off = snprintf(env, sizeof(env), "emulated (QEMU TCG)");
	else if (!strncmp(hv, "KVMKVMKVM", 9))
		off = snprintf(env, sizeof(env), "virtualised (KVM)");
	else if (!strcmp(hv, "Microsoft Hv"))
		off = snprintf(env, sizeof(env), "virtualised (Hyper-V)");
	else if (!strcmp(hv, "VMwareVMware"))
		off = snprintf(env, sizeof(env), "virtualised (VMware)");
	else if (!strcmp(hv, "XenVMMXenVMM") || xen[0])
		off = snprintf(env, sizeof(env), "virtualised (Xen)");
	else if (hv_bit)
		off = snprintf(env, sizeof(env), "virtualised (hypervisor \"%s\")", hv);
	else if (!strncmp(vendor, "QEMU", 4))
		off = snprintf(env, sizeof(env), "emulated or virtualised (QEMU machine, no hypervisor CPUID leaf)");
	else
		off = snprintf(env, sizeof(env), "bare metal (no hypervisor CPUID bit)");
	if (vendor[0] || product[0])
		snprintf(env + off, sizeof(env) - off, "; DMI: %s %s", vendor, product);
}

/* Size of the last-level cache, from sysfs, else sysconf. */
static size_t llc_size(void)
{
	char path[128], buf[64];
	size_t best = 0;
	int i, lvl, best_lvl = 0;

	for (i = 0; i < 16; i++) {
		size_t sz;
		char *e;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (slurp(path, buf, sizeof(buf)))
			break;
		lvl = atoi(buf);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (slurp(path, buf, sizeof(buf)) || !strcmp(buf, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (slurp(path, buf, sizeof(buf)))
			continue;
		sz = strtoul(buf, &e, 10);
		if (*e == 'K')
			sz <<= 10;
		else if (*e == 'M')
			sz <<= 20;
		if (lvl >= best_lvl) {
			best_lvl = lvl;
			best = sz;
		}
	}
	if (!best) {
		long s = sysconf(_SC_LEVEL3_CACHE_SIZE);

		best_lvl = 3;
		if (s <= 0) {
			s = sysconf(_SC_LEVEL2_CACHE_SIZE);
			best_lvl = 2;
		}
		best = s > 0 ? (size_t)s : 0;
	}
	if (best)
		snprintf(llc_desc, sizeof(llc_desc), "L%d %zu KiB", best_lvl, best >> 10);
	else
		snprintf(llc_desc, sizeof(llc_desc), "unknown LLC");
	return best;
}

static const char *thp_mode(void)
{
	static char buf[64], mode[16];
	char *a, *b;

	if (slurp("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)))
		return "missing";
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b || b - a > 15)
		return "unknown";
	snprintf(mode, sizeof(mode), "%.*s", (int)(b - a - 1), a + 1);
	return mode;
}

/* ---- placement: every page's node and size ------------------------------ */

/* Pages of [p, p + len) mapped by a PMD, or -1 if the kernel cannot say. */
static long huge_pages_scan(char *p, size_t len)
{
	long n = len / PG, huge = 0, r;
	struct page_region *regs = calloc(n, sizeof(*regs));
	struct pm_scan_arg arg = {
		.size = sizeof(arg),
		.start = (uintptr_t)p,
		.end = (uintptr_t)p + len,
		.vec_len = n,
		.category_mask = PAGE_IS_PRESENT,
		.return_mask = PAGE_IS_HUGE,
	};
	int fd = open("/proc/self/pagemap", O_RDONLY);

	arg.vec = (uintptr_t)regs;
	r = fd >= 0 && regs ? ioctl(fd, PAGEMAP_SCAN, &arg) : -1;
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		free(regs);
		return -1;
	}
	while (r-- > 0)
		if (regs[r].categories & PAGE_IS_HUGE)
			huge += (regs[r].end - regs[r].start) / PG;
	free(regs);
	return huge;
}

/*
 * PFN and /proc/kpageflags word of every page of [p, p + len), into
 * @pfn[] and @kf[] (n entries each).  -1 when PFNs are hidden (not root).
 */
static int kpageflags_read(char *p, size_t len, uint64_t *pfn, uint64_t *kf)
{
	int fd = open("/proc/self/pagemap", O_RDONLY), kfd = open("/proc/kpageflags", O_RDONLY);
	long n = len / PG, i;
	int ret = -1;

	if (fd < 0 || kfd < 0 || pread(fd, pfn, n * 8, (uintptr_t)p / PG * 8) != n * 8)
		goto out;
	for (i = 0; i < n; i++) {
		pfn[i] &= (1ULL << 55) - 1;
		if (!pfn[i] || pread(kfd, &kf[i], 8, pfn[i] * 8) != 8)
			goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (kfd >= 0)
		close(kfd);
	return ret;
}

/* Pages with the THP flag in /proc/kpageflags (root), or -1. */
static long huge_pages_kpageflags(char *p, size_t len)
{
	long n = len / PG, i, huge = -1;
	uint64_t *pfn = calloc(n, 8), *kf = calloc(n, 8);

	if (pfn && kf && !kpageflags_read(p, len, pfn, kf))
		for (i = 0, huge = 0; i < n; i++)
			huge += (kf[i] >> KPF_THP) & 1;
	free(pfn);
	free(kf);
	return huge;
}

/* AnonHugePages of the VMA starting at @p from /proc/self/smaps, or -1. */
static long huge_pages_smaps(char *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	bool in = false;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = a <= (uintptr_t)p && (uintptr_t)p < b;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb < 0 ? -1 : kb / 4;
}

/* NULL if every page is on @node with the wanted size; else why not. */
/* 0 if every page of [p, p + len) is on @node, else -1 with @why set. */
static int node_check(char *p, size_t len, int node, char *why, size_t wl)
{
	long n = len / PG, i, off = 0;
	void **pages = calloc(n, sizeof(void *));
	int *status = calloc(n, sizeof(int));

	if (!pages || !status)
		die("out of memory");
	for (i = 0; i < n; i++)
		pages[i] = p + i * PG;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
		if (numa) {
			snprintf(why, wl, "move_pages: %s", strerror(errno));
			off = -1;
		}
		for (i = 0; i < n; i++)		/* CONFIG_NUMA=n */
			status[i] = 0;
	}
	for (i = 0; off >= 0 && i < n; i++)
		off += status[i] != node;
	if (off > 0)
		snprintf(why, wl, "%ld of %ld pages not on node%d", off, n, node);
	free(pages);
	free(status);
	return off ? -1 : 0;
}

/*
 * mTHP: every page in a folio of exactly @size, from /proc/kpageflags (THP
 * flag, a compound head at each @size boundary, tails after it, contiguous
 * PFNs).  Neither PAGEMAP_SCAN nor smaps can tell an mTHP from 4k pages.
 */
static int mthp_check(char *p, size_t len, size_t size, char *why, size_t wl)
{
	long n = len / PG, per = size / PG, i, bad = 0;
	uint64_t *pfn = calloc(n, 8), *kf = calloc(n, 8);

	if (!pfn || !kf || kpageflags_read(p, len, pfn, kf)) {
		snprintf(why, wl, "mTHP needs /proc/kpageflags and pagemap PFNs (root)");
		bad = -1;
	}
	for (i = 0; bad >= 0 && i < n; i++) {
		bool head = i % per == 0;
		uint64_t head_pfn = pfn[i - i % per];

		if (!((kf[i] >> KPF_THP) & 1) || !((kf[i] >> (head ? KPF_HEAD : KPF_TAIL)) & 1) ||
		    pfn[i] != head_pfn + i % per)
			bad++;
	}
	if (bad > 0)
		snprintf(why, wl, "%ld of %ld 4k pages not in a %s folio (kpageflags)", bad, n, mthp_name);
	free(pfn);
	free(kf);
	return bad ? -1 : 0;
}

static const char *verify(char *p, size_t len, int node, int sz, char *why, size_t wl)
{
	long n = len / PG, huge;
	const char *how;

	if (node_check(p, len, node, why, wl))
		return why;
	if (sz == SZ_MTHP) {
		verify_how[sz] = "kpageflags";
		return mthp_check(p, len, mthp_size, why, wl) ? why : NULL;
	}
	how = "PAGEMAP_SCAN";
	huge = huge_pages_scan(p, len);
	if (huge < 0) {
		how = "kpageflags";
		huge = huge_pages_kpageflags(p, len);
	}
	if (huge < 0) {
		how = "smaps AnonHugePages";
		huge = huge_pages_smaps(p);
	}
	if (huge < 0) {
		snprintf(why, wl, "cannot tell page sizes (no PAGEMAP_SCAN, kpageflags or smaps)");
		return why;
	}
	verify_how[sz] = how;
	if (sz == SZ_THP && huge != n)
		snprintf(why, wl, "%ld of %ld 4k pages not in a THP (%s)", n - huge, n, how);
	else if (sz == SZ_4K && huge)
		snprintf(why, wl, "%ld of %ld 4k pages in a THP (%s)", huge, n, how);
	else
		why[0] = '\0';
	return why[0] ? why : NULL;
}

/* ---- the chase ---------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t *perm;			/* one random cycle over the lines */

static void make_perm(size_t lines)
{
	size_t i;

	perm = malloc(lines * sizeof(*perm));
	if (!perm)
		die("out of memory for a %zu-line permutation", lines);
	for (i = 0; i < lines; i++)
		perm[i] = i;
	/* Sattolo: a single cycle, so the chase visits every line. */
	for (i = lines - 1; i > 0; i--) {
		size_t j = next_rand() % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * One buffer per memory node and page size for the row being measured:
 * the policy (MPOL_BIND) decides where its pages land, the row's CPU node
 * where its page tables do.
 */
struct buffer {
	char *raw, *buf;
	size_t map_len;			/* of raw */
	size_t gap;			/* guard at the end of each 2M window */
	char why[160];			/* set if it could not be placed */
};

/*
 * Address of cache line @i.  THP and 4k buffers are contiguous.  An mTHP
 * buffer leaves the last mTHP-sized piece of every 2M window PROT_NONE, a
 * VMA of its own, so no window can take a PMD-sized THP and every other
 * piece can take an mTHP.
 */
static inline char *line_addr(const struct buffer *b, size_t i)
{
	size_t per = (HPG - b->gap) / LINE;

	return b->buf + i / per * HPG + i % per * LINE;
}

static struct buffer bufs[MAXN][NR_SIZES];

/* One timed walk of the whole cycle: ns per dependent load. */
static double chase(const struct buffer *b, size_t lines)
{
	void **p = (void **)line_addr(b, perm[0]);
	double t = now();
	size_t i;

	for (i = 0; i < lines; i += 8) {
		p = *p; p = *p; p = *p; p = *p;
		p = *p; p = *p; p = *p; p = *p;
	}
	t = (now() - t) / lines;
	sink = p;
	return t;
}

/* MemFree of a node in bytes, or -1. */
static long long node_free(int node)
{
	char path[128], line[256];
	long long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemFree: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb << 10;
}

static void setup(int mi, int sz)
{
	struct buffer *b = &bufs[mi][sz];
	unsigned long mask[MAXN / 64 + 1] = { 0 };
	size_t lines = buf_len / LINE, i, win, use, nwin;
	long long avail = numa ? node_free(nodes[mi]) : -1;
	char path[128], buf[128];

	memset(b, 0, sizeof(*b));
	b->gap = sz == SZ_MTHP ? mthp_size : 0;
	use = HPG - b->gap;
	nwin = (buf_len + use - 1) / use;
	b->map_len = nwin * HPG + HPG;
	if (sz == SZ_MTHP) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%zukB/enabled",
			 mthp_size >> 10);
		if (slurp(path, buf, sizeof(buf)) || strstr(buf, "[never]")) {
			snprintf(b->why, sizeof(b->why), "hugepages-%zukB/enabled is %.64s",
				 mthp_size >> 10, buf[0] ? buf : "missing");
			return;
		}
	}
	/* MPOL_BIND on a node without room would end in the OOM killer. */
	if (avail >= 0 && (size_t)avail < buf_len + (64UL << 20)) {
		snprintf(b->why, sizeof(b->why), "node%d has %lld MiB free, a %zu MiB buffer needs %zu",
			 nodes[mi], avail >> 20, buf_len >> 20, (buf_len >> 20) + 64);
		return;
	}
	b->raw = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b->raw == MAP_FAILED)
		die("mmap %zu MiB: %s", b->map_len >> 20, strerror(errno));
	b->buf = (char *)(((uintptr_t)b->raw + HPG - 1) & ~(HPG - 1));
	if (madvise(b->buf, nwin * HPG, sz == SZ_4K ? MADV_NOHUGEPAGE : MADV_HUGEPAGE))
		snprintf(b->why, sizeof(b->why), "madvise: %s", strerror(errno));
	for (win = 0; b->gap && win < nwin; win++)
		if (mprotect(b->buf + win * HPG + use, b->gap, PROT_NONE))
			snprintf(b->why, sizeof(b->why), "mprotect: %s", strerror(errno));
	mask[nodes[mi] / 64] |= 1UL << (nodes[mi] % 64);
	if (!b->why[0] && numa &&
	    syscall(SYS_mbind, b->buf, nwin * HPG, MPOL_BIND_, mask, MAXN + 1, 0))
		snprintf(b->why, sizeof(b->why), "mbind node%d: %s", nodes[mi], strerror(errno));
	for (win = 0; !b->why[0] && win < nwin; win++) {
		char *w = b->buf + win * HPG;

		for (i = 0; i < use; i += PG)	/* fault it in */
			w[i] = 1;
		verify(w, use, nodes[mi], sz, b->why, sizeof(b->why));
	}
	if (b->why[0]) {
		munmap(b->raw, b->map_len);
		b->raw = b->buf = NULL;
		return;
	}
	for (i = 0; i + 1 < lines; i++)
		*(void **)line_addr(b, perm[i]) = line_addr(b, perm[i + 1]);
	*(void **)line_addr(b, perm[lines - 1]) = line_addr(b, perm[0]);
}

static void release(struct buffer *b)
{
	if (b->raw)
		munmap(b->raw, b->map_len);
	b->raw = b->buf = NULL;
}

/*
 * Row by row: the row's buffers are faulted from its CPU node, measured,
 * and freed before the next row's.  Within a row, passes go round every
 * cell in turn (pass 0 warms up), and each cell keeps its best pass.
 * Drift over the run, such as an emulator growing its software TLB or a
 * host clocking up, so hits a row's cells alike instead of favouring the
 * cells measured last; every % in a row is against that row's D0 THP.
 */
static void measure_all(int *rows, int nrows)
{
	int pass, r, m, s, done = 0, total = (passes + 1) * nrows * nr * nr_sizes();
	bool progress = isatty(2) || getenv("NUMA_LAT_PROGRESS");
	double t0 = now();

	for (r = 0; r < nrows; r++) {
		int cpu_node = nodes[rows[r]];

		if (nr_cpu && pin_to_node(cpu_node))
			die("cannot run on node%d's CPUs: %s", cpu_node, strerror(errno));
		for (m = 0; m < nr; m++)
			for_each_size(s) {
				setup(m, s);
				if (progress)
					fprintf(stderr, "numa-lat: CPU node%d, buffer on node%d, %s: %s (%.0f s)\n",
						cpu_node, nodes[m], size_name[s],
						bufs[m][s].why[0] ? bufs[m][s].why : "placed and verified",
						(now() - t0) / 1e9);
			}
		for (pass = 0; pass <= passes; pass++) {
			for (m = 0; m < nr; m++)
				for_each_size(s) {
					struct cell *c = &cells[rows[r]][m][s];
					double ns;

					done++;
					if (!bufs[m][s].buf) {
						snprintf(c->why, sizeof(c->why), "%s", bufs[m][s].why);
						continue;
					}
					ns = chase(&bufs[m][s], buf_len / LINE);
					if (pass && (!c->done || ns < c->ns)) {
						c->ns = ns;
						c->done = true;
					}
				}
			if (progress)
				fprintf(stderr, "numa-lat: CPU node%d %s %d/%d done, %d/%d cell passes (%.0f s)\n",
					cpu_node, pass ? "pass" : "warm-up", pass, passes, done, total,
					(now() - t0) / 1e9);
		}
		for (m = 0; m < nr; m++)
			for_each_size(s)
				release(&bufs[m][s]);
	}
}

/* ---- output -------------------------------------------------------------- */

/* Mean over the nodes of class @k from CPU node index @c; 0 if none done. */
static double class_ns(int c, int k, int sz, char *names, size_t nl, bool *some_refused)
{
	double sum = 0;
	int m, cnt = 0, off = 0;

	if (names)
		names[0] = '\0';
	for (m = 0; m < nr; m++) {
		if (dist_class(c, m) != k)
			continue;
		if (names)
			off += snprintf(names + off, nl - off, "%s%d", off ? "," : "", nodes[m]);
		if (cells[c][m][sz].done) {
			sum += cells[c][m][sz].ns;
			cnt++;
		} else if (some_refused) {
			*some_refused = true;
		}
	}
	return cnt ? sum / cnt : 0;
}

static void header(FILE *f, const char *pfx)
{
	int i, j, s;

	fprintf(f, "%snuma-lat %s, command line: %s\n", pfx, NUMA_LAT_VERSION, cmdline);
	fprintf(f, "%snuma-lat: %d memory node%s", pfx, nr, nr == 1 ? "" : "s");
	if (nr == 1)
		fprintf(f, " (found only one NUMA node%s: the table has a D0 column only)",
			numa ? "" : ", no NUMA support in this kernel");
	fprintf(f, "\n%senvironment: %s\n", pfx, env);
	fprintf(f, "%sbuffer: %zu MiB per cell (%s), dependent loads over a random cycle of %zu-byte lines\n",
		pfx, buf_len >> 20, llc_desc, LINE);
	fprintf(f, "%spasses: best of %d timed passes after 1 warm-up pass, round-robin over a row's cells;"
		" each row's buffers faulted from its CPU node\n", pfx, passes);
	fprintf(f, "%spage sizes verified page by page:", pfx);
	for_each_size(s)
		fprintf(f, " %s (%s)", size_name[s], verify_how[s] ? verify_how[s] : "not verified");
	fprintf(f, "; node of every page by move_pages\n");
	fprintf(f, "%sSLIT:\n%s  node", pfx, pfx);
	for (j = 0; j < nr; j++)
		fprintf(f, " %4d", nodes[j]);
	fputc('\n', f);
	for (i = 0; i < nr; i++) {
		fprintf(f, "%s  %4d", pfx, nodes[i]);
		for (j = 0; j < nr; j++)
			fprintf(f, " %4d", slit[i][j]);
		fputc('\n', f);
	}
}

static void print_table(FILE *f, int *rows, int nrows)
{
	int r, k, s, maxk = 0;

	for (r = 0; r < nrows; r++)
		if (nr_classes(rows[r]) > maxk)
			maxk = nr_classes(rows[r]);
	fprintf(f, "\n| CPU node |");
	for (k = 0; k < maxk; k++)
		for_each_size(s)
			fprintf(f, " D%d %s |", k, size_name[s]);
	fprintf(f, "\n|---|");
	for (k = 0; k < maxk * nr_sizes(); k++)
		fprintf(f, "---|");
	fputc('\n', f);
	for (r = 0; r < nrows; r++) {
		int c = rows[r];
		double base = class_ns(c, 0, SZ_THP, NULL, 0, NULL);
		char legend[256] = "";
		int lo = 0;

		fprintf(f, "| node%d |", nodes[c]);
		for (k = 0; k < maxk; k++) {
			char names[128];

			for_each_size(s) {
				bool refused = false;
				double ns = class_ns(c, k, s, names, sizeof(names), &refused);

				if (k >= nr_classes(c))
					fprintf(f, " - |");
				else if (!ns)
					fprintf(f, " refused |");
				else if (base)
					fprintf(f, " %.1f ns %+.0f%%%s |", ns, (ns / base - 1) * 100,
						refused ? "*" : "");
				else
					fprintf(f, " %.1f ns%s |", ns, refused ? "*" : "");
			}
			if (k < nr_classes(c))
				lo += snprintf(legend + lo, sizeof(legend) - lo, "%sD%d=node%s",
					       lo ? " " : "", k, names);
		}
		fprintf(f, "\n|  | %s |\n", legend);
	}
}

static void print_matrix(FILE *f, int *rows, int nrows)
{
	int r, m, s;

	for_each_size(s) {
		fprintf(f, "\n%s latency matrix (ns), CPU node x memory node\n\n| CPU \\ mem |", size_name[s]);
		for (m = 0; m < nr; m++)
			fprintf(f, " node%d |", nodes[m]);
		fprintf(f, "\n|---|");
		for (m = 0; m < nr; m++)
			fprintf(f, "---|");
		fputc('\n', f);
		for (r = 0; r < nrows; r++) {
			fprintf(f, "| node%d |", nodes[rows[r]]);
			for (m = 0; m < nr; m++) {
				struct cell *c = &cells[rows[r]][m][s];

				if (c->done)
					fprintf(f, " %.1f |", c->ns);
				else
					fprintf(f, " refused |");
			}
			fputc('\n', f);
		}
	}
}

static void print_refusals(FILE *f, int *rows, int nrows)
{
	int r, m, s;

	for (r = 0; r < nrows; r++)
		for (m = 0; m < nr; m++)
			for_each_size(s)
				if (!cells[rows[r]][m][s].done)
					fprintf(f, "refused: CPU node%d, memory node%d, %s: %s\n",
						nodes[rows[r]], nodes[m], size_name[s],
						cells[rows[r]][m][s].why);
}

static void print_csv(FILE *f, int *rows, int nrows)
{
	int r, m, s;

	fprintf(f, "cpu_node,mem_node,distance,class,size,ns,pct_over_d0_thp,verified_by,refused\n");
	for (r = 0; r < nrows; r++) {
		int c = rows[r];
		double base = class_ns(c, 0, SZ_THP, NULL, 0, NULL);

		for (m = 0; m < nr; m++)
			for_each_size(s) {
				struct cell *x = &cells[c][m][s];

				fprintf(f, "%d,%d,%d,%d,%s,", nodes[c], nodes[m], slit[c][m],
					dist_class(c, m), size_name[s]);
				if (x->done && base)
					fprintf(f, "%.2f,%.1f,%s,\n", x->ns, (x->ns / base - 1) * 100,
						verify_how[s]);
				else if (x->done)
					fprintf(f, "%.2f,,%s,\n", x->ns, verify_how[s]);
				else
					fprintf(f, ",,,\"%s\"\n", x->why);
			}
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	fputc('"', f);
}

static void print_json(FILE *f, int *rows, int nrows)
{
	struct utsname u;
	int r, m, s, first = 1;

	uname(&u);
	fprintf(f, "{\n  \"tool\": \"numa-lat\",\n  \"version\": \"%s\",\n  \"arguments\": [",
		NUMA_LAT_VERSION);
	for (m = 1; m < nargs; m++) {
		fputs(m > 1 ? ", " : "", f);
		json_str(f, args[m]);
	}
	fprintf(f, "],\n  \"kernel\": ");
	json_str(f, u.release);
	fprintf(f, ",\n  \"environment\": ");
	json_str(f, env);
	fprintf(f, ",\n  \"buffer_bytes\": %zu,\n  \"llc\": ", buf_len);
	json_str(f, llc_desc);
	fprintf(f, ",\n  \"passes\": %d,\n  \"warmup_passes\": 1,\n  \"nodes\": [", passes);
	for (m = 0; m < nr; m++)
		fprintf(f, "%s%d", m ? ", " : "", nodes[m]);
	fprintf(f, "],\n  \"slit\": [");
	for (r = 0; r < nr; r++) {
		fprintf(f, "%s[", r ? ", " : "");
		for (m = 0; m < nr; m++)
			fprintf(f, "%s%d", m ? ", " : "", slit[r][m]);
		fputc(']', f);
	}
	fprintf(f, "],\n  \"cells\": [\n");
	for (r = 0; r < nrows; r++)
		for (m = 0; m < nr; m++)
			for_each_size(s) {
				struct cell *x = &cells[rows[r]][m][s];

				fprintf(f, "%s    {\"cpu_node\": %d, \"mem_node\": %d, \"distance\": %d, \"class\": %d, \"size\": \"%s\", ",
					first ? "" : ",\n", nodes[rows[r]], nodes[m], slit[rows[r]][m],
					dist_class(rows[r], m), size_name[s]);
				if (x->done) {
					fprintf(f, "\"ns\": %.2f, \"verified_by\": ", x->ns);
					json_str(f, verify_how[s]);
				} else {
					fprintf(f, "\"ns\": null, \"refused\": ");
					json_str(f, x->why);
				}
				fputc('}', f);
				first = 0;
			}
	fprintf(f, "\n  ]\n}\n");
}

/* A cost table for the projection: % over D0 THP, from the first row. */
static void print_cost(FILE *f, int *rows)
{
	int c = rows[0], k, s;
	double base = class_ns(c, 0, SZ_THP, NULL, 0, NULL);
	struct utsname u;

	uname(&u);
	fprintf(f, "# numa-lat %s, command line: %s\n", NUMA_LAT_VERSION, cmdline);
	fprintf(f, "# Measured by numa-lat from CPU node%d on %s (kernel %s).\n", nodes[c], u.nodename, u.release);
	fprintf(f, "# environment: %s; buffer %zu MiB; best of %d passes.\n", env, buf_len >> 20, passes);
	fprintf(f, "# Folded by distance class; value = %% over D0 THP.\n");
	fprintf(f, "name numa-lat on %s (%s)\n", u.nodename, env);
	for (k = 0; k < nr_classes(c); k++)
		for_each_size(s) {
			double ns = class_ns(c, k, s, NULL, 0, NULL);

			if (ns && base)
				fprintf(f, "D%d %s %.1f\n", k, size_name[s], (ns / base - 1) * 100);
		}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: numa-lat [-s MiB] [-n passes] [-c cpu-nodes] [-t KiB] [-x] [-f table|csv|json|cost] [-o prefix]\n"
		"  -s MiB    buffer per cell (default 4 x last-level cache)\n"
		"  -n N      timed passes, best one reported (default 3, after 1 warm-up)\n"
		"  -c LIST   CPU nodes to measure from, e.g. 0 or 0-3 (default: all with CPUs)\n"
		"  -t KiB    also an mTHP size, e.g. 64 (needs it enabled in sysfs, and root)\n"
		"  -x        also print the full CPU node x memory node matrix\n"
		"  -f FMT    stdout format (default table)\n"
		"  -o PREFIX also write PREFIX.md, PREFIX.csv, PREFIX.json and PREFIX.cost\n");
	exit(2);
}

static FILE *open_out(const char *prefix, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", prefix, ext);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	const char *fmt = "table", *prefix = NULL, *clist = NULL;
	int rows[MAXN], nrows = 0, opt, r, m, s;
	bool matrix = false;
	size_t mib = 0, llc;
	int off = 0, i;

	nargs = argc;
	args = argv;
	for (i = 0; i < argc && off < (int)sizeof(cmdline); i++)
		off += snprintf(cmdline + off, sizeof(cmdline) - off, "%s%s", i ? " " : "",
				i ? argv[i] : "numa-lat");
	while ((opt = getopt(argc, argv, "s:n:c:t:xf:o:h")) != -1) {
		switch (opt) {
		case 't':
			mthp_size = strtoul(optarg, NULL, 10) << 10;
			/* a power of two from 8 KiB up to half a PMD */
			if (mthp_size < 2 * PG || mthp_size > HPG / 2 || (mthp_size & (mthp_size - 1)))
				usage();
			snprintf(mthp_name, sizeof(mthp_name), "%zuk", mthp_size >> 10);
			size_name[SZ_MTHP] = mthp_name;
			size_on[SZ_MTHP] = true;
			break;
		case 's': mib = strtoul(optarg, NULL, 10); if (!mib) usage(); break;
		case 'n': passes = atoi(optarg); if (passes < 1) usage(); break;
		case 'c': clist = optarg; break;
		case 'x': matrix = true; break;
		case 'f': fmt = optarg; break;
		case 'o': prefix = optarg; break;
		default: usage();
		}
	}
	if (strcmp(fmt, "table") && strcmp(fmt, "csv") && strcmp(fmt, "json") && strcmp(fmt, "cost"))
		usage();

	topology();
	environment();
	llc = llc_size();
	buf_len = mib ? mib << 20 : (llc ? 4 * llc : 64UL << 20);
	buf_len = (buf_len + HPG - 1) & ~(HPG - 1);
	if (!mib)
		snprintf(llc_desc + strlen(llc_desc), sizeof(llc_desc) - strlen(llc_desc), ", buffer 4x");
	if (buf_len / LINE > UINT32_MAX)
		die("buffer too large");

	if (clist) {
		int ids[MAXN], n = parse_list(clist, ids, MAXN), i, j;

		for (i = 0; i < n; i++) {
			for (j = 0; j < nr_cpu && cpu_nodes[j] != ids[i]; j++)
				;
			if (j == nr_cpu)
				die("node%d has no CPUs or no memory (CPU nodes: %d found)", ids[i], nr_cpu);
			rows[nrows++] = node_index(ids[i]);
		}
	} else {
		for (r = 0; r < nr_cpu; r++)
			rows[nrows++] = node_index(cpu_nodes[r]);
	}
	if (!nrows)
		die("no CPU node to run from");
	if (strcmp(thp_mode(), "always") && strcmp(thp_mode(), "madvise"))
		fprintf(stderr, "numa-lat: THP is '%s': the THP cells will be refused\n", thp_mode());

	make_perm(buf_len / LINE);
	measure_all(rows, nrows);

	if (!strcmp(fmt, "table")) {
		header(stdout, "# ");
		print_table(stdout, rows, nrows);
		if (matrix)
			print_matrix(stdout, rows, nrows);
		print_refusals(stdout, rows, nrows);
	} else if (!strcmp(fmt, "csv")) {
		print_csv(stdout, rows, nrows);
	} else if (!strcmp(fmt, "json")) {
		print_json(stdout, rows, nrows);
	} else {
		print_cost(stdout, rows);
	}
	if (prefix) {
		FILE *f = open_out(prefix, "md");

		header(f, "    ");
		print_table(f, rows, nrows);
		print_matrix(f, rows, nrows);
		print_refusals(f, rows, nrows);
		fclose(f);
		f = open_out(prefix, "csv");
		print_csv(f, rows, nrows);
		fclose(f);
		f = open_out(prefix, "json");
		print_json(f, rows, nrows);
		fclose(f);
		f = open_out(prefix, "cost");
		print_cost(f, rows);
		fclose(f);
	}
	/* A refused cell is a failed measurement, not a result. */
	for (r = 0; r < nrows; r++)
		for (m = 0; m < nr; m++)
			for_each_size(s)
				if (!cells[rows[r]][m][s].done)
					return 3;
	return 0;
}
