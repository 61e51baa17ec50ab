#!/bin/sh
# make check: the whole suite, host and guest, as one TAP stream ending in
# "N passed, N failed".
#
#   tools/check.sh [--topos "2node epyc4 chain4 cxl"] [--quick]
#
# 1. series: every patch applies (git am and patch -p1) and is
#    checkpatch --strict clean (no ERROR or WARNING).
# 2. kernels (patched, baseline, debug), the rootfs, the test programs and
#    the node-state module are built or taken from the cache.
# 3. each topology boots on baseline and patched: the guest checks its
#    nodes, CPUs and SLIT, and that an idle MADV_HUGEPAGE fault is a local
#    THP; on epyc4 the patched kernel also runs its KUnit suite, the knob
#    tests and the scenario matrix in every mode, and the baseline kernel
#    the same matrix, which legacy must match; policy tests, the usemem
#    swap-storm run, and the tree's selftests/mm on both kernels (any test
#    passing on baseline and not on patched fails); the debug kernel runs
#    the functional tests and a stress-ng run with no kernel splat allowed.
set -u
TOOL=check
. "$(dirname "$0")/lib.sh"

topos="2node epyc4 chain4 cxl"
while [ $# -gt 0 ]; do
	case $1 in
	--topos) topos=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done

n=0 pass=0 fail=0 skip=0
result() { # result ok|fail "description" ["# SKIP why"]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		pass=$((pass + 1))
		echo "ok $n - $2${3:+ $3}"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
	case ${3:-} in *SKIP*) skip=$((skip + 1)) ;; esac
}
finish() {
	echo "1..$n"
	echo "# $skip of the passes were skips"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}

echo "TAP version 13"
start=$(date +%s)
need_disk 12000 "make check (kernel trees, builds, guest image)"
ensure_packages $ALL_PKGS

# ---- 1. the series --------------------------------------------------------
"$TOPDIR/tools/series.sh" check >"$CACHE/logs/series-check.log" 2>&1
series_rc=$?
while IFS= read -r l; do
	case $l in
	"ok "*) result ok "series: ${l#ok }" ;;
	"not ok "*) result fail "series: ${l#not ok }" ;;
	"#"*) echo "$l" ;;
	esac
done <"$CACHE/logs/series-check.log"
[ "$series_rc" = 0 ] || say "series checks failed; see $CACHE/logs/series-check.log"

# ---- 2. builds --------------------------------------------------------------
for f in patched baseline debug; do
	if "$TOPDIR/tools/kernel.sh" "$f"; then
		result ok "build: $f kernel"
	else
		result fail "build: $f kernel (log: $CACHE/logs/kernel-$f.log)"
		finish
	fi
done
if "$TOPDIR/rootfs/build.sh" >/dev/null; then
	result ok "build: guest rootfs"
else
	result fail "build: guest rootfs (log: $CACHE/logs/rootfs.log)"
	finish
fi
if "$TOPDIR/tools/stage.sh" patched baseline debug; then
	result ok "build: guest test programs and nodestate module"
else
	result fail "build: guest test programs and nodestate module"
	finish
fi

# ---- 3. guest runs -----------------------------------------------------------
guest_start() { # guest_start FLAVOUR TOPO CMD...: boot in the background ($bg_pid)
	fl=$1 tp=$2
	shift 2
	out=$CACHE/runs/check-$fl-${RUNTAG:-$tp}
	rm -rf "$out"
	QUIET=1 "$TOPDIR/tools/run-guest" --kernel "$fl" --topo "$tp" --out "$out" \
		--timeout "${GUEST_TIMEOUT:-1200}" ${SWAP:+--swap $SWAP} -- "$@" >/dev/null 2>"$out.err" &
	bg_pid=$!
}

guest() { # guest FLAVOUR TOPO CMD...: boot, wait, report
	guest_start "$@"
	wait "$bg_pid" || true
	guest_report "$1" "${RUNTAG:-$2}"
}

guest_report() { # guest_report FLAVOUR RUNTAG: TAP of a finished run
	fl=$1
	out=$CACHE/runs/check-$fl-$2
	tag="[$fl $2]"
	if [ ! -f "$out/booted" ]; then
		result fail "$tag guest boots to userspace (console: $out/console.log)"
		sed 's/^/# /' "$out.err"
		return
	fi
	result ok "$tag guest boots to userspace"
	while IFS= read -r l; do
		case $l in
		"ok "*) d=$(echo "$l" | sed -E 's/^ok [0-9]* ?-? ?//')
			case $d in *"# SKIP"*) result ok "$tag ${d%%# SKIP*}" "# SKIP${d#*# SKIP}" ;;
			*) result ok "$tag $d" ;; esac ;;
		"not ok "*) result fail "$tag $(echo "$l" | sed -E 's/^not ok [0-9]* ?-? ?//')" ;;
		"# ==="* | "#"*"got:"* | "#"*"expected:"* | "# dmesg"* | "# Totals"* | *"exited"*) echo "$l" ;;
		esac
	done <"$out/output.log"
	if [ ! -f "$out/rc" ]; then
		result fail "$tag guest finished its commands (console: $out/console.log)"
		sed 's/^/# /' "$out.err"
	fi
	:
}

