#!/bin/sh
# make check: the whole suite, host and guest, as one TAP stream ending in
# "N passed, N failed, N skipped".
#
#   tools/check.sh [--topos "2node epyc4 chain4 cxl epyc8 hpe16 1node"]
#
# The guest runs are the "check" rows of tools/runs.conf; tools/runs.sh
# starts, reuses, waits for and reports each one.  The steps, in the
# order they run:
#
# 1. builds: the kernels the plan's runs boot (patched, baseline and
#    debug on 6.12 and on 7.3), the rootfs, the test
#    programs and the node-state module of each kernel, the 6.12 tree's
#    selftests/mm; each is built or taken from the cache.
# 2. host tests, with stand-ins: run-guest's boot handling (QEMU), the
#    first step of make bench, kernel and rootfs on an empty cache
#    (apt-get), run-tests.sh's kernel-log window (dmesg), the parser of
#    guest output against recorded output.log files, and the run plan
#    with its helper (run-guest).
# 3. the background runs start (start=bg: the debug kernel's functional
#    tests and stress-ng run, the longest, beside steps 4 and 5).
# 4. series: every patch of each tree's series applies (git am and
#    patch -p1) and is checkpatch --strict clean.
# 5. the foreground runs, one at a time (start=fg): each topology on the
#    baseline and patched kernels (topology, local THP, KUnit and knob
#    tests on patched, the scenario matrix in every mode, policies), and
#    the usemem swap-storm run on both.
# 6. the background runs' reports.
# 7. the runs that need the machine to themselves (start=alone): the 7.3
#    debug kernel's run, and the tree's selftests/mm on both kernels; any
#    test that passes on baseline and not on patched fails.
# 8. legacy mode equals the unpatched kernel of its tree, row by row, on
#    every topology with scenario rows, and in the aged rows.
#
# Every run is checked the same way: it boots, finishes, each TAP line of
# its tests is a result, the kernel log was read after each command, and
# its whole kernel log is clean.  Runs marked reuse=yes are checked again
# from their recording while their inputs are unchanged (run_key in
# tools/runs.sh); FRESH=1 reruns everything, SELFTESTS=0 leaves out
# selftests/mm, and --topos without epyc4 leaves out the runs on epyc4.
set -u
TOOL=check
. "$(dirname "$0")/lib.sh"
. "$TOPDIR/tools/runs.sh"

topos="2node epyc4 chain4 cxl epyc8 hpe16 1node"
while [ $# -gt 0 ]; do
	case $1 in
	--topos) topos=$2; shift 2 ;;
	*) die "unknown option $1 (see the head of tools/check.sh)" ;;
	esac
done

# A skip (a "# SKIP why" directive, as its own argument or at the end of
# a host test's description) is counted apart, never as a pass.
n=0 pass=0 fail=0 skip=0
result() { # result ok|fail "description" ["# SKIP why"]
	n=$((n + 1))
	if [ "$1" != ok ]; then
		fail=$((fail + 1))
		printf 'not ok %s - %s\n' "$n" "$2"
		return
	fi
	printf 'ok %s - %s\n' "$n" "$2${3:+ $3}"
	# an escaped "\#" is text (TAP), not the start of a directive
	case "$(printf '%s' "$2 ${3:-}" | sed 's/\\#//g')" in
	*"# SKIP"*) skip=$((skip + 1)) ;;
	*) pass=$((pass + 1)) ;;
	esac
}
note() { echo "$2"; }
finish() {
	echo "1..$n"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
	exit $?
}
elapsed() { echo "$(($(date +%s) - start))s so far"; }
# the plan's runs that start so, on the chosen topologies
check_runs() { # check_runs START
	for r in $(run_names check "$1" "$topos"); do
		case $r in *selftests) [ "${SELFTESTS:-1}" = 1 ] || continue ;; esac
		echo "$r"
	done
}

echo "TAP version 13"
start=$(date +%s)
need_disk 12000 "make check (kernel trees, builds, guest image)"
mkdir -p "$CACHE/runs" "$CACHE/logs"
ensure_packages $ALL_PKGS

