# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the per-run machinery of scripts/bench/udpgso_ab.sh, sourced by it
# (functions only; they use its settings and state): one agent per side
# that reads counters and runs ethtool without a process start per request,
# the feature names of ethtool -k, applying a setting, perf and the receiver
# started one run ahead, and run_one, one measurement with its raw log.
# shellcheck shell=bash

agent_start() {	# SIDE
	local in=$tmp/ag_$1.in out=$tmp/ag_$1.out fi fo
	mkfifo "$in" "$out" || return 1
	if [ "$1" = tx ]; then
		L bash "$SNAP" agent <"$in" >"$out" 2>/dev/null &
	elif [ "$rtype" = ssh ]; then
		ssh "${ssh_opts[@]}" "${rargs[@]}" -- \
			"bash -c $(printf '%q' "$(cat "$SNAP")") snapshot.sh agent" \
			<"$in" >"$out" 2>/dev/null &
	else
		R bash "$SNAP" agent <"$in" >"$out" 2>/dev/null &
	fi
	exec {fi}>"$in" {fo}<"$out"
	printf -v "ag_in_$1" '%s' "$fi"
	printf -v "ag_out_$1" '%s' "$fo"
}

# agent_send SIDE REQUEST: the request written, its answer left to
# agent_recv (so that both sides work at once); 1 when the agent is gone
agent_send() {
	local i
	if [ "$1" = tx ]; then i=$ag_in_tx; else i=$ag_in_rx; fi
	[ -n "$i" ] || return 1
	printf '%s\n' "$2" 2>/dev/null >&"$i"
}

# agent_call SIDE REQUEST: its answer on stdout; 1 when the agent is gone
agent_call() {
	agent_send "$1" "$2" && agent_recv "$1"
}

agent_recv() {	# SIDE: one answer
	local o line
	if [ "$1" = tx ]; then o=$ag_out_tx; else o=$ag_out_rx; fi
	while IFS= read -r -u "$o" line; do
		[ "$line" = @@END ] && return 0
		printf '%s\n' "$line"
	done
	return 1
}

# counters_both TXFILE RXFILE: both sides at once (both requests go out
# before either answer is read), through the agents, else the slow way
counters_both() {
	local okt=0 okr=0
	agent_send tx "counters $dev_tx" && okt=1
	agent_send rx "counters $dev_rx" && okr=1
	if [ "$okt" = 1 ]; then agent_recv tx >"$1" || okt=0; fi
	if [ "$okr" = 1 ]; then agent_recv rx >"$2" || okr=0; fi
	[ "$okt" = 1 ] || LS counters "$dev_tx" </dev/null >"$1" 2>/dev/null
	[ "$okr" = 1 ] || RS counters "$dev_rx" </dev/null >"$2" 2>/dev/null
}

# counters SIDE: through the agent, else the slow way
counters() {
	if [ "$1" = tx ]; then
		agent_call tx "counters $dev_tx" || LS counters "$dev_tx" </dev/null
	else
		agent_call rx "counters $dev_rx" || RS counters "$dev_rx" </dev/null
	fi
}

# side_dev SIDE: that side's device, into DEV (no fork)
side_dev() {
	if [ "$1" = tx ]; then DEV=$dev_tx; else DEV=$dev_rx; fi
}

# setting_args A|B SIDE: the ethtool -K arguments of a setting on one side:
# every feature either setting names, valued from this setting, else as found
setting_args() {
	local spec side feat want out=""
	if [ "$1" = A ]; then spec=$spec_a; else spec=$spec_b; fi
	while read -r side feat; do
		[ "$side" = "$2" ] || continue
		case "$skip_feats" in *" $side:$feat "*) continue ;; esac
		want=$(echo "$spec" | awk -v s="$side" -v f="$feat" '$1 == s && $2 == f { print $3 }')
		if [ -z "$want" ]; then
			want=$(sed -n 's/^  //p' "$resdir/snapshot.before.$side" | feat_state "$feat")
		fi
		[ -n "$want" ] && out+=" $(feat_ethtool_name "$feat") $want"
	done <<<"$touched"
	echo "$out"
}

