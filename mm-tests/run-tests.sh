#!/bin/sh
# Guest side: run each argument as a test command, pass its TAP through,
# and after each one read the new kernel log lines, as liburing's
# runtests.sh does: a WARNING, BUG, lockdep or KASAN report, a page
# allocation failure or an OOM kill that the test did not ask for fails.
#
#   run-tests.sh [--allow REGEX] CMD ...    (--allow applies to the next CMD)
BAD='WARNING:|BUG:|BUG |Oops|general protection|KASAN|kfence|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU|page allocation failure|Out of memory|oom-kill|Call Trace'
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
	sh -c "$t"
	st=$?
	bad=$(dmesg | tail -n +$((before + 1)) | grep -E "$BAD" | grep -vE "$allow" | head -n 5)
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
