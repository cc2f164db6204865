#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# napi_cut_test.sh: unit tests of udpgso_wire_napi.c, the receiver's GRO
# flushes inside a train (device/gro.sh's --napi-trace): crafted traces,
# written as tracefs writes them (net:napi_gro_receive_entry, napi:napi_poll,
# the kprobe events ugnapi_rx / ugnapi_flush), read by `udpgso_wire gro
# --cut-from`, which prints the case's expectation cut at the flushes.
# Each trace is one whose flushes change the verdict (the guest's virtio-net
# splits of max_count: 19+47, 64+1+1; the must-fail train's 2+2); a last
# case feeds a wrong cut (each group split in place, max_count's limit not
# recounted) and passes only if the comparison fails.  No root, no network.
#
#   scripts/tests/napi_cut_test.sh
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

BIN=${UDPGSO_BIN:-$UG_TOP}/udpgso_wire
ktap_header
ug_need_built "$BIN"
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT

# trace: lines "pkt JIFFIES [LEN [GSO_SIZE]]", "flush OLD JIFFIES", "oflush OLD JIFFIES",
# "poll WORK BUDGET" on stdin; tracefs's text on stdout (LEN default $LEN)
trace() {
	awk -v len0="${LEN:-1028}" -v proto="${PROTO:-0x0800}" '
	BEGIN { print "# tracer: nop"; print "#"; t = 15604.165265; napi = "0xffff888004a3c010" }
	function pre(ev) {
		t += 0.000011
		printf "     udpgso_wire-29473   [001] ..s1. %.6f: %s: ", t, ev
	}
	$1 == "pkt" {
		pre("ugnapi_rx")
		printf "(napi_gro_receive+0x0/0x1b0) napi=%s j=%s\n", napi, $2
		pre("napi_gro_receive_entry")
		printf "dev=ugd0 napi_id=0x4ee queue_mapping=0 skbaddr=0000000040c3a300 " \
		       "vlan_tagged=0 vlan_proto=0x0000 vlan_tci=0x0000 protocol=%s ip_summed=0 " \
		       "hash=0x00000000 l4_hash=0 len=%d data_len=0 truesize=2304 " \
		       "mac_header_valid=1 mac_header=-14 nr_frags=0 gso_size=%d gso_type=0x0\n",
		       proto, $3 ? $3 : len0, $4 + 0
	}
	$1 == "flush" {
		pre("ugnapi_flush")
		printf "(napi_gro_flush+0x0/0xd0) napi=%s old=%d j=%s\n", napi, $2, $3
	}
	$1 == "oflush" {	# a flush of another NAPI instance (the remote NIC in the guest)
		pre("ugnapi_flush")
		printf "(napi_gro_flush+0x0/0xd0) napi=0xffff888004a3d7c0 old=%d j=%s\n", $2, $3
	}
	$1 == "poll" {
		pre("napi_poll")
		printf "napi poll on napi struct 0000000027a89200 for device ugd0 work %d " \
		       "budget %d\n", $2, $3
	}'
}
rep() { local i; for ((i = 0; i < $1; i++)); do echo "$2"; done; }

# check NAME EXPECTED TRACEFILE ARGS...: the last line of --cut-from
check() {
	local name=$1 want=$2 file=$3 got
	shift 3
	got=$("$BIN" gro "$@" --cut-from "$file" 2>&1 | tail -n 1)
	if [ "$got" = "$want" ]; then
		ktap_ok "$name: $got"
	else
		ktap_fail "$name" "got '$got', expected '$want'"
	fi
}

J=4295123456
# v6 max_count: 19 packets in jiffy J, a completing poll (work 19) whose
# flush (old skbs only) runs in J+1: the held 19 go up; the 47 after them
# are one skb (fewer than 64): 19+47, as virtio-net gave in the 6.12 guest
{ rep 19 "pkt $J"; echo "flush 1 $((J + 1))"; echo "poll 19 64"
  rep 47 "pkt $((J + 1))"; echo "poll 47 64"; } | LEN=1048 PROTO=0x86dd trace >"$tmpd/t19"
check "ipv6 max_count, completing poll after a jiffy" "cut 0-18;19-65 (1 cut)" "$tmpd/t19" \
	-6 -c max_count
# the same poll inside the jiffy: its flush keeps the young skb
{ rep 19 "pkt $J"; echo "flush 1 $J"; echo "poll 19 64"
  rep 47 "pkt $J"; echo "poll 47 64"; } | LEN=1048 PROTO=0x86dd trace >"$tmpd/t19j"