# the entries of ethtool -k that carry a user-level feature (feat_members_a:
# into the array FEAT_M, no fork)
feat_members_a() {
	case "$1" in
	tso) FEAT_M=(tx-tcp-segmentation) ;;
	tx-checksumming) FEAT_M=(tx-checksum-ipv4 tx-checksum-ip-generic tx-checksum-ipv6) ;;
	sg | scatter-gather) FEAT_M=(tx-scatter-gather) ;;
	*) FEAT_M=("$1") ;;
	esac
}
feat_members() {
	feat_members_a "$1"
	echo "${FEAT_M[*]}"
}
# feat_state FEATURE: the state of FEATURE in a features list on stdin
# (snapshot.sh lines): its first changeable member, else its first member
feat_state() {
	awk -v ms="$(feat_members "$1")" '
		BEGIN { n = split(ms, m, " ") }
		{ for (i = 1; i <= n; i++) if ($2 == m[i]) { st[i] = $3; kind[i] = $1 } }
		END {
			for (i = 1; i <= n; i++) if (kind[i] == "feat") { print st[i]; exit }
			for (i = 1; i <= n; i++) if (i in st) { print st[i]; exit }
		}'
}
feat_ethtool_name() {
	case "$1" in
	tx-checksumming) echo tx ;;
	tx-udp-fragmentation) echo ufo ;;
	*) echo "$1" ;;
	esac
}

# feat_state_file FILE FEATURE VAR: feat_state in shell builtins (hot
# path: no fork), the state into VAR
feat_state_file() {
	local kind name val m first="" chg=""
	feat_members_a "$2"
	while read -r kind name val; do
		for m in "${FEAT_M[@]}"; do
			[ "$name" = "$m" ] || continue
			[ -n "$first" ] || first=$val
			[ "$kind" = feat ] && [ -z "$chg" ] && chg=$val
		done
	done <"$1"
	printf -v "$3" '%s' "${chg:-$first}"
}

# apply_setting A|B: one ethtool -K per device the setting names, then the
# features of the sides it touches, as their devices report them.  Each
# step asks both sides' agents before reading either answer (the two
# sides work at once); a side whose agent is gone is asked the slow way.
apply_setting() {
	local s side feat st rc=0 ans DEV
	local -A asked=()
	for s in tx rx; do
		[ -n "${set_args[$1.$s]}" ] || continue
		side_dev "$s"
		if agent_send "$s" "ethtool -K $DEV ${set_args[$1.$s]}"; then
			asked[$s]=1
		elif [ "$s" = tx ]; then
			# shellcheck disable=SC2086
			L ethtool -K "$DEV" ${set_args[$1.$s]} </dev/null >/dev/null 2>&1 || rc=1
		else
			# shellcheck disable=SC2086
			R ethtool -K "$DEV" ${set_args[$1.$s]} </dev/null >/dev/null 2>&1 || rc=1
		fi
	done
	for s in "${!asked[@]}"; do
		agent_recv "$s" >"$tmp/ans.$s" || { rc=1; continue; }
		read -r ans <"$tmp/ans.$s"
		[ "$ans" = "rc 0" ] || rc=1
	done
	[ "$rc" = 0 ] || return 1
	asked=()
	for s in $touched_sides; do
		side_dev "$s"
		agent_send "$s" "features $DEV" && asked[$s]=1
	done
	for s in $touched_sides; do
		[ -n "${asked[$s]:-}" ] && agent_recv "$s" >"$tmp/feat.$s" && continue
		if [ "$s" = tx ]; then
			LS features "$dev_tx" </dev/null >"$tmp/feat.tx"
		else
			RS features "$dev_rx" </dev/null >"$tmp/feat.rx"
		fi
	done
	cur_feats=""
	while read -r side feat; do
		[ -n "$side" ] || continue
		feat_state_file "$tmp/feat.$side" "$feat" st
		cur_feats+="$side:$feat=$st "
	done <<<"$touched"
}

nap() { read -r -t "$1" -u "$napfd" _ 2>/dev/null; true; }

read_stat() {	# VAR: the aggregate cpu line of /proc/stat, no fork
	local line
	read -r line </proc/stat
	printf -v "$1" '%s' "$line"
}

