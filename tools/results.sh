#!/bin/sh
# make results: the tables of docs/results.md that make check (and make
# bench) produce, regenerated from the recorded runs.  Each table sits
# between two marker lines of the document,
#
#   <!-- make results: begin NAME -->
#   <!-- make results: end NAME -->
#
# and only what is between them is rewritten; the text around them is
# left as it is.
#
#   tools/results.sh [--runs DIR] [--bench DIR|none] [--doc FILE] [--print]
#
# --runs DIR   the recorded make check runs, one check-<name>/ directory
#              each (default $CACHE/runs, where tools/runs.sh keeps them)
# --bench DIR  a make bench results directory (tools/bench.sh writes
#              results/<date>/) whose report.md gives the fault-cost
#              table; default: the newest results/*/report.md in the
#              repository or in $CACHE; none: leave that table as it is
# --doc FILE   the document (default docs/results.md)
# --print      print the sections (with their markers) instead of
#              rewriting the document
#
# The sections (NAME) and the runs of tools/runs.conf they come from:
#   header      which runs, their dates, the commit, the series version
#   placement   the design's rows on epyc4, MADV_HUGEPAGE and not, and
#               the deep rows: [baseline|patched]-epyc4 and
#               7.3-[baseline|patched]-epyc4
#   mthp        the 64K mTHP rows of the same runs
#   permm       processes with their own PR_SET_THP_NUMA_FALLBACK side by
#               side in one boot, under each knob value (thp_permm):
#               patched-epyc4 and 7.3-patched-epyc4
#   legacy      legacy against the unpatched kernel row by row, every
#               topology with scenario rows (make check's step 8)
#   aged        thp_aged (the stock contract): *-aged and *-1node
#   storm       the usemem storm per tree, tools/storm.awk's table and
#               make check's verdicts (step 9): *-storm*
#   faultcost   section 4 of the bench report; without a bench results
#               directory the document's own (hand-written) table stays
# A run that is missing, did not finish (no rc) or lacks the records a
# table needs is an error that names it, and the document is not
# touched.  A run that finished with a failed test is read; the header
# names its failures.  Neither is it when a marker is missing or unbalanced.
set -u
TOOL=results
. "$(dirname "$0")/lib.sh"
. "$TOPDIR/tools/runs.sh"

runs=$CACHE/runs
bench=
doc=$TOPDIR/docs/results.md
print=0
while [ $# -gt 0 ]; do
	case $1 in
	--runs) [ $# -ge 2 ] || die "--runs takes a directory"; runs=$2; shift 2 ;;
	--bench) [ $# -ge 2 ] || die "--bench takes a directory or none"; bench=$2; shift 2 ;;
	--doc) [ $# -ge 2 ] || die "--doc takes a file"; doc=$2; shift 2 ;;
	--print) print=1; shift ;;
	*) die "unknown option $1 (see the head of tools/results.sh)" ;;
	esac
done
[ -d "$runs" ] || die "no runs directory $runs (make check records its runs there; --runs DIR names another)"
[ "$print" = 1 ] || [ -f "$doc" ] || die "no document $doc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=$tmp/sections
mkdir -p "$S"
used=$tmp/used

# ---- the runs ----------------------------------------------------------------
# run_log NAME: the output.log of make check's run NAME, checked: the run is
# in the plan and it finished; remembered for the header, which names the
# tests that failed in it
run_log() {
	run_row check "$1" || die "tools/runs.conf has no check run $1"
	d=$runs/check-$1
	[ -s "$d/output.log" ] ||
		die "run $1: no $d/output.log (make check records it; the run is missing or did not start)"
	[ -f "$d/rc" ] || die "run $1: no $d/rc (the run did not finish)"
	grep -qx "$1" "$used" 2>/dev/null || echo "$1" >>"$used"
	echo "$d/output.log"
}
# tree_of RUN: 7.3 or 6.12
tree_of() { case $1 in 7.3-*) echo 7.3 ;; *) echo 6.12 ;; esac; }
# the patched run of a baseline run (tools/check.sh's patched_of)
patched_of() { echo "$1" | sed 's/baseline-/patched-/'; }