check "ipv6 max_count, completing poll in the jiffy" "not split" "$tmpd/t19j" -6 -c max_count
# v4 max_count, HZ 250: 1 packet, then a poll that used its budget (64:
# packets 1..64) flushes everything (napi_gro_flush(n, HZ >= 1000)): 64+1+1
{ echo "pkt $J"; echo "flush 1 $J"; echo "poll 1 64"; rep 64 "pkt $J"; echo "poll 64 64"
  echo "flush 0 $J"; echo "pkt $J"; echo "poll 1 64"; } | trace >"$tmpd/tfull"
check "ipv4 max_count, full-budget poll flushing all" "cut 0-63;64;65 (1 cut)" "$tmpd/tfull" \
	-4 -c max_count
# HZ >= 1000: the full poll's flush keeps young skbs: 64+2
{ echo "pkt $J"; echo "flush 1 $J"; echo "poll 1 64"; rep 64 "pkt $J"; echo "poll 64 64"
  echo "flush 1 $J"; echo "pkt $J"; echo "poll 1 64"; } | trace >"$tmpd/tfull1000"
check "ipv4 max_count, full-budget poll, HZ 1000" "not split" "$tmpd/tfull1000" -4 -c max_count
# a flush of another NAPI between the packets cuts nothing of ours (the two
# kernel pointers are both above LLONG_MAX: read as signed they were equal)
{ echo "pkt $J"; echo "pkt $J"; echo "oflush 0 $J"; echo "pkt $J"; echo "pkt $J"; } |
	trace >"$tmpd/tother"
check "same, a flush of another NAPI inside" "not split" "$tmpd/tother" -4 -c same
# max_bytes (44 x 1472, then 2): a flush after 10 packets; the 36 after
# them fit in one skb (below gro_max_size)
{ rep 10 "pkt $J 1500"; echo "flush 0 $J"; echo "poll 10 64"; rep 36 "pkt $J 1500"; } |
	trace >"$tmpd/tbytes"
check "ipv4 max_bytes, flush after 10" "cut 0-9;10-45 (1 cut)" "$tmpd/tbytes" -4 -c max_bytes
# the must-fail train: same (one skb of 4) split 2+2 by a flush; the wrong
# expectation 0-1;2-3 is not cut, but the case's own is: split (asked again)
{ echo "pkt $J"; echo "pkt $J"; echo "flush 0 $J"; echo "poll 2 64"; echo "pkt $J"
  echo "pkt $J"; } | trace >"$tmpd/t22"
check "same split 2+2" "cut 0-1;2-3 (1 cut)" "$tmpd/t22" -4 -c same
check "same split 2+2, checked as 0-1;2-3" "cut 0-1;2-3 (1 cut)" "$tmpd/t22" -4 -c same \
	--groups "0-1;2-3"
# polls alone (no kprobe events, as on the host): veth's poll per packet
# with work keeps the young skb; a poll without work flushes everything
{ echo "pkt $J"; echo "poll 1 64"; echo "pkt $J"; echo "poll 1 64"; echo "pkt $J"
  echo "poll 1 64"; echo "pkt $J"; } | trace | grep -v ugnapi >"$tmpd/tveth"
check "polls alone, a poll per packet (veth)" "not split" "$tmpd/tveth" -4 -c same
{ echo "pkt $J"; echo "poll 1 64"; echo "pkt $J"; echo "poll 0 64"; echo "pkt $J"
  echo "poll 1 64"; echo "pkt $J"; } | trace | grep -v ugnapi >"$tmpd/twork0"
check "polls alone, a poll without work" "cut 0-1;2-3 (1 cut)" "$tmpd/twork0" -4 -c same
# packets GRO sends up at once: no cut computed (a skip for gro.sh)
{ echo "pkt $J"; echo "flush 0 $J"; echo "pkt $J"; echo "pkt $J"; echo "pkt $J"; } |
	trace >"$tmpd/tcsum"
check "bad_csum split: no cut" "split, no cut: 1 held skbs cut, and packets GRO sends up at once in the train: their order against the cut skbs is not computed" \
	"$tmpd/tcsum" -4 -c bad_csum
# a packet missing from the trace: the flushes are not known
head -n -2 "$tmpd/t19" >"$tmpd/tshort"
check "a packet missing" "unknown: 65 of the train's 66 packets seen reaching GRO" \
	"$tmpd/tshort" -6 -c max_count

# must fail: the naive cut (each group split in place) for the 19+47 trace
out=$(check "naive cut" "cut 0-18;19-63;64-65 (1 cut)" "$tmpd/t19" -6 -c max_count)
case "$out" in
"not ok"*) ktap_ok "a wrong cut is caught: ${out#not ok [0-9]* }" ;;
*) ktap_fail "a wrong cut is caught" "the naive cut matched: $out" ;;
esac
ktap_finish
