#!/bin/sh
# Host-side tests of mm-tests/run-tests.sh, the guest's test runner, with a
# stand-in kernel log: KMSG= names a file that takes the markers and the
# planted lines, and a stand-in dmesg prints its last FAKE_RING lines, the
# way a full ring buffer keeps only the newest.  Nothing touches the host's
# own kernel log.  TAP on stdout.
#
#   tools/test-run-tests.sh
set -u
TOOL=test-run-tests
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/bin"
cat >"$tmp/bin/dmesg" <<'EOF'
#!/bin/sh
sed 's/^<[0-9]>//' "$KMSG" | tail -n "${FAKE_RING:-100000}"
EOF
chmod +x "$tmp/bin/dmesg"
cp "$TOPDIR/mm-tests/run-tests.sh" "$TOPDIR/mm-tests/splat-patterns" "$tmp/bin/"

# runner NAME RING CMD...: run-tests.sh with a fresh log; sets rc, out
runner() {
	out=$tmp/$1.out
	ring=$2
	shift 2
	echo "[    0.000000] Linux version (stand-in)" >"$tmp/kmsg"
	rc=0
	PATH=$tmp/bin:$PATH KMSG=$tmp/kmsg FAKE_RING=$ring TMPDIR=$tmp \
		"$tmp/bin/run-tests.sh" "$@" >"$out" 2>&1 || rc=$?
}
plant='echo "WARNING: planted by test-run-tests" >>"$KMSG"'
filler='i=0; while [ $i -lt 20 ]; do echo "filler $i" >>"$KMSG"; i=$((i + 1)); done'

echo "TAP version 13"
runner splat 1000 "$plant" true
grep -q '^not ok - echo: kernel log clean$' "$out" && grep -q '^# dmesg: WARNING: planted' "$out" && [ "$rc" = 1 ]
tap $? "a WARNING: line after a command's marker fails that command (exit $rc; $(tr '\n' ' ' <"$out" | cut -c1-80))"
grep -q '^ok - true: kernel log clean$' "$out"
tap $? "the next command's window starts at its own marker: an earlier splat does not fail it"
grep -c '^# === ' "$out" | grep -qx 2 && [ "$(grep -c 'kernel log clean$' "$out")" = 2 ]
tap $? "one '# ===' line and one kernel-log read per command"

runner wrap 5 "$filler; $plant"
grep -q '^not ok - i=0;: kernel log clean$\|^not ok - .*: kernel log clean$' "$out" &&
	grep -q '^# run-tests.sh: the marker before .* is no longer in the kernel log' "$out"
tap $? "a ring buffer that wrapped past the marker: the whole buffer is read, with a note, and the splat still fails"

runner clean-wrap 5 "$filler"
grep -q '^ok - .*: kernel log clean$' "$out"
tap $? "a wrapped buffer without a splat passes"

runner allow 1000 --allow 'planted by test-run-tests' "$plant" "$plant"
[ "$(grep -c '^ok - echo: kernel log clean$' "$out")" = 1 ] && [ "$(grep -c '^not ok - echo: kernel log clean$' "$out")" = 1 ]
tap $? "--allow passes a known line for the next command only"

runner name 1000 'FOO=1 BAR=2 true' 'exit 3'
grep -q '^# === FOO=1 BAR=2 true$' "$out" && grep -q '^# true took [0-9.]*s$' "$out" && grep -q '^ok - true: kernel log clean$' "$out"
tap $? "a command's name is its first word that is not VAR=value"
grep -q '^# exit exited 3$' "$out" && [ "$rc" = 1 ]
tap $? "a command that exits non-zero says so, and run-tests.sh exits 1"
[ "$(grep -c 'thp-numa run-tests: .* starts$' "$tmp/kmsg")" = 2 ]
tap $? "a marker is written to the kernel log before each command"

tap_done
