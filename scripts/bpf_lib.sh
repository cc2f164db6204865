# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the traffic of the BPF counter tests (bpf_test.sh on the host,
# scripts/vm/bpf_guest.sh in a guest next to the module), and the workloads
# of the overhead benchmarks (scripts/bench/bpf_bench.sh, bpf_toggle.sh).
# Source it after lib.sh; it needs TX, RX, STATS (the tools), and for the
# tests M sends of K segments of S bytes.
#
# shellcheck shell=bash

# device names of our veth pair: unique, since a dev filter matches by name
# in every namespace
BL_DA=uga$$ BL_DB=ugb$$

# a0 (ns a, 10.71.0.1) <-> b0 (ns b, 10.71.0.2), static neighbours: no ARP
bl_veth() {
	ns_add a && ns_add b && veth_pair a "$BL_DA" b "$BL_DB" || return 1
	ns_exec a ip addr add 10.71.0.1/24 dev "$BL_DA"
	ns_exec b ip addr add 10.71.0.2/24 dev "$BL_DB"
	ns_exec a ip neigh replace 10.71.0.2 dev "$BL_DA" lladdr \
		"$(ns_exec b cat "/sys/class/net/$BL_DB/address")" nud permanent
	ns_exec b ip neigh replace 10.71.0.1 dev "$BL_DB" lladdr \
		"$(ns_exec a cat "/sys/class/net/$BL_DA/address")" nud permanent
}
# a VLAN (id 5) over the veth pair: 10.72.0.1 (ns a) <-> 10.72.0.2 (ns b);
# returns 2 when the kernel has no VLAN support
BL_VA=uva$$ BL_VB=uvb$$
bl_vlan() {
	bl_veth || return 1
	# 2: the kernel has no VLAN support (8021q)
	ns_exec a ip link add link "$BL_DA" name "$BL_VA" type vlan id 5 2>/dev/null || return 2
	ns_exec b ip link add link "$BL_DB" name "$BL_VB" type vlan id 5 || return 1
	ns_exec a ip addr add 10.72.0.1/24 dev "$BL_VA"
	ns_exec b ip addr add 10.72.0.2/24 dev "$BL_VB"
	ns_exec a ip link set "$BL_VA" up
	ns_exec b ip link set "$BL_VB" up
	ns_exec a ip neigh replace 10.72.0.2 dev "$BL_VA" lladdr \
		"$(ns_exec b cat "/sys/class/net/$BL_VB/address")" nud permanent
	ns_exec b ip neigh replace 10.72.0.1 dev "$BL_VB" lladdr \
		"$(ns_exec a cat "/sys/class/net/$BL_VA/address")" nud permanent
}
bl_down() {
	local n
	for n in a b l; do ip netns del "$(ns_name $n)" 2>/dev/null; done
	return 0
}
bl_port() { echo $((RANDOM % 20000 + 20000)); }

# wait up to 30 s for a UDP port (a guest under TCG may be slow)
bl_wait_port() { ug_wait_port -u "$1" "$2" "" 30; }	# NS PORT

# bl_snmp NS FAMILY: the netns's UDP MIB, one 'Name value' line each: the
# Udp group of /proc/net/snmp (-4) or the Udp6 one of /proc/net/snmp6 (-6),
# names without the Udp6 prefix (InDatagrams, OutDatagrams, RcvbufErrors...)
bl_snmp() {
	if [ "$2" = -6 ]; then
		ns_exec "$1" sed -n 's/^Udp6\([A-Za-z]*\)[[:blank:]]*\([0-9]*\)$/\1 \2/p' /proc/net/snmp6
	else
		ns_exec "$1" awk '$1 == "Udp:" { if (h == "") { h = $0; next }
			n = split(h, k); for (i = 2; i <= n; i++) print k[i], $i; exit }' /proc/net/snmp
	fi
}
# bl_rxq_empty NS PORT FAMILY: wait up to BL_RXQ_SECS (default 10) s until
# the socket bound to PORT has nothing left in its receive queue (the
# receiver read everything); a TCG guest under a loaded host needs longer
bl_rxq_empty() {
	local f=/proc/net/udp w q
	[ "$3" = -6 ] && f=/proc/net/udp6
	for w in $(seq $((${BL_RXQ_SECS:-10} * 10))); do
		q=$(ns_exec "$1" awk -v p="$(printf '%04X' "$2")" \
			'split($2, a, ":") == 2 && a[2] == p { split($5, b, ":"); print b[2]; exit }' "$f")
		[ "$q" = 00000000 ] && return 0
		sleep 0.1
	done
	return 1
}

