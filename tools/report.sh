#!/bin/sh
# Turn the raw output of a make bench run into the report: Markdown, CSV
# and plots.  make bench calls it; run it again by hand to re-project the
# same run with another cost table (e.g. one numa-lat measured on a real
# NUMA host with "numa-lat -f cost > host.cost"):
#
#   tools/report.sh RESULTS_DIR [extra.cost ...]
#   tools/report.sh --host RESULTS_DIR [OTHER_HOST_DIR]
#
# RESULTS_DIR holds what tools/bench.sh collected: topology.txt,
# numa-lat.{md,csv,cost}, placement.csv, faultcost.log, perf-faultcost.txt,
# challenge-<topology>-<kernel>.log (the aged-memory runs),
# storm-<tree>-<kernel>.log (the usemem storm runs).
# Writes report.md, projection.csv, faultcost.csv, challenge*.csv,
# storm.csv and plots/*.{svg,png} there, and prints report.md.
#
# --host: RESULTS_DIR is what make host-bench (tools/host.sh bench) wrote
# on a real machine: output.log, kernel.txt ("TREE KERNEL RELEASE", KERNEL
# patched or baseline), machine.txt, topology.txt and numa-lat's files.
# The report's inputs are made from output.log; OTHER_HOST_DIR, the
# host-bench run of the other kernel on the same machine, adds its
# placement and storm as the other kernel's columns.  The projection uses
# the machine's own measured cost table (numa-lat.cost) and no other.
set -eu
TOOL=report
. "$(dirname "$0")/lib.sh"

