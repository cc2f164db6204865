# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: what udpgro.sh and udpgro_fwd.sh share.  Source it after
# scripts/lib.sh.  Builds veth topologies in namespaces of our own, switches
# offloads with ethtool, counts packets with nftables (or iptables) and the
# veth counters, runs udpgso_bench_rx/tx and checks their JSON summaries
# together with those counts (lib.sh ug_jcheck).
#
# A case:   gro_case_begin NAME
#           ...topology, offloads, gro_watch, gro_rx...  (|| return: each
#           helper already recorded why it failed or what is missing)
#           gro_send KEY NS TX-ARGS...
#           gro_case_end CHECK...
# CHECK expressions see rx/tx summaries under their KEYs and the counter
# deltas under obs (obs.wire, obs.input ...).
#
# shellcheck shell=bash

GRO_TX=$UDPGSO_BIN/udpgso_bench_tx
GRO_RX=$UDPGSO_BIN/udpgso_bench_rx
GRO_TOOL_TIMEOUT=${GRO_TOOL_TIMEOUT:-20}

# ---- what this machine has ----------------------------------------------------
# gro_requirements: "" when the tests can run, else the reason to skip all
gro_requirements() {
	local why
	why=$(ug_need_root) || { echo "$why"; return; }
	why=$(ug_need_cmd ip ss python3 timeout) || { echo "$why"; return; }
	if ! ip netns add "ug$$-probe" 2>/dev/null; then
		echo "cannot create a network namespace"
		return
	fi
	ip netns del "ug$$-probe"
}

# the packet counter backend: nft, iptables or "" (none works here)
gro_counter_backend() {
	local ns="ug$$-cprobe" b=""
	ip netns add "$ns" 2>/dev/null || return
	if command -v nft >/dev/null 2>&1 &&
	   ip netns exec "$ns" nft add table inet ugprobe 2>/dev/null; then
		b=nft
	elif command -v iptables >/dev/null 2>&1 && command -v ip6tables >/dev/null 2>&1 &&
	     ip netns exec "$ns" iptables -t filter -L INPUT -n >/dev/null 2>&1 &&
	     ip netns exec "$ns" ip6tables -t filter -L INPUT -n >/dev/null 2>&1; then
		b=iptables
	fi
	ip netns del "$ns"
	echo "$b"
}

# ---- addresses ------------------------------------------------------------------
# gro_family 4|6: sets FAM (-4/-6, the sender's flag), RXF (the receiver's:
# -4 or nothing, as upstream's rx has no -6), V (ipv4/ipv6), the address plan
#   two-namespace topology:  tx A_TX  <-veth->  rx A_RX (+ A_RX2)
#   routed topology:          tx R_TX  <->  R_RT1 router R_RT2  <->  R_RX rx
#   vxlan overlay (on the two-namespace underlay):  O_TX  <->  O_RX (+ O_RX2)
gro_family() {
	if [ "$1" = 4 ]; then
		FAM=-4 RXF=(-4) V=ipv4 PLEN=24 OLEN=24
		A_TX=192.168.1.2 A_RX=192.168.1.1 A_RX2=192.168.1.3
		R_TX=192.168.1.2 R_RT1=192.168.1.1 R_RT2=192.168.2.1 R_RX=192.168.2.2
		O_TX=172.16.1.2 O_RX=172.16.1.1 O_RX2=172.16.1.100
		# the UDP payload of a full 1500-byte frame
		MSS=1472
	else
		FAM=-6 RXF=() V=ipv6 PLEN=64 OLEN=64
		A_TX=2001:db8::2 A_RX=2001:db8::1 A_RX2=2001:db8::3
		R_TX=2001:db8:1::2 R_RT1=2001:db8:1::1 R_RT2=2001:db8:2::1 R_RX=2001:db8:2::2
		O_TX=2001:db8:10::2 O_RX=2001:db8:10::1 O_RX2=2001:db8:10::100
		MSS=1452
	fi
}

# ---- cases --------------------------------------------------------------------
_gro_tmp=

