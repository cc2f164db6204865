#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts_test.sh: tests of scripts/bench/udpgso_ab.sh (the A/B runs) and its
# snapshot/restore, all inside network namespaces this test creates:
#   - bad input: one line, exit 1, nothing created or changed;
#   - a short matrix on the local veth pair: results.json checked field by
#     field (numbers nonzero, bytes = datagrams x size), csv, summary, raw logs;
#   - IPv6 on the local pair (-6);
#   - a counter read on the wrong host must fail: the receiver's per-skb
#     counters read on the sending host (AB_SKBC_WRONG_HOST=1) are named by
#     the cross-check in every slice;
#   - the remote path: NETIF mode against a real sshd started in a
#     namespace of our own (throwaway host and user keys in a temp dir),
#     reached over IPv6, the matrix in IPv4 and IPv6 (--family both), the
#     per-skb counters read on both sides (udpgso_stats copied to the remote);
#   - restore under kill: runs killed at random points (the script with
#     SIGTERM/SIGINT, or SIGKILL, which only lib.sh's ug_guard can undo, or
#     one of its children), then the snapshot after must
#     equal the snapshot before.  AB_KILL_REPS sets how many (default 20),
#     AB_KILL_CHILD=1 makes every one a SIGKILL to a random child.
#
#   ./scripts_test.sh
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

AB=$UG_TOP/scripts/bench/udpgso_ab.sh
SNAP=$UG_TOP/scripts/snapshot.sh
KILL_REPS=${AB_KILL_REPS:-20}
case "$KILL_REPS" in '' | *[!0-9]*) ug_die "AB_KILL_REPS '$KILL_REPS': allowed 0..1000" ;; esac
# AB_KILL_CHILD=1: every kill is a SIGKILL to a random child (stress runs)
KILL_CHILD=${AB_KILL_CHILD:-0}

ktap_header
if ! why=$(ug_need_root) || ! why=$(ug_need_cmd ip ss ethtool python3 perf tc setsid); then
	ktap_skip "scripts_test" "$why"
	ktap_finish
fi
for t in udpgso_bench_tx udpgso_bench_rx; do
	if [ ! -x "$UDPGSO_BIN/$t" ]; then
		ktap_fail "scripts_test: $UDPGSO_BIN/$t" "not built (run make)"
		ktap_finish
	fi
done
export UDPGSO_BIN

ug_trap_install
tmp=$(mktemp -d)
defer rm -rf "$tmp"
out=$tmp/results

# ---- our own "host" and peer: namespaces h and p joined by a veth -----------
ns_add h && ns_add p || { ktap_skip "scripts_test" "cannot create network namespaces"; ktap_finish; }
NH=$(ns_name h) NP=$(ns_name p)
defer ns_kill_pids "$NH" "$NP"
veth_pair h ugh0 p ugp0
ip -n "$NH" addr add 10.249.0.1/24 dev ugh0
ip -n "$NP" addr add 10.249.0.2/24 dev ugp0
ip -n "$NH" addr add fd00:249::1/64 dev ugh0 nodad
ip -n "$NP" addr add fd00:249::2/64 dev ugp0 nodad
# ---- ns_add when `ip netns add` is killed after it made the namespace --------
# (one of the random kills below found it on 2026-11-27: the deletion was
# deferred only after the add exited 0): an ip that makes it, then dies
real_ip=$(command -v ip)
mkdir -p "$tmp/killip"
printf '#!/bin/bash\nif [ "$1" = netns ] && [ "$2" = add ]; then "%s" "$@"; kill -9 $$; fi\nexec "%s" "$@"\n' \
	"$real_ip" "$real_ip" >"$tmp/killip/ip"