host=0
case ${1:-} in --host) host=1; shift ;; esac
# the unpatched kernel's name in the tables (host mode: its tree's)
stock_name="stock 6.12"
[ $# -ge 1 ] || die "usage: tools/report.sh RESULTS_DIR [extra.cost ...] | tools/report.sh --host RESULTS_DIR [OTHER_HOST_DIR]"
R=$1
shift
[ -d "$R" ] || die "no results directory $R"
if [ "$host" = 1 ]; then
	[ $# -le 1 ] || die "--host takes one results directory and at most one other host-bench directory"
	# host_kernel DIR: "TREE KERNEL RELEASE" of a host-bench directory, or die
	# (checked for both directories before anything is written)
	host_kernel() {
		[ -r "$1/kernel.txt" ] && [ -s "$1/output.log" ] ||
			die "$1 is not a make host-bench directory (no kernel.txt or output.log)"
		hk=$(head -n 1 "$1/kernel.txt")
		case $hk in
		*" patched "* | *" baseline "*) echo "$hk" ;;
		*) die "$1/kernel.txt: '$hk' is not 'TREE patched|baseline RELEASE'" ;;
		esac
	}
	k1=$(host_kernel "$R")
	dirs=$R
	if [ $# = 1 ]; then
		k2=$(host_kernel "$1")
		read -r t1 n1 r1 <<-EOF
			$k1
		EOF
		read -r t2 n2 r2 <<-EOF
			$k2
		EOF
		[ "$n1" != "$n2" ] ||
			die "$R and $1 are both runs of the $n1 kernel: the other directory must be the other kernel's run"
		[ "$t1" = "$t2" ] ||
			die "$R ($r1) and $1 ($r2) are different trees: compare the patched kernel with the unpatched kernel of its own tree"
		[ -s "$R/machine.key" ] && cmp -s "$R/machine.key" "$1/machine.key" ||
			die "$R and $1 are not runs on one machine (machine.key, its CPUs and SLIT, differs or is missing): compare two kernels on one machine"
		dirs="$R $1"
	fi
	# each directory's output.log as the report's inputs, named by its kernel
	echo "kernel,rows,mode,cpu_node,madvise,states,placement,classes" >"$R/placement.csv"
	rm -f "$R"/storm-*-*.log "$R/faultcost.log"
	kernels=
	for d in $dirs; do
		read -r h_tree h_kernel h_release <"$d/kernel.txt"
		[ -z "$(guest_output "$d/output.log" usemem)" ] ||
			cp "$d/output.log" "$R/storm-$h_tree-$h_kernel.log"
		placement_csv "$h_kernel" "$d/output.log" >>"$R/placement.csv"
		# the fault cost is the patched kernel's (its modes against legacy)
		if [ "$h_kernel" = patched ] && [ -n "$(guest_output "$d/output.log" faultcost-ratio)" ]; then
			cp "$d/output.log" "$R/faultcost.log"
		fi
		kernels="${kernels:+$kernels; }$h_kernel: $h_release"
		stock_name="stock $h_tree"
	done
	[ "$(wc -l <"$R/placement.csv")" -gt 1 ] || rm -f "$R/placement.csv"
	COSTS=
	[ -s "$R/numa-lat.cost" ] && COSTS=$R/numa-lat.cost
	set --
else
	COSTS="$TOPDIR/tools/costs/naples-2019.cost $TOPDIR/tools/costs/1950x-guest-2019.cost"
fi
# The guest's own numa-lat.cost is emulated (flat, see the report), so it
# is not projected unless asked for, like any other measured table.
for c in "$@"; do
	[ -r "$c" ] || die "cannot read cost table $c"
	grep -q '^D0 THP' "$c" || die "$c is not a cost table (no 'D0 THP' line; see tools/costs/)"
	COSTS="$COSTS $c"
done
rm -rf "$R/plots"
mkdir -p "$R/plots"

# ---- projection: every placement under every cost table -----------------
: >"$R/projection.csv.tmp"
: >"$R/projection-filled.txt"
[ -s "$R/placement.csv" ] || COSTS=
for c in $COSTS; do
	awk -f "$TOPDIR/tools/project.awk" "$c" "$R/placement.csv" >>"$R/projection.csv.tmp" \
		2>>"$R/projection-filled.txt"
done
{
	echo "table,kernel,rows,mode,cpu_node,madvise,states,projected,oracle,oracle_at,gap"
	cat "$R/projection.csv.tmp"
} >"$R/projection.csv"
rm -f "$R/projection.csv.tmp"

# One table per scenario set (rows, CPU node, madvise), in run order; a
# cell is "D0 THP" when all of the region is there, else the shares.
placement_tables() {
	if [ ! -s "$R/placement.csv" ]; then
		echo
		echo "(no placement rows: make host-bench runs them with --module)"
		return
	fi
	# the sets and states in run order, of whichever kernel ran them (a
	# host-bench run of the unpatched kernel alone has only its own)
	awk -F, -v stock="$stock_name" "$(cat "$TOPDIR/tools/placement.awk")"'
	NR == 1 { next }
	{
		set = $2 SUBSEP $4 SUBSEP $5
		if (!(set in seen)) { seen[set] = 1; sets[++ns] = set }
		if (!((set, $6) in seen_st)) { seen_st[set, $6] = 1; st[set, ++nst[set]] = $6 }
		cell[$1 ":" $3, set, $6] = $7
	}
	END {
		split("patched:node-first patched:guest patched:legacy baseline:legacy", cols, " ")
		for (i = 1; i <= ns; i++) {
			split(sets[i], g, SUBSEP)
			printf("\n**rows %s, faults from node%s'"'"'s CPU, %s** (node states by zonelist position from node%s; later nodes FREE)\n\n", g[1], g[2], g[3], g[2])
			print "| node states | node-first | guest | legacy | " stock " | legacy = stock |"
			print "|---|---|---|---|---|---|"
			for (j = 1; j <= nst[sets[i]]; j++) {
				s = st[sets[i], j]
				states = s
				gsub("/", ",", states)
				line = "| " states " |"
				for (c = 1; c <= 4; c++) {
					k = cols[c] SUBSEP sets[i] SUBSEP s
					line = line " " ((k in cell) ? placement_short(cell[k], "mTHP") : "not run") " |"
				}
				bk = "baseline:legacy" SUBSEP sets[i] SUBSEP s
				pk = "patched:legacy" SUBSEP sets[i] SUBSEP s
				# "in" first: reading an absent cell would create it
				same = !(bk in cell) ? "no baseline run" : !(pk in cell) ? "no patched run" : (cell[bk] == cell[pk] ? "yes" : "**differs**")
				print line " " same " |"
			}
		}
	}' "$R/placement.csv"
}

# Processes with their own fallback order (PR_SET_THP_NUMA_FALLBACK,
# started through thp-numa-exec) faulting one after another in one boot.
permm_table() {
	[ -s "$R/permm.csv" ] && [ "$(wc -l <"$R/permm.csv")" -gt 1 ] || return 0
	echo
	echo "**Processes with their own order, side by side in one boot** (thp_permm: each started through thp-numa-exec, 16 MiB from node0's CPU, one after another, each keeping its region)"
	echo
	echo "| numa_fallback | process setting | region | node states | placement |"
	echo "|---|---|---|---|---|"
	awk -F, "$(cat "$TOPDIR/tools/placement.awk")"'
	NR > 1 {
		st = $5
		gsub("/", ",", st)
		printf("| %s | %s | %s | %s | %s |\n", $1, $2, $4, st, placement_short($6, "mTHP"))
	}' "$R/permm.csv"
}

projection_tables() {
	for c in $COSTS; do
		name=$(sed -n 's/^name[[:space:]]*//p' "$c" | head -n 1 | tr , ';')
		echo
		echo "**Cost table: $name** ($(echo "$c" | sed "s|^$TOPDIR/||"))"
		echo
		awk '!/^[[:space:]]*(#|$)/ && $1 ~ /^D[0-9]/' "$c" |
			awk 'BEGIN { h = "|"; s = "|"; v = "|" } { h = h " " $1 " " $2 " |"; s = s "---|"; v = v sprintf(" %+g%% |", $3) } END { print h; print s; print v }'
		echo
		echo "Expected mean access latency, % over an all-D0-THP placement; in brackets the gap to the oracle (the cheapest page the node states left), in percentage points."
		filled=$(awk -v n="FILLED $name: mTHP cost = 4k cost for " \
			'index($0, n) == 1 { print substr($0, length(n) + 1) }' "$R/projection-filled.txt")
		[ -z "$filled" ] || echo "This table has no 64K mTHP costs; the mTHP rows use the 4k cost of the same class ($filled): x86 maps a 64K folio with 4k PTEs, so the TLB sees 4k pages. Section 1's measured 64K column is the check on that."
		echo
		echo "| rows | cpu | madvise | node states | oracle | node-first | guest | legacy | $stock_name |"
		echo "|---|---|---|---|---|---|---|---|---|"
		awk -F, -v t="$name" '
			$1 != t { next }
			{
				k = $3 "," $5 "," $6 "," $7
				if (!(k in seen)) { seen[k] = 1; order[++n] = k }
				oracle[k] = $9 == "n/a" ? "n/a" : sprintf("%+.1f%% (%s)", $9, $10)
				cell = $8 == "n/a" ? "n/a" : sprintf("%+.1f%% [%s]", $8, $11 == "n/a" ? "?" : sprintf("%+.1f", $11))
				v[k, $2 ":" $4] = cell
			}
			END {
				for (i = 1; i <= n; i++) {
					k = order[i]
					split(k, f, ",")
					gsub("/", ",", f[4])
					printf("| %s | %s | %s | %s | %s |", f[1], f[2], f[3], f[4], oracle[k])
					m = split("patched:node-first patched:guest patched:legacy baseline:legacy", km, " ")
					for (j = 1; j <= m; j++)
						printf(" %s |", ((k, km[j]) in v) ? v[k, km[j]] : "not run")
					printf("\n")
				}
			}' "$R/projection.csv"
	done
}

faultcost_tables() {
	[ -s "$R/faultcost.log" ] || { echo; echo "(no fault-cost run)"; return; }
	{
		echo "state,mode,gbps,ratio_median,ratio_min,ratio_max,p50_us_2m,p99_us_2m,p99_ratio,us_per_fault,thp_pct,local_pct,ratio_p25,ratio_p75"
		guest_output "$R/faultcost.log" faultcost-ratio | cut -f2- | tr '\t' ,
	} >"$R/faultcost.csv"
	# region size and repetitions; a log from before "# faultcost-setup"
	# gives the repetitions only
	size=$(guest_output "$R/faultcost.log" faultcost-setup | awk -F'\t' 'NR == 1 { print $3 " MiB" }')
	reps=$(guest_output "$R/faultcost.log" faultcost-setup | awk -F'\t' 'NR == 1 { print $4 }')
	[ -n "$reps" ] || reps=$(guest_output "$R/faultcost.log" faultcost | awk -F'\t' '$4 + 1 > n { n = $4 + 1 } END { print n + 0 }')
	echo
	echo "One ${size:-(size not recorded)} MADV_HUGEPAGE region per mode, faulted (every 4k touched) from node0 in one boot, the modes taking turns 2M by 2M (numa_fallback switched between ranges, outside the timing); $reps repetitions. A ratio compares a mode with legacy within one repetition; the table gives its median, interquartile range and min-max over the repetitions. GB/s and latencies are medians."
	echo
	echo "| node0 | mode | GB/s | GB/s ratio to legacy: median | IQR | min-max | p50 us per 2M | p99 us per 2M | p99 ratio | us per fault (p50) | THP % | local % |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR > 1 { printf("| %s | %s | %.3f | %.3f | %.3f-%.3f | %.3f-%.3f | %s | %s | %.2f | %s | %s | %s |\n", $1, $2, $3, $4, $13, $14, $5, $6, $7, $8, $9, $10, $11, $12) }' "$R/faultcost.csv"
	echo
	echo "vmstat deltas and tracepoint hits per mode, summed over the repetitions:"
	echo
	echo "| node0 | mode | thp_fault_alloc | thp_fault_fallback | huge local | huge remote | small local | small remote | compact_stall | kmem:mm_page_alloc_multi_order |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	guest_output "$R/faultcost.log" faultcost-vmstat |
		awk -F'\t' '{ printf("| %s | %s |", $2, $3); for (i = 4; i <= NF; i++) { split($i, kv, "="); printf(" %s |", kv[2]) } printf("\n") }'
	total=$(awk -F, '$3 ~ /mm_page_alloc_multi_order/ { print $1 }' "$R/perf-faultcost.txt" 2>/dev/null || true)
	sum=$(guest_output "$R/faultcost.log" faultcost-vmstat |
		awk -F'\t' '{ split($NF, kv, "="); s += kv[2] } END { print s + 0 }')
	warm=$(guest_output "$R/faultcost.log" faultcost-warmup | awk -F'\t' '{ s += $4 } END { print s + 0 }')
	echo
	echo "\`perf stat -e kmem:mm_page_alloc_multi_order\` over the whole run: ${total:-not recorded}; the per-mode counts above (perf_event_open on the same tracepoint) add up to $sum, plus $warm in the unrecorded warm-up runs."
}

# ---- the walk's cost as the machine grows (walkcost-<topology>.log) -----------
# walkcost.csv: topology, nodes, distance classes from node 0, then
# faultcost.csv's columns (thp_faultcost -S FREE,FAR on that topology).
walkcost_csv() {
	echo "topology,nodes,classes,state,mode,gbps,ratio_median,ratio_min,ratio_max,p50_us_2m,p99_us_2m,p99_ratio,us_per_fault,thp_pct,local_pct,ratio_p25,ratio_p75"
	for f in "$R"/walkcost-*.log; do
		[ -f "$f" ] || continue
		t=${f##*/walkcost-}
		t=${t%.log}
		# nodes and node 0's classes from the preset's SLIT (row 0)
		nc=$(awk -v t="$t" '$1 == t { split($4, rows, "/"); n = split(rows[1], d, ",")
			for (i = 1; i <= n; i++) if (!(d[i] in s)) { s[d[i]] = 1; c++ }
			print n "," c }' "$TOPDIR/tools/topologies.conf")
		[ -n "$nc" ] || nc="?,?"
		guest_output "$f" faultcost-ratio | cut -f2- | tr '\t' , | sed "s/^/$t,$nc,/"
	done | sort -t, -k2,2n -k4,4 -k5,5
}
walkcost_section() { # from walkcost.csv, written before the plots
	if [ "$(wc -l <"$R/walkcost.csv")" -le 1 ]; then
		echo
		echo "(no walk-cost runs)"
		return
	fi
	echo
	echo "thp_faultcost on each topology, the patched kernel, one boot each, the modes"
	echo "taking turns 2M by 2M: FREE is node 0 with free huge blocks (the first class"
	echo "gives the page), FAR every node nearer than node 0's farthest class FULL"
	echo "(node 0 included), so every fault's walk crosses every class first. us per"
	echo "fault is the median per-fault latency; the ratio is the mode's GB/s over"
	echo "legacy's within each repetition (median, IQR). Emulated (TCG): the absolute"
	echo "times are the emulator's; the ratios within a boot are what compares."
	echo
	echo "| topology | nodes | classes | state | legacy us/fault | node-first us/fault | node-first GB/s ratio (IQR) | guest us/fault | guest GB/s ratio (IQR) |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR > 1 {
		k = $1 "," $2 "," $3 "," $4
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		us[k, $5] = $13; r[k, $5] = sprintf("%.3f (%.3f-%.3f)", $7, $16, $17)
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			split(k, f, ",")
			printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4],
				us[k, "legacy"], us[k, "node-first"], r[k, "node-first"],
				us[k, "guest"], r[k, "guest"])
		}
	}' "$R/walkcost.csv"
	echo
	echo "Plot: plots/walkcost.svg (us per fault against the number of nodes)."
}
walkcost_plot() {
	command -v gnuplot >/dev/null || return 0
	[ "$(wc -l <"$R/walkcost.csv" 2>/dev/null || echo 0)" -gt 1 ] || return 0
	# one data block per state and mode: nodes, us per fault
	set --
	for st in FREE FAR; do
		for m in legacy node-first guest; do
			awk -F, -v st="$st" -v m="$m" 'NR > 1 && $4 == st && $5 == m { print $2 "\t" $13 }' \
				"$R/walkcost.csv" >"$R/plots/walkcost-$st-$m.dat"
			[ -s "$R/plots/walkcost-$st-$m.dat" ] &&
				set -- "$@" "'$R/plots/walkcost-$st-$m.dat' using 1:2 with linespoints title '$m, $st'"
		done
	done
	[ $# -gt 0 ] || return 0
	curves=$(printf '%s, ' "$@" | sed 's/, $//')
	for t in svg png; do
		term=$(gp_term "$t" 1000 520)
		gnuplot 2>>"$R/plots/gnuplot.log" <<-EOF || say "gnuplot failed for walkcost.$t; see $R/plots/gnuplot.log"
			$(gp_head "$term" "walkcost.$t" "The walk's cost as the machine grows (emulated: TCG)" "us per fault (median)")
			set key outside right top
			set grid
			set xlabel "nodes (2node, epyc4, epyc8, hpe16)"
			set xtics (2, 4, 8, 16)
			set logscale x 2
			set yrange [0:*]
			plot $curves
		EOF
	done
}

numa_lat_plot_data() { # per-distance table as gnuplot columns: label, one column per CPU node
	awk -F, 'NR > 1 && $6 != "" {
		lab = "D" $4 " " $5
		if (!(lab in seen)) { seen[lab] = 1; labs[++nl] = lab }
		if (!($1 in cs)) { cs[$1] = 1; cpus[++nc] = $1 }
		sum[lab, $1] += $6; cnt[lab, $1]++
	}
	END {
		printf("col")
		for (j = 1; j <= nc; j++) printf("\t\"CPU node%s\"", cpus[j])
		printf("\n")
		for (i = 1; i <= nl; i++) {
			printf("\"%s\"", labs[i])
			for (j = 1; j <= nc; j++)
				printf("\t%s", cnt[labs[i], cpus[j]] ? sprintf("%.1f", sum[labs[i], cpus[j]] / cnt[labs[i], cpus[j]]) : "?")
			printf("\n")
		}
	}' "$R/numa-lat.csv"
}

