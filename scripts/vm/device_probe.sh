#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the guest of scripts/vm/device_guest.sh (after device_setup.sh):
# what the two virtio-net NICs do with UDP GSO, measured, as KTAP.
#
#   scripts/vm/device_probe.sh --profile qemu10|qemu72 [--sends N] [--only CASE,...]
#
# Needs NETIF, REMOTE_V4, REMOTE_V6 and the remote device in netns ugremote
# (device_setup.sh).  Cases:
#   features     ethtool -k of both NICs; tx-udp-segmentation switched on
#                must take on qemu10 (6.2+ guests) and stay off [fixed] on
#                qemu72 and before 6.2
#   uso          N GSO sends of 10 x 1472 B (v4; v6 10 x 1452) with USO on
#                and off and the peer's rx-gro-hw on and off, permanent
#                neighbour entries both ways: the local NIC's tx packets, the
#                peer NIC's rx packets, exact (USO on: N and N when the peer's
#                device coalesces, else 10 N; off: 10 N and 10 N), and every
#                byte read by the peer's socket (plain; UDP_GRO too where the
#                peer's driver gets GSO skbs), the peer's UDP MIB beside it
#   neighbour    v4 sends after the neighbour entries are flushed: local tx =
#                1 ARP request + (N - the arp_cache's unresolved_discards)
#                sends (x10 without USO)
#   qstats       the netdev qstats each NIC reports (scripts/qstats.py), tx-hw-gso-*
#                and rx-hw-gro-* named where present
#   (each send) ip_summed, gso_size and gso_type of what the local stack
#                hands to NETIF's driver (net:net_dev_start_xmit) and what the
#                peer's driver hands to GRO (net:napi_gro_receive_entry),
#                counted; skbs under 200 B there (ARP, ND, MLD) are the
#                "other" packets taken off the NIC counters
# Every setting changed is put back at exit.
set -u

. "$(dirname "$0")/../lib.sh"

profile= sends=20 only=features,uso,neighbour,qstats
while [ $# -gt 0 ]; do
	case "$1" in
	--profile) profile=${2:-}; shift 2 || ug_die "--profile: needs qemu10 or qemu72" ;;
	--sends) sends=${2:-}; shift 2 || ug_die "--sends: needs a number" ;;
	--only) only=${2:-}; shift 2 || ug_die "--only: needs a list of features,uso,neighbour,qstats" ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1' (see -h)" ;;
	esac
done
case "$profile" in qemu10 | qemu72) ;; *) ug_die "--profile '$profile': allowed qemu10, qemu72" ;; esac
case "$sends" in '' | 0 | *[!0-9]*) ug_die "--sends '$sends': allowed 1..1000" ;; esac
for c in ${only//,/ }; do
	case "$c" in features | uso | neighbour | qstats) ;;
	*) ug_die "--only '$only': allowed a list of features,uso,neighbour,qstats" ;;
	esac
done
case_on() { [[ ",$only," == *",$1,"* ]]; }
for v in NETIF REMOTE_V4 REMOTE_V6; do
	[ -n "${!v:-}" ] || ug_die "$v unset: run under scripts/vm/device_setup.sh"
done

RNS=ugremote
PY=/usr/bin/python3
rif=$(ip -n "$RNS" -o addr show to "$REMOTE_V4" | awk '{ print $2; exit }')
[ -n "$rif" ] || ug_die "REMOTE_V4 $REMOTE_V4 is on no device in netns $RNS"
ktap_header
ug_trap_install

feat() {	# [-n NS] DEV FEATURE: its ethtool -k value ("on", "off [fixed]")
	local ns=()
	[ "$1" = -n ] && { ns=(ip netns exec "$2"); shift 2; }
	"${ns[@]}" ethtool -k "$1" | awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print }'
}
setf() {	# [-n NS] DEV FEATURE on|off, put back at exit
	local ns=() old
	[ "$1" = -n ] && { ns=(ip netns exec "$2"); shift 2; }
	old=$("${ns[@]}" ethtool -k "$1" | awk -v f="$2:" '$1 == f { print $2 }')
	defer "${ns[@]}" ethtool -K "$1" "$2" "$old"
	"${ns[@]}" ethtool -K "$1" "$2" "$3" 2>/dev/null
}
stat() { cat "/sys/class/net/$1/statistics/$2"; }
rstat() { ip netns exec "$RNS" cat "/sys/class/net/$rif/statistics/$1"; }