gro_init() {		# call once, after ug_trap_install
	_gro_tmp=$(mktemp -d)
	defer rm -rf "$_gro_tmp"
	# UG_GRO_COUNTER=nft|iptables|none forces a backend (none: the cases
	# that count packets skip), else the first that works here
	GRO_CNT=${UG_GRO_COUNTER:-$(gro_counter_backend)}
	case "$GRO_CNT" in
	nft|iptables|"") ;;
	none) GRO_CNT="" ;;
	*) ug_die "UG_GRO_COUNTER '$GRO_CNT': allowed nft, iptables, none" ;;
	esac
}

gro_case_begin() {	# NAME
	_gro_name=$1 _gro_skip="" _gro_fail=""
	_gro_rx_keys=() _gro_rx_pids=() _gro_watch=()
	_gro_t0=$EPOCHREALTIME
	rm -f "$_gro_tmp"/*
	# the case's namespaces are deleted at its end (_gro_teardown)
	defer_scope_begin
}
# record why the case cannot run / has already failed; return 1 so that a
# case can say:  step || return
gro_skip() { [ -n "$_gro_skip" ] || _gro_skip=$1; return 1; }
gro_fail() { [ -n "$_gro_fail" ] || _gro_fail=$1; return 1; }

# gro_ns NAME...: fresh namespaces for this case (deleted at its end)
gro_ns() {
	local n ns
	for n in "$@"; do
		ns=$(ns_name "$n")
		ns_add "$n" || { gro_fail "cannot create namespace $ns"; return 1; }
		# no router solicitations, no DAD: nothing but our traffic
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.router_solicitations=0 \
			net.ipv6.conf.default.router_solicitations=0 \
			net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
			>/dev/null 2>&1
		# IPv4 cases: no IPv6 on the links at all (its MLD reports
		# would show in the link counts); IPv6 cases: MLD reports
		# at once, not spread over the first seconds
		if [ "${V:-}" = ipv4 ]; then
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
				net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
		else
			ip netns exec "$ns" sysctl -qw \
				net.ipv6.conf.all.mldv1_unsolicited_report_interval=0 \
				net.ipv6.conf.default.mldv1_unsolicited_report_interval=0 \
				net.ipv6.conf.all.mldv2_unsolicited_report_interval=0 \
				net.ipv6.conf.default.mldv2_unsolicited_report_interval=0 \
				>/dev/null 2>&1
		fi
	done
}
_gro_teardown() { defer_scope_end; }

# ---- links --------------------------------------------------------------------
_gro_mac() { ip netns exec "$(ns_name "$1")" cat "/sys/class/net/$2/address"; }

# gro_link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B [PREFIXLEN]
# A veth between two of our namespaces, no link-local addresses, both
# neighbours entered statically (no ARP/ND traffic in the counts).
gro_link() {
	local a=$1 da=$2 ia=$3 b=$4 db=$5 ib=$6 len=${7:-$PLEN} nodad=""
	case "$ia" in *:*) nodad=nodad ;; esac
	ip link add "$da" netns "$(ns_name "$a")" type veth \
		peer name "$db" netns "$(ns_name "$b")" ||
		{ gro_skip "cannot create a veth pair"; return 1; }
	ip -n "$(ns_name "$a")" link set "$da" addrgenmode none 2>/dev/null
	ip -n "$(ns_name "$b")" link set "$db" addrgenmode none 2>/dev/null
	# shellcheck disable=SC2086
	ip -n "$(ns_name "$a")" addr add "$ia/$len" dev "$da" $nodad &&
	ip -n "$(ns_name "$b")" addr add "$ib/$len" dev "$db" $nodad &&
	ip -n "$(ns_name "$a")" link set "$da" up &&
	ip -n "$(ns_name "$b")" link set "$db" up &&
	gro_neigh "$a" "$da" "$ib" "$b" "$db" &&
	gro_neigh "$b" "$db" "$ia" "$a" "$da" ||
		{ gro_fail "configuring $da/$db failed"; return 1; }
}
# gro_neigh NS DEV ADDR PEER_NS PEER_DEV: permanent neighbour entry
gro_neigh() {
	ip -n "$(ns_name "$1")" neigh replace "$3" lladdr "$(_gro_mac "$4" "$5")" \
		dev "$2" nud permanent
}
gro_addr() {		# NS DEV ADDR [PREFIXLEN]: one more address
	local nodad=""
	case "$3" in *:*) nodad=nodad ;; esac
	# shellcheck disable=SC2086
	ip -n "$(ns_name "$1")" addr add "$3/${4:-$PLEN}" dev "$2" $nodad ||
		gro_fail "adding $3 to $2 failed"
}
gro_route() {		# NS VIA: default route of the family of VIA
	ip -n "$(ns_name "$1")" route add default via "$2" ||
		gro_fail "default route via $2 failed"
}
gro_forwarding() {	# NS
	ip netns exec "$(ns_name "$1")" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 >/dev/null ||
		gro_fail "enabling forwarding failed"
}

# gro_offload NS DEV FEATURE on|off [FEATURE on|off ...]: ethtool -K, then
# read back; a feature ethtool or the driver does not have skips the case
gro_offload() {
	local ns=$1 dev=$2 f v long state all
	shift 2
	command -v ethtool >/dev/null 2>&1 || { gro_skip "needs ethtool"; return 1; }
	ip netns exec "$(ns_name "$ns")" ethtool -K "$dev" "$@" >/dev/null 2>&1
	all=$(ip netns exec "$(ns_name "$ns")" ethtool -k "$dev" 2>/dev/null)
	while [ $# -ge 2 ]; do
		f=$1 v=$2
		shift 2
		case "$f" in
		gro) long=generic-receive-offload ;;
		tso) long=tcp-segmentation-offload ;;
		gso) long=generic-segmentation-offload ;;
		*) long=$f ;;
		esac
		state=$(sed -n "s/^[[:space:]]*$long: \([a-z]*\).*/\1/p" <<<"$all")
		if [ -z "$state" ]; then
			gro_skip "$dev has no $long feature here"
			return 1
		fi
		if [ "$state" != "$v" ]; then
			gro_skip "ethtool -K $dev $f $v did not take ($long: $state)"
			return 1
		fi
	done
}
# the sender's side of a GRO case: no TSO (else veth bypasses its NAPI and so
# GRO) and no UDP segmentation offload (so the GSO skb is segmented before
# the veth: N packets cross the wire, not one GSO skb)
gro_sender_segments() {	# NS DEV
	gro_offload "$1" "$2" tso off tx-udp-segmentation off
}

