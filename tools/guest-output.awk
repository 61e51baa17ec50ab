# The one reader of what guests print: a run's output.log, or (with
# -v suite=NAME) the guest's kernel log for KUnit.  POSIX awk (it also runs
# in the guest, under mawk): one record a line on stdout, fields separated
# by a tab, the kind first.
#
#   awk -f tools/guest-output.awk [-v only=KIND,KIND] [-v suite=S] FILE
#
# only: print just these kinds (default: every kind but text).
# Host users: tools/runs.sh (check and bench runs), tools/check.sh (legacy
# rows, selftests/mm keys), tools/bench.sh (placement, topology),
# tools/report.sh (fault cost, aged memory, usemem storm); guest user:
# mm-tests/kunit-results.sh.
# tools/test-parser.sh tests it against recorded runs in tools/fixtures/.
#
# ---- Line formats and the records they give --------------------------------
#
# run-tests.sh (mm-tests/), around every test command of a run:
#   # === CMD                        run       CMD
#   # NAME took 1.2s                 took      NAME  1.2
#   ok - NAME: kernel log clean      logcheck  ok    NAME
#   not ok - NAME: kernel log clean  logcheck  fail  NAME
#   # dmesg: LINE                    dmesg     LINE          (what failed it)
#   # NAME exited 3                  exited    NAME  3       (only if not 0)
#   # run-tests.sh: NOTE             diag      # run-tests.sh: NOTE
# NAME is the command's first word that is not a VAR=value.
#
# Test programs (kselftest-style TAP, mm-tests/vm_util.c, and scripts):
#   ok 3 - DESC / ok 3 DESC / ok - DESC    tap  ok    DESC
#   not ok 3 DESC                          tap  fail  DESC
#   ok 3 DESC # SKIP WHY                   tap  skip  DESC  WHY
#   Bail out! WHY                          bail  Bail out! WHY
#   1..N (a plan, first or last)           plan  N
#   # got: ... / # expected: ...           diag  LINE   (a failed placement)
#   # Totals: pass:N fail:N skip:N         diag  LINE
# Indented TAP (subtests) is not a result of the run.
#
# thp_scenarios, one line per scenario and mode ("|"-separated; HIST is
# itself "D0 THP 100% | D0 4k 0% | ...", page sizes largest first):
#   # placement ROWS|MODE|CPU|MADVISE|STATES|HIST|CLASSES
#     -> placement  ROWS  MODE  CPU  MADVISE  STATES  HIST  CLASSES
#   ROWS: epyc4 or deep; MODE: node-first, guest or legacy; CPU: the
#   faulting CPU's node; MADVISE: madvise or always; STATES: FREE/FRAG/FULL
#   by zonelist position, comma-separated; CLASSES: the distance class of
#   each of those positions, comma-separated.
#
# thp_permm, one line per process (one boot, processes with their own
# PR_SET_THP_NUMA_FALLBACK side by side):
#   # permm KNOB|PROCESS|CPU|MADVISE|STATES|HIST
#     -> permm  KNOB  PROCESS  CPU  MADVISE  STATES  HIST
#   KNOB: numa_fallback; PROCESS: the process's own setting (legacy,
#   node-first, guest, or default: the knob's); the rest as above.
#
# thp_faultcost (make bench), "|" becomes a tab, the kind is the first word:
#   # faultcost-setup|STATE|MiB|REPETITIONS
#   # faultcost-warmup|STATE|MODE|TRACEPOINT_HITS
#   # faultcost|STATE|MODE|REP|GB/s|p50 us/2M|p99 us/2M|us/fault|THP%|local%|HITS
#   # faultcost-ratio|STATE|MODE|GB/s|ratio median|min|max|p50 us/2M|p99 us/2M|
#                     p99 ratio|us/fault|THP%|local%|ratio p25|ratio p75
#   # faultcost-vmstat|STATE|MODE|COUNTER=DELTA|...|mm_page_alloc_multi_order=N
# thp_usemem, one line per fill ("|" becomes a tab, 14 fields):
#   # usemem|MODE|MiB|SECONDS|THP%|PSWPOUT|PSWPIN|NEIGHBOUR|PAGEOUTRUN|
#     COMPACT_STALL|PGSCAN_KSWAPD|PGSCAN_DIRECT|HIT_QUICKLY|NODE0%
#     -> usemem  MODE  MiB  SECONDS  THP%  PSWPOUT  ...  NODE0%
#   MODE: node-first, guest or legacy, "+bound" with thp_usemem -b;
#   NEIGHBOUR (-b's node-0-bound task): fired, not fired, not started, or
#   - without -b; PAGEOUTRUN: kswapd balance passes; HIT_QUICKLY:
#   kswapd_high_wmark_hit_quickly; NODE0%: share of the region on node 0;
#   counters -1 where the kernel has none.  make bench reads these records
#   (tools/report.sh, tools/storm.awk); tools/check.sh's storm comparison
#   reads the raw lines.  "# usemem-diag|..." lines are text.
# thp_aged, one line per row, mode and defrag setting (HIST as above,
# COUNTERS "stall=N success=N pgscan_direct=N ... kcompactd9=N"):
#   # aged ROW|MODE|DEFRAG|MADVISE|LOCAL_THP%|HIST|COUNTERS
#     -> aged  ROW  MODE  DEFRAG  MADVISE  LOCAL_THP%  HIST  COUNTERS
# (aged-trace.sh's "# aged-trace MODE: ..." summaries are text.)
# thp_challenge (make bench's aged-memory runs; HIST as above, over the
# whole region, so shares add up to the faulted part):
#   # challenge-param|NAME|VALUE          challenge-param  NAME  VALUE
#   # challenge-sample VARIANT|MODE|RUN|PHASE|T|HIST|faulted=PCT%
#     -> challenge-sample  VARIANT  MODE  RUN  PHASE  T  HIST  faulted=PCT%
#   # challenge-result VARIANT|MODE|RUN|STEPS|p50=US p90=US p99=US max=US|HIST|COUNTERS
#     -> challenge-result  VARIANT  MODE  RUN  STEPS  LATENCIES  HIST  COUNTERS
#   # challenge-khugepaged VARIANT|MODE|RUN|SETTING|T|HIST|collapsed=N
#     -> challenge-khugepaged  VARIANT  MODE  RUN  SETTING  T  HIST  collapsed=N
#   # challenge-cdf|VARIANT|MODE|RUN|Q0 ... Q100   challenge-cdf  VARIANT  MODE  RUN  QUANTILES
#   # challenge-load|NAME|VALUE           challenge-load  NAME  VALUE
# VARIANT: normal or vm; PHASE: fault, post-default, post-fast; SETTING
# (khugepaged): default or fast; T: seconds since the run's first fault;
# COUNTERS: "compact_stall=N compact_success=N ..." over the mode's steps.
#
# selftests-mm.sh, one section per program of the tree's selftests/mm:
#   # selftest PROG starts            selftest-start  PROG
#   ok 3 DESC (within the section)    selftest  PROG  KEY  pass|fail|skip
#   # selftest PROG took 12s          (no record)
#   # selftest PROG exit 0            selftest  PROG  (exit status)  pass
#                                     (exit 4: skip, any other: fail)
#   # selftest PROG missing           selftest  PROG  (missing)  fail
# KEY is DESC with its numbers replaced by N (counts vary between runs)
# and " #2", " #3" ... added to repeats within the program.  Within a
# section, TAP gives no tap records and other lines are text: tests that
# fail on both kernels are compared, not counted.
#
# KUnit, from the kernel log (dmesg, "[ time] " prefixes allowed), only
# with -v suite=S:
#   # Subtest: S                      kunit-suite  S
#       ok 2 CASE / not ok 2 CASE     kunit        ok|fail  CASE
#       # LINE                        kunit-diag   # LINE (unindented)
#   (a top-level "ok N" line ends the suite)
#
# Any other line of a test command's output:
#                                     text  NAME  LINE   (NAME: the command's)
# (only with -v only=text: bench reads numactl -H's lines this way).

