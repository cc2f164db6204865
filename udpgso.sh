#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# udpgso-lab: run udpgso (send-side UDP GSO edge cases) in every variant
# upstream's tools/testing/selftests/net/udpgso.sh runs, each in a fresh
# network namespace, plus UDP_CORK, connected+setsockopt and route-MTU
# unconnected variants.  Every udpgso case becomes one TAP line here,
# prefixed with the variant.
#
#   lo, device MTU 1500 / route MTU 1500: send and receive back, exact
#   sink device (dummy; veth when this kernel has no dummy): -R, exact tx
#   packet/byte counts: one GSO skb (tx-udp-segmentation on) vs N segments,
#   and every segment captured there and checked (--sink-capture: one
#   "wire[N]" line per case, N the segments expected; docs/suite.md)
#   ipip tunnel over the sink: send results, as upstream, and for IPv4
#   the segments under their outer header on the sink
#   the sink capture's self-test: captured where nothing of ours passes,
#   or against the other GSO model, every case that sends must fail
#
# usage: udpgso.sh [-v] [-k PATTERN]
#   -v: also print udpgso's own output; -k: only variants whose name matches
#   the shell pattern (e.g. -k '*sink*')

set -u
. "$(dirname "$0")/scripts/lib.sh"

BIN="$UDPGSO_BIN/udpgso"
verbose=0 only='*'
[ "${1:-}" = --help ] && { ug_help; exit 0; }
while getopts ":hvk:" o; do
	case "$o" in
	h) ug_help; exit 0 ;;
	v) verbose=1 ;;
	k) only=$OPTARG ;;
	:) ug_die "-$OPTARG: missing value, allowed a shell pattern" ;;
	*) ug_die "-$OPTARG: unknown option, allowed -v -k PATTERN -h" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || ug_die "$1: unexpected argument, allowed -v"

ktap_header
if ! why=$(ug_need_root) || ! why=$(ug_need_cmd ip); then
	ktap_skip "udpgso" "$why"
	ktap_finish
fi
ug_need_built "$BIN"
ug_trap_install

model_printed=0
nvar=0
# set by wire_selftest for its variants: "MINSEG CLASS": every wire line of
# a case expecting MINSEG segments or more must fail as CLASS
wire_neg=""

# ---- setups (run in the variant's namespace) --------------------------------
setup_loopback() {	# NS
	local n
	n=$(ns_name "$1")
	ip -n "$n" addr add dev lo 10.0.0.1/32 &&
	ip -n "$n" addr add dev lo fd00::1/128 nodad noprefixroute || return 1
	# IPv6 inserts an address's local route from the addrconf work (even
	# with nodad): on a busy machine it can come after the address; until
	# then a send to it fails with ENETUNREACH (seen at load average 12)
	# and deleting the route fails with ESRCH
	for _ in $(seq 50); do
		[ -n "$(ip -n "$n" -6 route show table local fd00::1/128 dev lo)" ] && return 0
		sleep 0.1
	done
	echo "no local route for fd00::1 after 5 s" >&2
	return 1
}

setup_dev_mtu() {	# NS: lo MTU 1500
	setup_loopback "$1" && ip -n "$(ns_name "$1")" link set dev lo mtu 1500
}

setup_route_mtu() {	# NS: local routes with MTU 1500, lo keeps 65536
	local n
	n=$(ns_name "$1")
	setup_loopback "$1" || return 1
	ip -n "$n" route del local 10.0.0.1/32 table local dev lo &&
	ip -n "$n" route del local fd00::1/128 table local dev lo &&
	ip -n "$n" route add local 10.0.0.1/32 table local dev lo mtu 1500 &&
	ip -n "$n" -6 route add local fd00::1/128 table local dev lo mtu 1500
}

