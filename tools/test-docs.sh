#!/bin/sh
# Host-side test of the docs: every repository path, make target, make
# variable, tool option and local link that README.md, docs/*.md and
# mm-tests/README.md name exists in the tree.  TAP on stdout.
#
#   tools/test-docs.sh                  the docs, then the self-test
#   tools/test-docs.sh --check ROOT DOC...
#                                       only DOC..., against the tree ROOT
#
# One result per doc and kind; a failure lists what is missing with its
# line.  What is taken from a doc (code is `spans`, indented or fenced
# blocks):
#
# paths     any word, prose or code, with a "/" whose first part is an entry
#           of the tree's top (tools/..., kernel-patches/7.3/) or of the
#           doc's own directory (nodestate/ in mm-tests/README.md); globs
#           must match, {a,b} is expanded, a <placeholder> part or "..."
#           ends the path (its directory is checked); P also passes when
#           P.c exists (tools/numa-lat/numa-lat, built from its source).
#           A code span that is a bare source name (vm_util.h,
#           storm.awk, base.config) must be some file's name in the tree.
# targets   the words after "make" in code, up to a ";", "|", "&&" or "#"
#           ("-C DIR": DIR's Makefile), against that Makefile's rules.
# variables VAR=value words in code (make's arguments, a command's
#           environment, a span of its own): VAR must be read by the
#           Makefile or the tools ($VAR, ${VAR, $(VAR), VAR ?=,
#           ENVIRON["VAR"]); CONFIG_X by kernel-patches/ or the tools.
# options   the -x and --long words after a command that is one of the
#           project's programs (tools/run-guest, tools/*.sh, rootfs/*.sh,
#           mm-tests/*.sh, the mm-tests/thp_* programs, numa-lat,
#           thp-numa-exec), and a
#           span that is only an option (`--dry-run`, `-b PCT`), which
#           belongs to the last program named in its paragraph, list item
#           or table row, else in its section's heading; such a span is
#           checked only in the program's own style (--long for scripts,
#           -x for C), so QEMU's `-numa node` beside run-guest is not.
#           Scripts: a case pattern of the script has the option; C: the
#           option letter is in its getopt() string, a --long option in
#           its getopt_long() table.
# links     [text](path#anchor) to a local file: the file exists, and the
#           anchor is a heading of it (GitHub's rule: lowercase, spaces to
#           "-", punctuation but "-" and "_" dropped; repeats get -1, -2).
#
# Not repository paths, skipped on purpose (SKIP_PATHS): absolute paths
# (the guest's and the host's), $CACHE/..., ~/.cache/thp-numa, results/
# (make bench's output), rootfs/<recipe hash>/ (the cache's guest image)
# and tools/testing/ (the kernel tree's selftests); SKIP_BARE names
# kernel-tree files a doc may name bare.
#
# The self-test runs --check on a stand-in tree (the real one's entries,
# linked) with a doc that names a missing file, make target, variable,
# option, linked file and anchor, and expects each to fail and the
# entries that exist not to.
set -u
TOOL=test-docs
. "$(dirname "$0")/lib.sh"

SKIP_PATHS='results/* rootfs/<* tools/testing/*'
SKIP_BARE='kvm_guest.config'
TAB=$(printf '\t')

