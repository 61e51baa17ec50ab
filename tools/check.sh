#!/bin/sh
# make check: the whole suite, host and guest, as one TAP stream ending in
# "N passed, N failed".
#
#   tools/check.sh [--topos "2node epyc4 chain4 cxl"] [--quick]
#
# 1. kernels (patched, baseline, debug), the rootfs, the test programs and
#    the node-state module are built or taken from the cache.
#    The runner's boot handling is tested with a stand-in for QEMU.
# 2. series: every patch applies (git am and patch -p1) and is
#    checkpatch --strict clean (no ERROR or WARNING).
# 3. each topology boots on baseline and patched: the guest checks its
#    nodes, CPUs and SLIT, and that an idle MADV_HUGEPAGE fault is a local
#    THP; on epyc4 the patched kernel also runs its KUnit suite, the knob
#    tests and the scenario matrix in every mode, and the baseline kernel
#    the same matrix, which legacy must match; policy tests, the usemem
#    swap-storm run, and the tree's selftests/mm on both kernels (any test
#    passing on baseline and not on patched fails); the debug kernel runs
#    the functional tests and a stress-ng run with no kernel splat allowed.
#    The unpatched kernel's runs, the debug run and the selftests/mm runs
#    are reused while their inputs are unchanged (run_key below); the
#    patched kernel's runs happen every time.  FRESH=1 reruns everything.
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
mkdir -p "$CACHE/runs" "$CACHE/logs"
ensure_packages $ALL_PKGS

# ---- 1. builds --------------------------------------------------------------
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
if [ "${SELFTESTS:-1}" = 1 ]; then
	if "$TOPDIR/tools/stage.sh" --selftests; then
		result ok "build: tools/testing/selftests/mm"
	else
		result fail "build: tools/testing/selftests/mm (log: $CACHE/logs/stage.log)"
	fi
fi

# Host-side tests, each a TAP script with stand-ins for what it would
# otherwise need (QEMU, apt-get): its lines become results under a prefix.
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
# The runner's boot handling (the int3 retry, failed boots), with a
# stand-in for QEMU: the real race is too rare to wait for.
host_test run-guest test-run-guest.sh
# The first step of make bench, kernel and rootfs on a fresh machine.
host_test packages test-packages.sh
# The guest's runner reads the kernel log from a marker, with a stand-in log.
host_test run-tests test-run-tests.sh

# ---- 3. guest runs -----------------------------------------------------------
# A run started with REUSE=1 (the unpatched kernel's reference runs, the
# debug run and the long selftests/mm runs) is not repeated while everything it depends
# on is unchanged: its kernel image, the guest image, the staged programs
# and module, the runner, the topology and the command list.  Its recorded
# output goes through the same checks as a fresh run's.  Only runs that
# finished with status 0 are kept; FRESH=1 reruns everything.
reused=0
run_key() { # run_key FLAVOUR TOPO CMD...
	k_fl=$1 k_tp=$2
	shift 2
	{ sha256sum "$("$TOPDIR/tools/kernel.sh" --builddir "$k_fl")/arch/x86/boot/bzImage" \
		"$TOPDIR/tools/run-guest" "$TOPDIR/tools/guest-init.sh" | cut -c1-64
	  "$TOPDIR/rootfs/build.sh" --path
	  awk -v t="$k_tp" '$1 == t' "$TOPDIR/tools/topologies.conf"
	  echo "swap=${SWAP:-} timeout=${GUEST_TIMEOUT:-1200}"
	  printf '%s\n' "$@"
	  # the staged files the run can use
	  case "$*" in
	  *selftests-mm*) find "$CACHE/stage/selftests" "$CACHE/stage/bin/selftests-mm.sh" -type f ;;
	  *) find "$CACHE/stage/bin" "$CACHE/stage/mod/$k_fl" -type f ;;
	  esac | sort | xargs sha256sum
	  "${QEMU:-qemu-system-x86_64}" --version | head -n 1
	} | sha256sum | cut -c1-16
}

rt() { # rt TEST...: one guest command line, run-tests.sh with each TEST as one argument
	printf 'run-tests.sh'
	for a in "$@"; do
		printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
	done
}

