# The aged-memory part of the bench report, from thp_challenge's records.
#
#   awk -f tools/challenge.awk -v what=WHAT [-v cost=FILE] challenge.tsv
#
# challenge.tsv: TOPO <tab> KERNEL <tab> a record of tools/guest-output.awk
# (challenge-result, -khugepaged, -sample, -cdf), as tools/report.sh makes
# it from the challenge-<topo>-<kernel>.log files of a bench run.
#
# what=runs       CSV, one line per topology, kernel, variant, mode and run
# what=summary    CSV, per topology, kernel, variant and mode: median, min
#                 and max over the runs of every number of what=runs
# what=table      Markdown tables of the summary, one per topology and variant
# what=project    CSV: the last placement of each run (after khugepaged for
#                 normal, end of faulting for vm) under the cost table
#                 cost=FILE (tools/costs/*.cost): expected access cost in %
#                 over all-D0-THP, n/a when a share has no cost in the table;
#                 median and range over the runs
# what=timeline   gnuplot data: local THP share (% of the region, mean over
#                 the runs) against seconds since the first fault, one
#                 column per kernel:mode, for topo=T variant=V
# what=cdf        gnuplot data: fault latency quantiles (us per 2M step,
#                 mean over the runs), one column per kernel:mode, same
#                 selection
BEGIN { FS = "\t" }

# "D0 THP 75% | D0 4k 1% | D1 THP 20% ..." -> sh[] by class and size
# the kernel column: the flavour, "alone" for the patched kernel booted
# once per mode (make bench's aged-alone-* rows)
function klabel(k) {
	return k == "baseline" ? "stock 6.12" : k == "alone" ? "patched, one mode per boot" : \
	       k == "nodrain" ? "patched without the drain" : k
}
# a plot's series: the mode on the patched kernel, else the kernel too
function series_name(k, mode) {
	return k == "baseline" ? "stock 6.12" : k == "patched" ? mode : mode " (" klabel(k) ")"
}
function shares(h, sh,    n, part, i, f) {
	split("", sh)
	n = split(h, part, / [|] /)
	for (i = 1; i <= n; i++) {
		split(part[i], f, " ")
		sub(/%/, "", f[3])
		sh[f[1] " " f[2]] = f[3] + 0
	}
}
function local_remote(h, out,    sh, k, cls) {
	shares(h, sh)
	split("", out)
	out["local THP"] = out["local mTHP"] = out["local 4k"] = 0
	out["remote THP"] = out["remote mTHP"] = out["remote 4k"] = 0
	for (k in sh) {
		split(k, cls, " ")
		out[(cls[1] == "D0" ? "local " : "remote ") cls[2]] += sh[k]
	}
}
function kv(s, key,    n, f, i, p) {
	n = split(s, f, " ")
	for (i = 1; i <= n; i++) {
		p = index(f[i], "=")
		if (substr(f[i], 1, p - 1) == key)
			return substr(f[i], p + 1) + 0
	}
	return ""
}
function sortn(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
}
# "median (min-max)" of the values v[g, c, 1..n]
function mmr(g, c,    n, a, i, med) {
	n = cnt[g, c]
	if (!n)
		return "-"
	for (i = 1; i <= n; i++)
		a[i] = val[g, c, i]
	sortn(a, n)
	med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	if (fmt[c] == "")
		fmt[c] = "%.0f"
	return sprintf(fmt[c], med) (n > 1 ? " (" sprintf(fmt[c], a[1]) "-" sprintf(fmt[c], a[n]) ")" : "")
}
function add(g, c, v) {
	if (v == "" || v == "n/a")
		return
	val[g, c, ++cnt[g, c]] = v
}

