#!/bin/sh
# Host-side test of tools/results.sh (make results) on the recorded runs
# in tools/fixtures/results/ (see its README: where each comes from): the
# tables it writes into a document between the markers, the text it
# leaves alone, and the errors it gives for a missing or broken run or
# document.  TAP on stdout.
#
#   tools/test-results.sh
set -u
TOOL=test-results
. "$(dirname "$0")/lib.sh"

F=$TOPDIR/tools/fixtures/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# results [ARGS]: the generator on the copy of the runs in $tmp/runs, the
# fixture's bench report and $tmp/doc.md; stdout and stderr in $tmp/out
results() {
	STORM_FILLS=3 "$TOPDIR/tools/results.sh" --runs "$tmp/runs" --bench "$F/bench/20261206-120000" \
		--doc "$tmp/doc.md" "$@" >"$tmp/out" 2>&1
}
fresh() { # a clean copy of the runs and the document
	rm -rf "$tmp/runs"
	cp -R "$F/runs" "$tmp/runs"
	cp "$F/doc.md" "$tmp/doc.md"
}
# section NAME [FILE]: the lines between the markers of NAME in FILE (the
# document)
section() {
	awk -v n="$1" '$0 == "<!-- make results: end " n " -->" { on = 0 } on; $0 == "<!-- make results: begin " n " -->" { on = 1 }' "${2:-$tmp/doc.md}"
}
# row NAME FIRST-CELLS: the table row of section NAME that starts so
row() {
	section "$1" | grep -F "| $2 |" | head -n 1
}
# cell NAME FIRST-CELLS N: that row's Nth cell (1 is the first column)
cell() {
	row "$1" "$2" | awk -F'|' -v n="$3" '{ c = $(n + 1); sub(/^ /, "", c); sub(/ $/, "", c); print c }'
}
# outside FILE: the document without what is between the markers
outside() {
	awk '/^<!-- make results: end / { on = 0 } !on; /^<!-- make results: begin / { on = 1 }' "$1"
}
# fails WHAT PATTERN: the generator failed, said PATTERN, left the document
fails() {
	cp "$tmp/doc.md" "$tmp/before.md"
	if results; then
		tap 1 "$1: make results fails"
	else
		tap 0 "$1: make results fails"
	fi
	if grep -q "$2" "$tmp/out"; then
		tap 0 "$1: the message says '$2'"
	else
		tap 1 "$1: the message says '$2' (got: $(tr '\n' ' ' <"$tmp/out"))"
	fi
	cmp -s "$tmp/before.md" "$tmp/doc.md"
	tap $? "$1: the document is unchanged"
}

echo "TAP version 13"

# ---- the tables from the recorded runs ---------------------------------------
fresh
results
tap $? "make results on the recorded runs succeeds"
is "the text outside the markers is left as it was" "$(outside "$tmp/doc.md" | cksum)" "$(outside "$F/doc.md" | cksum)"
is "every section is filled, the stale ones replaced" \
	"$(for s in header placement legacy mthp permm faultcost aged storm; do [ -n "$(section $s)" ] && echo $s; done | tr '\n' ' ')" \
	"header placement legacy mthp permm faultcost aged storm "
is "no stale line is left" "$(grep -c 'stale' "$tmp/doc.md")" 0

R=$F/runs
# placement: the LOW,FREE row as each of the four runs recorded it
is "placement: LOW,FREE with MADV_HUGEPAGE, both trees, every mode" "$(row placement "MADV_HUGEPAGE | LOW,FREE")" \
	"| MADV_HUGEPAGE | LOW,FREE | D0 THP | D0 THP | D1 THP | D1 THP | D0 THP | D0 THP | D1 THP | D1 THP |"
is "placement: the fixture's D1 THP 100% of 7.3 guest, not madvised, LOW,FREE" \
	"$(grep -c '^# placement epyc4|guest|0|always|LOW,FREE|D0 THP 0% | D0 4k 0% | D1 THP 100%' "$R/check-7.3-patched-epyc4/output.log")|$(cell placement "not madvised | LOW,FREE" 10)" \
	"1|D1 THP"
is "placement: the deep rows" "$(row placement "deep, MADV_HUGEPAGE | FRAG,FULL,FULL,FREE")" \
	"| deep, MADV_HUGEPAGE | FRAG,FULL,FULL,FREE | D2 THP | D2 THP | D0 4k | D0 4k | D2 THP | D2 THP | D0 4k | D0 4k |"
is "placement: one row per set and state of the patched 6.12 run" "$(section placement | grep -c '^| [^-r]')" \
	"$(grep '^# placement' "$R/check-patched-epyc4/output.log" | awk -F'|' '$2 == "node-first" && $1 !~ /mthp/ && ($3 == 0)' | wc -l | tr -d ' ')"