function want(kind) {
	return only == "" ? kind != "text" : index("," only ",", "," kind ",") > 0
}
# emit(KIND, FIELDS): FIELDS already tab-joined (t() below); empty fields stay
function emit(kind, fields) {
	if (want(kind))
		print kind "\t" fields
}
function t(a, b) {
	return a "\t" b
}
function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}
# "a|b|c" -> "a\tb\tc"
function tabs(s) {
	gsub(/\|/, "\t", s)
	return s
}
function first_word(cmd,    n, w, i) {
	n = split(cmd, w, " ")
	for (i = 1; i <= n; i++)
		if (w[i] !~ /=/)
			return w[i]
	return w[1]
}
function selftest_line(line,    res, key, n) {
	res = line ~ /^ok/ ? "pass" : "fail"
	if (line ~ /# [Ss][Kk][Ii][Pp]/)
		res = "skip"
	key = line
	sub(/^(not )?ok [0-9]+ -? ?/, "", key)
	sub(/ # .*/, "", key)
	gsub(/[0-9]+(\.[0-9]+)?/, "N", key)	# counts vary from run to run
	n = ++seen[key]
	emit("selftest", t(t(prog, key (n > 1 ? " #" n : "")), res))
}

BEGIN { name = "-"; prog = ""; ksuite = 0 }

{ sub(/\r$/, "") }

# KUnit in a kernel log
suite != "" {
	l = $0
	sub(/^\[[^]]*\] /, "", l)
	if (l ~ ("# Subtest: " suite "$")) {
		ksuite = 1
		emit("kunit-suite", suite)
		next
	}
	if (ksuite && l ~ /^    (not )?ok [0-9]+ /) {
		sub(/^    /, "", l)
		res = l ~ /^ok/ ? "ok" : "fail"
		sub(/^(not )?ok [0-9]+ /, "", l)
		emit("kunit", t(res, l))
		next
	}
	if (ksuite && l ~ /^    # /) {
		emit("kunit-diag", substr(l, 5))
		next
	}
	if (ksuite && l ~ /^(not )?ok [0-9]+ /)
		ksuite = 0
	next
}

# run-tests.sh
/^# === / {
	cmd = substr($0, 7)
	name = first_word(cmd)
	prog = ""
	emit("run", cmd)
	next
}
/^(not )?ok - .*: kernel log clean$/ {
	n = $0
	res = n ~ /^ok/ ? "ok" : "fail"
	sub(/^(not )?ok - /, "", n)
	sub(/: kernel log clean$/, "", n)
	emit("logcheck", t(res, n))
	next
}
/^# [^ ]+ took [0-9.]+s$/ {
	emit("took", t($2, substr($4, 1, length($4) - 1)))
	next
}
/^# [^ ]+ exited [0-9]+$/ {
	emit("exited", t($2, $4))
	next
}
/^# dmesg: / {
	emit("dmesg", substr($0, 10))
	next
}
/^# run-tests\.sh: / {
	emit("diag", $0)
	next
}