FNR == NR && what == "project" && cost != "" && FILENAME == cost {
	if ($0 ~ /^[[:space:]]*(#|$)/)
		next
	split($0, w, /[[:space:]]+/)
	if (w[1] ~ /^D[0-9]+$/)
		ctab[w[1] " " w[2]] = w[3] + 0
	next
}

$3 == "challenge-result" {
	key = $1 SUBSEP $2 SUBSEP $4 SUBSEP $5 SUBSEP $6
	if (!(key in seen)) { seen[key] = 1; order[++nruns] = key }
	steps[key] = $7
	lat[key] = $8
	hist[key] = $9
	last[key] = $9
	counters[key] = $10
	g = $1 SUBSEP $2 SUBSEP $4 SUBSEP $5
	if (!(g in gseen)) { gseen[g] = 1; groups[++ng] = g }
	next
}
$3 == "challenge-khugepaged" {
	key = $1 SUBSEP $2 SUBSEP $4 SUBSEP $5 SUBSEP $6
	kh_t[key, $7] = $8
	kh_h[key, $7] = $9
	kh_c[key, $7] = kv($10, "collapsed")
	last[key] = $9
	next
}
$3 == "challenge-sample" && what == "timeline" && $1 == topo && $4 == variant {
	s = series_name($2, $5)
	if (!(s in sseen)) { sseen[s] = 1; series[++nser] = s }
	local_remote($9, lr)
	b = int($8 + 0.5)
	sum[b, s] += lr["local THP"]
	num[b, s]++
	if (b > maxb)
		maxb = b
	next
}
$3 == "challenge-cdf" && what == "cdf" && $1 == topo && $4 == variant {
	s = series_name($2, $5)
	if (!(s in sseen)) { sseen[s] = 1; series[++nser] = s }
	n = split($7, q, " ")
	for (i = 1; i <= n; i++)
		qs[i, s] += q[i]
	qn[s]++
	nq = n
	next
}

function per_run(key,    f, lr, g, i) {
	split(key, f, SUBSEP)
	local_remote(hist[key], lr)
	r["steps"] = steps[key]
	r["p50"] = kv(lat[key], "p50"); r["p90"] = kv(lat[key], "p90")
	r["p99"] = kv(lat[key], "p99"); r["max"] = kv(lat[key], "max")
	r["local THP"] = lr["local THP"]; r["local mTHP"] = lr["local mTHP"]; r["local 4k"] = lr["local 4k"]
	r["remote THP"] = lr["remote THP"]; r["remote mTHP"] = lr["remote mTHP"]; r["remote 4k"] = lr["remote 4k"]
	for (i = 1; i <= ncnt; i++)
		r[cn[i]] = kv(counters[key], cn[i])
	r["default s"] = kh_t[key, "default"]
	r["fast s"] = kh_t[key, "fast"]
	r["local THP after default"] = r["local THP after fast"] = ""
	if ((key, "default") in kh_h) {
		local_remote(kh_h[key, "default"], lr)
		r["local THP after default"] = lr["local THP"]
	}
	if ((key, "fast") in kh_h) {
		local_remote(kh_h[key, "fast"], lr)
		r["local THP after fast"] = lr["local THP"]
	}
	r["collapsed"] = kh_c[key, "fast"]
}

END {
	ncnt = split("compact_stall compact_success pgscan_direct pgsteal thp_fault_alloc thp_fault_fallback thp_collapse_alloc", cn, " ")
	ncol = split("steps,p50,p90,p99,max,local THP,local mTHP,local 4k,remote THP,remote mTHP,remote 4k,compact_stall,compact_success,pgscan_direct,pgsteal,thp_fault_alloc,thp_fault_fallback,thp_collapse_alloc,default s,local THP after default,fast s,local THP after fast,collapsed", col, ",")
	fmt["default s"] = fmt["fast s"] = "%.1f"
	if (what == "runs") {
		printf("topology,kernel,variant,mode,run")
		for (c = 1; c <= ncol; c++) {
			h = col[c]; gsub(/ /, "_", h)
			printf(",%s", h)
		}
		printf(",placement\n")
		for (i = 1; i <= nruns; i++) {
			per_run(order[i])
			split(order[i], f, SUBSEP)
			printf("%s,%s,%s,%s,%s", f[1], f[2], f[3], f[4], f[5])
			for (c = 1; c <= ncol; c++)
				printf(",%s", r[col[c]])
			h = hist[order[i]]; gsub(/ [|] /, "/", h)
			printf(",%s\n", h)
		}
		exit
	}
	if (what == "project") {
		for (i = 1; i <= nruns; i++) {
			split(order[i], f, SUBSEP)
			shares(last[order[i]], sh)
			tot = 0; cst = 0; na = 0
			for (k in sh) {
				if (sh[k] == 0)
					continue
				if (!(k in ctab))
					na = 1
				tot += sh[k]
				cst += sh[k] * ctab[k]
			}
			g = f[1] SUBSEP f[2] SUBSEP f[3] SUBSEP f[4]
			if (!na && tot > 0)
				add(g, "cost", cst / tot)
			else
				napp[g] = 1
		}
		fmt["cost"] = "%+.1f%%"
		for (i = 1; i <= ng; i++) {
			split(groups[i], f, SUBSEP)
			printf("%s,%s,%s,%s,%s\n", f[1], f[2], f[3], f[4], (groups[i] in napp) ? "n/a" : mmr(groups[i], "cost"))
		}
		exit
	}
	if (what == "timeline" || what == "cdf") {
		printf("%s", what == "timeline" ? "s" : "quantile")
		for (j = 1; j <= nser; j++)
			printf("\t\"%s\"", series[j])
		printf("\n")
		if (what == "timeline")
			for (b = 0; b <= maxb; b++) {
				printf("%d", b)
				for (j = 1; j <= nser; j++)
					printf("\t%s", num[b, series[j]] ? sprintf("%.1f", sum[b, series[j]] / num[b, series[j]]) : "?")
				printf("\n")
			}
		else
			for (i = 1; i <= nq; i++) {
				printf("%d", i - 1)
				for (j = 1; j <= nser; j++)
					printf("\t%.0f", qs[i, series[j]] / qn[series[j]])
				printf("\n")
			}
		exit
	}
	# summary and table: every run into its group
	for (i = 1; i <= nruns; i++) {
		per_run(order[i])
		split(order[i], f, SUBSEP)
		g = f[1] SUBSEP f[2] SUBSEP f[3] SUBSEP f[4]
		runs[g]++
		for (c = 1; c <= ncol; c++)
			add(g, col[c], r[col[c]])
	}
	if (what == "summary") {
		printf("topology,kernel,variant,mode,runs")
		for (c = 1; c <= ncol; c++) {
			h = col[c]; gsub(/ /, "_", h)
			printf(",%s", h)
		}
		printf("\n")
		for (i = 1; i <= ng; i++) {
			split(groups[i], f, SUBSEP)
			printf("%s,%s,%s,%s,%d", f[1], f[2], f[3], f[4], runs[groups[i]])
			for (c = 1; c <= ncol; c++)
				printf(",%s", mmr(groups[i], col[c]))
			printf("\n")
		}
		exit
	}
	# what == "table": one table per topology and variant, patched modes then stock
	for (i = 1; i <= ng; i++) {
		split(groups[i], f, SUBSEP)
		tv = f[1] SUBSEP f[3]
		if (!(tv in tvseen)) { tvseen[tv] = 1; tvs[++ntv] = tv }
	}
	for (t = 1; t <= ntv; t++) {
		split(tvs[t], tvf, SUBSEP)
		printf("\n**%s, %s region**\n\n", tvf[1], tvf[2] == "vm" ? "vm (MPOL_BIND node0)" : "normal (modes taking turns)")
		printf("| kernel | mode | runs | local THP %% | local 4k %% | remote THP %% | remote 4k %% | p50 us | p90 us | p99 us | max us |%s compact_stall | compact_success | pgscan_direct | pgsteal | thp_fault_alloc | thp_fault_fallback |\n",
		       tvf[2] == "normal" ? " local THP % after khugepaged default | then fast | collapsed (all regions) |" : "")
		printf("|---|---|---|---|---|---|---|---|---|---|---|%s---|---|---|---|---|---|\n", tvf[2] == "normal" ? "---|---|---|" : "")
		for (pass = 1; pass <= 2; pass++)
			for (i = 1; i <= ng; i++) {
				split(groups[i], f, SUBSEP)
				if (f[1] SUBSEP f[3] != tvs[t] || (pass == 1) != (f[2] == "patched"))
					continue
				g = groups[i]
				printf("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |", klabel(f[2]), f[4], runs[g],
				       mmr(g, "local THP"), mmr(g, "local 4k"), mmr(g, "remote THP"), mmr(g, "remote 4k"),
				       mmr(g, "p50"), mmr(g, "p90"), mmr(g, "p99"), mmr(g, "max"))
				if (tvf[2] == "normal")
					printf(" %s after %s s | %s at %s s | %s |", mmr(g, "local THP after default"), mmr(g, "default s"),
					       mmr(g, "local THP after fast"), mmr(g, "fast s"), mmr(g, "collapsed"))
				printf(" %s | %s | %s | %s | %s | %s |\n", mmr(g, "compact_stall"), mmr(g, "compact_success"),
				       mmr(g, "pgscan_direct"), mmr(g, "pgsteal"), mmr(g, "thp_fault_alloc"), mmr(g, "thp_fault_fallback"))
			}
	}
}
