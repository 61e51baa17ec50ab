#!/bin/sh
# Build one kernel flavour from a Debian linux-source package in the cache.
#
#   tools/kernel.sh FLAVOUR        FLAVOUR: patched | baseline | debug |
#                                  nodrain, or TREE-FLAVOUR (7.3-patched)
#                                  for another tree
#   tools/kernel.sh --tree FLAVOUR print the source tree of FLAVOUR
#   tools/kernel.sh --current FLAVOUR  exit 0 if FLAVOUR's build is up to
#                                  date (nothing is unpacked or built)
#   tools/kernel.sh --builddir FLAVOUR
#
# TREE (environment) picks the kernel: 6.12 (default; linux-source-6.12,
# Debian stable's, the series in kernel-patches/) or 7.3 (linux-source-7.3
# from trixie-backports through tools/fetch-source.sh, the series in
# kernel-patches/7.3/).
#
# Layout under $CACHE/src/<package version>/:
#   base/               the unpacked package, a git repo, tag "base"
#   patched/            git worktree: base + kernel-patches/series (git am)
#   nodrain/            git worktree: the same, then the per-cpu drain
#                       (patch 3's mm/page_alloc.c part) reverted, for
#                       make bench's attribution of the aged-memory rows
#   <tree>/.build-<f>/  out-of-tree build dir (a direct subdirectory, so the
#                       kernel uses relative paths and ccache can share)
# A build whose key (package version, series, config fragments) matches the
# stamp in its build dir is not rerun.
set -eu
TOOL=kernel
. "$(dirname "$0")/lib.sh"

mode=build
case "${1:-}" in
--tree) mode=tree; shift ;;
--builddir) mode=builddir; shift ;;
--current) mode=current; shift ;;
esac
flavour=${1:-patched}
# A flavour may name its tree: 7.3-patched is TREE=7.3 patched (the run
# plan's flavour column, the staged module's directory).
KTREE=${TREE:-6.12}
case $flavour in
*-*) KTREE=${flavour%%-*} flavour=${flavour#*-} ;;
esac
case $KTREE in
6.12) PATCHDIR=$TOPDIR/kernel-patches ;;
7.3) PATCHDIR=$TOPDIR/kernel-patches/7.3 ;;
*) die "unknown TREE '$KTREE' (6.12, 7.3)" ;;
esac
JOBS=${JOBS:-$(($(nproc) + 1))}

case $flavour in
baseline) frags= ;;
patched | nodrain) frags="patched.config" ;;
debug) frags="patched.config debug.config" ;;
nonuma) frags="patched.config nonuma.config" ;;
nothp) frags="patched.config nothp.config" ;;
*) die "unknown flavour '$flavour' (patched, baseline, debug, nodrain, nonuma, nothp)" ;;
esac
# shellcheck disable=SC2086 # a list of names
frags=$(guest_frags "$KTREE" $frags)

if [ "$KTREE" = 6.12 ]; then
	ver=$(pkg_version || true)
	if [ -z "$ver" ]; then
		[ "$mode" = current ] && exit 1
		ensure_packages $KERNEL_PKGS
		ver=$(pkg_version)
	fi
	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
	tag=
else
	# --current never fetches: no pinned version, no build
	[ "$mode" = current ] && [ ! -f "$CACHE/src-pkg/linux-source-$KTREE.current" ] && exit 1
	# shellcheck disable=SC2046
	set -- $("$TOPDIR/tools/fetch-source.sh" "$KTREE") || exit 1
	ver=$1 tarball=$2
	tag=$KTREE-
fi
SRC=$CACHE/src/$ver
BASE=$SRC/base
PATCHED=$SRC/patched
NODRAIN=$SRC/nodrain
case $flavour in
baseline) tree=$BASE ;;
nodrain) tree=$NODRAIN ;;
*) tree=$PATCHED ;;
esac
BUILD=$tree/.build-$flavour

case $mode in
tree) echo "$tree"; exit 0 ;;
builddir) echo "$BUILD"; exit 0 ;;
esac

series_files() {
	[ -f "$PATCHDIR/series" ] || die "no series for TREE=$KTREE ($PATCHDIR/series); only FLAVOUR=baseline builds"
	grep -v '^[[:space:]]*\(#\|$\)' "$PATCHDIR/series" | while read -r p; do
		echo "$PATCHDIR/$p"
	done
}

build_key() { # the key of the build that matches the series and fragments now
	set --
	for f in $frags; do set -- "$@" "$CFGDIR/$f"; done
	if [ "$tree" = "$BASE" ]; then
		echo "$ver base $(hash_files "$@")"
	else
		echo "$ver $(series_files | xargs cat | sha256sum | cut -c1-12)$([ "$tree" = "$NODRAIN" ] && echo " nodrain") $(hash_files "$@")"
	fi
}
if [ "$mode" = current ]; then
	[ -f "$BUILD/.thpnuma-key" ] && [ -f "$BUILD/arch/x86/boot/bzImage" ] &&
		[ "$(cat "$BUILD/.thpnuma-key")" = "$(build_key)" ]
	exit $?
