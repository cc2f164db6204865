#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# udpgso-lab: what is on the wire.  Each case makes one UDP GSO send with
# udpgso_wire and checks every segment captured with AF_PACKET where the
# segments exist: the egress of a veth whose GSO is done in software
# (tx-udp-segmentation off), or for device GSO (on) the one GSO frame on
# the egress and on the peer's ingress with GRO off (virtio_net header:
# gso_type UDP_L4, gso_size).  Checked: IPv4 header (length, checksum, DF,
# IDs in sequence) / IPv6 payload length and extension headers, UDP length,
# UDP checksum (full, or the pseudo-header sum where the skb is
# CHECKSUM_PARTIAL), every payload byte at its offset, the segment sizes.
# First the checker's self-test: crafted bad segments (from memory, then
# written on one veth end and captured on the other) must fail, each with
# its reason.  docs/suite.md "What is on the wire" lists the cases.
#
# usage: udpgso_wire.sh [-k PATTERN]   (-k: only cases whose name matches)

set -u
. "$(dirname "$0")/scripts/lib.sh"

BIN="$UDPGSO_BIN/udpgso_wire"
ug_opt_k "$@"

ktap_header
if ! why=$(ug_need_root) || ! why=$(ug_need_cmd ip ethtool); then
	ktap_skip "udpgso_wire" "$why"
	ktap_finish
fi
ug_need_built "$BIN"
ug_trap_install

A4=192.168.1.2 B4=192.168.1.1 A6=2001:db8::2 B6=2001:db8::1
O4A=172.16.1.2 O4B=172.16.1.1
PORT=9000

# a fresh pair: namespace a (sender, veth va) and b (veth vb), static
# neighbours, b's GRO off (segments stay segments on its ingress)
topo() {
	run_deferred
	ug_trap_install
	ns_add a && ns_add b || return 1
	NA=$(ns_name a) NB=$(ns_name b)
	veth_pair a va b vb || return 1
	ip -n "$NA" addr add "$A4/24" dev va && ip -n "$NB" addr add "$B4/24" dev vb &&
	ip -n "$NA" addr add "$A6/64" dev va nodad && ip -n "$NB" addr add "$B6/64" dev vb nodad &&
	ip -n "$NA" neigh replace "$B4" lladdr "$(mac b vb)" dev va nud permanent &&
	ip -n "$NA" neigh replace "$B6" lladdr "$(mac b vb)" dev va nud permanent &&
	ip netns exec "$NB" ethtool -K vb gro off >/dev/null
}
mac() { ip netns exec "$(ns_name "$1")" cat "/sys/class/net/$2/address"; }
# feat NS DEV FEATURE on|off ...: ethtool -K and check it took
feat() {
	local ns=$1 dev=$2
	shift 2
	ip netns exec "$(ns_name "$ns")" ethtool -K "$dev" "$@" >/dev/null 2>&1
	while [ $# -ge 2 ]; do
		ip netns exec "$(ns_name "$ns")" ethtool -k "$dev" |
			grep -q "^[[:space:]]*$1: $2" || { echo "ethtool -K $dev $1 $2 did not take"; return 1; }
		shift 2
	done
}

# wire NAME ARGS...: one send, one TAP line with the tool's summary
wire() {
	local name=$1 out rc
	shift
	# shellcheck disable=SC2254
	case "$name" in $only) ;; *) return 0 ;; esac
	out=$(ip netns exec "$NA" "$BIN" send -p "$PORT" "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	ktap_result "$rc" "$name" "$(echo "$out" | tail -n1)"
}
v4() { wire "$1" -4 -S "$A4" -D "$B4" "${@:2}"; }
v6() { wire "$1" -6 -S "$A6" -D "$B6" "${@:2}"; }