# ---- 1. builds --------------------------------------------------------------
# The kernels the plan's runs boot: patched, baseline and debug on 6.12,
# 7.3-patched, 7.3-baseline and 7.3-debug on 7.3 (runs.conf's flavour
# column), all six every time.  Each is a minimal guest kernel
# (kernel-patches/configs/base.config on allnoconfig), which is what lets
# a cold make check build them all within its budget.
kernels=$(run_flavours check "$topos" | tr "\n" " ")
if [ "${SELFTESTS:-1}" != 1 ]; then
	for r in $(run_names check alone "$topos" | grep 'selftests$'); do
		result ok "[$r] left out" "# SKIP SELFTESTS=$SELFTESTS"
	done
fi
for flavour in $kernels; do
	if "$TOPDIR/tools/kernel.sh" "$flavour"; then
		result ok "build: $flavour kernel"
	else
		result fail "build: $flavour kernel (log: $CACHE/logs/kernel-$flavour.log)"
		finish
	fi
done
if "$TOPDIR/rootfs/build.sh" >/dev/null; then
	result ok "build: guest rootfs"
else
	result fail "build: guest rootfs (log: $CACHE/logs/rootfs.log)"
	finish
fi
# shellcheck disable=SC2086
if "$TOPDIR/tools/stage.sh" $kernels; then
	result ok "build: guest test programs and nodestate module"
else
	result fail "build: guest test programs and nodestate module"
	finish
fi
if [ "${SELFTESTS:-1}" = 1 ]; then
	if "$TOPDIR/tools/stage.sh" --selftests; then
		result ok "build: tools/testing/selftests/mm"
	else
		result fail "build: tools/testing/selftests/mm (log: $CACHE/logs/stage.log)"
	fi
fi

# ---- 2. host tests ------------------------------------------------------------
# Each is a TAP script with stand-ins for what it would otherwise need; its
# lines become results under a prefix.
host_test() { # host_test PREFIX SCRIPT
	log=$CACHE/logs/$(basename "$2" .sh).log
	"$TOPDIR/tools/$2" >"$log" 2>&1
	while IFS= read -r l; do
		case $l in
		"ok "*) result ok "$1: $(echo "$l" | sed -E 's/^ok [0-9]+ - //')" ;;
		"not ok "*) result fail "$1: $(echo "$l" | sed -E 's/^not ok [0-9]+ - //') (log: $log)" ;;
		esac
	done <"$log"
	grep -q '^1\.\.[1-9]' "$log" || result fail "$1: tools/$2 ran to its end (log: $log)"
}
# make host-check's refusals and its save and restore, on a stand-in
# machine; this machine is asked once to refuse (it has no knob).
host_test host test-host.sh
# The runner's boot handling (the int3 retry, failed boots), with a
# stand-in for QEMU: the real race is too rare to wait for.
host_test run-guest test-run-guest.sh
# The first step of make bench, kernel and rootfs on a fresh machine.
host_test packages test-packages.sh
# The guest's runner reads the kernel log from a marker, with a stand-in log.
host_test run-tests test-run-tests.sh
# The one parser of guest output, against recorded output.log files.
host_test parser test-parser.sh
host_test results test-results.sh
# The run plan and its helper, with a stand-in for run-guest.
host_test runs test-runs.sh
# The 7.3 tree's fetch: the suite's signature against the host's keyring
# (and not another), the host's apt state untouched (the real mirror).
host_test fetch test-fetch.sh
# The docs name only files, make targets, variables, options and anchors
# that exist (and the check of that fails on a doc that names others).
host_test docs test-docs.sh

# ---- 3. background runs start ---------------------------------------------------
# The debug kernel's run is the longest (about 300 s under TCG) and none
# of its checks is timing-sensitive, so it runs beside step 4 and the fg
# runs of step 5 (two guests on two cores), and ends before step 5's first
# quiet run; its report comes in step 6.
background=$(check_runs bg)
for r in $background; do
	run_start check "$r"
done

# ---- 4. the series -----------------------------------------------------------
# Each tree whose patched kernel make check boots: 6.12's series, then 7.3's.
for tree in 6.12 7.3; do
	case $tree in
	6.12) case " $kernels " in *" patched "*) ;; *) continue ;; esac
		tag=series log=$CACHE/logs/series-check.log ;;
	*) case " $kernels " in *" $tree-patched "*) ;; *) continue ;; esac
		tag="series $tree" log=$CACHE/logs/series-check-$tree.log ;;
	esac
	TREE=$tree "$TOPDIR/tools/series.sh" check >"$log" 2>&1
	series_rc=$?
	while IFS= read -r l; do
		case $l in
		"ok "*) result ok "$tag: ${l#ok }" ;;
		"not ok "*) result fail "$tag: ${l#not ok }" ;;
		"#"*) echo "$l" ;;
		esac
	done <"$log"
	[ "$series_rc" = 0 ] || say "$tag checks failed; see $log"
