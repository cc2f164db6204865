#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The udpgso_stats tests, run INSIDE a guest kernel that can load modules
# (kmod_test.sh boots the guests and runs this).  Root only; it loads and
# unloads the module and creates its own network namespaces.
#
#   scripts/vm/kmod_guest.sh --ko PATH [--out FILE] [--cycles N] [--cycle-secs S]
#                         [--only CASE,...]
# --cycles: load/unload cycles under traffic (default 100), given at most
# --cycle-secs seconds (default 180; fewer cycles in that time is a failure).
#
# One result line per case on stdout (and appended to FILE):
#   UGKMOD ok <kernel>: <case>: <counter=value expected value ...>
#   UGKMOD not ok <kernel>: <case>: <what differed>
#   UGKMOD skip <kernel>: <case>: <reason>
# Traffic: udpgso_bench_tx / udpgso_bench_rx from $UDPGSO_BIN.
set -u

. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog --ko PATH [--out FILE] [--cycles N] [--cycle-secs S] [--only CASE,...]" >&2
	exit 1
}

ko= out=/dev/null cycles=100 only= cycle_secs=180
while [ $# -gt 0 ]; do
	case "$1" in
	--ko) ko=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--cycles) cycles=${2:-}; shift 2 || usage ;;
	--cycle-secs) cycle_secs=${2:-}; shift 2 || usage ;;
	--only) only=${2:-}; shift 2 || usage ;;
	-h | --help) ug_help; exit 0 ;;
	*) usage ;;
	esac
done
[ -n "$ko" ] || usage
case "$cycles" in ''|*[!0-9]*) ug_die "--cycles '$cycles': allowed a non-negative integer" ;; esac
case "$cycle_secs" in ''|0|*[!0-9]*) ug_die "--cycle-secs '$cycle_secs': allowed a positive integer" ;; esac

D=/sys/kernel/debug/udpgso_stats
M=100		# GSO sends per case
K=10		# segments per send
S=1400		# gso_size
TX=$UDPGSO_BIN/udpgso_bench_tx
RX=$UDPGSO_BIN/udpgso_bench_rx

# the kernel's own version (Debian's uname -r says 6.1.0-N, uname -v the real one)
kver=$(uname -v | sed -n 's/.*Debian \([0-9][0-9.]*\).*/\1/p')
[ -n "$kver" ] || kver=$(uname -r | sed 's/[-+].*//')

emit() {		# ok|not ok|skip  TEXT
	echo "UGKMOD $1 $kver: $2" | tee -a "$out"
}

wanted() {		# CASE-ID: is it selected by --only?
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}

# ---- counters ----------------------------------------------------------------
declare -A CNT
snap() {
	local n v
	CNT=()
	while read -r n v; do CNT[$n]=$v; done < "$D/counters"
}

_c_name= _c_bad= _c_good=
case_begin() { _c_name=$1; _c_bad=; _c_good=; }
# chk NAME OP VALUE: OP is =, >= or <=; values from the last snap
chk() {
	local v=${CNT[$1]:-missing} ok=0
	case "$v" in *[!0-9]*) ok=1 ;; esac
	if [ $ok -eq 0 ]; then
		case "$2" in
		=) [ "$v" -eq "$3" ] || ok=1 ;;
		'>=') [ "$v" -ge "$3" ] || ok=1 ;;
		'<=') [ "$v" -le "$3" ] || ok=1 ;;
		esac
	fi
	local want=$3
	[ "$2" = "=" ] || want="$2$3"
	if [ $ok -eq 0 ]; then
		_c_good+="$1=$v expected $want, "
	else
		_c_bad+="$1=$v expected $want, "
	fi
}
# chk_val LABEL GOT OP WANT: a computed value
chk_val() {
	CNT[$1]=$2
	chk "$1" "$3" "$4"
}
case_fail() { _c_bad+="$*, "; }
case_end() {
	local miss
	# every kretprobe must have caught every call so far
	miss=$(grep -Eo '^kretprobe [^ ]+ attached err=0 missed=[1-9][0-9]*' "$D/hooks" 2>/dev/null |
		awk '{print $2 "=" $5}' | tr '\n' ' ')
	[ -z "$miss" ] || _c_bad+="kretprobe missed calls: $miss, "
	if [ -n "$_c_bad" ]; then
		emit "not ok" "$_c_name: ${_c_bad%, }"
		ktap_info "counters and histogram after '$_c_name':"
		sed 's/^/#   /' "$D/counters" "$D/histogram" 2>/dev/null
	else
		emit ok "$_c_name: ${_c_good%, }"
	fi
}

wr() {			# FILE VALUE: write to a debugfs file, errors to stdout
	local f=$1
	shift
	( echo "$*" > "$D/$f" ) 2>&1
}

reset_filter() {	# port N | dev NAME
	wr filter "$@" >/dev/null && wr reset 1 >/dev/null
}