# selftest [ARGS]: relay the tool's "ok/not ok NAME: ..." lines
selftest() {
	local prefix=$1 line
	shift
	# shellcheck disable=SC2254
	case "selftest $prefix" in $only) ;; *) return 0 ;; esac
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ktap_ok "selftest $prefix: ${line#ok }" ;;
		"not ok "*) ktap_fail "selftest $prefix: ${line#not ok }" ;;
		*) echo "# $line" ;;
		esac
	done < <(ip netns exec "$NA" "$BIN" selftest "$@" 2>&1)
}

# kver_lt MAJOR MINOR: the running kernel is older than MAJOR.MINOR
kver_lt() {
	local r maj min
	r=$(uname -r)
	maj=${r%%.*} min=${r#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -lt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -lt "$2" ]; }
}
# before v6.11 a GSO send fails with EIO where the kernel would segment it
# with extension headers or without checksum offload (30b03f2a0592,
# 10154dbded6d; the send side is in udpgso.sh): OLD_EIO holds the flag
OLD_EIO=()
kver_lt 6 11 && OLD_EIO=(--expect-errno EIO)
# eio NAME: the name with what is expected before 6.11
eio() { if kver_lt 6 11; then echo "$1: EIO before 6.11"; else echo "$1"; fi; }

topo || ug_die "cannot build the veth topology"
ktap_info "kernel $(uname -r); MSS 1472 (IPv4) / 1452 (IPv6) on a 1500-byte veth"

# ---- the checker itself ----------------------------------------------------
selftest memory
selftest wire --inject va --cap vb --cap-netns "$NB"

# ---- software GSO: segments on va's egress -----------------------------------
if why=$(feat a va tx-udp-segmentation off); then
	for fam in 4 6; do
		if [ $fam = 4 ]; then m=1472 f=v4; else m=1452 f=v6; fi
		for len in $((m - 1)) $m $((m + 1)) $((2 * m)) $((2 * m + 1)) $((3 * m)) \
			   $((3 * m + 1)) $((10 * m)); do
			$f "ipv$fam sw-gso len $len gso $m (setsockopt)" -s "$len" -M "$m" -i va
		done
		$f "ipv$fam sw-gso len $((4 * m)) gso $m (cmsg)" -s $((4 * m)) -M "$m" --cmsg -i va
		$f "ipv$fam sw-gso len $((4 * m + 1)) gso $m tail 1 (cmsg)" \
			-s $((4 * m + 1)) -M "$m" --cmsg -i va
		$f "ipv$fam sw-gso gso 100 x 128 segments (UDP_MAX_SEGMENTS)" -s 12800 -M 100 -i va
		$f "ipv$fam sw-gso gso 100 x 128 + 1: EINVAL" -s 12801 -M 100 --expect-errno EINVAL
		$f "ipv$fam sw-gso gso 1 len 7" -s 7 -M 1 -i va
		$f "ipv$fam sw-gso max payload gso $m" -s $((fam == 4 ? 65507 : 65527)) -M "$m" -i va
		$f "ipv$fam GSO with SO_NO_CHECK/UDP_NO_CHECK6_TX: EINVAL" -s 3000 -M "$m" \
			--no-check --expect-errno EINVAL
		$f "ipv$fam no GSO, no checksum (zero allowed)" -s 1000 --no-check -i va
	done
	v4 "ipv4 sw-gso connected, IP_PMTUDISC_DO: DF, socket IDs" -s 4416 -M 1472 \
		--connect --pmtudisc-do -i va
	v6 "$(eio "ipv6 sw-gso destination options header, len 4332 gso 1444")" -s 4332 \
		-M 1444 --dstopts 8 -i va "${OLD_EIO[@]}"
	v6 "$(eio "ipv6 sw-gso destination options 16 B, len 4000 gso 1436 (cmsg)")" \
		-s 4000 -M 1436 --dstopts 16 --cmsg -i va "${OLD_EIO[@]}"
	v6 "$(eio "ipv6 sw-gso hop-by-hop + destination options, len 4308 gso 1436")" \
		-s 4308 -M 1436 --hopopts 8 --dstopts 8 -i va "${OLD_EIO[@]}"
	v4 "ipv4 sw-gso captured on the peer's ingress (GRO off)" -s 4000 -M 1472 \
		-i vb --cap-netns "$NB" --dir in
	v6 "ipv6 sw-gso captured on the peer's ingress (GRO off)" -s 4000 -M 1452 \
		-i vb --cap-netns "$NB" --dir in
else
	ktap_skip "sw-gso" "$why"
fi

# ---- checksum offload off: full checksums in every segment -------------------
if why=$(feat a va tx-checksumming off); then
	v4 "$(eio "ipv4 sw-gso, tx-checksumming off: full checksums")" -s 4417 -M 1472 \
		-i va "${OLD_EIO[@]}"
	v6 "$(eio "ipv6 sw-gso, tx-checksumming off: full checksums")" -s 4357 -M 1452 \
		-i va "${OLD_EIO[@]}"
	feat a va tx-checksumming on >/dev/null
else
	ktap_skip "tx-checksumming off" "$why"
fi

# ---- device GSO: the GSO frame crosses the veth whole -----------------------
if why=$(feat a va tx-checksumming on tx-udp-segmentation on); then
	v4 "ipv4 dev-gso GSO frame on va egress" -s 4000 -M 1472 -i va
	v6 "ipv6 dev-gso GSO frame on va egress" -s 4000 -M 1452 -i va
	v4 "ipv4 dev-gso GSO frame on vb ingress (GRO off)" -s 2944 -M 1472 \
		-i vb --cap-netns "$NB" --dir in
	v6 "ipv6 dev-gso GSO frame on vb ingress (GRO off)" -s 2904 -M 1452 \
		-i vb --cap-netns "$NB" --dir in
	# IPv6 with an extension header: software GSO whatever the device
	# offers (30b03f2a0592, v6.11): segments even here
	v6 "$(eio "ipv6 dev-gso with destination options: segmented in software")" \
		-s 4332 -M 1444 --dstopts 8 -i va "${OLD_EIO[@]}"
else
	ktap_skip "dev-gso" "$why"
fi

# ---- forwarded: the GSO skb crosses va whole (device GSO), is forwarded by
# namespace r and segmented in software on r's egress vc -------------------
fwd() {
	local ns=(a r c) n
	run_deferred
	ug_trap_install
	for n in "${ns[@]}"; do ns_add "$n" || return 1; done
	NA=$(ns_name a) NR=$(ns_name r) NC=$(ns_name c)
	veth_pair a va r vb && veth_pair r vc c vd || return 1
	ip netns exec "$NR" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		>/dev/null || return 1
	ip -n "$NA" addr add "$A4/24" dev va && ip -n "$NR" addr add "$B4/24" dev vb &&
	ip -n "$NR" addr add 192.168.2.1/24 dev vc && ip -n "$NC" addr add 192.168.2.2/24 dev vd &&
	ip -n "$NA" addr add "$A6/64" dev va nodad && ip -n "$NR" addr add "$B6/64" dev vb nodad &&
	ip -n "$NR" addr add 2001:db8:2::1/64 dev vc nodad &&
	ip -n "$NC" addr add 2001:db8:2::2/64 dev vd nodad &&
	ip -n "$NA" route add default via "$B4" && ip -n "$NA" -6 route add default via "$B6" &&
	ip -n "$NC" route add default via 192.168.2.1 &&
	ip -n "$NC" -6 route add default via 2001:db8:2::1 &&
	ip -n "$NA" neigh replace "$B4" lladdr "$(mac r vb)" dev va nud permanent &&
	ip -n "$NA" neigh replace "$B6" lladdr "$(mac r vb)" dev va nud permanent &&
	ip -n "$NR" neigh replace 192.168.2.2 lladdr "$(mac c vd)" dev vc nud permanent &&
	ip -n "$NR" neigh replace 2001:db8:2::2 lladdr "$(mac c vd)" dev vc nud permanent ||
		return 1
	ip netns exec "$NR" ethtool -K vb gro off >/dev/null
	feat a va tx-udp-segmentation on && feat r vc tx-udp-segmentation off
}
if fwd >/dev/null 2>&1; then
	wire "ipv4 forwarded: dev-gso skb segmented on the next hop's egress" -4 -S "$A4" \
		-D 192.168.2.2 -s 4417 -M 1472 -i vc --cap-netns "$NR" --ttl 63
	wire "ipv4 forwarded: exact multiple 3 x 1472" -4 -S "$A4" -D 192.168.2.2 \
		-s 4416 -M 1472 -i vc --cap-netns "$NR" --ttl 63
	wire "ipv6 forwarded: dev-gso skb segmented on the next hop's egress" -6 -S "$A6" \
		-D 2001:db8:2::2 -s 4357 -M 1452 -i vc --cap-netns "$NR" --ttl 63
	wire "ipv6 forwarded: exact multiple 3 x 1452" -6 -S "$A6" -D 2001:db8:2::2 \
		-s 4356 -M 1452 -i vc --cap-netns "$NR" --ttl 63
else
	ktap_fail "forwarded" "the routed topology could not be built"
fi

# ---- UDP tunnels: vxlan, geneve over va/vb, segments on va's egress ---------
# tunnel KIND PORT: the overlay vx0 over va/vb; 4 when the kernel has no such
# device or va cannot do without tunnel offloads
tunnel() {
	local kind=$1 port=$2 a=(remote "$B4") b=(remote "$A4")
	if [ "$kind" = vxlan ]; then
		a=(local "$A4" remote "$B4" dev va) b=(local "$B4" remote "$A4" dev vb)
	fi
	ip -n "$NA" link add vx0 type "$kind" id 42 "${a[@]}" dstport "$port" 2>/dev/null ||
		{ echo "no $kind device on this kernel ($(uname -r))"; return 4; }
	ip -n "$NB" link add vx0 type "$kind" id 42 "${b[@]}" dstport "$port" &&
	ip -n "$NA" link set vx0 mtu 1450 && ip -n "$NB" link set vx0 mtu 1450 &&
	ip -n "$NA" addr add "$O4A/24" dev vx0 && ip -n "$NB" addr add "$O4B/24" dev vx0 &&
	ip -n "$NA" link set vx0 up && ip -n "$NB" link set vx0 up &&
	ip -n "$NA" neigh replace "$O4B" lladdr "$(mac b vx0)" dev vx0 nud permanent ||
		{ echo "$kind setup failed"; return 1; }
	feat a va tx-udp-segmentation off tx-udp_tnl-segmentation off \
		tx-udp_tnl-csum-segmentation off || return 4
}
# MTU 1450 on the overlay: inner MSS 1422.  The outer UDP checksum, where the
# device sends one, is checked over the completed inner packet (LCO); a zero
# one is allowed (vxlan udpcsum / geneve udpcsum off)
why_f=$(mktemp)
for t in "vxlan 4789" "geneve 6081"; do
	read -r kind port <<<"$t"
	topo || ug_die "cannot rebuild the veth topology"
	tunnel "$kind" "$port" >"$why_f" 2>&1
	case $? in
	0)
		wire "ipv4 in $kind sw-gso len 4266 gso 1422: outer and inner headers" -4 \
			-S "$O4A" -D "$O4B" -s 4266 -M 1422 -i va \
			"--$kind" "$port" --osrc "$A4" --odst "$B4" --outer-zero-ok
		wire "ipv4 in $kind sw-gso len 4267 gso 1422 (cmsg)" -4 -S "$O4A" -D "$O4B" \
			-s 4267 -M 1422 --cmsg -i va "--$kind" "$port" --osrc "$A4" \
			--odst "$B4" --outer-zero-ok
		;;
	4) ktap_skip "$kind" "$(cat "$why_f")" ;;
	*) ktap_fail "$kind" "$(cat "$why_f")" ;;
	esac
done
rm -f "$why_f"

ktap_finish