fi

ensure_packages $KERNEL_PKGS
mkdir -p "$CACHE/logs"
LOG=$CACHE/logs/kernel-$tag$flavour.log

unpack_base() {
	[ -f "$BASE/.thpnuma-unpacked" ] && return 0
	need_disk 6000 "unpacking linux-source $ver"
	[ -n "$tarball" ] && [ -f "$tarball" ] ||
		die "no linux-source-$KTREE tarball${tarball:+ at $tarball}; reinstall linux-source-$KTREE"
	say "unpacking $tarball ($ver) into $BASE"
	rm -rf "$BASE" "$SRC/unpack"
	mkdir -p "$SRC/unpack"
	tar -C "$SRC/unpack" -xf "$tarball"
	mv "$SRC/unpack"/linux-source-$KTREE "$BASE"
	rmdir "$SRC/unpack"
	say "importing the tree into git (once)"
	# No automatic gc: the import leaves some 90,000 loose objects, and
	# the repack that git commit (and later git am) starts on its own ran
	# beside the kernel build for minutes (a core for 2 min and more on a
	# cold run here).  The tree is only checked out and patched.
	(cd "$BASE" && git init -q && git config gc.auto 0 && git add -f -A . &&
		git -c user.name=thp-numa -c user.email=thp-numa@localhost \
			commit -q -m "Debian linux-source-$KTREE $ver" && git tag base)
	printf '.build-*\n' >>"$BASE/.git/info/exclude"
	touch "$BASE/.thpnuma-unpacked"
}

apply_series() { # apply_series DIR [nodrain]: the series in worktree DIR
	dir=$1
	key=$(series_files | xargs cat | sha256sum | cut -c1-12)${2:+ $2}
	if [ -f "$dir/.thpnuma-series" ] && [ "$(cat "$dir/.thpnuma-series")" = "$key" ]; then
		return 0
	fi
	if [ ! -e "$dir/.git" ]; then
		git -C "$BASE" worktree prune
		git -C "$BASE" worktree add -q --detach "$dir" base
	fi
	say "applying ${PATCHDIR#"$TOPDIR"/}/series to $ver${2:+ ($2)}"
	(cd "$dir" && git am --abort >/dev/null 2>&1 || true)
	(cd "$dir" && git revert --abort >/dev/null 2>&1 || true)
	git -C "$dir" checkout -q --detach base
	# Debian's .gitignore ignores the whole top level, so a file an older
	# series added survives the checkout untracked and could hide a patch
	# that forgot it.  Remove such leftovers (never the build dirs).
	(cd "$dir" && git ls-files -z --others --ignored --exclude-standard --directory |
		grep -zv '^\.build-\|^\.thpnuma-' | xargs -0 -r rm -rf)
	n=0
	for p in $(series_files); do
		n=$((n + 1))
		if ! git -C "$dir" -c user.name=thp-numa -c user.email=thp-numa@localhost \
			am -q --keep-cr "$p" >>"$LOG" 2>&1; then
			git -C "$dir" am --abort >/dev/null 2>&1 || true
			rm -f "$dir/.thpnuma-series"
			die "patch $n ($(basename "$p")) does not apply to linux-source-$KTREE $ver; rebase it (log: $LOG)"
		fi
	done
	[ "${2:-}" = nodrain ] && drop_drain "$dir"
	echo "$key" >"$dir/.thpnuma-series"
	say "applied $n patches${2:+ ($2)}"
}

# The series without its per-cpu drain: the drain patch's mm/page_alloc.c
# part reverted on top of the whole series, so the walk is v7's in every
# other respect.  The drain's stamp in struct pglist_data stays, so the
# KUnit suite builds (its drain case fails there, as it should; make
# bench boots with KUnit off).
DRAIN_SUBJECT='mm/page_alloc: drain per-cpu lists before a multi-order walk gives up'
drop_drain() { # drop_drain DIR
	c=$(git -C "$1" log --format='%H %s' base..HEAD | awk -v s="$DRAIN_SUBJECT" 'substr($0, 42) == s { print $1 }')
	[ "$(echo "$c" | grep -c .)" = 1 ] ||
		die "nodrain: no one patch named '$DRAIN_SUBJECT' in ${PATCHDIR#"$TOPDIR"/}/series"
	if ! git -C "$1" revert --no-commit "$c" >>"$LOG" 2>&1; then
		git -C "$1" revert --abort >/dev/null 2>&1 || true
		die "nodrain: the drain patch does not revert cleanly on top of the series (log: $LOG)"
	fi
	git -C "$1" checkout -q HEAD -- include/linux/mmzone.h
	git -C "$1" -c user.name=thp-numa -c user.email=thp-numa@localhost \
		commit -q -m "Revert the walk's per-cpu drain (make bench's nodrain kernel)"
	[ -n "$(git -C "$1" diff HEAD~1 --stat -- mm/page_alloc.c)" ] ||
		die "nodrain: reverting the drain patch left mm/page_alloc.c as it was"
}