# The whole kernel log of a run, boot included, against the patterns
# run-tests.sh applies after each test.
log_clean() { # log_clean TAG OUTDIR
	if [ ! -f "$2/dmesg.log" ]; then
		result fail "$1 kernel log of the whole run is clean (no dmesg.log)"
	elif grep -F -f "$TOPDIR/mm-tests/splat-patterns" "$2/dmesg.log" |
		grep -v 'thp-numa splat-check: planted' >"$2/splats"; then
		result fail "$1 kernel log of the whole run is clean ($2/dmesg.log)"
		head -n 5 "$2/splats" | sed 's/^/# dmesg: /'
	else
		result ok "$1 kernel log of the whole run is clean"
	fi
}

guest_start() { # guest_start FLAVOUR TOPO CMD...: boot in the background ($bg_pid)
	fl=$1 tp=$2
	shift 2
	out=$CACHE/runs/check-$fl-${RUNTAG:-$tp}
	bg_pid= key=
	if [ "${REUSE:-0}" = 1 ] && [ "${FRESH:-0}" != 1 ]; then
		key=$(run_key "$fl" "$tp" "$@")
		if [ "$(cat "$out/key" 2>/dev/null)" = "$key" ] && [ "$(cat "$out/rc" 2>/dev/null)" = 0 ]; then
			echo "$key" >"$out/reused"
			return
		fi
	fi
	rm -rf "$out"
	( QUIET=1 "$TOPDIR/tools/run-guest" --kernel "$fl" --topo "$tp" --out "$out" \
		--timeout "${GUEST_TIMEOUT:-1200}" ${SWAP:+--swap $SWAP} -- "$@" >/dev/null 2>"$out.err" &&
		if [ -n "$key" ]; then echo "$key" >"$out/key"; fi ) &
	bg_pid=$!
}

guest() { # guest FLAVOUR TOPO CMD...: boot, wait, report
	guest_start "$@"
	[ -z "$bg_pid" ] || wait "$bg_pid" || true
	guest_report "$1" "${RUNTAG:-$2}"
}

# How a run went, fresh or reused: whether the guest reached userspace and
# finished its commands.  Returns 1 when it never booted (no output to read).
run_status() { # run_status TAG OUTDIR
	if [ -f "$2/reused" ]; then
		reused=$((reused + 1))
		echo "# $1 reusing the run of $(date -r "$2/rc" '+%F %T') (key $(cat "$2/reused")): same kernel image, guest image, programs and commands"
	fi
	if [ ! -f "$2/booted" ]; then
		result fail "$1 guest boots to userspace (console: $2/console.log)"
		sed 's/^/# /' "$2.err"
		return 1
	fi
	result ok "$1 guest boots to userspace"
	if [ -f "$2/rc" ]; then
		result ok "$1 guest finished its commands"
	else
		result fail "$1 guest finished its commands (console: $2/console.log)"
		sed 's/^/# /' "$2.err"
	fi
}

guest_report() { # guest_report FLAVOUR RUNTAG: TAP of a finished run
	fl=$1
	out=$CACHE/runs/check-$fl-$2
	tag="[$fl $2]"
	run_status "$tag" "$out" || return
	while IFS= read -r l; do
		case $l in
		"ok "*) d=$(echo "$l" | sed -E 's/^ok [0-9]* ?-? ?//')
			case $d in *"# SKIP"*) result ok "$tag ${d%%# SKIP*}" "# SKIP${d#*# SKIP}" ;;
			*) result ok "$tag $d" ;; esac ;;
		"not ok "*) result fail "$tag $(echo "$l" | sed -E 's/^not ok [0-9]* ?-? ?//')" ;;
		"Bail out!"*) result fail "$tag $l" ;;
		"# ==="* | "#"*"got:"* | "#"*"expected:"* | "# dmesg"* | "# Totals"* | *"exited"* | "# "*" took "*) echo "$l" ;;
		esac
	done <"$out/output.log"
	# Each test command must have run under run-tests.sh, which reads the
	# kernel log after it ("# === cmd" ... "kernel log clean").
	if head -n 1 "$out/cmds" 2>/dev/null | grep -q '^run-tests.sh'; then
		nrun=$(grep -c '^# === ' "$out/output.log")
		nlog=$(grep -c '^\(not \)\{0,1\}ok - .*: kernel log clean$' "$out/output.log")
		if [ "$nrun" -gt 0 ] && [ "$nrun" = "$nlog" ]; then
			result ok "$tag the kernel log was read after each of the $nrun test commands"
		else
			result fail "$tag the kernel log was read after each test command ($nlog reads for $nrun commands)"
		fi
	fi
	log_clean "$tag" "$out"
}

