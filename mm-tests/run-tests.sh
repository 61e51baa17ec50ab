#!/bin/sh
# Guest side: run each argument as a test command, pass its TAP through,
# and after each one read the new kernel log lines, as liburing's
# runtests.sh does: a WARNING, BUG, lockdep or KASAN report, a page
# allocation failure or an OOM kill that the test did not ask for fails.
#
# The patterns are in splat-patterns beside this script; the host checks
# each run's whole kernel log with the same file.
#
#   run-tests.sh [--allow REGEX] CMD ...    (--allow applies to the next CMD)
pat=$(dirname "$0")/splat-patterns
[ -r "$pat" ] || { echo "Bail out! $pat missing"; exit 1; }
[ $# -gt 0 ] || { echo "Bail out! run-tests.sh: no test commands"; exit 1; }
allow='^$'
rc=0
for t in "$@"; do
	case $t in
	--allow) allow=next; continue ;;
	esac
	if [ "$allow" = next ]; then allow=$t; continue; fi
	name=${t%% *}
	before=$(dmesg | wc -l)
	echo "# === $t"
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh -c "$t"
	st=$?
	echo "# $name took $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime)s"
	bad=$(dmesg | tail -n +$((before + 1)) | grep -F -f "$pat" | grep -vE "$allow" | head -n 5)
	if [ -n "$bad" ]; then
		echo "not ok - $name: kernel log clean"
		echo "$bad" | sed 's/^/# dmesg: /'
		rc=1
	else
		echo "ok - $name: kernel log clean"
	fi
	[ "$st" = 0 ] || { echo "# $name exited $st"; rc=1; }
	allow='^$'
done
exit $rc
