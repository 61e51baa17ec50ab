// SPDX-License-Identifier: GPL-2.0
/*
 * Processes with different THP NUMA fallback orders side by side, in one
 * boot and one node state (PR_SET_THP_NUMA_FALLBACK, kernel-patches/0010).
 * The nodes nearest the CPU are put in the row's states once (FRAG,FREE by
 * default: node-first keeps a local 4k page, legacy and guest take the next
 * node's THP).  Then four processes are started through thp-numa-exec, one
 * per setting (legacy, node-first, guest, default), and fault a 16 MiB
 * MADV_HUGEPAGE region each, one after another, each keeping its region
 * until all have faulted.  Each must land where expect() puts its own mode
 * (the knob's, for the one left at default), checked page by page, whatever
 * numa_fallback says: the whole test runs once per knob value.
 *
 *   thp_permm [-k knob,...] [-r FRAG,FREE] [-c cpu_node] [-s MiB] [-n] [-x launcher]
 *
 * -n: no MADV_HUGEPAGE (enabled=always, defrag=madvise), where legacy
 * keeps a local 4k page and guest still takes the next node's THP: with
 * and without it, the three modes each get a placement of their own.
 * -x names the launcher (default: thp-numa-exec on PATH).  A process that
 * cannot be started, or reads back another setting than it was given,
 * fails its line.  Node states are checked before each process faults; a
 * node that left its state (kswapd refilling it, say) fails the line that
 * would have measured it, and nothing is set again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "thp_settings.h"
#include "vm_util.h"

/* kernel-patches/0010's ABI, for headers of a kernel without the series */
#ifndef PR_GET_THP_NUMA_FALLBACK
#define PR_GET_THP_NUMA_FALLBACK 83
#endif

/* the processes, in the order they fault; "default" follows the knob */
static const char *const procs[] = { "legacy", "node-first", "guest", "default" };
#define NR_PROCS ARRAY_LEN(procs)

struct report {
	int err;		/* 0, or what went wrong in the child (errno) */
	int prctl_mode;		/* PR_GET_THP_NUMA_FALLBACK as the child saw it */
	struct placement pl;
};

struct child {
	pid_t pid;
	int go;			/* write end: one byte starts the fault, EOF ends it */
	int rep;		/* read end: struct report */
};

static int prctl_value(const char *mode)
{
	static const char *const v[] = { "default", "legacy", "node-first", "guest" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(v); i++)
		if (!strcmp(mode, v[i]))
			return i;
	return -1;
}

/* The child, after thp-numa-exec: fd 3 says when, fd 4 takes the report. */
static int child_main(size_t len, bool madv)
{
	struct report r = { .prctl_mode = prctl(PR_GET_THP_NUMA_FALLBACK, 0, 0, 0, 0) };
	char c;
	char *buf;
	size_t i;
	int waits;

	if (read(3, &c, 1) != 1)
		return 1;
	buf = map_aligned(len);
	if (!buf || (madv && madvise(buf, len, MADV_HUGEPAGE))) {
		r.err = errno;
	} else {
		for (i = 0; i < len / PAGE_SZ; i++)
			buf[i * PAGE_SZ] = 1;
		if (placement_measure_settled(buf, len, &r.pl, &waits))
			r.err = errno;
	}
	if (write(4, &r, sizeof(r)) != sizeof(r))
		return 1;
	/* keep the region until the parent has measured every process */
	while (read(3, &c, 1) > 0)
		;
	return 0;
}

