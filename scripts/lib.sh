# SPDX-License-Identifier: GPL-2.0
# udpgso-lab shell library: KTAP output, a defer-style cleanup stack,
# network namespace helpers.  Source it; it sets nothing else up by itself.
#
#   . "$(dirname "$0")/scripts/lib.sh"      (from the top directory)
#
# shellcheck shell=bash

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

UG_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# where the built tools are: the Makefile exports UDPGSO_BIN (OUTPUT);
# installed copies sit beside the scripts
UDPGSO_BIN=${UDPGSO_BIN:-$UG_TOP}

ug_prog=$(basename "$0")

# UG_ONLY="a.sh b.sh": a test script not named there skips at once when it
# sources this file (a quick subset under a runner that runs every test,
# e.g. the kernel's); not passed on to the programs the test starts
if [ -n "${UG_ONLY:-}" ]; then
	case " $UG_ONLY " in
	*" $ug_prog "*) unset UG_ONLY ;;
	*) echo "TAP version 13"; echo "1..0 # SKIP $ug_prog: not in UG_ONLY"; exit 4 ;;
	esac
fi

ug_err() { echo "$ug_prog: $*" >&2; }
ug_die() { ug_err "$*"; exit 1; }

# ug_help: a script's usage on stdout: "usage: NAME" and its header
# comment (the lines after the SPDX line up to the first that is not a
# comment; shellcheck directives left out)
ug_help() {
	echo "usage: $ug_prog (see below)"
	awk 'NR == 1 || /^# SPDX/ || /^# shellcheck/ { next }
	     /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}
# ug_opt_k ARGS...: a case file's arguments, -k PATTERN (only the cases
# whose name matches: sets only, default '*') or -h
ug_opt_k() {
	only='*'
	case "${1:-}" in
	-h | --help) ug_help; exit 0 ;;
	-k) [ $# -eq 2 ] || ug_die "-k needs a shell pattern"; only=$2 ;;
	'') ;;
	*) ug_die "unknown argument '$1', allowed -k PATTERN, -h" ;;
	esac
}
# ug_no_args "$@": for a script that takes no arguments: -h/--help prints
# its usage and exits 0, anything else is one line and exit 1
ug_no_args() {
	case "${1:-}" in
	'') ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown argument '$1', allowed none (-h: usage)" ;;
	esac
}

# ---- KTAP -----------------------------------------------------------------
_ktap_n=0 _ktap_pass=0 _ktap_fail=0 _ktap_skip=0

ktap_header() {		# [planned]
	echo "TAP version 13"
	if [ -n "${1:-}" ]; then echo "1..$1"; fi
	_ktap_planned=${1:-}
}
ktap_info() { echo "# $*"; }
ktap_ok() {		# name...
	_ktap_n=$((_ktap_n + 1)); _ktap_pass=$((_ktap_pass + 1))
	echo "ok $_ktap_n $*"
}
ktap_fail() {		# name [reason]
	_ktap_n=$((_ktap_n + 1)); _ktap_fail=$((_ktap_fail + 1))
	echo "not ok $_ktap_n $1${2:+ # $2}"
}
ktap_skip() {		# name reason
	_ktap_n=$((_ktap_n + 1)); _ktap_skip=$((_ktap_skip + 1))
	echo "ok $_ktap_n $1 # SKIP ${2:-}"
}
# ktap_result RC NAME [REASON]: 0 ok, 4 skip, anything else not ok
ktap_result() {
	case "$1" in
	0) ktap_ok "$2" ;;
	4) ktap_skip "$2" "${3:-}" ;;
	*) ktap_fail "$2" "${3:-exit $1}" ;;
	esac
}
# ktap_relay FILE: a guest's result lines ("UGKMOD ok|not ok|skip TEXT"),
# one TAP line each here; other lines are ignored
ktap_relay() {
	local tag rest
	while read -r tag rest; do
		[ "$tag" = UGKMOD ] || continue
		case "$rest" in
		"ok "*) ktap_ok "${rest#ok }" ;;
		"not ok "*) ktap_fail "${rest#not ok }" ;;
		"skip "*) ktap_skip "${rest#skip }" "" ;;
		esac
	done < "$1"
}
# ktap_finish: totals line, then exit 1 on a failure, 4 when all skipped
ktap_finish() {
	if [ -z "${_ktap_planned:-}" ]; then echo "1..$_ktap_n"; fi
	echo "# Totals: pass:$_ktap_pass fail:$_ktap_fail xfail:0 xpass:0 skip:$_ktap_skip error:0"
	if [ "$_ktap_fail" -gt 0 ]; then exit $KSFT_FAIL; fi
	if [ -n "${_ktap_planned:-}" ] && [ "$_ktap_n" -ne "$_ktap_planned" ]; then
		exit $KSFT_FAIL
	fi
	if [ "$_ktap_n" -gt 0 ] && [ "$_ktap_skip" -eq "$_ktap_n" ]; then exit $KSFT_SKIP; fi
	exit $KSFT_PASS
}

