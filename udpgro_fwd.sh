#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgro_fwd.sh: GRO of forwarded UDP (rx-gro-list, rx-udp-gro-forwarding)
# and of UDP inside a vxlan tunnel.  Fresh network namespaces per case:
#
#   routed:  tx --veth-- router --veth-- rx     (GRO on the router's ingress
#            vtx   vr1          vr2   vrx        veth, counted in its forward
#                                                hook: N packets vs 1 aggregate)
#   local:   tx --veth-- rx, DNAT inside rx     (upstream's "GRO fwd")
#   vxlan:   tx --veth-- rx with a vxlan device at both ends
#
# Counted: obs.wire (packets the router's / receiver's ingress veth saw,
# before GRO), obs.fwd (router forward hook), obs.out (skbs crossing the
# router's egress veth), obs.input / obs.outer / obs.inner (rx input hook:
# UDP to the test port / to the vxlan port).  The receiving socket checks
# reads, datagrams, payload bytes and sequence stamps.
#
#   ./udpgro_fwd.sh [-4|-6] [-t CASE] [-l]
set -u
. "$(dirname "$0")/scripts/lib.sh"
. "$(dirname "$0")/scripts/gro_lib.sh"

CASES="fwd_no_gro fwd_gro_only fwd_gro_list fwd_gro_list_gro_socket fwd_udp_gro_fwd
	fwd_udp_gro_fwd_gro_socket local_gro_fwd_dnat vxlan_gro_list vxlan_gro_fwd
	vxlan_gro_socket fwd_bench fwd_gro_bench"

N=10			# segments per GSO send, as upstream: 13000 bytes in 1300
SEG=1300
PORT=8000
VXPORT=4789

# ---- topologies ----------------------------------------------------------------------
routed() {
	gro_ns tx rt rx || return 1
	gro_link tx vtx "$R_TX" rt vr1 "$R_RT1" || return 1
	gro_link rt vr2 "$R_RT2" rx vrx "$R_RX" || return 1
	gro_route tx "$R_RT1" && gro_route rx "$R_RT2" && gro_forwarding rt || return 1
	# the sender segments before its veth: N packets reach the router
	gro_sender_segments tx vtx || return 1
	gro_watch wire link rt vr1 rx || return 1
	gro_watch out link rx vrx rx || return 1
	gro_watch fwd cnt rt forward "$PORT" || return 1
	gro_watch input cnt rx input "$PORT"
}
send_routed() {		# [DST]
	gro_send tx tx "$FAM" -D "${1:-$R_RX}" -p "$PORT" -M 1 -s $((N * SEG)) -S "$SEG" --seq
}
rx_plain() {		# KEY ADDR...: plain socket expecting N datagrams of SEG
	local key=$1
	shift
	gro_rx "$key" rx "$PORT" "${RXF[@]}" "$@" -n "$N" -l "$SEG" --mode recvmsg -S -1 \
		-v --seq
}
rx_gro_sock() {		# KEY ADDR...: UDP_GRO socket expecting one read of N*SEG
	local key=$1
	shift
	gro_rx "$key" rx "$PORT" "${RXF[@]}" "$@" -G -n 1 -l $((N * SEG)) -S "$SEG" -v --seq
}

# two namespaces; vxlan devices vx (VNI 4, port 4789) on the underlay
vxlan_pair() {
	local m
	gro_ns tx rx || return 1
	gro_link tx vtx "$A_TX" rx vrx "$A_RX" || return 1
	for m in "tx $A_TX $A_RX $O_TX" "rx $A_RX $A_TX $O_RX"; do
		set -- $m
		ip -n "$(ns_name "$1")" link add vx type vxlan id 4 dstport "$VXPORT" \
			local "$2" remote "$3" 2>/dev/null ||
			{ gro_skip "cannot create a vxlan device"; return 1; }
		ip -n "$(ns_name "$1")" link set vx addrgenmode none 2>/dev/null
		gro_addr "$1" vx "$4" "$OLEN" || return 1
		ip -n "$(ns_name "$1")" link set vx up || { gro_fail "vx up failed"; return 1; }
	done
	gro_neigh tx vx "$O_RX" rx vx && gro_neigh rx vx "$O_TX" tx vx ||
		{ gro_fail "vxlan neighbours failed"; return 1; }
	# segment on the vxlan device: N encapsulated packets on the underlay,
	# and TSO off on the underlay veth so that veth runs its NAPI (GRO)
	gro_offload tx vx tx-udp-segmentation off || return 1
	gro_offload tx vtx tso off || return 1
	gro_watch wire link rx vrx rx || return 1
	gro_watch outer cnt rx input "$VXPORT" || return 1
	gro_watch inner cnt rx input "$PORT"
}
send_vxlan() {		# DST
	gro_send tx tx "$FAM" -D "$1" -p "$PORT" -M 1 -s $((N * SEG)) -S "$SEG" --seq
}

