#!/bin/sh
# Guest side: run each argument as a test command, pass its TAP through,
# and read the kernel log after each one, as liburing's runtests.sh does:
# a marker goes to /dev/kmsg before the command, and what the log holds
# after the marker is read when it ends.  A WARNING, BUG, lockdep or KASAN
# report, a page allocation failure or an OOM kill that the test did not
# ask for fails.  (Counting lines instead would shift the window when the
# ring buffer wraps, most likely on the KASAN kernel.)  When the marker
# itself has left the buffer, all of the buffer is newer than it and is
# read, with a note.
#
# The patterns are in splat-patterns beside this script; the host checks
# each run's whole kernel log with the same file.  The lines this prints
# are documented with their reader, tools/guest-output.awk.
#
#   run-tests.sh [--allow REGEX] CMD ...    (--allow applies to the next CMD)
#
# KMSG=file writes the markers there instead (tools/test-run-tests.sh, on
# the host, with a stand-in dmesg).
kmsg=${KMSG:-/dev/kmsg}
pat=$(dirname "$0")/splat-patterns
[ -r "$pat" ] || { echo "Bail out! $pat missing"; exit 1; }
[ $# -gt 0 ] || { echo "Bail out! run-tests.sh: no test commands"; exit 1; }
log=${TMPDIR:-/tmp}/run-tests.$$.dmesg
trap 'rm -f "$log"' EXIT
allow='^$'
rc=0
seq=0
for t in "$@"; do
	case $t in
	--allow) allow=next; continue ;;
	esac
	if [ "$allow" = next ]; then allow=$t; continue; fi
	# the command's name: its first word that is not a VAR=value
	name=
	set -f
	for w in $t; do
		case $w in *=*) ;; *) name=$w; break ;; esac
	done
	set +f
	seq=$((seq + 1))
	mark="thp-numa run-tests: $$.$seq $name starts"
	echo "<6>$mark" >>"$kmsg" 2>/dev/null
	echo "# === $t"
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh -c "$t"
	st=$?
	echo "# $name took $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime)s"
	dmesg >"$log"
	if ! grep -qF "$mark" "$log"; then
		echo "# run-tests.sh: the marker before $name is no longer in the kernel log; reading all of it"
		mark=
	fi
	bad=$(awk -v m="$mark" 'm == "" || seen; m != "" && index($0, m) { seen = 1 }' "$log" |
		grep -F -f "$pat" | grep -vE "$allow" | head -n 5)
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