# ---- requirements -----------------------------------------------------------
# ug_need_root / ug_need_cmd print the reason and return 1 when missing,
# so a test can skip: ug_need_cmd nft || { ktap_skip name "no nft"; ... }
ug_need_root() {
	if [ "$(id -u)" -ne 0 ]; then echo "needs root"; return 1; fi
}
ug_need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || { echo "needs $c"; return 1; }
	done
}

# ug_need_built PATH...: a tool that was not built is a failure of the test
# (not a skip): one not ok line, then the totals and exit
ug_need_built() {
	local t
	for t in "$@"; do
		if [ ! -x "$t" ]; then
			ktap_fail "${ug_prog%.sh}: $t" "not built (run make)"
			ktap_finish
		fi
	done
}

# ---- cleanup stack ------------------------------------------------------------
# defer CMD [ARG...]: push a command to run at exit, in reverse order, on
# normal exit, failure and SIGINT/SIGTERM/SIGHUP (after ug_trap_install,
# the one trap scheme).  Argv semantics: each ARG is kept as one word
# ("${@@Q}"), so callers quote nothing by hand; a pipeline or a list is a
# function of the caller's, deferred by name.  Output and errors of the
# deferred commands are dropped; a failing one does not stop the others.
# defer_scope_begin / defer_scope_end: what was deferred in between runs
# at the end of the scope (e.g. one test case's namespaces), the rest
# stays for exit; scopes nest.
_ug_defer=()
_ug_scopes=()
defer() { _ug_defer+=("${*@Q}"); _ug_journal; }
defer_scope_begin() { _ug_scopes+=("${#_ug_defer[@]}"); }
defer_scope_end() {
	local n=${#_ug_scopes[@]}
	[ "$n" -gt 0 ] || return 0
	_ug_run_from "${_ug_scopes[n - 1]}"
	unset "_ug_scopes[$((n - 1))]"
}
# run and drop the deferred commands from index $1 on (LIFO)
_ug_run_from() {
	local i
	for ((i = ${#_ug_defer[@]} - 1; i >= $1; i--)); do
		eval "${_ug_defer[$i]}" >/dev/null 2>&1 </dev/null || true
		unset "_ug_defer[$i]"
	done
	_ug_journal
}
# run and drop everything deferred so far (every scope), after ending the
# receivers still running (ug_rx_start)
run_deferred() {
	_ug_end_live
	_ug_run_from 0
	_ug_defer=() _ug_scopes=()
	# the cleanup ran: the guard (if any) has nothing to do
	[ -z "$_ug_guard" ] || rm -f "$_ug_guard"
}
# ---- a guard for a death without traps ----------------------------------------
# SIGKILL to the script, or bash itself aborting (SIGABRT: udpgso_ab.sh
# on a SIGINT, one of scripts_test's 20 random kills in CI on
# 2026-11-28) runs no trap and no deferred command.  ug_guard: from here
# on the deferred commands are also kept in a journal file, and a
# watcher (out of the job table, INT/TERM/HUP ignored, in this script's
# session) waits for this shell to be gone; if the journal is still
# there (run_deferred removes it), it kills what is left of this
# script's process group (when the script leads it) and runs the
# journal, last first, as run_deferred would.  Functions a deferred
# command names must exist when ug_guard is called (the watcher is a
# copy of the shell).
_ug_guard=
_ug_journal() {
	[ -n "$_ug_guard" ] || return 0
	if [ "${#_ug_defer[@]}" -eq 0 ]; then
		: >"$_ug_guard"
	else
		printf '%s\n' "${_ug_defer[@]}" >"$_ug_guard.new" && mv -f "$_ug_guard.new" "$_ug_guard"
	fi
}
ug_guard() {
	local me=$$
	[ -z "$_ug_guard" ] || return 0
	_ug_guard=$(mktemp "${TMPDIR:-/tmp}/ug-guard.$me.XXXXXX") || return 1
	_ug_journal
	( (
		local j st p fd
		trap '' INT TERM HUP PIPE
		exec </dev/null >/dev/null 2>&1
		# no pipe of the caller's held open by the watcher
		for fd in /proc/$BASHPID/fd/*; do
			fd=${fd##*/}
			[ "$fd" -le 2 ] || eval "exec $fd>&-"
		done 2>/dev/null
		# (tail asks the kernel every 0.5 s; no process per check)
		while kill -0 "$me" 2>/dev/null; do
			tail -s 0.5 --pid="$me" -f /dev/null || sleep 0.5
		done
		j=$_ug_guard _ug_guard=
		[ -s "$j" ] || { rm -f "$j"; exit 0; }
		read -r st <"/proc/$BASHPID/stat"
		st=${st##*) }
		# shellcheck disable=SC2086 # the fields of /proc/PID/stat
		set -- $st
		if [ "$3" = "$me" ]; then
			for p in $(pgrep -g "$me"); do
				[ "$p" = "$BASHPID" ] || kill -KILL "$p" 2>/dev/null
			done
		fi
		mapfile -t _ug_defer <"$j"
		_ug_run_from 0
		rm -f "$j"
	) & )
}
# Receivers ug_rx_start started and ug_rx_end has not waited for: a signal
# to the script's process group misses one under timeout(1), which runs in
# a process group of its own, so the exit ends them: TERM, up to 2 s, KILL
_ug_live=()
_ug_forget() {
	local i
	for i in "${!_ug_live[@]}"; do
		[ "${_ug_live[$i]}" != "$1" ] || unset "_ug_live[$i]"
	done
}
_ug_end_live() {
	local i p alive
	[ "${#_ug_live[@]}" -gt 0 ] || return 0
	kill "${_ug_live[@]}" 2>/dev/null
	for ((i = 0; i < 20; i++)); do
		alive=0
		for p in "${_ug_live[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" = 1 ] || break
		sleep 0.1
	done
	kill -KILL "${_ug_live[@]}" 2>/dev/null
	_ug_live=()
}
_ug_on_exit() { local rc=$?; trap - EXIT; run_deferred; exit "$rc"; }
_ug_on_sig() { trap - EXIT INT TERM HUP; run_deferred; exit "$1"; }
ug_trap_install() {
	trap _ug_on_exit EXIT
	trap '_ug_on_sig 130' INT
	trap '_ug_on_sig 143' TERM
	trap '_ug_on_sig 129' HUP
}

# ---- network namespaces -----------------------------------------------------
# ns_name NAME: the full name of our namespace NAME, "ug<pid>-NAME"
ns_name() { echo "ug$$-$1"; }
# ns_add NAME: create it with lo up, its deletion deferred (in the current
# defer scope); run it in this shell, not in $(...): the deferral is a
# variable of the shell
ns_add() {
	local ns
	ns=$(ns_name "$1")
	# deferred before the add: an `ip netns add` killed after it made the
	# namespace but before it exited 0 left it behind (scripts_test.sh's
	# restore under kill, SIGKILL to the child ip at 300 ms, CI 2026-11-27);
	# deleting one that was never made fails quietly (deferred: no output)
	defer ip netns del "$ns"
	ip netns add "$ns" || return 1
	ip -n "$ns" link set lo up
}
ns_exec() { local ns; ns=$(ns_name "$1"); shift; ip netns exec "$ns" "$@"; }
# ns_kill_pids FULLNAME...: SIGKILL every process left in these namespaces
ns_kill_pids() {
	local ns
	for ns in "$@"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9
	done
}
# veth_pair NS_A DEV_A NS_B DEV_B: a veth between two of our namespaces
veth_pair() {
	ip link add "$2" netns "$(ns_name "$1")" type veth \
		peer name "$4" netns "$(ns_name "$3")" || return 1
	ip -n "$(ns_name "$1")" link set "$2" up
	ip -n "$(ns_name "$3")" link set "$4" up
}
# ug_sshd_start NETNS ADDR[,ADDR...] PORT DIR [CLIENT_NETNS]: an sshd of our
# own in the network namespace NETNS (its full name) listening on each
# ADDR:PORT (root login with a throwaway key; host and user keys, config and
# log in DIR), killed at exit (deferred); sets UG_SSH_ARGS, the ssh options
# and destination (the first ADDR) that reach it (for REMOTE_ARGS).  1 when
# `ssh ... true`, run here or in CLIENT_NETNS, does not succeed within 20 s
# (sshd's log: DIR/sshd.log, ssh's last error: DIR/ssh.err)
ug_sshd_start() {
	local netns=$1 addrs=$2 port=$3 k=$4 a i cl=()
	mkdir -p "$k" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$k/host" </dev/null || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$k/id" </dev/null || return 1
	cp "$k/id.pub" "$k/authorized_keys" || return 1
	{
		for a in ${addrs//,/ }; do echo "ListenAddress $a"; done
		printf '%s\n' "Port $port" "HostKey $k/host" "PidFile $k/sshd.pid" \
			"AuthorizedKeysFile $k/authorized_keys" "PermitRootLogin prohibit-password" \
			"PasswordAuthentication no" "KbdInteractiveAuthentication no" "UsePAM no" \
			"StrictModes no" "LogLevel ERROR"
	} >"$k/sshd_config" || return 1
	# sshd wants /run/sshd: a private /run in a mount namespace of its own.
	# virtme-ng's guests lock every account ('!' in the /etc/shadow they bind
	# over the host's) and sshd without PAM refuses a locked root even with a
	# key: in sshd's own mount namespace only, a shadow with root's '*'.  And
	# an empty ~/.bashrc there: bash reads it for every command sshd runs, and
	# a slow one (pyenv init: 1 s on the host, 20 s and more in a TCG guest)
	# is paid by every remote command
	ip netns exec "$netns" unshare -m --propagation private sh -c \
		'mount -t tmpfs ugssh /run && mkdir -m 0755 /run/sshd &&
		 sed "s/^root:!/root:*/" /etc/shadow >/run/shadow &&
		 mount --bind /run/shadow /etc/shadow &&
		 { [ ! -f /root/.bashrc ] || mount --bind /dev/null /root/.bashrc; } &&
		 exec /usr/sbin/sshd -D -e -f "$1"' _ "$k/sshd_config" 2>"$k/sshd.log" &
	defer kill "$!"
	a=${addrs%%,*}
	UG_SSH_ARGS="-F /dev/null -p $port -i $k/id -o IdentitiesOnly=yes"
	UG_SSH_ARGS+=" -o UserKnownHostsFile=$k/known_hosts -o GlobalKnownHostsFile=/dev/null"
	UG_SSH_ARGS+=" -o StrictHostKeyChecking=no -o LogLevel=ERROR root@$a"
	[ -z "${5:-}" ] || cl=(ip netns exec "$5")
	for ((i = 0; i < 40; i++)); do
		# shellcheck disable=SC2086 # options and destination, split
		"${cl[@]}" ssh -o BatchMode=yes -o ConnectTimeout=5 $UG_SSH_ARGS true \
			</dev/null 2>"$k/ssh.err" && return 0
		ug_nap 0.5
	done
	return 1
}

# ---- ports -------------------------------------------------------------------
# ug_nap SECS: sleep without a fork (a read that times out on a pipe of our own)
ug_nap() {
	[ -n "${_ug_napfd:-}" ] || exec {_ug_napfd}<> <(:)
	read -r -t "$1" -u "$_ug_napfd" _ 2>/dev/null
	return 0
}
# _ug_port_count PROTO NS PORT PID: sets _ug_bound, the sockets bound to
# PORT (TCP: listening) in our namespace NS (NS "": where we are); read from
# /proc/PID/net when PID (a process in that namespace) is given, no fork;
# else through ss in NS
_ug_port_count() {
	local f hex laddr st
	_ug_bound=0
	if [ -z "$4" ]; then
		if [ -n "$2" ]; then
			_ug_bound=$(ns_exec "$2" ss -Hln "$1" "sport = :$3" 2>/dev/null | wc -l)
		else
			_ug_bound=$(ss -Hln "$1" "sport = :$3" 2>/dev/null | wc -l)
		fi
		return
	fi
	printf -v hex '%04X' "$3"
	for f in /proc/"$4"/net/{udp,udp6}; do
		[ "$1" = -t ] && f=${f/udp/tcp}
		[ -r "$f" ] || continue
		while read -r _ laddr _ st _; do
			[ "${laddr##*:}" = "$hex" ] || continue
			[ "$1" = -u ] || [ "$st" = 0A ] || continue
			_ug_bound=$((_ug_bound + 1))
		done <"$f"
	done
}
# ug_wait_port PROTO NS PORT [PID [SECS [HAVE]]]: wait until more than HAVE
# (default 0) sockets are bound (UDP, PROTO -u) or listening (TCP, -t) on
# PORT in our namespace NS, at most SECS seconds (default 5).  With PID (the
# receiver, or a process in its namespace) the count is read in its
# /proc/PID/net (no fork; every 20 ms, else every 50 ms) and the wait ends
# with 1 as soon as PID is gone.  The one port wait of the project.
ug_wait_port() {
	local proto=$1 ns=$2 port=$3 pid=${4:-} secs=${5:-5} have=${6:-0} i n step=0.05
	n=$((secs * 20))
	[ -z "$pid" ] || n=$((secs * 50)) step=0.02
	for ((i = 0; i < n; i++)); do
		_ug_port_count "$proto" "$ns" "$port" "$pid"
		[ "$_ug_bound" -gt "$have" ] && return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
		ug_nap "$step"
	done
	return 1
}
ns_wait_port() { ug_wait_port "$1" "$2" "$3"; }		# PROTO NS PORT
ns_wait_udp_port() { ug_wait_port -u "$1" "$2"; }	# NS PORT

# ---- the send modes -----------------------------------------------------------
# One table of udpgso_bench_tx's send modes for every script that runs them
# (udpgso_bench.sh, modes.sh, bench_vs_upstream.sh, udpgso_ab.sh): NAME and
# the arguments, where $S is the datagram (GSO: segment) size, $L the bytes
# of one GSO send call and $B the sendmmsg batch.  An empty one leaves its
# option out (the tool's default).
UG_TX_MODES='
sendto		-u -s $S
send		-s $S
sendmmsg	-m --batch $B -s $S
gso-cmsg	-s $L -S $S
gso-sockopt	-s $L -S $S --gso-mode sockopt
sendmmsg-gso	-m --batch $B -s $L -S $S
iov		--iov 4 -s $S
zerocopy	-z -s $S
zerocopy-gso	-z -s $L -S $S
tcp		-t -s $L
'
# ug_tx_args MODE: the mode's tx arguments, with S, L and B from the
# caller's variables (e.g. S=1200 L=12000 ug_tx_args gso-cmsg); 1 (and
# nothing printed) for a mode not in the table
ug_tx_args() {
	local name args w v out=()
	while read -r name args; do
		[ "$name" = "$1" ] || continue
		for w in $args; do
			case "$w" in
			'$'?)
				v=${w#?} v=${!v:-}
				if [ -n "$v" ]; then out+=("$v"); else unset "out[$((${#out[@]} - 1))]"; fi
				;;
			*) out+=("$w") ;;
			esac
		done
		echo "${out[*]}"
		return 0
	done <<<"$UG_TX_MODES"
	return 1
}

# ---- one transfer: receiver, port, sender, JSON ---------------------------------
# The case engine of the scripts that run the tools against each other
# (udpgso_bench.sh, the GRO scripts, modes.sh, bench_vs_upstream.sh, the
# guest's kmod_guest.sh): start rx, wait for its port, run tx, end rx, then
# merge the JSON summaries (ug_jmerge) and check them (ug_jcheck).
#
# ug_rx_start NS PROTO PORT OUT ERR CMD...: the receiver CMD (the tool with
# all its arguments, e.g. under timeout) in our namespace NS in the
# background, stdout to OUT, stderr to ERR; sets UG_RX_PID.  Returns 0 once
# one more socket is bound to (TCP: listens on) PORT than before it
# started, else 1 with the receiver killed (UG_PORT_SECS: how long, 5 s)
ug_rx_start() {
	local ns=$1 proto=$2 port=$3 out=$4 err=$5
	shift 5
	# sockets already there (a second receiver on a shared port)
	_ug_port_count "$proto" "$ns" "$port" ""
	local have=$_ug_bound
	ip netns exec "$(ns_name "$ns")" "$@" >"$out" 2>"$err" &
	UG_RX_PID=$!
	_ug_live+=("$UG_RX_PID")
	ug_wait_port "$proto" "$ns" "$port" "$UG_RX_PID" "${UG_PORT_SECS:-5}" "$have" && return 0
	kill "$UG_RX_PID" 2>/dev/null
	wait "$UG_RX_PID" 2>/dev/null
	_ug_forget "$UG_RX_PID"
	return 1
}
# ug_tx_run NS OUT ERR CMD...: the sender CMD in our namespace NS, stdout to
# OUT, stderr to ERR; returns its exit status
ug_tx_run() {
	local ns=$1 out=$2 err=$3
	shift 3
	ip netns exec "$(ns_name "$ns")" "$@" >"$out" 2>"$err"
}
# ug_rx_end [SIG [PID]]: end the receiver (PID, default UG_RX_PID): send SIG
# first when given (INT: it prints its summary and exits 0), then wait for
# it; returns its exit status
ug_rx_end() {
	local pid=${2:-$UG_RX_PID} rc=0
	[ -z "${1:-}" ] || kill -"$1" "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	_ug_forget "$pid"
	return "$rc"
}

# ug_wait_still QUIET TRIES CMD...: run CMD every 0.1 s until its output is
# the same QUIET times in a row (counters that stopped moving), at most
# TRIES times; 1 if they never stood still
ug_wait_still() {
	local quiet=$1 tries=$2 i same=0 prev cur
	shift 2
	prev=$("$@")
	for ((i = 1; i < tries; i++)); do
		sleep 0.1
		cur=$("$@")
		if [ "$cur" = "$prev" ]; then
			same=$((same + 1))
			[ "$same" -ge "$quiet" ] && return 0
		else
			same=0
		fi
		prev=$cur
	done
	return 1
}

# ---- JSON (scripts/ugjson.py) -----------------------------------------------
# ug_serve_ask IN_FD OUT_FD REQUEST SECS: one request to a running
# `udpgso_stats serve` (its stdin on IN_FD, its stdout on OUT_FD): the
# answer's lines up to the '.' on stdout; 1 when the request cannot be
# written or no full answer comes within SECS per line
ug_serve_ask() {
	local line
	printf '%s\n' "$3" 2>/dev/null >&"$1" || return 1
	while IFS= read -r -t "$4" -u "$2" line; do
		[ "$line" = . ] && return 0
		printf '%s\n' "$line"
	done
	return 1
}

# ug_jget FILE PATH: print one value of a JSON file; PATH is dot-separated
# keys (list indexes as numbers), e.g. ug_jget rx.json seq.loss.  Objects and
# lists print as JSON, booleans as true/false.  Fails when PATH is absent.
# (More PATHs: their values on one line, space separated; FILE - is stdin.)
ug_jget() { python3 "$UG_TOP/scripts/ugjson.py" get "$@"; }

# ug_jcheck FILE EXPR...: evaluate each Python expression over the JSON
# object in FILE (keys as names, nested keys with dots: seq.loss == 0).
# Prints "# check failed: EXPR (name=value ...)" for each false one and
# returns 1 then, else 0.
ug_jcheck() { python3 "$UG_TOP/scripts/ugjson.py" check "$@"; }

# ug_jmerge KEY=FILE...: one JSON object {KEY: FILE's object, ...} on stdout
ug_jmerge() { python3 "$UG_TOP/scripts/ugjson.py" merge "$@"; }

# ---- a kmod benchmark's host side (scripts/bench/kmod_bench.sh, kmod_icount.sh) ---
# ug_kmod_host_setup: the guest kernel (kver: --kernel, else the newest in
# /boot) and its headers (hdr), the results directory (out, default
# results/kmod-overhead-DATE, made absolute), a work directory removed at
# exit (work), and the module built against hdr into $work/build
ug_kmod_host_setup() {
	[ -x "$UDPGSO_BIN/udpgso_bench_tx" ] || ug_die "no $UDPGSO_BIN/udpgso_bench_tx (run make)"
	case "$UDPGSO_BIN" in /*) ;; *) UDPGSO_BIN=$(cd "$UDPGSO_BIN" && pwd) ;; esac
	if [ -z "$kver" ]; then
		kver=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sed 's|/boot/vmlinuz-||' |
			sort -V | tail -1)
	fi
	[ -r "/boot/vmlinuz-$kver" ] || ug_die "--kernel '$kver': no /boot/vmlinuz-$kver"
	hdr=/usr/src/linux-headers-$kver
	[ -f "$hdr/Makefile" ] || hdr=/lib/modules/$kver/build
	[ -f "$hdr/Makefile" ] || ug_die "--kernel '$kver': no headers (linux-headers-$kver)"
	[ -n "$out" ] || out=$UG_TOP/results/kmod-overhead-$(date -u +%Y-%m-%d)
	mkdir -p "$out" || ug_die "--out '$out': cannot create"
	out=$(cd "$out" && pwd)
	work=$(mktemp -d "/tmp/ug${ug_prog%.sh}.XXXXXX")
	ug_trap_install
	defer rm -rf "$work"
	make -s -C "$UG_TOP/kmod" KDIR="$hdr" BUILD="$work/build" >"$work/build.log" 2>&1 ||
		{ cat "$work/build.log" >&2; ug_die "module build against $hdr failed"; }
}
