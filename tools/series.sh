#!/bin/sh
# Checks on kernel-patches/ itself (TREE=7.3: on kernel-patches/7.3/).
#
#   tools/series.sh check        TAP: each patch applies with git am and with
#                                patch -p1, in order, on the installed
#                                linux-source; checkpatch --strict has no
#                                ERROR or WARNING (CHECKs are listed).
#   tools/series.sh build-each   build after every patch (incremental), then
#                                the whole series with CONFIG_NUMA=n and with
#                                CONFIG_TRANSPARENT_HUGEPAGE=n.  TARGETS=
#                                (default bzImage) narrows it, e.g. "mm/";
#                                STEPS="patches" or "configs" runs one half.
set -u
TOOL=series
. "$(dirname "$0")/lib.sh"

KTREE=${TREE:-6.12}
case $KTREE in
6.12) PATCHDIR=$TOPDIR/kernel-patches ;;
7.3) PATCHDIR=$TOPDIR/kernel-patches/7.3 ;;
*) die "unknown TREE '$KTREE' (6.12, 7.3)" ;;
esac
BASE=$(dirname "$("$TOPDIR/tools/kernel.sh" --tree "$KTREE-patched")")/base
ver=$(basename "$(dirname "$BASE")")
[ -d "$BASE/.git" ] || { "$TOPDIR/tools/kernel.sh" "$KTREE-baseline" >/dev/null 2>&1 || true; }
[ -d "$BASE/.git" ] || die "no unpacked linux-source tree; run: make kernel"
WT=$(dirname "$BASE")/series-check
patches=$(grep -v '^[[:space:]]*\(#\|$\)' "$PATCHDIR/series")
G="git -c user.name=thp-numa -c user.email=thp-numa@localhost"

worktree() { # fresh worktree at base in $WT
	if [ ! -e "$WT/.git" ]; then
		git -C "$BASE" worktree prune
		git -C "$BASE" worktree add -q --detach "$WT" base
	fi
	(cd "$WT" && git am --abort >/dev/null 2>&1; git reset -q --hard base &&
		git ls-files -z --others --ignored --exclude-standard --directory |
			grep -zv '^\.build-' | xargs -0 -r rm -rf)
}

check() {
	n=0
	for p in $patches; do n=$((n + 1)); done
	echo "# $n patches against linux-source-$KTREE $ver"
	rc=0
	worktree
	i=0 ok=1
	for p in $patches; do
		i=$((i + 1))
		# --whitespace=error: a patch that adds trailing whitespace or a
		# blank line at EOF is what git am on the list would warn about.
		if ! (cd "$WT" && $G am -q --whitespace=error "$PATCHDIR/$p" >/dev/null 2>&1); then
			echo "not ok - git am --whitespace=error: patch $i ($p) does not apply cleanly to $ver"
			ok=0 rc=1
			break
		fi
	done
	[ "$ok" = 1 ] && echo "ok - git am applies all $n patches to $ver"
	worktree
	i=0 ok=1
	for p in $patches; do
		i=$((i + 1))
		if ! (cd "$WT" && patch -p1 -s --no-backup-if-mismatch <"$PATCHDIR/$p" >/dev/null 2>&1); then
			echo "not ok - patch -p1: patch $i ($p) does not apply to $ver"
			ok=0 rc=1
			break
		fi
	done
	[ "$ok" = 1 ] && echo "ok - patch -p1 applies all $n patches in order"
	worktree
	for p in $patches; do
		out=$(cd "$BASE" && ./scripts/checkpatch.pl --strict --terse \
			"$PATCHDIR/$p" 2>&1)
		e=$(echo "$out" | grep -c ': ERROR:')
		w=$(echo "$out" | grep -c ': WARNING:')
		# "does MAINTAINERS need updating?" asks a question; answer it:
		# every file the patch adds must already match an F: entry.
		if echo "$out" | grep -q 'MAINTAINERS need updating'; then
			uncovered=
			for f in $(awk '/^new file mode/ { n = 1; next } n && /^\+\+\+ b\// { print substr($2, 3); n = 0 }' "$PATCHDIR/$p"); do
				hit=$(sed -n 's/^F:[[:space:]]*//p' "$BASE/MAINTAINERS" | while read -r pat; do
					case $f in $pat*) echo yes; break ;; esac
				done)
				[ -n "$hit" ] && echo "# $p: new file $f is covered by MAINTAINERS" ||
					uncovered="$uncovered $f"
			done
			if [ -z "$uncovered" ]; then
				w=$((w - 1))
				out=$(echo "$out" | grep -v 'MAINTAINERS need updating')
			fi
		fi
		c=$(echo "$out" | grep -c ': CHECK:')
		echo "$out" | grep -E ': (ERROR|WARNING|CHECK):' | sed 's/^/# /'
		if [ "$e" = 0 ] && [ "$w" = 0 ]; then
			echo "ok - checkpatch --strict $p: 0 errors, 0 warnings, $c checks"
		else
			echo "not ok - checkpatch --strict $p: $e errors, $w warnings, $c checks"
			rc=1
		fi
	done
	# The cover letter, as checkpatch reads one: by its format-patch name
	# (0000-cover-letter.patch), which spares it the diff checks; and at
	# most about 150 lines, as an mm maintainer reads one.
	cl=$(mktemp -d)
	cp "$PATCHDIR/cover-letter.txt" "$cl/0000-cover-letter.patch"
	out=$(cd "$BASE" && ./scripts/checkpatch.pl --strict --terse "$cl/0000-cover-letter.patch" 2>&1)
	lines=$(wc -l <"$cl/0000-cover-letter.patch")
	rm -rf "$cl"
	e=$(echo "$out" | grep -c ': ERROR:')
	w=$(echo "$out" | grep -c ': WARNING:')
	echo "$out" | grep -E ': (ERROR|WARNING|CHECK):' | sed 's/^/# /'
	if [ "$e" = 0 ] && [ "$w" = 0 ] && [ "$lines" -le 160 ]; then
		echo "ok - checkpatch --strict cover-letter.txt: 0 errors, 0 warnings; $lines lines"
	else
		echo "not ok - checkpatch --strict cover-letter.txt: $e errors, $w warnings; $lines lines (160 at most)"
		rc=1
	fi
	return $rc
}

