#!/bin/sh
# Host-side tests of tools/guest-output.awk, the one parser of what guests
# print, against the output.log files in tools/fixtures/ (see its README:
# where each comes from).  Also runs its other users that need no guest:
# mm-tests/kunit-results.sh (with a stand-in dmesg), and the fault cost
# and usemem storm parts of tools/report.sh (the storm's with
# tools/storm.awk and its permutation test).  TAP on stdout.
#
#   tools/test-parser.sh
set -u
TOOL=test-parser
. "$(dirname "$0")/lib.sh"

F=$TOPDIR/tools/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # count FILE KIND [FIELD2]: records of that kind (and second field)
	guest_output "$1" "$2" | awk -F'\t' -v b="${3:-}" 'b == "" || $2 == b' | wc -l | tr -d ' '
}

echo "TAP version 13"

# ---- a check run: run-tests.sh lines, TAP, placement, diagnostics ---------
c=$F/check-patched-epyc4.output.log
is "check run: one run record per '# ===' line" "$(count "$c" run)" "$(grep -c '^# === ' "$c")"
is "check run: one kernel-log read per command" "$(count "$c" logcheck)" "$(count "$c" run)"
is "check run: the failed kernel-log read" "$(guest_output "$c" logcheck | awk -F'\t' '$2 == "fail" { print $3 }')" thp_scenarios
is "check run: the dmesg line that failed it" "$(guest_output "$c" dmesg | cut -f2 | cut -c1-30)" "[   88.120000] WARNING: CPU: 3"
is "check run: non-zero exits" "$(guest_output "$c" exited | cut -f2,3 | tr '\t\n' ': ')" "thp_scenarios:1 thp_usemem:2 "
is "check run: TAP results ok" "$(count "$c" tap ok)" 16
is "check run: TAP results failed" "$(count "$c" tap fail)" 1
is "check run: TAP skips" "$(count "$c" tap skip)" 2
is "check run: a skip's description and reason" "$(guest_output "$c" tap | awk -F'\t' '$2 == "skip"' | head -n 1 | cut -f3,4 | tr '\t' '|')" \
	"deep guest|numa_fallback knob missing or refused the mode"
is "check run: the run-tests.sh lines are no TAP results" "$(guest_output "$c" tap | grep -c 'kernel log clean')" 0
is "check run: Bail out!" "$(guest_output "$c" bail | cut -f2)" "Bail out! thp_usemem: cannot read /proc/vmstat"
is "check run: got/expected and Totals lines are diagnostics" "$(count "$c" diag)" 4
is "check run: placement records" "$(count "$c" placement)" 4
is "check run: legacy placement records" "$(guest_output "$c" placement | awk -F'\t' '$3 == "legacy"' | wc -l | tr -d ' ')" 2
is "check run: a placement's fields, its histogram kept whole" \
	"$(guest_output "$c" placement | sed -n 2p | awk -F'\t' '{ print NF "|" $4 "|" $6 "|" $7 "|" $8 }')" \
	"8|3|FRAG,FREE|D0 THP 0% | D0 4k 0% | D1 THP 100% | D1 4k 0% | D2 THP 0% | D2 4k 0%|0,1,2,2"
is "check run: only= keeps one kind" "$(guest_output "$c" placement | cut -f1 | sort -u)" placement
is "check run: no text records unless asked" "$(count "$c" "")" "$(guest_output "$c" | grep -vc '^text')"

# ---- thp_aged ---------------------------------------------------------------
a=$F/check-aged.output.log
is "aged: one record per row and mode" "$(count "$a" aged)" 2
is "aged: fields, the histogram kept whole" \
	"$(guest_output "$a" aged | sed -n 2p | awk -F'\t' '{ print NF "|" $3 "|" $6 "|" $7 "|" $8 }')" \
	"8|node-first|88|D0 THP 88% | D0 4k 12% | D1 THP 0% | D1 4k 0%|stall=5 success=4 pgscan_direct=0 thp_fault_alloc=7 thp_fault_fallback=1 kswapd9=1 kcompactd9=2"
is "aged: aged-trace.sh's summaries are text of its command" \
	"$(guest_output "$a" text | awk -F'\t' '$2 == "aged-trace.sh"' | wc -l | tr -d ' ')" 1

