#!/bin/sh
# Guest side: run the kernel tree's own tools/testing/selftests/mm programs
# that exercise THP, khugepaged, migration, compaction, COW, mempolicy and
# splitting (staged under /mnt/thp/selftests/mm), each with a time limit.
# uffd-unit-tests is left out: it needs more than 5 minutes under TCG.
# Output: each program's TAP after a "# selftest name starts" line, then
# "# selftest name took Ns" and "# selftest name exit N" (4 = skipped,
# 124 = timed out); tools/guest-output.awk reads them.  (Not "# === ":
# run-tests.sh marks its own commands that way, and this script runs
# under it.)
# The programs run with address space randomisation off (setarch -R), so
# that both kernels see the same layout: mremap_test checks that its
# destination is free but not the 40 MiB "preamble" below it, and with a
# randomised brk that preamble once collided (EEXIST) on one kernel and not
# the other, which the baseline/patched comparison took for a regression.
#   selftests-mm.sh [SECONDS]
dir=/mnt/thp/selftests/mm
limit=${1:-300}
tests="cow khugepaged migration split_huge_page_test compaction_test
soft-dirty pagemap_ioctl madv_populate mkdirty
ksm_functional_tests mremap_dontunmap mremap_test map_populate droppable
mlock2-tests mrelease_test gup_longterm map_fixed_noreplace mdwe_test
mseal_test"
cd /tmp || exit 1
echo 1 >/proc/sys/vm/drop_caches
for t in $tests; do
	if [ ! -x "$dir/$t" ]; then
		echo "# selftest $t missing"
		continue
	fi
	echo "# selftest $t starts"
	# split_huge_page_test's page cache cases write each 4 MiB test file
	# one byte per write(): 110-240 s under TCG, so it gets 2.5 limits.
	l=$limit
	[ "$t" = split_huge_page_test ] && l=$((limit * 5 / 2))
	t0=$(cut -d. -f1 /proc/uptime)
	timeout -k 5 "$l" setarch "$(uname -m)" -R "$dir/$t" </dev/null 2>&1
	st=$?
	echo "# selftest $t took $(($(cut -d. -f1 /proc/uptime) - t0))s"
	echo "# selftest $t exit $st"
done