# gp_term svg|png WIDTH HEIGHT: the gnuplot terminal of every plot; PNG
# through cairo where this gnuplot has it (smoother), else the plain one
gp_term() {
	case $1 in
	svg) echo "svg size $2,$3 dynamic background rgb 'white'" ;;
	png) if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
			echo "pngcairo size $2,$3"
		else
			echo "png size $2,$3"
		fi ;;
	esac
}

# gp_head TERMINAL FILE TITLE YLABEL: the lines every plot's script starts with
gp_head() {
	printf 'set terminal %s\nset output %s\nset title "%s"\nset ylabel "%s"\n' "$1" "'$R/plots/$2'" "$3" "$4"
	printf 'set datafile separator "\\t"\nset datafile missing "?"\n'
}

plot() { # plot NAME TITLE YLABEL DATAFILE
	command -v gnuplot >/dev/null || { say "gnuplot missing: no plots (apt-get install gnuplot-nox)"; return 0; }
	cols=$(head -n 1 "$4" | awk -F'\t' '{ print NF }')
	for t in svg png; do
		term=$(gp_term "$t" 1200 520)
		gnuplot 2>>"$R/plots/gnuplot.log" <<-EOF || say "gnuplot failed for $1.$t; see $R/plots/gnuplot.log"
			$(gp_head "$term" "$1.$t" "$2" "$3")
			set style data histograms
			set style histogram clustered gap 1
			set style fill solid 0.85 border -1
			set boxwidth 0.9
			set key outside right top
			set grid ytics
			set xtics rotate by -35 scale 0 font ",9"
			set yrange [0:*]
			plot for [i=2:$cols] '$4' using i:xtic(1) title columnheader(i)
		EOF
	done
}