# ---- features ----------------------------------------------------------------
if case_on features; then
for f in tx-checksumming tx-udp-segmentation rx-gro-hw rx-checksumming generic-receive-offload; do
	ktap_info "features: $f: $NETIF $(feat "$NETIF" "$f"), peer $rif $(feat -n "$RNS" "$rif" "$f")"
done
setf "$NETIF" tx-udp-segmentation on
got=$(feat "$NETIF" tx-udp-segmentation)
# USO in virtio_net (VIRTIO_NET_F_HOST_USO) came with 6.2: a 6.1 guest keeps it
# off [fixed] whatever the device offers
kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
why=
if [ "$profile" = qemu72 ]; then
	want="off [fixed]" why="QEMU 7.2 offers no USO"
elif [ "$kv" -lt 602 ]; then
	want="off [fixed]" why="virtio_net before 6.2 has no USO"
else
	want=on why="QEMU 10 offers USO, virtio_net has it since 6.2"
fi
if [ "$got" = "$want" ]; then
	ktap_ok "features: $profile: tx-udp-segmentation after -K on: $got ($why)"
else
	ktap_fail "features: $profile: tx-udp-segmentation after -K on" "got '$got', want '$want'"
fi
fi

# ---- the sends ------------------------------------------------------------------
tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
inst=
if [ -d "$tr/instances" ] && mkdir "$tr/instances/ugdev" 2>/dev/null; then
	inst=$tr/instances/ugdev
	defer rmdir "$inst"
	echo "name == \"$rif\"" >"$inst/events/net/napi_gro_receive_entry/filter"
	echo "name == \"$NETIF\"" >"$inst/events/net/net_dev_start_xmit/filter"
fi
# evsum EVENT: the trace's EVENT lines counted by ip_summed, gso_size,
# gso_segs (xmit only) and gso_type (16 bits in these tracepoints)
evsum() {
	grep "$1:" "$inst/trace" |
		awk '{ o = ""; for (i = 1; i <= NF; i++) if ($i ~ /^(ip_summed|gso_[a-z]+)=/) o = o " " $i
		       print substr(o, 2) }' | sort | uniq -c | awk '{ $1 = $1 "x"; print }' | paste -sd ';' -
}
# small EVENT: how many of the EVENT skbs are under 200 bytes (ARP, ND,
# MLD: traffic of the stack's own among the counted packets); big: the rest
small() {
	grep "$1:" "$inst/trace" | grep -o ' len=[0-9]*' |
		awk -F= '$2 < 200 { n++ } END { print n + 0 }'
}
big() {
	grep "$1:" "$inst/trace" | grep -o ' len=[0-9]*' |
		awk -F= '$2 >= 200 { n++ } END { print n + 0 }'
}
work=$(mktemp -d /tmp/ugprobe.XXXXXX)
defer rm -rf "$work"