chmod +x "$tmp/killip/ip"
# shellcheck disable=SC2016 # expanded by the child shell
kout=$(bash -c '. "$1/scripts/lib.sh"; ug_trap_install; echo "pid $$"
	PATH=$2:$PATH ns_add k && echo "ns_add k: succeeded"; exit 1' _ "$UG_TOP" "$tmp/killip" 2>&1)
kpid=$(printf '%s\n' "$kout" | sed -n 's/^pid //p')
kleft=$(ip netns list | grep "^ug$kpid-" | cut -d' ' -f1)
if [[ "$kpid" =~ ^[0-9]+$ ]] && [ -z "$kleft" ] && [[ "$kout" != *succeeded* ]]; then
	ktap_ok "ns_add: an 'ip netns add' killed after making the namespace leaves none behind"
else
	ktap_fail "ns_add: an 'ip netns add' killed after making the namespace" \
		"left: ${kleft:-none}; $(printf '%s' "$kout" | tr '\n' ' ')"
	for n in $kleft; do ip netns del "$n"; done
fi

# ---- ug_guard: a script killed with SIGKILL (no trap runs) -------------------
# its namespace deferred, then SIGKILL to itself: the guard deletes it and
# removes its journal; a normal exit leaves the guard nothing to do
# shellcheck disable=SC2016 # expanded by the child shell
guard_case() {	# kill|exit
	bash -c '. "$1/scripts/lib.sh"; ug_trap_install; ug_guard || exit 1
		ns_add g || exit 1; echo "pid $$ $_ug_guard"
		[ "$2" = kill ] && kill -KILL $$; exit 0' _ "$UG_TOP" "$1" 2>/dev/null
}
gk=$(guard_case kill) ge=$(guard_case exit)
read -r _ gkpid gkj <<<"$gk"
read -r _ gepid gej <<<"$ge"
for ((w = 0; w < 50; w++)); do
	[ -e "$gkj" ] || [ -e "$gej" ] || ip netns list | grep -q "^ug\($gkpid\|$gepid\)-" || break
	sleep 0.1
done
gleft=$(ip netns list | grep "^ug\($gkpid\|$gepid\)-" | cut -d' ' -f1)
if [[ "$gkpid" =~ ^[0-9]+$ ]] && [[ "$gepid" =~ ^[0-9]+$ ]] && [ -z "$gleft" ] &&
	[ -n "$gkj" ] && [ ! -e "$gkj" ] && [ -n "$gej" ] && [ ! -e "$gej" ]; then
	ktap_ok "ug_guard: a script killed with SIGKILL has its namespace deleted by the guard (${w}00 ms)"
else
	ktap_fail "ug_guard: SIGKILL to a script with a namespace deferred" \
		"left: ${gleft:-no namespace}; journals: $(ls "$gkj" "$gej" 2>/dev/null | tr '\n' ' ')"
	for n in $gleft; do ip netns del "$n"; done
fi

# the state a run in NETIF mode may touch, on both ends
snap_hp() {
	ip netns exec "$NH" bash "$SNAP" save ugh0 | grep -v '^netns '
	echo "-- peer"
	ip netns exec "$NP" bash "$SNAP" save ugp0 | grep -v '^netns '
}
base=$(snap_hp)

# ---- bad input -------------------------------------------------------------------
# bad NAME ENV... -- ARGS...: exit 1, one line on stderr, no results, no
# namespace of that run, the h/p state unchanged
bad() {
	local name=$1 rc lines envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rm -rf "$out"
	env "${envs[@]}" ip netns exec "$NH" "$AB" --out "$out" "$@" \
		>"$tmp/bad.out" 2>"$tmp/bad.err" &
	local pid=$!
	wait "$pid"
	rc=$?
	lines=$(wc -l <"$tmp/bad.err")
	if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ]; then
		ktap_fail "bad input: $name" "exit $rc, $lines stderr lines"
		sed 's/^/# /' "$tmp/bad.err"
	elif [ -e "$out" ] || ip netns list | grep -q "^ug$pid-"; then
		ktap_fail "bad input: $name" "created something"
	elif [ "$(snap_hp)" != "$base" ]; then
		ktap_fail "bad input: $name" "changed a setting"
	else
		ktap_ok "bad input: $name: $(cat "$tmp/bad.err")"
	fi
}
bad "unknown preset" -- --preset nosuch
bad "unknown tx mode" -- --tx sendto,nosuch
bad "reps out of range" -- -n 0
bad "bad setting syntax" -- --ab tx:gso=maybe tx:gso=off
bad "flag the device lacks (local pair)" -- --ab tx:no-such-flag=on tx:no-such-flag=off
bad "unknown device" NETIF=nosuch0 REMOTE_V4=10.249.0.2 REMOTE_TYPE=netns REMOTE_ARGS="$NP" --
bad "flag the device lacks (NETIF)" NETIF=ugh0 LOCAL_V4=10.249.0.1 REMOTE_V4=10.249.0.2 REMOTE_TYPE=netns \
	REMOTE_ARGS="$NP" -- --ab rx:no-such-flag=on rx:no-such-flag=off