# records KIND RUN...: each run's records of KIND (tools/guest-output.awk),
# each line prefixed with the column it fills: "TREE unpatched" for a
# baseline run, "TREE MODE" for a patched one
records() {
	kind=$1
	shift
	for r in "$@"; do
		log=$(run_log "$r") || exit 1
		n=$(guest_output "$log" "$kind" | wc -l)
		[ "$n" -gt 0 ] || die "run $r: no '$kind' records in $log (the test printed none: did it run to its end?)"
		# a column per kernel and mode; the patched runs of legacy
		# alone (*-aged-legacy) have their own
		case $r in *baseline-*) k=unpatched ;; *-aged-legacy) k="legacy alone" ;; *) k=patched ;; esac
		guest_output "$log" "$kind" | awk -F'\t' -v t="$(tree_of "$r")" -v k="$k" '
			{ print t " " (k == "patched" ? $3 : k) "\t" $0 }'
	done
}
SECTIONS="header placement mthp permm legacy aged storm faultcost"
COLS="6.12 unpatched|6.12 legacy|6.12 node-first|6.12 guest|7.3 unpatched|7.3 legacy|7.3 node-first|7.3 guest"
# the aged rows: also legacy run alone in its boot, which step 8 compares
AGED_COLS="6.12 unpatched|6.12 legacy alone|6.12 legacy|6.12 node-first|6.12 guest|7.3 unpatched|7.3 legacy alone|7.3 legacy|7.3 node-first|7.3 guest"
EPYC4_RUNS="baseline-epyc4 patched-epyc4 7.3-baseline-epyc4 7.3-patched-epyc4"

# ---- placement tables ----------------------------------------------------------
# shellcheck disable=SC2086 # a list of run names
records placement $EPYC4_RUNS >"$tmp/placement.tsv" || exit 1
# placement_table LABEL SET...: one row per set (ROWS/CPU/MADVISE, in
# the order given) and node states (in the order the patched 6.12 run
# gives them), a column per kernel and mode; a cell is the region's
# placement, "D0 THP" when it is all there, else its shares.  LABEL is
# the first column's header.  A cell with no record is an error.
placement_table() {
	label=$1
	shift
	awk -F'\t' -v label="$label" -v sets="$*" -v cols="$COLS" "$(cat "$TOPDIR/tools/placement.awk")"'
	function setname(s,    p) {
		split(s, p, "/")
		if (p[1] == "epyc4" && p[2] == 0)
			return p[3] == "madvise" ? "MADV_HUGEPAGE" : "not madvised"
		if (p[1] == "epyc4")
			return "node " p[2] "'"'"'s CPU"
		if (p[1] == "deep")
			return "deep, MADV_HUGEPAGE"
		if (p[1] == "mthp+64K")
			return "64K inherit, MADV_HUGEPAGE"
		if (p[1] == "mthp+64K-2M")
			return "PMD off, 64K always"
		return p[1] " rows"
	}
	{
		set = $3 "/" $5 "/" $6
		if ($1 == "6.12 node-first" && !((set, $7) in seen)) {
			seen[set, $7] = 1
			st[set, ++nst[set]] = $7
		}
		# the mTHP rows enable one mTHP size, 64K
		cell[$1, set, $7] = placement_short($8, $3 ~ /^mthp/ ? "64K" : "mTHP")
	}
	END {
		nc = split(cols, col, "|")
		ns = split(sets, sl, " ")
		printf("| %s | node states |", label)
		for (c = 1; c <= nc; c++)
			printf(" %s |", col[c])
		printf("\n|---|---|")
		for (c = 1; c <= nc; c++)
			printf("---|")
		printf("\n")
		for (s = 1; s <= ns; s++) {
			if (!nst[sl[s]]) {
				printf("no placement rows %s in the patched 6.12 run\n", sl[s]) >"/dev/stderr"
				bad = 1
			}
			for (j = 1; j <= nst[sl[s]]; j++) {
				states = st[sl[s], j]
				printf("| %s | %s |", setname(sl[s]), states)
				for (c = 1; c <= nc; c++) {
					if (!((col[c], sl[s], states) in cell)) {
						printf("no placement %s %s for %s\n", sl[s], states, col[c]) >"/dev/stderr"
						bad = 1
					}
					printf(" %s |", cell[col[c], sl[s], states])
				}
				printf("\n")
			}
		}
		exit bad
	}' "$tmp/placement.tsv" 2>"$tmp/err" ||
		die "placement table ($*): $(head -n 3 "$tmp/err" | tr '\n' ';') (runs: $EPYC4_RUNS)"
}
placement_table rows epyc4/0/madvise epyc4/0/always deep/0/madvise >"$S/placement" || exit 1
placement_table rows mthp+64K/0/madvise mthp+64K-2M/0/madvise >"$S/mthp" || exit 1