# the kind of sink device this kernel can create: dummy, else veth
sink_kind=
probe_sink_kind() {
	local n
	ns_add probe || return 1
	n=$(ns_name probe)
	if ip -n "$n" link add ugdummy type dummy 2>/dev/null; then
		sink_kind=dummy
	elif ip -n "$n" link add ugv0 type veth peer name ugv1 2>/dev/null; then
		sink_kind=veth
	fi
	have_ipip=0
	if ip -n "$n" link add ugtnl type ipip local 10.9.9.9 remote 10.9.9.8 \
		2>/dev/null; then
		have_ipip=1
	fi
	ip netns del "$n"
}

# NS MTU PREFIX4 PREFIX6 [NEIGH4]: a sink named "sink"; a veth sink's peer
# sits in NS-peer with no address (everything sent is dropped there)
setup_sink() {
	local ns=$1 mtu=$2 p4=$3 p6=$4 nb4=${5:-10.0.0.1} n
	n=$(ns_name "$ns")
	if [ "$sink_kind" = dummy ]; then
		ip -n "$n" link add name sink mtu "$mtu" type dummy || return 1
	else
		ns_add "$ns-peer" || return 1
		ip link add sink mtu "$mtu" netns "$n" type veth peer name peer \
			netns "$(ns_name "$ns-peer")" || return 1
		ip -n "$(ns_name "$ns-peer")" link set peer addrgenmode none up
	fi
	# no link-local address: no router solicitations or DAD on the sink
	ip -n "$n" link set sink addrgenmode none &&
	ip -n "$n" addr add dev sink "$p4" &&
	ip -n "$n" addr add dev sink "$p6" nodad &&
	ip -n "$n" link set dev sink up || return 1
	if [ "$sink_kind" = veth ]; then
		# no ARP/ND on the wire: static neighbours
		ip -n "$n" neigh add "$nb4" lladdr 02:00:00:00:00:01 dev sink \
			nud permanent || return 1
		ip -n "$n" neigh add fd00::1 lladdr 02:00:00:00:00:01 dev sink \
			nud permanent 2>/dev/null || true
	fi
}

# wait until the sink's tx counter has been still for 1 s (the MLD
# reports for the new address go out within ~1 s), at most 6 s
sink_settle() {		# NS DEV
	ug_wait_still 10 60 ns_exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"
}

setup_sink_gso() {	# NS GSO(on|off) CSUM(on|off)
	setup_sink "$1" 1500 10.0.0.2/24 fd00::2/48 || return 1
	ns_exec "$1" ethtool -K sink tx-checksum-ip-generic "$3" >/dev/null &&
	ns_exec "$1" ethtool -K sink tx-udp-segmentation "$2" >/dev/null &&
	check_feature "$1" sink tx-udp-segmentation "$2" &&
	check_feature "$1" sink tx-checksum-ip-generic "$3" &&
	sink_settle "$1" sink
}

setup_ipip() {		# NS CSUM(on|off)
	local n
	n=$(ns_name "$1")
	setup_sink "$1" 1520 10.1.1.2/24 fd11::2/48 10.1.1.1 || return 1
	ip -n "$n" tunnel add iptnl mode ipip local 10.1.1.2 remote 10.1.1.1 &&
	ip -n "$n" addr add dev iptnl 10.0.0.2/24 &&
	ip -n "$n" addr add dev iptnl fd00::2/48 nodad &&
	ip -n "$n" link set dev iptnl up &&
	ns_exec "$1" ethtool -K iptnl tx-checksum-ip-generic "$2" >/dev/null &&
	check_feature "$1" iptnl tx-checksum-ip-generic "$2" &&
	sink_settle "$1" sink
}

# the feature really is in the state asked for ("on [fixed]" counts)
check_feature() {	# NS DEV FEATURE on|off
	ns_exec "$1" ethtool -k "$2" | grep -q "^[[:space:]]*$3: $4" ||
		{ echo "$2 $3 is not $4"; return 1; }
}

tx_counters() {		# NS DEV -> "packets bytes" from ip -s -j link
	ns_exec "$1" ip -s -j link show dev "$2" |
		ug_jget - 0.stats64.tx.packets 0.stats64.tx.bytes
}

