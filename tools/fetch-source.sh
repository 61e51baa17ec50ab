#!/bin/sh
# Fetch a Debian linux-source package that the host's own suites do not
# carry (linux-source-7.3, from trixie-backports) and unpack its tarball
# into the cache.  Prints "<version> <tarball>".
#
#   tools/fetch-source.sh 7.3         the version fetched before, if any
#   REFRESH=1 tools/fetch-source.sh 7.3   ask the mirror for the newest
#   CHECK_ONLY=1 tools/fetch-source.sh 7.3  verify the suite and print the
#                                          candidate version, download nothing
#
# apt runs with a private configuration under $CACHE/apt/<suite>: its own
# sources list, lists, status file and archive directory, none of the
# host's apt.conf.d parts, preferences or keyrings.  The mirror is the one
# the host's apt sources use for Debian (host_mirror in lib.sh), and the
# Release file must be signed by a key of the host's Debian archive
# keyring (signed-by): apt checks the signature, the Packages index
# against the Release file and the .deb against the Packages index, and
# refuses what does not match.  Only the one package is downloaded.
set -eu
TOOL=fetch
. "$(dirname "$0")/lib.sh"

tree=${1:-}
case $tree in
7.3) suite=trixie-backports pkg=linux-source-7.3 ;;
*) die "usage: fetch-source.sh 7.3 (the trees this test bed knows: 7.3)" ;;
esac

KEYRING=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
[ -r "$KEYRING" ] || die "no Debian archive keyring at $KEYRING (package debian-archive-keyring)"
MIRROR=${MIRROR:-$(host_mirror | head -n 1)}
[ -n "$MIRROR" ] || die "no Debian mirror in the host's apt sources; set MIRROR=<url>"
command -v apt-get >/dev/null || die "apt-get not found: fetching $pkg needs Debian's apt"

A=$CACHE/apt/$suite
OUTDIR=$CACHE/src-pkg
# A tree keeps the version it was first fetched at: builds and their
# caches stay put until REFRESH=1 asks for a newer one.
if [ -z "${REFRESH:-}${CHECK_ONLY:-}" ] && [ -f "$OUTDIR/$pkg.current" ]; then
	read -r ver tarball <"$OUTDIR/$pkg.current"
	[ -f "$tarball" ] && { echo "$ver $tarball"; exit 0; }
fi
mkdir -p "$A/etc/apt.conf.d" "$A/etc/preferences.d" "$A/etc/sources.list.d" \
	"$A/etc/trusted.gpg.d" "$A/lists/partial" "$A/archives/partial" "$OUTDIR" "$CACHE/logs"
: >"$A/status"
LOG=$CACHE/logs/fetch-$tree.log
printf 'deb [signed-by=%s] %s %s main\n' "$KEYRING" "$MIRROR" "$suite" >"$A/etc/sources.list"
cat >"$A/apt.conf" <<CONF
Dir::Etc "$A/etc";
Dir::Etc::main "$A/etc/apt.conf";
Dir::Etc::parts "$A/etc/apt.conf.d";
Dir::Etc::sourcelist "$A/etc/sources.list";
Dir::Etc::sourceparts "$A/etc/sources.list.d";
Dir::Etc::preferences "$A/etc/preferences";
Dir::Etc::preferencesparts "$A/etc/preferences.d";
Dir::Etc::trusted "$A/etc/trusted.gpg";
Dir::Etc::trustedparts "$A/etc/trusted.gpg.d";
Dir::State "$A";
Dir::State::lists "$A/lists";
Dir::State::status "$A/status";
Dir::Cache "$A";
Dir::Cache::archives "$A/archives";
Acquire::Languages "none";
APT::Get::List-Cleanup "false";
APT::Sandbox::User "root";
CONF
export APT_CONFIG="$A/apt.conf"

say "reading $suite from $MIRROR (private apt state in $A); log: $LOG"
apt-get -q update >"$LOG" 2>&1 || { tail -n 5 "$LOG" >&2; die "apt-get update for $suite failed; see $LOG"; }
grep -q '^W: .*\(NO_PUBKEY\|not signed\|is not signed\)' "$LOG" &&
	die "the $suite Release file did not verify against $KEYRING; see $LOG"
ver=$(apt-cache policy "$pkg" 2>>"$LOG" | awk '/Candidate:/ { print $2 }')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$pkg is not in $suite at $MIRROR; see $LOG"
if [ -n "${CHECK_ONLY:-}" ]; then
	echo "$ver"
	exit 0
fi

tarball=$OUTDIR/$pkg-$ver.tar.xz
if [ ! -f "$tarball" ]; then
	need_disk 1500 "downloading $pkg $ver"
	say "downloading $pkg $ver"
	(cd "$A/archives" && rm -f "$pkg"_*.deb && apt-get -q download "$pkg=$ver") >>"$LOG" 2>&1 ||
		{ tail -n 5 "$LOG" >&2; die "apt-get download $pkg=$ver failed; see $LOG"; }
	deb=$(ls "$A/archives/$pkg"_*.deb)
	rm -rf "$A/unpack"
	dpkg-deb -x "$deb" "$A/unpack"
	src=$(ls "$A/unpack/usr/src/$pkg".tar.* 2>/dev/null | head -n 1)
	[ -n "$src" ] || die "$deb holds no usr/src/$pkg.tar.*"
	mv "$src" "$tarball.tmp"
	mv "$tarball.tmp" "$tarball"
	rm -rf "$A/unpack" "$deb"
fi
echo "$ver $tarball" >"$OUTDIR/$pkg.current"
echo "$ver $tarball"
