#!/bin/sh
# Guest side: report the boot-time KUnit suite SUITE from the kernel log as
# TAP lines.  A suite that should have run and did not is a failure.
#   kunit-results.sh SUITE [--optional]
suite=$1
if ! dmesg | grep -q "# Subtest: $suite\$"; then
	if [ "${2:-}" = --optional ]; then
		echo "ok - kunit $suite # SKIP not built into this kernel"
		exit 0
	fi
	echo "not ok - kunit $suite did not run (CONFIG_MULTI_ORDER_KUNIT_TEST=y?)"
	exit 1
fi
dmesg | sed 's/^\[[^]]*\] //' | awk -v s="$suite" '
	$0 ~ "# Subtest: " s "$" { on = 1; next }
	on && /^    (not )?ok [0-9]+ / {
		line = $0; sub(/^    /, "", line)
		ok = (line ~ /^ok/); sub(/^(not )?ok [0-9]+ /, "", line)
		printf("%s - kunit %s: %s\n", ok ? "ok" : "not ok", s, line)
		if (!ok) bad = 1
		next }
	on && /^    # / { print "#" substr($0, 5); next }
	on && /^(not )?ok [0-9]+ / { on = 0 }
	END { exit bad }'