# ---- thp_challenge ------------------------------------------------------------
h=$F/bench-challenge.output.log
is "challenge: settings" "$(count "$h" challenge-param)" 28
is "challenge: a setting's name and value" "$(guest_output "$h" challenge-param | awk -F'\t' '$2 == "khugepaged/scan_sleep_millisecs" { print $3 }')" 10000
is "challenge: one result per variant, mode and run" "$(count "$h" challenge-result)" 6
is "challenge: a result's fields, the histogram kept whole" \
	"$(guest_output "$h" challenge-result | sed -n 1p | awk -F'\t' '{ print NF "|" $2 "|" $3 "|" $5 "|" $6 "|" $7 }')" \
	"8|normal|node-first|61|p50=1558 p90=21380 p99=25445 max=39125|D0 THP 75% | D0 4k 1% | D1 THP 20% | D1 4k 4% | D2 THP 0% | D2 4k 0%"
is "challenge: samples, vm ones included" "$(count "$h" challenge-sample)|$(count "$h" challenge-sample vm)" "54|24"
is "challenge: a sample's phase, time and faulted share" \
	"$(guest_output "$h" challenge-sample | awk -F'\t' '$5 == "post-fast"' | sed -n 1p | cut -f5,6,8 | tr '\t' '|')" "post-fast|7.0|faulted=100%"
is "challenge: khugepaged lines, default and fast" "$(guest_output "$h" challenge-khugepaged | cut -f5 | sort | uniq -c | tr -s ' ' | tr '\n' ',')" " 3 default, 3 fast,"
is "challenge: a CDF has 101 quantiles" "$(guest_output "$h" challenge-cdf | sed -n 1p | cut -f5 | wc -w | tr -d ' ')" 101
is "challenge: load lines" "$(guest_output "$h" challenge-load | awk -F'\t' '$2 == "churn maps" { print $3 }')" 609
is "challenge: its TAP" "$(count "$h" tap ok)|$(count "$h" tap fail)" "8|0"

# ---- selftests/mm: keys, exit statuses, missing programs -------------------
s=$F/check-baseline-selftests.output.log
guest_output "$s" selftest | cut -f2- | tr '\t' '|' >"$tmp/keys"
is "selftests: one key per TAP line and per program status" "$(wc -l <"$tmp/keys" | tr -d ' ')" 9
grep -qx 'cow|No leak from parent into child #2|pass' "$tmp/keys"
tap $? "selftests: a repeated test name gets #2"
grep -qx 'cow|No leak from child into parent with N kB THP|fail' "$tmp/keys"
tap $? "selftests: numbers in a test name become N"
is "selftests: exit 1, 4 and 0 are fail, skip and pass" \
	"$(grep '(exit status)' "$tmp/keys" | cut -d'|' -f3 | tr '\n' ' ')" "fail skip pass "
grep -qx 'droppable|(missing)|fail' "$tmp/keys"
tap $? "selftests: a missing program fails"
is "selftests: their TAP is not the run's TAP" "$(count "$s" tap)" 0
is "selftests: '# selftest X took' is not run-tests.sh's took" "$(guest_output "$s" took | cut -f2)" selftests-mm.sh
is "selftests: run-tests.sh's kernel-log read" "$(guest_output "$s" logcheck | cut -f2,3 | tr '\t' ' ')" "ok selftests-mm.sh"

# ---- bench: numactl's lines, fault cost ------------------------------------
b=$F/bench-numa-lat.output.log
guest_output "$b" text | awk -F'\t' '$2 == "numactl" { print $3 }' >"$tmp/topology"
is "numa-lat run: numactl -H's lines, by command name" "$(wc -l <"$tmp/topology" | tr -d ' ')" 7
is "numa-lat run: the first one" "$(head -n 1 "$tmp/topology")" "available: 4 nodes (0-3)"
is "numa-lat run: VAR=value is not a command's name" "$(guest_output "$b" took | cut -f2 | tail -n 1)" numa-lat

