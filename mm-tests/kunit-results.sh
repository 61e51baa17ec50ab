#!/bin/sh
# Guest side: report the boot-time KUnit suite SUITE from the kernel log as
# TAP lines.  A suite that should have run and did not is a failure.
#   kunit-results.sh SUITE [--optional]
# The kernel's KTAP is read by guest-output.awk (staged beside this
# script), the one parser of what guests print.
suite=$1
records=$(dmesg | awk -f "$(dirname "$0")/guest-output.awk" -v suite="$suite")
if ! echo "$records" | grep -q '^kunit-suite'; then
	echo "1..1"
	if [ "${2:-}" = --optional ]; then
		echo "ok - kunit $suite # SKIP not built into this kernel"
		exit 0
	fi
	echo "not ok - kunit $suite did not run (CONFIG_MULTI_ORDER_KUNIT_TEST=y?)"
	exit 1
fi
echo "$records" | awk -F'\t' -v s="$suite" '
	$1 == "kunit" { n++; printf("%s - kunit %s: %s\n", $2 == "ok" ? "ok" : "not ok", s, $3); if ($2 != "ok") bad = 1 }
	$1 == "kunit-diag" { print $2 }
	END { print "1.." n; exit bad }'