bad "unknown remote type" NETIF=ugh0 LOCAL_V4=10.249.0.1 REMOTE_V4=10.249.0.2 REMOTE_TYPE=telnet \
	REMOTE_ARGS=x --
bad "remote that does not answer" NETIF=ugh0 LOCAL_V4=10.249.0.1 REMOTE_V4=10.249.0.2 REMOTE_TYPE=ssh \
	REMOTE_ARGS="-F /dev/null -p 1 -o ConnectTimeout=2 root@10.249.0.2" --
bad "no remote address" NETIF=ugh0 REMOTE_TYPE=netns REMOTE_ARGS="$NP" --
# the address families (--family, LOCAL_V6/REMOTE_V6 as NetDrvEpEnv pairs them)
bad "unknown family" -- --family 5
bad "IPv6 datagram above 1452 bytes" -- -6 --size 1472
bad "REMOTE_V6 without LOCAL_V6" NETIF=ugh0 LOCAL_V4=10.249.0.1 REMOTE_V4=10.249.0.2 \
	REMOTE_V6=fd00:249::2 REMOTE_TYPE=netns REMOTE_ARGS="$NP" --
bad "LOCAL_V4 without REMOTE_V4" NETIF=ugh0 LOCAL_V4=10.249.0.1 LOCAL_V6=fd00:249::1 \
	REMOTE_V6=fd00:249::2 REMOTE_TYPE=netns REMOTE_ARGS="$NP" -- -6
bad "--family 6 with IPv4 addresses only" NETIF=ugh0 LOCAL_V4=10.249.0.1 REMOTE_V4=10.249.0.2 \
	REMOTE_TYPE=netns REMOTE_ARGS="$NP" -- --family 6
bad "REMOTE_V6 not an IPv6 address" NETIF=ugh0 LOCAL_V6=fd00:249::1 REMOTE_V6=10.249.0.2 \
	REMOTE_TYPE=netns REMOTE_ARGS="$NP" -- -6
bad "LOCAL_V6 not on NETIF" NETIF=ugh0 LOCAL_V6=fd00:249::7 REMOTE_V6=fd00:249::2 \
	REMOTE_TYPE=netns REMOTE_ARGS="$NP" -- -6
bad "REMOTE_V6 on no remote device" NETIF=ugh0 LOCAL_V6=fd00:249::1 REMOTE_V6=fd00:249::9 \
	REMOTE_TYPE=netns REMOTE_ARGS="$NP" -- -6

# ---- results.json of a short matrix ---------------------------------------------
# check_results DIR RUNS CONFIGS AB: every field, nonzero numbers,
# bytes = datagrams x size; prints "# ..." lines and returns 1 on a problem
check_results() { python3 "$UG_TOP/scripts/tests/ab_results_check.py" "$@"; }
# sides_args DIR TXDEV,RXDEV: --sides TXDEV,RXDEV unless the run could read
# the per-skb counters on neither side (no module, no BPF: a note says so);
# one side only is checked, and fails
sides_args() {
	local src
	src=$(ug_jget "$1/results.json" counters_source 2>/dev/null)
	case "$src" in
	tx:none,rx:none | none | kmod)
		echo "# per-skb counters not on both sides (counters_source $src): not checked" >&2 ;;
	*) echo "--sides $2" ;;
	esac
}

