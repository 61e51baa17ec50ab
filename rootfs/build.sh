#!/bin/sh
# Build the Debian bookworm guest image with debootstrap, once per recipe.
#   rootfs/build.sh          build (if needed) and print the image path
#   rootfs/build.sh --path   print the image path only
# The mirror is the host's own Debian mirror, read from its apt sources.
set -eu
TOOL=rootfs
. "$(dirname "$0")/../tools/lib.sh"

HERE=$TOPDIR/rootfs
key=$(hash_files "$HERE/build.sh" "$HERE/packages" "$HERE/thp-init")
OUT=$CACHE/rootfs/$key
IMG=$OUT/rootfs.ext4
if [ "${1:-}" = --path ]; then echo "$IMG"; exit 0; fi
if [ -f "$IMG" ]; then
	say "rootfs is up to date: $IMG"
	echo "$IMG"
	exit 0
fi

# First bookworm URI of the host's apt configuration (deb822 or one-line).
MIRROR=${MIRROR:-$(host_mirror | head -n1)}
[ -n "$MIRROR" ] || die "no Debian bookworm mirror in /etc/apt/sources.list*; set MIRROR=<url>"

need_root "debootstrap" "debootstrap e2fsprogs"
ensure_packages debootstrap e2fsprogs
need_disk 3000 "building the guest rootfs"
include=$(grep -v '^[[:space:]]*\(#\|$\)' "$HERE/packages" | paste -sd, -)
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp"
LOG=$CACHE/logs/rootfs.log
mkdir -p "$CACHE/logs"
say "debootstrap bookworm (minbase + $include) from $MIRROR; log: $LOG"
start=$(date +%s)
debootstrap --variant=minbase --include="$include" bookworm "$OUT.tmp/root" "$MIRROR" 2>&1 |
	tee "$LOG" | awk '/^I: (Retrieving|Validating|Extracting|Unpacking|Configuring|Installing)/ {
		n++; if (n % 40 == 0) { print "[rootfs] " $0 > "/dev/stderr"; fflush("/dev/stderr") } }'
[ -x "$OUT.tmp/root/bin/sh" ] && grep -q 'Base system installed successfully' "$LOG" ||
	die "debootstrap failed; see $LOG"
R=$OUT.tmp/root
install -m 0755 "$HERE/thp-init" "$R/sbin/thp-init"
echo thpguest >"$R/etc/hostname"
printf 'root::0:0:root:/root:/bin/bash\n' >"$R/etc/passwd.new"
grep -v '^root:' "$R/etc/passwd" >>"$R/etc/passwd.new" && mv "$R/etc/passwd.new" "$R/etc/passwd"
rm -rf "$R/var/cache/apt/archives"/*.deb "$R/var/lib/apt/lists"/*
size=$(du -sm "$R" | cut -f1)
mkfs.ext4 -q -L thproot -d "$R" "$OUT.tmp/rootfs.ext4" "$((size + 600))M" ||
	die "mkfs.ext4 -d failed (e2fsprogs >= 1.43 needed)"
rm -rf "$R"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
say "rootfs built in $(($(date +%s) - start))s: $IMG"
echo "$IMG"
