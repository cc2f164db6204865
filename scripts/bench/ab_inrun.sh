# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the in-run A/B of scripts/bench/udpgso_ab.sh (sourced by it;
# functions only; they use its settings and state).  For settings that
# take effect at once (ethtool -K on either side), A and B are switched
# inside one long-running tx and rx process pair: a "run" of a tx/rx pair
# is one sender and one receiver, alternating A and B in windows (A B B A,
# or B A A B on the next run), each after a settle time that was measured.
# Runs are separated in time (a round runs every pending pair once) and are
# the unit of the interval (ab_inrun.py): the windows of one run share its
# machine state and are never taken as independent replicates.
#
# Raw log per run, raw/inrun/PAIR-RUN.log, one line each:
#   run run_id=R tx_mode=T rx_mode=X family=4|6 order=A,B,B,A window_ms=W settle_ms=S ...
#   s T BYTES PKTS TX_NS TX_WAIT RX_NS RX_WAIT UDP_IN UDP_RCVBUFERR CPU-LINE
#       a sample (every 100 ms; BYTES/PKTS: the receiving device's rx
#       counters in the receiver's netns, TX_NS/RX_NS: the tools' CPU time
#       and *_WAIT their run-queue wait from /proc/PID/task/*/schedstat,
#       UDP_*: Udp MIB of the receiver's netns (Udp6 in /proc/net/snmp6 for
#       IPv6), then /proc/stat's cpu line)
#   switch T SETTING         the setting applied (ethtool -K returned at T)
#   win_start T N SETTING    a window's edges: samples are taken there too
#   win_end T N SETTING
#   calib T SETTING          a settle calibration after a switch (samples only)
#   ctr T EDGE N NAME VALUE SIDE  per-skb counters at window edges, SIDE tx or
#       rx (ab_skbc.sh: each side its own device), or no SIDE when one
#       kernel's module is read once for both
#   skbc_source SIDE SRC...  where a side's counters came from (kmod, bpf MODE dev DEV)
# shellcheck shell=bash

method=auto ir_window=200 ir_pairs_per_run=2	# the options' defaults
IR_SAMPLE=0.1		# seconds between samples
IR_CALIB_S=6		# tenths of a second observed after a calibration switch
IR_SETTLE_MAX=500	# ms: a longer measured settle is capped (and said so)
declare -A ir_settle	# "tx rx" -> settle in ms, measured in the pair's first run
declare -A ir_runs	# "tx rx" -> runs done
ir_txpid= ir_rxpid= ir_fam=4