# ---- running a variant -----------------------------------------------------------
# run_variant NAME REQS SETUP_CMD -- UDPGSO_ARGS...
#   REQS: space separated commands needed (ethtool, python3); SETUP_CMD is
#   evaluated with $ns set to the variant's namespace
run_variant() {
	local name=$1 reqs=$2 setup=$3 ns out rc line why sink="" c0 c1 a prev="" cap=""
	local nneg=0
	shift 4
	# shellcheck disable=SC2053
	[[ "$name" == $only ]] || return 0
	nvar=$((nvar + 1))
	ns=v$nvar
	if [ -n "$reqs" ] && ! why=$(ug_need_cmd $reqs); then
		ktap_skip "$name" "$why"
		return
	fi
	# the variant's namespaces go at its end: ns_add's deferral, and the
	# peer's, which SETUP may create (in a subshell: deferred here)
	defer_scope_begin
	if ! ns_add "$ns"; then
		defer_scope_end
		ktap_skip "$name" "cannot create a network namespace"
		return
	fi
	defer ip netns del "$(ns_name "$ns-peer")"
	if ! why=$(eval "$setup" 2>&1); then
		ktap_fail "$name" "setup failed: $(echo "$why" | tail -n 1)"
		defer_scope_end
		return
	fi
	for a in "$@"; do
		[ "$prev" = "--sink" ] && sink=$a
		[ "$prev" = "--sink-capture" ] && cap=$a
		prev=$a
	done
	[ -n "$sink" ] && c0=$(tx_counters "$ns" "$sink")
	out=$(ns_exec "$ns" "$BIN" "$@" 2>&1)
	rc=$?
	[ "$verbose" = 1 ] && echo "$out" | sed 's/^/#   /'
	while IFS= read -r line; do
		if [ -n "$wire_neg" ]; then
			wire_neg_line "$name" "$line" && nneg=$((nneg + 1))
			continue
		fi
		case "$line" in
		"ok "*"# SKIP"*)
			line=${line#ok }; line=${line#* }
			ktap_skip "$name: ${line%% # SKIP*}" "${line##* # SKIP}" ;;
		"ok "*)
			line=${line#ok }; ktap_ok "$name: ${line#* }" ;;
		"not ok "*)
			line=${line#not ok }; ktap_fail "$name: ${line#* }" ;;
		"# kernel"* | "# segment limit"* | "# gso_size"* | "# GSO without"*)
			[ "$model_printed" = 1 ] || echo "$line" ;;
		"# sink totals"* | "# sink wire totals"* | "# sink capture"*)
			echo "$line" ;;
		"#"* | "TAP version"* | 1..*) ;;
		*)	echo "# $name: $line" ;;
		esac
	done <<<"$out"
	[ "$model_printed" = 1 ] || model_printed=1
	case "$rc" in
	0 | 1) ;;
	4) ktap_skip "$name" "$(echo "$out" | grep SKIP | tail -n 1)" ;;
	*) ktap_fail "$name: udpgso exit status" "exit $rc" ;;
	esac
	if [ -n "$wire_neg" ]; then
		if [ "$nneg" -gt 0 ]; then
			ktap_ok "$name: the capture failed every case it had to ($nneg)"
		else
			ktap_fail "$name: no case failed at the capture (vacuous)"
		fi
	elif [ -n "$sink" ] && [ "$rc" -le 1 ]; then
		# the device counters as ip -s -j link reports them
		c1=$(tx_counters "$ns" "$sink")
		check_totals "$name" "$c0" "$c1" "$out"
		[ -z "$cap" ] || check_wire "$name" "$cap" "$out"
	fi
	defer_scope_end
}