done

# ---- 5. foreground runs ------------------------------------------------------
# In plan order; a quiet run (the storm and aged rows, whose counters
# move with the CPU time the guest gets) first waits for the background
# runs to end, so that it and the reference it is judged against both
# ran with the machine to themselves.
quiet=
for r in $(check_runs "fg quiet"); do
	run_row check "$r"
	if [ "$r_start" = quiet ] && [ -z "$quiet" ]; then
		quiet=1
		for b in $background; do
			say "quiet runs next: waiting for the $b run to end ($(elapsed))"
			run_wait check "$b"
		done
	fi
	run_one check "$r"
done

# ---- 6. background runs' reports ----------------------------------------------
for r in $background; do
	say "waiting for the $r run ($(elapsed))"
	run_wait check "$r"
	run_report check "$r"
done

# ---- 7. runs alone: selftests/mm, baseline against patched ---------------------
# They run under time limits, so after every other guest.  Results keyed
# "program|test": a test that passes on baseline and does not on patched
# is a regression.  Tests that fail on both (hugetlb tests with no huge
# pages reserved, say) are reported in the counts only.
alone=$(check_runs alone)
for r in $alone; do
	run_one check "$r"
done
if echo "$alone" | grep -qx baseline-selftests && echo "$alone" | grep -qx patched-selftests; then
	for flavour in baseline patched; do
		guest_output "$(run_dir check "$flavour-selftests")/output.log" selftest 2>/dev/null |
			awk -F'\t' '{ print $2 "|" $3 "|" $4 }' | sort >"$CACHE/logs/selftests-$flavour.txt"
		grep '|pass$' "$CACHE/logs/selftests-$flavour.txt" | sed 's/|pass$//' |
			sort >"$CACHE/logs/selftests-$flavour-passing.txt"
	done
	base_pass=$(wc -l <"$CACHE/logs/selftests-baseline-passing.txt")
	patched_pass=$(wc -l <"$CACHE/logs/selftests-patched-passing.txt")
	base_total=$(wc -l <"$CACHE/logs/selftests-baseline.txt")
	patched_total=$(wc -l <"$CACHE/logs/selftests-patched.txt")
	comm -23 "$CACHE/logs/selftests-baseline-passing.txt" "$CACHE/logs/selftests-patched-passing.txt" \
		>"$CACHE/logs/selftests-regressions.txt"
	counts="baseline $base_pass of $base_total pass, patched $patched_pass of $patched_total pass"
	if [ "$base_total" -gt 0 ] && [ "$patched_total" -gt 0 ] && [ ! -s "$CACHE/logs/selftests-regressions.txt" ]; then
		result ok "selftests/mm: no regression ($counts)"
	else
		result fail "selftests/mm: $counts (logs: $CACHE/logs/selftests-*.txt)"
	fi
	while IFS= read -r l; do
		result fail "selftests/mm regression: $l passes on baseline, not on patched"
	done <"$CACHE/logs/selftests-regressions.txt"
fi

# ---- 8. legacy mode equals the unpatched kernel, row by row ------------------
# Each baseline run that places scenarios against the patched run of the
# same name; a row is rows|cpu|madvise|states|placement|classes.
legacy_rows() { # legacy_rows RUN
	guest_output "$(run_dir check "$1")/output.log" placement 2>/dev/null |
		awk -F'\t' '$3 == "legacy" { print $2 "|" $4 "|" $5 "|" $6 "|" $7 "|" $8 }' | sort
}
# The pairs are named by tree: baseline-X against patched-X on 6.12,
# 7.3-baseline-X against 7.3-patched-X on 7.3.
patched_of() { echo "$1" | sed 's/baseline-/patched-/'; }
for base in $(check_runs "fg quiet"); do
	case $base in baseline-* | *-baseline-*) ;; *) continue ;; esac
	run_row check "$base"
	case $r_cmds in *thp_scenarios*) ;; *) continue ;; esac
	what=$(echo "$base" | sed 's/baseline-//')
	baseline_rows=$CACHE/logs/legacy-baseline-$what.txt patched_rows=$CACHE/logs/legacy-patched-$what.txt
	legacy_rows "$base" >"$baseline_rows"
	legacy_rows "$(patched_of "$base")" >"$patched_rows"
	rows=$(wc -l <"$baseline_rows")
	if [ "$rows" -gt 0 ] && cmp -s "$baseline_rows" "$patched_rows"; then
		result ok "legacy mode places all $rows $what rows exactly as the unpatched kernel"
	else
		result fail "legacy mode differs from the unpatched kernel on $what ($rows rows; $baseline_rows, $patched_rows)"
		diff "$baseline_rows" "$patched_rows" | sed 's/^/# /'
	fi
