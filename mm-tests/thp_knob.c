// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/transparent_hugepage/numa_fallback: the values it offers,
 * the active one in brackets, -EINVAL for anything else with the value
 * left alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "thp_settings.h"
#include "vm_util.h"

static const char *const good[] = { "legacy", "node-first", "guest" };
static const char *const bad[] = {
	"\n", "foo", "node-first2", "node", "legacy guest", "LEGACY", "[guest]",
};

static bool active_is(const char *want, char *got, size_t len)
{
	char buf[256];

	if (read_file(THP_DIR "numa_fallback", buf, sizeof(buf)))
		return false;
	bracketed(buf, got, len);
	return !strcmp(got, want);
}

int main(int argc, char **argv)
{
	char buf[256], got[64];
	unsigned int i;
	int fd;

	tap_plan(3 + ARRAY_LEN(good) + ARRAY_LEN(bad));
	if (!have_numa_fallback()) {
		for (i = 0; i < 3 + ARRAY_LEN(good) + ARRAY_LEN(bad); i++)
			tap_skipped("no numa_fallback (unpatched kernel)", "numa_fallback %u", i);
		return tap_finish();
	}
	thp_save();

	read_file(THP_DIR "numa_fallback", buf, sizeof(buf));
	tap_result(!strcmp(buf, "legacy [node-first] guest") ||
		   (argc > 1 && strstr(buf, argv[1])),
		   "default reads 'legacy [node-first] guest' (got '%s')", buf);
	tap_result(strstr(buf, "legacy") && strstr(buf, "node-first") && strstr(buf, "guest"),
		   "offers legacy, node-first and guest");

	for (i = 0; i < ARRAY_LEN(good); i++) {
		int ret = thp_set("numa_fallback", good[i]);

		tap_result(!ret && active_is(good[i], got, sizeof(got)),
			   "write '%s' selects it (ret %d, active '%s')", good[i], ret, got);
	}

	thp_set("numa_fallback", "guest");
	for (i = 0; i < ARRAY_LEN(bad); i++) {
		ssize_t n;

		fd = open(THP_DIR "numa_fallback", O_WRONLY);
		n = write(fd, bad[i], strlen(bad[i]));
		close(fd);
		tap_result((n < 0 && errno == EINVAL) && active_is("guest", got, sizeof(got)),
			   "write '%s' gets EINVAL and keeps 'guest' (ret %zd, active '%s')",
			   bad[i][0] == '\n' ? "\\n" : bad[i], n, got);
	}

	/* With a trailing newline, as echo writes it. */
	tap_result(!thp_set("numa_fallback", "legacy\n") && active_is("legacy", got, sizeof(got)),
		   "'legacy\\n' (echo) is accepted");
	return tap_finish();
}
