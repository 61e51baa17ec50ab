# Guest runs from the run plan (tools/runs.conf): start, reuse, wait for
# and report one, always through run-tests.sh.  POSIX sh, sourced by
# tools/check.sh and tools/bench.sh after lib.sh.
# shellcheck shell=sh
#
# The caller defines two functions the reports go to:
#   result ok|fail DESCRIPTION ["# SKIP why"]    one check of a run
#   note KIND LINE                               a diagnostic line (KIND:
#       reuse, console, run, took, dmesg, diag, rerun)
# and may set runs_topo to put every run on another topology (bench --topo).
#
#   run_names PLAN "START..." [TOPOS]  the plan's runs that start so (fg,
#                                  quiet, bg, alone; one or more), in plan
#                                  order, on one of TOPOS
#   run_flavours PLAN [TOPOS]      the kernel flavours those runs boot
#   run_start PLAN NAME            boot in the background, or reuse
#   run_wait PLAN NAME             wait for a started run
#   run_report PLAN NAME           its checks, fresh or reused, as results
#   run_one PLAN NAME              the three in a row
#   run_dir PLAN NAME              where it is: output.log, dmesg.log, rc ...
#   runs_reused                    how many reports were of reused runs
RUNS_CONF=$TOPDIR/tools/runs.conf
# Fills per boot of the usemem storm rows ({storm_fills}): make check's
# 20, unless the caller (make bench, a test) set STORM_FILLS first.
: "${STORM_FILLS:=20}"
runs_topo=${runs_topo:-}
runs_reused=0
runs_pids=
runs_t0=$(date +%s)

run_dir() { echo "$CACHE/runs/$1-$2"; }

# run_row PLAN NAME: the row's fields in r_flavour, r_topo, r_mode, r_swap,
# r_scratch, r_reuse, r_start, r_timeout, r_cmds; 1 if the plan has
# no such run
run_row() {
	r_cmds=
	while read -r r_plan r_name r_flavour r_topo r_mode r_swap r_scratch r_reuse r_start r_timeout r_cmds; do
		[ "$r_plan" = "$1" ] && [ "$r_name" = "$2" ] && break
		r_cmds=
	done <"$RUNS_CONF"
	[ -n "$r_cmds" ] || return 1
	[ -z "$runs_topo" ] || r_topo=$runs_topo
}

run_names() { # run_names PLAN "START..." [TOPOS]
	awk -v p="$1" -v s=" $2 " -v topos=" ${3:-} " -v over="$runs_topo" '
		$1 == p && index(s, " " $9 " ") && (topos == "  " || index(topos, " " (over != "" ? over : $4) " ")) { print $2 }' \
		"$RUNS_CONF"
}

run_flavours() { # run_flavours PLAN [TOPOS]: the kernels its runs boot, first use first
	awk -v p="$1" -v topos=" ${2:-} " -v over="$runs_topo" '
		$1 == p && (topos == "  " || index(topos, " " (over != "" ? over : $4) " ")) && !seen[$3]++ { print $3 }' \
		"$RUNS_CONF"
}

# The run's one guest command: run-tests.sh and each of the row's
# commands, substituted and quoted as one argument ("--allow REGEX" as two).
run_command() {
	r_spec=$(awk -v t="$r_topo" '$1 == t { print $2, $3, $4 }' "$TOPDIR/tools/topologies.conf")
	printf '%s\n' "$r_cmds" | awk -v fl="$r_flavour" -v topo="$r_spec" \
		-v stress="${STRESS_SECONDS:-60}" -v limit="${SELFTEST_LIMIT:-240}" \
		-v fills="$STORM_FILLS" '
	function put(s, k, v,    i) {
		while ((i = index(s, k)) > 0)
			s = substr(s, 1, i - 1) v substr(s, i + length(k))
		return s
	}
	function q(s) {
		gsub(/\047/, "\047\\\047\047", s)
		return "\047" s "\047"
	}
	{
		s = put(put(put(put($0, "{flavour}", fl), "{topology}", topo), "{stress_seconds}", stress), "{selftest_limit}", limit)
		s = put(s, "{storm_fills}", fills)
		n = split(s, c, / ; /)
		out = "run-tests.sh"
		for (i = 1; i <= n; i++)
			out = out (c[i] ~ /^--allow / ? " --allow " q(substr(c[i], 9)) : " " q(c[i]))
		print out
	}'
}

