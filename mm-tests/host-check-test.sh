#!/bin/sh
# Guest side: the guest plays the host of make host-check (tools/host.sh,
# staged on PATH as host.sh).  Each case reads every writable value under
# /sys/kernel/mm/transparent_hugepage and the vm sysctls the tests touch,
# with its own reader (not host.sh's), before and after, and diffs them.
#
#   host-check-test.sh patched MODULE     refusals, a green --quick run, a
#                                         test killed (SIGKILL: it cannot
#                                         restore its own knobs) and a
#                                         Ctrl-C in the middle
#   host-check-test.sh unpatched MODULE   refused without --unpatched; with
#                                         it, a green --quick run
#   host-check-test.sh one-node           refused: one memory node
#
# TAP on stdout; host.sh's own output goes to files under $TMPDIR, and its
# last lines are printed as diagnostics when a case fails.
set -u
kind=${1:-}
module=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { # ok STATUS DESCRIPTION [LOG]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
		[ -z "${3:-}" ] || tail -n 15 "$3" | sed 's/^/# /'
	fi
}
values() {
	{ find /sys/kernel/mm/transparent_hugepage -type f -perm -u+w
	  for k in compaction_proactiveness watermark_boost_factor watermark_scale_factor \
		min_free_kbytes zone_reclaim_mode percpu_pagelist_high_fraction defrag_mode; do
		[ -e "/proc/sys/vm/$k" ] && echo "/proc/sys/vm/$k"
	  done; } | sort | while IFS= read -r f; do
		printf '%s: %s\n' "$f" "$(cat "$f" 2>/dev/null)"
	done
}
same() { # same LABEL: the values now against $tmp/before; the diff as diagnostics
	values >"$tmp/after.$1"
	if diff "$tmp/before" "$tmp/after.$1" >"$tmp/diff.$1"; then
		echo "# $1: $(wc -l <"$tmp/before" | tr -d ' ') values, the same before and after"
		return 0
	fi
	sed 's/^/# sysfs diff: /' "$tmp/diff.$1"
	return 1
}
host() { # host LABEL ARGS...: host.sh's exit status in rc, output in $tmp/LABEL.out
	label=$1
	shift
	rc=0
	host.sh "$@" >"$tmp/$label.out" 2>&1 || rc=$?
}

echo "TAP version 13"
case $kind in
patched | unpatched) [ -r "$module" ] || { echo "Bail out! $kind: no module '$module'"; exit 1; } ;;
one-node) ;;
*) echo "Bail out! usage: host-check-test.sh patched|unpatched MODULE, or one-node"; exit 1 ;;
esac
command -v host.sh >/dev/null || { echo "Bail out! host.sh is not on PATH (tools/stage.sh stages it)"; exit 1; }
values >"$tmp/before"
# the run's own insmod may have loaded it: host.sh must leave it as it was
loaded_before=$(grep -c '^nodestate ' /proc/modules)

case $kind in
one-node)
	echo "1..2"
	host one check --yes-this-machine
	[ "$rc" = 2 ] && grep -q "refused: this machine has 1 memory node(s)" "$tmp/one.out" && same one
	ok $? "one memory node: refused, exit $rc, nothing changed" "$tmp/one.out"
	;;
unpatched)
	echo "1..3"
	host ref check --yes-this-machine --quick --module "$module"
	[ "$rc" = 2 ] && grep -q "refused: the running kernel .* has no .*numa_fallback" "$tmp/ref.out" && same refused
	ok $? "no numa_fallback knob: refused, exit $rc, nothing changed" "$tmp/ref.out"
	host green check --yes-this-machine --unpatched --quick --module "$module" --out "$tmp/green"
	[ "$rc" = 0 ] && grep -q '^ok .*thp_scenarios: kernel log clean' "$tmp/green.out" &&
		grep -q "^ok - host.sh: every saved value restored" "$tmp/green.out" && same green
	ok $? "named the unpatched reference: legacy rows green, exit $rc, every value restored" "$tmp/green.out"
	;;