is "mthp: shares where the region is split, mTHP named 64K" "$(cell mthp "64K inherit, MADV_HUGEPAGE | FRAG,FREE" 5)|$(cell mthp "64K inherit, MADV_HUGEPAGE | FRAG,FREE" 9)" \
	"D0 64K 96% + D0 4k 4%|D0 64K 96% + D0 4k 4%"
is "mthp: PMD off" "$(row mthp "PMD off, 64K always | LOW,FREE")" \
	"| PMD off, 64K always | LOW,FREE | D1 64K | D1 64K | D1 64K | D1 64K | D1 64K | D1 64K | D1 64K | D1 64K |"
# permm: a row per region, knob and process, a column per tree
is "permm: the guest process under the node-first knob, both trees" \
	"$(row permm "MADV_HUGEPAGE | node-first | guest")" "| MADV_HUGEPAGE | node-first | guest | FRAG,FREE | D1 THP | D1 THP |"
is "permm: the default process follows the knob, not madvised" \
	"$(cell permm "not madvised | legacy | default" 5)|$(cell permm "not madvised | guest | default" 6)" "D0 4k|D1 THP"
is "permm: one row per record of the patched 6.12 run" "$(section permm | grep -c '^| [^-r]')" \
	"$(grep -c '^# permm ' "$R/check-patched-epyc4/output.log")"
# legacy: as many rows as the unpatched run's legacy records, all equal
for t in epyc4 chain4 cxl; do
	n=$(grep -c '^# placement [^|]*|legacy|' "$R/check-baseline-$t/output.log")
	is "legacy: 6.12 $t, the fixture's $n rows, all as unpatched" "$(row legacy "6.12 | $t")" "| 6.12 | $t | $n | $n |"
done
# aged: each run's share and stall, in run order
is "aged: the fixture's runs of 6.12 legacy, always, madvised" \
	"$(grep '^# aged aged|legacy|always|madvise|' "$R/check-patched-aged/output.log" | awk -F'|' '{ split($NF, s, "[= ]"); printf("%s/%s ", $5, s[2]) }')" \
	"100/1 16/135 "
is "aged: the cell gives both runs" "$(cell aged "epyc4 | aged | always | madvised" 7)" "100/16% (1/135)"
is "aged: one figure where the runs agree; - where a kernel has no such row" \
	"$(cell aged "epyc4 | aged-dm1 | madvise | madvised" 5)|$(cell aged "epyc4 | aged-dm1 | madvise | madvised" 10)|$(cell aged "1node | aged | madvise | madvised" 8)" \
	"-|17/15% (133/136)|100% (2)"
is "aged: 1node rows; no legacy-alone run there" \
	"$(cell aged "1node | aged | madvise | madvised" 7)|$(cell aged "1node | aged | madvise | madvised" 6)" "100% (1/2)|-"