projection_plot_data() { # $1 table name: scenario label, then oracle and each kernel:mode
	awk -F, -v t="$1" '
		$1 != t { next }
		{
			k = $3 " c" $5 " " ($6 == "madvise" ? "madv" : "always") " " $7
			gsub("/", ",", k)
			if (!(k in seen)) { seen[k] = 1; order[++n] = k; or[k] = $9 }
			v[k, $2 ":" $4] = $8
		}
		END {
			printf("scenario\toracle\tnode-first\tguest\tlegacy\t\"stock 6.12\"\n")
			m = split("patched:node-first patched:guest patched:legacy baseline:legacy", km, " ")
			for (i = 1; i <= n; i++) {
				printf("\"%s\"\t%s", order[i], or[order[i]] == "n/a" ? "?" : or[order[i]])
				for (j = 1; j <= m; j++) {
					x = v[order[i], km[j]]
					printf("\t%s", x == "" || x == "n/a" ? "?" : x)
				}
				printf("\n")
			}
		}' "$R/projection.csv"
}

walkcost_csv >"$R/walkcost.csv"
walkcost_plot
if [ -s "$R/numa-lat.csv" ]; then
	numa_lat_plot_data >"$R/plots/numa-lat.dat"
	[ "$host" = 1 ] && where="measured on this machine" || where="guest: emulated, see report"
	plot numa-lat "numa-lat: ns per access by distance class and page size ($where)" \
		"ns per dependent load" "$R/plots/numa-lat.dat"
