// SPDX-License-Identifier: GPL-2.0
/*
 * The placement scenarios (node states in docs/testbed.md, the epyc4
 * table in docs/results.md): put the nodes nearest to the faulting CPU
 * into FREE/FRAG/FULL states, fault a region, and check page by page that
 * most of it landed where the numa_fallback mode says.
 *
 *   thp_scenarios [-m node-first,guest,legacy] [-c cpu_node] [-s MiB]
 *                 [-n] (no MADV_HUGEPAGE: enabled=always) [-r rows]
 *                 [-k inherit|always] (64K mTHP on) [-P] (PMD THP off)
 *
 * rows: "epyc4" (the six rows of the design's table, default), "deep"
 * (rows that push the first fit to the third and fourth zonelist node),
 * "mthp" (rows for 64K mTHP: SPLIT nodes have no free 64K block left) or
 * "classes" (states by distance class, for machines of any width: the
 * design's rows moved to the nearest remote class, the middle one and
 * the farthest).
 * With -k every fault of the region may take 64K, not only the first of
 * each 2M range, and the 64K folios are checked against the mTHP
 * counters; -P turns PMD-sized THP off (hugepages-2048kB/enabled=never).
 * The expected placement comes from one function, expect(), applied to
 * the mode, the states and the zonelist order; there are no per-row
 * answers in this file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "thp_settings.h"
#include "vm_util.h"

#define MAX_ROW 4

struct row {
	enum nstate st[MAX_ROW];	/* by zonelist position from the CPU */
};

static const struct row rows_epyc4[] = {
	{ { FREE, FREE } }, { { FRAG, FREE } }, { { FULL, FREE } },
	{ { FULL, FRAG } }, { { FRAG, FRAG } }, { { FULL, FULL } },
	{ { LOW, FREE } },	/* the min-watermark attempt on the start node */
};

/* Where 2M, 64K and 4k part ways: SPLIT gives 4k only, FRAG 64K and 4k. */
static const struct row rows_mthp[] = {
	{ { FREE, FREE } }, { { FRAG, FREE } }, { { SPLIT, FREE } },
	{ { FULL, FREE } }, { { SPLIT, FRAG } }, { { FULL, SPLIT } },
	{ { SPLIT, SPLIT } }, { { FRAG, FRAG } }, { { LOW, FREE } },
};

static const struct row rows_deep[] = {
	{ { FULL, FULL, FRAG, FREE } }, { { FULL, FULL, FULL, FREE } },
	{ { FRAG, FULL, FULL, FREE } }, { { FULL, FRAG, FULL, FREE } },
	{ { FULL, FULL, FULL, FRAG } },
};

/*
 * Rows by distance class from the CPU's node, not by zonelist position: the
 * state of class 0, of the classes between it and the row's target class,
 * of the target, and of the classes beyond it.  Each row runs with the
 * target at the nearest remote class, the middle one and the farthest
 * (those that differ), so on epyc8 and sgi16 the walk is made to cross
 * one, several or every class before it finds what the row leaves.
 */
struct crow {
	enum nstate local, below, at, beyond;
};

static const struct crow rows_classes[] = {
	{ FULL, FULL, FREE, FREE },	/* the walk must reach the target */
	{ FULL, FULL, FRAG, FREE },	/* small there, or a THP beyond it */
	{ FRAG, FULL, FREE, FREE },	/* local small, or the target's THP */
	{ FULL, FULL, FRAG, FULL },	/* small pages only, at the target */
};

enum { T_NEAR, T_MID, T_FAR, NR_TARGETS };
static const char *const target_name[NR_TARGETS] = { "near", "mid", "far" };

/* The farthest class seen from @cpu_node. */
static int last_class(int cpu_node)
{
	int i, last = 0;

	for (i = 0; i < nr_nodes; i++)
		if (dist_class(cpu_node, i) > last)
			last = dist_class(cpu_node, i);
	return last;
}

/* The class of each target seen from @cpu_node, -1 for a duplicate. */
static void class_targets(int cpu_node, int *t)
{
	int last = last_class(cpu_node);

	t[T_NEAR] = last >= 1 ? 1 : -1;
	t[T_FAR] = last > 1 ? last : -1;
	t[T_MID] = (last + 1) / 2 > 1 && (last + 1) / 2 < last ? (last + 1) / 2 : -1;
}

/*
 * Whether row @k at target class @t repeats an earlier row: at the
 * farthest class nothing lies beyond, so rows that differ only there
 * are the same.
 */
