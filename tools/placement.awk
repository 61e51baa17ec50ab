# placement_short(H, MTHP): a placement record ("D0 THP 100% | D0 4k 0% |
# D1 THP 0% ...") as a table cell: the parts with pages, "D0 THP" for a
# part that holds the whole region, else "D1 4k 40%"; MTHP names the
# record's mTHP size ("mTHP", or "64K" where only that size is enabled).
# Prepended to the programs of tools/report.sh and tools/results.sh.
function placement_short(h, mthp,    n, part, i, f, size, out) {
	n = split(h, part, / [|] /)
	out = ""
	for (i = 1; i <= n; i++) {
		split(part[i], f, " ")
		if (f[3] == "0%")
			continue
		size = f[2] == "mTHP" ? mthp : f[2]
		out = out (out == "" ? "" : " + ") f[1] " " size (f[3] == "100%" ? "" : " " f[3])
	}
	return out == "" ? "nothing placed" : out
}
