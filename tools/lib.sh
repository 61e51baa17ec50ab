# Shared helpers for the test bed's shell tools.  POSIX sh, sourced.
# shellcheck shell=sh

: "${CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/thp-numa}"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export CACHE TOPDIR
CFGDIR=$TOPDIR/kernel-patches/configs

# guest_frags TREE FRAGMENT...: the config fragments of a guest kernel of
# TREE (names in $CFGDIR), in their order: base.config, the tree's own
# (TREE.config) where there is one, then FRAGMENTs
guest_frags() {
	gf=base.config
	[ -f "$CFGDIR/$1.config" ] && gf="$gf $1.config"
	shift
	echo "$gf${*:+ $*}"
}

say() { printf '[%s] %s\n' "${TOOL:-thp-numa}" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "${TOOL:-thp-numa}" "$*" >&2; exit 1; }

# Debian packages: building kernels, and everything make check/bench need.
KERNEL_PKGS="linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev cpio ccache zstd xz-utils git"
ALL_PKGS="$KERNEL_PKGS qemu-system-x86 debootstrap e2fsprogs libcap-dev libnuma-dev"

# The Debian mirror of the host's apt sources: the first source of a
# bookworm suite that is not the security archive (deb822 or one-line).
host_mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     /Suites:[^\n]*bookworm([ \n]|$)/ && !/debian-security/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); print a[2]; exit } }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $0 ~ / bookworm / && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }'
}
# The linux-source package version we build against, e.g. 6.12.118-1~deb12u1.
pkg_version() {
	dpkg-query -W -f '${Version}' "${LINUX_SOURCE_PKG:-linux-source-6.12}" 2>/dev/null
}

# Short content hash of files (order matters), for cache keys.
hash_files() {
	cat "$@" 2>/dev/null | sha256sum | cut -c1-12
}

need_root() {
	[ "$(id -u)" = 0 ] || die "$1 needs root (run as root, or install first: $2)"
}

# Install missing Debian packages (names as arguments).  As non-root,
# fail with the list so the user can install them.  The first command a
# user types on a fresh machine may be any verb, so this creates $CACHE
# for its log itself.  STOP_AFTER_PACKAGES=1 exits here, with status 0,
# once the packages are in: tools/test-packages.sh uses it to run the first
# step of make bench, kernel and rootfs with a stand-in apt-get.
ensure_packages() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		[ "$(id -u)" = 0 ] ||
			die "missing Debian packages:$missing; install them as root: apt-get install$missing"
		say "installing Debian packages:$missing"
		mkdir -p "$CACHE" || die "cannot create $CACHE (set CACHE=)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >"$CACHE/apt.log" 2>&1 || {
			DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$CACHE/apt.log" 2>&1
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >>"$CACHE/apt.log" 2>&1 ||
				die "apt-get install$missing failed; see $CACHE/apt.log"
		}
	fi
	if [ "${STOP_AFTER_PACKAGES:-0}" = 1 ]; then
		say "STOP_AFTER_PACKAGES=1: packages in place, stopping here"
		exit 0
	fi
}

# What a guest printed (a run's output.log), as the records of the one
# parser, tools/guest-output.awk (the formats are documented there): one
# a line, tab-separated, kind first.  KINDS: comma-separated, default all.
guest_output() { # guest_output FILE [KINDS]
	awk -f "$TOPDIR/tools/guest-output.awk" -v only="${2:-}" "$1"
}

# placement.csv's lines (kernel,rows,mode,cpu_node,madvise,states,
# placement,classes) from the thp_scenarios records of a run's output.log
# (make bench's placement runs, make host-bench's run).
placement_csv() { # placement_csv KERNEL FILE
	guest_output "$2" placement | awk -F'\t' -v k="$1" '{
		states = $6; classes = $8
		gsub(",", "/", states); gsub(",", "/", classes)
		printf("%s,%s,%s,%s,%s,%s,%s,%s\n", k, $2, $3, $4, $5, states, $7, classes)
	}'
}

# TAP for the host-side tests (tools/test-*.sh): numbered, failures counted.
tap_n=0 tap_failed=0
tap() { # tap STATUS DESCRIPTION: "ok" when STATUS is 0
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}
is() { # is WHAT GOT WANT: one comparison
	[ "$2" = "$3" ]
	# a "#" of the values escaped, as TAP wants: "# SKIP" in them is data,
	# not a directive that would count a passed test as skipped
	tap $? "$1 (got '$(printf '%s' "$2" | sed 's/#/\\#/g')', want '$(printf '%s' "$3" | sed 's/#/\\#/g')')"
}
tap_done() { # the plan line; fails if any test failed
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
}

# Refuse to start a long step with too little disk.  $1: MiB needed, $2: what.
need_disk() {
	mkdir -p "$CACHE"
	avail=$(df -Pm "$CACHE" | awk 'NR==2 {print $4}')
	[ "$avail" -ge "$1" ] || die "$2 needs ${1} MiB free under $CACHE, only ${avail} MiB left (free space or set CACHE=)"
}

# ccache_env BASEDIR: the ccache settings of every kernel build.  Depend
# mode hashes the dependency list the compiler writes (kbuild's
# -Wp,-MMD) instead of running the preprocessor a second time on each
# miss: a cold miss cost 14% over plain gcc without it and 0-4% with it
# (six mm/, sched and ext4 objects of 7.3, 2 cores).  It gives up the
# preprocessed-mode hits, which kernel headers rarely give: an edit that
# moves a line changes every includer's preprocessed text anyway.
ccache_env() {
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	export CCACHE_BASEDIR=$1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export CCACHE_DEPEND=${CCACHE_DEPEND:-true}
}