# ---- traffic -------------------------------------------------------------------
# lib.sh's case engine; a guest under TCG on a busy host may need 30 s for
# a receiver to bind
UG_PORT_SECS=30
wait_port() { ug_wait_port -u "$1" "$2" "" 30; }	# NS PORT
# guest_traffic.py: the traffic the bench tools cannot make
GT=$UG_TOP/scripts/vm/guest_traffic.py

# gso_run NS_TX NS_RX DST PORT FAMILY RXFLAGS: M GSO sends of K segments
gso_run() {
	local nstx=$1 nsrx=$2 dst=$3 port=$4 fam=$5 rxflags=$6
	# shellcheck disable=SC2086
	if ! ug_rx_start "$nsrx" -u "$port" /dev/null /dev/null \
		timeout 60 "$RX" "$fam" -p "$port" $rxflags; then
		case_fail "receiver did not bind port $port"
		return 1
	fi
	if ! ug_tx_run "$nstx" /dev/null /dev/null timeout 60 "$TX" "$fam" -D "$dst" \
		-p "$port" -s $((K * S)) -S "$S" -M "$M"; then
		case_fail "udpgso_bench_tx failed"
	fi
	sleep 0.5
	snap
	ug_rx_end TERM 2>/dev/null
	return 0
}

# a0 (ns a, 10.71.0.1) <-> b0 (ns b, 10.71.0.2), static neighbours: no ARP;
# IPv6 off (no neighbour discovery, router solicitations...) unless "v6":
# then also fd71::1 <-> fd71::2
veth_topo() {
	local n
	ns_add a && ns_add b || return 1
	for n in a b; do
		ns_exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=$([ "${1:-}" = v6 ] && echo 0 || echo 1)
		ns_exec $n sysctl -qw net.ipv6.conf.default.disable_ipv6=$([ "${1:-}" = v6 ] && echo 0 || echo 1)
	done
	veth_pair a a0 b b0 || return 1
	ns_exec a ip addr add 10.71.0.1/24 dev a0
	ns_exec b ip addr add 10.71.0.2/24 dev b0
	ns_exec a ip neigh replace 10.71.0.2 dev a0 lladdr "$(mac_of b b0)" nud permanent
	ns_exec b ip neigh replace 10.71.0.1 dev b0 lladdr "$(mac_of a a0)" nud permanent
	if [ "${1:-}" = v6 ]; then
		ns_exec a ip addr add fd71::1/64 dev a0 nodad
		ns_exec b ip addr add fd71::2/64 dev b0 nodad
		ns_exec a ip neigh replace fd71::2 dev a0 lladdr "$(mac_of b b0)" nud permanent
		ns_exec b ip neigh replace fd71::1 dev b0 lladdr "$(mac_of a a0)" nud permanent
	fi
}
mac_of() { ns_exec "$1" cat "/sys/class/net/$2/address"; }	# NS DEV
# write a debugfs file from inside one of our namespaces (nsenter keeps the
# mount namespace, where ip netns exec would hide debugfs behind a new sysfs)
wr_in() {		# NS FILE VALUE
	local ns=$1 f=$2
	shift 2
	nsenter --net="/run/netns/$(ns_name "$ns")" sh -c "echo '$*' > '$D/$f'" 2>&1
}
# the namespaces of one case (ns_add also deferred their deletion for exit)
topo_down() {
	local n
	for n in a b l; do ip netns del "$(ns_name $n)" 2>/dev/null; done
}

# ---- cases -------------------------------------------------------------------------
t_load() {
	local err
	case_begin "load module"
	dmesg -C 2>/dev/null
	if ! err=$(insmod "$ko" 2>&1); then
		case_fail "insmod: $err"
	elif [ ! -r "$D/counters" ]; then
		case_fail "no $D/counters"
	else
		_c_good="insmod $(basename "$ko"), $D present, "
	fi
	case_end
	[ -r "$D/counters" ]
}

t_hooks() {
	local h missing= want ma
	case_begin "hooks attached"
	for h in net_dev_queue net_dev_start_xmit net_dev_xmit napi_gro_receive_entry \
		 napi_gro_frags_entry netif_receive_skb udp_fail_queue_rcv_skb \
		 __skb_gso_segment udp4_gro_complete udp6_gro_complete; do
		grep -qE "^[a-z]+ $h attached" "$D/hooks" || missing+="$h "
	done
	sed 's/^/# hooks: /' "$D/hooks"
	[ -z "$missing" ] || case_fail "not attached: $missing"
	# maxactive: at least the kernel's default max(10, 2 * CPUs)
	want=$(( 2 * $(nproc --all) ))
	[ "$want" -ge 10 ] || want=10
	while read -r ma; do
		[ "${ma#maxactive=}" -ge "$want" ] || case_fail "$ma below $want"
	done < <(grep -Eo 'maxactive=[0-9]+' "$D/hooks")
	_c_good="all 10 attached, kretprobe maxactive >= $want, "
	case_end
}