# What a run depends on; a recorded run with the same key is reused:
# the kernel image, the runner and guest init script, the guest image's
# recipe, the topology, accelerator, mode, swap, scratch disk and timeout,
# whether it ran quiet, the command,
# the staged files the command can use, and the QEMU version.  The
# selftests/mm runs depend on the staged selftests and their scripts only,
# not on the project's test programs, so those can change without a
# 20-minute rerun.
run_key() { # run_key GUEST-COMMAND
	{ sha256sum "$("$TOPDIR/tools/kernel.sh" --builddir "$r_flavour")/arch/x86/boot/bzImage" \
		"$TOPDIR/tools/run-guest" "$TOPDIR/tools/guest-init.sh" | cut -c1-64
	  "$TOPDIR/rootfs/build.sh" --path
	  awk -v t="$r_topo" '$1 == t' "$TOPDIR/tools/topologies.conf"
	  echo "accel=${ACCEL:-tcg} mode=$r_mode swap=$r_swap timeout=$r_timeout"
	  [ "$r_scratch" = - ] || echo "scratch=$r_scratch"
	  # a quiet run is reused only from a boot that had the machine to itself
	  [ "$r_start" != quiet ] || echo "start=quiet"
	  printf '%s\n' "$1"
	  case $1 in
	  *selftests-mm*) find "$CACHE/stage/selftests" "$CACHE/stage/bin/selftests-mm.sh" \
		"$CACHE/stage/bin/run-tests.sh" "$CACHE/stage/bin/splat-patterns" -type f ;;
	  *) find "$CACHE/stage/bin" "$CACHE/stage/mod/$r_flavour" -type f ;;
	  esac | sort | xargs sha256sum
	  "${QEMU:-qemu-system-x86_64}" --version | head -n 1
	} | sha256sum | cut -c1-16
}

run_start() { # run_start PLAN NAME
	run_row "$1" "$2" || { result fail "run plan: tools/runs.conf has no $1 run $2"; return 1; }
	r_dir=$(run_dir "$1" "$2")
	r_command=$(run_command)
	r_key=
	if [ "$r_reuse" = yes ] && [ "${FRESH:-0}" != 1 ]; then
		r_key=$(run_key "$r_command")
		if [ "$(cat "$r_dir/key" 2>/dev/null)" = "$r_key" ] && [ "$(cat "$r_dir/rc" 2>/dev/null)" = 0 ]; then
			echo "$r_key" >"$r_dir/reused"
			return 0
		fi
	fi
	rm -rf "$r_dir" "$r_dir.err"
	mkdir -p "$CACHE/runs"
	say "guest: $1 $2 ($r_flavour on $r_topo, $r_start; $(($(date +%s) - runs_t0))s so far)"
	set -- --kernel "$r_flavour" --topo "$r_topo" --accel "${ACCEL:-tcg}" --out "$r_dir" --timeout "$r_timeout"
	[ "$r_mode" = - ] || set -- "$@" --mode "$r_mode"
	[ "$r_swap" = - ] || set -- "$@" --swap "$r_swap"
	[ "$r_scratch" = - ] || set -- "$@" --scratch "$r_scratch"
	# The boot-time KUnit suite only where the run reports it (runs.conf).
	case $r_command in *kunit-results.sh*) ;; *) set -- "$@" --append kunit.enable=0 ;; esac
	( QUIET=1 "$TOPDIR/tools/run-guest" "$@" -- "$r_command" >/dev/null 2>"$r_dir.err" &&
		if [ -n "$r_key" ]; then echo "$r_key" >"$r_dir/key"; fi ) &
	runs_pids="$runs_pids $r_dir=$!"
}

run_wait() { # run_wait PLAN NAME
	r_dir=$(run_dir "$1" "$2")
	for r_pid in $runs_pids; do
		[ "${r_pid%=*}" = "$r_dir" ] && { wait "${r_pid##*=}" || true; }
	done
	return 0
}