f=$F/bench-faultcost.output.log
is "faultcost: setup" "$(guest_output "$f" faultcost-setup | tr '\t' '|')" "faultcost-setup|FREE|64|2"
is "faultcost: one record per mode and repetition" "$(count "$f" faultcost)" 4
is "faultcost: ratio records, 15 fields" "$(guest_output "$f" faultcost-ratio | awk -F'\t' '{ print NF }' | sort -u)" 15
is "faultcost: vmstat's last counter" "$(guest_output "$f" faultcost-vmstat | head -n 1 | awk -F'\t' '{ print $NF }')" "mm_page_alloc_multi_order=64"
R=$tmp/results
mkdir "$R"
cp "$f" "$R/faultcost.log"
cp "$F/bench-faultcost.perf-faultcost.txt" "$R/perf-faultcost.txt"
echo "kernel,rows,mode,cpu_node,madvise,states,placement,classes" >"$R/placement.csv"
# bench.sh's permm.csv (two of the recorded permm run's processes)
cat >"$R/permm.csv" <<'EOF2'
knob,process,cpu_node,madvise,states,placement
node-first,guest,0,madvise,FRAG/FREE,D0 THP 0% | D0 4k 0% | D1 THP 100% | D1 4k 0% | D2 THP 0% | D2 4k 0%
node-first,default,0,madvise,FRAG/FREE,D0 THP 0% | D0 4k 100% | D1 THP 0% | D1 4k 0% | D2 THP 0% | D2 4k 0%
EOF2
PATH=/nonexistent-gnuplot:$PATH "$TOPDIR/tools/report.sh" "$R" >"$tmp/report" 2>"$tmp/report.err"
tap $? "report.sh makes a report from the fault-cost fixture (log: stderr below on failure)"
grep -q '| FREE | node-first | 1.242 | 1.028 | 1.028-1.033 |' "$tmp/report"
tap $? "report.sh: the fault-cost table row from a faultcost-ratio record"
grep -q 'One 64 MiB MADV_HUGEPAGE region per mode, .*; 2 repetitions' "$tmp/report"
tap $? "report.sh: region size and repetitions from faultcost-setup"
grep -q 'over the whole run: 96; .* add up to 64, plus 32 in the unrecorded warm-up runs' "$tmp/report"
tap $? "report.sh: tracepoint sums from perf stat, the vmstat and the warm-up records"
is "report.sh: the processes-side-by-side table, one row per process" \
	"$(grep -E '^\| node-first \| (guest|default) \|' "$tmp/report" | tr '\n' '#')" \
	"| node-first | guest | madvise | FRAG,FREE | D1 THP |#| node-first | default | madvise | FRAG,FREE | D0 4k |#"
[ "$tap_failed" = 0 ] || sed 's/^/# report.sh: /' "$tmp/report.err"

# ---- the usemem storm: thp_usemem -b's lines, storm.csv, report section 6 ----
u=$F/bench-storm-patched.output.log
ub=$F/bench-storm-baseline.output.log
is "storm: one usemem record per fill" "$(count "$u" usemem)|$(count "$ub" usemem)" "9|3"
is "storm: every usemem record has its 14 fields" "$(guest_output "$u" usemem | awk -F'\t' '{ print NF }' | sort -u)" 14
is "storm: a fill's fields come through, swap-outs to node 0 %" \
	"$(guest_output "$u" usemem | sed -n 6p | cut -f2,6- | tr '\t' '|')" "node-first+bound|88363|40|fired|7|14|310245|0|6|27"
is "storm: a neighbour that did not fire keeps its words" \
	"$(guest_output "$u" usemem | awk -F'\t' '$8 != "fired" { print $2 "|" $8 }')" "guest+bound|not fired"
is "storm: usemem-diag lines are text of thp_usemem" \
	"$(guest_output "$u" text | awk -F'\t' '$2 == "thp_usemem" && $3 ~ /^# usemem-diag[|]/' | wc -l | tr -d ' ')" 1
is "storm: its TAP, the fill whose neighbour did not fire failed" "$(count "$u" tap ok)|$(count "$u" tap fail)" "8|1"
R=$tmp/storm
mkdir "$R"
cp "$u" "$R/storm-6.12-patched.log"
cp "$ub" "$R/storm-6.12-baseline.log"
echo "kernel,rows,mode,cpu_node,madvise,states,placement,classes" >"$R/placement.csv"
"$TOPDIR/tools/report.sh" "$R" >"$tmp/storm-report" 2>"$tmp/storm-report.err"
tap $? "report.sh makes a report from the storm fixtures"
is "storm.csv: a header and one line per fill" "$(wc -l <"$R/storm.csv" | tr -d ' ')" 13
is "storm.csv: the columns" "$(head -n 1 "$R/storm.csv")" \
	"tree,kernel,mode,fill,swapouts,swapins,kswapd_passes,compact_stalls,pgscan_kswapd,pgscan_direct,hit_quickly,thp_pct,node0_pct,seconds,neighbour"
is "storm.csv: a patched fill, numbered within its mode" "$(grep -c '^6.12,patched,guest,2,0,0,0,2,0,0,0,99,35,9.74,not fired$' "$R/storm.csv")" 1
is "storm.csv: the unpatched kernel's legacy fills are stock" \
	"$(grep '^6.12,unpatched,' "$R/storm.csv" | cut -d, -f3 | sort -u)|$(grep -c '^6.12,unpatched,stock,2,53120,3,1,343,58820,121004,1,91,29,16.12,fired$' "$R/storm.csv")" "stock|1"
