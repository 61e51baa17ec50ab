# Guest runs from the run plan (tools/runs.conf): start, reuse, wait for
# and report one, always through run-tests.sh.  POSIX sh, sourced by
# tools/check.sh and tools/bench.sh after lib.sh.
# shellcheck shell=sh
#
# The caller defines two functions the reports go to:
#   result ok|fail DESCRIPTION ["# SKIP why"]    one check of a run
#   note KIND LINE                               a diagnostic line (KIND:
#       reuse, console, run, took, dmesg, diag)
# and may set runs_topo to put every run on another topology (bench --topo).
#
#   run_names PLAN START [TOPOS]   the plan's runs that start so (fg, bg,
#                                  alone), in plan order, on one of TOPOS
#   run_start PLAN NAME            boot in the background, or reuse
#   run_wait PLAN NAME             wait for a started run
#   run_report PLAN NAME           its checks, fresh or reused, as results
#   run_one PLAN NAME              the three in a row
#   run_dir PLAN NAME              where it is: output.log, dmesg.log, rc ...
#   runs_reused                    how many reports were of reused runs
RUNS_CONF=$TOPDIR/tools/runs.conf
runs_topo=${runs_topo:-}
runs_reused=0
runs_pids=
runs_t0=$(date +%s)

run_dir() { echo "$CACHE/runs/$1-$2"; }

# run_row PLAN NAME: the row's fields in r_flavour, r_topo, r_mode, r_swap,
# r_reuse, r_start, r_timeout, r_cmds; 1 if the plan has no such run
run_row() {
	r_cmds=
	while read -r r_plan r_name r_flavour r_topo r_mode r_swap r_reuse r_start r_timeout r_cmds; do
		[ "$r_plan" = "$1" ] && [ "$r_name" = "$2" ] && break
		r_cmds=
	done <"$RUNS_CONF"
	[ -n "$r_cmds" ] || return 1
	[ -z "$runs_topo" ] || r_topo=$runs_topo
}

run_names() { # run_names PLAN START [TOPOS]
	awk -v p="$1" -v s="$2" -v topos=" ${3:-} " -v over="$runs_topo" '
		$1 == p && $8 == s && (topos == "  " || index(topos, " " (over != "" ? over : $4) " ")) { print $2 }' \
		"$RUNS_CONF"
}

# The run's one guest command: run-tests.sh and each of the row's
# commands, substituted and quoted as one argument ("--allow REGEX" as two).
run_command() {
	spec=$(awk -v t="$r_topo" '$1 == t { print $2, $3, $4 }' "$TOPDIR/tools/topologies.conf")
	printf '%s\n' "$r_cmds" | awk -v fl="$r_flavour" -v topo="$spec" \
		-v stress="${STRESS_SECONDS:-60}" -v limit="${SELFTEST_LIMIT:-240}" '
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
		n = split(s, c, / ; /)
		out = "run-tests.sh"
		for (i = 1; i <= n; i++)
			out = out (c[i] ~ /^--allow / ? " --allow " q(substr(c[i], 9)) : " " q(c[i]))
		print out
	}'
}

# What a run depends on; a recorded run with the same key is reused:
# the kernel image, the runner and guest init script, the guest image's
# recipe, the topology, accelerator, mode, swap and timeout, the command,
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
	out=$(run_dir "$1" "$2")
	cmd=$(run_command)
	key=
	if [ "$r_reuse" = yes ] && [ "${FRESH:-0}" != 1 ]; then
		key=$(run_key "$cmd")
		if [ "$(cat "$out/key" 2>/dev/null)" = "$key" ] && [ "$(cat "$out/rc" 2>/dev/null)" = 0 ]; then
			echo "$key" >"$out/reused"
			return 0
		fi
	fi
	rm -rf "$out" "$out.err"
	mkdir -p "$CACHE/runs"
	say "guest: $1 $2 ($r_flavour on $r_topo, $r_start; $(($(date +%s) - runs_t0))s so far)"
	set -- --kernel "$r_flavour" --topo "$r_topo" --accel "${ACCEL:-tcg}" --out "$out" --timeout "$r_timeout"
	[ "$r_mode" = - ] || set -- "$@" --mode "$r_mode"
	[ "$r_swap" = - ] || set -- "$@" --swap "$r_swap"
	( QUIET=1 "$TOPDIR/tools/run-guest" "$@" -- "$cmd" >/dev/null 2>"$out.err" &&
		if [ -n "$key" ]; then echo "$key" >"$out/key"; fi ) &
	runs_pids="$runs_pids $out=$!"
}