t_filter_rw() {
	local got
	case_begin "filter write/read back"
	for v in "port 4242" "dev b0" "clear"; do
		wr filter "$v" >/dev/null || case_fail "write '$v' refused"
		got=$(cat "$D/filter")
		[ "$v" = clear ] && v=none
		if [ "$got" = "$v" ]; then _c_good+="'$v' reads back, "
		else case_fail "wrote '$v', read '$got'"; fi
	done
	case_end
}

t_bad_writes() {
	local v msg before after
	case_begin "bad writes give EINVAL and change nothing"
	wr filter "port 4243" >/dev/null
	# counters must not move either: a filter port nobody uses
	wr reset 1 >/dev/null
	before=$(cat "$D/filter"; cat "$D/counters")
	for v in "bogus" "port" "port 0" "port 65536" "port x1" "port 12x" "port -1" \
		 "dev" "dev " "dev a/b" "dev 0123456789abcdef" "clear now" "PORT 1"; do
		msg=$(wr filter "$v")
		case "$msg" in *"Invalid argument"*) ;; *) case_fail "filter '$v': '$msg'" ;; esac
	done
	for v in 0 2 "1 1" yes ""; do
		msg=$(wr reset "$v")
		case "$msg" in *"Invalid argument"*) ;; *) case_fail "reset '$v': '$msg'" ;; esac
	done
	msg=$( (echo 1 > "$D/counters") 2>&1 )
	[ -n "$msg" ] || case_fail "counters accepted a write"
	after=$(cat "$D/filter"; cat "$D/counters")
	[ "$before" = "$after" ] || case_fail "state changed after bad writes"
	_c_good="13 filter + 5 reset values refused, filter still 'port 4243', "
	case_end
}

t_lo() {		# NAME FAMILY DST RXFLAGS
	local name=$1 fam=$2 dst=$3 rxflags=$4 port=$((RANDOM % 20000 + 20000))
	case_begin "$name"
	ns_add l
	reset_filter port "$port"
	gso_run l l "$dst" "$port" "$fam" "$rxflags" || { case_end; topo_down; return; }
	chk tx_gso_udp_l4_skbs = "$M"
	chk tx_gso_segs = $((M * K))
	chk tx_dev_gso_skbs = "$M"
	chk tx_sw_segmented_skbs = 0
	chk rx_gso_passthrough_skbs = "$M"
	if [ -n "$rxflags" ]; then
		chk rx_sw_segmented_skbs = 0
		chk rx_sw_segments = 0
	else
		chk rx_sw_segmented_skbs = "$M"
		chk rx_sw_segments = $((M * K))
	fi
	grep -qx "tx $K $M" "$D/histogram" || case_fail "histogram has no 'tx $K $M'"
	case_end
	topo_down
}

t_veth_swseg() {
	local port=$((RANDOM % 20000 + 20000))
	case_begin "veth tx-udp-segmentation off: software segmentation"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_exec a ethtool -K a0 tx-udp-segmentation off >/dev/null 2>&1 ||
		case_fail "ethtool -K a0 tx-udp-segmentation off"
	reset_filter port "$port"
	gso_run a b 10.71.0.2 "$port" -4 "" || { case_end; topo_down; return; }
	chk tx_gso_udp_l4_skbs = "$M"
	chk tx_sw_segmented_skbs = "$M"
	chk tx_sw_segments = $((M * K))
	chk tx_dev_gso_skbs = 0
	chk tx_dev_skbs = $((M * K))
	chk rx_skbs = $((M * K))
	chk rx_gro_in = 0
	chk rx_gso_passthrough_skbs = 0
	case_end
	topo_down
}

t_veth_dev_filter() {
	local port=$((RANDOM % 20000 + 20000))
	case_begin "filter dev b0 (its netns): only the receiver's skbs counted"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_exec a ethtool -K a0 tx-udp-segmentation off >/dev/null 2>&1
	# written from the init namespace: there is no b0 there, nothing counts
	reset_filter dev b0
	gso_run a b 10.71.0.2 "$port" -4 "" || { case_end; topo_down; return; }
	chk_val "init-netns:rx_skbs" "${CNT[rx_skbs]:-}" = 0
	chk_val "init-netns:tx_skbs" "${CNT[tx_skbs]:-}" = 0
	wr_in b filter "dev b0" >/dev/null
	wr reset 1 >/dev/null
	gso_run a b 10.71.0.2 "$port" -4 "" || { case_end; topo_down; return; }
	chk tx_skbs = 0
	chk tx_sw_segmented_skbs = 0
	chk tx_dev_skbs = 0
	chk rx_skbs = $((M * K))
	chk rx_gso_skbs = 0
	case_end
	topo_down
}

