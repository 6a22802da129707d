# shellcheck shell=bash
# tests/vm/lib/lib.sh - a small TAP producer for the in-VM suites (bash).
#
#   . "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
#   plan 3                      # or call done_testing at the end instead
#   ok "$((n > 0))" "saw packets"          # passes when COND is a non-zero integer
#   ok "dmesg | grep -q up" "link came up" # ... or a command line that exits 0
#   is "$(cat f)" "42" "f holds 42"        # string equality
#   run_ok "modprobe" modprobe rdma_rxe    # passes when the command exits 0
#   fails_ok "bad qpn refused" cmd ...     # passes when the command exits non-zero
#   skip "no IPv6 on this kernel" "v6 ping" # only when the test cannot run at all
#   tap_merge rc_ops timeout 600 rc_ops ...  # a program's own TAP, counted here
#   within 60 test -b /dev/nvme0n1         # waits for an event, by the clock
#   diag "text"; bail_out "setup failed"
#
# Results are counted in this shell: call the helpers from the suite's own
# shell, not from a subshell or a pipeline stage. Command output of run_ok
# and fails_ok is shown (as # lines) when the test fails, or always with
# TAP_VERBOSE=1. On exit the suite prints a summary and exits non-zero if a
# test failed, if the plan and the count differ, or if there was no plan.

_tap_n=0
_tap_passed=0
_tap_failed=0
_tap_skipped=0
_tap_todo=0
_tap_plan=

diag() {
	local line
	printf '%s\n' "$*" | while IFS= read -r line; do printf '# %s\n' "$line"; done
}

plan() {
	[ -z "$_tap_plan" ] || bail_out "plan given twice"
	_tap_plan=$1
	echo "1..$1"
}

# _tap_result PASSED NAME [DIRECTIVE]: DIRECTIVE is "SKIP reason" (counted
# as skipped) or "TODO reason" (an expected failure: "not ok" is not a
# failure, "ok" is a pass worth a look; both are counted as todo).
_tap_result() {
	_tap_n=$((_tap_n + 1))
	local name=${2//#/\\#} dir=${3:-}
	case $dir in
	[Tt][Oo][Dd][Oo]*)
		_tap_todo=$((_tap_todo + 1))
		if [ "$1" = 1 ]; then echo "ok $_tap_n - $name # $dir"; else echo "not ok $_tap_n - $name # $dir"; fi
		return 0 ;;
	esac
	if [ "$1" = 1 ]; then
		if [ -n "$dir" ]; then _tap_skipped=$((_tap_skipped + 1)); else _tap_passed=$((_tap_passed + 1)); fi
		echo "ok $_tap_n - $name${dir:+ # $dir}"
		return 0
	fi
	_tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $name"
	return 1
}

# ok COND NAME: COND is either an integer, true when non-zero (as in
# "$((a > b))" or "$(grep -c x f)"), or a shell command line that is
# evaluated and is true when it exits 0 ("cmd | grep -q x"). Not an exit
# status: `ok $? ...` would be inverted; use run_ok for a command.
ok() {
	local cond=$1 name=${2:-} pass=0
	if [[ $cond =~ ^-?[0-9]+$ ]]; then
		[ "$cond" != 0 ] && pass=1
	else
		eval "$cond" >/dev/null 2>&1 && pass=1
	fi
	_tap_result $pass "$name" && return 0
	[[ $cond =~ ^-?[0-9]+$ ]] || diag "condition: $cond"
	return 1
}

is() {
	local got=$1 want=$2 name=${3:-}
	[ "$got" = "$want" ] && _tap_result 1 "$name" && return 0
	_tap_result 0 "$name"
	diag "     got: '$got'"
	diag "expected: '$want'"
	return 1
}