# every case got its wire line, and segments were seen at all
check_wire() {		# NAME DEV OUTPUT
	local nall nwire tot s f g
	nall=$(grep -cE '^(not )?ok [0-9]+ .* \[[0-9]+\] ' <<<"$3")
	nwire=$(grep -cE '^(not )?ok [0-9]+ .*: wire\[[0-9]+\]: ' <<<"$3")
	tot=$(grep '^# sink wire totals' <<<"$3")
	s=$(sed -n 's/.* segments=\([0-9]*\).*/\1/p' <<<"$tot")
	f=$(sed -n 's/.* frames=\([0-9]*\).*/\1/p' <<<"$tot")
	g=$(sed -n 's/.* gso_frames=\([0-9]*\).*/\1/p' <<<"$tot")
	if [ "$nwire" -gt 0 ] && [ "$nwire" = "$((nall - nwire))" ] && [ "${s:-0}" -gt 0 ]; then
		ktap_ok "$1: wire: $nwire of $nwire cases checked on $2, ${s} segments in" \
			"${f:-?} frames (${g:-?} GSO frames)"
	else
		ktap_fail "$1: wire: $nwire wire lines for $((nall - nwire)) cases," \
			"${s:-no} segments captured on $2 (expected every case, and segments)"
	fi
}

