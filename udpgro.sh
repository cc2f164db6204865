#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgro.sh: UDP GRO on the receive side, one host.  Two fresh network
# namespaces per case, tx and rx, joined by a veth pair; GRO is switched
# with ethtool on the receiving veth (no XDP program needed).
#
# Every case checks what the receiving socket got (reads, UDP_GRO cmsg
# gso_size, datagrams, payload bytes and sequence stamps) AND where the
# packets were coalesced:
#   obs.wire   packets the receiving veth counted (before GRO)
#   obs.input  UDP packets the rx namespace's input hook counted (after GRO)
# so a GRO case shows N packets on the wire and one in the input hook, and a
# case that gets one big buffer without GRO on the way is told apart from
# one that was coalesced.
#
#   ./udpgro.sh [-4|-6] [-t CASE]    (default: both families, every case;
#                                     -l lists the cases)
set -u
. "$(dirname "$0")/scripts/lib.sh"
. "$(dirname "$0")/scripts/gro_lib.sh"

CASES="no_gro no_gro_gso gro gro_custom_segment gro_plain_socket gro_multi_socket
	bad_gro_lookup tso_bypasses_gro gso_unsegmented_gro_socket gso_unsegmented_plain_socket
	gro_list_plain_socket gro_list_gro_socket tcp_gro udp_gso_bench udp_gso_gro_bench"

N=10			# segments per GSO send in the exact cases
PORT=8000

# ---- topology -----------------------------------------------------------------
# tx (vtx, A_TX) <-veth-> rx (vrx, A_RX); obs.wire and obs.input watched
topo() {
	gro_ns tx rx || return 1
	gro_link tx vtx "$A_TX" rx vrx "$A_RX" || return 1
	gro_watch wire link rx vrx rx || return 1
	gro_watch input cnt rx input "$PORT"
}
# GRO on the receiving veth; the sender segments in software before its
# veth, with TSO off so that veth hands the packets to its NAPI (GRO)
rx_gro() {
	gro_offload rx vrx gro on "$@" || return 1
	gro_sender_segments tx vtx
}

# one GSO send of N segments of size SEG (default: MSS)
gso_send() {		# [SEG [PORT]]
	local seg=${1:-$MSS}
	gro_send tx tx "$FAM" -D "$A_RX" -p "${2:-$PORT}" -M 1 -s $((N * seg)) -S "$seg" --seq
}