# wait_port PROTO(-u|-t) PORT PID: bound/listening on the receiving side
# (here: lib.sh's port wait in the receiver's own /proc view, no fork)
wait_port() {
	if [ "$rtype" = ssh ]; then
		# the peer's agent polls there: one request, no new session
		[ "$(agent_call rx "waitport $1 $2")" = ok ] && return 0
		R ss -Hln "$1" "sport = :$2" </dev/null 2>/dev/null | grep -q . && return 0
		return 1
	fi
	ug_wait_port "$1" "" "$2" "$3"
}

# rx_drained PORT PID FAM: its socket's receive queue was empty at two
# readings 10 ms apart (read in the receiver's own /proc view, net/udp or
# for FAM 6 net/udp6: no fork; no nap after the second empty one).  Until
# 2026-11-29 IPv6 looked in net/udp, never found its socket and ended
# every IPv6 UDP slice 2 s late (200 readings)
rx_drained() {
	local hex line f i ok=0 tab=/proc/$2/net/udp
	[ "${3:-4}" = 6 ] && tab+=6
	printf -v hex ':%04X ' "$1"
	for ((i = 0; i < 200; i++)); do
		[ -r "$tab" ] || return 1
		f=x
		while read -r line; do
			case "$line" in
			*"$hex"*) read -r _ _ _ _ f _ <<<"$line"; break ;;
			esac
		done <"$tab"
		if [ "${f#*:}" = 00000000 ]; then ok=$((ok + 1)); else ok=0; fi
		[ "$ok" -lt 2 ] || return 0
		nap 0.01
	done
	return 1
}

# tbf_drained: the pacer's queue on the sending device is empty (tc -s:
# "backlog 0b 0p"), checked every 5 ms for up to 2 s.  A sender with a deep
# send buffer (--wmem) leaves up to that much in tbf when it exits, which
# tbf passes at its rate; the receiver's socket queue stays empty meanwhile
# (it reads faster than tbf sends), so rx_drained alone would end the slice
# early and call the rest lost
tbf_drained() {
	local i
	for ((i = 0; i < 400; i++)); do
		L tc -s qdisc show dev "$dev_tx" </dev/null 2>/dev/null |
			grep -q 'backlog 0b 0p' && return 0
		nap 0.005
	done
	return 1
}