# The kernel log lines each command of the run may leave: "SEQ<tab>REGEX"
# for the commands that follow an "--allow REGEX" entry (SEQ counts the
# commands from 1, as run-tests.sh's markers do).
run_allowed() {
	printf '%s\n' "$r_cmds" | awk -F' ; ' '{ for (i = 1; i <= NF; i++)
		if ($i ~ /^--allow /) a = substr($i, 9)
		else { n++; if (a != "") printf("%d\t%s\n", n, a); a = "" } }'
}

# The splat lines of a kernel log, each checked against the allowance of
# the command whose window it is in: from run-tests.sh's marker before
# that command ("thp-numa run-tests: PID.SEQ NAME starts", the PID of the
# first marker: a nested run-tests.sh has its own) to the next one.  The
# boot, before the first marker, allows nothing.
run_splats() { # run_splats DMESG PATTERNS ALLOWED
	awk -v pf="$2" -v af="$3" '
	BEGIN {
		while ((getline l < pf) > 0) if (l != "") pat[++np] = l
		while ((getline l < af) > 0) { split(l, f, "\t"); allow[f[1]] = substr(l, length(f[1]) + 2) }
	}
	/thp-numa run-tests: [0-9]+\.[0-9]+ .* starts$/ {
		split($0, w, "thp-numa run-tests: ")
		split(w[2], id, " ")
		split(id[1], ps, ".")
		if (pid == "") pid = ps[1]
		if (ps[1] == pid) seq = ps[2] + 0
	}
	{
		for (i = 1; i <= np; i++)
			if (index($0, pat[i])) {
				if (!(seq in allow) || $0 !~ allow[seq]) print
				break
			}
	}' "$1"
}

# The whole kernel log of a run, boot included, against the patterns
# run-tests.sh applies after each command, less what each command allows.
run_log_clean() { # run_log_clean TAG OUTDIR
	run_allowed >"$2/allowed"
	if [ ! -f "$2/dmesg.log" ]; then
		result fail "$1 kernel log of the whole run is clean (no $2/dmesg.log)"
	elif run_splats "$2/dmesg.log" "$TOPDIR/mm-tests/splat-patterns" "$2/allowed" >"$2/splats" &&
		[ -s "$2/splats" ]; then
		result fail "$1 kernel log of the whole run is clean ($2/dmesg.log)"
		head -n 5 "$2/splats" | while IFS= read -r r_line; do note dmesg "# dmesg: $r_line"; done
	else
		result ok "$1 kernel log of the whole run is clean"
	fi
}

# After the first failure of a run's command: how to rerun just that one.
run_rerun_hint() {
	[ -n "$r_current" ] && [ "$r_hinted" != "$r_nrun" ] || return 0
	r_hinted=$r_nrun
	note rerun "# rerun it alone: make test FLAVOUR=$r_flavour TOPO=$r_topo$([ "$r_mode" = - ] || echo " MODE=$r_mode") T=\"$r_current\""
}