# ---- cases ----------------------------------------------------------------------
# GRO off: N plain sends reach a UDP_GRO socket as N reads, no cmsg
case_no_gro() {
	topo || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n "$N" -l 1400 -S -1 -v --seq || return
	gro_send tx tx "$FAM" -D "$A_RX" -p "$PORT" -M "$N" -s 1400 --seq
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == $N" "rx.gro_reads == 0" "obs.input == $N"
}
# GRO off, a GSO send segmented before the veth: N packets, N reads, no cmsg
case_no_gro_gso() {
	topo || return
	gro_sender_segments tx vtx || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n "$N" -l "$MSS" -S -1 -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == $N" "rx.gro_reads == 0" "obs.input == $N"
}
# GRO on: N packets on the wire, one skb after GRO, one read of N*MSS bytes
# with cmsg gso_size = MSS
case_gro() {
	topo && rx_gro || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n 1 -l $((N * MSS)) -S "$MSS" -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == 1" "rx.gro_reads == 1" "rx.datagrams_per_read == $N" "obs.input == 1"
}
# GRO with a 500-byte segment: the same bytes as 29 full segments and a
# 220-byte tail, coalesced into one read with gso_size 500
case_gro_custom_segment() {
	local len=$((N * MSS)) segs=$(((N * MSS + 499) / 500))
	topo && rx_gro || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n 1 -l "$len" -S 500 -v --seq || return
	gro_send tx tx "$FAM" -D "$A_RX" -p "$PORT" -M 1 -s "$len" -S 500 --seq
	sent_ok "$segs"
	rx_ok rx "$segs"
	n_on wire "$segs"
	expect "rx.reads == 1" "rx.gro_reads == 1" "rx.bytes == $len" "obs.input == 1"
}
# GRO on, but the socket has no UDP_GRO: GRO leaves the packets alone and the
# socket gets N datagrams of MSS bytes
case_gro_plain_socket() {
	topo && rx_gro || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -n "$N" -l "$MSS" --mode recvmsg -S -1 -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == $N" "rx.gro_reads == 0" "obs.input == $N"
}
# two UDP_GRO sockets on two ports, one GSO send to each: each gets its own
# coalesced read
case_gro_multi_socket() {
	local p2=$((PORT + 1))
	topo && rx_gro || return
	gro_watch input2 cnt rx input "$p2" || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n 1 -l $((N * MSS)) -S "$MSS" -v --seq || return
	gro_rx rx2 rx "$p2" "${RXF[@]}" -G -n 1 -l $((N * MSS)) -S "$MSS" -v --seq || return
	gso_send
	gro_send tx2 tx "$FAM" -D "$A_RX" -p "$p2" -M 1 -s $((N * MSS)) -S "$MSS" --seq
	sent_ok "$N"
	rx_ok rx "$N"
	rx_ok rx2 "$N"
	n_on wire $((2 * N))
	expect "tx2.datagrams == $N" "rx.reads == 1" "rx.gro_reads == 1" "rx2.reads == 1" \
		"rx2.gro_reads == 1" "obs.input == 1" "obs.input2 == 1"
}
# "bad GRO lookup": GRO looks up the socket before DNAT, finds the UDP_GRO
# socket on A_RX and coalesces; DNAT then delivers to the plain socket on
# A_RX2, and the kernel must split the GRO packet back into N datagrams
case_bad_gro_lookup() {
	topo && rx_gro || return
	gro_addr rx vrx "$A_RX2" || return
	gro_dnat rx "$A_RX" "$A_RX2" || return
	# the UDP_GRO socket stays open until the plain one has everything
	gro_rx grosock rx "$PORT" "${RXF[@]}" -G -b "$A_RX" -R 500 || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -b "$A_RX2" -n "$N" -l "$MSS" --mode recvmsg -S -1 \
		-v --seq || return
	gso_send
	gro_rx_wait rx
	gro_rx_stop grosock
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == $N" "rx.gro_reads == 0" "grosock.datagrams == 0" "obs.input == 1"
}
# the veth trap: GRO on at the receiver, but the sender's veth has TSO on, so
# veth does not use its NAPI and nothing is coalesced
case_tso_bypasses_gro() {
	topo || return
	gro_offload rx vrx gro on || return
	gro_offload tx vtx tso on tx-udp-segmentation off || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n "$N" -l "$MSS" -S -1 -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == $N" "rx.gro_reads == 0" "obs.input == $N"
}
# no GRO anywhere, and the GSO skb crosses the veth whole (as on lo): a
# UDP_GRO socket still gets one read with gso_size.  gro_reads > 0 alone
# proves nothing; the wire count (1, not N) tells the two apart.
case_gso_unsegmented_gro_socket() {
	topo && gro_offload tx vtx tx-udp-segmentation on || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n 1 -l $((N * MSS)) -S "$MSS" -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	one_on wire
	expect "rx.reads == 1" "rx.gro_reads == 1" "obs.input == 1"
}
# ... and a plain socket: the kernel segments the GSO skb for it
case_gso_unsegmented_plain_socket() {
	topo && gro_offload tx vtx tx-udp-segmentation on || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -n "$N" -l "$MSS" --mode recvmsg -S -1 -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	one_on wire
	expect "rx.reads == $N" "rx.gro_reads == 0" "obs.input == 1"
}
# rx-gro-list: fraglist GRO builds one skb for a socket without UDP_GRO
# (one packet in the input hook), which the kernel splits into N datagrams
case_gro_list_plain_socket() {
	topo && rx_gro rx-gro-list on || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -n "$N" -l "$MSS" --mode recvmsg -S -1 -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == $N" "rx.gro_reads == 0" "obs.input == 1"
}
# rx-gro-list and a UDP_GRO socket: plain UDP GRO wins, one read with cmsg
case_gro_list_gro_socket() {
	topo && rx_gro rx-gro-list on || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -n 1 -l $((N * MSS)) -S "$MSS" -v --seq || return
	gso_send
	sent_ok "$N"
	rx_ok rx "$N"
	n_on wire "$N"
	expect "rx.reads == 1" "rx.gro_reads == 1" "obs.input == 1"
}
# TCP over the same veth with GRO and rx-gro-list on: every byte arrives
# and GRO coalesced (fewer segments in the input hook than on the wire)
case_tcp_gro() {
	topo && rx_gro rx-gro-list on || return
	gro_watch tcpin cnt rx input "$PORT" tcp || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -t || return
	gro_send tx tx "$FAM" -t -D "$A_RX" -p "$PORT" -l 1
	expect "tx.errors == 0" "tx.bytes > 0" "rx.bytes == tx.bytes" "rx.errors == 0" \
		"obs.tcpin < obs.wire"
}
# one second of GSO sends over veth, as upstream's udpgro_bench.sh: to a plain
# socket, and to a UDP_GRO socket with GRO on.  No speed is asserted; the
# checks are that data flowed, every byte is right, nothing was duplicated or
# reordered, and (GRO) that reads carried several datagrams.
case_udp_gso_bench() {
	topo && gro_sender_segments tx vtx || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -v --seq -C 5000 -R 300 --rcvbuf 4194304 || return
	gro_send tx tx "$FAM" -D "$A_RX" -p "$PORT" -l 1 -s $((N * MSS)) -S 0 --seq
	flood_ok
	expect "rx.gro_reads == 0"
}
case_udp_gso_gro_bench() {
	topo && rx_gro || return
	gro_rx rx rx "$PORT" "${RXF[@]}" -G -v --seq -C 5000 -R 300 --rcvbuf 4194304 || return
	gro_send tx tx "$FAM" -D "$A_RX" -p "$PORT" -l 1 -s $((N * MSS)) -S 0 --seq
	flood_ok
	expect "rx.gro_reads > 0" "rx.datagrams_per_read > 1" "obs.input < obs.wire"
}

gro_main "$@"
