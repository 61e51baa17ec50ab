/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the guest tests (vm_util.c): kselftest-style TAP,
 * topology, node states, page-by-page placement, /proc counters, timing,
 * and expect(), the one function that says where a fault should land.
 */
#ifndef THP_NUMA_VM_UTIL_H
#define THP_NUMA_VM_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#define PAGE_SZ		4096UL
#define HPAGE_SZ	(2UL << 20)
#define MAX_NODES	16
#define MPOL_BIND_	2	/* <numaif.h> is not in the guest image */
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* TAP */
void tap_plan(int n);
void tap_diag(const char *fmt, ...);
void tap_result(bool ok, const char *fmt, ...);
void tap_skipped(const char *why, const char *fmt, ...);
int tap_finish(void);

/* topology */
extern int nr_nodes;			/* nodes with memory, 0..nr_nodes-1 */

long node_meminfo_kb(int nid, const char *field);
int topo_init(void);
int dist_class(int cpu_node, int mem_node);
int kernel_walk_order(int from, int *order);
int walk_order(int from, int *order);
int node_first_cpu(int node);
int run_on_node(int node);
char kswapd_state(int nid);
unsigned long kswapds_settle(int ms);

/* node states (mm-tests/nodestate module) */
enum nstate { FREE, FRAG, FULL, LOW, SPLIT };
extern const char *const nstate_name[];

/*
 * Free blocks of at least pageblock order on @node that a normal
 * allocation could use (HighAtomic and Isolate blocks do not count), and
 * free/low watermark pages of its largest zone, from /proc.
 */
struct node_mem {
	long huge_blocks;
	long mthp_blocks;	/* free blocks of 64K (order 4) or more */
	long free, low, min, high;
};

int node_state_set(int node, enum nstate s);
void scenario_env(const char *enabled, int cpu_node);
int node_mem_read(int node, struct node_mem *m);
long node_pcp_pages(int nid);
bool node_state_check(int node, enum nstate s, char *why, size_t len);

/* page-by-page placement */
enum psize { SZ_4K, SZ_MTHP, SZ_THP, NR_SIZES };
extern const char *const psize_name[];

struct placement {
	long pages;				/* 4k pages looked at */
	long cnt[MAX_NODES][NR_SIZES];		/* by node and size */
	long unplaced;				/* not present or no node */
};

int placement_measure(void *addr, size_t len, struct placement *pl);
int placement_measure_settled(void *addr, size_t len,
			      struct placement *pl, int *waits);
void placement_by_class(const struct placement *pl, int cpu_node,
			long hist[MAX_NODES][NR_SIZES]);
void placement_majority(long hist[MAX_NODES][NR_SIZES], int *cls, int *sz);
char *placement_format(long hist[MAX_NODES][NR_SIZES], long total,
		       char *buf, size_t len);
void *map_aligned(size_t len);

/* /proc counters */
long proc_value(const char *path, const char *name);
long vmstat(const char *name);
void vmstat_many(const char *const *names, int n, long *v);

/* timing and quantiles */
double now_ns(void);
int cmp_double(const void *a, const void *b);
double pct(double *v, int n, double p);

/* "-m a,b,c", else every mode the kernel offers */
int parse_modes(const char *arg, char **v, int max);

/* the expected placement */
void expect(const char *mode, bool madvise, unsigned int sizes,
	    const enum nstate *st, const int *walk, int n,
	    int *pos, int *sz);

#endif /* THP_NUMA_VM_UTIL_H */