# The debug kernel (DEBUG_VM, lockdep, KASAN, DEBUG_PAGEALLOC): the same
# functional tests plus a bounded stress run; run-tests.sh fails any test
# after which the kernel log has a splat.  It is the longest run and none
# of its checks is timing-sensitive, so it boots now and runs beside the
# topology runs below (two guests on two cores); its TAP comes after theirs.
debug_pid=
case " $topos " in *" epyc4 "*)
	say "guest: debug on epyc4, in the background ($(($(date +%s) - start))s so far)"
	guest_start debug epyc4 run-tests.sh "kunit-results.sh mm_multi_order" thp_local thp_knob \
		"insmod /mnt/thp/mod/debug/nodestate.ko" thp_scenarios thp_policy \
		"stress.sh ${STRESS_SECONDS:-60}"
	debug_pid=$bg_pid ;;
esac

for tp in $topos; do
	spec=$(awk -v t="$tp" '$1 == t { print $2, $3, $4 }' "$TOPDIR/tools/topologies.conf")
	[ -n "$spec" ] || { result fail "unknown topology $tp"; continue; }
	for fl in baseline patched; do
		set -- "topology.sh $spec" "thp_local"
		if [ "$fl" = patched ]; then
			set -- "kunit-results.sh mm_multi_order" "$@" "thp_knob"
		fi
		# Scenario rows: the design's table, without madvise, rows that
		# reach the third and fourth node (D3 on chain4), faults from
		# another CPU node, and the CPU-less node of cxl (position 1
		# from node 0, the last from node 1).
		m=
		[ "$fl" = baseline ] && m=" -m legacy"
		case $tp in
		epyc4) set -- "$@" "insmod /mnt/thp/mod/$fl/nodestate.ko" "thp_scenarios$m" \
			"thp_scenarios$m -n" "thp_scenarios$m -r deep" "thp_scenarios$m -c 2" "thp_policy" ;;
		chain4) set -- "$@" "insmod /mnt/thp/mod/$fl/nodestate.ko" "thp_scenarios$m -r deep" \
			"thp_scenarios$m" "thp_scenarios$m -c 1" ;;
		cxl) set -- "$@" "insmod /mnt/thp/mod/$fl/nodestate.ko" "thp_scenarios$m" \
			"thp_scenarios$m -n" "thp_scenarios$m -c 1" ;;
		esac
		say "guest: $fl on $tp ($(($(date +%s) - start))s so far)"
		guest "$fl" "$tp" run-tests.sh "$@"
	done
done

# No swap storm (below) and the selftests compare times and limits: the
# debug run must be over before they start.
if [ -n "$debug_pid" ]; then
	say "waiting for the debug run ($(($(date +%s) - start))s so far)"
	wait "$debug_pid" || true
	guest_report debug epyc4
fi

# No swap storm: 80% of guest memory, THP, swap on, other nodes free.
case " $topos " in *" epyc4 "*)
	for fl in baseline patched; do
		say "guest: $fl on epyc4 with swap: usemem ($(($(date +%s) - start))s so far)"
		SWAP=1024 RUNTAG=epyc4-swap guest "$fl" epyc4 run-tests.sh \
			"mkswap /dev/vdb >/dev/null && swapon /dev/vdb && echo '# swap on /dev/vdb'" \
			"thp_usemem"
	done
	SWAP= RUNTAG= ;;
esac