grep -q '^| patched | guest | 3 | 2 | 52011 | 37830 | 61480 | 4 | 11 | 99 | 30 | 1 (fill 2) |$' "$tmp/storm-report"
tap $? "report: a mode's row: fills, swapped, swap-out median/mean/max, medians, the fill whose neighbour did not fire"
grep -q '^1 of 12 fills: the neighbour did not fire' "$tmp/storm-report"
tap $? "report: says how many fills did not make the case"
# by hand: C(6,3) = 20 labellings; node-first's three are the largest
# sum but one with stock's 53120 in (p 2/20), its passes the largest (1/20)
grep -q '^| node-first | swap-outs | 3, 3 | 66261.7 | 17706.7 | +48555.0 | 0.100 | exact, all 20 labellings |$' "$tmp/storm-report"
tap $? "report: permutation test on swap-outs, exact"
grep -q '^| node-first | kswapd passes | 3, 3 | 5.0 | 0.3 | +4.7 | 0.050 | exact, all 20 labellings |$' "$tmp/storm-report"
tap $? "report: permutation test on kswapd passes"
is "report: guest and legacy are tested too (p)" \
	"$(awk -F' [|] ' '$1 ~ /^[|] (guest|legacy)$/ { printf("%s %s %s,", $1, $2, $7) }' "$tmp/storm-report")" \
	"| guest swap-outs 0.350,| guest kswapd passes 0.200,| legacy swap-outs 0.800,| legacy kswapd passes 0.800,"
is "strip plot data: one point per fill, the one that did not fire apart" \
	"$(grep -vc '^#' "$R/plots/storm-6.12.dat")|$(awk -F'\t' '!/^#/ && $4 != "?"' "$R/plots/storm-6.12.dat" | cut -f1,3,4 | tr '\t' ' ')" "12|2 ? 0"
if command -v gnuplot >/dev/null; then
	[ -s "$R/plots/storm-6.12.svg" ] && [ -s "$R/plots/storm-6.12.png" ]
	tap $? "report: the strip plot, SVG and PNG"
else
	tap 0 "report: the strip plot, SVG and PNG # SKIP no gnuplot here"
fi
[ "$tap_failed" = 0 ] || sed 's/^/# report.sh: /' "$tmp/storm-report.err"
# more fills than an exact test takes: 20000 random labellings, and a
# counter the kernel did not have (-1) is left out, and said so
awk 'BEGIN { print "tree,kernel,mode,fill,swapouts,swapins,kswapd_passes,compact_stalls,pgscan_kswapd,pgscan_direct,hit_quickly,thp_pct,node0_pct,seconds,neighbour"
	for (i = 1; i <= 10; i++) {
		printf("7.3,patched,node-first,%d,%d,0,-1,1,0,0,0,99,30,10.0,fired\n", i, 60000 + i)
		printf("7.3,unpatched,stock,%d,%d,0,-1,1,0,0,0,99,30,10.0,fired\n", i, i % 3 ? 0 : 40000)
	} }' >"$tmp/storm-random.csv"
is "permutation test: C(20,10) labellings are sampled" \
	"$(awk -f "$TOPDIR/tools/storm.awk" -v what=test -v tree=7.3 "$tmp/storm-random.csv" | grep '^| node-first | swap-outs' | cut -d'|' -f8,9)" \
	" 0.000 | 20000 random labellings (of more than 20000), srand(1) "
is "permutation test: no test on a counter no fill has" \
	"$(awk -f "$TOPDIR/tools/storm.awk" -v what=test -v tree=7.3 "$tmp/storm-random.csv" | grep -c '^| node-first | kswapd passes | 0, 0 |.*no test')" 1
awk -f "$TOPDIR/tools/storm.awk" -v what=table -v tree=7.3 "$tmp/storm-random.csv" | grep -q 'left out of their figures: node-first: 10 fills without kswapd passes'
tap $? "storm table: says which counters were missing (-1) and left out"
# make check's verdicts (what=check): a mode's mean above the unpatched
# kernel's by more than the allowance, with the permutation test's p at
# most alpha, fails; so does a group with another number of fills than
# make check ran.  Three fills a side have C(6,3) = 20 labellings, so
# their smallest p is 0.05; the checks below use alpha 0.1 unless named.
chk() { awk -f "$TOPDIR/tools/storm.awk" -v what=check -v tree="$1" -v want="$2" -v allow_out="$3" -v allow_pass="$4" -v alpha="${6:-0.1}" "$5" | cut -f1,2 | tr '\t\n' ':,'; }
is "check: within the allowance passes, every mode and counter" "$(chk 6.12 3 50000 5 "$R/storm.csv")" \
	"ok:node-first swap-outs,ok:node-first kswapd passes,ok:guest swap-outs,ok:guest kswapd passes,ok:legacy swap-outs,ok:legacy kswapd passes,"
