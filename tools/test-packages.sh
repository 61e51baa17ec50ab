#!/bin/sh
# Host-side test: the first step of make bench, make kernel and make
# rootfs on a fresh machine.  Each runs from an empty CACHE with every
# Debian package missing, and must get past package installation.  TAP on
# stdout.
#
#   tools/test-packages.sh
#
# Stand-ins on PATH, nothing is installed: dpkg-query (nothing is
# installed), apt-get (records its arguments; with FAKE_APT_FAIL_FIRST=1
# the first "install" fails, so the update-and-retry path runs) and id
# (uid 0, so the root-only path runs for any user).  STOP_AFTER_PACKAGES=1
# makes ensure_packages (tools/lib.sh) exit 0 once the packages are in, so
# no kernel, image or guest is built (and a timeout stops one that would be).
set -u
TOOL=test-packages
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
exit 1
EOF
cat >"$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_APT_CALLS"
case " $* " in
*" install "*)
	if [ "${FAKE_APT_FAIL_FIRST:-0}" = 1 ] && ! grep -q '^apt-get update' "$FAKE_APT_CALLS"; then
		echo "E: Unable to locate package (stand-in: run update first)"
		exit 100
	fi ;;
esac
echo "stand-in apt-get: $*"
EOF
cat >"$tmp/bin/id" <<'EOF'
#!/bin/sh
if [ "${1:-}" = -u ]; then echo 0; else exec /usr/bin/id "$@"; fi
EOF
chmod +x "$tmp/bin/"*

# first_step NAME FAIL_FIRST MAKE-TARGET...: sets rc, cache, calls, err
first_step() {
	cache=$tmp/$1/cache calls=$tmp/$1.calls err=$tmp/$1.err
	mkdir -p "$tmp/$1"
	: >"$calls"
	rc=0
	PATH=$tmp/bin:$PATH CACHE=$cache STOP_AFTER_PACKAGES=1 FAKE_APT_CALLS=$calls \
		FAKE_APT_FAIL_FIRST=$2 MIRROR=http://deb.invalid/debian \
		timeout 120 make -s -C "$TOPDIR" "$3" >"$tmp/$1.out" 2>"$err" </dev/null || rc=$?
}

# check NAME TARGET PACKAGE: the step exited 0, asked apt-get for PACKAGE,
# and wrote its log under the cache it created
check() {
	[ "$rc" = 0 ] && grep -q 'STOP_AFTER_PACKAGES=1' "$err"
	tap $? "make $2 from an empty CACHE gets past package installation (exit $rc; log: $err)"
	grep -q "^apt-get install -y -q .*\\<$3\\>" "$calls"
	tap $? "make $2 asks apt-get for $3 ($(head -n 1 "$calls" | cut -c1-60))"
	[ -s "$cache/apt.log" ]
	tap $? "make $2 keeps the apt-get output in \$CACHE/apt.log"
	grep -q 'Directory nonexistent\|ERROR' "$err"
	[ $? = 1 ]
	tap $? "make $2 prints no error"
	[ "$rc" = 0 ] || sed 's/^/# /' "$err"
}

echo "TAP version 13"
first_step bench 0 bench
check bench bench gnuplot-nox
first_step kernel 0 kernel
check kernel kernel linux-source-6.12
first_step rootfs 0 rootfs
check rootfs rootfs debootstrap
first_step retry 1 bench
check retry bench gnuplot-nox
grep -q '^apt-get update' "$calls" && [ "$(grep -c '^apt-get install' "$calls")" = 2 ]
tap $? "a failed apt-get install is retried once after apt-get update"
tap_done