run_wait() { # run_wait PLAN NAME
	out=$(run_dir "$1" "$2")
	for p in $runs_pids; do
		[ "${p%=*}" = "$out" ] && { wait "${p##*=}" || true; }
	done
	return 0
}

# The whole kernel log of a run, boot included, against the patterns
# run-tests.sh applies after each command.
run_log_clean() { # run_log_clean TAG OUTDIR
	if [ ! -f "$2/dmesg.log" ]; then
		result fail "$1 kernel log of the whole run is clean (no $2/dmesg.log)"
	elif grep -F -f "$TOPDIR/mm-tests/splat-patterns" "$2/dmesg.log" |
		grep -v 'thp-numa splat-check: planted' >"$2.splats"; then
		result fail "$1 kernel log of the whole run is clean ($2/dmesg.log)"
		head -n 5 "$2.splats" | while IFS= read -r l; do note dmesg "# dmesg: $l"; done
	else
		result ok "$1 kernel log of the whole run is clean"
	fi
}

# A run's checks: it booted, finished, every TAP line of its tests, a
# kernel-log read after each of its commands, and its whole kernel log.
# Returns 1 when it never booted (no output to read).
run_report() { # run_report PLAN NAME
	run_row "$1" "$2" || return 1
	out=$(run_dir "$1" "$2")
	tag="[$r_flavour ${2#"$r_flavour"-}]"
	if [ -f "$out/reused" ]; then
		runs_reused=$((runs_reused + 1))
		note reuse "# $tag reusing the run of $(date -r "$out/rc" '+%F %T') (key $(cat "$out/reused")): same kernel image, guest image, programs and commands"
	fi
	if [ ! -f "$out/booted" ]; then
		result fail "$tag guest boots to userspace (console: $out/console.log)"
		sed 's/^/# /' "$out.err" 2>/dev/null | while IFS= read -r l; do note console "$l"; done
		return 1
	fi
	result ok "$tag guest boots to userspace"
	if [ -f "$out/rc" ]; then
		result ok "$tag guest finished its commands"
	else
		result fail "$tag guest finished its commands (console: $out/console.log)"
		sed 's/^/# /' "$out.err" 2>/dev/null | while IFS= read -r l; do note console "$l"; done
	fi
	log="(output: $out/output.log)"
	nrun=0 nlog=0
	guest_output "$out/output.log" run,took,logcheck,dmesg,exited,tap,bail,diag >"$out.records"
	while IFS='	' read -r kind a b c; do
		case $kind in
		run) nrun=$((nrun + 1)); note run "# === $a" ;;
		took) note took "# $a took ${b}s" ;;
		logcheck) nlog=$((nlog + 1))
			if [ "$a" = ok ]; then result ok "$tag $b: kernel log clean"
			else result fail "$tag $b: kernel log clean $log"; fi ;;
		dmesg) note dmesg "# dmesg: $a" ;;
		exited) result fail "$tag $a exited $b $log" ;;
		tap) case $a in
			ok) result ok "$tag $b" ;;
			skip) result ok "$tag $b" "# SKIP $c" ;;
			*) result fail "$tag $b $log" ;;
			esac ;;
		bail) result fail "$tag $a $log" ;;
		diag) note diag "$a" ;;
		esac
	done <"$out.records"
	if [ "$nrun" -gt 0 ] && [ "$nrun" = "$nlog" ]; then
		result ok "$tag the kernel log was read after each of the $nrun test commands"
	else
		result fail "$tag the kernel log was read after each test command ($nlog reads for $nrun commands) $log"
	fi
	run_log_clean "$tag" "$out"
}

run_one() { # run_one PLAN NAME
	run_start "$1" "$2" && run_wait "$1" "$2" && run_report "$1" "$2"
}
