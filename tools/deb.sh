#!/bin/sh
# make deb: Debian packages (the kernel's bindeb-pkg) of a kernel the
# project builds, to install on a real NUMA machine with dpkg -i and boot.
# Nothing is installed or loaded on the machine that builds them.
#
#   tools/deb.sh [--config distro|guest] [FLAVOUR]
#
# FLAVOUR: patched (default), baseline or debug; TREE=7.3 (or 7.3-patched)
# for the 7.3 series.
# --config distro (default): a distribution's configuration, every driver
#          as Debian builds it: DEB_CONFIG=file if set, else this machine's
#          /boot/config-$(uname -r), else Debian's own
#          (/usr/src/linux-config-<tree>/config.amd64_none_amd64.xz from
#          the linux-config-<tree> package, 6.12's for a tree that has
#          none), with olddefconfig for the tree's new options.  Module
#          signing keys are blanked (Debian's are not here), debug info is
#          off, and NUMA and THP are checked on; the debug flavour adds
#          debug.config's options.  A full distro build is long: on a
#          2-core machine, hours.  LSMOD=file (the test machine's lsmod
#          output) keeps only the modules loaded there (kbuild's
#          localmodconfig): what that machine boots with, in far less.
# --config guest: the flavour's own minimal guest kernel (the one make
#          check boots), packaged: minutes, and it boots only in the
#          project's guest (no initramfs, virtio built in).
#
# The packages (linux-image-*, linux-headers-*, linux-libc-dev) go to
# $CACHE/deb/<tree>-<flavour>-<config>/, and their paths are printed.
set -eu
TOOL=deb
. "$(dirname "$0")/lib.sh"

config=distro
while [ $# -gt 0 ]; do
	case $1 in
	--config) [ $# -ge 2 ] || die "--config takes distro or guest"; config=$2; shift 2 ;;
	-*) die "unknown option '$1' (tools/deb.sh [--config distro|guest] [FLAVOUR])" ;;
	*) break ;;
	esac
done
case $config in distro | guest) ;; *) die "--config takes distro or guest, not '$config'" ;; esac
flavour=${1:-patched}
KTREE=${TREE:-6.12}
case $flavour in
*-*) KTREE=${flavour%%-*} flavour=${flavour#*-} ;;
esac
case $flavour in
patched | baseline | debug) ;;
*) die "make deb packages patched, baseline or debug, not '$flavour'" ;;
esac
export TREE=$KTREE

# bindeb-pkg checks its build dependencies: debhelper, and libdw-dev on 7.3
ensure_packages $KERNEL_PKGS dpkg-dev debhelper libdw-dev rsync kmod
# The flavour's tree (series applied) and its guest kernel, up to date.
"$TOPDIR/tools/kernel.sh" "$flavour"
tree=$("$TOPDIR/tools/kernel.sh" --tree "$flavour")
guest=$("$TOPDIR/tools/kernel.sh" --builddir "$flavour")
# a direct subdirectory of the tree, as the guest builds are, so that
# ccache's relative paths match
DEB=$tree/.deb-$flavour-$config
OUT=$CACHE/deb/$KTREE-$flavour-$config
LOG=$CACHE/logs/deb-$KTREE-$flavour-$config.log
mkdir -p "$CACHE/logs"
: >"$LOG"
need_disk 8000 "make deb ($config config)"

if [ "$config" = guest ]; then
	say "packaging the $KTREE $flavour guest kernel (copy of $guest)"
	mkdir -p "$DEB"
	rsync -a --delete "$guest/" "$DEB/"