done

# thp_aged's rows: legacy on the patched kernel against the unpatched
# kernel, from the patched run of legacy alone (patched-aged-legacy), whose
# boot makes and measures the rows as the unpatched kernel's run does.  "Equal" means the medians differ by no more than 5 points or
# the wider of the two kernels' own spreads: the kernels differ in size, so
# node 0 starts with a little more or less free memory and a free 2M block
# or two more or less (seen: 15 against 13 blocks, 16% against 13% local
# THP in every row without reclaim).  defrag=defer rows are not compared:
# they depend on when the woken kcompactd gets to the node, and came out
# 99% or about 15% from run to run on both kernels.  Nor are the aged rows
# where the fault may stall (defrag=always, or madvise on a madvised
# region): there the unpatched kernel came out 16% in most boots and 100%
# (one compaction stall, one success) in both runs of one boot.  Traced
# in the fault phase (compaction begin, end and migratepages, and
# kmem:mm_page_pcpu_drain, in a trace instance enabled on the command
# line), defrag=always rows, 4 boots of each kernel: every run of both
# kernels was in the low branch, 15-19% local THP from 13-16 free 2M
# blocks (the unpatched kernel 15-19%, patched legacy 15-18%), and every
# direct compaction ended partial_skipped having migrated no page, so
# compact_zone() never reached its lru_add_drain_cpu_zone() and the
# parked pages stayed on the CPU's lists.  The high branch did not occur
# in those boots, which allocated a 32 MiB per-CPU trace buffer before
# the first run; in make check's boots it has come in the first run of
# a boot (docs/results.md: both 6.12 kernels 100% with 1 stall, then
# 14-19%; on 7.3 neither).  That it is a compaction that migrated a page
# and then drained the faulting CPU's lists is read from the code, not
# traced.  A boot in the high branch on one kernel and the low on the
# other would fail any few-point comparison, so these rows stay out of
# this step; thp_aged compares them with legacy within one boot.
aged_compare() { # aged_compare BASELINE-LOG PATCHED-LOG
	awk -F'|' '
	FNR == 1 { f++ }
	/^# aged aged(-dm1)?\|/ && $2 == "legacy" && ($3 == "always" || ($3 == "madvise" && $4 == "madvise")) { next }
	/^# aged aged/ && $2 == "legacy" && $3 != "defer" {
		key = substr($1, 8) "|" $3 "|" $4
		n[f, key]++; v[f, key, n[f, key]] = $5 + 0; keys[key] = 1
		# a THP of khugepaged is no fault'"'"'s (thp_aged keeps it asleep)
		if (match($0, /thp_collapse_alloc=[0-9]+/)) coll[key] += substr($0, RSTART + 19, RLENGTH - 19)
	}
	function stats(f, key,    i, j, t, c) {
		c = n[f, key]
		for (i = 1; i <= c; i++) a[i] = v[f, key, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		# the median: with an even count, the mean of the middle two
		# (of two runs, not the better one)
		med = c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2; spread = a[c] - a[1]
	}
	END {
		for (key in keys) {
			if (!n[1, key] || !n[2, key]) { print "fail\t" key "\tmissing on " (n[1, key] ? "patched" : "baseline"); continue }
			stats(1, key); mb = med; sb = spread
			stats(2, key); mp = med; sp = spread
			if (coll[key]) { print "fail\t" key "\tkhugepaged collapsed " coll[key] " THPs during the measured runs"; continue }
			allow = 5; if (sb > allow) allow = sb; if (sp > allow) allow = sp
			d = mb - mp; if (d < 0) d = -d
			printf("%s\t%s\tbaseline %d%%, patched legacy %d%% (medians of %d and %d runs, allowed %d)\n",
				d <= allow ? "ok" : "fail", key, mb, mp, n[1, key], n[2, key], allow)
		}
	}' "$1" "$2" | sort -k2
}
for base in $(check_runs "fg quiet"); do
	case $base in baseline-* | *-baseline-*) ;; *) continue ;; esac
	run_row check "$base"
	case $r_cmds in *thp_aged*) ;; *) continue ;; esac
	what=$(echo "$base" | sed 's/baseline-//')
	# the patched run of legacy alone where the plan has one (no other
	# mode ran before it in its boot), else the run of every mode
	other=$(patched_of "$base")
	case " $(check_runs "fg quiet" | tr '\n' ' ') " in *" $other-legacy "*) other=$other-legacy ;; esac
	aged_compare "$(run_dir check "$base")/output.log" "$(run_dir check "$other")/output.log" \
		>"$CACHE/logs/aged-legacy-$what.txt"
	[ -s "$CACHE/logs/aged-legacy-$what.txt" ] ||
		result fail "legacy mode's aged rows on $what: none found (logs: $(run_dir check "$base"), $(run_dir check "$other"))"
	while IFS='	' read -r verdict key text; do
		result "$verdict" "legacy mode equals the unpatched kernel on $what, aged row $key ($other): $text"
	done <"$CACHE/logs/aged-legacy-$what.txt"