# the counts of N segments that crossed a GRO receiver, all of them
# coalesced (a send's segments reach the peer's NAPI in one softirq)
gro_checks() {		# N
	chk rx_gro_in = "$1"
	chk rx_gro_coalesced_segs = "$1"
	chk rx_gro_coalesced_skbs ">=" 1
	chk_val "rx_skbs-coalesced_skbs" $(( ${CNT[rx_skbs]:-0} - ${CNT[rx_gro_coalesced_skbs]:-0} )) = 0
	chk rx_gso_passthrough_skbs = 0
	chk rx_gso_tcp_skbs = 0
	chk_val "histogram rx skbs" "$(hist_sum rx)" = "${CNT[rx_gro_coalesced_skbs]:-}"
}
hist_sum() {		# tx|rx: skbs in the histogram
	awk -v d="$1" '$1 == d { n += $3 } END { print n + 0 }' "$D/histogram"
}

# t_veth_gro NAME FAMILY DST RXFLAGS TOPO B0_FEATURES
t_veth_gro() {
	local name=$1 fam=$2 dst=$3 rxflags=$4 topo=$5 feat=$6 port=$((RANDOM % 20000 + 20000))
	case_begin "$name"
	veth_topo "$topo" || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_exec a ethtool -K a0 tx-udp-segmentation off tso off >/dev/null 2>&1 ||
		case_fail "ethtool -K a0 tx-udp-segmentation off tso off"
	# shellcheck disable=SC2086
	ns_exec b ethtool -K b0 gro on $feat >/dev/null 2>&1 || case_fail "ethtool -K b0 gro on $feat"
	reset_filter port "$port"
	gso_run a b "$dst" "$port" "$fam" "$rxflags" || { case_end; topo_down; return; }
	chk tx_sw_segmented_skbs = "$M"
	chk tx_sw_segments = $((M * K))
	chk other_sw_segmented_skbs = 0
	gro_checks "$((M * K))"
	if [ -n "$feat" ]; then		# rx-gro-list: fraglist GRO, split for the socket
		chk_val "rx_gro_fraglist_skbs-coalesced_skbs" \
			$(( ${CNT[rx_gro_fraglist_skbs]:-0} - ${CNT[rx_gro_coalesced_skbs]:-0} )) = 0
		chk_val "rx_sw_segmented_skbs-coalesced_skbs" \
			$(( ${CNT[rx_sw_segmented_skbs]:-0} - ${CNT[rx_gro_coalesced_skbs]:-0} )) = 0
		chk rx_sw_segments = $((M * K))
	else
		chk rx_gro_fraglist_skbs = 0
		chk rx_sw_segmented_skbs = 0
	fi
	case_end
	topo_down
}

t_veth_gro_passthrough() {
	local port=$((RANDOM % 20000 + 20000))
	case_begin "veth GRO on, GSO skb passed whole: passthrough, not coalesced"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_exec a ethtool -K a0 tso off >/dev/null 2>&1 || case_fail "ethtool -K a0 tso off"
	ns_exec b ethtool -K b0 gro on >/dev/null 2>&1 || case_fail "ethtool -K b0 gro on"
	reset_filter port "$port"
	gso_run a b 10.71.0.2 "$port" -4 "-G" || { case_end; topo_down; return; }
	chk tx_dev_gso_skbs = "$M"
	chk tx_sw_segmented_skbs = 0
	chk rx_gro_in = "$M"
	chk rx_gso_passthrough_skbs = "$M"
	chk rx_gro_coalesced_skbs = 0
	case_end
	topo_down
}

# UDP GSO through an upper device on each side (a bridge with the veth as its
# port, or a vlan on the veth): each skb counts once per direction, tx at the
# veth (the bridge's or vlan's own pass is replaced by the nested one), rx at
# the veth (the bridge's local delivery pass is a repeat)
t_upper() {
	local kind=$1 port=$((RANDOM % 20000 + 20000)) ifa ifb
	case_begin "UDP GSO over a $kind on veth: once per skb and direction"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	case "$kind" in
	bridge)
		ifa=bra ifb=brb
		ns_exec a ip link add bra type bridge && ns_exec a ip link set a0 master bra &&
		ns_exec b ip link add brb type bridge && ns_exec b ip link set b0 master brb ;;
	vlan)
		ifa=a0.10 ifb=b0.10
		ns_exec a ip link add link a0 name a0.10 type vlan id 10 &&
		ns_exec b ip link add link b0 name b0.10 type vlan id 10 ;;
	esac || case_fail "$kind setup"
	ns_exec a ip link set "$ifa" up
	ns_exec b ip link set "$ifb" up
	ns_exec a ip addr add 10.72.0.1/24 dev "$ifa"
	ns_exec b ip addr add 10.72.0.2/24 dev "$ifb"
	ns_exec a ip neigh replace 10.72.0.2 dev "$ifa" lladdr "$(mac_of b "$ifb")" nud permanent
	ns_exec b ip neigh replace 10.72.0.1 dev "$ifb" lladdr "$(mac_of a "$ifa")" nud permanent
	reset_filter port "$port"
	gso_run a b 10.72.0.2 "$port" -4 "" || { case_end; topo_down; return; }
	chk tx_skbs = "$M"
	chk tx_gso_udp_l4_skbs = "$M"
	chk tx_gso_segs = $((M * K))
	chk tx_dev_skbs = "$M"
	chk tx_dev_gso_skbs = "$M"
	chk tx_sw_segmented_skbs = 0
	chk rx_skbs = "$M"
	chk rx_gso_passthrough_skbs = "$M"
	chk rx_sw_segmented_skbs = "$M"
	chk rx_sw_segments = $((M * K))
	grep -qx "tx $K $M" "$D/histogram" || case_fail "histogram has no 'tx $K $M'"
	case_end
	topo_down
}