# ---- selftests/mm of the tree, baseline against patched ----------------------
# Results keyed "program|test": a test that passes on baseline and does not
# on patched is a regression.  Tests that fail on both (hugetlb tests with
# no huge pages reserved, say) are reported in the counts only.
selftest_keys() {
	awk '/^# === / { prog = $3; delete seen; next }
	     /^# selftest .* exit / { st = $NF; r = (st == 0) ? "pass" : (st == 4 ? "skip" : "fail")
		print $3 "|(exit status)|" r; next }
	     /^(not )?ok [0-9]+ / { line = $0; res = (line ~ /^ok/) ? "pass" : "fail"
		if (line ~ /# [Ss][Kk][Ii][Pp]/) res = "skip"
		sub(/^(not )?ok [0-9]+ -? ?/, "", line); sub(/ # .*/, "", line)
		gsub(/[0-9]+(\.[0-9]+)?/, "N", line)	# counts vary from run to run
		n = ++seen[line]; print prog "|" line (n > 1 ? " #" n : "") "|" res }' "$1"
}
if [ "${SELFTESTS:-1}" = 1 ]; then
	"$TOPDIR/tools/stage.sh" --selftests >/dev/null 2>&1 ||
		result fail "build: tools/testing/selftests/mm (log: $CACHE/logs/stage.log)"
	# The baseline's results are reference data: reuse them while the
	# baseline kernel, the selftest programs and the runner are unchanged.
	bkey=$( { cat "$("$TOPDIR/tools/kernel.sh" --builddir baseline)/.thpnuma-key"
		cat "$TOPDIR/mm-tests/selftests-mm.sh" "$TOPDIR/tools/check.sh" "$CACHE"/selftests/mm/*
		echo "${SELFTEST_LIMIT:-240}"; } | sha256sum | cut -c1-16)
	for fl in baseline patched; do
		o=$CACHE/runs/check-$fl-selftests
		if [ "$fl" = baseline ] && [ -f "$CACHE/logs/selftests-baseline.$bkey" ]; then
			cp "$CACHE/logs/selftests-baseline.$bkey" "$CACHE/logs/selftests-baseline.txt"
			echo "# selftests/mm on baseline: results reused (same kernel, programs and limits; key $bkey)"
			continue
		fi
		rm -rf "$o"
		say "guest: $fl on epyc4: tools/testing/selftests/mm ($(($(date +%s) - start))s so far)"
		QUIET=1 "$TOPDIR/tools/run-guest" --kernel "$fl" --topo epyc4 --out "$o" \
			--timeout 2400 -- "selftests-mm.sh ${SELFTEST_LIMIT:-240}" >/dev/null 2>&1
		selftest_keys "$o/output.log" | sort >"$CACHE/logs/selftests-$fl.txt"
		if [ "$fl" = baseline ] && [ -f "$o/rc" ] && [ -s "$CACHE/logs/selftests-baseline.txt" ]; then
			cp "$CACHE/logs/selftests-baseline.txt" "$CACHE/logs/selftests-baseline.$bkey"
		fi
	done
	bp=$(grep -c '|pass$' "$CACHE/logs/selftests-baseline.txt")
	pp=$(grep -c '|pass$' "$CACHE/logs/selftests-patched.txt")
	bt=$(wc -l <"$CACHE/logs/selftests-baseline.txt")
	pt=$(wc -l <"$CACHE/logs/selftests-patched.txt")
	grep '|pass$' "$CACHE/logs/selftests-baseline.txt" | sed 's/|pass$//' | sort >"$CACHE/logs/st-b.txt"
	grep '|pass$' "$CACHE/logs/selftests-patched.txt" | sed 's/|pass$//' | sort >"$CACHE/logs/st-p.txt"
	comm -23 "$CACHE/logs/st-b.txt" "$CACHE/logs/st-p.txt" >"$CACHE/logs/selftests-regressions.txt"
	if [ "$bt" -gt 0 ] && [ "$pt" -gt 0 ] && [ ! -s "$CACHE/logs/selftests-regressions.txt" ]; then
		result ok "selftests/mm: no regression (baseline $bp of $bt pass, patched $pp of $pt pass)"
	else
		result fail "selftests/mm: baseline $bp of $bt pass, patched $pp of $pt pass"
	fi
	while IFS= read -r l; do
		result fail "selftests/mm regression: $l passes on baseline, not on patched"
	done <"$CACHE/logs/selftests-regressions.txt"
fi

# ---- 4. legacy mode equals the unpatched kernel, row by row ------------------
legacy_rows() { sed -n 's/^# placement \([^|]*\)|legacy|/\1|/p' "$1" 2>/dev/null | sort; }
for tp in epyc4 chain4 cxl; do
	case " $topos " in *" $tp "*) ;; *) continue ;; esac
	b=$CACHE/runs/check-baseline-$tp/output.log p=$CACHE/runs/check-patched-$tp/output.log
	legacy_rows "$b" >"$CACHE/logs/legacy-baseline-$tp.txt"
	legacy_rows "$p" >"$CACHE/logs/legacy-patched-$tp.txt"
	rows=$(wc -l <"$CACHE/logs/legacy-baseline-$tp.txt")
	if [ "$rows" -gt 0 ] && cmp -s "$CACHE/logs/legacy-baseline-$tp.txt" "$CACHE/logs/legacy-patched-$tp.txt"; then
		result ok "legacy mode places all $rows $tp rows exactly as the unpatched kernel"
	else
		result fail "legacy mode differs from the unpatched kernel on $tp ($rows rows)"
		diff "$CACHE/logs/legacy-baseline-$tp.txt" "$CACHE/logs/legacy-patched-$tp.txt" | sed 's/^/# /'
	fi
done

echo "# make check took $(($(date +%s) - start))s"
finish