# ---- counters -----------------------------------------------------------------
# gro_count NS HOOK PORT [PROTO]: count UDP (or PROTO) packets to PORT in
# the input or forward hook of NS (both families); needs GRO_CNT (nft or
# iptables)
gro_count() {
	local ns hook=$2 port=$3 proto=${4:-udp} chain
	ns=$(ns_name "$1")
	case "$GRO_CNT" in
	nft)
		ip netns exec "$ns" nft -f - <<-EOF || { gro_fail "nft rule failed"; return 1; }
			table inet ugcnt {
				counter c_${hook}_${proto}_$port { }
				chain $hook {
					type filter hook $hook priority 0; policy accept;
					$proto dport $port counter name c_${hook}_${proto}_$port
				}
			}
		EOF
		;;
	iptables)
		chain=$(echo "$hook" | tr '[:lower:]' '[:upper:]')
		ip netns exec "$ns" iptables -A "$chain" -p "$proto" --dport "$port" &&
		ip netns exec "$ns" ip6tables -A "$chain" -p "$proto" --dport "$port" ||
			{ gro_fail "iptables rule failed"; return 1; }
		;;
	*)
		gro_skip "needs nft or iptables to count packets"
		return 1
		;;
	esac
}
_gro_count_get() {	# NS HOOK PORT [PROTO]
	local ns chain proto=${4:-udp}
	ns=$(ns_name "$1")
	case "$GRO_CNT" in
	nft)
		ip netns exec "$ns" nft list counter inet ugcnt "c_$2_${proto}_$3" |
			sed -n 's/.*packets \([0-9]*\).*/\1/p'
		;;
	iptables)
		chain=$(echo "$2" | tr '[:lower:]' '[:upper:]')
		{
			ip netns exec "$ns" iptables -nvxL "$chain"
			ip netns exec "$ns" ip6tables -nvxL "$chain"
		} | awk -v p="dpt:$3" -v t=" $proto " \
			'index($0, t) && $0 ~ p"( |$)" { s += $1 } END { print s + 0 }'
		;;
	esac
}
_gro_link_get() {	# NS DEV rx|tx: packets the device counted
	ip netns exec "$(ns_name "$1")" cat "/sys/class/net/$2/statistics/$3_packets"
}

