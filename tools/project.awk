# Projected access latency of measured placements under a cost table.
#
#   awk -f tools/project.awk COSTFILE placement.csv
#
# COSTFILE: "name <text>" and "D<k> <THP|4k> <% over D0 THP>" lines, '#'
# comments (tools/costs/*.cost, or numa-lat -f cost from a real host).
# placement.csv: kernel,rows,mode,cpu_node,madvise,states,placement,classes
# as tools/bench.sh writes it from thp_scenarios' "# placement" lines.
#
# For each placement: the projected mean cost (sum of share x cost), the
# oracle (the cheapest page the node states left: a FREE node offers every
# size, a FRAG node every size below THP, a SPLIT node 4k only, a FULL
# node nothing, a LOW node first in the walk THP only (its min-watermark
# attempt); nodes past the row's states are FREE; rows named "...+64K"
# had 64K mTHP on, "...-2M" had PMD-sized THP off) and the gap between
# the two, in percentage points.
#
# A table without "D<k> mTHP" costs gets them filled in with the same
# class's 4k cost: x86 maps a 64K folio with sixteen 4k PTEs, so the TLB
# sees 4k pages (AMD's PTE coalescing aside), and numa-lat measures the
# 64K column to check that.  The FILLED line on stderr says where.
# A share on a class/size the table has no cost for makes the projection
# "n/a"; so does an option without a cost that no known option dominates
# (as near or nearer, and THP or the same size).
#
# Output CSV: table,kernel,rows,mode,cpu_node,madvise,states,projected,oracle,oracle_at,gap

BEGIN { FS = "," }

FNR == NR {
	if ($0 ~ /^[[:space:]]*(#|$)/)
		next
	n = split($0, w, /[[:space:]]+/)
	if (w[1] == "name") {
		name = $0
		sub(/^name[[:space:]]+/, "", name)
		gsub(/,/, ";", name)
	} else if (w[1] ~ /^D[0-9]+$/ && n >= 3) {
		cost[w[1] " " w[2]] = w[3] + 0
	}
	next
}

FNR == 1 && !filled_done {
	filled_done = 1
	for (k in cost) {
		split(k, kk, " ")
		if (kk[2] == "4k" && !((kk[1] " mTHP") in cost)) {
			cost[kk[1] " mTHP"] = cost[k]
			filled = filled " " kk[1]
		}
	}
	if (filled != "")
		printf("FILLED %s: mTHP cost = 4k cost for%s\n", name, filled) > "/dev/stderr"
}

FNR == 1 && $1 == "kernel" { next }

{
	# placement: "D0 THP 100% | D0 4k 0% | ..."
	np = split($7, parts, / \| /)
	proj = 0
	known = 1
	for (i = 1; i <= np; i++) {
		split(parts[i], f, " ")
		share = f[3]
		sub(/%/, "", share)
		share += 0
		if (share == 0)
			continue
		key = f[1] " " f[2]
		if (!(key in cost)) {
			known = 0
			continue
		}
		proj += share / 100 * cost[key]
	}

	# oracle over the zonelist positions
	ns = split($6, st, "/")
	nc = split($8, cls, "/")
	best = ""
	best_at = "none"
	nu = 0
	split("", avail)
	nz = split(($2 ~ /-2M/ ? "" : "THP ") ($2 ~ /\+64K/ ? "mTHP " : "") "4k", sizes, " ")
	for (i = 1; i <= nc; i++) {
		s = i <= ns ? st[i] : "FREE"
		if (s == "FULL" || (s == "LOW" && i > 1))
			continue
		for (z = 1; z <= nz; z++) {
			size = sizes[z]
			if (size == "THP" && s != "FREE" && s != "LOW")
				continue
			if (size != "THP" && s == "LOW")
				continue
			if (size == "mTHP" && s == "SPLIT")
				continue
			key = "D" cls[i] " " size
			if (!(key in cost)) {
				unknown[++nu] = cls[i] " " size
				continue
			}
			avail[cls[i] " " size] = 1
			if (best == "" || cost[key] < best) {
				best = cost[key]
				best_at = key
			}
		}
	}
	# An option without a cost could be the cheapest, unless a known one
	# is at most as far and at least as big (same class or nearer, THP or
	# the same size).
	for (u = 1; u <= nu; u++) {
		split(unknown[u], uo, " ")
		dominated = 0
		for (a in avail) {
			split(a, ao, " ")
			if (ao[1] + 0 <= uo[1] + 0 && (ao[2] == "THP" || ao[2] == uo[2] ||
			    (ao[2] == "mTHP" && uo[2] == "4k")))
				dominated = 1
		}
		if (!dominated)
			best = ""
	}
	p = known ? sprintf("%.1f", proj) : "n/a"
	o = best == "" ? "n/a" : sprintf("%.1f", best)
	g = known && best != "" ? sprintf("%.1f", proj - best) : "n/a"
	printf("%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", name, $1, $2, $3, $4, $5, $6, p, o, best_at, g)
}