# The doc's records, one a line, tab-separated: KIND LINE ITEM [EXTRA].
#   path LINE WORD           a word with a "/"
#   bare LINE NAME           a span that is a bare source file name
#   target LINE TARGET DIR   a make target (DIR: make -C's, or .)
#   var LINE NAME            a VAR=value word in code
#   opt LINE OPTION PROGRAM  an option of one of the project's programs
#   link LINE PATH ANCHOR    a local link ("-" for no path or no anchor)
docs_records() { # docs_records DOC SCRIPTS CPROGS
	awk -v scripts=" $2 " -v cprogs=" $3 " '
	function known(w,    b) {
		b = w; sub(/^.*\//, "", b)
		if (index(scripts, " " b " ")) return "s"
		if (index(cprogs, " " b " ")) return "c"
		return ""
	}
	function emit(kind, a, b) {
		print kind "\t" NR "\t" a "\t" (b == "" ? "-" : b)
	}
	# one piece of code: its commands, their make targets, variables and
	# options; a program named sets the paragraph context
	function code(s, span,    i, c, q, out, n, cmds, k, nw, w, j, w0, t, v, dir, lone, env, nv, vs) {
		# spaces inside quotes do not split words; \| is a table cell pipe
		out = ""; q = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (q != "") { if (c == q) q = ""; else if (c == " ") c = "\001" }
			else if (c == "\"" || c == "\047") q = c
			out = out c
		}
		gsub(/\\\|/, "\002", out)
		# a comment ends the code (not in a span: `#anchor` is no comment)
		if (!span) sub(/(^|[ \t])#.*$/, "", out)
		n = split(out, cmds, /;|&&|\|\||[ \t]\|[ \t]/)
		for (k = 1; k <= n; k++) {
			nw = split(cmds[k], w, /[ \t]+/)
			j = 1
			while (j <= nw && w[j] == "") j++
			for (i = j; i <= nw; i++) {
				gsub(/^\[|\]$|[,.)]$/, "", w[i])
				gsub(/\001/, " ", w[i]); gsub(/\002/, "|", w[i])
			}
			# environment words before the command: checked before one of
			# the project programs or make, or as a span of their own
			# (not in sample output such as "D0=node0 D1=node1")
			env = ""
			while (j <= nw && w[j] ~ /^[A-Z][A-Z0-9_]*=/) {
				v = w[j]; sub(/=.*/, "", v); env = env " " v; j++
			}
			w0 = j <= nw ? w[j] : ""
			sub(/^\.\//, "", w0)
			if ((span && j > nw && split(env, vs, " ") == 1) || w0 == "make" || known(w0) != "") {
				nv = split(env, vs, " ")
				for (i = 1; i <= nv; i++) emit("var", vs[i])
			}
			if (j > nw) continue
			if (w0 == "make") {
				dir = "."
				for (i = j + 1; i <= nw; i++) {
					t = w[i]
					if (t == "-C" && i < nw) { dir = w[++i]; continue }
					if (t ~ /^-/ || t == "") continue
					if (t ~ /^[A-Z][A-Z0-9_]*=/) { sub(/=.*/, "", t); emit("var", t); continue }
					if (t ~ /[<>.=$"\/]/) continue
					emit("target", t, dir)
				}
				continue
			}
			lone = w0 ~ /^-/
			if (!lone && known(w0) == "") continue
			if (!lone) ctx = w0
			if (ctx == "") continue
			for (i = lone ? j : j + 1; i <= nw; i++) {
				t = w[i]
				if (t == "--") break
				if (t ~ /^[A-Z][A-Z0-9_]*=/) { sub(/=.*/, "", t); emit("var", t); continue }
				if (t !~ /^--?[A-Za-z]/) continue
				sub(/=.*/, "", t)
				# a span of options alone: only in its program style (--long for a script, -x for C)
				if (lone && !(known(ctx) == "s" ? t ~ /^--/ : t ~ /^-[A-Za-z]$/)) continue
				emit("opt", t, ctx)
			}
		}
	}
	BEGIN { ctx = hctx = carry = ""; fence = 0; prevblank = 1; incode = 0 }
	/^[ \t]*```/ { fence = !fence; prevblank = 0; carry = ""; next }
	{
		line = $0
		blank = line ~ /^[ \t]*$/
		# indented code: after a blank line or more code
		incode = fence || (line ~ /^(    |\t)/ && !blank && (prevblank || incode))
		heading = !fence && line ~ /^#+[ \t]/
		if (heading) ctx = hctx = ""
		else if (blank || line ~ /^[ \t]*([-*+]|[0-9]+\.)[ \t]/ || line ~ /^[ \t]*\|/) ctx = hctx
		if (blank || incode) carry = ""
		prevblank = blank
		# paths: every word with a "/"
		n = split(line, ws, /[ \t`()"\047|;!?\[\]]+/)
		for (i = 1; i <= n; i++) {
			t = ws[i]
			if (index(t, "/") == 0 || t ~ /:\/\//) continue
			sub(/^.*=/, "", t)
			sub(/[.,:;]+$/, "", t)
			sub(/^\.\//, "", t)
			if (t == "" || t ~ /^[\/$~%]/) continue
			emit("path", t)
		}
		if (incode) { code(line, 0); next }
		# a span left open at the end of the line goes on on the next one
		text = carry line
		carry = ""
		if (gsub(/`/, "`", text) % 2) {
			i = length(text)
			while (substr(text, i, 1) != "`") i--
			carry = substr(text, i) " "
			text = substr(text, 1, i - 1)
		}
		# links, outside code spans
		plain = text
		gsub(/`[^`]*`/, "", plain)
		while (match(plain, /\]\([^) \t]*\)/)) {
			t = substr(plain, RSTART + 2, RLENGTH - 3)
			plain = substr(plain, RSTART + RLENGTH)
			if (t ~ /^[a-z]+:/) continue
			a = ""
			if (index(t, "#")) { a = substr(t, index(t, "#") + 1); t = substr(t, 1, index(t, "#") - 1) }
			emit("link", t == "" ? "-" : t, a)
		}
		# code spans
		rest = text
		while (match(rest, /`[^`]+`/)) {
			t = substr(rest, RSTART + 1, RLENGTH - 2)
			rest = substr(rest, RSTART + RLENGTH)
			s = t; sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); sub(/\(\)$/, "", s)
			if (s ~ /^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*\.(c|h|sh|awk|conf|config|patch)$/)
				emit("bare", s)
			code(t, 1)
			if (heading && ctx != "") hctx = ctx
		}
	}' "$1"
}

# The anchors of a Markdown file, one a line (GitHub's slugs).
doc_anchors() {
	awk '
	/^[ \t]*```/ { fence = !fence; next }
	fence || !/^#+[ \t]/ { next }
	{
		h = $0
		sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h)
		while (match(h, /\[[^]]*\]\([^)]*\)/)) {
			t = substr(h, RSTART + 1, RLENGTH)
			sub(/\]\(.*$/, "", t)
			h = substr(h, 1, RSTART - 1) t substr(h, RSTART + RLENGTH)
		}
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		s = h
		if (h in seen) s = h "-" seen[h]
		seen[h]++
		print s
	}' "$1"
}

# make's targets in DIR/Makefile, one a line
make_targets() {
	awk '
	/^\.PHONY:/ || cont { s = $0; cont = s ~ /\\$/; sub(/^\.PHONY:/, "", s); gsub(/\\/, "", s)
		n = split(s, w, /[ \t]+/); for (i = 1; i <= n; i++) if (w[i] != "") print w[i]; next }
	/^[A-Za-z0-9_.%-][A-Za-z0-9_.%\/ -]*:([^=]|$)/ { s = $0; sub(/:.*/, "", s)
		n = split(s, w, /[ \t]+/); for (i = 1; i <= n; i++) if (w[i] != "") print w[i] }' "$1/Makefile" 2>/dev/null
}

# Is VAR read by the Makefile or the tools (of ROOT)?  Not counting
# comments, nor this test (its self-test names a variable nobody reads).
var_read() { # var_read ROOT VAR
	case $2 in
	CONFIG_*)
		grep -rqsw -- "$2" "$1/kernel-patches" "$1/tools" ;;
	*)
		for f in "$1/Makefile" "$1"/tools/* "$1"/tools/*/Makefile "$1"/rootfs/* \
			"$1/mm-tests/Makefile" "$1"/mm-tests/*.sh; do
			[ -f "$f" ] && [ "${f##*/}" != test-docs.sh ] && echo "$f"
		done | xargs grep -hsE -- '(\$\{?|\$\(|ENVIRON\["|^)'"$2"'([^A-Za-z0-9_]|$)' 2>/dev/null |
			grep -qvE '^[[:space:]]*#' ;;
	esac
}

# The source of one of the project's programs: "s FILE" (a script) or
# "c FILE" (C, getopt); nothing when it is not the project's.
program_source() { # program_source ROOT NAME
	p=${2#./}
	case $p in
	*/*) for f in "$1/$p" "$1/$p.c"; do [ -f "$f" ] && break; done ;;
	*) for f in "$1/tools/$p" "$1/rootfs/$p" "$1/mm-tests/$p" "$1/mm-tests/$p.c" "$1"/tools/*/"$p.c"; do
		[ -f "$f" ] && break
	done ;;
	esac
	[ -f "$f" ] || return 0
	case $f in *.c) echo "c $f" ;; *) echo "s $f" ;; esac
}

has_option() { # has_option KIND FILE OPTION
	if [ "$1" = c ]; then
		# --long: an entry of its getopt_long() option table
		case $3 in --*) grep -qF "{ \"${3#--}\"," "$2"; return ;; esac
		letters=$(sed -n 's/.*getopt[_a-z]*([^"]*"\([^"]*\)".*/\1/p' "$2" | tail -n 1)
		case $letters in *"${3#-}"*) return 0 ;; esac
		return 1
	fi
	grep -qE -- "^[[:space:]]*(\(|[^#)]*[|[:space:]])?$3[[:space:]]*[|)]" "$2"
}

# A path word of DOC: 0 when it exists or is not a repository path.
path_ok() { # path_ok ROOT DOCDIR WORD
	p=${3%%#*}
	case $p in *:[0-9]*) p=${p%:*} ;; esac
	for s in $SKIP_PATHS; do
		# shellcheck disable=SC2254
		case $p in $s) return 0 ;; esac
	done
	first=${p%%/*}
	if [ "$first" = .. ]; then base=$2
	elif [ -e "$1/$first" ]; then base=$1
	elif [ -e "$2/$first" ]; then base=$2
	else return 0; fi
	# a placeholder or "..." ends the path: its directory must exist
	case $p in
	*\<* | *...*) p=$(printf '%s\n' "$p" | awk -F/ '{ o = ""; for (i = 1; i <= NF; i++) {
		if ($i ~ /<|\.\.\./) break; o = o $i "/" } print o }')
		[ -n "$p" ] || return 0
		[ -d "$base/$p" ]; return ;;
	esac
	# {a,b}: each
	case $p in
	*\{*,*\}*)
		pre=${p%%\{*} rest=${p#*\{} alts=${rest%%\}*} post=${rest#*\}}
		for a in $(echo "$alts" | tr ',' ' '); do
			path_ok "$1" "$2" "$pre$a$post" || return 1
		done
		return 0 ;;
	esac
	case $p in
	*[*?]*) for f in $base/$p; do [ -e "$f" ] && return 0; done; return 1 ;;
	esac
	[ -e "$base/$p" ] || [ -e "$base/${p%/}.c" ]
}

# check ROOT DOC...: one TAP result per doc and kind
check_docs() {
	root=$1
	shift
	scripts=$(cd "$root" && for f in tools/* rootfs/*.sh mm-tests/*.sh; do
		[ -f "$f" ] || continue
		case $f in *.sh | tools/run-guest) basename "$f" ;; esac
	done | tr '\n' ' ')
	cprogs=$(cd "$root" && for f in mm-tests/*.c tools/*/*.c; do
		[ -f "$f" ] && basename "$f" .c
	done | tr '\n' ' ')
	names=$(find -L "$root" -name .git -prune -o -type f -print 2>/dev/null | sed 's|.*/||' | sort -u)
	tmpd=$(mktemp -d)
	for doc in "$@"; do
		rel=${doc#"$root"/}
		docdir=$(dirname "$doc")
		docs_records "$doc" "$scripts" "$cprogs" >"$tmpd/records"
		for k in paths targets variables options links; do
			: >"$tmpd/$k.bad"
			: >"$tmpd/$k.n"
		done
		while IFS="$TAB" read -r kind line item extra; do
			case $kind in
			path)
				k=paths
				path_ok "$root" "$docdir" "$item" || echo "$item (line $line)" >>"$tmpd/$k.bad" ;;
			bare)
				k=paths
				case " $SKIP_BARE " in *" $item "*) continue ;; esac
				echo "$names" | grep -qxF -- "$item" || echo "$item (line $line)" >>"$tmpd/$k.bad" ;;
			target)
				k=targets
				d=$root
				[ "$extra" = . ] || d=$root/$extra
				make_targets "$d" | grep -qxF -- "$item" ||
					echo "make $([ "$extra" = . ] || echo "-C $extra ")$item (line $line)" >>"$tmpd/$k.bad" ;;
			var)
				k=variables
				var_read "$root" "$item" || echo "$item= (line $line)" >>"$tmpd/$k.bad" ;;
			opt)
				k=options
				src=$(program_source "$root" "$extra")
				[ -n "$src" ] || continue
				# shellcheck disable=SC2086
				has_option $src "$item" || echo "$extra $item (line $line)" >>"$tmpd/$k.bad" ;;
			link)
				k=links
				if [ "$item" = - ]; then target=$doc; else target=$docdir/$item; fi
				if [ ! -e "$target" ]; then
					echo "($item) (line $line)" >>"$tmpd/$k.bad"
				elif [ "$extra" != - ]; then
					case $target in *.md) ;; *) continue ;; esac
					doc_anchors "$target" | grep -qxF -- "$extra" ||
						echo "($([ "$item" = - ] || echo "$item")#$extra) (line $line)" >>"$tmpd/$k.bad"
				fi ;;
			*) continue ;;
			esac
			echo . >>"$tmpd/$k.n"
		done <"$tmpd/records"
		for k in paths targets variables options links; do
			n=$(wc -l <"$tmpd/$k.n")
			[ "$n" -gt 0 ] || continue
			case $k in
			paths) what="repository paths exist" ;;
			targets) what="make targets are the Makefile's" ;;
			variables) what="variables are read by the Makefile or the tools" ;;
			options) what="options of the project's programs are in their option parsing" ;;
			links) what="local links and anchors resolve" ;;
			esac
			if [ -s "$tmpd/$k.bad" ]; then
				tap 1 "$rel: $what ($(sort -u "$tmpd/$k.bad" | tr '\n' ';' | sed 's/;$//; s/;/; /g'))"
			else
				tap 0 "$rel: $n $what"
			fi
		done
	done
	rm -rf "$tmpd"
}

if [ "${1:-}" = --check ]; then
	shift
	check_docs "$@"
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
	exit
fi

echo "TAP version 13"
# ---- the docs ---------------------------------------------------------------
check_docs "$TOPDIR" "$TOPDIR/README.md" "$TOPDIR"/docs/*.md "$TOPDIR/mm-tests/README.md"

# ---- the self-test: a doc that names what is not there fails -----------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=$tmp/tree
mkdir -p "$T/fixture"
for f in "$TOPDIR"/* "$TOPDIR"/.ci; do
	[ -e "$f" ] && ln -s "$f" "$T/$(basename "$f")"
done
cat >"$T/fixture/doc.md" <<'EOF'
# A doc with mistakes

## Commands (`tools/run-guest`)

`tools/runs.conf` exists, `tools/no-such-file` does not; `tools/costs/*.cost`
matches, `tools/fixtures/*.no-such` does not; `vm_util.h` is a name in
the tree, `no_such_program.c` is not.

    make check FRESH=1
    make no-such-target
    make bench FILLS=4 NO_SUCH_VAR=1
    tools/run-guest --topo epyc4 --no-such-option
    thp_usemem -b -n 4 -Z

`--dry-run` prints the command line, `--no-such-flag` does nothing.

[a section](../docs/bench.md#5-the-usemem-storm-thp_usemem--b),
[this one](#commands-toolsrun-guest), [a missing doc](../docs/no-such.md),
[a missing section](../docs/bench.md#no-such-section).
EOF
sh "$0" --check "$T" "$T/fixture/doc.md" >"$tmp/out" 2>&1
sed 's/^/# self-test: /' "$tmp/out"
self() { # self KIND WANT-MISSING... -- WANT-PRESENT...: the KIND line fails for each missing one only
	line=$(grep -E "^not ok [0-9]+ - fixture/doc.md: ($1)" "$tmp/out")
	shift
	st=0
	[ -n "$line" ] || st=1
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $line in *"$1"*) ;; *) st=1 ;; esac
		shift
	done
	[ $# -gt 0 ] && shift
	for good in "$@"; do
		case $line in *"$good"*) st=1 ;; esac
	done
	return $st
}
self "repository paths" "tools/no-such-file (line" "tools/fixtures/*.no-such" "no_such_program.c" -- "tools/runs.conf" "tools/costs" "vm_util.h"
tap $? "self-test: a doc naming tools/no-such-file, a glob that matches nothing and a missing source file fails, naming each, and no path that exists"
self "make targets" "make no-such-target (line" -- "make check" "make bench"
tap $? "self-test: a doc naming make no-such-target fails, naming it, and not check or bench"
self "variables" "NO_SUCH_VAR=" -- "FRESH=" "FILLS="
tap $? "self-test: a doc naming make NO_SUCH_VAR=1 fails, naming it, and not FRESH or FILLS"
self "options" "run-guest --no-such-option" "thp_usemem -Z" "tools/run-guest --no-such-flag" -- "--topo" "-b " "-n " "--dry-run"
tap $? "self-test: a doc naming run-guest --no-such-option, thp_usemem -Z or a lone --no-such-flag fails, naming each, and no option that exists"
self "local links" "(../docs/no-such.md)" "(../docs/bench.md#no-such-section)" -- "thp_usemem--b" "#commands-toolsrun-guest"
tap $? "self-test: a doc linking a missing file or a missing anchor fails, naming each, and no link that resolves"
echo "1..$tap_n"
[ "$tap_failed" = 0 ]