# ab_method_pick: after the options, before anything changes.  auto picks
# slices, with at least 6 pairs per tx/rx pair unless -n says otherwise (what
# make compare's headline family needs): in the same budget of about 20 s a
# pair, 1 s slices gave narrower intervals than in-run windows on a quiet
# machine and no wider ones under load (docs/ab.md, results/ab-2026-11-25b);
# inrun (the local veth pair only) when asked
ab_method_pick() {
	if [ "$method" = auto ]; then
		method=slices
		[ "$reps_given" = 1 ] || [ "$ci" = off ] || reps=6
	fi
	[ "$method" = inrun ] || return 0
	[ ${#settings[@]} = 2 ] ||
		ug_die "--method inrun: needs two settings A and B (allowed with one: slices, auto)"
	[ -z "${NETIF:-}" ] ||
		ug_die "--method inrun: the local veth pair only (NETIF=$NETIF is set);" \
			"allowed with NETIF: slices, auto"
	[ -z "$rate_pct" ] ||
		ug_die "--method inrun with --rate $rate: allowed a fixed rate (NUMBER[k|M|G][B])," \
			"or --method slices"
	[ "$reps_given" = 1 ] || reps=6
	[ "$reps" -ge 2 ] || [ "$ci" = off ] ||
		ug_die "-n $reps with --method inrun: allowed 2..50 (the minimum runs)"
	warmup=0
}

# ir_tasks_ns PID: the CPU time and the run-queue wait (ns) of every thread
# of PID (/proc/PID/task/*/schedstat), no fork
ir_tasks_ns() {
	local f v w sum=0 wsum=0
	for f in /proc/"$1"/task/*/schedstat; do
		read -r v w _ <"$f" 2>/dev/null || continue
		sum=$((sum + v)) wsum=$((wsum + w))
	done
	ir_ns=$sum ir_wait=$wsum
}

# ir_sample LOG: one sample line (no fork)
ir_sample() {
	local line b=0 p=0 txn rxn in=0 rbe=0 hdr=0 st t
	local -a f
	while read -r line; do
		case "$line" in
		"$dev_rx:"*) t=$EPOCHREALTIME; read -r b p _ <<<"${line#*:}"; break ;;
		esac
	done <"/proc/$ir_rxpid/net/dev"
	# the time is the byte counter's (read with it), not the line's: the
	# reads below may wait for the CPU, and at 200 ms a 10 ms lag is 5%
	t=${t:-$EPOCHREALTIME}
	if [ "$ir_fam" = 6 ]; then
		while read -r line; do
			case "$line" in
			"Udp6InDatagrams "*) in=${line##* } ;;
			"Udp6RcvbufErrors "*) rbe=${line##* }; break ;;
			esac
		done <"/proc/$ir_rxpid/net/snmp6"
	else
		while read -r line; do
			case "$line" in
			Udp:*)
				if [ "$hdr" = 0 ]; then hdr=1; continue; fi
				read -ra f <<<"$line"
				in=${f[1]} rbe=${f[5]}
				break ;;
			esac
		done <"/proc/$ir_rxpid/net/snmp"
	fi
	ir_tasks_ns "$ir_txpid"; txn="$ir_ns $ir_wait"
	ir_tasks_ns "$ir_rxpid"; rxn="$ir_ns $ir_wait"
	read -r st </proc/stat
	echo "s $t $b $p $txn $rxn $in $rbe $st" >>"$1"
}

# ir_observe LOG TENTHS: samples every 100 ms for TENTHS of a second
ir_observe() {
	local i
	for ((i = 0; i < $2; i++)); do
		nap "$IR_SAMPLE"
		ir_sample "$1"
	done
}

# ir_counters LOG EDGE: the per-skb counters of each side at a window edge
# (ab_skbc.sh: skbc_read tx / rx), a 'ctr' line per counter named by side
# (none: one kernel's module read once for both)
ir_counters() {
	local l t=$EPOCHREALTIME side sfx asked=
	# both BPF sides asked first, then both answers read: the two
	# servers answer at once instead of one after the other (a loaded
	# machine wakes each late); no pipeline, so no subshell per read
	if [ "$skbc_shared" != 1 ]; then
		for side in tx rx; do
			[ "${skbc_src[$side]:-none}" = bpf ] || continue
			printf 'counters\n' 2>/dev/null >&"${skbc_in[$side]}" && asked+=" $side"
		done
	fi
	for side in tx rx; do
		if [ "$skbc_shared" = 1 ]; then
			[ "$side" = tx ] || break
			sfx=
		else
			[ "${skbc_src[$side]:-none}" != none ] || continue
			sfx=" $side"
		fi
		if [[ "$asked" = *" $side"* ]]; then
			while IFS= read -r -t 10 -u "${skbc_out[$side]}" l; do
				[ "$l" = . ] && break
				case "$l" in '#'* | '') ;; *) echo "ctr $t $2 $l$sfx" ;; esac
			done >>"$1"
			continue
		fi
		while read -r l; do
			case "$l" in '#'* | '') ;; *) echo "ctr $t $2 $l$sfx" ;; esac
		done < <(skbc_read "$side") >>"$1"
	done
}

# ir_sources: the 'skbc_source' lines of the raw log (where each side's
# counters came from, as ab_skbc.sh's kmod.source.SIDE)
ir_sources() {
	local side
	if [ "$skbc_shared" = 1 ]; then
		echo "skbc_source shared kmod"
		return 0
	fi
	for side in tx rx; do
		case "${skbc_src[$side]:-none}" in
		bpf) echo "skbc_source $side bpf ${skbc_mode[$side]}" ;;
		kmod) echo "skbc_source $side kmod" ;;
		esac
	done
}

# ir_switch LOG SETTING: ethtool -K, and with --rate the setting's pacing
# (A at --rate-a % of it): both take effect at once
ir_switch() {
	local want pct
	apply_setting "$2" || { ug_err "ethtool -K for setting $2 failed"; return 1; }
	cur_set=$2
	if [ -n "$rate_Bps" ]; then
		want=$rate_Bps pct=100
		[ "$2" = A ] && want=$((want * rate_a / 100)) pct=$rate_a
		pace_set "$want" "$([ "$ir_txm" = tcp ] && echo tcp || echo udp)" "$pct" "$ir_fam" ||
			{ ug_err "tc qdisc replace dev $dev_tx root tbf failed"; return 1; }
		echo "pace $EPOCHREALTIME $2 $pace_line" >>"$1"
	fi
	echo "switch $EPOCHREALTIME $2 $cur_feats" >>"$1"
}

# ir_launch PORT TXM RXM SECS: the receiver, then the sender, in their
# namespaces ($! is the tool itself: ip netns exec execs it)
ir_launch() {
	local port=$1 txm=$2 rxm=$3 proto=-u txcmd rxcmd fam=$ir_fam
	[ "$txm" = tcp ] && proto=-t
	rxcmd="$RXR -$fam -p $port -C 30000 -R $idle_ms ${RXA[$rxm]}"
	[ -n "$rx_cpu" ] && rxcmd+=" --cpu $rx_cpu"
	[ -n "$rmem" ] && [ "$rxm" != tcp ] && rxcmd+=" --rcvbuf $rmem"
	# shellcheck disable=SC2086
	ip netns exec "$ns_rx" $rxcmd </dev/null >"$tmp/ir.rx" 2>&1 &
	ir_rxpid=$!
	wait_port "$proto" "$port" "$ir_rxpid" || return 1
	txcmd="$TX -$fam -D ${fam_dst[$fam]} -p $port -l $4 ${TXA[$txm/$fam]}"
	[ -n "$tx_cpu" ] && txcmd+=" -C $tx_cpu"
	[ -z "$wmem" ] || [ "$txm" = tcp ] || txcmd+=" --sndbuf $wmem"
	[ "$tx_threads" = 1 ] || txcmd+=" --threads $tx_threads"
	[ "$tx_sockets" = 1 ] || txcmd+=" --sockets $tx_sockets"
	# shellcheck disable=SC2086
	$LTX $txcmd </dev/null >"$tmp/ir.tx" 2>&1 &
	ir_txpid=$!
	ir_cmds="cmd_tx $txcmd"$'\n'"cmd_rx $rxcmd"
	# the processes whose /proc is read must be the tools themselves
	local p
	p=$(ir_check_pid "$ir_rxpid" udpgso_bench_rx) ||
		{ ug_err "in-run: pid $ir_rxpid is not the receiver"; return 1; }
	ir_rxpid=$p
	p=$(ir_check_pid "$ir_txpid" udpgso_bench_tx) ||
		{ ug_err "in-run: pid $ir_txpid is not the sender"; return 1; }
	ir_txpid=$p
	ir_cmds+=$'\n'"pids tx=$ir_txpid rx=$ir_rxpid"
}

# ir_check_pid PID NAME: PID is NAME (its comm), else the child of PID that
# is (ip netns exec should exec, but the pid that is read is checked, not
# assumed); prints the pid, 1 when neither is
# (polled for up to 2 s: a process just started may not have exec'd yet)
ir_check_pid() {
	local c p i
	for ((i = 0; i < 200; i++)); do
		read -r c <"/proc/$1/comm" 2>/dev/null || return 1
		if [ "$c" = "${2:0:15}" ]; then echo "$1"; return 0; fi
		for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
			read -r c <"/proc/$p/comm" 2>/dev/null || continue
			[ "$c" = "${2:0:15}" ] && { echo "$p"; return 0; }
		done
		nap 0.01
	done
	return 1
}

ir_stop() {
	[ -z "$ir_txpid" ] || { kill -INT "$ir_txpid" 2>/dev/null; wait "$ir_txpid" 2>/dev/null; }
	[ -z "$ir_rxpid" ] || { kill -INT "$ir_rxpid" 2>/dev/null; wait "$ir_rxpid" 2>/dev/null; }
	ir_txpid= ir_rxpid=
}

# ir_run PI RUN_ID FIRST(A|B): one run of pair PI
ir_run() {
	local pi=$1 rid=$2 first=$3 second txm rxm fam key log port settle w secs i s n=0
	local -a order
	read -r txm rxm fam <<<"${pairs[$pi]}"
	fam=${fam:-4}
	# this family's datagram size (IPv6: at most 1452 in 1500 bytes; pace_set reads it)
	local size=${fam_size[$fam]:-$size}
	key="$txm $rxm $fam" ir_txm=$txm ir_fam=$fam
	second=B
	[ "$first" = B ] && second=A
	order=("$first" "$second")
	for ((i = 1; i < ir_pairs_per_run; i++)); do
		if [ $((i % 2)) = 1 ]; then order+=("$second" "$first"); else order+=("$first" "$second"); fi
	done
	printf -v log '%s/raw/inrun/%02d-%03d.log' "$resdir" "$pi" "$rid"
	port=$((port_base + rid % 100))
	settle=${ir_settle[$key]:-}
	# the tool's -l: every window and settle, the calibration, a margin
	secs=$(((${#order[@]} * (ir_window + ${settle:-1000}) + 2 * IR_CALIB_S * 100 + 1500) / 1000 + 5))
	: >"$log.tmp"
	ir_switch "$log.tmp" "$first" || return 1
	if ! ir_launch "$port" "$txm" "$rxm" "$secs"; then
		ir_stop
		echo "# rx did not bind port $port" >>"$log.tmp"
		mv "$log.tmp" "$log"
		return 1
	fi
	# the sender's start-up: observed, never counted
	ir_observe "$log.tmp" 3
	if [ -z "$settle" ]; then
		# the pair's first run measures how long the rate takes to settle
		# after a switch, both ways (ab_inrun.py settle: the time until
		# every later 100 ms rate stays within the steady part's noise)
		for s in "$second" "$first"; do
			ir_switch "$log.tmp" "$s" || { ir_stop; return 1; }
			echo "calib $EPOCHREALTIME $s" >>"$log.tmp"
			ir_sample "$log.tmp"
			ir_observe "$log.tmp" "$IR_CALIB_S"
		done
		settle=$("$py_stats" "$AB_DIR/ab_inrun.py" settle "$log.tmp") || settle=$IR_SETTLE_MAX
		echo "settle_measured $EPOCHREALTIME $settle" >>"$log.tmp"
		[ "$settle" -le "$IR_SETTLE_MAX" ] || settle=$IR_SETTLE_MAX
		ir_settle[$key]=$settle
	fi
	for s in "${order[@]}"; do
		n=$((n + 1))
		# the settle time after a switch (and before the first window);
		# the second window of A B B A follows the first without one
		if [ "$s" != "$cur_set" ] || [ "$n" = 1 ]; then
			[ "$s" = "$cur_set" ] || ir_switch "$log.tmp" "$s" || { ir_stop; return 1; }
			ir_observe "$log.tmp" $(((settle + 99) / 100))
		fi
		w=$((ir_window / 100))
		ir_counters "$log.tmp" "start $n"
		ir_sample "$log.tmp"
		echo "win_start $EPOCHREALTIME $n $s" >>"$log.tmp"
		ir_observe "$log.tmp" "$w"
		echo "win_end $EPOCHREALTIME $n $s" >>"$log.tmp"
		ir_counters "$log.tmp" "end $n"
	done
	ir_stop
	{
		echo "run run_id=$rid pair=$pi tx_mode=$txm rx_mode=$rxm family=$fam" \
			"order=$(IFS=,; echo "${order[*]}")" \
			"window_ms=$ir_window settle_ms=$settle dev_rx=$dev_rx size=$size"
		echo "$ir_cmds"
		ir_sources
		cat "$log.tmp"
		echo "== tx.out"; catf "$tmp/ir.tx"
		echo "== rx.out"; catf "$tmp/ir.rx"
	} >"$log"
	rm -f "$log.tmp"
	ir_runs[$key]=$((${ir_runs[$key]:-0} + 1))
}

# ir_rounds: every pair one run per round, until each has the minimum runs;
# then ab_inrun.py --pending names the pairs to run next (those nearest
# their target first, while the budget lasts)
ir_rounds() {
	local round=0 el pi first todo_s k t
	local -a todo=("${!pairs[@]}")
	mkdir -p "$resdir/raw/inrun"
	while :; do
		round=$((round + 1))
		# the minimum rounds start one pair later each time, so that a
		# budget that ends inside a round does not always short the last
		# pairs (after them the order is ab_inrun.py's: nearest first)
		if [ "$round" -gt 1 ] && [ "$round" -le "$reps" ] && [ ${#todo[@]} -gt 1 ]; then
			k=1
			todo=("${todo[@]:k}" "${todo[@]:0:k}")
		fi
		for pi in "${todo[@]}"; do
			el=$((${EPOCHREALTIME%.*} - t_mat))
			[ "$el" -lt "$budget" ] || [ "$ci" = off ] || break
			first=A
			[ $(((round + pi) % 2)) = 0 ] && first=B
			n_runs=$((n_runs + 1))
			read -r t k <<<"${pairs[$pi]}"
			printf '%s: in-run %-12s -> %-10s run %d (round %d)  elapsed %d:%02d  budget %d s\n' \
				"$ug_prog" "$t" "$k" "$n_runs" "$round" \
				$((el / 60)) $((el % 60)) "$budget" >&2
			ir_run "$pi" "$n_runs" "$first" || failed=$((failed + 1))
		done
		el=$((${EPOCHREALTIME%.*} - t_mat))
		if [ "$ci" = off ]; then
			[ "$round" -lt "$reps" ] && continue
			stop_why="fixed runs (-n $reps)"; break
		fi
		if [ "$el" -ge "$budget" ]; then stop_why="budget (${budget} s)"; break; fi
		[ "$round" -lt "$reps" ] && continue
		if ! todo_s=$("$py_stats" "$AB_DIR/ab_inrun.py" pending "$resdir" --elapsed "$el"); then
			ug_err "ab_inrun.py pending failed: stopping after round $round"
			stop_why="error (ab_inrun.py pending failed)"
			failed=$((failed + 1))
			break
		fi
		# (a pair stops at its own --max-reps runs: ab_inrun.py leaves it out)
		if [ -z "$todo_s" ]; then
			stop_why="target reached"
			for t in "${ir_runs[@]}"; do
				[ "$t" -lt "$max_reps" ] || stop_why="target reached or max-reps ($max_reps)"
			done
			break
		fi
		todo=()
		for t in $todo_s; do todo+=("$t"); done
		echo "$ug_prog: round $round done: next ${#todo[@]} pair(s): the nearest their target" >&2
	done
}
