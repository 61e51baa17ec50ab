# The usemem storm part of the bench report (make bench step 8, report
# section 6), from thp_usemem -b's "# usemem" lines.
#
#   guest_output LOG usemem | awk -f tools/storm.awk -v what=csv -v tree=T -v kernel=K
#   awk -f tools/storm.awk -v what=WHAT [-v tree=T] storm.csv
#
# what=csv     storm.csv lines (no header) from the usemem records of one
#              run (tools/guest-output.awk): tree T (6.12 or 7.3), kernel K
#              (patched or baseline; baseline is written "unpatched" and its
#              mode "stock"), the fill's number within its mode, then the
#              counters; -1 where the guest had no such counter
# what=trees   the trees of storm.csv, first seen first
# what=table   Markdown, tree=T: one row per kernel and mode, and how many
#              fills did not make the case (the neighbour did not fire)
# what=test    Markdown, tree=T: one-sided permutation tests, each mode of
#              the patched kernel against the unpatched kernel, on swap-outs
#              and on kswapd passes
# what=check   make check's verdicts, tree=T, want=N (fills per group),
#              allow_out=A, allow_pass=B, alpha=L: per patched mode and
#              counter (swap-outs, kswapd passes) "ok|fail<TAB>WHAT<TAB>TEXT":
#              fail when the mode's mean per fill exceeds the unpatched
#              kernel's by more than A swap-outs (B passes) and the one-sided
#              permutation test over the fills gives p <= L, or when a group
#              has not exactly N fills.  Both, because either alone fails
#              stock's code against itself: a mean excess beyond A in 4% of
#              10-fill pairs of the unpatched 6.12 kernel's own boots, and
#              p <= L in a share L of them by construction.
# what=strip   gnuplot data, tree=T: one line per fill, the column's number,
#              its x (jittered), and its swap-outs in column 3 (neighbour
#              fired) or 4 (did not; "?" in the other), after a
#              "# xtics ..." line with the columns' labels
#
# storm.csv: tree,kernel,mode,fill,swapouts,swapins,kswapd_passes,
# compact_stalls,pgscan_kswapd,pgscan_direct,hit_quickly,thp_pct,node0_pct,
# seconds,neighbour
BEGIN {
	FS = what == "csv" ? "\t" : ","
	# Above this many labellings the test samples them: C(16,8) = 12870
	# is still exact, so FILLS=8 gets exact p values and FILLS=4 (70
	# labellings) does too.
	EXACT = 20000
	RANDOM = 20000
	SEED = 1
	# the columns in the order the tables and plots give them
	split("patched:node-first patched:guest patched:legacy unpatched:stock", order0, " ")
	C_OUT = 5; C_PASS = 7; C_STALL = 8; C_THP = 12; C_NODE0 = 13; C_NB = 15
	hdr[5] = "swap-outs"; hdr[6] = "swap-ins"; hdr[7] = "kswapd passes"
	hdr[8] = "compaction stalls"; hdr[9] = "pgscan_kswapd"; hdr[10] = "pgscan_direct"
	hdr[11] = "kswapd_high_wmark_hit_quickly"; hdr[12] = "THP %"; hdr[13] = "node 0 %"
	hdr[14] = "seconds"
}

# ---- what=csv: records of one run -------------------------------------------
function f(i) {
	return i <= NF && $i != "" ? $i : -1
}
what == "csv" && $1 == "usemem" {
	m = $2
	sub(/\+bound$/, "", m)
	k = kernel == "baseline" ? "unpatched" : kernel
	if (k == "unpatched")
		m = "stock"
	printf("%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", tree, k, m, ++nfill[m],
		f(6), f(7), f(9), f(10), f(11), f(12), f(13), f(5), f(14), f(4), f(8))
	next
}
what == "csv" { next }

# ---- the other whats: storm.csv ---------------------------------------------
FNR == 1 && $1 == "tree" { next }
what == "trees" {
	if (!($1 in seen_tree)) {
		seen_tree[$1] = 1
		print $1
	}
	next
}
$1 == tree {
	g = $2 ":" $3
	if (!(g in n)) {
		n[g] = 0
		seen[++nseen] = g
	}
	i = ++n[g]
	for (c = 4; c <= NF; c++)
		v[g, c, i] = $c
}