done

# ---- 9. the usemem storm: no more swap-out or kswapd work than stock -------
# thp_usemem -b: STORM_FILLS fills (20) on the unpatched kernel and as
# many in each mode of the patched kernel, one boot per mode (fills of
# different modes in one boot change each other's memory), every boot
# fresh and none beside another guest (runs.conf: reuse no, start quiet).
# One kswapd wake on node 0 in every fill is the case under test.  A mode
# fails on a counter when its mean per fill exceeds the unpatched
# kernel's by more than the allowance (15000 swap-outs, 2 kswapd passes)
# and the one-sided permutation test over the fills gives p <= 0.01.
# Either rule alone fails stock's code against itself: the unpatched
# 6.12 kernel's 10-fill boots averaged 4900-24405 swap-outs per fill
# (seven boots), and one make check judged legacy (stock's code, 21409)
# against its 4900 boot, reused from an earlier make check.  Resampling
# the 70 recorded 6.12 fills of stock and the 40 of 7.3 (docs/results.md),
# 20 fills against 20 fail stock against itself in 0-0.7% of pairs under
# both rules, and fail v6's node-first (49257 per fill) in all of them.
storm_runs() { # storm_runs BASELINE-RUN: it, then the patched runs that go with it
	echo "$1"
	for r in $(check_runs "fg quiet"); do
		case $r in "$(patched_of "$1")"-*) echo "$r" ;; esac
	done
}
for base in $(check_runs "fg quiet"); do
	case $base in baseline-* | *-baseline-*) ;; *) continue ;; esac
	run_row check "$base"
	case $r_cmds in *"thp_usemem -b"*) ;; *) continue ;; esac
	case $base in 7.3-*) tree=7.3 ;; *) tree=6.12 ;; esac
	what=$(echo "$base" | sed 's/baseline-//')
	csv=$CACHE/logs/storm-$what.csv
	for r in $(storm_runs "$base"); do
		case $r in "$base") k=baseline ;; *) k=patched ;; esac
		guest_output "$(run_dir check "$r")/output.log" usemem 2>/dev/null |
			awk -f "$TOPDIR/tools/storm.awk" -v what=csv -v tree="$tree" -v kernel="$k"
	done >"$csv"
	awk -f "$TOPDIR/tools/storm.awk" -v what=check -v tree="$tree" -v want="$STORM_FILLS" \
		-v allow_out=15000 -v allow_pass=2 -v alpha=0.01 "$csv" >"$CACHE/logs/storm-$what.txt"
	[ -s "$CACHE/logs/storm-$what.txt" ] ||
		result fail "usemem storm on $what: no verdict (fills: $csv)"
	while IFS='	' read -r verdict key text; do
		result "$verdict" "usemem storm on $tree, $key: $text"
	done <"$CACHE/logs/storm-$what.txt"
done

echo "# make check took $(($(date +%s) - start))s; $runs_reused guest runs were reused (FRESH=1 reruns them)"
finish