# vxlan over veth, segmented at the sender's veth.  The receiver's veth GRO
# does not merge the outer packets (as udpgro_fwd.sh shows too); the vxlan
# device's gro_cells merge the inner ones after decapsulation.  Inner port:
# the sender's vxlan pass is replaced by the veth's (outer headers: no
# match), the receiver's passes at vb are repeats, the merges count once.
# Port 4789: what the veths see.  Both: a merge counted twice (an outer and
# an inner udp4_gro_complete on one skb) would break the segment sums.
t_vxlan() {
	local port=$((RANDOM % 20000 + 20000))
	case_begin "vxlan over veth with UDP GRO: merges counted once, decap passes not again"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_exec a ethtool -K a0 tx-udp-segmentation off tso off tx-udp_tnl-segmentation off \
		tx-udp_tnl-csum-segmentation off >/dev/null 2>&1 || case_fail "ethtool -K a0 ..."
	ns_exec b ethtool -K b0 gro on >/dev/null 2>&1 || case_fail "ethtool -K b0 gro on"
	ns_exec a ip link add va type vxlan id 42 local 10.71.0.1 remote 10.71.0.2 \
		dstport 4789 dev a0 &&
	ns_exec b ip link add vb type vxlan id 42 local 10.71.0.2 remote 10.71.0.1 \
		dstport 4789 dev b0 || case_fail "vxlan setup"
	ns_exec a ip link set va up
	ns_exec b ip link set vb up
	ns_exec a ip addr add 10.73.0.1/24 dev va
	ns_exec b ip addr add 10.73.0.2/24 dev vb
	ns_exec a ip neigh replace 10.73.0.2 dev va lladdr "$(mac_of b vb)" nud permanent
	ns_exec b ip neigh replace 10.73.0.1 dev vb lladdr "$(mac_of a va)" nud permanent
	reset_filter port "$port"
	gso_run a b 10.73.0.2 "$port" -4 "-G" || { case_end; topo_down; return; }
	chk_val "inner:tx_skbs" "${CNT[tx_skbs]:-}" = 0
	chk_val "inner:tx_dev_skbs" "${CNT[tx_dev_skbs]:-}" = 0
	chk_val "inner:rx_gro_in" "${CNT[rx_gro_in]:-}" = 0
	chk_val "inner:rx_skbs" "${CNT[rx_skbs]:-}" = 0
	chk_val "inner:rx_gro_coalesced_segs" "${CNT[rx_gro_coalesced_segs]:-}" = $((M * K))
	chk_val "inner:histogram rx skbs" "$(hist_sum rx)" = "${CNT[rx_gro_coalesced_skbs]:-}"
	reset_filter port 4789
	gso_run a b 10.73.0.2 "$port" -4 "-G" || { case_end; topo_down; return; }
	chk tx_skbs = "$M"
	chk tx_gso_udp_l4_skbs = "$M"
	chk tx_gso_segs = $((M * K))
	chk tx_sw_segmented_skbs = "$M"
	chk tx_sw_segments = $((M * K))
	chk tx_dev_skbs = $((M * K))
	chk tx_dev_gso_skbs = 0
	chk rx_gro_in = $((M * K))
	chk_val "coalesced_segs+single_skbs" $(( ${CNT[rx_gro_coalesced_segs]:-0} + \
		${CNT[rx_skbs]:-0} - ${CNT[rx_gro_coalesced_skbs]:-0} )) = $((M * K))
	chk rx_gso_passthrough_skbs = 0
	case_end
	topo_down
}