# ---- processes with their own order in one boot (thp_permm) -------------------
# knob x process setting -> placement, one column per tree, from the
# patched epyc4 runs
records permm patched-epyc4 7.3-patched-epyc4 >"$tmp/permm.tsv" || exit 1
awk -F'\t' "$(cat "$TOPDIR/tools/placement.awk")"'
	{
		split($1, col, " ")	# records(): "TREE KNOB"
		k = $6 SUBSEP $3 SUBSEP $4
		if (!(k in seen)) { seen[k] = 1; keys[++n] = k; st[k] = $7 }
		cell[col[1], k] = placement_short($8, "mTHP")
	}
	END {
		print "| region | numa_fallback | process (thp-numa-exec --mode) | node states | 6.12 | 7.3 |"
		print "|---|---|---|---|---|---|"
		for (i = 1; i <= n; i++) {
			split(keys[i], f, SUBSEP)
			printf("| %s | %s | %s | %s |", f[1] == "madvise" ? "MADV_HUGEPAGE" : "not madvised", f[2], f[3], st[keys[i]])
			for (c = 1; c <= 2; c++) {
				t = c == 1 ? "6.12" : "7.3"
				if (!((t, keys[i]) in cell)) {
					printf("no permm record %s %s %s on %s\n", f[1], f[2], f[3], t) >"/dev/stderr"
					bad = 1
				}
				printf(" %s |", cell[t, keys[i]])
			}
			printf("\n")
		}
		exit bad
	}' "$tmp/permm.tsv" >"$S/permm" 2>"$tmp/err" ||
	die "permm table: $(head -n 3 "$tmp/err" | tr '\n' ';') (runs: patched-epyc4 7.3-patched-epyc4)"

# ---- legacy against the unpatched kernel (make check, step 8) -----------------
# a row is rows|cpu|madvise|states|placement|classes, as tools/check.sh
# compares them
legacy_rows() { # legacy_rows RUN
	log=$(run_log "$1") || exit 1
	guest_output "$log" placement |
		awk -F'\t' '$3 == "legacy" { print $2 "|" $4 "|" $5 "|" $6 "|" $7 "|" $8 }' | sort
}
# r_cmds, r_topo: run_row's (tools/runs.sh)
# shellcheck disable=SC2154
{
	echo "| tree | topology | legacy rows | placed as on the unpatched kernel |"
	echo "|---|---|---|---|"
	for base in $(run_names check "fg quiet"); do
		case $base in baseline-* | *-baseline-*) ;; *) continue ;; esac
		run_row check "$base"
		case $r_cmds in *thp_scenarios*) ;; *) continue ;; esac
		legacy_rows "$base" >"$tmp/lb" || exit 1
		legacy_rows "$(patched_of "$base")" >"$tmp/lp" || exit 1
		nb=$(wc -l <"$tmp/lb")
		[ "$nb" -gt 0 ] || die "run $base: no legacy placement rows"
		same=$(comm -12 "$tmp/lb" "$tmp/lp" | wc -l)
		echo "| $(tree_of "$base") | $r_topo | $nb | $same |"
	done
} >"$S/legacy" || exit 1