# the legacy-alone runs have their own columns, next to the unpatched kernel's
for t in 6.12:6 7.3:11; do
	r=patched-aged-legacy
	[ "${t%:*}" = 7.3 ] && r=7.3-patched-aged-legacy
	want=$(grep '^# aged aged|legacy|always|madvise|' "$R/check-$r/output.log" |
		awk -F'|' 'function join(a, n,    i, s, same) { same = 1; s = a[1]
				for (i = 2; i <= n; i++) { same = same && a[i] == a[1]; s = s "/" a[i] }
				return same ? a[1] : s }
			{ split($NF, s, "[= ]"); p[++n] = $5; c[n] = s[2] }
			END { print join(p, n) "% (" join(c, n) ")" }')
	is "aged: ${t%:*} legacy alone, always, madvised: its run's shares and stalls" \
		"$(cell aged "epyc4 | aged | always | madvised" "${t#*:}")" "$want"
done
# storm: the counts and figures of the fixture's fills
fills=$(grep '^# usemem|' "$R/check-7.3-patched-storm-nf/output.log" | awk -F'|' '{ n++; if ($6 > 0) s++; if ($6 > m) m = $6 } END { print n "|" s "|" m }')
is "storm: 7.3 node-first's fills, swapped, max as recorded" "$fills" "3|2|87606"
is "storm: 7.3 node-first's row" "$(section storm | grep -F '| patched | node-first |' | sed -n 2p)" \
	"| patched | node-first | 3 | 2 | 7 | 29204 | 87606 | 1 | 0 | 100 | 29 | 0 |"
is "storm: 6.12 unpatched's row" "$(section storm | grep -F '| unpatched | stock |' | sed -n 1p)" \
	"| unpatched | stock | 3 | 3 | 24315 | 23172 | 43106 | 1 | 1 | 94 | 25 | 0 |"
# Three fills a side have 20 labellings, so p is never below 0.05 and no
# verdict at check.sh's alpha of 0.01 fails, whatever the means (the
# 7.3 node-first and guest fixtures are 29190 and 23222 swap-outs per
# fill above stock's, at p = 0.35 and 0.5).
is "storm: make check's verdicts, none below alpha with three fills a side" \
	"$(section storm | grep -E '^\| (node-first|guest|legacy) \| [0-9]' | awk -F' [|] ' '{ printf("%s ", $NF) }')" \
	"ok | ok | ok | ok | ok | ok | "
is "storm: the allowance and alpha read from tools/check.sh" "$(section storm | grep -c 'more than 15000 swap-outs or 2 kswapd passes when, too, p <= 0.01')" 1
# header and fault cost
section header >"$tmp/header"
grep -q "from the 30 \`make check\` runs of [0-9-]* [0-9:]* to [0-9-]* [0-9:]* in .*, commit [0-9a-f]\{7,\}" "$tmp/header"
tap $? "header: the runs, their dates and the commit"
grep -q "Tests that failed in these runs: patched-chain4 (exit 1: kunit mm_multi_order: mo_drain_band), 7.3-patched-1node (exit 1: kunit mm_multi_order: mo_drain_band)" "$tmp/header"
tap $? "header: the failed tests of the runs that failed"
is "faultcost: the bench report's table" "$(section faultcost | grep -c '^| FRAG | ')" 2
cp "$tmp/doc.md" "$tmp/once.md"
results --print
cp "$tmp/out" "$tmp/print"
is "--print gives the same sections" \
	"$(for s in header placement legacy mthp permm faultcost aged storm; do section $s "$tmp/print"; done | cksum)" \
	"$(for s in header placement legacy mthp permm faultcost aged storm; do section $s; done | cksum)"
cmp -s "$tmp/once.md" "$tmp/doc.md"
tap $? "--print leaves the document as it was"
results
cmp -s "$tmp/once.md" "$tmp/doc.md"
tap $? "a second make results changes nothing ($(tail -n 1 "$tmp/out"))"
fresh
STORM_FILLS=3 "$TOPDIR/tools/results.sh" --runs "$tmp/runs" --bench none --doc "$tmp/doc.md" >/dev/null 2>&1
is "without a bench report the fault-cost table stays as written" "$(section faultcost)" "| hand-written | fault-cost table |"

# ---- errors: a missing or broken run, a broken document ------------------------
fresh
rm "$tmp/runs/check-7.3-patched-aged/output.log"
fails "a missing run" "run 7.3-patched-aged: no .*output.log"
fresh
rm "$tmp/runs/check-baseline-storm/rc"
fails "a run that did not finish" "run baseline-storm: no .*rc (the run did not finish)"
fresh
grep -v '^# placement' "$F/runs/check-patched-epyc4/output.log" >"$tmp/runs/check-patched-epyc4/output.log"
fails "a run without its placement records" "run patched-epyc4: no 'placement' records"
fresh
grep -v '^# placement epyc4|guest|0|madvise|LOW,FREE|' "$F/runs/check-7.3-patched-epyc4/output.log" >"$tmp/runs/check-7.3-patched-epyc4/output.log"
fails "a missing placement cell" "no placement epyc4/0/madvise LOW,FREE for 7.3 guest"
fresh
grep -v '^# usemem|' "$F/runs/check-patched-storm-guest/output.log" >"$tmp/runs/check-patched-storm-guest/output.log"
fails "a storm run without fills" "run patched-storm-guest: no '# usemem|' fills"
fresh
grep -v 'make results: .* storm -->' "$F/doc.md" >"$tmp/doc.md"
fails "a document without a section's markers" "no markers for section storm"
fresh
grep -v 'make results: end aged -->' "$F/doc.md" >"$tmp/doc.md"
fails "a begin marker without its end" "begin storm inside aged"
fresh
sed 's/begin legacy/begin legacy-rows/; s/end legacy/end legacy-rows/' "$F/doc.md" >"$tmp/doc.md"
fails "an unknown section" "unknown section legacy-rows"
fresh
STORM_FILLS=3 "$TOPDIR/tools/results.sh" --runs "$tmp/nothing" --doc "$tmp/doc.md" >"$tmp/out" 2>&1
is "no runs directory: the error names it" "$?|$(grep -c "no runs directory $tmp/nothing" "$tmp/out")" "1|1"

tap_done