static int spawn(const char *launcher, const char *self, const char *mode,
		 size_t mib, bool madv, struct child *ch)
{
	int go[2], rep[2];
	char smib[32];

	/*
	 * Close-on-exec, so that no process holds another's pipe (nor its
	 * own "go" write end, whose EOF tells it to end) past the launcher.
	 */
	if (pipe2(go, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		return -errno;
	snprintf(smib, sizeof(smib), "%zu", mib);
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (!ch->pid) {
		/* via fds above 4: either end may itself be fd 3 or 4 */
		int g = fcntl(go[0], F_DUPFD_CLOEXEC, 10);
		int r = fcntl(rep[1], F_DUPFD_CLOEXEC, 10);

		if (g < 0 || r < 0 || dup2(g, 3) < 0 || dup2(r, 4) < 0)
			_exit(126);
		execlp(launcher, launcher, "--mode", mode, "--", self, "--child",
		       smib, madv ? "madvise" : "always", (char *)NULL);
		fprintf(stderr, "thp_permm: %s: %s\n", launcher, strerror(errno));
		_exit(127);
	}
	close(go[0]);
	close(rep[1]);
	ch->go = go[1];
	ch->rep = rep[0];
	return 0;
}

static void set_states(const enum nstate *st, const int *walk, int n)
{
	int i;

	for (i = 0; i < n; i++)
		node_state_set(walk[i], FREE);
	for (i = 0; i < n; i++)
		if (st[i] != FREE)
			node_state_set(walk[i], st[i]);
}

static bool states_hold(const enum nstate *st, const int *walk, int n,
			char *why, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (!node_state_check(walk[i], st[i], why, len))
			return false;
	return true;
}

static int parse_row(const char *arg, enum nstate *st, int max)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int n = 0, s;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (s = 0; s <= SPLIT; s++)
			if (!strcmp(tok, nstate_name[s]))
				break;
		if (s > SPLIT || n == max) {
			free(copy);
			return -1;
		}
		st[n++] = s;
	}
	free(copy);
	return n;
}