# _tap_cmd WANT_ZERO NAME CMD...: the shared body of run_ok and fails_ok.
_tap_cmd() {
	local want_zero=$1 name=$2 out st pass=0
	shift 2
	out=$("$@" 2>&1)
	st=$?
	if [ "$want_zero" = 1 ]; then [ $st = 0 ] && pass=1; else [ $st != 0 ] && pass=1; fi
	_tap_result $pass "$name"
	if [ $pass = 0 ] || [ "${TAP_VERBOSE:-0}" = 1 ]; then
		diag "\$ $* (exit $st)"
		[ -z "$out" ] || diag "$(printf '%s\n' "$out" | tail -n 40)"
	fi
	[ $pass = 1 ]
}

run_ok() { _tap_cmd 1 "$@"; }
fails_ok() { _tap_cmd 0 "$@"; }

# skip REASON [NAME]: for a test that cannot run here at all, never to hide
# a failure.
skip() {
	_tap_result 1 "${2:-skipped}" "SKIP $1"
}

# tap_merge NAME CMD...: CMD prints TAP of its own (rc_ops, or the kernel
# test module's lines read back from dmesg). Each of its results becomes
# one result of this suite, renumbered, named "NAME: ...", with its SKIP or
# TODO directive kept; its "#" lines pass through, other lines become
# diagnostics. So each check is counted once. One more result is added
# only when CMD did not end the way its results say: no plan, a plan that
# is not the number of results, or an exit status that disagrees with them
# (a crash after the last check, or a failure no result names).
tap_merge() {
	local name=$1 line plan='' seen=0 bad=0 st='' re body dir pass
	shift
	re='^(not )?ok( [0-9]+)?( -)?( (.*))?$'
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"tap_merge-exit "*) st=${line#tap_merge-exit }; continue ;;
		esac
		if [[ $line =~ $re ]]; then
			pass=1
			[ -z "${BASH_REMATCH[1]}" ] || pass=0
			body=${BASH_REMATCH[5]}
			dir=
			if [[ $body =~ ^(.*[^\\])[[:space:]]*#[[:space:]]*(([Ss][Kk][Ii][Pp]|[Tt][Oo][Dd][Oo]).*)$ ]]; then
				body=${BASH_REMATCH[1]}
				dir=${BASH_REMATCH[2]}
			fi
			body=${body//\\#/#}
			seen=$((seen + 1))
			case $dir in [Tt][Oo][Dd][Oo]*) ;; *) [ $pass = 1 ] || bad=$((bad + 1)) ;; esac
			_tap_result $pass "$name: ${body% }" "$dir"
		elif [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
		elif [[ $line = "#"* ]]; then
			printf '%s\n' "$line"
		elif [ -n "$line" ]; then
			printf '# %s\n' "$line"
		fi
	done < <("$@" 2>&1; echo "tap_merge-exit $?")
	if [ -z "$plan" ]; then
		_tap_result 0 "$name ended without a plan after $seen results (exit ${st:-?})"
	elif [ "$plan" != "$seen" ]; then
		_tap_result 0 "$name planned $plan checks but printed $seen (exit ${st:-?})"
	elif [ "${st:-1}" != 0 ] && [ $bad = 0 ]; then
		_tap_result 0 "$name exited with status ${st:-?} after all its checks passed"
	elif [ "${st:-1}" = 0 ] && [ $bad != 0 ]; then
		_tap_result 0 "$name exited with status 0 after $bad failed checks"
	fi
}

bail_out() {
	echo "Bail out! $*"
	_tap_failed=$((_tap_failed + 1))
	exit 255
}

done_testing() {
	if [ -z "$_tap_plan" ]; then
		_tap_plan=${1:-$_tap_n}
		echo "1..$_tap_plan"
	fi
}

_tap_end() {
	local st=$? msg
	trap - EXIT
	if [ -z "$_tap_plan" ]; then
		diag "no plan and no done_testing: the suite stopped early?"
		_tap_failed=$((_tap_failed + 1))
		echo "1..$_tap_n"
	elif [ "$_tap_plan" != "$_tap_n" ]; then
		diag "planned $_tap_plan tests but ran $_tap_n"
		_tap_failed=$((_tap_failed + 1))
	fi
	msg="${SROCE_SUITE:-$(basename "$0")}: $_tap_passed passed, $_tap_failed failed, $_tap_skipped skipped, $_tap_todo todo"
	diag "$msg"
	if [ $_tap_failed != 0 ]; then exit 1; fi
	# A suite that died on its own (set -e, bail_out) keeps its status.
	exit "$st"
}
trap _tap_end EXIT

# within SECONDS CMD...: CMD exits 0 within SECONDS of wall time (tried
# every 0.1 s): the way to wait for an event rather than sleep and then
# look. Returns 1, saying (on stderr) what it waited for, when the time
# is up. The
# limit is the clock's, not a count of tries: on a loaded host a try
# may take longer than the pause between tries.
within() {
	local lim=$1 end=$((SECONDS + $1))
	shift
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "waited $lim s for: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}

# rping_ok ADDR COUNT WHAT: an rping -V server on ADDR and a client of
# COUNT verified round trips to it; two results, the client's (WHAT) and
# the server's end.
rping_ok() {
	local s
	timeout 120 rping -s -a "$1" -C "$2" -V >/tmp/rping_ok_s.log 2>&1 &
	s=$!
	for _ in $(seq 600); do
		rdma res show cm_id | grep -q LISTEN && break
		sleep 0.1
	done
	run_ok "$3" timeout 120 rping -c -a "$1" -C "$2" -V
	wait $s
	is "$?" 0 "... and its server ends well" || diag "$(tail -3 /tmp/rping_ok_s.log)"
}

# veth_device DEV: a veth va (10.99.0.1/24) to vb, both up, and the
# sroce device DEV on va; one result.
veth_device() {
	ip link add va type veth peer name vb
	ip link set va up
	ip link set vb up
	ip addr add 10.99.0.1/24 dev va
	run_ok "device on veth va" rdma link add "$1" type sroce netdev va
}

# sroce_up [-t TYPE] [-g] DEV NETDEV [ADDR...]: the driver loaded and DEV
# added on NETDEV (two checks: modprobe, rdma link add), how most suites
# start. TYPE is sroce (the default) or rxe (module rdma_rxe). For each
# ADDR the RoCE v2 GID that carries it is waited for, its index left in
# up_gids[] in the same order (empty when it never came). Without -g a
# missing GID is a diagnostic (the suite's own checks will say more);
# with -g it is one check more: "RoCE v2 GID for A (index N)", or for
# two addresses "RoCE v2 GIDs for A (N) and B (M)".
sroce_up() {
	local type=sroce mod check=0 dev nd a g all=1
	while :; do
		case ${1:-} in
		-t) type=$2; shift 2 ;;
		-g) check=1; shift ;;
		*) break ;;
		esac
	done
	dev=$1 nd=$2
	shift 2
	mod=$type
	[ "$type" = rxe ] && mod=rdma_rxe
	run_ok "modprobe $mod" modprobe "$mod"
	run_ok "rdma link add $dev on $nd" rdma link add "$dev" type "$type" netdev "$nd"
	up_gids=()
	for a in "$@"; do
		g=$(gid_index "$dev" "$a") || g=
		up_gids+=("$g")
		[ -n "$g" ] || all=0
		[ $check = 1 ] || [ -n "$g" ] || diag "no GID for $a yet"
	done
	[ $check = 1 ] && [ $# -gt 0 ] || return 0
	if [ $# = 1 ]; then
		ok $all "RoCE v2 GID for $1 (index ${up_gids[0]:-none})"
	else
		ok $all "RoCE v2 GIDs for $1 (${up_gids[0]:-none}) and $2 (${up_gids[1]:-none})"
	fi
}

# RoCE helpers every suite may want (gid_index).
# shellcheck source=tests/vm/lib/roce.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/roce.sh"