function sortn(a, k,    i, j, t) {
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
}
# vals(G, COLUMN, A): the column's values of group G in A[1..], in fill
# order, without the -1 of a counter the kernel did not have; how many
function vals(g, c, a,    i, k) {
	split("", a)
	k = 0
	for (i = 1; i <= n[g]; i++)
		if (v[g, c, i] != -1)
			a[++k] = v[g, c, i] + 0
	return k
}
function missing(g, c) {
	return n[g] - vals(g, c, tmp)
}
function num(x) {
	return x == int(x) ? sprintf("%d", x) : sprintf("%.1f", x)
}
function median(g, c,    a, k) {
	k = vals(g, c, a)
	if (!k)
		return "n/a"
	sortn(a, k)
	return num(k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2)
}
function mean(g, c,    a, k, i, s) {
	k = vals(g, c, a)
	if (!k)
		return "n/a"
	for (i = 1; i <= k; i++)
		s += a[i]
	return num(int(s / k + 0.5))
}
function max(g, c,    a, k, i, m) {
	k = vals(g, c, a)
	if (!k)
		return "n/a"
	m = a[1]
	for (i = 2; i <= k; i++)
		if (a[i] > m)
			m = a[i]
	return num(m)
}
function swapped(g,    a, k, i, s) {
	k = vals(g, C_OUT, a)
	for (i = 1; i <= k; i++)
		if (a[i] > 0)
			s++
	return s + 0
}
# the fills of G whose neighbour did not fire, "2 (fills 3, 7)", or 0
function not_fired(g,    i, k, l) {
	for (i = 1; i <= n[g]; i++)
		if (v[g, C_NB, i] != "fired") {
			k++
			l = l (l == "" ? "" : ", ") v[g, 4, i]
		}
	return k ? k " (fill" (k > 1 ? "s " : " ") l ")" : "0"
}
function label(g,    kv) {
	split(g, kv, ":")
	if (g == "unpatched:stock")
		return "stock (unpatched)"
	return kv[1] == "patched" ? kv[2] : kv[1] " " kv[2]
}
# the groups in table order: the four known ones, then any other
function groups(    i, k) {
	k = 0
	for (i = 1; i <= 4; i++)
		if (order0[i] in n)
			col[++k] = order0[i]
	for (i = 1; i <= nseen; i++)
		if (!(seen[i] == order0[1] || seen[i] == order0[2] || seen[i] == order0[3] || seen[i] == order0[4]))
			col[++k] = seen[i]
	return k
}

# C(N, K), or a number above EXACT once it is clear it is (no overflow)
function choose(nn, k,    c, i) {
	if (k > nn - k)
		k = nn - k
	c = 1
	for (i = 1; i <= k; i++) {
		c = c * (nn - k + i) / i
		if (c > EXACT)
			return c
	}
	return c
}
# One-sided permutation test of "A is larger than B": the statistic is
# mean(A) - mean(B), p the share of the labellings of the pooled fills
# (NA of them called A) whose statistic is at least the observed one.
# With NA and NB fixed the statistic rises with sum(A), so sums are
# compared: whole numbers, no rounding at a tie.  Every labelling when
# there are at most EXACT of them, else RANDOM random ones (a partial
# Fisher-Yates shuffle per labelling) from srand(SEED), so a report made
# again by the same awk gives the same p.  Sets perm_method.
function perm(a, na, b, nb,    pool, nn, i, j, x, obs, c, cnt, idx, s, t) {
	nn = na + nb
	for (i = 1; i <= na; i++) {
		pool[i] = a[i]
		obs += a[i]
	}
	for (i = 1; i <= nb; i++)
		pool[na + i] = b[i]
	c = choose(nn, na)
	if (c <= EXACT) {
		for (i = 1; i <= na; i++)
			idx[i] = i
		t = 0
		while (1) {
			s = 0
			for (i = 1; i <= na; i++)
				s += pool[idx[i]]
			t++
			if (s >= obs)
				cnt++
			# the next NA-subset of 1..NN in lexicographic order
			for (i = na; i >= 1 && idx[i] == nn - na + i; i--)
				;
			if (i < 1)
				break
			idx[i]++
			for (j = i + 1; j <= na; j++)
				idx[j] = idx[j - 1] + 1
		}
		perm_method = "exact, all " t " labellings"
		return cnt / t
	}
	srand(SEED)
	for (t = 1; t <= RANDOM; t++) {
		s = 0
		for (i = 1; i <= na; i++) {
			j = i + int(rand() * (nn - i + 1))
			x = pool[i]; pool[i] = pool[j]; pool[j] = x
			s += pool[i]
		}
		if (s >= obs)
			cnt++
	}
	perm_method = RANDOM " random labellings (of more than " EXACT "), srand(" SEED ")"
	return cnt / RANDOM
}