build_each() {
	JOBS=${JOBS:-$(($(nproc) + 1))}
	TARGETS=${TARGETS:-bzImage}
	ccache_env "$(dirname "$BASE")"
	mkdir -p "$CACHE/logs"
	LOG=$CACHE/logs/series-build-each.log
	: >"$LOG"
	STEPS=${STEPS:-patches configs}
	echo "# make $TARGETS: $STEPS (patches: after each patch; configs: the series with CONFIG_NUMA=n and CONFIG_TRANSPARENT_HUGEPAGE=n)"
	# Its own worktree: "series.sh check" (make check) resets the other one.
	WT=$(dirname "$BASE")/series-build
	worktree
	# The guest kernels' configuration (tools/kernel.sh): allnoconfig with
	# guest_frags (tools/lib.sh) as KCONFIG_ALLCONFIG.
	config() { # config BUILDDIR FRAGMENT-NAME...
		b=$1
		shift
		mkdir -p "$b"
		cf=$(guest_frags "$KTREE" "$@")
		set --
		for f in $cf; do set -- "$@" "$CFGDIR/$f"; done
		(cd "$WT" && scripts/kconfig/merge_config.sh -n -O "$b" "$@") >>"$LOG" 2>&1
	}
	make_step() { # make_step BUILDDIR WHAT: build $TARGETS there, one TAP line
		t=$(date +%s)
		if make -C "$WT" O="$1" -j"$JOBS" CC="ccache gcc" $TARGETS >>"$LOG" 2>&1; then
			echo "ok - make $TARGETS $2 ($(($(date +%s) - t))s)"
		else
			echo "not ok - make $TARGETS $2 fails (log: $LOG)"
			rc=1
		fi
	}
	B=$WT/.build-each
	rc=0 i=0
	each=0
	case " $STEPS " in *" patches "*) each=1
		config "$B" patched.config ;;
	esac
	# Apply the series one patch at a time, building after each if asked.
	for p in $patches; do
		i=$((i + 1))
		(cd "$WT" && $G am -q "$PATCHDIR/$p") >>"$LOG" 2>&1 ||
			{ echo "not ok - patch $i ($p) does not apply"; return 1; }
		[ "$each" = 1 ] || continue
		# Options a later patch adds (the KUnit test) come back once it
		# exists, as the guest kernels configure them.
		config "$B" patched.config
		say "building $TARGETS after patch $i ($p)"
		make_step "$B" "after patch $i: $p"
	done
	case " $STEPS " in *" configs "*) ;; *) return $rc ;; esac
	for f in nonuma nothp; do
		Bf=$WT/.build-each-$f
		config "$Bf" patched.config "$f.config"
		want=$(sed -n 's/^# \(CONFIG_[A-Z_]*\) is not set$/\1/p' "$CFGDIR/$f.config")
		if grep -q "^$want=y" "$Bf/.config"; then
			echo "not ok - $f: $want is still set after allnoconfig"
			rc=1
			continue
		fi
		say "building $TARGETS of the whole series as $f"
		make_step "$Bf" "of the whole series with $want=n"
	done
	return $rc
}

case ${1:-check} in
check) check ;;
build-each) build_each ;;
*) die "usage: $0 check|build-each" ;;
esac