patched)
	echo "1..6"
	host noyes check --module "$module"
	[ "$rc" = 2 ] && grep -q "pass --yes-this-machine" "$tmp/noyes.out" && same refused
	ok $? "without --yes-this-machine: refused, exit $rc, nothing changed" "$tmp/noyes.out"
	host unp check --yes-this-machine --unpatched --module "$module"
	[ "$rc" = 2 ] && grep -q "refused: --unpatched names the unpatched reference" "$tmp/unp.out" && same unpatched
	ok $? "--unpatched on the patched kernel: refused, exit $rc, nothing changed" "$tmp/unp.out"

	host green check --yes-this-machine --quick --module "$module" --out "$tmp/green"
	notok=$(grep -c '^not ok' "$tmp/green.out")
	oks=$(grep -c '^ok [0-9]' "$tmp/green.out")
	[ "$rc" = 0 ] && [ "$notok" = 0 ] && [ "$oks" -gt 0 ] && same green
	ok $? "a --quick run: exit $rc, $oks results passed, $notok failed, every value restored" "$tmp/green.out"
	grep '^# .* took ' "$tmp/green.out" | sed 's/^# /# the --quick run: /'

	# a test killed in the middle cannot put its knobs back: host.sh must
	( env --default-signal=INT host.sh check --yes-this-machine --quick --module "$module" \
		--out "$tmp/killed" >"$tmp/killed.out" 2>&1; echo $? >"$tmp/killed.rc" ) &
	# a thp_scenarios, once the values show it changed one: killed then.
	# Reading the values takes a while on a busy host, and the one seen
	# before may have ended meanwhile (and the next one changed them), so
	# the kill goes to the one running after the read, and the loop goes
	# on until a kill has found its process.
	i=0 killed=
	while [ "$i" -lt 300 ] && [ -z "$killed" ]; do
		if pgrep -x thp_scenarios >/dev/null; then
			values >"$tmp/during"
			if ! cmp -s "$tmp/before" "$tmp/during"; then
				pid=$(pgrep -o -x thp_scenarios)
				# what the killed one left changed is what host.sh
				# must put back: read again after the kill
				[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && killed=$pid &&
					values >"$tmp/during"
			fi
		fi
		sleep 0.1
		i=$((i + 1))
	done
	wait
	rc=$(cat "$tmp/killed.rc")
	changed=0
	cmp -s "$tmp/before" "$tmp/during" || changed=1
	diff "$tmp/before" "$tmp/during" | grep '^[<>]' | sed 's/^/# while thp_scenarios ran: /'
	# it died of the kill (run-tests.sh: "exited 137"), host.sh failed the
	# run for it, and put back what it had left changed
	[ "$changed" = 1 ] && [ "$rc" = 1 ] && grep -q "^# thp_scenarios exited 137" "$tmp/killed.out" &&
		same killed && grep -q "^ok - host.sh: every saved value restored" "$tmp/killed.out"
	ok $? "thp_scenarios killed with SIGKILL mid-row (values changed then: $changed): host.sh exit $rc, every value restored" "$tmp/killed.out"

	# Ctrl-C: INT to the process group, as a terminal sends it
	( setsid env --default-signal=INT host.sh check --yes-this-machine --quick --module "$module" \
		--out "$tmp/int" >"$tmp/int.out" 2>&1; echo $? >"$tmp/int.rc" ) &
	i=0
	while ! pgrep -x thp_scenarios >/dev/null && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.5
	pg=$(ps -o pgid= -p "$(pgrep -x thp_scenarios | head -n 1)" 2>/dev/null | tr -d ' ')
	[ -n "$pg" ] && kill -INT "-$pg"
	wait
	rc=$(cat "$tmp/int.rc")
	[ "$rc" = 1 ] && same interrupted && grep -q "interrupted (INT): restoring" "$tmp/int.out" &&
		grep -q "^ok - host.sh: every saved value restored" "$tmp/int.out"
	ok $? "Ctrl-C while thp_scenarios ran: exit $rc, every value restored" "$tmp/int.out"
	;;
esac
n=$((n + 1))
loaded_after=$(grep -c '^nodestate ' /proc/modules)
if [ "$loaded_after" = "$loaded_before" ]; then
	echo "ok $n nodestate loaded before and after alike ($loaded_before)"
else
	echo "not ok $n nodestate loaded before and after alike ($loaded_before, then $loaded_after)"
	failed=1
fi
exit $failed