END {
	if (what == "csv" || what == "trees")
		exit
	ng = groups()
	if (!ng) {
		print "(no fills of Linux " tree ")"
		exit
	}
	if (what == "strip") {
		x = ""
		for (j = 1; j <= ng; j++)
			x = x (j > 1 ? ", " : "") "\"" label(col[j]) "\" " j
		print "# xtics " x
		for (j = 1; j <= ng; j++)
			for (i = 1; i <= n[col[j]]; i++) {
				y = v[col[j], C_OUT, i]
				if (y == -1)
					continue
				# a fixed jitter per fill number (golden-ratio steps), so
				# the same data give the same plot
				jit = (v[col[j], 4, i] * 0.618034) % 1 - 0.5
				printf("%d\t%.3f\t%s\t%s\n", j, j + jit * 0.5,
					v[col[j], C_NB, i] == "fired" ? y : "?", v[col[j], C_NB, i] == "fired" ? "?" : y)
			}
		exit
	}
	if (what == "table") {
		print "| kernel | mode | fills | swapped | swap-outs: median | mean | max | kswapd passes: median | compaction stalls: median | THP %: median | node 0 %: median | neighbour did not fire |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (j = 1; j <= ng; j++) {
			g = col[j]
			split(g, kv, ":")
			printf("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", kv[1], kv[2], n[g],
				swapped(g), median(g, C_OUT), mean(g, C_OUT), max(g, C_OUT), median(g, C_PASS),
				median(g, C_STALL), median(g, C_THP), median(g, C_NODE0), not_fired(g))
			for (i = 1; i <= n[g]; i++) {
				all++
				if (v[g, C_NB, i] != "fired")
					off++
			}
			split(C_OUT " " C_PASS " " C_STALL " " C_THP " " C_NODE0, shown, " ")
			for (c = 1; c <= 5; c++)
				if (missing(g, shown[c]))
					lack = lack sprintf("%s%s: %d fills without %s", lack == "" ? "" : "; ",
						label(g), missing(g, shown[c]), hdr[shown[c]])
		}
		printf("\n")
		if (off)
			printf("%d of %d fills: the neighbour did not fire (it did not take node 0 below its low watermark, or did not start), so the fill did not make the case; they are counted in every figure above and in the tests below.\n", off, all)
		else
			printf("The neighbour fired in all %d fills.\n", all)
		if (lack != "")
			printf("Counters the guest did not have (-1), left out of their figures: %s.\n", lack)
		exit
	}
	if (what == "check") {
		if (alpha == "" || alpha + 0 <= 0 || alpha + 0 >= 1) {
			printf("fail\tthe verdict\talpha=%s is not a level between 0 and 1\n", alpha)
			exit
		}
		if (n["unpatched:stock"] != want) {
			printf("fail\tthe unpatched kernel\t%d of %d fills reported\n", n["unpatched:stock"], want)
			exit
		}
		split(C_OUT " " C_PASS, counters, " ")
		for (j = 1; j <= ng; j++) {
			g = col[j]
			if (g == "unpatched:stock")
				continue
			if (n[g] != want) {
				printf("fail\t%s\t%d of %d fills reported\n", label(g), n[g], want)
				continue
			}
			for (k = 1; k <= 2; k++) {
				c = counters[k]
				na = vals(g, c, a)
				nb = vals("unpatched:stock", c, b)
				sa = sb = 0
				for (i = 1; i <= na; i++)
					sa += a[i]
				for (i = 1; i <= nb; i++)
					sb += b[i]
				p = na && nb ? perm(a, na, b, nb) : 0
				allow = k == 1 ? allow_out : allow_pass
				# fail: above by more than the allowance, and not by chance
				bad = !(na && nb) || (sa / na > sb / nb + allow && p <= alpha)
				printf("%s\t%s %s\tmean %.1f against the unpatched kernel's %.1f over %d fills each; fails above it by more than %s with p <= %s (permutation test of \"more\" over the fills: p = %.3f, %s)\n",
					bad ? "fail" : "ok", label(g), hdr[c],
					na ? sa / na : -1, nb ? sb / nb : -1, want, allow, alpha, p, perm_method)
			}
		}
		exit
	}
	# what == "test"
	if (!("unpatched:stock" in n)) {
		print "(no fills of the unpatched " tree " kernel: no test)"
		exit
	}
	if (ng == 1) {
		print "(no fills of the patched " tree " kernel: no test)"
		exit
	}
	print "| mode | counter | fills: mode, stock | mean: mode | mean: stock | difference | p | method |"
	print "|---|---|---|---|---|---|---|---|"
	split(C_OUT " " C_PASS, counters, " ")
	for (j = 1; j <= ng; j++) {
		g = col[j]
		if (g == "unpatched:stock")
			continue
		for (k = 1; k <= 2; k++) {
			c = counters[k]
			na = vals(g, c, a)
			nb = vals("unpatched:stock", c, b)
			if (!na || !nb) {
				printf("| %s | %s | %d, %d | | | | | no test |\n", label(g), hdr[c], na, nb)
				continue
			}
			sa = sb = 0
			for (i = 1; i <= na; i++)
				sa += a[i]
			for (i = 1; i <= nb; i++)
				sb += b[i]
			p = perm(a, na, b, nb)
			printf("| %s | %s | %d, %d | %.1f | %.1f | %+.1f | %.3f | %s |\n", label(g), hdr[c],
				na, nb, sa / na, sb / nb, sa / na - sb / nb, p, perm_method)
		}
	}
}