fi
i=0
for c in $COSTS; do
	i=$((i + 1))
	name=$(sed -n 's/^name[[:space:]]*//p' "$c" | head -n 1 | tr , ';')
	projection_plot_data "$name" >"$R/plots/projection-$i.dat"
	plot "projection-$i" "Projected access latency with the measured placements: $name" \
		"% over all-D0-THP" "$R/plots/projection-$i.dat"
done

# ---- aged memory (thp_challenge) ---------------------------------------------
# challenge.tsv: every record of the aged runs, prefixed by topology and kernel
: >"$R/challenge.tsv"
for f in "$R"/challenge-*-*.log; do
	[ -f "$f" ] || continue
	b=${f##*/challenge-}
	b=${b%.log}
	guest_output "$f" challenge-result,challenge-khugepaged,challenge-sample,challenge-cdf |
		awk -v t="${b%-*}" -v k="${b##*-}" '{ print t "\t" k "\t" $0 }' >>"$R/challenge.tsv"
done
challenge() { awk -f "$TOPDIR/tools/challenge.awk" "$@"; }
if [ -s "$R/challenge.tsv" ]; then
	challenge -v what=runs "$R/challenge.tsv" >"$R/challenge-runs.csv"
	challenge -v what=summary "$R/challenge.tsv" >"$R/challenge.csv"
	{
		echo "table,topology,kernel,variant,mode,projected_median_range"
		for c in $COSTS; do
			name=$(sed -n 's/^name[[:space:]]*//p' "$c" | head -n 1 | tr , ';')
			challenge -v what=project -v cost="$c" "$c" "$R/challenge.tsv" | sed "s|^|$name,|"
		done
	} >"$R/challenge-projection.csv"
fi

lineplot() { # lineplot NAME TITLE XLABEL YLABEL DATAFILE [logx]
	command -v gnuplot >/dev/null || return 0
	cols=$(head -n 1 "$5" | awk -F'\t' '{ print NF }')
	[ "$cols" -ge 2 ] || return 0
	for t in svg png; do
		term=$(gp_term "$t" 1000 520)
		if [ "${6:-}" = logx ]; then
			# a CDF: latency on x (log), quantile on y
			using='using i:1'
			extra='set logscale x'
		else
			using='using 1:i'
			extra='set yrange [0:100]'
		fi
		gnuplot 2>>"$R/plots/gnuplot.log" <<-EOF || say "gnuplot failed for $1.$t; see $R/plots/gnuplot.log"
			set terminal $term
			set output '$R/plots/$1.$t'
			set title "$2"
			set xlabel "$3"
			set ylabel "$4"
			set datafile separator "\t"
			set datafile missing "?"
			set key outside right top
			set grid
			$extra
			plot for [i=2:$cols] '$5' $using with linespoints pointsize 0.5 title columnheader(i)
		EOF
	done
}
if [ -s "$R/challenge.tsv" ]; then
	awk -F'\t' '$3 == "challenge-result" { print $1 "\t" $4 }' "$R/challenge.tsv" | sort -u |
		while IFS='	' read -r ct cv; do
			challenge -v what=timeline -v topo="$ct" -v variant="$cv" "$R/challenge.tsv" >"$R/plots/challenge-share-$ct-$cv.dat"
			lineplot "challenge-share-$ct-$cv" "Aged memory, $ct, $cv: local THP share over time, mean of the runs" \
				"seconds since the first fault" "% of the region that is local THP" "$R/plots/challenge-share-$ct-$cv.dat"
			challenge -v what=cdf -v topo="$ct" -v variant="$cv" "$R/challenge.tsv" >"$R/plots/challenge-cdf-$ct-$cv.dat"
			lineplot "challenge-cdf-$ct-$cv" "Aged memory, $ct, $cv: us per 2M step (TCG), quantiles, mean of the runs" \
				"us per 2M step (log)" "percentile" "$R/plots/challenge-cdf-$ct-$cv.dat" logx
		done
fi

challenge_section() {
	if [ ! -s "$R/challenge.tsv" ]; then
		echo
		echo "(no aged-memory run)"
		return
	fi
	echo
	echo "thpchallenge-style: a background load ages the memory (page cache bigger than node0"
	echo "on ext4 on a virtio disk, read back in a loop; an anonymous churn process on node0"
	echo "that is killed halfway through each fault phase) while threads on node0 fault a"
	echo "MADV_HUGEPAGE region 2M step by 2M step, each step's first touch timed. **normal**:"
	echo "three regions taking turns step by step in one boot, one per mode (on the unpatched"
	echo "kernel all three legacy, so it faces the same demand: its 'runs' counts 9 regions),"
	echo "then khugepaged at its defaults and at a fast setting with the regions still mapped"
	echo "(khugepaged scans by address; the mapping order rotates per run). **vm**: per mode"
	echo "in turn, a region of most of node0 bound to node0 (MPOL_BIND). Shares are of the"
	echo "region, page by page (move_pages, PAGEMAP_SCAN, kpageflags), at the end of the fault"
	echo "phase; cells are the median over the runs and (min-max). 'stock 6.12' is the"
	echo "unpatched kernel, booted separately (same settings, its own runs). Counters are"
	echo "vmstat deltas over the mode's own fault steps (the background load's own reclaim"
	echo "and compaction in those windows included); 'collapsed' is thp_collapse_alloc over"
	echo "both khugepaged phases, all the run's regions together. 'patched, one mode per"
	echo "boot' is the patched kernel booted once per mode, all three regions in that mode,"
	echo "so no mode meets another's leftovers; 'patched without the drain' is the series"
	echo "with the walk's per-cpu drain reverted (tools/kernel.sh nodrain), modes taking"
	echo "turns. Beside 'patched' they split the gain over stock into the drain's part, the"
	echo "order's part and the modes' effect on each other."
	echo
	echo "**Fault latencies are TCG times** (software emulation, 4 vCPUs on 2 host cores):"
	echo "compare them as ratios between modes of one run, never as absolute numbers."
	echo
	# every setting of the first patched run, then what another run set otherwise
	first=
	for f in "$R"/challenge-*-patched.log "$R"/challenge-*-baseline.log; do
		[ -f "$f" ] || continue
		b=${f##*/challenge-}
		b=${b%.log}
		guest_output "$f" challenge-param | cut -f2,3 >"$R/plots/params-$b.txt"
		if [ -z "$first" ]; then
			first=$b
			echo "Settings of the $(echo "$b" | tr - ' ') run (kernel defaults unless named):"
			echo
			awk -F'\t' '{ printf("- %s: %s\n", $1, $2) }' "$R/plots/params-$b.txt"
		else
			awk -F'\t' -v b="$(echo "$b" | tr - ' ')" 'NR == FNR { v[$1] = $2; next }
				$1 in v && v[$1] != $2 { d = d sprintf("%s%s: %s", d == "" ? "" : "; ", $1, $2) }
				END { if (d != "") printf("- %s run: %s\n", b, d) }' "$R/plots/params-$first.txt" "$R/plots/params-$b.txt"
		fi
	done
	rm -f "$R"/plots/params-*.txt
	for g in "$R"/challenge-*-*.log; do
		b=${g##*/challenge-}
		b=${b%.log}
		guest_output "$g" tap | awk -F'\t' -v b="$b" '$2 != "ok" { bad++ } END { if (bad) printf("\n**%s: %d checks failed (see its log)**\n", b, bad) }'
	done
	challenge -v what=table "$R/challenge.tsv"
	echo
	echo "Projected access cost of each run's last placement (after both khugepaged phases"
	echo "for normal, end of faulting for vm), % over all-D0-THP, median (min-max) over the"
	echo "runs; n/a where a share lies on a class the table has no cost for."
	echo
	echo "| topology | kernel | variant | mode |$(for c in $COSTS; do printf ' %s |' "$(sed -n 's/^name[[:space:]]*//p' "$c" | head -n 1 | tr , ';')"; done)"
	echo "|---|---|---|---|$(for c in $COSTS; do printf -- '---|'; done)"
	awk -F, 'NR > 1 {
		k = $2 "," $3 "," $4 "," $5
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		if (!($1 in tseen)) { tseen[$1] = 1; tabs[++nt] = $1 }
		v[k, $1] = $6
	}
	END {
		for (i = 1; i <= n; i++) {
			split(order[i], f, ",")
			printf("| %s | %s | %s | %s |", f[1], f[2] == "baseline" ? "stock 6.12" : f[2], f[3], f[4])
			for (j = 1; j <= nt; j++)
				printf(" %s |", v[order[i], tabs[j]])
			printf("\n")
		}
	}' "$R/challenge-projection.csv"
	echo
	echo "Plots: plots/challenge-share-TOPOLOGY-VARIANT.{svg,png} (local THP share against"
	echo "time, every mode) and plots/challenge-cdf-TOPOLOGY-VARIANT.{svg,png} (latency CDF)."
}

# ---- the usemem storm (thp_usemem -b) -----------------------------------------
# storm.csv: one line per fill of the storm-<tree>-<kernel>.log runs
storm() { awk -f "$TOPDIR/tools/storm.awk" "$@"; }
rm -f "$R/storm.csv"
for f in "$R"/storm-*-*.log; do
	[ -f "$f" ] || continue
	b=${f##*/storm-}
	b=${b%.log}
	[ -f "$R/storm.csv" ] ||
		echo "tree,kernel,mode,fill,swapouts,swapins,kswapd_passes,compact_stalls,pgscan_kswapd,pgscan_direct,hit_quickly,thp_pct,node0_pct,seconds,neighbour" >"$R/storm.csv"
	guest_output "$f" usemem | storm -v what=csv -v tree="${b%-*}" -v kernel="${b##*-}" >>"$R/storm.csv"
done

# stripplot NAME TITLE YLABEL DATAFILE: one point per fill (storm.awk
# what=strip: column, jittered x, the value if the neighbour fired, the
# value if it did not), the columns named by the file's "# xtics" line
stripplot() {
	command -v gnuplot >/dev/null || return 0
	xtics=$(sed -n 's/^# xtics //p' "$4")
	ncol=$(awk -F'\t' '!/^#/ && $1 > n { n = $1 } END { print n + 0 }' "$4")
	[ "$ncol" -ge 1 ] || return 0
	# gnuplot refuses a plot whose every point is missing: a point style
	# only when some fill has it
	has() { awk -F'\t' -v c="$1" '!/^#/ && $c != "?" { found = 1 } END { exit !found }' "$2"; }
	points=
	has 3 "$4" && points="'$4' using 2:3 with points pt 7 ps 0.9 lc rgb '#1f77b4' title 'neighbour fired'"
	has 4 "$4" && points="${points:+$points, }'$4' using 2:4 with points pt 6 ps 1.2 lc rgb '#d62728' title 'neighbour did not fire'"
	[ -n "$points" ] || return 0
	for t in svg png; do
		term=$(gp_term "$t" 1000 520)
		gnuplot 2>>"$R/plots/gnuplot.log" <<-EOF || say "gnuplot failed for $1.$t; see $R/plots/gnuplot.log"
			$(gp_head "$term" "$1.$t" "$2" "$3")
			set key outside right top
			set grid ytics
			set xtics ($xtics) scale 0
			set xrange [0.5:$ncol + 0.5]
			set yrange [0:*]
			plot $points
		EOF
	done
}
if [ -s "$R/storm.csv" ]; then
	for tree in $(storm -v what=trees "$R/storm.csv"); do
		storm -v what=strip -v tree="$tree" "$R/storm.csv" >"$R/plots/storm-$tree.dat"
		stripplot "storm-$tree" "usemem storm, Linux $tree: swap-outs per fill, one kswapd wake on node 0 each" \
			"pages swapped out during the fill" "$R/plots/storm-$tree.dat"
	done
fi

storm_section() {
	if [ ! -s "$R/storm.csv" ]; then
		echo
		echo "(no storm run)"
		return
	fi
	if [ "$(awk 'END { print NR }' "$R/storm.csv")" -lt 2 ]; then
		echo
		echo "(the storm runs printed no fill; see storm-*.log)"
		return
	fi
	fills=$(awk -F, 'NR > 1 && $4 > n { n = $4 } END { print n + 0 }' "$R/storm.csv")
	echo
	if [ "$host" = 1 ]; then
		echo "thp_usemem -b: a region of 80% of this machine's memory (MADV_HUGEPAGE,"
		echo "defrag=always) faulted from node 0's CPU, with the machine's own swap. During"
	else
		echo "thp_usemem -b: a region of 80% of guest memory (MADV_HUGEPAGE, defrag=always)"
		echo "faulted from node 0's CPU with 1 GiB of swap on. During"
	fi
	echo "every fill a task bound"
	echo "to node 0 takes node 0 below its low watermark once, which wakes node 0's kswapd"
	echo "while the fill goes on: the case under test. A fill whose neighbour did not fire"
	echo "did not make it; it is counted and named, none is repeated or left out. Up to"
	if [ "$host" = 1 ]; then
		echo "$fills fills per mode: the modes one after another in one boot, the unpatched"
		echo "kernel (stock) in its own boot of the same machine. Each run starts with an"
		echo "untimed warm-up fill in legacy"
	else
		echo "$fills fills per mode: each mode of the patched kernel in a boot of its own, and"
		echo "the unpatched kernel of the same tree (stock) in its own. Each boot starts with"
		echo "an untimed warm-up fill in legacy"
	fi
	echo "mode, the stock path, and each fill waits for every kswapd to sleep first."
	echo "Swap-outs are pswpout over the fill (4 KiB pages), kswapd passes pageoutrun,"
	echo "compaction stalls compact_stall; THP % and node 0 % are the region's, page by page."
	for tree in $(storm -v what=trees "$R/storm.csv"); do
		echo
		echo "**Linux $tree**"
		echo
		storm -v what=table -v tree="$tree" "$R/storm.csv"
		echo
		echo "Does a mode swap more than stock? One-sided permutation test per mode against"
		echo "the unpatched kernel's fills: the statistic is mean(mode) - mean(stock); p is the"
		echo "share of the labellings of the pooled fills (as many called the mode as it has)"
		echo "whose statistic is at least the observed one: every labelling when there are at"
		echo "most 20000, else 20000 random ones from a fixed seed. A small p says these fills"
		echo "separate as the mode swapping more; a large one says they do not show it, not"
		echo "that the two are alike."
		echo
		storm -v what=test -v tree="$tree" "$R/storm.csv"
	done
	echo
	echo "Plots: plots/storm-TREE.{svg,png}, the swap-outs of every fill, one column per"
	echo "kernel and mode (points spread sideways so that equal values stay apart; open"
	echo "circles: the neighbour did not fire)."
}

# ---- the report ----------------------------------------------------------
{
	if [ "$host" = 1 ]; then
		echo "# make host-bench results"
		echo
		echo "Everything below ran on this machine, not in an emulator: its own NUMA"
		echo "topology, memory and timings ($kernels)."
		echo
		echo '```'
		cat "$R/machine.txt" 2>/dev/null || echo "(machine not recorded)"
		echo '```'
		echo
		# a run that was not clean says so before any table, check by check
		not_passed=$(for d in $dirs; do
			read -r _ h_kernel _ <"$d/kernel.txt"
			guest_output "$d/output.log" tap,exited,bail | awk -F'\t' -v k="$h_kernel" '
				$1 == "tap" && $2 == "fail" { print "- " k ": not ok - " $3 }
				$1 == "tap" && $2 == "skip" { print "- " k ": skipped - " $3 " (" $4 ")" }
				$1 == "exited" { print "- " k ": " $2 " exited " $3 }
				$1 == "bail" { print "- " k ": " $2 }'
		done)
		if [ -n "$not_passed" ]; then
			echo "**Not every check passed.** The tables below include what these checks measured:"
			echo
			echo "$not_passed"
		else
			echo "Every check of the run$([ "$dirs" = "$R" ] || echo s) passed."
		fi
		echo
		echo "## 1. Topology"
	else
		echo "# make bench results"
		echo
		[ -s "$R/command.txt" ] && { echo "Produced by \`$(cat "$R/command.txt")\` on $(cat "$R/date.txt" 2>/dev/null)."; echo; }
		echo "Everything below ran in a QEMU guest under TCG (software emulation), with"
		echo "an emulated NUMA topology. Placements are exact, page-by-page"
		echo "measurements. Times are emulator times: compare the ratios, not the absolute numbers."
		echo
		echo "## 1. Guest topology"
	fi
	echo
	echo '```'
	cat "$R/topology.txt" 2>/dev/null || echo "(not recorded)"
	echo '```'
	echo
	echo "## 2. Per-distance latency (numa-lat)"
	echo
	echo "Pointer chase over a random cycle of cache lines of a buffer bound to"
	echo "each node, faulted from the row's CPU node. Every page's node and"
	echo "size was verified before its cell was timed."
	echo
	if [ -s "$R/numa-lat.md" ]; then
		cat "$R/numa-lat.md"
	else
		echo "(numa-lat did not run; see the bench log)"
	fi
	echo
	if [ "$host" = 0 ]; then
		echo "**Why these columns are nearly flat.** QEMU only advertises the"
		echo "distances (the SLIT above); all guest RAM is one pool of host memory, and"
		echo "TCG adds no delay for a remote node. What the chase sees under emulation"
		echo "is the emulator's own cost per load (its software TLB and the host's"
		echo "caches), so differences between columns are noise or page-size effects"
		echo "of the emulator, not NUMA distance. Run numa-lat on a real NUMA host to"
		echo "get real columns (docs/bench.md), and project with that table."
		echo
	fi
	echo "## 3. Placement by scenario"
	echo
	echo "Share of a 16 MiB region by distance class and page size, measured page"
	echo "by page (move_pages, PAGEMAP_SCAN, kpageflags); '$stock_name' is the"
	echo "unpatched baseline kernel."
	[ -s "$R/placement-tap.txt" ] && { echo; cat "$R/placement-tap.txt"; }
	placement_tables
	permm_table
	echo
	echo "## 4. Fault cost A/B"
	faultcost_tables
	echo
	echo "### The walk's cost as the machine grows"
	walkcost_section
	echo
	echo "## 5. Aged memory (thp_challenge)"
	challenge_section
	echo
	echo "## 6. The usemem storm (thp_usemem -b)"
	storm_section
	echo
	echo "## 7. Projected access latency"
	echo
	[ "$host" = 0 ] || [ -z "$COSTS" ] || echo "The cost table is this machine's own, measured by numa-lat above (numa-lat.cost)."
	[ -n "$COSTS" ] || { echo; echo "(no projection: it needs placement rows and a cost table)"; }
	echo "Each measured placement above, weighed with a cost table (% over local"
	echo "THP per distance class and page size). The oracle is the cheapest page"
	echo "the scenario's node states left (FREE: THP or 4k; FRAG: 4k; FULL:"
	echo "none; LOW, first in the walk: THP); the bracket is each mode's distance from it. Cells with"
	echo "memory on a class the table has no number for are n/a."
	projection_tables
	echo
	echo "## Files"
	echo
	echo "numa-lat.{md,csv,json,cost}, placement.csv, projection.csv,"
	echo "faultcost.csv, faultcost.log, walkcost.csv, walkcost-*.log,"
	echo "challenge-*.log (the aged-memory runs),"
	echo "challenge.csv (summary), challenge-runs.csv (every run),"
	echo "challenge-projection.csv, storm-*.log (the usemem storm runs), storm.csv"
	echo "(one line per fill), plots/*.svg and plots/*.png."
} >"$R/report.md"
cat "$R/report.md"