is "check: node-first 48555 swap-outs and 4.7 passes above stock (p = 0.10, 0.05) fail 15000 and 1 at alpha 0.1" "$(chk 6.12 3 15000 1 "$R/storm.csv" | cut -d, -f1,2)" \
	"fail:node-first swap-outs,fail:node-first kswapd passes"
is "check: the same excess passes at alpha 0.01 (three fills a side can be chance)" "$(chk 6.12 3 15000 1 "$R/storm.csv" 0.01 | cut -d, -f1,2)" \
	"ok:node-first swap-outs,ok:node-first kswapd passes"
is "check: fills missing fail the unpatched kernel's group" "$(chk 6.12 4 15000 1 "$R/storm.csv")" "fail:the unpatched kernel,"
is "check: a counter no fill has fails" "$(chk 7.3 10 100000 100 "$tmp/storm-random.csv" | cut -d, -f2)" \
	"fail:node-first kswapd passes"
is "check: 10 fills of 60000 against stock's 0 and 40000 fail at alpha 0.01 (p = 0.000)" "$(chk 7.3 10 15000 100 "$tmp/storm-random.csv" 0.01 | cut -d, -f1)" \
	"fail:node-first swap-outs"
# one fill far above stock's and nine at its level: the mean excess is
# beyond the allowance, but one fill in ten is chance (p = 0.5)
awk 'BEGIN { print "tree,kernel,mode,fill,swapouts,swapins,kswapd_passes,compact_stalls,pgscan_kswapd,pgscan_direct,hit_quickly,thp_pct,node0_pct,seconds,neighbour"
	for (i = 1; i <= 10; i++) {
		printf("6.12,patched,legacy,%d,%d,0,1,0,0,0,0,99,30,1.0,fired\n", i, i == 1 ? 200000 : 1000 * i)
		printf("6.12,unpatched,stock,%d,%d,0,1,0,0,0,0,99,30,1.0,fired\n", i, 1000 * i)
	} }' >"$tmp/storm-one.csv"
is "check: one outlying fill is beyond the allowance but not below alpha: ok" "$(chk 6.12 10 15000 2 "$tmp/storm-one.csv" 0.01 | cut -d, -f1)" \
	"ok:legacy swap-outs"
is "check: an alpha that is not a level fails the verdict" "$(chk 6.12 10 15000 2 "$tmp/storm-one.csv" 1.5)" "fail:the verdict,"

# ---- the walk's cost as the machine grows (report.sh, walkcost-*.log) --------
# recorded thp_faultcost -S FREE,FAR runs on 2node and hpe16 (fixtures)
R=$tmp/walk
mkdir "$R"
cp "$F/bench-walkcost-2node.output.log" "$R/walkcost-2node.log"
cp "$F/bench-walkcost-hpe16.output.log" "$R/walkcost-hpe16.log"
echo "kernel,rows,mode,cpu_node,madvise,states,placement,classes" >"$R/placement.csv"
"$TOPDIR/tools/report.sh" "$R" >"$tmp/walk-report" 2>"$tmp/walk-report.err"
tap $? "report.sh makes a report from the walk-cost fixtures"
is "walkcost.csv: a header and one line per topology, state and mode" "$(wc -l <"$R/walkcost.csv" | tr -d ' ')" 13
is "walkcost.csv: nodes and node 0's classes from the preset's SLIT" \
	"$(awk -F, 'NR > 1 { print $1 ":" $2 ":" $3 }' "$R/walkcost.csv" | sort -u | tr '\n' ' ')" "2node:2:2 hpe16:16:5 "
grep -q '^| hpe16 | 16 | 5 | FAR | [0-9.]* | [0-9.]* | [0-9.]* ([0-9.]*-[0-9.]*) | [0-9.]* | [0-9.]* ([0-9.]*-[0-9.]*) |$' "$tmp/walk-report"
tap $? "report: hpe16's FAR row, each mode's us per fault and ratio to legacy"
grep -q '^| 2node | 2 | 2 | FREE |' "$tmp/walk-report" && ! grep -q "(no walk-cost runs)" "$tmp/walk-report"
tap $? "report: the rows in order of nodes"
if command -v gnuplot >/dev/null; then
	[ -s "$R/plots/walkcost.svg" ] && [ -s "$R/plots/walkcost.png" ]
	tap $? "report: the walk-cost plot, SVG and PNG"