# ---- thp_aged, the stock contract ------------------------------------------
# aged_table RUN...: one row per topology, row, defrag and region, in the
# order they first appear; a cell is each run's local THP share and
# compact_stall ("100/16% (1/135)", one figure when the runs agree), "-"
# where a kernel has no such row (defrag_mode is 7.3's)
aged_table() { # aged_table TOPOLOGY RUN...
	topo=$1
	shift
	records aged "$@" >"$tmp/aged.tsv" || exit 1
	awk -F'\t' -v cols="$AGED_COLS" -v topo="$topo" '
	function join(a, k,    i, s, same) {
		same = 1
		for (i = 2; i <= k; i++)
			if (a[i] != a[1])
				same = 0
		if (same)
			return a[1]
		s = a[1]
		for (i = 2; i <= k; i++)
			s = s "/" a[i]
		return s
	}
	{
		# column, kind, ROW, MODE, DEFRAG, MADVISE, LOCAL_THP%, HIST, COUNTERS
		key = $3 "|" $5 "|" $6
		if (!(key in seen)) {
			seen[key] = 1
			order[++nk] = key
		}
		i = ++n[$1, key]
		pct[$1, key, i] = $7
		stall[$1, key, i] = $9
		sub(/^stall=/, "", stall[$1, key, i])
		sub(/ .*/, "", stall[$1, key, i])
	}
	END {
		nc = split(cols, col, "|")
		for (j = 1; j <= nk; j++) {
			split(order[j], f, "|")
			printf("| %s | %s | %s | %s |", topo, f[1], f[2], f[3] == "madvise" ? "madvised" : "not madvised")
			for (c = 1; c <= nc; c++) {
				k = n[col[c], order[j]]
				if (!k) {
					printf(" - |")
					continue
				}
				for (i = 1; i <= k; i++) {
					p[i] = pct[col[c], order[j], i]
					s[i] = stall[col[c], order[j], i]
				}
				printf(" %s%% (%s) |", join(p, k), join(s, k))
			}
			printf("\n")
		}
	}' "$tmp/aged.tsv"
}
{
	printf "| topology | row | defrag | region |"
	echo "$AGED_COLS" | awk -F'|' '{ for (i = 1; i <= NF; i++) printf(" %s |", $i); printf("\n|---|---|---|---|"); for (i = 1; i <= NF; i++) printf("---|"); printf("\n") }'
	aged_table epyc4 baseline-aged patched-aged-legacy patched-aged 7.3-baseline-aged \
		7.3-patched-aged-legacy 7.3-patched-aged || exit 1
	aged_table 1node baseline-1node patched-1node 7.3-baseline-1node 7.3-patched-1node || exit 1
} >"$S/aged" || exit 1

# ---- the usemem storm (make check, step 9) ------------------------------------
storm() { awk -f "$TOPDIR/tools/storm.awk" "$@"; }
# make check's allowances, read from tools/check.sh so the two cannot differ
allow=$(sed -n 's/.*-v allow_out=\([0-9][0-9]*\) -v allow_pass=\([0-9][0-9]*\) -v alpha=\([0-9.][0-9.]*\).*/\1 \2 \3/p' "$TOPDIR/tools/check.sh" | head -n 1)
[ -n "$allow" ] || die "cannot find the storm's allow_out, allow_pass and alpha in tools/check.sh"
read -r allow_out allow_pass alpha <<EOF2
$allow
EOF2
: >"$S/storm"
for base in $(run_names check "fg quiet"); do
	case $base in baseline-* | *-baseline-*) ;; *) continue ;; esac
	run_row check "$base"
	case $r_cmds in *"thp_usemem -b"*) ;; *) continue ;; esac
	tree=$(tree_of "$base")
	csv=$tmp/storm-$tree.csv
	echo "tree,kernel,mode,fill,swapouts,swapins,kswapd_passes,compact_stalls,pgscan_kswapd,pgscan_direct,hit_quickly,thp_pct,node0_pct,seconds,neighbour" >"$csv"
	for r in $base $(run_names check "fg quiet" | grep "^$(patched_of "$base")-"); do
		case $r in "$base") k=baseline ;; *) k=patched ;; esac
		log=$(run_log "$r") || exit 1
		guest_output "$log" usemem | storm -v what=csv -v tree="$tree" -v kernel="$k" >"$tmp/fills"
		[ -s "$tmp/fills" ] || die "run $r: no '# usemem|' fills in $log (thp_usemem -b printed none: did it run to its end?)"
		cat "$tmp/fills" >>"$csv"
	done
	{
		echo "**Linux $tree**"
		echo
		storm -v what=table -v tree="$tree" "$csv"
		echo
		echo "| mode | swap-outs: mean per fill | unpatched | p | kswapd passes: mean per fill | unpatched | p | make check |"
		echo "|---|---|---|---|---|---|---|---|"
		storm -v what=check -v tree="$tree" -v want="$STORM_FILLS" \
			-v allow_out="$allow_out" -v allow_pass="$allow_pass" -v alpha="$alpha" "$csv" |
			awk -F'\t' '
			# "ok|fail<TAB>MODE COUNTER<TAB>mean M against the unpatched
			# kernel'"'"'s U over ... p = P, ..." (tools/storm.awk what=check)
			{
				split($2, w, " ")
				mode = w[1]
				if (!(mode in seen)) { seen[mode] = 1; order[++n] = mode }
				c = $2 ~ /swap-outs$/ ? 1 : 2
				if (match($3, /^mean [-0-9.]+ against the unpatched kernel.s [-0-9.]+/)) {
					split(substr($3, 1, RLENGTH), m, " ")
					p = $3
					sub(/.*p = /, "", p)
					sub(/,.*/, "", p)
					cell[mode, c] = m[2] " | " m[7] " | " p
				} else
					why[mode] = why[mode] (why[mode] == "" ? "" : "; ") $3
				if ($1 != "ok")
					bad[mode] = 1
			}
			END {
				for (i = 1; i <= n; i++) {
					g = order[i]
					for (c = 1; c <= 2; c++)
						if (!((g, c) in cell))
							cell[g, c] = " | | "
					printf("| %s | %s | %s | %s%s |\n", g, cell[g, 1], cell[g, 2],
						bad[g] ? "fail" : "ok", why[g] == "" ? "" : ": " why[g])
				}
			}' >"$tmp/verdict"
		[ -s "$tmp/verdict" ] || die "the storm's verdicts on $tree: tools/storm.awk what=check gave none ($csv)"
		cat "$tmp/verdict"
		echo
	} >>"$S/storm"