# ---- routed cases -----------------------------------------------------------------------
# no GRO on the router: N packets forwarded, N datagrams delivered
case_fwd_no_gro() {
	routed || return
	rx_plain rx || return
	send_routed
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; n_on out "$N"
	expect "obs.fwd == $N" "obs.input == $N" "rx.reads == $N"
}
# GRO alone on the router: UDP GRO leaves forwarded packets alone (no local
# socket asked for it), still N forwarded
case_fwd_gro_only() {
	routed && gro_offload rt vr1 gro on || return
	rx_plain rx || return
	send_routed
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; n_on out "$N"
	expect "obs.fwd == $N" "obs.input == $N"
}
# rx-gro-list on the router: one fraglist aggregate forwarded and crossing
# the egress veth whole; the receiver's kernel splits it into N datagrams
case_fwd_gro_list() {
	routed && gro_offload rt vr1 gro on rx-gro-list on || return
	rx_plain rx || return
	send_routed
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; one_on out
	expect "obs.fwd == 1" "obs.input == 1" "rx.reads == $N"
}
# ... to a UDP_GRO socket: a fraglist skb is not handed to it whole either,
# it gets N separate datagrams without cmsg
case_fwd_gro_list_gro_socket() {
	routed && gro_offload rt vr1 gro on rx-gro-list on || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n "$N" -l "$SEG" -S -1 -v --seq || return
	send_routed
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; one_on out
	expect "obs.fwd == 1" "obs.input == 1" "rx.reads == $N" "rx.gro_reads == 0"
}
# rx-udp-gro-forwarding on the router: one UDP GSO aggregate forwarded; a
# plain socket behind it gets N datagrams
case_fwd_udp_gro_fwd() {
	routed && gro_offload rt vr1 gro on rx-udp-gro-forwarding on || return
	rx_plain rx || return
	send_routed
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; one_on out
	expect "obs.fwd == 1" "obs.input == 1" "rx.reads == $N"
}
# ... and a UDP_GRO socket behind it gets the aggregate as one read with
# gso_size = SEG, although GRO ran on another host
case_fwd_udp_gro_fwd_gro_socket() {
	routed && gro_offload rt vr1 gro on rx-udp-gro-forwarding on || return
	rx_gro_sock rx || return
	send_routed
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; one_on out
	expect "obs.fwd == 1" "obs.input == 1" "rx.reads == 1" "rx.gro_reads == 1"
}
# upstream's "GRO fwd" on one host: traffic to an address with no socket
# (A_RX2) is aggregated by rx-udp-gro-forwarding, then DNAT delivers it to
# the plain socket on A_RX, which gets N datagrams
case_local_gro_fwd_dnat() {
	gro_ns tx rx || return
	gro_link tx vtx "$A_TX" rx vrx "$A_RX" || return
	gro_addr rx vrx "$A_RX2" && gro_neigh tx vtx "$A_RX2" rx vrx || return
	gro_sender_segments tx vtx || return
	gro_offload rx vrx gro on rx-udp-gro-forwarding on || return
	gro_dnat rx "$A_RX2" "$A_RX" || return
	gro_watch wire link rx vrx rx && gro_watch input cnt rx input "$PORT" || return
	rx_plain rx -b "$A_RX" || return
	gro_send tx tx "$FAM" -D "$A_RX2" -p "$PORT" -M 1 -s $((N * SEG)) -S "$SEG" --seq
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"
	expect "obs.input == 1" "rx.reads == $N"
}

# ---- vxlan cases ---------------------------------------------------------------------
# rx-gro-list under a vxlan tunnel: no L4 aggregation of the tunnel packets
# (N outer, N inner), N datagrams to the plain socket on the overlay
case_vxlan_gro_list() {
	vxlan_pair && gro_offload rx vrx gro on rx-gro-list on || return
	rx_plain rx || return
	send_vxlan "$O_RX"
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; n_on outer "$N"
	expect "obs.inner == $N"
}
# rx-udp-gro-forwarding under a vxlan tunnel, inner DNAT as upstream does to
# get past the socket lookup: still N outer, N inner
case_vxlan_gro_fwd() {
	vxlan_pair && gro_offload rx vrx gro on rx-udp-gro-forwarding on || return
	gro_addr rx vx "$O_RX2" "$OLEN" && gro_neigh tx vx "$O_RX2" rx vx || return
	gro_dnat rx "$O_RX2" "$O_RX" || return
	rx_plain rx -b "$O_RX" || return
	send_vxlan "$O_RX2"
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; n_on outer "$N"
	expect "obs.inner == $N"
}
# a UDP_GRO socket on the overlay: the outer packets stay N, the inner ones
# are coalesced after decapsulation (the vxlan device's GRO cells): one read
case_vxlan_gro_socket() {
	vxlan_pair && gro_offload rx vrx gro on || return
	rx_gro_sock rx || return
	send_vxlan "$O_RX"
	sent_ok "$N"; rx_ok rx "$N"; n_on wire "$N"; n_on outer "$N"
	expect "obs.inner == 1" "rx.reads == 1" "rx.gro_reads == 1"
}

# ---- one second of forwarding, as upstream's "UDP fwd perf" / "UDP GRO fwd perf" --
# No speed asserted: data flowed, every byte right, no duplicates or
# reordering; with rx-udp-gro-forwarding the router forwarded fewer packets
# than reached it.
bench() {
	gro_rx rx rx "$PORT" "${RXF[@]}" -v --seq -C 5000 -R 300 --rcvbuf 4194304 || return
	gro_send tx tx "$FAM" -D "$R_RX" -p "$PORT" -l 1 -s $((N * SEG)) -S "$SEG" --seq
	flood_ok
}
case_fwd_bench() {
	routed || return
	bench
	expect "obs.fwd <= obs.wire" "obs.fwd >= obs.wire - 3"
}
case_fwd_gro_bench() {
	routed && gro_offload rt vr1 gro on rx-udp-gro-forwarding on || return
	bench
	expect "obs.fwd < obs.wire"
}

gro_main "$@"