# in a wire_selftest variant: a wire line of a case expecting at least
# MINSEG segments must fail as CLASS (status 0: one such failure); other
# wire lines as they are; the rest is not what this variant asserts
wire_neg_line() {	# NAME LINE
	local min=${wire_neg%% *} class=${wire_neg#* } l=$2 st n msg
	case "$l" in
	"ok "*": wire["*"]: "* | "not ok "*": wire["*"]: "*) ;;
	"#"* | "TAP version"* | 1..*) return 1 ;;
	*) echo "# not asserted here: $l"; return 1 ;;
	esac
	st=ok
	[ "${l#not ok }" != "$l" ] && { st="not ok"; l=${l#not ok }; } || l=${l#ok }
	l=${l#* }
	n=${l##*: wire\[}
	msg=${n#*\]: }
	n=${n%%\]*}
	if [ "$n" -lt "$min" ]; then
		[ "$st" = ok ] && ktap_ok "$1: $l" || ktap_fail "$1: $l"
		return 1
	fi
	if [ "$st" = "not ok" ] && [ "${msg#"$class": }" != "$msg" ]; then
		ktap_ok "$1: ${l%%: wire\[*}: wire[$n] failed as expected: $msg"
		return 0
	fi
	ktap_fail "$1: ${l%%: wire\[*}: wire[$n] $st, expected to fail as $class: $msg"
	return 1
}

# wire_selftest NAME "MINSEG CLASS" SETUP -- ARGS: run_variant with its
# wire lines inverted (wire_neg_line)
wire_selftest() {
	local name=$1 neg=$2 setup=$3
	shift 4
	wire_neg=$neg
	run_variant "$name" "ethtool python3" "$setup" -- "$@"
	wire_neg=""
}

# the counters udpgso read per case add up to ip -s -j link's delta
check_totals() {	# NAME "P0 B0" "P1 B1" OUTPUT
	local p0 b0 p1 b1 tp tb
	read -r p0 b0 <<<"$2"
	read -r p1 b1 <<<"$3"
	tp=$(sed -n 's/^# sink totals[^:]*: .* packets=\([0-9]*\) .*/\1/p' <<<"$4")
	tb=$(sed -n 's/^# sink totals[^:]*: .* bytes=\([0-9]*\)$/\1/p' <<<"$4")
	local d="ip -s -j link tx delta $((p1 - p0)) packets $((b1 - b0)) bytes"
	if [ "$((p1 - p0))" = "${tp:-x}" ] && [ "$((b1 - b0))" = "${tb:-x}" ]; then
		ktap_ok "$1: $d = what the cases and probes saw"
	else
		ktap_fail "$1: $d, cases and probes saw ${tp:-?} packets ${tb:-?} bytes"
	fi
}

# ---- the variants -------------------------------------------------------------------
# upstream udpgso.sh (device MTU for unconnected, route MTU for connected)
for f in 4 6; do
	run_variant "ipv$f cmsg" "" 'setup_dev_mtu $ns' -- -"$f" -C
	run_variant "ipv$f setsockopt" "" 'setup_dev_mtu $ns' -- -"$f" -C -s
	run_variant "ipv$f connected" "" 'setup_route_mtu $ns' -- -"$f" -c
	run_variant "ipv$f msg_more" "" 'setup_dev_mtu $ns' -- -"$f" -C -m
done
# beyond upstream: UDP_CORK, route MTU unconnected, connected setsockopt
for f in 4 6; do
	run_variant "ipv$f cork" "" 'setup_dev_mtu $ns' -- -"$f" -C --cork
	run_variant "ipv$f route-mtu" "" 'setup_route_mtu $ns' -- -"$f" -C
	run_variant "ipv$f connected setsockopt msg_more dev-mtu" "" \
		'setup_dev_mtu $ns' -- -"$f" -c -s -m
	run_variant "ipv$f connected cork route-mtu" "" 'setup_route_mtu $ns' \
		-- -"$f" -c --cork
done

probe_sink_kind
if [ -z "$sink_kind" ]; then
	ktap_skip "sink variants" "neither dummy nor veth devices can be created"
else
	[ "$sink_kind" = veth ] &&
		ktap_info "no dummy device on this kernel: the sink is a veth"
	cap=(--sink-capture sink)
	for f in 4 6; do
		run_variant "ipv$f hw-gso hw-csum ($sink_kind sink)" "ethtool python3" \
			'setup_sink_gso $ns on on' -- -"$f" -C -R --sink sink \
			--sink-gso hw "${cap[@]}"
		run_variant "ipv$f sw-gso hw-csum ($sink_kind sink)" "ethtool python3" \
			'setup_sink_gso $ns off on' -- -"$f" -C -R --sink sink \
			--sink-gso sw "${cap[@]}"
		run_variant "ipv$f sw-gso sw-csum ($sink_kind sink)" "ethtool python3" \
			'setup_sink_gso $ns off off' -- -"$f" -C -R --sink sink \
			--sink-gso sw --csum sw "${cap[@]}"
		run_variant "ipv$f sw-gso sw-csum msg_more ($sink_kind sink)" \
			"ethtool python3" 'setup_sink_gso $ns off off' -- -"$f" -C \
			-m -R --sink sink --sink-gso sw --csum sw "${cap[@]}"
	done
	# the capture cannot pass vacuously: on lo nothing of ours passes
	# (every send expecting a segment fails as seg_count, the failing
	# sends pass), and a device doing GSO checked against the software
	# model (2xMSS+1: one GSO frame where 3 segments were expected)
	wire_selftest "ipv4 sink wire self-test: capture on lo" "1 seg_count" \
		'setup_sink_gso $ns off on' -- -4 -C -R --sink sink --sink-gso sw \
		--sink-capture lo
	wire_selftest "ipv4 sink wire self-test: hw-gso sink, sw model" "2 frames" \
		'setup_sink_gso $ns on on' -- -4 -C -R -t 8 --sink sink --sink-gso sw \
		"${cap[@]}"
fi
for f in 4 6; do
	for cs in on off; do
		csum=hw
		[ "$cs" = off ] && csum=sw
		# --sink-gso takes hw|sw: the same words
		[[ "ipv$f tunnel $csum-csum" == $only ]] || continue
		if [ "${have_ipip:-0}" != 1 ]; then
			ktap_skip "ipv$f tunnel $csum-csum" "no ipip device on this kernel"
			continue
		fi
		# on the sink under the tunnel: IPv4 arrives with a 20 byte outer
		# header, as one GSO skb when the tunnel device has checksum
		# offload (USO needs it, 2b2bc3bab158), else as segments; an
		# ipip device drops IPv6, so nothing reaches the sink
		sink_args=(--sink sink --sink-encap 20 --sink-gso "$csum"
			   --sink-capture sink --sink-outer 10.1.1.2,10.1.1.1)
		[ "$f" = 6 ] && sink_args=(--sink sink --sink-gso none)
		run_variant "ipv$f tunnel $csum-csum ($sink_kind sink)" \
			"ethtool python3" "setup_ipip \$ns $cs" -- -"$f" -C -R \
			--csum "$csum" "${sink_args[@]}"
	done
done

ktap_finish