# gro_watch KEY cnt NS HOOK PORT [PROTO]  |  gro_watch KEY link NS DEV rx|tx
# a counter whose change over gro_send/gro_case_end shows up as obs.KEY
gro_watch() {
	local key=$1 kind=$2
	shift 2
	if [ "$kind" = cnt ]; then
		gro_count "$@" || return 1
	fi
	_gro_watch+=("$key $kind $*")
}
_gro_snap() {		# FILE
	local w key kind a b c d
	: >"$1"
	for w in "${_gro_watch[@]}"; do
		read -r key kind a b c d <<<"$w"
		if [ "$kind" = cnt ]; then
			echo "$key $(_gro_count_get "$a" "$b" "$c" "$d")" >>"$1"
		else
			echo "$key $(_gro_link_get "$a" "$b" "$c")" >>"$1"
		fi
	done
}
# the rx and tx packet counters of the watched links, on one line
_gro_link_counts() {
	local w key kind a b c
	for w in "${_gro_watch[@]}"; do
		read -r key kind a b c <<<"$w"
		[ "$kind" = link ] && _gro_link_get "$a" "$b" rx
		[ "$kind" = link ] && _gro_link_get "$a" "$b" tx
	done | tr '\n' ' '
}
# IPv6: wait until the watched link counters stop moving (MLD reports after
# an address is added), 200 ms quiet or 3 s at most
gro_settle() {
	# IPv4 cases run without IPv6 on the links: nothing to wait for
	[ "${V:-}" = ipv4 ] && return 0
	ug_wait_still 2 30 _gro_link_counts || true
}

# ---- address translation --------------------------------------------------------
# gro_dnat NS FROM TO: prerouting DNAT of packets to FROM onto TO
gro_dnat() {
	local ns fam=ip cmd=iptables
	ns=$(ns_name "$1")
	case "$2" in *:*) fam=ip6 cmd=ip6tables ;; esac
	case "$GRO_CNT" in
	nft)
		ip netns exec "$ns" nft -f - <<-EOF || { gro_fail "nft dnat failed"; return 1; }
			table $fam ugnat {
				chain pre {
					type nat hook prerouting priority -100; policy accept;
					$fam daddr $2 dnat to $3
				}
			}
		EOF
		;;
	iptables)
		ip netns exec "$ns" "$cmd" -t nat -I PREROUTING -d "$2" \
			-j DNAT --to-destination "$3" ||
			{ gro_skip "$cmd nat table not available"; return 1; }
		;;
	*)
		gro_skip "needs nft or iptables for DNAT"
		return 1
		;;
	esac
}

# ---- the tools ------------------------------------------------------------------
# gro_rx KEY NS PORT [ARGS...]: start a receiver in the background; its JSON
# summary becomes KEY in the checks.  Waits until its socket is bound.
gro_rx() {
	local key=$1 ns=$2 port=$3 proto=-u rc=0
	shift 3
	case " $* " in *" -t "*) proto=-t ;; esac
	echo "$GRO_RX -p $port $* --json" >"$_gro_tmp/$key.cmd"
	ug_rx_start "$ns" "$proto" "$port" "$_gro_tmp/$key.json" "$_gro_tmp/$key.err" \
		timeout -k 5 "$GRO_TOOL_TIMEOUT" "$GRO_RX" -p "$port" "$@" --json || rc=1
	_gro_rx_keys+=("$key")
	_gro_rx_pids+=("$UG_RX_PID")
	[ "$rc" -eq 0 ] || gro_fail "$key did not bind port $port"
}
# gro_rx_wait KEY: wait for one receiver to finish
gro_rx_wait() {
	local i
	for i in "${!_gro_rx_keys[@]}"; do
		if [ "${_gro_rx_keys[$i]}" = "$1" ] && [ -n "${_gro_rx_pids[$i]}" ]; then
			ug_rx_end "" "${_gro_rx_pids[$i]}"
			echo "$?" >"$_gro_tmp/$1.rc"
			_gro_rx_pids[$i]=""
		fi
	done
	return 0
}
# gro_rx_stop KEY: end a receiver that expects nothing (SIGINT: it prints
# its summary and exits 0 unless something was wrong)
gro_rx_stop() {
	local i
	for i in "${!_gro_rx_keys[@]}"; do
		if [ "${_gro_rx_keys[$i]}" = "$1" ] && [ -n "${_gro_rx_pids[$i]}" ]; then
			kill -INT "${_gro_rx_pids[$i]}" 2>/dev/null
		fi
	done
	return 0
}

