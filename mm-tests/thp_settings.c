// SPDX-License-Identifier: GPL-2.0
/*
 * THP sysfs knobs and vm sysctls: read and written, saved once and
 * restored at exit (and on a fatal signal), and whether the kernel is
 * one that carries the series.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thp_settings.h"
#include "vm_util.h"

/* ---- small sysfs helpers ------------------------------------------------ */

int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

/* The number in a one-value file (a sysctl, a sysfs counter), or -1. */
long read_long(const char *path)
{
	char buf[64];

	return read_file(path, buf, sizeof(buf)) ? -1 : atol(buf);
}

int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* "always [madvise] never" -> "madvise" */
void bracketed(const char *in, char *out, size_t len)
{
	const char *a = strchr(in, '['), *b = a ? strchr(a, ']') : NULL;

	if (!a || !b || (size_t)(b - a) > len) {
		snprintf(out, len, "%.*s", (int)len - 1, in);
		return;
	}
	snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

/* ---- THP settings, saved once and restored at exit ---------------------- */

const char *const thp_knobs[] = {
	"enabled", "defrag", "numa_fallback",
	"hugepages-64kB/enabled", "hugepages-2048kB/enabled",
	"khugepaged/pages_to_scan", "khugepaged/scan_sleep_millisecs",
	"khugepaged/alloc_sleep_millisecs", "khugepaged/defrag",
	"khugepaged/max_ptes_none",
};
static char thp_saved[ARRAY_LEN(thp_knobs)][64];
static bool thp_have[ARRAY_LEN(thp_knobs)];

/* Put one knob back to the value thp_save() found; -1 if it had none. */
int thp_restore_knob(const char *knob)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(thp_knobs); i++)
		if (!strcmp(thp_knobs[i], knob))
			return thp_have[i] ? thp_set(knob, thp_saved[i]) : -1;
	return -1;
}

static void thp_restore(void)
{
	char path[128];
	size_t i;

	for (i = 0; i < ARRAY_LEN(thp_knobs); i++) {
		if (!thp_have[i])
			continue;
		snprintf(path, sizeof(path), THP_DIR "%s", thp_knobs[i]);
		write_file(path, thp_saved[i]);
	}
}

static void thp_restore_on_signal(int sig)
{
	thp_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

void thp_save(void)
{
	char path[128], buf[256];
	size_t i;

	for (i = 0; i < ARRAY_LEN(thp_knobs); i++) {
		snprintf(path, sizeof(path), THP_DIR "%s", thp_knobs[i]);
		if (read_file(path, buf, sizeof(buf)))
			continue;
		bracketed(buf, thp_saved[i], sizeof(thp_saved[i]));
		thp_have[i] = true;
	}
	atexit(thp_restore);
	signal(SIGINT, thp_restore_on_signal);
	signal(SIGTERM, thp_restore_on_signal);
	signal(SIGSEGV, thp_restore_on_signal);
	signal(SIGABRT, thp_restore_on_signal);
}

/* Guest sysctls the tests change, restored at exit like the THP knobs. */
#define MAX_SYSCTL 8
static char sysctl_path[MAX_SYSCTL][96], sysctl_old[MAX_SYSCTL][64];
static int nr_sysctl;

void sysctl_restore(void)
{
	while (nr_sysctl > 0) {
		nr_sysctl--;
		write_file(sysctl_path[nr_sysctl], sysctl_old[nr_sysctl]);
	}
}

int sysctl_set(const char *path, const char *val)
{
	char buf[64];

	if (nr_sysctl == MAX_SYSCTL || read_file(path, buf, sizeof(buf)))
		return -1;
	snprintf(sysctl_path[nr_sysctl], sizeof(sysctl_path[0]), "%s", path);
	snprintf(sysctl_old[nr_sysctl], sizeof(sysctl_old[0]), "%s", buf);
	if (!nr_sysctl++)
		atexit(sysctl_restore);
	return write_file(path, val);
}

int thp_set(const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), THP_DIR "%s", knob);
	return write_file(path, val);
}

/*
 * Whether the kernel was booted as one that carries the series: the test
 * bed's run-guest puts "thpnuma.series=1" on the command line of a
 * patched or debug kernel and "thpnuma.series=0" on an unpatched one.
 * There a missing knob or counter of the series is a failure, never a
 * skip or a quiet run of legacy alone.  Without either word (a kernel
 * booted by other means), the tests take the kernel as it comes.
 */
bool series_expected(void)
{
	char buf[4096];

	return !read_file("/proc/cmdline", buf, sizeof(buf)) &&
	       strstr(buf, "thpnuma.series=1");
}

bool have_numa_fallback(void)
{
	if (access(THP_DIR "numa_fallback", F_OK) == 0)
		return true;
	if (series_expected()) {
		printf("Bail out! booted as a patched kernel (thpnuma.series=1), but %snuma_fallback is missing\n",
		       THP_DIR);
		exit(1);
	}
	return false;
}

/* Switch numa_fallback; a kernel without the knob runs legacy only. */
bool fallback_mode_set(const char *mode)
{
	return have_numa_fallback() ? !thp_set("numa_fallback", mode) : !strcmp(mode, "legacy");
}