# the peer's UDP MIB (its netns): "InDatagrams InErrors RcvbufErrors InCsumErrors"
udpmib() {	# FAMILY
	if [ "$1" = 4 ]; then
		ip netns exec "$RNS" awk '/^Udp:/ { n++; if (n == 1) for (i = 2; i <= NF; i++) k[$i] = i;
			else print $k["InDatagrams"], $k["InErrors"], $k["RcvbufErrors"], $k["InCsumErrors"] }' /proc/net/snmp
	else
		ip netns exec "$RNS" awk '{ v[$1] = $2 } END { print v["Udp6InDatagrams"], v["Udp6InErrors"],
			v["Udp6RcvbufErrors"], v["Udp6InCsumErrors"] }' /proc/net/snmp6
	fi
}
mibdiff() {	# "A..." "B...": B - A, field by field
	local a b i o=
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in "${!a[@]}"; do o+="${o:+ }$((b[i] - a[i]))"; done
	echo "$o"
}
# this side's UDP MIB, qdisc drops and NETIF's tx_dropped (the core's drops
# before the driver, e.g. a failed software segmentation in validate_xmit_skb):
# "OutDatagrams SndbufErrors qdisc-drops tx_dropped"
localmib() {
	local m
	if [ "$1" = 4 ]; then
		m=$(awk '/^Udp:/ { n++; if (n == 1) for (i = 2; i <= NF; i++) k[$i] = i
			else print $k["OutDatagrams"], $k["SndbufErrors"] }' /proc/net/snmp)
	else
		m=$(awk '{ v[$1] = $2 } END { print v["Udp6OutDatagrams"], v["Udp6SndbufErrors"] }' /proc/net/snmp6)
	fi
	echo "$m $(tc -s qdisc show dev "$NETIF" | awk '/dropped/ { gsub(/,/, ""); print $7 + 0; exit }')" \
		"$(stat "$NETIF" tx_dropped)"
}
# the arp_cache's unresolved_discards, summed over CPUs (hex per CPU)
unres() {
	local c i s=0 f
	read -ra f </proc/net/stat/arp_cache
	for i in "${!f[@]}"; do [ "${f[i]}" = unresolved_discards ] && c=$i; done
	while read -ra f; do s=$((s + 16#${f[c]})); done < <(tail -n +2 /proc/net/stat/arp_cache)
	echo "$s"
}

# send FAMILY GRO: N sends of 10 x SEG B (v4 1472, v6 1452) to the peer's
# socket (GRO 1: with UDP_GRO); sets tx rx (local NIC tx packets, peer NIC
# rx packets), sock ("reads bytes" the socket got), mib (the peer's UDP MIB
# delta), ev (what the peer's driver handed to GRO: ip_summed, gso_size and
# gso_type (16 bits in the tracepoint) of each skb, counted)
send() {
	local fam=$1 gro=$2 dst t0 r0 m0 out rpid
	if [ "$fam" = 4 ]; then dst=$REMOTE_V4 seg=1472; else dst=$REMOTE_V6 seg=1452; fi
	if [ -n "$inst" ]; then
		: >"$inst/trace"
		echo 1 >"$inst/events/net/napi_gro_receive_entry/enable"
		echo 1 >"$inst/events/net/net_dev_start_xmit/enable"
	fi
	rm -f "$work/rx" "$work/rx.ready"
	ip netns exec "$RNS" "$PY" -c '
import socket, sys
fam = socket.AF_INET if sys.argv[1] == "4" else socket.AF_INET6
s = socket.socket(fam, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)	# SO_RCVBUFFORCE: no drops for a slow reader
if sys.argv[3] == "1":
    s.setsockopt(socket.SOL_UDP, 104, 1)	# UDP_GRO
s.bind(("0.0.0.0" if sys.argv[1] == "4" else "::", 9024))
print("ready", flush=True)
s.settimeout(60)	# the sender (python under TCG) takes seconds to start
n = b = 0
try:
    while True:
        b += len(s.recv(65536)); n += 1
        s.settimeout(3)
except socket.timeout:
    pass
open(sys.argv[2], "w").write("%d %d\n" % (n, b))
' "$fam" "$work/rx" "$gro" >"$work/rx.ready" &
	rpid=$!
	for _ in $(seq 1 100); do grep -q ready "$work/rx.ready" 2>/dev/null && break; sleep 0.1; done
	t0=$(stat "$NETIF" tx_packets) r0=$(rstat rx_packets) m0=$(udpmib "$fam") l0=$(localmib "$fam")
	out=$("$PY" -c '
import socket, sys
fam = socket.AF_INET if sys.argv[1] == "4" else socket.AF_INET6
s = socket.socket(fam, socket.SOCK_DGRAM)
seg = int(sys.argv[4])
s.setsockopt(socket.SOL_UDP, 103, seg)	# UDP_SEGMENT
for i in range(int(sys.argv[3])):
    s.sendto(bytes([i & 0xff]) * (10 * seg), (sys.argv[2], 9024))
' "$fam" "$dst" "$sends" "$seg" 2>&1) || ktap_info "sender: $(echo "$out" | tail -1)"
	wait "$rpid"
	tx=$(($(stat "$NETIF" tx_packets) - t0)) rx=$(($(rstat rx_packets) - r0))
	mib=$(mibdiff "$m0" "$(udpmib "$fam")") lmib=$(mibdiff "$l0" "$(localmib "$fam")")
	sock=$(cat "$work/rx" 2>/dev/null)
	ev= xev= txo=0 rxo=0 txb=-1 rxb=-1
	if [ -n "$inst" ]; then
		echo 0 >"$inst/events/net/napi_gro_receive_entry/enable"
		echo 0 >"$inst/events/net/net_dev_start_xmit/enable"
		ev=$(evsum napi_gro_receive_entry) xev=$(evsum net_dev_start_xmit)
		rxo=$(small napi_gro_receive_entry) txo=$(small net_dev_start_xmit)
		rxb=$(big napi_gro_receive_entry) txb=$(big net_dev_start_xmit)
	fi
}

# permanent neighbour entries both ways for the exact counts: no ARP, ND or
# reachability probe among the counted packets (removed at exit)
lmac=$(cat "/sys/class/net/$NETIF/address")
rmac=$(ip netns exec "$RNS" cat "/sys/class/net/$rif/address")
static_neigh() {
	local a
	for a in "$REMOTE_V4" "$REMOTE_V6"; do
		ip neigh replace "$a" lladdr "$rmac" dev "$NETIF" nud permanent
		defer ip neigh del "$a" dev "$NETIF"
	done
	for a in "$LOCAL_V4" "$LOCAL_V6"; do
		ip -n "$RNS" neigh replace "$a" lladdr "$lmac" dev "$rif" nud permanent
		defer ip -n "$RNS" neigh del "$a" dev "$rif"
	done
}

# uso: every USO x peer rx-gro-hw combination the devices allow, v4 and v6,
# a plain socket; with USO and the device's coalescing on, a UDP_GRO socket too
usos="off"
[ "$(feat "$NETIF" tx-udp-segmentation)" = "off [fixed]" ] || usos="off on"
grohw="on"
case "$(feat -n "$RNS" "$rif" rx-gro-hw)" in *fixed*) ;; *) grohw="on off" ;; esac
if case_on uso; then
static_neigh
for fam in 4 6; do
	for u in $usos; do
		for g in $grohw; do
			for sk in 0 1; do
				[ "$sk" = 0 ] || { [ "$u" = on ] && [ "$g" = on ]; } || continue
				setf "$NETIF" tx-udp-segmentation "$u"
				setf -n "$RNS" "$rif" rx-gro-hw "$g"
				send "$fam" "$sk"
				wtx=$((sends * 10)) wrx=$((sends * 10)) bytes=$((sends * 10 * seg))
				[ "$u" = on ] && wtx=$sends
				[ "$u" = on ] && [ "$g" = on ] && wrx=$sends
				skn=plain
				[ "$sk" = 1 ] && skn=UDP_GRO
				name="uso: v$fam USO $u, peer rx-gro-hw $g, $skn socket: $sends sends of 10 x $seg"
				got="local tx_packets +$tx, peer rx_packets +$rx; UDP skbs at the local driver's xmit $txb, at the peer driver's GRO entry $rxb (other: $txo, $rxo); socket '$sock' (reads bytes), peer UDP MIB in/errors/rcvbuf/csum +$mib, local UDP out/sndbuf-errors, qdisc drops, tx_dropped +$lmib"
				# exact: the UDP skbs at both drivers; the NIC counters
				# with the stack's own small packets beside them (ARP, ND,
				# MLD, one sent between the counter read and the trace stop)
				if [ "$txb" = "$wtx" ] && [ "$rxb" = "$wrx" ] &&
				   [ "$tx" -ge "$wtx" ] && [ "$tx" -le $((wtx + txo)) ] &&
				   [ "$rx" -ge "$wrx" ] && [ "$rx" -le $((wrx + rxo)) ] &&
				   [ "${sock#* }" = "$bytes" ]; then
					ktap_ok "$name: $got"
				else
					ktap_fail "$name" "$got; want $wtx UDP skbs (tx_packets $wtx..+other), $wrx at the peer (rx_packets $wrx..+other), $bytes bytes read"
				fi
				ktap_info "  local stack -> driver: ${xev:-no trace}"
				ktap_info "  peer driver -> GRO: ${ev:-no trace}"
			done
		done
	done
done
fi

# neighbour: v4 sends after a flush of both sides' entries: the first send
# meets an unresolved neighbour (an ARP request; the sends queue on the
# arp_cache entry, up to unres_qlen_bytes, the oldest discarded beyond).
# Once with the default queue, once with NETIF's unres_qlen_bytes cut to
# 20000 (one GSO send's truesize, about): discards then are likely
if case_on neighbour; then
qb=/proc/sys/net/ipv4/neigh/$NETIF/unres_qlen_bytes
qb0=$(cat "$qb")
defer sysctl -qw "net.ipv4.neigh.$NETIF.unres_qlen_bytes=$qb0"
for q in "$qb0" 20000; do
	for u in $usos; do
		echo "$q" >"$qb"
		setf "$NETIF" tx-udp-segmentation "$u"
		setf -n "$RNS" "$rif" rx-gro-hw on
		ip neigh del "$REMOTE_V4" dev "$NETIF" 2>/dev/null
		ip -n "$RNS" neigh del "$LOCAL_V4" dev "$rif" 2>/dev/null
		ip neigh flush dev "$NETIF"
		ip -n "$RNS" neigh flush dev "$rif"
		d0=$(unres) ld0=$(stat "$NETIF" tx_dropped)
		send 4 0
		dd=$(($(unres) - d0)) ldd=$(($(stat "$NETIF" tx_dropped) - ld0))
		if [ "$u" = on ]; then per=1; else per=10; fi
		name="neighbour: v4 USO $u, unres_qlen_bytes $q"
		ktap_info "$name, entries flushed first: local tx $tx packets ($txo other), peer rx $rx ($rxo other), socket '$sock', arp_cache unresolved_discards +$dd, $NETIF tx_dropped +$ldd, peer UDP MIB +$mib"
		ktap_info "  local stack -> driver: ${xev:-no trace}"
		ktap_info "  peer driver -> GRO: ${ev:-no trace}"
		# what left: the ARP request and (N - discarded) sends (x10 without USO)
		if [ "$tx" -eq $(((sends - dd) * per + txo)) ] && [ "$txo" -ge 1 ]; then
			ktap_ok "$name: local tx $tx = $txo ARP + ($sends sends - $dd discarded while unresolved) x $per"
		else
			ktap_fail "$name: local tx $tx" "want $txo ARP (at least 1) + ($sends - $dd discarded) x $per = $(((sends - dd) * per + txo))"
		fi
	done
done
fi

# ---- qstats -----------------------------------------------------------------------
if case_on qstats; then
ql=$("$PY" "$UG_TOP/scripts/qstats.py" "$NETIF" | awk '{ sub(/_queue_[0-9]+_/, " ", $2); print $2 }' | sort -u | paste -sd ' ' -)
qr=$(ip netns exec "$RNS" "$PY" "$UG_TOP/scripts/qstats.py" "$rif" | awk '{ sub(/_queue_[0-9]+_/, " ", $2); print $2 }' | sort -u | paste -sd ' ' -)
ktap_info "qstats: $NETIF reports per queue: ${ql:-nothing}"
ktap_info "qstats: $rif reports per queue: ${qr:-nothing}"
case " $ql $qr " in
*hw_gso* | *hw_gro*) ktap_ok "qstats: hardware GSO/GRO counters reported" ;;
*) ktap_skip "qstats: tx-hw-gso-* / rx-hw-gro-*" "virtio_net on $(uname -r) reports none of them (its qstats: ${ql:-none})" ;;
esac
fi
ktap_finish