# The test commands of a run: the arguments of the run-tests.sh line in
# its cmds file but --allow and its pattern.
run_commands() { # run_commands DIR
	eval "set -- $(cat "$1/cmds" 2>/dev/null)"
	[ $# -gt 0 ] && shift
	r_n=0
	while [ $# -gt 0 ]; do
		case $1 in
		--allow) shift; [ $# -gt 0 ] && shift ;;
		*) r_n=$((r_n + 1)); shift ;;
		esac
	done
	echo "$r_n"
}

# The TAP plan of the command whose output ends here: a command that
# printed results must have printed a plan, and as many results as it.
run_plan_check() {
	[ -n "$r_current" ] || return 0
	if [ -z "$r_plan" ]; then
		[ "$r_ntap" = 0 ] && return 0
		result fail "$r_tag $r_current: $r_ntap results and no TAP plan $r_log"
	elif [ "$r_plan" = "$r_ntap" ]; then
		result ok "$r_tag $r_current: $r_ntap results, as its plan 1..$r_plan said"
	else
		result fail "$r_tag $r_current: $r_ntap results where its plan said 1..$r_plan $r_log"
	fi
}

# A run's checks: it booted, finished with exit status 0, every command
# reported, every TAP line of its tests and their plans, a kernel-log read
# after each of its commands, and its whole kernel log.
# Returns 1 when it never booted (no output to read).
run_report() { # run_report PLAN NAME
	run_row "$1" "$2" || return 1
	r_dir=$(run_dir "$1" "$2")
	r_tag="[$r_flavour ${2#"$r_flavour"-}]"
	if [ -f "$r_dir/reused" ]; then
		runs_reused=$((runs_reused + 1))
		note reuse "# $r_tag reusing the run of $(date -r "$r_dir/rc" '+%F %T') (key $(cat "$r_dir/reused")): same kernel image, guest image, programs and commands"
	fi
	if [ ! -f "$r_dir/booted" ]; then
		result fail "$r_tag guest boots to userspace (console: $r_dir/console.log)"
		sed 's/^/# /' "$r_dir.err" 2>/dev/null | while IFS= read -r r_line; do note console "$r_line"; done
		return 1
	fi
	result ok "$r_tag guest boots to userspace"
	if [ "$(cat "$r_dir/rc" 2>/dev/null)" = 0 ]; then
		result ok "$r_tag guest finished its commands, exit status 0"
	elif [ -f "$r_dir/rc" ]; then
		result fail "$r_tag guest finished its commands, exit status $(cat "$r_dir/rc") (output: $r_dir/output.log)"
	else
		result fail "$r_tag guest finished its commands (console: $r_dir/console.log)"
		sed 's/^/# /' "$r_dir.err" 2>/dev/null | while IFS= read -r r_line; do note console "$r_line"; done
	fi
	r_log="(output: $r_dir/output.log)"
	r_nrun=0 r_nlog=0 r_current='' r_hinted='' r_plan='' r_ntap=0
	guest_output "$r_dir/output.log" run,took,logcheck,dmesg,exited,tap,bail,plan,diag >"$r_dir/records"
	while IFS='	' read -r r_kind r_a r_b r_c; do
		case $r_kind in
		run) run_plan_check
			r_nrun=$((r_nrun + 1)) r_current=$r_a r_plan='' r_ntap=0
			note run "# === $r_a" ;;
		plan) r_plan=$r_a ;;
		took) note took "# $r_a took ${r_b}s" ;;
		logcheck) r_nlog=$((r_nlog + 1))
			if [ "$r_a" = ok ]; then result ok "$r_tag $r_b: kernel log clean"
			else result fail "$r_tag $r_b: kernel log clean $r_log"; run_rerun_hint; fi ;;
		dmesg) note dmesg "# dmesg: $r_a" ;;
		exited) result fail "$r_tag $r_a exited $r_b $r_log"; run_rerun_hint ;;
		tap) r_ntap=$((r_ntap + 1))
			case $r_a in
			ok) result ok "$r_tag $r_b" ;;
			skip) result ok "$r_tag $r_b" "# SKIP $r_c" ;;
			*) result fail "$r_tag $r_b $r_log"; run_rerun_hint ;;
			esac ;;
		bail) result fail "$r_tag $r_a $r_log"; run_rerun_hint ;;
		diag) note diag "$r_a" ;;
		esac
	done <"$r_dir/records"
	run_plan_check
	r_ncmd=$(run_commands "$r_dir")
	if [ "$r_nrun" = "$r_ncmd" ]; then
		result ok "$r_tag each of the $r_ncmd test commands reported"
	else
		result fail "$r_tag each test command reported ($r_nrun of $r_ncmd) $r_log"
	fi
	if [ "$r_nrun" -gt 0 ] && [ "$r_nrun" = "$r_nlog" ]; then
		result ok "$r_tag the kernel log was read after each of the $r_nrun test commands"
	else
		result fail "$r_tag the kernel log was read after each test command ($r_nlog reads for $r_nrun commands) $r_log"
	fi
	run_log_clean "$r_tag" "$r_dir"
}

run_one() { # run_one PLAN NAME
	run_start "$1" "$2" && run_wait "$1" "$2" && run_report "$1" "$2"
}