static bool crow_repeats(int k, int t, int last)
{
	int j;

	for (j = 0; t == last && j < k; j++)
		if (rows_classes[j].local == rows_classes[k].local &&
		    rows_classes[j].below == rows_classes[k].below &&
		    rows_classes[j].at == rows_classes[k].at)
			return true;
	return false;
}

/* How many class rows target class @t. */
static int crows_at(int t, int last)
{
	int k, n = 0;

	for (k = 0; k < (int)ARRAY_LEN(rows_classes); k++)
		n += !crow_repeats(k, t, last);
	return n;
}

static const char *const counters[] = {
	"thp_fault_huge_local", "thp_fault_huge_remote",
	"thp_fault_small_local", "thp_fault_small_remote", "thp_fault_alloc",
	"compact_stall", "compact_isolated", "pgmigrate_success",
	"pgsteal_kswapd",
};
#define NR_COUNTERS ARRAY_LEN(counters)

/* The sizes a region may take (bits of enum psize), from -k and -P. */
static unsigned int sizes = 1u << SZ_THP;

#define MTHP_STATS THP_DIR "hugepages-64kB/stats/"
static const char *const mthp_stats[] = {
	"anon_fault_alloc", "anon_fault_fallback", "anon_fault_fallback_charge",
	"split",
};