else
	tap 0 "report: the walk-cost plot, SVG and PNG # SKIP no gnuplot here"
fi

# ---- make host-bench's report (report.sh --host) ---------------------------
# A host-bench directory as tools/host.sh bench writes it, its output.log
# put together from recorded guest output (numa-lat, placement rows, fault
# cost, storm), and the unpatched kernel's run as the other directory.
H=$tmp/host
HB=$tmp/host-unpatched
mkdir "$H" "$HB"
cat "$F/bench-numa-lat.output.log" "$F/recorded-check-patched-epyc4.output.log" \
	"$F/bench-faultcost.output.log" "$F/bench-storm-patched.output.log" >"$H/output.log"
echo "6.12 patched 6.12.118-thpnuma+" >"$H/kernel.txt"
echo "cpu: stand-in, 4 CPUs" >"$H/machine.txt"
printf 'name this machine, numa-lat\nD0 THP 0\nD0 4k 40\nD1 THP 30\nD1 4k 90\nD2 THP 100\nD2 4k 200\n' >"$H/numa-lat.cost"
cp "$F/bench-storm-baseline.output.log" "$HB/output.log"
echo "6.12 baseline 6.12.118" >"$HB/kernel.txt"
# one machine: the same CPUs and SLIT in both (host.sh's machine.key)
printf 'cpu: stand-in, 4 CPUs\nnode0: 10 16 32 32\nnode1: 16 10 32 32\n' | tee "$H/machine.key" >"$HB/machine.key"
PATH=/nonexistent-gnuplot:$PATH "$TOPDIR/tools/report.sh" --host "$H" "$HB" >"$tmp/host-report" 2>"$tmp/host-report.err"
tap $? "report.sh --host makes a report from a host-bench directory and the other kernel's"
[ "$tap_failed" = 0 ] || sed 's/^/# report.sh --host: /' "$tmp/host-report.err"
is "host report: its title and what ran" "$(sed -n '1p;4p' "$tmp/host-report" | tr '\n' '#')" \
	"# make host-bench results#topology, memory and timings (patched: 6.12.118-thpnuma+; baseline: 6.12.118).#"
is "host report: the storm logs by the kernel.txt of each directory" \
	"$(cd "$H" && ls storm-*.log | tr '\n' ' ')" "storm-6.12-baseline.log storm-6.12-patched.log "
grep -q '^| patched | guest | 3 | 2 | 52011 | 37830 | 61480 | 4 | 11 | 99 | 30 | 1 (fill 2) |$' "$tmp/host-report"
tap $? "host report: a mode's storm row, against the unpatched kernel's fills"
grep -q '| FREE | node-first | 1.242 | 1.028 | 1.028-1.033 |' "$tmp/host-report"
tap $? "host report: the fault-cost table from output.log"
is "host report: placement.csv, the patched kernel's thp_scenarios records" \
	"$(grep -c '^patched,' "$H/placement.csv")|$(grep -c '^baseline,' "$H/placement.csv")" \
	"$(count "$F/recorded-check-patched-epyc4.output.log" placement)|0"
is "host report: projected with the machine's own table only" \
	"$(grep '^\*\*Cost table: ' "$tmp/host-report" | tr '\n' '#')" "**Cost table: this machine; numa-lat** ($H/numa-lat.cost)#"
! grep -q "Why these columns are nearly flat\|QEMU guest under TCG" "$tmp/host-report"
tap $? "host report: says nothing of emulation"
grep -q '^| node states | node-first | guest | legacy | stock 6.12 | legacy = stock |$' "$tmp/host-report"
tap $? "host report: the unpatched column named by the runs' tree"
echo "6.18 patched 6.18.2-thpnuma+" >"$H/kernel.txt"
echo "6.18 baseline 6.18.2" >"$HB/kernel.txt"
"$TOPDIR/tools/report.sh" --host "$H" "$HB" >"$tmp/host-report" 2>&1 &&
	grep -q '| stock 6.18 | legacy = stock |$' "$tmp/host-report" && ! grep -q 'stock 6\.12' "$tmp/host-report"