# gro_send KEY NS [ARGS...]: run a sender (after a snapshot of the watched
# counters); its summary becomes KEY in the checks
gro_send() {
	local key=$1 ns=$2 rc
	shift 2
	[ -f "$_gro_tmp/before" ] || { gro_settle; _gro_snap "$_gro_tmp/before"; }
	echo "$GRO_TX $* --json" >"$_gro_tmp/$key.cmd"
	ug_tx_run "$ns" "$_gro_tmp/$key.json" "$_gro_tmp/$key.err" \
		timeout -k 5 "$GRO_TOOL_TIMEOUT" "$GRO_TX" "$@" --json
	rc=$?
	echo "$rc" >"$_gro_tmp/$key.rc"
	return "$rc"
}

# gro_case_end CHECK...: wait for the receivers, take the counter deltas,
# check everything, print one KTAP line, tear the namespaces down
gro_case_end() {
	local i f key rc ok=1 t
	for i in "${!_gro_rx_keys[@]}"; do
		gro_rx_wait "${_gro_rx_keys[$i]}"
	done
	if [ -f "$_gro_tmp/before" ]; then
		_gro_snap "$_gro_tmp/after"
	fi
	t=$(awk -v a="$_gro_t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if [ -n "$_gro_skip" ]; then
		_gro_teardown
		ktap_skip "$_gro_name" "$_gro_skip"
		return
	fi
	for f in "$_gro_tmp"/*.rc; do
		[ -f "$f" ] || continue
		key=$(basename "$f" .rc)
		rc=$(cat "$f")
		if [ "$rc" -eq 4 ]; then
			_gro_teardown
			ktap_skip "$_gro_name" \
				"$key: $(grep -h SKIP "$_gro_tmp/$key.err" | tail -n1)"
			return
		fi
		if [ "$rc" -ne 0 ]; then
			ok=0
			echo "# $key exit $rc: $(cat "$_gro_tmp/$key.cmd")"
			grep -v ' MB/s' "$_gro_tmp/$key.err" | tail -n3 | sed "s/^/# $key: /"
		fi
	done
	if [ -n "$_gro_fail" ]; then
		ok=0
		echo "# $_gro_fail"
	fi
	_gro_merge >"$_gro_tmp/all.json"
	if [ "$#" -gt 0 ]; then
		ug_jcheck "$_gro_tmp/all.json" "$@" || ok=0
	fi
	echo "# $_gro_name: ${t}s $_gro_digest"
	if [ "$ok" -eq 1 ]; then
		ktap_ok "$_gro_name"
	else
		ktap_fail "$_gro_name"
	fi
	_gro_teardown
}

# one JSON object of everything for the checks: the counter deltas under
# obs, each KEY.json under KEY (an empty one as {}); sets _gro_digest, a
# one-line summary for the log (counters, then each receiver's
# datagrams/reads/gro_reads).  Plain shell: a python start per case costs
# seconds on a loaded machine.
_gro_merge() {
	local key b a f j sep="" v
	_gro_digest=""
	printf '{"obs":{'
	if [ -f "$_gro_tmp/after" ]; then
		while read -r key a; do
			b=$(sed -n "s/^$key \([0-9][0-9]*\)$/\1/p" "$_gro_tmp/before")
			case "$a$b" in ''|*[!0-9]*) continue ;; esac
			printf '%s"%s":%d' "$sep" "$key" $((a - b))
			sep=,
			_gro_digest+="$key=$((a - b)) "
		done <"$_gro_tmp/after"
	fi
	printf '}'
	for f in "$_gro_tmp"/*.json; do
		[ -f "$f" ] || continue
		key=$(basename "$f" .json)
		[ "$key" = all ] && continue
		j=$(cat "$f")
		printf ',"%s":%s' "$key" "${j:-{\}}"
		case "$j" in
		*'"tool":"udpgso_bench_rx"'*)
			v=""
			for a in datagrams reads gro_reads; do
				v+=/$(echo "$j" | grep -o "\"$a\":[0-9]*" | head -n1 | cut -d: -f2)
			done
			_gro_digest+="$key:${v#/} "
			;;
		esac
	done
	printf '}\n'
}

# ---- checks -------------------------------------------------------------------------
# a case adds Python expressions over the merged summaries (see gro_case_end)
expect() { _checks+=("$@"); }
# a one-second flood from tx to rx: data flowed, every byte right, nothing
# duplicated or reordered.  A flood may meet backpressure (ENOBUFS, EAGAIN)
# or a receiver that already stopped (ECONNREFUSED): counted and retried,
# not errors here
flood_ok() {
	expect "tx.errors == (tx.error_detail.enobufs + tx.error_detail.eagain +
		tx.error_detail.econnrefused)" \
		"rx.datagrams > 0" "rx.datagrams <= tx.datagrams" \
		"rx.verify_errors == 0" "rx.seq.dup == 0" "rx.seq.reorder == 0"
}
# the sender KEY (default tx) sent DATAGRAMS without errors
sent_ok() { expect "${2:-tx}.datagrams == $1" "${2:-tx}.errors == 0"; }
# receiver KEY got DATAGRAMS, every payload byte and sequence stamp right
rx_ok() {		# KEY DATAGRAMS
	expect "$1.datagrams == $2" "$1.verify_errors == 0" "$1.seq.loss == 0" \
		"$1.seq.dup == 0" "$1.seq.reorder == 0"
}
# link counter KEY saw N packets one by one (a little IPv6 noise allowed)
n_on() { expect "obs.$1 >= $2" "obs.$1 <= $2 + 3"; }
# link counter KEY saw one skb (an aggregate, or a GSO skb crossing whole)
one_on() { expect "obs.$1 >= 1" "obs.$1 <= 4"; }

# ---- main ---------------------------------------------------------------------------
# gro_main "$@": the command line shared by the GRO scripts, then every case
# of $CASES (functions case_NAME) for each family.
#   -4 / -6   one family only      -t CASE   one case      -l   list the cases
gro_main() {
	local families="4 6" only="" all c f why t
	all=$(echo $CASES)
	while [ $# -gt 0 ]; do
		case "$1" in
		-4) families=4 ;;
		-6) families=6 ;;
		-t)
			[ $# -ge 2 ] || ug_die "-t needs a case name (-l lists them)"
			case " $all " in
			*" $2 "*) only=$2 ;;
			*) ug_die "-t '$2': unknown case, allowed: $all" ;;
			esac
			shift
			;;
		-l) for c in $all; do echo "$c"; done; exit 0 ;;
		-h | --help) ug_help; exit 0 ;;
		*) ug_die "unknown argument '$1', allowed: -4 -6 -t CASE -l -h" ;;
		esac
		shift
	done
	ktap_header
	if why=$(gro_requirements) && [ -n "$why" ]; then
		ktap_skip "${ug_prog%.sh}" "$why"
		ktap_finish
	fi
	ug_need_built "$GRO_TX" "$GRO_RX"
	ug_trap_install
	gro_init
	ktap_info "counters: ${GRO_CNT:-none}; kernel $(uname -r)"
	for f in $families; do
		gro_family "$f"
		for c in $all; do
			[ -z "$only" ] || [ "$only" = "$c" ] || continue
			gro_case_begin "$V $c"
			_checks=()
			"case_$c"
			gro_case_end "${_checks[@]}"
		done
	done
	ktap_finish
}
