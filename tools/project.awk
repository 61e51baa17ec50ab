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
# oracle (the cheapest page the node states left: a FREE node offers THP
# and 4k, a FRAG node 4k only, a FULL node nothing; nodes past the row's
# states are FREE) and the gap between the two, in percentage points.
# A share on a class/size the table has no cost for makes the projection
# "n/a"; such options are skipped when looking for the oracle.
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
	for (i = 1; i <= nc; i++) {
		s = i <= ns ? st[i] : "FREE"
		if (s == "FULL")
			continue
		for (z = 1; z <= 2; z++) {
			size = z == 1 ? "THP" : "4k"
			if (size == "THP" && s != "FREE")
				continue
			key = "D" cls[i] " " size
			if (!(key in cost))
				continue
			if (best == "" || cost[key] < best) {
				best = cost[key]
				best_at = key
			}
		}
	}
	p = known ? sprintf("%.1f", proj) : "n/a"
	o = best == "" ? "n/a" : sprintf("%.1f", best)
	g = known && best != "" ? sprintf("%.1f", proj - best) : "n/a"
	printf("%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", name, $1, $2, $3, $4, $5, $6, p, o, best_at, g)
}
