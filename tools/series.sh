#!/bin/sh
# Checks on kernel-patches/ itself.
#
#   tools/series.sh check        TAP: each patch applies with git am and with
#                                patch -p1, in order, on the installed
#                                linux-source; checkpatch --strict has no
#                                ERROR or WARNING (CHECKs are listed).
#   tools/series.sh build-each   build after every patch (incremental), then
#                                the whole series with CONFIG_NUMA=n and with
#                                CONFIG_TRANSPARENT_HUGEPAGE=n.
set -u
TOOL=series
. "$(dirname "$0")/lib.sh"

PATCHDIR=$TOPDIR/kernel-patches
BASE=$(dirname "$("$TOPDIR/tools/kernel.sh" --tree patched)")/base
"$TOPDIR/tools/kernel.sh" --tree patched >/dev/null
ver=$(pkg_version)
[ -d "$BASE/.git" ] || { "$TOPDIR/tools/kernel.sh" baseline >/dev/null 2>&1 || true; }
[ -d "$BASE/.git" ] || die "no unpacked linux-source tree; run: make kernel"
WT=$(dirname "$BASE")/series-check
patches=$(grep -v '^[[:space:]]*\(#\|$\)' "$PATCHDIR/series")
G="git -c user.name=thp-numa -c user.email=thp-numa@localhost"

worktree() { # fresh worktree at base in $WT
	if [ ! -e "$WT/.git" ]; then
		git -C "$BASE" worktree prune
		git -C "$BASE" worktree add -q --detach "$WT" base
	fi
	(cd "$WT" && git am --abort >/dev/null 2>&1; git reset -q --hard base && git clean -qfd)
}

check() {
	n=0
	for p in $patches; do n=$((n + 1)); done
	echo "# $n patches against linux-source-6.12 $ver"
	rc=0
	worktree
	i=0 ok=1
	for p in $patches; do
		i=$((i + 1))
		if ! (cd "$WT" && $G am -q "$PATCHDIR/$p" >/dev/null 2>&1); then
			echo "not ok - git am: patch $i ($p) does not apply to $ver"
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
		out=$(cd "$BASE" && ./scripts/checkpatch.pl --strict --no-signoff --terse \
			"$PATCHDIR/$p" 2>&1)
		e=$(echo "$out" | grep -c ': ERROR:')
		w=$(echo "$out" | grep -c ': WARNING:')
		c=$(echo "$out" | grep -c ': CHECK:')
		echo "$out" | grep -E ': (ERROR|WARNING|CHECK):' | sed 's/^/# /'
		if [ "$e" = 0 ] && [ "$w" = 0 ]; then
			echo "ok - checkpatch --strict $p: 0 errors, 0 warnings, $c checks"
		else
			echo "not ok - checkpatch --strict $p: $e errors, $w warnings, $c checks"
			rc=1
		fi
	done
	return $rc
}

build_each() {
	JOBS=${JOBS:-$(($(nproc) + 1))}
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache} CCACHE_BASEDIR=$(dirname "$BASE")
	B=$WT/.build-each
	worktree
	mkdir -p "$B" "$CACHE/logs"
	LOG=$CACHE/logs/series-build-each.log
	: >"$LOG"
	make -s -C "$WT" O="$B" x86_64_defconfig >>"$LOG" 2>&1
	make -s -C "$WT" O="$B" kvm_guest.config >>"$LOG" 2>&1
	(cd "$WT" && scripts/kconfig/merge_config.sh -m -O "$B" "$B/.config" \
		"$PATCHDIR/configs/base.config") >>"$LOG" 2>&1
	echo CONFIG_MULTI_ORDER_KUNIT_TEST=y >>"$B/.config"
	rc=0 i=0
	for p in $patches; do
		i=$((i + 1))
		(cd "$WT" && $G am -q "$PATCHDIR/$p") >>"$LOG" 2>&1 ||
			{ echo "not ok - patch $i ($p) does not apply"; return 1; }
		make -s -C "$WT" O="$B" olddefconfig >>"$LOG" 2>&1
		say "building after patch $i ($p)"
		if make -C "$WT" O="$B" -j"$JOBS" CC="ccache gcc" bzImage >>"$LOG" 2>&1; then
			echo "ok - builds after patch $i: $p"
		else
			echo "not ok - build fails after patch $i: $p (log: $LOG)"
			rc=1
		fi
	done
	for f in nonuma nothp; do
		if "$TOPDIR/tools/kernel.sh" "$f" >>"$LOG" 2>&1; then
			echo "ok - whole series builds as $f"
		else
			echo "not ok - whole series does not build as $f (log: $CACHE/logs/kernel-$f.log)"
			rc=1
		fi
	done
	return $rc
}

case ${1:-check} in
check) check ;;
build-each) build_each ;;
*) die "usage: $0 check|build-each" ;;
esac