# The debug kernel (DEBUG_VM, lockdep, KASAN, DEBUG_PAGEALLOC): the same
# functional tests plus a bounded stress run; run-tests.sh fails any test
# after which the kernel log has a splat.  It is the longest run (about
# 300 s under TCG) and none of its checks is timing-sensitive, so it boots
# now and runs beside the topology runs below (two guests on two cores);
# its TAP comes after theirs.  Like the reference runs it is reused while
# its inputs (the debug kernel image among them) are unchanged.
debug_pid=
case " $topos " in *" epyc4 "*)
	say "guest: debug on epyc4, in the background ($(($(date +%s) - start))s so far)"
	REUSE=1 guest_start debug epyc4 "$(rt "kunit-results.sh mm_multi_order" thp_local thp_knob \
		"insmod /mnt/thp/mod/debug/nodestate.ko" thp_scenarios thp_policy \
		"stress.sh ${STRESS_SECONDS:-60}")"
	REUSE=0
	debug_pid=$bg_pid
	debug_started=1 ;;
esac

# ---- 2. the series -------------------------------------------------------
# (after the debug guest has started: the checks need no kernel build and
# the debug run is the longest)
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

for tp in $topos; do
	spec=$(awk -v t="$tp" '$1 == t { print $2, $3, $4 }' "$TOPDIR/tools/topologies.conf")
	[ -n "$spec" ] || { result fail "unknown topology $tp"; continue; }
	for fl in baseline patched; do
		set -- "topology.sh $spec" "thp_local"
		[ "$tp" = 2node ] && set -- --allow 'thp-numa splat-check: planted' splat-check.sh "$@"
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
		REUSE=$([ "$fl" = baseline ] && echo 1 || echo 0)
		guest "$fl" "$tp" "$(rt "$@")"
	done
done
REUSE=0

# No swap storm: 80% of guest memory, THP, swap on, other nodes free.  It
# checks swap counters, not times, so it may run beside the debug guest.
case " $topos " in *" epyc4 "*)
	for fl in baseline patched; do
		say "guest: $fl on epyc4 with swap: usemem ($(($(date +%s) - start))s so far)"
		REUSE=$([ "$fl" = baseline ] && echo 1 || echo 0)
		SWAP=1024 RUNTAG=epyc4-swap guest "$fl" epyc4 "$(rt \
			"mkswap /dev/vdb >/dev/null && swapon /dev/vdb && echo '# swap on /dev/vdb'" \
			thp_usemem)"
	done
	SWAP= RUNTAG= REUSE=0 ;;
esac

# The selftests run under time limits: the debug run must be over first.
if [ -n "${debug_started:-}" ]; then
	say "waiting for the debug run ($(($(date +%s) - start))s so far)"
	[ -z "$debug_pid" ] || wait "$debug_pid" || true
	guest_report debug epyc4
fi

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
	# The longest run here (about 260 s under TCG): both kernels' runs are
	# reused while their inputs are unchanged (see run_key).
	for fl in baseline patched; do
		say "guest: $fl on epyc4: tools/testing/selftests/mm ($(($(date +%s) - start))s so far)"
		REUSE=1 RUNTAG=selftests GUEST_TIMEOUT=2400 guest_start "$fl" epyc4 \
			"selftests-mm.sh ${SELFTEST_LIMIT:-240}"
		[ -z "$bg_pid" ] || wait "$bg_pid" || true
		o=$CACHE/runs/check-$fl-selftests
		: >"$CACHE/logs/selftests-$fl.txt"
		run_status "[$fl selftests]" "$o" || continue
		log_clean "[$fl selftests]" "$o"
		selftest_keys "$o/output.log" | sort >"$CACHE/logs/selftests-$fl.txt"
	done
	REUSE=0 RUNTAG= GUEST_TIMEOUT=
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

echo "# make check took $(($(date +%s) - start))s; $reused guest runs were reused (FRESH=1 reruns them)"
finish