# selftests-mm.sh
/^# selftest [^ ]+ starts$/ {
	prog = $3
	split("", seen)
	emit("selftest-start", prog)
	next
}
/^# selftest [^ ]+ exit [0-9]+$/ {
	st = $5
	emit("selftest", t(t($3, "(exit status)"), st == 0 ? "pass" : (st == 4 ? "skip" : "fail")))
	prog = ""
	next
}
/^# selftest [^ ]+ missing$/ {
	emit("selftest", t(t($3, "(missing)"), "fail"))
	next
}
/^# selftest [^ ]+ took / { next }
prog != "" && /^(not )?ok [0-9]+ / {
	selftest_line($0)
	next
}
prog != "" { emit("text", t(name, $0)); next }

# machine-readable lines of the test programs
# five fields, a histogram with "|" in it, one last field
function five_hist_last(kind, l,    n, f, hist, i) {
	n = split(l, f, "|")
	hist = f[6]
	for (i = 7; i < n; i++)
		hist = hist "|" f[i]
	emit(kind, f[1] "\t" f[2] "\t" f[3] "\t" f[4] "\t" f[5] "\t" hist "\t" f[n])
}
/^# placement / { five_hist_last("placement", substr($0, 13)); next }
/^# permm [^|]*\|/ {
	n = split(substr($0, 9), f, "|")
	hist = f[6]
	for (i = 7; i <= n; i++)
		hist = hist "|" f[i]
	emit("permm", f[1] "\t" f[2] "\t" f[3] "\t" f[4] "\t" f[5] "\t" hist)
	next
}
/^# aged [^|]*\|/ { five_hist_last("aged", substr($0, 8)); next }
/^# challenge-(sample|result|khugepaged) [^|]*\|/ {
	five_hist_last($2, substr($0, length($2) + 4))
	next
}
/^# (faultcost|faultcost-[a-z]+|usemem|challenge-param|challenge-cdf|challenge-load)\|/ {
	l = substr($0, 3)
	kind = l
	sub(/\|.*/, "", kind)
	if (want(kind))
		print tabs(l)
	next
}

# TAP of the test programs
/^ok / {
	d = $0
	sub(/^ok [0-9]* ?-? ?/, "", d)
	if (index(d, "# SKIP")) {
		why = trim(substr(d, index(d, "# SKIP") + 6))
		emit("tap", t(t("skip", trim(substr(d, 1, index(d, "# SKIP") - 1))), why))
	} else {
		emit("tap", t("ok", trim(d)))
	}
	next
}
/^not ok / {
	d = $0
	sub(/^not ok [0-9]* ?-? ?/, "", d)
	emit("tap", t("fail", trim(d)))
	next
}
/^Bail out!/ { emit("bail", $0); next }
/^1\.\.[0-9]+/ {
	d = $1
	sub(/^1\.\./, "", d)
	emit("plan", d)
	next
}
/^#.*(got|expected):/ || /^# Totals/ { emit("diag", $0); next }

{ emit("text", t(name, $0)) }