tap $? "host report: a 6.18 machine's unpatched kernel is 'stock 6.18'"
echo "6.18 patched 6.18.2-other" >"$HB/kernel.txt"
"$TOPDIR/tools/report.sh" --host "$H" "$HB" >/dev/null 2>"$tmp/host-report.err"
[ $? != 0 ] && grep -q "are both runs of the patched kernel" "$tmp/host-report.err" && [ -s "$H/storm-6.18-patched.log" ]
tap $? "report.sh --host refuses two runs of one kernel, before it removes anything"
echo "6.12 baseline 6.12.118" >"$HB/kernel.txt"
"$TOPDIR/tools/report.sh" --host "$H" "$HB" >/dev/null 2>"$tmp/host-report.err"
[ $? != 0 ] && grep -q "are different trees" "$tmp/host-report.err"
tap $? "report.sh --host refuses the unpatched run of another tree"
echo "6.12 patched 6.12.118-thpnuma+" >"$H/kernel.txt"
sed -i 's/^node1: .*/node1: 16 10 12 32/' "$HB/machine.key"
"$TOPDIR/tools/report.sh" --host "$H" "$HB" >/dev/null 2>"$tmp/host-report.err"
[ $? != 0 ] && grep -q "are not runs on one machine" "$tmp/host-report.err"
tap $? "report.sh --host refuses another machine's run (machine.key: another SLIT)"
cp "$H/machine.key" "$HB/machine.key"
rm "$HB/kernel.txt"
"$TOPDIR/tools/report.sh" --host "$H" "$HB" >/dev/null 2>"$tmp/host-report.err"
[ $? != 0 ] && grep -q "is not a make host-bench directory" "$tmp/host-report.err"
tap $? "report.sh --host refuses another directory without kernel.txt"
# the unpatched kernel's run alone: its placement rows make the tables
mkdir "$tmp/host-alone"
grep -v "^# faultcost" "$H/output.log" >"$tmp/host-alone/output.log"
echo "6.12 baseline 6.12.118" >"$tmp/host-alone/kernel.txt"
"$TOPDIR/tools/report.sh" --host "$tmp/host-alone" >"$tmp/host-report" 2>&1 &&
	grep -q '^| FRAG,FREE | not run | not run | not run | D1 THP | no patched run |$' "$tmp/host-report" &&
	grep -q "(no fault-cost run)" "$tmp/host-report"
tap $? "host report of the unpatched kernel alone: its placement column, no fault cost"

# ---- KUnit, from a kernel log, in the guest's kunit-results.sh -------------
mkdir "$tmp/bin"
cp "$TOPDIR/mm-tests/kunit-results.sh" "$TOPDIR/tools/guest-output.awk" "$tmp/bin/"
printf '#!/bin/sh\ncat "$FAKE_DMESG"\n' >"$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"
kunit() { # kunit DMESG-FILE ARGS...: sets out, rc
	log=$1
	shift
	rc=0
	out=$(PATH=$tmp/bin:$PATH FAKE_DMESG=$log sh "$tmp/bin/kunit-results.sh" "$@") || rc=$?
}
kunit "$F/kunit.dmesg" mm_multi_order
is "kunit: one TAP line per case, only of the suite" "$(echo "$out" | grep -c '^\(not \)\{0,1\}ok - kunit')" 5
echo "$out" | grep -qx 'not ok - kunit mm_multi_order: mo_non_compound'
tap $? "kunit: a failed case"
echo "$out" | grep -qx 'ok - kunit mm_multi_order: mo_thisnode_and_nodemask # SKIP needs two nodes'
tap $? "kunit: a skipped case keeps its SKIP directive"
echo "$out" | grep -q '^# mo_non_compound: EXPECTATION FAILED'
tap $? "kunit: the suite's diagnostics"
is "kunit: exit status with a failed case" "$rc" 1
is "kunit: a plan for the cases it printed" "$(echo "$out" | grep '^1\.\.')" "1..5"
kunit "$F/kunit.dmesg" no_such_suite
is "kunit: a suite that did not run fails" "$(echo "$out" | tr '\n' ';')$rc" "1..1;not ok - kunit no_such_suite did not run (CONFIG_MULTI_ORDER_KUNIT_TEST=y?);1"
kunit "$F/kunit.dmesg" no_such_suite --optional
is "kunit: --optional skips it" "$(echo "$out" | tr '\n' ';')$rc" "1..1;ok - kunit no_such_suite # SKIP not built into this kernel;0"

