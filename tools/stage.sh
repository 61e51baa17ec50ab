#!/bin/sh
# Build what the guest runs and put it where the guest sees it
# ($CACHE/stage, the 'thp' 9p share, /mnt/thp in the guest):
#   bin/  test programs and guest scripts (on the guest's PATH)
#   mod/<flavour>/nodestate.ko          (TREE=7.3 or 7.3-<flavour>:
#                                        mod/7.3-<flavour>/)
#   mod/<flavour>/prctl_thp_numa_fallback  the series' selftest, from
#                                        that flavour's tree (patched ones)
#   tools/stage.sh FLAVOUR...
set -eu
TOOL=stage
. "$(dirname "$0")/lib.sh"

STAGE=$CACHE/stage
mkdir -p "$STAGE/bin" "$CACHE/logs"
LOG=$CACHE/logs/stage.log
: >"$LOG"

# The tree's own tools/testing/selftests/mm (identical in both trees: the
# series does not touch it).  Debian's 6.12.118 khugepaged.c uses KSFT_SKIP
# without including kselftest.h, hence the -include.  migration.c needs
# libnuma's numa.h: without libnuma-dev it is not built, and
# selftests-mm.sh reports it missing (a failed key on both kernels).
if [ "${1:-}" = --selftests ]; then
	SRCDIR=$("$TOPDIR/tools/kernel.sh" --tree patched)
	BUILD=$("$TOPDIR/tools/kernel.sh" --builddir patched)
	ensure_packages libcap-dev libnuma-dev
	make -s -C "$SRCDIR" O="$BUILD" headers >>"$LOG" 2>&1 || die "make headers failed; see $LOG"
	mkdir -p "$CACHE/selftests/mm"
	make -k -C "$SRCDIR/tools/testing/selftests/mm" OUTPUT="$CACHE/selftests/mm" \
		KHDR_INCLUDES="-isystem $BUILD/usr/include" EXTRA_CFLAGS="-include ../kselftest.h" \
		-j"$(nproc)" >>"$LOG" 2>&1 || say "some selftests/mm programs did not build; see $LOG"
	rm -rf "$STAGE/selftests"
	mkdir -p "$STAGE/selftests"
	cp -r "$CACHE/selftests/mm" "$STAGE/selftests/mm"
	install -m 0755 "$TOPDIR/mm-tests/selftests-mm.sh" "$STAGE/bin/selftests-mm.sh"
	say "staged $(ls "$STAGE/selftests/mm" | wc -l) selftests/mm programs"
	exit 0
fi
first=${1:-patched}

# UAPI headers of the kernel under test (PAGEMAP_SCAN is newer than the host's).
BUILD=$("$TOPDIR/tools/kernel.sh" --builddir "$first")
SRCDIR=$("$TOPDIR/tools/kernel.sh" --tree "$first")
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "build the $first kernel first (make kernel)"
make -s -C "$SRCDIR" O="$BUILD" headers >>"$LOG" 2>&1 || die "make headers failed; see $LOG"
# The stage is shared by every clone on the machine, and make goes by
# mtimes: a clone whose sources are older than the staged binaries (built
# from another clone) would keep them.  Rebuild all when the sources
# differ from what the stage was built from.
src_hash=$(cat "$TOPDIR"/mm-tests/*.c "$TOPDIR"/mm-tests/*.h "$TOPDIR/mm-tests/Makefile" \
	"$TOPDIR"/tools/numa-lat/*.c "$TOPDIR/tools/numa-lat/Makefile" \
	"$TOPDIR"/tools/thp-numa-exec/*.c "$TOPDIR/tools/thp-numa-exec/Makefile" | sha256sum | cut -c1-16)
mkdir -p "$STAGE/bin"
always=
[ "$(cat "$STAGE/bin/.src-hash" 2>/dev/null)" = "$src_hash" ] || always=-B
make -s $always -C "$TOPDIR/mm-tests" O="$STAGE/bin" KHDR="$BUILD/usr/include" >>"$LOG" 2>&1 ||
	{ tail -n 20 "$LOG" >&2; die "building mm-tests failed; see $LOG"; }
make -s $always -C "$TOPDIR/tools/numa-lat" O="$STAGE/bin" >>"$LOG" 2>&1 ||
	{ tail -n 20 "$LOG" >&2; die "building numa-lat failed; see $LOG"; }
make -s $always -C "$TOPDIR/tools/thp-numa-exec" O="$STAGE/bin" >>"$LOG" 2>&1 ||
	{ tail -n 20 "$LOG" >&2; die "building thp-numa-exec failed; see $LOG"; }
echo "$src_hash" >"$STAGE/bin/.src-hash"
for s in run-tests.sh kunit-results.sh topology.sh selftests-mm.sh stress.sh splat-check.sh splat-patterns aged-trace.sh host-check-test.sh; do
	install -m 0755 "$TOPDIR/mm-tests/$s" "$STAGE/bin/$s"
done
# make host-check's runner: the guest plays the host (host-check-test.sh)
install -m 0755 "$TOPDIR/tools/host.sh" "$STAGE/bin/host.sh"
# the one parser of guest output; kunit-results.sh uses it in the guest
install -m 0644 "$TOPDIR/tools/guest-output.awk" "$STAGE/bin/guest-output.awk"

for f in "$@"; do
	BUILD=$("$TOPDIR/tools/kernel.sh" --builddir "$f")
	SRCDIR=$("$TOPDIR/tools/kernel.sh" --tree "$f")
	[ -f "$BUILD/Module.symvers" ] || die "no $f kernel build with modules; run: make kernel FLAVOUR=$f"
	# a flavour that names its tree (7.3-patched) is its own directory
	mod=$f
	case $f in
	*-*) ;;
	*) [ "${TREE:-6.12}" = 6.12 ] || mod=$TREE-$f ;;
	esac
	M=$CACHE/modbuild/$mod
	mkdir -p "$M" "$STAGE/mod/$mod"
	cp "$TOPDIR/mm-tests/nodestate/nodestate.c" "$TOPDIR/mm-tests/nodestate/Kbuild" "$M/"
	make -C "$SRCDIR" O="$BUILD" M="$M" modules >>"$LOG" 2>&1 ||
		{ grep -E 'error|warning' "$LOG" | tail -n 20 >&2; die "building nodestate.ko for $f failed; see $LOG"; }
	if grep -q 'warning:' "$LOG"; then
		grep 'warning:' "$LOG" >&2
		die "nodestate.ko for $f builds with warnings"
	fi
	cp "$M/nodestate.ko" "$STAGE/mod/$mod/"
	# The series' own selftest (11/11), from this flavour's tree, beside
	# its module: each tree's test runs on its own kernel.
	st=tools/testing/selftests/mm/prctl_thp_numa_fallback.c
	rm -f "$STAGE/mod/$mod/prctl_thp_numa_fallback"
	if [ -f "$SRCDIR/$st" ]; then
		make -s -C "$SRCDIR" O="$BUILD" headers >>"$LOG" 2>&1 || die "make headers ($f) failed; see $LOG"
		${CC:-cc} -O2 -Wall -isystem "$BUILD/usr/include" -I "$SRCDIR/tools/testing/selftests" \
			-o "$STAGE/mod/$mod/prctl_thp_numa_fallback" "$SRCDIR/$st" -lpthread >>"$LOG" 2>&1 ||
			{ tail -n 20 "$LOG" >&2; die "building $st ($f) failed; see $LOG"; }
	fi
done
say "staged test programs and modules for: $*"