done
[ -s "$S/storm" ] || die "tools/runs.conf names no unpatched check run with thp_usemem -b"
echo "make check fails a mode whose mean per fill exceeds the unpatched kernel's by more than $allow_out swap-outs or $allow_pass kswapd passes when, too, p <= $alpha (tools/check.sh, step 9); p is the one-sided permutation test of \"more than the unpatched kernel\" over the fills (tools/storm.awk)." >>"$S/storm"

# ---- fault cost: the bench report's section 4 ----------------------------------
if [ -z "$bench" ]; then
	bench=$(ls -d "$TOPDIR"/results/*/ "$CACHE"/results/*/ 2>/dev/null | while read -r d; do
		[ -s "$d/report.md" ] && echo "${d%/}"
	done | awk -F/ '{ print $NF "\t" $0 }' | sort | tail -n 1 | cut -f2)
	[ -n "$bench" ] || bench=none
fi
if [ "$bench" != none ]; then
	[ -s "$bench/report.md" ] || die "no make bench report $bench/report.md"
	{
		case $bench in "$TOPDIR"/*) rel=${bench#"$TOPDIR"/} ;; *) rel=$bench ;; esac
		echo "From \`$(cat "$bench/command.txt" 2>/dev/null || echo "make bench")\` of $(cat "$bench/date.txt" 2>/dev/null || echo "(date not recorded)"), section 4 of its report ($rel/report.md):"
		awk '/^## 4\. Fault cost/ { on = 1; next } on && /^## / { exit } on' "$bench/report.md"
	} >"$tmp/fc"
	grep -q '^| ' "$tmp/fc" || die "$bench/report.md has no fault-cost table (section 4)"
	sed '/./,$!d' "$tmp/fc" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$S/faultcost"
fi

# a table whose awk failed or found nothing is an error, not an empty table
for s in placement mthp permm legacy aged storm; do
	[ "$(grep -c '^| [^-]' "$S/$s")" -ge 2 ] || die "section $s: no table rows were made (see the messages above)"
done

# ---- header ---------------------------------------------------------------------
{
	while read -r r; do
		date -r "$runs/check-$r/output.log" '+%Y-%m-%d %H:%M'
	done <"$used" | sort >"$tmp/dates"
	first=$(head -n 1 "$tmp/dates") last=$(tail -n 1 "$tmp/dates")
	commits=$(for r in $(cat "$used"); do cat "$runs/check-$r/commit" 2>/dev/null || echo -; done | sort -u)
	# shellcheck disable=SC2088 # the words the document shows
	case $runs in
	"$HOME"/.cache/thp-numa/runs) where="~/.cache/thp-numa/runs" ;;
	"$TOPDIR"/*) where=${runs#"$TOPDIR"/} ;;
	*) where=$runs ;;
	esac
	if [ "$commits" = - ]; then
		commit=$(git -C "$TOPDIR" rev-parse --short HEAD 2>/dev/null) || commit=unknown
		before=$(git -C "$TOPDIR" log -1 --format=%h --before="$last" 2>/dev/null)
		[ "$before" != "$commit" ] || before=
		how="commit $commit (HEAD when the tables were made: the runs record no commit${before:+; the newest commit before the last run was $before})"
	else
		commit=$(echo "$commits" | grep -v '^-$' | head -n 1)
		how="commit $(echo "$commits" | tr '\n' ' ' | sed 's/ $//') (recorded by the runs; - is a run without one)"
	fi
	series=$(git -C "$TOPDIR" show "$commit:kernel-patches/cover-letter.txt" 2>/dev/null |
		sed -n 's/^Subject: \[PATCH[^]]* \(v[0-9][0-9]*\) [0-9]*\/[0-9]*\].*/\1/p' | head -n 1)
	kernels=$(for r in $(cat "$used"); do sed -n 's/.*userspace up, kernel //p' "$runs/check-$r/console.log" 2>/dev/null; done |
		sort -u | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
	echo "Generated by \`make results\` (tools/results.sh) on $(date '+%Y-%m-%d') from the $(wc -l <"$used" | tr -d ' ') \`make check\` runs of $first to $last in $where, $how; series ${series:-(version not found)}${kernels:+; kernels $kernels}."
	echo
	echo "Runs: $(tr '\n' ' ' <"$used" | sed 's/ $//; s/ /, /g')."
	for r in $(cat "$used"); do
		[ "$(cat "$runs/check-$r/rc")" = 0 ] && continue
		guest_output "$runs/check-$r/output.log" tap,logcheck,exited | awk -F'\t' -v r="$r" -v rc="$(cat "$runs/check-$r/rc")" '
			$1 == "tap" && $2 == "fail" { f = f (f == "" ? "" : "; ") $3 }
			$1 == "logcheck" && $2 == "fail" { f = f (f == "" ? "" : "; ") $3 ": kernel log" }
			END { printf("%s (exit %s: %s)\n", r, rc, f == "" ? "no failed test named" : f) }'
	done >"$tmp/failed"
	[ -s "$tmp/failed" ] && echo && echo "Tests that failed in these runs: $(sed 's/$/,/' "$tmp/failed" | tr '\n' ' ' | sed 's/, $//')."
} >"$S/header"

# ---- into the document -------------------------------------------------------
if [ "$print" = 1 ]; then
	for s in $SECTIONS; do
		[ -f "$S/$s" ] || continue
		echo "<!-- make results: begin $s -->"
		cat "$S/$s"
		echo "<!-- make results: end $s -->"
	done
	exit 0
fi
# Every generated section must have its markers; every marker pair must be
# one the generator knows; faultcost without a bench run stays as it is.
awk -v dir="$S" -v sections="$SECTIONS" '
	BEGIN {
		n = split(sections, s, " ")
		for (i = 1; i <= n; i++)
			known[s[i]] = 1
	}
	/^<!-- make results: (begin|end) [a-z0-9-]+ -->$/ {
		what = $4
		name = $5
		if (what == "begin") {
			if (open != "") { printf("line %d: begin %s inside %s\n", NR, name, open) >"/dev/stderr"; bad = 1 }
			if (!(name in known)) { printf("line %d: unknown section %s\n", NR, name) >"/dev/stderr"; bad = 1 }
			if (name in done) { printf("line %d: section %s twice\n", NR, name) >"/dev/stderr"; bad = 1 }
			open = name
			done[name] = 1
			print
			f = dir "/" name
			if ((getline line <f) > 0) {
				keep = 0
				print line
				while ((getline line <f) > 0)
					print line
				close(f)
			} else
				keep = 1
			next
		}
		if (name != open) { printf("line %d: end %s, but the open section is %s\n", NR, name, open == "" ? "none" : open) >"/dev/stderr"; bad = 1 }
		open = ""
		keep = 0
		print
		next
	}
	/make results: (begin|end)/ { printf("line %d: a marker the generator does not read: %s\n", NR, $0) >"/dev/stderr"; bad = 1 }
	open != "" && !keep { next }
	{ print }
	END {
		if (open != "") { printf("section %s has no end marker\n", open) >"/dev/stderr"; bad = 1 }
		for (i = 1; i <= n; i++) {
			f = dir "/" s[i]
			if ((getline line <f) > 0 && !(s[i] in done)) { printf("no markers for section %s\n", s[i]) >"/dev/stderr"; bad = 1 }
		}
		exit bad
	}' "$doc" >"$tmp/doc" 2>"$tmp/err" ||
	die "$doc: $(tr '\n' ';' <"$tmp/err" | sed 's/;$//') (the document is unchanged)"
if cmp -s "$tmp/doc" "$doc"; then
	say "$doc is up to date"
else
	cat "$tmp/doc" >"$doc"
	say "rewrote the tables of $doc ($(ls "$S" | tr '\n' ' ')); see git diff"
fi
[ -f "$S/faultcost" ] || say "no make bench results directory: the fault-cost table of $doc stays as written"