# TCP through veth GRO: TCP's GRO results are TCP counts, never UDP passthrough
t_tcp_gro() {
	local port=$((RANDOM % 20000 + 20000))
	case_begin "TCP over veth, receiver gro on: TCP counters move, UDP ones do not"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_exec a ethtool -K a0 tso off >/dev/null 2>&1 || case_fail "ethtool -K a0 tso off"
	ns_exec b ethtool -K b0 gro on >/dev/null 2>&1 || case_fail "ethtool -K b0 gro on"
	reset_filter port "$port"
	UG_PORT_SECS=5 ug_rx_start b -t "$port" /dev/null /dev/null \
		timeout 60 "$RX" -4 -t -p "$port" || case_fail "receiver did not listen on $port"
	ug_tx_run a /dev/null /dev/null timeout 60 "$TX" -4 -t -D 10.71.0.2 -p "$port" \
		-s $((K * S)) -M "$M" || case_fail "udpgso_bench_tx -t failed"
	sleep 0.5
	snap
	ug_rx_end TERM 2>/dev/null
	chk tx_gso_udp_l4_skbs = 0
	chk rx_gso_passthrough_skbs = 0
	chk rx_gro_coalesced_skbs = 0
	chk rx_gro_fraglist_skbs = 0
	chk rx_sw_segmented_skbs = 0
	chk rx_gso_tcp_skbs ">=" 1
	chk_val "rx_gso_skbs-rx_gso_tcp_skbs" $(( ${CNT[rx_gso_skbs]:-0} - ${CNT[rx_gso_tcp_skbs]:-0} )) = 0
	chk_val "rx_gso_tcp_segs-2*rx_gso_tcp_skbs" \
		$(( ${CNT[rx_gso_tcp_segs]:-0} - 2 * ${CNT[rx_gso_tcp_skbs]:-0} )) ">=" 0
	chk tx_gso_tcp_skbs ">=" 1
	# tso off: every TCP GSO skb is segmented for a0 (validate_xmit_skb)
	chk_val "tx_sw_segmented_skbs-tx_gso_skbs" \
		$(( ${CNT[tx_sw_segmented_skbs]:-0} - ${CNT[tx_gso_skbs]:-0} )) = 0
	chk_val "tx_sw_segments-tx_gso_segs" \
		$(( ${CNT[tx_sw_segments]:-0} - ${CNT[tx_gso_segs]:-0} )) = 0
	chk other_sw_segmented_skbs = 0
	chk tx_dev_gso_skbs = 0
	case_end
	topo_down
}

udp_inerrors() {	# NS: the namespace's UDP InErrors
	ns_exec "$1" awk '$1 == "Udp:" && $4 ~ /^[0-9]+$/ { print $4 }' /proc/net/snmp
}

# a socket that never reads, with the smallest receive buffer: the
# udp_fail_queue_rcv_skb tracepoint fires once per datagram the stack drops
t_queue_fail() {
	local port=$((RANDOM % 20000 + 20000)) pypid before after
	case_begin "full receive buffer: rx_udp_queue_fails = the stack's UDP InErrors"
	ns_add l
	reset_filter port "$port"
	ns_exec l timeout 60 /usr/bin/python3 "$GT" sink --port "$port" --secs 60 &
	pypid=$!
	wait_port l "$port" || case_fail "python receiver did not bind $port"
	before=$(udp_inerrors l)
	ns_exec l timeout 60 "$TX" -4 -D 127.0.0.1 -p "$port" -s 1000 -M "$M" >/dev/null 2>&1 ||
		case_fail "udpgso_bench_tx failed"
	sleep 0.5
	snap
	after=$(udp_inerrors l)
	kill "$pypid" 2>/dev/null
	wait "$pypid" 2>/dev/null
	chk rx_udp_queue_fails = $(( ${after:-0} - ${before:-0} ))
	chk rx_udp_queue_fails ">=" 1
	case_end
	topo_down
}

# GSO skbs from a packet socket with a vnet header are DODGY: gso_segs is 0
# until segmentation; the module computes it from the length
t_dodgy() {
	local port=$((RANDOM % 20000 + 20000)) n=10
	case_begin "DODGY TCP GSO skbs from a packet socket: gso_segs computed"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	wr_in a filter "dev a0" >/dev/null
	wr reset 1 >/dev/null
	ns_exec a timeout 60 /usr/bin/python3 "$GT" dodgy --dev a0 --src-mac "$(mac_of a a0)" \
		--dst-mac "$(mac_of b b0)" --port "$port" --count "$n" --len $((K * S)) \
		--gso-size "$S" || case_fail "packet socket sender failed"
	sleep 0.5
	snap
	chk tx_gso_tcp_skbs = "$n"
	chk tx_gso_segs = $((n * K))
	chk tx_gso_segs_unknown_skbs = 0
	grep -qx "tx $K $n" "$D/histogram" || case_fail "histogram has no 'tx $K $n'"
	grep -q "^tx 0 " "$D/histogram" && case_fail "histogram has a 'tx 0' bucket"
	case_end
	topo_down
}

