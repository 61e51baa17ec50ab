#!/bin/sh
# Host-side test of tools/fetch-source.sh against the real Debian mirror
# (the host's): the suite must verify against the host's Debian archive
# keyring and against no other, the private apt configuration must not
# point into the host's apt directories, and the host's apt lists must
# be left as they were.  Reads trixie-backports' index only (CHECK_ONLY),
# never downloads the package.  TAP on stdout.
#
#   tools/test-fetch.sh
set -u
TOOL=test-fetch
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

host_lists() { ls -l --time-style=+%s /var/lib/apt/lists 2>/dev/null | sha256sum; }
before=$(host_lists)

echo "TAP version 13"
out=$(CACHE=$tmp/good CHECK_ONLY=1 "$TOPDIR/tools/fetch-source.sh" 7.3 2>"$tmp/good.err")
rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q '^7\.3\.'
tap $? "the host's archive keyring verifies trixie-backports and it lists linux-source-7.3 (got '$out', exit $rc)"

conf=$tmp/good/apt/trixie-backports/apt.conf
[ -f "$conf" ] && ! grep -q '"/etc/apt\|"/var/lib/apt\|"/var/cache/apt' "$conf"
tap $? "the private apt.conf points into no host apt directory"

debs=$(find "$tmp/good" -name '*.deb' -o -name 'linux-source-*.tar.*' | wc -l)
[ "$debs" = 0 ]
tap $? "CHECK_ONLY downloads no package ($debs files)"

wrong=/usr/share/keyrings/debian-archive-bullseye-stable.gpg
if [ -r "$wrong" ]; then
	CACHE=$tmp/bad DEBIAN_KEYRING=$wrong CHECK_ONLY=1 "$TOPDIR/tools/fetch-source.sh" 7.3 \
		>"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" != 0 ] && grep -q 'NO_PUBKEY\|not signed' "$tmp/bad/logs/fetch-7.3.log"
	tap $? "a keyring without trixie's keys fails the fetch (exit $rc): $(tail -n 1 "$tmp/bad.err")"
else
	echo "ok $((tap_n + 1)) - # SKIP no $wrong to try a wrong keyring with"
	tap_n=$((tap_n + 1))
fi

[ "$(host_lists)" = "$before" ]
tap $? "the host's /var/lib/apt/lists is unchanged"
echo "1..$tap_n"
