#!/bin/sh
# Guest side: check that run-tests.sh catches a kernel log splat.  A nested
# run-tests.sh runs a command that writes one line matching splat-patterns
# to the guest's kernel log (/dev/kmsg); it must fail that command.  With
# --allow for the line it must pass.  check.sh ignores the planted line
# when it reads the run's whole log.
mark='thp-numa splat-check: planted WARNING: line'
cmd="echo '$mark' >/dev/kmsg"

echo "1..2"
out=$(run-tests.sh "$cmd" 2>&1)
rc=$?
if [ "$rc" != 0 ] && echo "$out" | grep -q '^not ok - echo: kernel log clean$'; then
	echo "ok 1 run-tests.sh fails a command after which the kernel log has a WARNING: line"
else
	echo "not ok 1 run-tests.sh fails a command after which the kernel log has a WARNING: line (exit $rc)"
	echo "$out" | sed 's/^/#   /'
fi

out=$(run-tests.sh --allow 'splat-check: planted' "$cmd" 2>&1)
rc=$?
if [ "$rc" = 0 ] && echo "$out" | grep -q '^ok - echo: kernel log clean$'; then
	echo "ok 2 run-tests.sh --allow passes a known line"
else
	echo "not ok 2 run-tests.sh --allow passes a known line (exit $rc)"
	echo "$out" | sed 's/^/#   /'
fi