# resets and filter swaps while TCP load runs over veth (GSO, software
# segmentation, TCP GRO: counters hot on both CPUs), then a reset under the
# same load and M UDP GSO sends over lo: the UDP counters are exactly those
# sends, and counters and histogram agree
t_reset_load() {
	local port=$((RANDOM % 20000 + 20000)) tport=$((RANDOM % 20000 + 20000)) pids=() i h
	case_begin "reset and filter swaps under load: exact totals after the reset"
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_add l
	ns_exec a ethtool -K a0 tso off >/dev/null 2>&1
	ns_exec b ethtool -K b0 gro on >/dev/null 2>&1
	wr filter clear >/dev/null
	timeout 90 ip netns exec "$(ns_name b)" "$RX" -4 -t -p "$tport" >/dev/null 2>&1 &
	pids+=($!)
	ns_wait_port -t b "$tport" || case_fail "TCP receiver did not listen"
	timeout 90 ip netns exec "$(ns_name a)" "$TX" -4 -t -D 10.71.0.2 -p "$tport" \
		-s $((K * S)) -l 60 >/dev/null 2>&1 &
	pids+=($!)
	sleep 1
	for ((i = 0; i < 200; i++)); do
		echo 1 > "$D/reset"
		echo "port $tport" > "$D/filter"
		echo "dev a0" > "$D/filter"
		echo clear > "$D/filter"
	done
	# the reset under load; then only the UDP flow counts (udpgso_bench_tx
	# first probes GSO with 2-, 64- and 128-segment sends on a loopback socket
	# pair of its own: other ports)
	wr filter clear >/dev/null
	wr reset 1 >/dev/null
	wr filter "port $port" >/dev/null
	gso_run l l 127.0.0.1 "$port" -4 "" || { case_end; kill "${pids[@]}"; topo_down; return; }
	chk tx_gso_udp_l4_skbs = "$M"
	chk rx_gso_passthrough_skbs = "$M"
	chk rx_sw_segmented_skbs = "$M"
	chk rx_sw_segments = $((M * K))
	chk rx_gro_coalesced_skbs = 0
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	sleep 1
	snap
	h=$(awk '$1 == "tx" { n += $3; s += $2 * $3 } END { print n + 0, s + 0 }' "$D/histogram")
	chk_val "histogram tx skbs" "${h% *}" = \
		$(( ${CNT[tx_gso_skbs]:-0} - ${CNT[tx_gso_segs_unknown_skbs]:-0} ))
	grep -q '^tx 256+' "$D/histogram" || chk_val "histogram tx segs" "${h#* }" = "${CNT[tx_gso_segs]:-}"
	chk_val "tx_gso_skbs-udp_l4-tcp" \
		$(( ${CNT[tx_gso_skbs]:-0} - ${CNT[tx_gso_udp_l4_skbs]:-0} - ${CNT[tx_gso_tcp_skbs]:-0} )) = 0
	case_end
	topo_down
}

t_reset() {
	local port=$((RANDOM % 20000 + 20000)) nz
	case_begin "reset zeroes every counter"
	ns_add l
	reset_filter port "$port"
	gso_run l l 127.0.0.1 "$port" -4 "" || { case_end; topo_down; return; }
	chk tx_gso_skbs = "$M"
	wr filter "port $((port + 1))" >/dev/null	# nothing uses it: nothing moves
	wr reset 1 >/dev/null
	snap
	nz=$(awk '$2 != 0' "$D/counters" | tr '\n' ' ')
	[ -z "$nz" ] || case_fail "not zero after reset: $nz"
	[ -z "$(grep -v '^#' "$D/histogram")" ] || case_fail "histogram not empty after reset"
	_c_good+="all ${#CNT[@]} counters 0 after reset, "
	case_end
	topo_down
}