# ---- recorded runs (make check on 2026-12-04, cut from $CACHE/runs) --------
r=$F/recorded-check-patched-epyc4.output.log
is "recorded epyc4 run: its 10 commands" "$(count "$r" run)|$(count "$r" logcheck ok)" "10|10"
is "recorded epyc4 run: every ok/not ok line is a tap or logcheck record" \
	"$(($(count "$r" tap) + $(count "$r" logcheck)))" "$(grep -c '^\(not \)\{0,1\}ok ' "$r")"
is "recorded epyc4 run: no failed TAP line, one skip" "$(count "$r" tap fail)|$(count "$r" tap skip)" "0|1"
is "recorded epyc4 run: the skip's reason" "$(guest_output "$r" tap | awk -F'\t' '$2 == "skip" { print $4 }')" \
	"6.12 ties THP placement to the defrag setting"
is "recorded epyc4 run: placement records, legacy among them" \
	"$(count "$r" placement)|$(guest_output "$r" placement | awk -F'\t' '$3 == "legacy"' | wc -l | tr -d ' ')" "69|23"
r2=$F/recorded-check-patched-2node.output.log
is "recorded 2node run: --allow is no command" "$(guest_output "$r2" run | cut -f2 | tr '\n' ',')" \
	"kunit-results.sh mm_multi_order,splat-check.sh,topology.sh 1,1 1024,1024 10,20/20,10,thp_local,thp_knob,"
r3=$F/recorded-check-baseline-selftests.output.log
is "recorded selftests/mm: keys by result (17 as the old reader, plus the missing program)" \
	"$(guest_output "$r3" selftest | cut -f4 | sort | uniq -c | tr -s ' ' | tr '\n' ',')" " 1 fail, 6 pass, 11 skip,"
is "recorded selftests/mm: program statuses" \
	"$(guest_output "$r3" selftest | awk -F'\t' '$3 ~ /^\(/ { printf("%s=%s ", $2, $4) }')" \
	"khugepaged=skip migration=fail split_huge_page_test=pass compaction_test=pass soft-dirty=skip "
is "recorded selftests/mm: one run-tests.sh command around them" "$(count "$r3" run)|$(count "$r3" logcheck ok)|$(count "$r3" tap)" "1|1|0"
kunit "$F/recorded-kunit.dmesg" mm_multi_order
is "recorded KUnit log: the same five results as that run's kunit-results.sh printed" \
	"$(echo "$out" | grep '^ok - kunit ' | md5sum)" "$(grep '^ok - kunit ' "$r2" | md5sum)"

# ---- processes with their own order: the harness selftest, thp_permm -------
p=$F/recorded-check-permm.output.log
is "recorded permm run: the harness selftest's plan and results" \
	"$(guest_output "$p" plan | head -n 1 | cut -f2)|$(guest_output "$p" tap | awk -F'\t' '$3 ~ /^fallback\./ { printf("%s %s,", $2, $3) }')" \
	"5|ok fallback.set_get_reset,ok fallback.bad_values,ok fallback.fork_inherits,ok fallback.exec_keeps,ok fallback.thread_sets_process,"
is "recorded permm run: one permm record per process that reported" "$(count "$p" permm)" 16
is "recorded permm run: a record's fields (knob, process, cpu, region, states)" \
	"$(guest_output "$p" permm | awk -F'\t' '$2 == "node-first" && $3 == "guest" && $5 == "madvise"' | cut -f2-6 | tr '\t' '|')" \
	"node-first|guest|0|madvise|FRAG,FREE"
is "recorded permm run: the placement is the whole histogram" \
	"$(guest_output "$p" permm | awk -F'\t' '$2 == "node-first" && $3 == "guest" && $5 == "always"' | cut -f7)" \
	"D0 THP 0% | D0 4k 0% | D1 THP 100% | D1 4k 0% | D2 THP 0% | D2 4k 0%"
is "recorded permm run: without the launcher every line fails and the test exits 1" \
	"$(count "$p" tap fail)|$(guest_output "$p" exited | cut -f2,3 | tr '\t' ' ')" "4|thp_permm 1"

# ---- every fixture parses, and no line of a run is lost --------------------
for log in "$F"/*.output.log; do
	is "$(basename "$log"): one record per line, text included" \
		"$(guest_output "$log" run,took,logcheck,dmesg,exited,diag,tap,bail,plan,text,placement,faultcost,faultcost-setup,faultcost-warmup,faultcost-ratio,faultcost-vmstat,usemem,aged,selftest,selftest-start,challenge-param,challenge-sample,challenge-result,challenge-khugepaged,challenge-cdf,challenge-load,permm | wc -l | tr -d ' ')" \
		"$(grep -vc '^# selftest [^ ]* took ' "$log")"
done

tap_done