# the live processes of a session, "PID:NAME ..." (zombies not: an orphan
# waits for PID 1 to reap it, which some inits do late)
session_live() {	# SID
	ps -eo pid=,sid=,stat=,comm= |
		awk -v s="$1" '$2 == s && $3 !~ /^Z/ { printf "%s:%s ", $1, $4 }'
}
# wait up to 3 s for a session to be gone; fails if it is not
session_gone() {	# SID
	local w
	for ((w = 0; w < 30; w++)); do
		[ -z "$(session_live "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}

rm -rf "$out"
t0=$SECONDS
setsid "$AB" --out "$out" --label test --method slices --tx sendto,gso-cmsg,tcp --rx gro -n 2 -l 1 \
	>"$tmp/short.out" 2>"$tmp/short.err" &
pid=$!
wait "$pid"
rc=$?
dir=$(ls -d "$out"/*-test 2>/dev/null | head -n1)
if [ "$rc" -ne 0 ] || [ -z "$dir" ]; then
	ktap_fail "short matrix on the local pair" "exit $rc"
	tail -n5 "$tmp/short.err" | sed 's/^/# /'
else
	ktap_info "short matrix: $((SECONDS - t0)) s"
	# shellcheck disable=SC2046 # sides_args: none or two words
	if check_results "$dir" 12 6 3 $(sides_args "$dir" ugab0,ugab1); then
		ktap_ok "short matrix: results.json fields, nonzero, bytes = datagrams x size"
	else
		ktap_fail "short matrix: results.json fields, nonzero, bytes = datagrams x size"
	fi
	if grep -q '^|' "$dir/summary.md" && grep -q 'A/B' "$dir/summary.md" &&
	   grep -v '^!\[' "$dir/summary.md" | cmp -s - "$tmp/short.out"; then
		ktap_ok "short matrix: summary.md has the table and the A/B ratios, also on stdout"
	else
		ktap_fail "short matrix: summary.md has the table and the A/B ratios, also on stdout"
	fi
	if grep -q 'config 12/\|run 12/12' "$tmp/short.err" && grep -q 'left ~' "$tmp/short.err"; then
		ktap_ok "short matrix: progress line with i/n and time left"
	else
		ktap_fail "short matrix: progress line with i/n and time left"
	fi
	left=$(ip netns list | grep -c "^ug$pid-")
	if session_gone "$pid" && [ "$left" -eq 0 ]; then
		ktap_ok "short matrix: its namespaces and processes are gone"
	else
		ktap_fail "short matrix: its namespaces and processes are gone" \
			"$left namespaces left; processes: $(session_live "$pid")"
	fi
fi

# ---- IPv6 on the local pair (-6): one tx/rx pair, A and B once ---------------------
rm -rf "$out"
"$AB" --out "$out" --label v6 -6 --method slices --tx gso-cmsg --rx gro -n 1 -l 1 --no-warmup --no-plots \
	>"$tmp/v6.out" 2>"$tmp/v6.err"
rc=$?
dir=$(ls -d "$out"/*-v6 2>/dev/null | head -n1)
if [ "$rc" -ne 0 ] || [ -z "$dir" ]; then
	ktap_fail "IPv6 on the local pair (-6)" "exit $rc"
	tail -n5 "$tmp/v6.err" | sed 's/^/# /'
# shellcheck disable=SC2046 # sides_args: none or two words
elif check_results "$dir" 2 2 1 --families 6 $(sides_args "$dir" ugab0,ugab1) &&
     grep -q '^| gso-cmsg -> gro IPv6 |' "$dir/summary.md" &&
     grep -q -- '-6 -D fd00:248::2 .* -S 1452' "$dir/raw/001.log"; then
	ktap_ok "IPv6 on the local pair (-6): results, Udp6 counters, 1452-byte segments, counters by side"
else
	ktap_fail "IPv6 on the local pair (-6): results, Udp6 counters, 1452-byte segments, counters by side"
fi

# ---- a counter read on the wrong host must fail: the receiver's per-skb
# counters read on the sending host (AB_SKBC_WRONG_HOST=1, ab_skbc.sh's test
# knob); the cross-check must name every slice, and --sides must fail too
rm -rf "$out"
name="the receiver's counters read on the sending host: every slice contradicted, named"
AB_SKBC_WRONG_HOST=1 "$AB" --out "$out" --label wrong --method slices --tx gso-cmsg --rx gro \
	-n 1 -l 1 --no-warmup --no-plots >"$tmp/wrong.out" 2>"$tmp/wrong.err"
rc=$?
dir=$(ls -d "$out"/*-wrong 2>/dev/null | head -n1)
if [ "$rc" -ne 0 ] || [ -z "$dir" ]; then
	ktap_fail "$name" "exit $rc"
	tail -n5 "$tmp/wrong.err" | sed 's/^/# /'
elif ! grep -q 'counters_source.*bpf' "$dir/results.json"; then
	ktap_skip "$name" "no BPF counters here: $(grep -m1 'per-skb counters' "$tmp/wrong.out")"
else
	n=$(grep -cE "^- run [0-9]+ .*receiver's bpf counted (no|[0-9]+) rx_skbs.* dev ugab0\)" \
		"$dir/summary.md")
	if [ "$n" = 2 ] && ! check_results "$dir" 2 2 1 --sides ugab0,ugab1 >"$tmp/wrong.chk" 2>&1 &&
	   grep -q "not device ugab1" "$tmp/wrong.chk"; then
		ktap_ok "$name ($(grep -m1 "^- run" "$dir/summary.md" | cut -c3-))"
	else
		ktap_fail "$name" "$n of 2 slices contradicted; --sides: $(head -n1 "$tmp/wrong.chk")"
	fi
fi

# ---- the remote path over a real sshd in namespace p --------------------------------
remote_ssh() {
	local rc dir
	# ssh itself over IPv6 (the first address); the matrix in both families
	if ! ug_sshd_start "$NP" fd00:249::2,10.249.0.2 2222 "$tmp/ssh" "$NH"; then
		sed 's/^/# sshd: /' "$tmp/ssh/sshd.log" | tail -n3
		return 1
	fi
	RARGS=$UG_SSH_ARGS
	rm -rf "$out"
	ip netns exec "$NH" env NETIF=ugh0 LOCAL_V4=10.249.0.1 REMOTE_V4=10.249.0.2 \
		LOCAL_V6=fd00:249::1 REMOTE_V6=fd00:249::2 REMOTE_TYPE=ssh REMOTE_ARGS="$RARGS" \
		"$AB" --out "$out" --label ssh --preset gro --tx gso-cmsg,tcp --rx plain -n 1 -l 1 \
		--family both --rps 3 --channels 2 >"$tmp/ssh.out" 2>"$tmp/ssh.err"
	rc=$?
	dir=$(ls -d "$out"/*-ssh 2>/dev/null | head -n1)
	if [ "$rc" -ne 0 ] || [ -z "$dir" ]; then
		echo "# exit $rc"
		tail -n5 "$tmp/ssh.err" | sed 's/^/# /'
		sed 's/^/# sshd: /' "$tmp/ssh/sshd.log" | tail -n3
		return 1
	fi
	# shellcheck disable=SC2046 # sides_args: none or two words
	check_results "$dir" 8 8 4 --families 4,6 $(sides_args "$dir" ugh0,ugp0) || return 1
	grep -q '"topology": "remote-ssh"' "$dir/results.json" || { echo "# not remote-ssh"; return 1; }
	if [ "$(snap_hp)" != "$base" ]; then
		echo "# the remote run left a setting changed:"
		diff <(echo "$base") <(snap_hp) | head -n 10 | sed 's/^/# /'
		return 1
	fi
}
if ! why=$(ug_need_cmd /usr/sbin/sshd ssh ssh-keygen unshare); then
	ktap_skip "remote over ssh (sshd in a namespace)" "$why (openssh-server, openssh-client)"
elif remote_ssh; then
	ktap_ok "remote over ssh (sshd in a namespace, IPv4 and IPv6): results, counters by side, restore"
else
	ktap_fail "remote over ssh (sshd in a namespace, IPv4 and IPv6): results, counters by side, restore"
fi

# ---- a receiver under timeout(1) when the script's process group is killed ------------
# timeout runs in a process group of its own, so the group's SIGTERM misses it
# (found 2026-11-27: udpgso_bench.sh left its receiver for 30 s): lib.sh's exit
# ends every receiver ug_rx_start started and ug_rx_end did not wait for
# shellcheck disable=SC2016 # expanded by the child shell
setsid bash -c '. "$1/scripts/lib.sh"; ug_trap_install; ns_add r || exit 1
	ip -n "$(ns_name r)" link set lo up
	ug_rx_start r -u 8123 /dev/null /dev/null timeout 30 "$1/udpgso_bench_rx" -4 -p 8123 ||
		exit 1
	echo "$$ $UG_RX_PID" >"$2"; sleep 60' _ "$UG_TOP" "$tmp/rxpid" 2>"$tmp/rxpid.err" &
rpid=$!
for ((w = 0; w < 100; w++)); do [ -s "$tmp/rxpid" ] && break; sleep 0.1; done
read -r rsh rrx <"$tmp/rxpid" 2>/dev/null
kill -TERM -- "-$rpid" 2>/dev/null
{ wait "$rpid"; } 2>/dev/null		# no "Terminated" line from the job
for ((w = 0; w < 30; w++)); do kill -0 "${rrx:-0}" 2>/dev/null || break; sleep 0.1; done
rleft=$(ip netns list | grep "^ug$rsh-" | cut -d' ' -f1)
if [[ "${rrx:-}" =~ ^[0-9]+$ ]] && ! kill -0 "$rrx" 2>/dev/null && [ -z "$rleft" ]; then
	ktap_ok "SIGTERM to a script's process group ends its receiver under timeout(1)"
else
	ktap_fail "SIGTERM to a script's process group, receiver under timeout(1)" \
		"receiver ${rrx:-not started} $(kill -0 "${rrx:-0}" 2>/dev/null && echo alive);" \
		"ns ${rleft:-none}; $(head -2 "$tmp/rxpid.err" | tr '\n' ' ')"
	[ -z "${rrx:-}" ] || kill "$rrx" 2>/dev/null
	for n in $rleft; do ip netns del "$n"; done
fi

# ---- udpgro_conf.sh: a train whose counters are incomplete -----------------------------
# (issue 25's skbs no BPF program saw, 1 in about 18 make checks here) is named
# and sent again, at most 3 trains; incomplete 3 times running fails; with -n
# an incomplete rep is not one of the REPS.  UDPGRO_CONF_FAKE_INCOMPLETE=N
# makes the first N checks of the run answer incomplete.
conf() { UDPGRO_CONF_FAKE_INCOMPLETE=$1 "$UG_TOP/udpgro_conf.sh" -k 'ipv4 same (gro)' "${@:2}" 2>&1; }
c1=$(conf 1)
if ! grep -q "counters agree" <<<"$c1"; then
	ktap_skip "udpgro_conf.sh, incomplete counters" "no per-skb counters here: $(grep -m1 '^ok\|^not ok' <<<"$c1")"
else
	c3=$(conf 3) cn=$(conf 1 -n 2)
	if grep -q "^ok 1 ipv4 same (gro) \[1 train(s) before with counters incomplete, named\] \[counters agree\]$" <<<"$c1" &&
	   grep -q "^# train 1 not compared: counters incomplete: injected" <<<"$c1" &&
	   grep -q "^not ok 1 ipv4 same (gro) \[2 train(s) before.*# counters incomplete: injected" <<<"$c3" &&
	   grep -q "^ok 1 ipv4 same (gro) x2: counters agree 2, disagree 0, incomplete 1," <<<"$cn"; then
		ktap_ok "udpgro_conf.sh: an incomplete train is named and sent again; 3 running fail"
	else
		ktap_fail "udpgro_conf.sh, incomplete counters" \
			"$(grep -h '^ok\|^not ok' <<<"$c1$c3$cn" | tr '\n' '|')"
	fi
fi

# ---- restore under kill ----------------------------------------------------------------
# one_kill I: start a run in its own process group, kill it (or a child) at a
# random point, then compare; local-pair runs check their namespaces and
# processes are gone, NETIF runs check every setting of both ends.
kill_fail=0 kill_log=
one_kill() {
	local i=$1 pid how delay victim kids rc mode args after w
	args=(--out "$out" --label kill -n 1 -l 1 --no-plots)
	case $((i % 4)) in
	0) mode=local; args+=(--tx gso-cmsg --rx gro) ;;
	1) mode=netif; args+=(--preset csum --tx gso-cmsg --rx plain --channels 2 --xps 1 --rps 2) ;;
	2) mode=netif; args+=(--preset gro-list --tx sendto --rx plain --flow-hash --rps 3) ;;
	3) mode=netif; args+=(--ab tx:tso=off,rx:gro=on tx:gso=off,rx:rx-udp-gro-forwarding=on
			      --tx tcp) ;;
	esac
	rm -rf "$out"
	if [ "$mode" = local ]; then
		setsid env --default-signal=INT "$AB" "${args[@]}" >/dev/null 2>"$tmp/kill.err" &
	else
		setsid ip netns exec "$NH" env --default-signal=INT NETIF=ugh0 LOCAL_V4=10.249.0.1 \
			REMOTE_V4=10.249.0.2 REMOTE_TYPE=netns REMOTE_ARGS="$NP" "$AB" "${args[@]}" \
			>/dev/null 2>"$tmp/kill.err" &
	fi
	pid=$!
	delay=$((RANDOM % 40 + 2))
	sleep "$((delay / 10)).$((delay % 10))"
	how=$((RANDOM % 6))
	[ "$KILL_CHILD" = 1 ] && how=4
	case $how in
	0) how="SIGTERM to the script"; kill -TERM "$pid" 2>/dev/null ;;
	1) how="SIGINT to the script"; kill -INT "$pid" 2>/dev/null ;;
	2) how="SIGINT to its process group (Ctrl-C)"; kill -INT -- "-$pid" 2>/dev/null ;;
	# no trap runs (as when bash itself aborts): the guard restores
	3) how="SIGKILL to the script"; kill -KILL "$pid" 2>/dev/null ;;
	*) kids=$(pgrep -s "$pid" | grep -vx "$pid")
	   victim=$(echo "$kids" | shuf -n1 2>/dev/null)
	   if [ -n "$victim" ]; then
		   how="SIGKILL to child $(cat "/proc/$victim/comm" 2>/dev/null)"
		   kill -KILL "$victim" 2>/dev/null
	   else
		   how="SIGTERM to the script (no child)"; kill -TERM "$pid" 2>/dev/null
	   fi ;;
	esac
	# the script may go on after a child died: give it time, then stop it
	for ((w = 0; w < 150; w++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; fi
	wait "$pid"
	rc=$?
	# processes being killed may take a moment to be gone (and the guard,
	# after a SIGKILL to the script, a few seconds to restore)
	for ((w = 0; w < 5; w++)); do session_gone "$pid" && break; done
	after=$(snap_hp)
	local why=""
	if [ "$after" != "$base" ]; then
		why="settings differ: $(diff <(echo "$base") <(echo "$after") | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
	elif ip netns list | grep -q "^ug$pid-"; then
		why="namespaces left: $(ip netns list | grep "^ug$pid-" | tr '\n' ' ')"
	elif [ -n "$(session_live "$pid")" ]; then
		why="processes left: $(session_live "$pid")"
	fi
	kill_log+="$mode/$how/${delay}00ms/rc=$rc "
	if [ -n "$why" ]; then
		kill_fail=$((kill_fail + 1))
		echo "# kill $i ($mode, $how after ${delay}00 ms, exit $rc): $why"
		# what the script said last (bash's own message if it aborted)
		tail -n 5 "$tmp/kill.err" | sed 's/^/#   stderr: /'
		# and leave the machine clean
		for n in $(ip netns list | grep "^ug$pid-" | cut -d' ' -f1); do ip netns del "$n"; done
		# put things back for the next round
		ip netns exec "$NH" bash "$SNAP" restore "$(echo "$base" | sed '/^-- peer/,$d')" ugh0
		ip netns exec "$NP" bash "$SNAP" restore "$(echo "$base" | sed '1,/^-- peer/d')" ugp0
	fi
}
t0=$SECONDS
# (bash's own notices of the killed jobs, "Killed", "Aborted", are left out
# of the TAP: each kill's exit status is in the summary line)
for ((i = 0; i < KILL_REPS; i++)); do one_kill "$i" 2>/dev/null; done
ktap_info "kills: $kill_log"
ktap_info "$KILL_REPS kills in $((SECONDS - t0)) s"
if [ "$KILL_REPS" -eq 0 ]; then
	ktap_skip "restore under kill" "AB_KILL_REPS=0"
elif [ "$kill_fail" -eq 0 ]; then
	ktap_ok "restore under kill: $KILL_REPS random kills, snapshot after == before"
else
	ktap_fail "restore under kill" "$kill_fail of $KILL_REPS left something behind"
fi
ktap_finish