# bl_run OUT NS_TX NS_RX DST PORT FAMILY RXFLAGS [STATS-OPTIONS...]:
# a receiver in NS_RX (living BL_RX_SECS, default 120 s), then `udpgso_stats run STATS-OPTIONS -- (M GSO sends
# of K segments from NS_TX; 0.5 s for the receive side)` into OUT.
# Returns 1 (reason in OUT.err) when the receiver or the sender failed,
# the tool's status otherwise (4: no BPF).
# BL_SNMP=1: also the UDP MIB of NS_TX and NS_RX before and after (bl_snmp
# into OUT.snmp.{tx,rx}{0,1}), the sender's and the receiver's --json
# (OUT.tx.json, OUT.rx.json), the receiver stopped (SIGTERM) only once its
# queue is empty, so every datagram it was given was read (or dropped)
bl_run() {
	local out=$1 nstx=$2 nsrx=$3 dst=$4 port=$5 fam=$6 rxflags=$7 rc
	local rxout=/dev/null txout=/dev/null txjson=
	shift 7
	: >"$out.err"
	if [ -n "${BL_SNMP:-}" ]; then
		rxout=$out.rx.json txout=$out.tx.json txjson=--json
		rxflags+=" --json"
	fi
	# shellcheck disable=SC2086
	if ! UG_PORT_SECS=30 ug_rx_start "$nsrx" -u "$port" "$rxout" /dev/null \
		timeout "${BL_RX_SECS:-120}" "$RX" "$fam" -p "$port" $rxflags; then
		echo "receiver did not bind port $port" >>"$out.err"
		return 1
	fi
	if [ -n "${BL_SNMP:-}" ]; then
		bl_snmp "$nstx" "$fam" >"$out.snmp.tx0"
		bl_snmp "$nsrx" "$fam" >"$out.snmp.rx0"
	fi
	# (${10} empty: no --json; the sh -c drops it.)  The sender's stderr goes
	# to OUT.txerr: its once-a-second rate lines (a slow guest) are no error
	local -a traffic=(sh -c 'ip netns exec "$1" timeout 60 "$2" "$3" -D "$4" -p "$5" \
		-s "$6" -S "$7" -M "$8" ${10} >"$9" 2>"${11}" && sleep 0.5' sh \
		"$(ns_name "$nstx")" "$TX" "$fam" "$dst" "$port" $((K * S)) "$S" "$M" \
		"$txout" "$txjson" "$out.txerr")
	# BL_INNER_OUT=FILE: a second udpgso_stats inside the first, with the
	# derived counters (UDPGSO_STATS_NO_FEXIT), over the same traffic
	if [ -n "${BL_INNER_OUT:-}" ]; then
		traffic=(sh -c 'o=$1; shift; UDPGSO_STATS_NO_FEXIT=1 exec "$@" >"$o"' sh \
			"$BL_INNER_OUT" "$STATS" run "$@" -- "${traffic[@]}")
	fi
	# BL_STATS_NS=NS: the tool runs in that namespace (a dev filter's)
	if [ -n "${BL_STATS_NS:-}" ]; then
		ns_exec "$BL_STATS_NS" "$STATS" run "$@" -- "${traffic[@]}" >"$out" 2>>"$out.err"
	else
		"$STATS" run "$@" -- "${traffic[@]}" >"$out" 2>>"$out.err"
	fi
	rc=$?
	grep -Ev '^(udp|tcp) tx: +[0-9]+ MB/s' "$out.txerr" >>"$out.err"
	if [ -n "${BL_SNMP:-}" ] && ! bl_rxq_empty "$nsrx" "$port" "$fam"; then
		echo "the receiver left datagrams unread on port $port after ${BL_RXQ_SECS:-10} s" >>"$out.err"
	fi
	ug_rx_end TERM 2>/dev/null
	if [ -n "${BL_SNMP:-}" ]; then
		bl_snmp "$nstx" "$fam" >"$out.snmp.tx1"
		bl_snmp "$nsrx" "$fam" >"$out.snmp.rx1"
	fi
	return $rc
}

# bl_load FILE ARRAY: the 'name value' lines of FILE into an associative array
bl_load() {
	local -n _a=$2
	local n v
	_a=()
	while read -r n v; do
		case "$n" in '#'* | '' | histogram) continue ;; esac
		_a[$n]=$v
	done <"$1"
}

# ---- the overhead benchmarks (scripts/bench/bpf_bench.sh, bpf_toggle.sh) ----
# bl_bench_workloads LIST: the comma-separated workloads into the array
# bl_wl, or one line naming the unknown one and exit 1
bl_bench_workloads() {
	local w
	bl_wl=()
	IFS=, read -r -a bl_wl <<<"$1"
	[ ${#bl_wl[@]} -gt 0 ] ||
		ug_die "--workloads '$1': allowed a comma-separated list of gso-gro, gso-gro-small, sendto"
	for w in "${bl_wl[@]}"; do
		case "$w" in
		gso-gro | gso-gro-small | sendto) ;;
		*) ug_die "--workloads: '$w' unknown, allowed gso-gro, gso-gro-small, sendto" ;;
		esac
	done
}
# bl_bench_tx_args WORKLOAD: its udpgso_bench_tx arguments (the receiver
# of the gso-gro ones is a UDP_GRO socket)
bl_bench_tx_args() {
	case "$1" in
	gso-gro) echo "-S 0" ;;		# upstream's default send: 61824 B, 42 x 1472
	gso-gro-small) echo "-s 14000 -S 1400" ;;
	sendto) echo "-s 1400" ;;
	esac
}
# bl_bench_summary PY DIR: scripts/bench/PY's summary of DIR/raw.log, printed
# and in DIR/summary.txt; bl_bench_resummarize PY DIR: the same for
# --summarize DIR (exit 1 without a raw.log there)
bl_bench_summary() {
	python3 "$UG_TOP/scripts/bench/$1" "$2/raw.log" | tee "$2/summary.txt"
}
bl_bench_resummarize() {
	[ -r "$2/raw.log" ] || ug_die "--summarize '$2': no raw.log there"
	bl_bench_summary "$1" "$2"
}
# bl_bench_tools [PATH...]: the tools (udpgso_bench_tx, _rx, udpgso_stats
# as TX, RX, STATS) and PATHs are there, else exit 1
bl_bench_tools() {
	local b
	TX=$UDPGSO_BIN/udpgso_bench_tx RX=$UDPGSO_BIN/udpgso_bench_rx
	for b in "$TX" "$RX" "$STATS" "$@"; do
		[ -x "$b" ] || ug_die "no $b (make; make -C bpf)"
	done
}
# bl_tracing_progs: how many tracing BPF programs are attached now (another
# tool's disturb a benchmark); "?" without bpftool
bl_tracing_progs() {
	if command -v bpftool >/dev/null; then
		bpftool prog show 2>/dev/null | grep -c ': tracing '
	else
		echo "?"
	fi
}