else
	base=${DEB_CONFIG:-}
	if [ -z "$base" ] && [ -r "/boot/config-$(uname -r)" ]; then
		base=/boot/config-$(uname -r)
	fi
	if [ -z "$base" ]; then
		for t in "$KTREE" 6.12; do
			f=/usr/src/linux-config-$t/config.amd64_none_amd64.xz
			if [ ! -r "$f" ] && apt-cache show "linux-config-$t" >/dev/null 2>&1; then
				ensure_packages "linux-config-$t"
			fi
			[ -r "$f" ] && { base=$f; break; }
		done
	fi
	[ -n "$base" ] && [ -r "$base" ] ||
		die "no distro config: set DEB_CONFIG=file, or install linux-config-6.12"
	say "configuring $KTREE $flavour from $base (olddefconfig)"
	mkdir -p "$DEB"
	case $base in
	*.xz) xz -dc "$base" >"$DEB/.config" ;;
	*) cp "$base" "$DEB/.config" ;;
	esac
	sc() { "$tree/scripts/config" --file "$DEB/.config" "$@"; }
	sc --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
		--disable DEBUG_INFO_BTF --disable DEBUG_INFO_DWARF5 \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --enable DEBUG_INFO_NONE \
		--set-str LOCALVERSION "-thpnuma-$flavour" --disable LOCALVERSION_AUTO \
		--enable NUMA --enable TRANSPARENT_HUGEPAGE
	if [ "$flavour" = debug ]; then
		sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=y$/\1/p' "$TOPDIR/kernel-patches/configs/debug.config" |
			while read -r o; do sc --enable "$o"; done
	fi
	make -C "$tree" O="$DEB" olddefconfig >>"$LOG" 2>&1 || die "olddefconfig failed (log: $LOG)"
	if [ -n "${LSMOD:-}" ]; then
		[ -r "$LSMOD" ] || die "LSMOD=$LSMOD: no such file (the output of lsmod on the test machine)"
		head -n 1 "$LSMOD" | grep -q '^Module ' ||
			die "LSMOD=$LSMOD does not look like lsmod's output (no 'Module' header line)"
		say "keeping the $(($(wc -l <"$LSMOD") - 1)) modules of $LSMOD (localmodconfig)"
		yes '' | make -C "$tree" O="$DEB" LSMOD="$(cd "$(dirname "$LSMOD")" && pwd)/$(basename "$LSMOD")" \
			localmodconfig >>"$LOG" 2>&1 || die "localmodconfig failed (log: $LOG)"
	fi
	for o in NUMA TRANSPARENT_HUGEPAGE; do
		grep -qx "CONFIG_$o=y" "$DEB/.config" || die "CONFIG_$o did not stay on after olddefconfig (log: $LOG)"
	done
fi

ccache_env "$(dirname "$tree")"
JOBS=${JOBS:-$(($(nproc) + 1))}
rm -f "$tree"/../linux-*.deb "$tree"/linux-*.deb 2>/dev/null || true
say "building the packages with $JOBS jobs; log: $LOG"
start=$(date +%s)
status=0
{ make -C "$tree" O="$DEB" -j"$JOBS" CC="ccache gcc" \
	KBUILD_BUILD_USER=thp-numa KBUILD_BUILD_HOST=testbed bindeb-pkg 2>&1 || echo "MAKE-FAILED $?"; } |
	tee -a "$LOG" | awk -v start="$start" '
	/^  (CC|AS|LD|AR)[ M]/ { n++; if (n % 1000 == 0) {
		printf("[deb] %d objects, %ds\n", n, systime() - start) > "/dev/stderr"; fflush("/dev/stderr") } }
	/^dpkg-deb: building package/ { print "[deb] " $0 > "/dev/stderr" }
	/MAKE-FAILED/ { failed = 1 }
	END { exit failed }' || status=$?
[ "$status" = 0 ] || { grep -E 'error|Error' "$LOG" | tail -n 15 >&2 || true; die "bindeb-pkg failed (log: $LOG)"; }
# bindeb-pkg writes the packages beside the build directory: into the tree
rm -rf "$OUT"
mkdir -p "$OUT"
set -- "$tree"/linux-*.deb
[ -e "$1" ] || die "bindeb-pkg made no packages in $tree (log: $LOG)"
mv "$@" "$OUT"/
mv "$tree"/linux-upstream_* "$tree"/linux-*.buildinfo "$tree"/linux-*.changes "$OUT"/ 2>/dev/null || true
say "built in $(($(date +%s) - start))s; packages in $OUT:"
for p in "$OUT"/*.deb; do
	echo "  $p"
done