/* Sum of numa_miss over the nodes (node<N>/numastat). */
static long numa_miss_pages(void)
{
	char path[96];
	long sum = 0, v;
	int i;

	for (i = 0; i < nr_nodes; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat", i);
		v = proc_value(path, "numa_miss");
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

static void mthp_stats_read(long *v)
{
	char path[160];
	size_t i;

	for (i = 0; i < ARRAY_LEN(mthp_stats); i++) {
		snprintf(path, sizeof(path), MTHP_STATS "%s", mthp_stats[i]);
		v[i] = read_long(path);
	}
}

/*
 * A LOW node must keep free pageblocks between its min and low watermarks,
 * and an order-9 attempt at the min watermark needs 512 pages above min:
 * more than the default gap on a guest node of 768 MiB (about 190 pages).
 * Rows with a LOW node widen the gap with watermark_scale_factor=400, so
 * that the node's target, halfway between min and low, is about 3900
 * pages above min (7 pageblocks) on a 768 MiB node.  At 200 it was about
 * 1950 (3-4 pageblocks), and in one run legacy got 50% local THP in the
 * cpu-node2 row where 6.12 got 100%: most likely the task's own page
 * table and per-cpu refills split a free pageblock (LOW's free memory is
 * whole pageblocks), leaving the second 2M fault none above min; not
 * traced.
 */
#define WSF "/proc/sys/vm/watermark_scale_factor"
static char wsf_default[32];

static void reset_states(void)
{
	int i;

	for (i = 0; i < nr_nodes; i++)
		node_state_set(i, FREE);
	if (wsf_default[0])
		write_file(WSF, wsf_default);
}

/*
 * One row: @st_in holds the state of each zonelist position from
 * @cpu_node (@n of them, as walk_order() gives), @st_s names them.
 */
static void run_row(const char *mode, bool madv, int cpu_node, size_t len,
		    const enum nstate *st_in, const char *st_s,
		    const char *rows_name)
{
	long hist[MAX_NODES][NR_SIZES], want[MAX_NODES][NR_SIZES];
	long before[NR_COUNTERS], after[NR_COUNTERS], ranges = len / HPAGE_SZ;
	long mbefore[4], mafter[4], mend[4], split = 0, rsplit = 0, m64 = 0, small = 0;
	long miss0, miss1;
	char desc[256], got_s[256], want_s[256], why[256], cls_s[96];
	char drift[512], start[512];
	int walk[MAX_NODES], n = walk_order(cpu_node, walk);
	enum nstate st[MAX_NODES];
	int i, pos, sz, cls, gcls = -1, gsz = -1, waits;
	struct placement pl;
	bool ok = true;
	char *buf;

	for (i = 0; i < n; i++)
		st[i] = st_in[i];
	snprintf(desc, sizeof(desc), "%s cpu-node%d %s %s%s%s %s", rows_name, cpu_node,
		 mode, madv ? "madvise" : "always",
		 sizes & (1u << SZ_MTHP) ? "+64K" : "",
		 sizes & (1u << SZ_THP) ? "" : "-2M", st_s);

	/*
	 * A LOW node holds a few free pageblocks above min + 512 pages: the
	 * first two 2M faults can take one each, not a whole 16 MiB region.
	 */
	for (i = 0; i < n; i++)
		if (st[i] == LOW && len > 2 * HPAGE_SZ) {
			len = 2 * HPAGE_SZ;
			ranges = 2;
		}

	/* Set FULL, FRAG and LOW nodes, then check every precondition. */
	reset_states();
	for (i = 0; i < n; i++)
		if (st[i] == LOW && wsf_default[0])
			write_file(WSF, "400");
	/*
	 * Farthest first, the CPU's node last: what this process frees on
	 * its CPU while the other nodes are set (and each set drains every
	 * CPU's lists) lands on that node, and once lifted a FULL node0
	 * 642 pages back above its low watermark after the 15 other nodes
	 * of an hpe16 row were set.
	 */
	for (i = n - 1; i >= 0; i--)
		if (st[i] != FREE && node_state_set(walk[i], st[i])) {
			tap_result(false, "%s # precondition: cannot set node%d %s (is nodestate.ko loaded?)",
				   desc, walk[i], nstate_name[st[i]]);
			reset_states();
			return;
		}
	for (i = 0; i < n; i++)
		if (!node_state_check(walk[i], st[i], why, sizeof(why))) {
			tap_result(false, "%s # precondition failed: %s", desc, why);
			reset_states();
			return;
		}

	/* what each node held when the fault began, printed if the row fails */
	start[0] = '\0';
	for (i = 0; i < n; i++) {
		struct node_mem m;

		if (st[i] != FREE && !node_mem_read(walk[i], &m))
			snprintf(start + strlen(start), sizeof(start) - strlen(start),
				 "%snode%d %ld free blocks >= 2M, %ld >= 64K, free %ld", start[0] ? "; " : "",
				 walk[i], m.huge_blocks, m.mthp_blocks, m.free);
	}
	for (i = 0; i < (int)NR_COUNTERS; i++)
		before[i] = vmstat(counters[i]);
	mthp_stats_read(mbefore);
	miss0 = numa_miss_pages();
	buf = map_aligned(len);
	if (!buf || (madv && madvise(buf, len, MADV_HUGEPAGE))) {
		tap_result(false, "%s # mmap/madvise: %s", desc, strerror(errno));
		reset_states();
		return;
	}
	for (i = 0; i < (int)(len / PAGE_SZ); i++)
		buf[i * PAGE_SZ] = 1;
	for (i = 0; i < (int)NR_COUNTERS; i++)
		after[i] = vmstat(counters[i]);
	mthp_stats_read(mafter);
	miss1 = numa_miss_pages();
	if (placement_measure_settled(buf, len, &pl, &waits)) {
		tap_result(false, "%s # cannot read placement: %s", desc, strerror(errno));
		munmap(buf, len);
		reset_states();
		return;
	}
	if (waits)
		tap_diag("%s: %d wait(s) of 100ms for pages under migration before every page had a node (%ld still without)",
			 desc, waits, pl.unplaced);
	mthp_stats_read(mend);
	/*
	 * Did a node leave its state while the region was faulted (a FULL
	 * node that kswapd refilled above low, say)?  Printed if the row
	 * fails; the states were checked before the fault.
	 */
	drift[0] = '\0';
	for (i = 0; i < n; i++)
		if (st[i] != FREE && !node_state_check(walk[i], st[i], why, sizeof(why)))
			snprintf(drift + strlen(drift), sizeof(drift) - strlen(drift),
				 "%s%s", drift[0] ? "; " : "", why);
	munmap(buf, len);
	reset_states();

	expect(mode, madv, sizes, st, walk, n, &pos, &sz);
	placement_by_class(&pl, cpu_node, hist);
	memset(want, 0, sizeof(want));
	cls = pos >= 0 ? dist_class(cpu_node, walk[pos]) : -1;
	/*
	 * A PMD fault's local attempt compacts the start node, and since
	 * 6.9 compaction migrates folios below the target order, splitting
	 * one it has no free block of the same size for: the 64K folios
	 * that earlier faults put on that node can come out as 4k pages
	 * there.  The region's own splits are the 64K folios allocated for
	 * it (anon_fault_alloc) that are no longer whole; hugepages-64kB's
	 * "split" counts those and, on 7.3, splits of page-cache folios too,
	 * so it only bounds them (read after the placement, which a split
	 * may race with).  Those pages are expected in the same class as
	 * 4k; every other page in the expected cell.
	 */
	for (i = 0; i < nr_nodes; i++) {
		m64 += pl.cnt[i][SZ_MTHP];
		small += pl.cnt[i][SZ_4K];
	}
	if (mbefore[3] >= 0)
		split = mend[3] - mbefore[3];
	if (mbefore[0] >= 0)
		rsplit = mafter[0] - mbefore[0] - m64 / 16;
	if (rsplit < 0 || rsplit > split) {
		tap_diag("%s: %ld of the region's 64K folios are no longer whole, but 64K split +%ld",
			 desc, rsplit, split);
		ok = false;
		rsplit = rsplit < 0 ? 0 : rsplit;
	}
	if (cls >= 0) {
		long moved = sz == SZ_MTHP ? rsplit * 16 : 0;

		want[cls][sz] = pl.pages - moved;
		want[cls][SZ_4K] += moved;
		if (moved)
			tap_diag("%s: %ld 64K folios split after they were mapped (64K split +%ld); compact_stall +%ld, compact_isolated +%ld, pgmigrate_success +%ld",
				 desc, rsplit, split, after[5] - before[5], after[6] - before[6],
				 after[7] - before[7]);
	}
	placement_majority(hist, &gcls, &gsz);
	if (gcls != cls || gsz != sz || pl.unplaced ||
	    (cls >= 0 && (hist[cls][sz] != want[cls][sz] ||
			  hist[cls][SZ_4K] != want[cls][SZ_4K])))
		ok = false;

	/*
	 * vmstat: one count per 2M range that took a PMD fault (none with
	 * PMD THP off), huge ones add up to thp_fault_alloc.
	 */
	if (before[0] < 0 && series_expected()) {
		tap_diag("%s: booted as a patched kernel, but /proc/vmstat has no thp_fault_* placement counters",
			 desc);
		ok = false;
	} else if (before[0] >= 0) {
		long huge = (after[0] - before[0]) + (after[1] - before[1]);
		long small = (after[2] - before[2]) + (after[3] - before[3]);
		long pmd_faults = sizes & (1u << SZ_THP) ? ranges : 0;

		if (huge + small != pmd_faults || huge != after[4] - before[4]) {
			tap_diag("%s: counters: huge %ld + small %ld != %ld faults, or huge != thp_fault_alloc %ld",
				 desc, huge, small, pmd_faults, after[4] - before[4]);
			ok = false;
		}
	}
	/*
	 * The 64K counters against the pages mapped: anon_fault_alloc gave
	 * the region's splits above (at most what "split" counted); the 4k
	 * pages that are not from those splits are the 64K blocks faulted in
	 * 4k pages, one anon_fault_fallback each (its first fault tried 64K);
	 * no failed charges (no memcg limit here).  Without -k, nothing may
	 * move them.
	 */
	if (mbefore[0] >= 0) {
		small -= rsplit * 16;
		if (!(sizes & (1u << SZ_MTHP)))
			small = 0;
		if (mafter[1] - mbefore[1] != small / 16 ||
		    mafter[2] != mbefore[2]) {
			tap_diag("%s: 64K counters: alloc %ld (mapped %ld folios, %ld split since), fallback %ld (blocks faulted in 4k %ld), fallback_charge %ld",
				 desc, mafter[0] - mbefore[0], m64 / 16, rsplit,
				 mafter[1] - mbefore[1], small / 16,
				 mafter[2] - mbefore[2]);
			ok = false;
		}
	}
	/*
	 * A folio from another node than the CPU's counts one numa_miss
	 * there (6.12 counts allocations, not pages), as for one allocation
	 * from the CPU's node: at least as many numa_miss as remote folios
	 * mapped (page tables and the like only add to it).
	 */
	if (miss0 >= 0 && miss1 >= 0) {
		long remote = 0;

		for (i = 0; i < nr_nodes; i++)
			if (i != cpu_node)
				remote += pl.cnt[i][SZ_THP] / 512 +
					  pl.cnt[i][SZ_MTHP] / 16 + pl.cnt[i][SZ_4K];
		if (miss1 - miss0 < remote) {
			tap_diag("%s: numa_miss +%ld, fewer than the %ld remote folios mapped",
				 desc, miss1 - miss0, remote);
			ok = false;
		}
	}
	placement_format(hist, pl.pages, got_s, sizeof(got_s));
	placement_format(want, pl.pages, want_s, sizeof(want_s));
	if (!ok) {
		tap_diag("got:      %s%s", got_s, pl.unplaced ? " (some pages not placed)" : "");
		tap_diag("expected: %s", want_s);
		tap_diag("pages: %ld in the expected cell of %ld expected, %ld 4k beside it of %ld; %ld in all, %ld without a node",
			 cls >= 0 ? hist[cls][sz] : 0, cls >= 0 ? want[cls][sz] : 0,
			 cls >= 0 ? hist[cls][SZ_4K] : 0, cls >= 0 ? want[cls][SZ_4K] : 0,
			 pl.pages, pl.unplaced);
		tap_diag("at the start: %s", start[0] ? start : "every node FREE");
		tap_diag("pgsteal_kswapd +%ld during the fault; after it: %s",
			 after[8] - before[8], drift[0] ? drift : "every node still in its state");
	}
	tap_result(ok, "%s -> %s D%d %s", desc, ok ? "" : "expected", cls, psize_name[sz]);
	/*
	 * Machine-readable line for the bench and report tools; the last
	 * field is the distance class of each zonelist position, which the
	 * report needs to work out the best placement the states allowed.
	 */
	for (i = 0, cls_s[0] = '\0'; i < n; i++)
		snprintf(cls_s + strlen(cls_s), sizeof(cls_s) - strlen(cls_s), "%s%d",
			 i ? "," : "", dist_class(cpu_node, walk[i]));
	printf("# placement %s%s%s|%s|%d|%s|%s|%s|%s\n", rows_name,
	       sizes & (1u << SZ_MTHP) ? "+64K" : "",
	       sizes & (1u << SZ_THP) ? "" : "-2M", mode, cpu_node,
	       madv ? "madvise" : "always", st_s, got_s, cls_s);
}

/* A row of rows_epyc4, rows_deep or rows_mthp: states by position. */
static void position_row(const char *mode, bool madv, int cpu_node, size_t len,
			 const struct row *r, int depth, const char *rows_name)
{
	int walk[MAX_NODES], n = walk_order(cpu_node, walk), i;
	enum nstate st[MAX_NODES];
	char st_s[64] = "";

	for (i = 0; i < n; i++)
		st[i] = i < depth ? r->st[i] : FREE;
	for (i = 0; i < depth; i++)
		snprintf(st_s + strlen(st_s), sizeof(st_s) - strlen(st_s), "%s%s",
			 i ? "," : "", nstate_name[r->st[i]]);
	if (depth > n) {
		tap_skipped("topology has fewer nodes than the row",
			    "%s cpu-node%d %s %s", rows_name, cpu_node, mode, st_s);
		return;
	}
	run_row(mode, madv, cpu_node, len, st, st_s, rows_name);
}

/*
 * Row @k of the class rows (rows_classes for each target that is not a
 * duplicate, in target order): its states by class, mapped onto the
 * zonelist positions; named "classes-TARGET" with the states of classes
 * 0, 1, ... joined by '/'.
 */
static void class_row(const char *mode, bool madv, int cpu_node, size_t len,
		      int k, const int *targets)
{
	int walk[MAX_NODES], n = walk_order(cpu_node, walk), i, t, c, j;
	int last = last_class(cpu_node);
	enum nstate st[MAX_NODES], by_class[MAX_NODES];
	const struct crow *r = NULL;
	char st_s[128] = "", name[32];

	for (t = 0; t < NR_TARGETS && !r; t++) {
		if (targets[t] < 0)
			continue;
		for (j = 0; j < (int)ARRAY_LEN(rows_classes) && !r; j++)
			if (!crow_repeats(j, targets[t], last) && !k--)
				r = &rows_classes[j];
	}
	t--;
	for (c = 0; c <= last; c++) {
		by_class[c] = !c ? r->local : c < targets[t] ? r->below :
			      c == targets[t] ? r->at : r->beyond;
		snprintf(st_s + strlen(st_s), sizeof(st_s) - strlen(st_s), "%s%s",
			 c ? "/" : "", nstate_name[by_class[c]]);
	}
	for (i = 0; i < n; i++)
		st[i] = by_class[dist_class(cpu_node, walk[i])];
	snprintf(name, sizeof(name), "classes-%s", target_name[t]);
	run_row(mode, madv, cpu_node, len, st, st_s, name);
}

int main(int argc, char **argv)
{
	const char *modes = NULL, *rows_name = "epyc4", *m64 = NULL;
	const struct row *rows = rows_epyc4;
	int nrows = ARRAY_LEN(rows_epyc4), depth = 2;
	int cpu_node = 0, opt, m, r, t, nmodes = 0, targets[NR_TARGETS];
	bool madvise = true, pmd = true;
	size_t mib = 16;
	char *mode_v[4];

	while ((opt = getopt(argc, argv, "m:c:s:nr:k:P")) != -1) {
		switch (opt) {
		case 'm': modes = optarg; break;
		case 'c': cpu_node = atoi(optarg); break;
		case 's': mib = strtoul(optarg, NULL, 10); break;
		case 'n': madvise = false; break;
		case 'k':
			if (strcmp(optarg, "inherit") && strcmp(optarg, "always")) {
				fprintf(stderr, "-k takes inherit or always, not '%s'\n", optarg);
				return 2;
			}
			m64 = optarg;
			break;
		case 'P': pmd = false; break;
		case 'r':
			rows_name = optarg;
			if (!strcmp(optarg, "deep")) {
				rows = rows_deep;
				nrows = ARRAY_LEN(rows_deep);
				depth = 4;
			} else if (!strcmp(optarg, "mthp")) {
				rows = rows_mthp;
				nrows = ARRAY_LEN(rows_mthp);
			} else if (!strcmp(optarg, "classes")) {
				rows = NULL;
				nrows = 0;	/* by topology, below */
			} else if (strcmp(optarg, "epyc4")) {
				fprintf(stderr, "unknown rows '%s' (epyc4, deep, mthp, classes)\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-m modes] [-c cpu_node] [-s MiB] [-n] [-r epyc4|deep|mthp|classes] [-k inherit|always] [-P]\n", argv[0]);
			return 2;
		}
	}
	nmodes = parse_modes(modes, mode_v, 4);
	if (!pmd && !m64) {
		fprintf(stderr, "-P (PMD THP off) needs -k: a region with no THP size tests nothing here\n");
		return 2;
	}
	sizes = (pmd ? 1u << SZ_THP : 0) | (m64 ? 1u << SZ_MTHP : 0);

	if (topo_init() < 2 || cpu_node >= nr_nodes) {
		tap_plan(1);
		tap_skipped("needs a NUMA guest with the CPU node present", "thp_scenarios");
		return 0;
	}
	{
		int walk[MAX_NODES], n = walk_order(cpu_node, walk), i;
		char w[96] = "";

		for (i = 0; i < n; i++)
			snprintf(w + strlen(w), sizeof(w) - strlen(w), " %d", walk[i]);
		tap_diag("fallback order from node%d:%s (%s)", cpu_node, w,
			 kernel_walk_order(cpu_node, walk) == n ? "kernel boot log" :
			 "SLIT, then node id: boot log message not found");
	}
	if (!rows) {
		class_targets(cpu_node, targets);
		for (t = 0; t < NR_TARGETS; t++)
			nrows += targets[t] >= 0 ?
				 crows_at(targets[t], last_class(cpu_node)) : 0;
	}
	tap_plan(nmodes * nrows);
	if (node_first_cpu(cpu_node) < 0) {
		for (m = 0; m < nmodes * nrows; m++)
			tap_skipped("CPU-less node", "node%d has no CPU", cpu_node);
		return tap_finish();
	}
	scenario_env(madvise ? "madvise" : "always", cpu_node);
	if (m64 && (thp_set("hugepages-64kB/enabled", m64) ||
		    (!pmd && thp_set("hugepages-2048kB/enabled", "never")))) {
		for (m = 0; m < nmodes * nrows; m++)
			tap_skipped("no 64K mTHP control (hugepages-64kB)", "%s", rows_name);
		return tap_finish();
	}
	if (!m64)
		thp_set("hugepages-64kB/enabled", "never");
	if (!read_file(WSF, wsf_default, sizeof(wsf_default)))
		sysctl_set(WSF, wsf_default);	/* restored at exit */

	for (m = 0; m < nmodes; m++) {
		bool can = have_numa_fallback() ? !thp_set("numa_fallback", mode_v[m])
						: !strcmp(mode_v[m], "legacy");

		for (r = 0; r < nrows; r++) {
			if (!can && have_numa_fallback()) {
				tap_result(false, "%s %s: numa_fallback refused the mode",
					   rows_name, mode_v[m]);
				continue;
			}
			if (!can) {
				tap_skipped("unpatched kernel: no numa_fallback",
					    "%s %s", rows_name, mode_v[m]);
				continue;
			}
			if (rows)
				position_row(mode_v[m], madvise, cpu_node, mib << 20,
					     &rows[r], depth, rows_name);
			else
				class_row(mode_v[m], madvise, cpu_node, mib << 20,
					  r, targets);
		}
	}
	return tap_finish();
}
