// SPDX-License-Identifier: GPL-2.0
/*
 * thp-numa-exec: run a program with its own THP NUMA fallback order, as
 * numactl runs one with its own memory policy.  The order is set with
 * PR_SET_THP_NUMA_FALLBACK (kernel-patches/0010), which fork inherits and
 * execve keeps, so the program and its children fault with it whatever
 * /sys/kernel/mm/transparent_hugepage/numa_fallback says:
 *
 *   thp-numa-exec --mode guest -- qemu-system-x86_64 ...
 *   thp-numa-exec -m node-first -- ./latency-bound-server
 *
 * Modes: default (follow the knob), legacy, node-first, guest.
 * Exit status: 2 for bad usage, 1 when the kernel refuses the setting,
 * 126 or 127 when the program cannot be run (as env(1)); otherwise the
 * program's own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <linux/prctl.h>

/* For kernel headers older than the series: the numbers are its ABI. */
#ifndef PR_SET_THP_NUMA_FALLBACK
#define PR_SET_THP_NUMA_FALLBACK	82
#define PR_GET_THP_NUMA_FALLBACK	83
#define PR_THP_NUMA_FALLBACK_DEFAULT	0
#define PR_THP_NUMA_FALLBACK_LEGACY	1
#define PR_THP_NUMA_FALLBACK_NODE_FIRST	2
#define PR_THP_NUMA_FALLBACK_GUEST	3
#endif

static const char *const modes[] = {
	[PR_THP_NUMA_FALLBACK_DEFAULT]		= "default",
	[PR_THP_NUMA_FALLBACK_LEGACY]		= "legacy",
	[PR_THP_NUMA_FALLBACK_NODE_FIRST]	= "node-first",
	[PR_THP_NUMA_FALLBACK_GUEST]		= "guest",
};

static void usage(FILE *f)
{
	fprintf(f, "usage: thp-numa-exec --mode MODE [--] PROGRAM [ARG...]\n"
		   "  MODE: default (follow numa_fallback), legacy, node-first or guest\n"
		   "  Runs PROGRAM with that THP NUMA fallback order "
		   "(PR_SET_THP_NUMA_FALLBACK), kept by its children.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, mode = -1;
	size_t i;

	/* "+": options end at PROGRAM, whose own options are its own */
	while ((opt = getopt_long(argc, argv, "+m:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
				if (!strcmp(optarg, modes[i]))
					mode = i;
			if (mode < 0) {
				fprintf(stderr, "thp-numa-exec: unknown mode '%s' (default, legacy, node-first, guest)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (mode < 0 || optind >= argc) {
		fprintf(stderr, "thp-numa-exec: %s\n", mode < 0 ? "--mode is required" : "no program to run");
		usage(stderr);
		return 2;
	}
	if (prctl(PR_SET_THP_NUMA_FALLBACK, (unsigned long)mode, 0UL, 0UL, 0UL)) {
		if (errno == EINVAL)
			fprintf(stderr, "thp-numa-exec: this kernel has no per-process THP NUMA fallback order (PR_SET_THP_NUMA_FALLBACK needs the series, CONFIG_NUMA and THP)\n");
		else
			fprintf(stderr, "thp-numa-exec: PR_SET_THP_NUMA_FALLBACK: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "thp-numa-exec: %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