t_cycles() {
	local i try busy=0 pids=() fails=0 port=$((RANDOM % 20000 + 20000)) err t0 t1 t2
	local ins_ms=0 rm_ms=0 src sns sdst
	case_begin "$cycles load/unload cycles under traffic, concurrent readers and resets"
	rmmod udpgso_stats 2>/dev/null
	veth_topo || { case_fail "veth setup"; case_end; topo_down; return; }
	ns_add l
	ns_exec a ethtool -K a0 tx-udp-segmentation off tso off >/dev/null 2>&1
	ns_exec b ethtool -K b0 gro on >/dev/null 2>&1
	nice -n 19 timeout 600 ip netns exec "$(ns_name b)" "$RX" -4 -p "$port" -G >/dev/null 2>&1 &
	pids+=($!)
	nice -n 19 timeout 600 ip netns exec "$(ns_name l)" "$RX" -4 -p "$port" >/dev/null 2>&1 &
	pids+=($!)
	wait_port b "$port"
	wait_port l "$port"
	# senders in bursts of 50 GSO sends with a pause: a sender that never
	# sleeps would hold off RCU-tasks grace periods for minutes, and one that
	# keeps both CPUs busy (segmentation and GRO run in softirq, where nice
	# does not help) made insmod and rmmod take 4 s each under TCG, with or
	# without any hook attached (results/kmod-test-2026-11-22/README.md)
	# (one over the veth pair from a, one over lo in l)
	for src in "a 10.71.0.2" "l 127.0.0.1"; do
		read -r sns sdst <<<"$src"
		( while :; do nice -n 19 timeout 60 ip netns exec "$(ns_name "$sns")" "$TX" -4 \
			-D "$sdst" -p "$port" -s 14000 -S 1400 -M 50; sleep 0.2; done ) \
			>/dev/null 2>&1 &
		pids+=($!)
	done
	# readers (shell builtins: no fork per read) and writers of every file
	# pause a little, so that under TCG on 2 CPUs the insmod/rmmod loop is
	# not starved (an open file pins the module: rmmod needs gaps between them)
	( while :; do
		for f in counters histogram hooks filter; do
			while read -r _; do :; done < "$D/$f"
		done
		sleep 0.1
	  done ) >/dev/null 2>&1 &
	pids+=($!)
	( while :; do echo 1 > "$D/reset"; echo "port $port" > "$D/filter"
		echo clear > "$D/filter"; sleep 0.1; done ) >/dev/null 2>&1 &
	pids+=($!)
	t0=$SECONDS
	for ((i = 0; i < cycles; i++)); do
		((i % 10)) || ktap_info "cycle $i at $((SECONDS - t0)) s"
		if ((SECONDS - t0 >= cycle_secs)); then
			case_fail "stopped after $i cycles: over $cycle_secs s"
			break
		fi
		t1=$(date +%s%N)
		if ! err=$(timeout 60 insmod "$ko" 2>&1); then
			fails=$((fails + 1)); ktap_info "cycle $i insmod: $err"; continue
		fi
		t2=$(date +%s%N)
		ins_ms=$((ins_ms + (t2 - t1) / 1000000))
		# a reader holding a file open pins the module: rmmod says "in use",
		# or EAGAIN when the reader opened it after rmmod checked: retry
		for ((try = 0; try < 200; try++)); do
			t1=$(date +%s%N)
			err=$(timeout 60 rmmod udpgso_stats 2>&1) && break
			case "$err" in
			*"in use"*|*"temporarily unavailable"*) busy=$((busy + 1)); sleep 0.05 ;;
			*) break ;;
			esac
		done
		t2=$(date +%s%N)
		rm_ms=$((rm_ms + (t2 - t1) / 1000000))
		if [ -e /sys/module/udpgso_stats ]; then
			fails=$((fails + 1)); ktap_info "cycle $i rmmod: $err"
			break
		fi
	done
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	chk_val failed_cycles "$fails" = 0
	chk_val cycles "$i" = "$cycles"
	_c_good+="$((SECONDS - t0)) s, mean insmod $((ins_ms / (i ? i : 1))) ms,"
	_c_good+=" mean last rmmod $((rm_ms / (i ? i : 1))) ms,"
	_c_good+=" $busy rmmod retries while a reader held a file, "
	case_end
	topo_down
}

t_dmesg() {
	local bad
	case_begin "guest dmesg clean"
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|refcount' | head -5 | tr '\n' '|')
	[ -z "$bad" ] || case_fail "dmesg: $bad"
	_c_good="no WARNING/BUG/Oops/Call Trace/refcount lines, "
	case_end
}

# ---- main ------------------------------------------------------------------------
ug_trap_install
defer rmmod udpgso_stats
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
for b in "$TX" "$RX"; do
	[ -x "$b" ] || { emit skip "all: no $b (run make first)"; exit 4; }
done
t_load || exit 1
t_hooks
t_filter_rw
t_bad_writes
wanted lo4 && t_lo "lo gso plain socket" -4 127.0.0.1 ""
wanted lo4gro && t_lo "lo gso UDP_GRO socket" -4 127.0.0.1 "-G"
wanted lo6 && t_lo "lo gso ipv6 plain socket" -6 ::1 ""
wanted swseg && t_veth_swseg
wanted devfilter && t_veth_dev_filter
wanted gro && t_veth_gro "veth GRO (sender tso off, receiver gro on, UDP_GRO socket)" \
	-4 10.71.0.2 -G "" ""
wanted gro6 && t_veth_gro "veth IPv6 GRO (udp6_gro_complete)" -6 fd71::2 -G v6 ""
wanted fraglist && t_veth_gro "veth rx-gro-list: fraglist GRO, split for a plain socket" \
	-4 10.71.0.2 "" "" "rx-gro-list on"
wanted tcpgro && t_tcp_gro
wanted bridge && t_upper bridge
wanted vlan && t_upper vlan
wanted vxlan && t_vxlan
wanted qfail && t_queue_fail
wanted dodgy && t_dodgy
wanted resetload && t_reset_load
wanted gropass && t_veth_gro_passthrough
wanted reset && t_reset
wanted cycles && t_cycles
t_dmesg
exit 0