static void run_knob(const char *knob, const char *launcher, const char *self,
		     const enum nstate *row, int depth, int cpu_node, size_t mib,
		     bool madv)
{
	int walk[MAX_NODES], n = walk_order(cpu_node, walk), i, pos, sz, cls, gcls, gsz;
	long hist[MAX_NODES][NR_SIZES];
	enum nstate st[MAX_NODES];
	struct child ch[NR_PROCS];
	char st_s[64] = "", desc[160], why[256], got[256];
	int started[NR_PROCS];
	size_t p;

	for (i = 0; i < n; i++)
		st[i] = i < depth ? row[i] : FREE;
	for (i = 0; i < depth; i++)
		snprintf(st_s + strlen(st_s), sizeof(st_s) - strlen(st_s), "%s%s",
			 i ? "," : "", nstate_name[st[i]]);

	if (thp_set("numa_fallback", knob)) {
		for (p = 0; p < NR_PROCS; p++)
			tap_result(false, "knob %s, process %s: numa_fallback refused %s",
				   knob, procs[p], knob);
		return;
	}
	set_states(st, walk, n);
	for (p = 0; p < NR_PROCS; p++)
		started[p] = spawn(launcher, self, procs[p], mib, madv, &ch[p]);

	for (p = 0; p < NR_PROCS; p++) {
		const char *eff = strcmp(procs[p], "default") ? procs[p] : knob;
		struct report r;
		bool ok = true;

		snprintf(desc, sizeof(desc), "knob %s, process %s (thp-numa-exec --mode %s) cpu-node%d %s %s",
			 knob, procs[p], procs[p], cpu_node, madv ? "madvise" : "always", st_s);
		if (started[p]) {
			tap_result(false, "%s # cannot start it: %s", desc, strerror(-started[p]));
			continue;
		}
		if (!states_hold(st, walk, n, why, sizeof(why))) {
			tap_result(false, "%s # a node left its state before this process faulted: %s",
				   desc, why);
			continue;
		}
		if (write(ch[p].go, "g", 1) != 1 ||
		    read(ch[p].rep, &r, sizeof(r)) != sizeof(r)) {
			tap_result(false, "%s # the process ended without a report (did the launcher run it?)",
				   desc);
			continue;
		}
		if (r.err) {
			tap_result(false, "%s # in the process: %s", desc, strerror(r.err));
			continue;
		}
		if (r.prctl_mode != prctl_value(procs[p])) {
			tap_diag("%s: PR_GET_THP_NUMA_FALLBACK gave %d in the process, set %d",
				 desc, r.prctl_mode, prctl_value(procs[p]));
			ok = false;
		}
		expect(eff, madv, 1u << SZ_THP, st, walk, n, &pos, &sz);
		cls = pos >= 0 ? dist_class(cpu_node, walk[pos]) : -1;
		placement_by_class(&r.pl, cpu_node, hist);
		placement_majority(hist, &gcls, &gsz);
		placement_format(hist, r.pl.pages, got, sizeof(got));
		if (cls < 0 || gcls != cls || gsz != sz || r.pl.unplaced ||
		    hist[cls][sz] != r.pl.pages)
			ok = false;
		if (!ok)
			tap_diag("%s: got %s%s, expected all of it D%d %s", desc, got,
				 r.pl.unplaced ? " (some pages not placed)" : "",
				 cls, psize_name[sz]);
		tap_result(ok, "%s -> %s D%d %s", desc, ok ? "" : "expected", cls,
			   psize_name[sz]);
		/* for make bench and make results: knob|process|states|placement */
		printf("# permm %s|%s|%d|%s|%s|%s\n", knob, procs[p], cpu_node,
		       madv ? "madvise" : "always", st_s, got);
	}

	for (p = 0; p < NR_PROCS; p++) {
		int status;

		if (started[p])
			continue;
		close(ch[p].go);
		close(ch[p].rep);
		if (waitpid(ch[p].pid, &status, 0) != ch[p].pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			tap_diag("knob %s, process %s: exit status %#x", knob, procs[p], status);
	}
	for (i = 0; i < n; i++)
		node_state_set(walk[i], FREE);
}

int main(int argc, char **argv)
{
	const char *knobs = "legacy,node-first,guest", *launcher = "thp-numa-exec";
	const char *row_s = "FRAG,FREE";
	enum nstate row[4];
	char self[4096], *knob_v[4];
	int opt, cpu_node = 0, depth, nknobs, k;
	size_t mib = 16;
	bool madv = true;
	ssize_t l;

	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child_main(strtoul(argv[2], NULL, 10) << 20,
				  !strcmp(argv[3], "madvise"));

	while ((opt = getopt(argc, argv, "k:r:c:s:x:n")) != -1) {
		switch (opt) {
		case 'n': madv = false; break;
		case 'k': knobs = optarg; break;
		case 'r': row_s = optarg; break;
		case 'c': cpu_node = atoi(optarg); break;
		case 's': mib = strtoul(optarg, NULL, 10); break;
		case 'x': launcher = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-k knob,...] [-r FRAG,FREE] [-c cpu_node] [-s MiB] [-n] [-x launcher]\n",
				argv[0]);
			return 2;
		}
	}
	depth = parse_row(row_s, row, ARRAY_LEN(row));
	if (depth < 1) {
		fprintf(stderr, "-r takes up to 4 node states (FREE, FRAG, FULL, LOW, SPLIT), not '%s'\n", row_s);
		return 2;
	}
	nknobs = parse_modes(knobs, knob_v, 4);
	l = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (l < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[l] = '\0';

	if (topo_init() < 2 || cpu_node >= nr_nodes || depth > nr_nodes) {
		tap_plan(1);
		tap_skipped("needs a NUMA guest with as many nodes as the row", "thp_permm");
		return 0;
	}
	tap_plan(nknobs * NR_PROCS);
	if (!have_numa_fallback()) {
		for (k = 0; k < nknobs * (int)NR_PROCS; k++)
			tap_result(false, "thp_permm: no numa_fallback knob: not a patched kernel");
		return tap_finish();
	}
	if (node_first_cpu(cpu_node) < 0) {
		for (k = 0; k < nknobs * (int)NR_PROCS; k++)
			tap_skipped("CPU-less node", "node%d has no CPU", cpu_node);
		return tap_finish();
	}
	/* a process that never started must fail its line, not end the test */
	signal(SIGPIPE, SIG_IGN);
	scenario_env(madv ? "madvise" : "always", cpu_node);
	thp_set("hugepages-64kB/enabled", "never");
	for (k = 0; k < nknobs; k++)
		run_knob(knob_v[k], launcher, self, row, depth, cpu_node, mib, madv);
	return tap_finish();
}