configure() {
	mkdir -p "$BUILD"
	set --
	for f in $frags; do set -- "$@" "$CFGDIR/$f"; done
	# allnoconfig with the fragments as KCONFIG_ALLCONFIG (merge_config.sh
	# -n): an option the fragments do not name is off, even one that
	# only becomes visible through an option they turn on (INET under
	# NET, say), where olddefconfig would give it its default.
	say "configuring $flavour: allnoconfig + $frags"
	(cd "$tree" && scripts/kconfig/merge_config.sh -n -O "$BUILD" "$@") >>"$LOG" 2>&1
	# Every option the fragments ask for (the last fragment wins) must have stuck.
	bad=
	for line in $(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1=n/p' "$@" |
		awk -F= '{ if (!($1 in v)) k[++n] = $1; v[$1] = $0 } END { for (i = 1; i <= n; i++) print v[k[i]] }'); do
		opt=${line%%=*}
		want=${line#*=}
		got=$(sed -n -e "s/^$opt=\(.*\)$/\1/p" "$BUILD/.config")
		[ -z "$got" ] && got=n
		[ "$got" = "$want" ] || bad="$bad $opt(want $want, got $got)"
	done
	[ -z "$bad" ] || die "config options that did not stick after allnoconfig:$bad"
}

build() {
	need_disk 3000 "building the $flavour kernel"
	ccache_env "$SRC"
	# The count of the last build of this flavour; a first build guesses
	# from base.config (about 2200 objects per flavour on 6.12).
	total=$(cat "$CACHE/logs/objects-$tag$flavour" 2>/dev/null || echo 2200)
	say "building $flavour bzImage with $JOBS jobs (ccache $CCACHE_DIR); log: $LOG"
	start=$(date +%s)
	status=0
	{ make -C "$tree" O="$BUILD" -j"$JOBS" CC="ccache gcc" \
		KBUILD_BUILD_USER=thp-numa KBUILD_BUILD_HOST=testbed all 2>&1 || echo "MAKE-FAILED $?"; } |
		tee -a "$LOG" | awk -v total="$total" -v tag="$tag" -v fl="$flavour" -v start="$start" '
		/^  (CC|AS|LD|AR)[ M]/ { n++; if (n % 250 == 0) {
			printf("[kernel] %s: %d/~%d objects, %ds\n", fl, n, total, systime() - start) > "/dev/stderr"; fflush("/dev/stderr") } }
		/MAKE-FAILED/ { failed = 1 }
		END { if (n > 500) print n > ENVIRON["CACHE"] "/logs/objects-" tag fl ".new"; exit failed }' || status=$?
	[ -f "$CACHE/logs/objects-$tag$flavour.new" ] && mv "$CACHE/logs/objects-$tag$flavour.new" "$CACHE/logs/objects-$tag$flavour"
	if [ "$status" != 0 ] || [ ! -f "$BUILD/arch/x86/boot/bzImage" ]; then
		grep -E 'error|Error' "$LOG" | tail -n 15 >&2 || true
		die "$flavour kernel build failed; full log: $LOG"
	fi
	say "built $flavour in $(($(date +%s) - start))s: $BUILD/arch/x86/boot/bzImage"
}

# A run that finds the kernel up to date gives back the log of the build
# that made it, rather than leaving an empty one.
[ -f "$LOG" ] && mv -f "$LOG" "$LOG.prev"
: >"$LOG"
unpack_base
case $tree in
"$PATCHED") apply_series "$PATCHED" ;;
"$NODRAIN") apply_series "$NODRAIN" nodrain ;;
esac
set --
for f in $frags; do set -- "$@" "$CFGDIR/$f"; done
key=$(build_key)
if [ -f "$BUILD/.thpnuma-key" ] && [ "$(cat "$BUILD/.thpnuma-key")" = "$key" ] &&
	[ -f "$BUILD/arch/x86/boot/bzImage" ]; then
	[ -s "$LOG" ] || [ ! -f "$LOG.prev" ] || mv -f "$LOG.prev" "$LOG"
	say "$flavour kernel is up to date ($BUILD)"
	exit 0
fi
if [ ! -f "$BUILD/.thpnuma-config" ] || [ "$(cat "$BUILD/.thpnuma-config")" != "$(hash_files "$@")" ]; then
	# The stamp goes first: a configure that stops half way (an option
	# that did not stick) leaves a .config that the next run must not
	# take for the fragments' (it once built a 7.3 kernel without
	# its test options under a stamp that still matched).
	rm -f "$BUILD/.thpnuma-config" "$BUILD/.thpnuma-key"
	configure
	hash_files "$@" >"$BUILD/.thpnuma-config"
fi
rm -f "$BUILD/.thpnuma-key"
build
echo "$key" >"$BUILD/.thpnuma-key"