# catf FILE: print a file without starting cat
catf() {
	local -a l
	[ -r "$1" ] || return 0
	mapfile -t l <"$1"
	[ ${#l[@]} -eq 0 ] || printf '%s\n' "${l[@]}"
}

# perf_launch N: a perf stat -a for run N, started with its events off
# (switched on and off around tx through its control fifo).  It is started
# one run ahead, while the previous run drains, so its start-up costs nothing.
perf_launch() {
	local n=$1
	rm -f "$tmp/perf.$n" "$tmp/pctl.$n" "$tmp/pack.$n"
	mkfifo "$tmp/pctl.$n" "$tmp/pack.$n" || return
	perf stat -a -x, -D -1 --control "fifo:$tmp/pctl.$n,$tmp/pack.$n" -e "$perf_events" \
		-o "$tmp/perf.$n" </dev/null >/dev/null 2>"$tmp/perf.err.$n" &
	perf_pid[$n]=$!
}

# rx_launch N: the receiver of run N (started directly, not through R, so
# that $! is the receiver itself).  Like perf it is started one run ahead,
# so that it is bound by the time its run begins; it waits up to 30 s for
# its first datagram and stops on SIGINT once it has read everything.
rx_launch() {
	local n=$1 rxm=${RUN_RX[$1]} pin_rx="" rcvbuf="" fam=${RUN_FAM[$1]:-4}
	[ -n "$rx_cpu" ] && pin_rx="--cpu $rx_cpu"
	[ -n "$rmem" ] && [ "$rxm" != tcp ] && rcvbuf="--rcvbuf $rmem"
	rx_cmd[$n]="$RXR -$fam -p $((port_base + n % 100)) --json -C 30000 -R $idle_ms ${RXA[$rxm]}"
	rx_cmd[$n]+=" $pin_rx $rcvbuf"
	# fixed rate: CPU cost is the headline, so the receiver blocks in poll()
	# as an application would (its default 20 us naps would bill their own
	# timer loop to the path; netperf's service demand blocks too)
	[ -z "$rate" ] || rx_cmd[$n]+=" --poll-wait"
	# --rx-window kernel: the window's edges are the kernel's receive stamps
	[ "$rx_window" != kernel ] || [ "$rxm" = tcp ] || rx_cmd[$n]+=" --kstamp"
	[ "$rx_reuseport" = 1 ] || [ "$rxm" = tcp ] || rx_cmd[$n]+=" --reuseport $rx_reuseport"
	if [ "$rtype" = ssh ]; then
		ssh "${ssh_opts[@]}" "${rargs[@]}" -- "timeout $((${secs%%.*} + 61)) ${rx_cmd[$n]}" \
			</dev/null >"$tmp/rx.$n.json" 2>"$tmp/rx.$n.err" &
	else
		# shellcheck disable=SC2086
		ip netns exec "${ns_rx:-$REMOTE_ARGS}" ${rx_cmd[$n]} \
			</dev/null >"$tmp/rx.$n.json" 2>"$tmp/rx.$n.err" &
	fi
	rx_pid[$n]=$!
}

run_one() {	# IDX CONFIG TXMODE RXMODE SETTING REP
	local idx=$1 cfg=$2 txm=$3 rxm=$4 set=$5 rep=$6
	local port=$((port_base + idx % 100)) proto=-u pname=udp log rxpid txpid rc_tx rc_rx=0
	local s0 s1 t0 t1 txa ok=1 pin_tx="" rxcmd fam=${RUN_FAM[$1]:-4}
	# this family's datagram size (IPv6: at most 1452 in 1500 bytes)
	local size=${fam_size[$fam]:-$size}
	local ta=$EPOCHREALTIME tb tc td perfpid="" pc pa ack i l
	# warm-up slices go to raw/warmup/ (RUN_DIR), never counted
	printf -v log '%s/raw/%s%03d.log' "$resdir" "${RUN_DIR[idx]:-}" "$idx"
	[ "$txm" = tcp ] && proto=-t pname=tcp
	txa=${TXA[$txm/$fam]}
	[ -n "$tx_cpu" ] && pin_tx="-C $tx_cpu"
	local txcmd="$TX -$fam -D ${fam_dst[$fam]} -p $port -l $secs --json $txa $pin_tx"
	[ "$tx_threads" = 1 ] || txcmd+=" --threads $tx_threads"
	[ "$tx_sockets" = 1 ] || txcmd+=" --sockets $tx_sockets"
	[ -z "$wmem" ] || [ "$txm" = tcp ] || txcmd+=" --sndbuf $wmem"
	if [ "$use_perf" = 1 ]; then
		[ -n "${perf_pid[$idx]:-}" ] || perf_launch "$idx"
		perfpid=${perf_pid[$idx]}
	fi
	skbc_reset
	if [ -z "${rx_pid[$idx]:-}" ] || ! kill -0 "${rx_pid[$idx]}" 2>/dev/null; then
		rx_launch "$idx"
	fi
	rxpid=${rx_pid[$idx]} rxcmd=${rx_cmd[$idx]}
	counters_both "$tmp/c0.tx" "$tmp/c0.rx"
	tb=$EPOCHREALTIME
	if ! wait_port "$proto" "$port" "$rxpid"; then
		ok=0
		echo "rx did not bind port $port" >>"$tmp/rx.$idx.err"
	fi
	if [ -n "$perfpid" ]; then
		# read-write opens never block, even if perf died
		exec {pc}<>"$tmp/pctl.$idx" {pa}<>"$tmp/pack.$idx"
		echo enable >&"$pc"
		read -r -t 5 -u "$pa" ack || echo "perf: no ack for enable" >>"$tmp/perf.err.$idx"
	fi
	read_stat s0
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086
	$LTX $txcmd </dev/null >"$tmp/tx.json" 2>"$tmp/tx.err" &
	txpid=$!
	wait "$txpid"
	rc_tx=$?
	t1=$EPOCHREALTIME
	read_stat s1
	if [ -n "$perfpid" ]; then
		echo disable >&"$pc"
		read -r -t 5 -u "$pa" ack || echo "perf: no ack for disable" >>"$tmp/perf.err.$idx"
		exec {pc}>&- {pa}>&-
		kill -INT "$perfpid" 2>/dev/null
		[ "$idx" -lt "$n_runs" ] && perf_launch $((idx + 1))
	fi
	[ "$idx" -lt "$n_runs" ] && rx_launch $((idx + 1))
	counters tx >"$tmp/c1.tx" 2>/dev/null
	# rx idles out only after $idle_ms (a stalled sender must not end it);
	# here it is told to stop as soon as it has read everything: a UDP
	# socket queue that stays empty, a TCP peer's EOF (or 1 s)
	if [ "$rtype" != ssh ]; then
		if [ "$proto" = -u ]; then
			[ -z "${pace_line:-}" ] || tbf_drained
			rx_drained "$port" "$rxpid" "$fam"
		else
			for ((i = 0; i < 100; i++)); do
				kill -0 "$rxpid" 2>/dev/null || break
				nap 0.01
			done
		fi
		kill -INT "$rxpid" 2>/dev/null
	else
		# over ssh: a short grace, then SIGINT to this run's receiver
		nap 0.2
		agent_call rx "pkill-int ^$RXR -$fam -p $port " >/dev/null ||
			R pkill -INT -f "^$RXR -$fam -p $port " </dev/null >/dev/null 2>&1
	fi
	wait "$rxpid"
	rc_rx=$?
	tc=$EPOCHREALTIME
	counters rx >"$tmp/c1.rx" 2>/dev/null
	[ -z "$perfpid" ] || wait "$perfpid"
	td=$EPOCHREALTIME
	{
		echo "# run $idx config $cfg tx $txm rx $rxm setting $set rep $rep"
		echo "run idx=$idx config=$cfg tx_mode=$txm rx_mode=$rxm setting=$set rep=$rep" \
			"port=$port size=$size segs=$segs proto=$pname" \
			"rc_tx=$rc_tx rc_rx=$rc_rx rx_bound=$ok t0=$t0 t1=$t1 family=$fam"
		# when each phase ended: rx started and counters read, rx bound
		# (= t0), tx done (= t1), rx done, counters read after
		echo "times start=$ta counters0=$tb bound=$t0 tx_done=$t1 rx_done=$tc end=$td"
		echo "features $cur_feats"
		[ -z "${pace_line:-}" ] || echo "pace $pace_line"
		echo "stat0 $s0"
		echo "stat1 $s1"
		echo "cmd_tx $txcmd"
		echo "cmd_rx $rxcmd"
		echo "== tx.json"; catf "$tmp/tx.json"
		echo "== rx.json"; catf "$tmp/rx.$idx.json"
		echo "== tx.stderr"; catf "$tmp/tx.err"
		echo "== rx.stderr"; catf "$tmp/rx.$idx.err"
		if [ "$use_perf" = 1 ]; then
			echo "== perf"
			while read -r l; do
				case "$l" in '#'* | '') ;; *) echo "$l" ;; esac
			done <"$tmp/perf.$idx"
			echo "== perf.stderr"; catf "$tmp/perf.err.$idx"
		fi
		echo "== counters.before.tx"; catf "$tmp/c0.tx"
		echo "== counters.after.tx"; catf "$tmp/c1.tx"
		echo "== counters.before.rx"; catf "$tmp/c0.rx"
		echo "== counters.after.rx"; catf "$tmp/c1.rx"
		# the per-skb counters of each side, and where they came from
		skbc_log
	} >"$log" 2>/dev/null
	rm -f "$tmp/perf.$idx" "$tmp/perf.err.$idx" "$tmp/pctl.$idx" "$tmp/pack.$idx" \
		"$tmp/rx.$idx.json" "$tmp/rx.$idx.err"
	[ "$rc_tx" -eq 0 ] && [ "$rc_rx" -eq 0 ]
}
