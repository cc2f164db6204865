#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# udpgso-lab device case (issue #24 item 1): UDP GSO through NETIF, every
# segment checked at the peer.  The remote captures on its device DRV_RIF
# (ingress, AF_PACKET: `udpgso_wire expect`) while this host sends GSO over
# NETIF (`udpgso_wire send --no-capture --go-stdin`), one send per 'go'.
# Variants, IPv4 and IPv6 (DRV_FAMILIES): tx-udp-segmentation on (the
# device segments; skipped with the reason where it lacks it or it is
# fixed off), off (the kernel segments before the driver), and
# tx-checksumming off (EIO before 6.11, else the kernel's software
# fallback, 10154dbded6d).  Sizes: 1 segment, an exact multiple of the MSS,
# one with a tail, the largest payload, the most segments (gso 100).
# Checked per segment at the peer: headers, lengths, IPv4 ID sequence, UDP
# checksum, payload bytes at their offsets, gso_size x N + tail, nothing
# lost.  Where segmentation happened, from NETIF's tx packet counter, the
# per-skb counters (drv_stats_*) and qstats tx-hw-gso-packets /
# tx-hw-gso-wire-packets where the driver reports them: a diagnostic line
# per case and a consistency check (device GSO: no software segmentation,
# one hw GSO packet per send and N wire packets where reported; kernel
# GSO: the skbs left the stack segmented, no hw GSO packet).  The per-skb
# counters are read on both hosts for every case, named by side: the
# sender's (local) for where, the receiver's (remote) must have seen the
# frames reach its stack and no UDP GSO sent.  Self-test:
# `expect` told a wrong seed / gso_size must fail (the case passes only
# when the checker failed, for the reason named).
# The remote's GRO is switched off (gro, rx-gro-hw where it has it) so
# that the segments stay segments on its ingress; all settings are
# restored on both hosts (drv_env.sh).  Environment: NETIF, LOCAL_V4/6,
# REMOTE_V4/6, REMOTE_TYPE, REMOTE_ARGS or net.config (docs/device.md);
# DRV_GSO_SENDS sends per case (default 4); DRV_GSO_QUICK=1 (make check's
# veth runs): one send per case, the tail and most-segments sizes only.
#
# usage: device/gso.sh [-k PATTERN]   (-k: only cases whose name matches)

set -u
. "$(dirname "$0")/../scripts/lib.sh"

ug_opt_k "$@"
QUICK=${DRV_GSO_QUICK:-0}
case "$QUICK" in 0 | 1) ;; *) ug_die "DRV_GSO_QUICK '$QUICK': allowed 0, 1" ;; esac
SENDS=${DRV_GSO_SENDS:-$((QUICK ? 1 : 4))}
case "$SENDS" in
'' | *[!0-9]* | 0) ug_die "DRV_GSO_SENDS '$SENDS': allowed a number of sends 1..1000" ;;
esac
[ "$SENDS" -le 1000 ] || ug_die "DRV_GSO_SENDS '$SENDS': allowed a number of sends 1..1000"

. "$UG_TOP/scripts/drv_env.sh"
BIN=$UDPGSO_BIN/udpgso_wire
ktap_header
ug_need_built "$BIN"
drv_env_init
# one udpgso_stats serve per side for the file (a BPF load per case took
# most of a case's 20-30 s in a TCG guest)
drv_stats_keep
RBIN=$(drv_tool udpgso_wire) || ug_die "cannot deploy udpgso_wire to the remote"
DPORT=${DRV_GSO_PORT:-9100}
SPORT=42000
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# ---- facts ---------------------------------------------------------------------
# kver_lt MAJOR MINOR: the running kernel is older (Debian: uname -v carries
# the upstream version when uname -r is 6.1.0-N)
KVER=$(uname -v | sed -n 's/.*Debian \([0-9][0-9.]*\).*/\1/p')
[ -n "$KVER" ] || KVER=$(uname -r | sed 's/[-+].*//')
kver_lt() {
	local maj=${KVER%%.*} min=${KVER#*.}
	min=${min%%.*}
	[ "$maj" -lt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -lt "$2" ]; }
}
# UDP_MAX_SEGMENTS: 128 from 6.9 (1382e3b6a350) and in some stable
# backports, 64 before: probed on loopback (128 x 100 B fails with EINVAL
# where the limit is 64; lo down: 128 assumed)
MAXSEGS=128
"$BIN" send --no-capture -4 -S 127.0.0.1 -D 127.0.0.1 -p 9 -s 12800 -M 100 \
	--expect-errno EINVAL >/dev/null 2>&1 && MAXSEGS=64
lmtu=$(cat "/sys/class/net/$NETIF/mtu")
rmtu=$(drv_remote cat "/sys/class/net/$DRV_RIF/mtu") || ug_die "remote $DRV_RIF: no mtu"
MTU=$((lmtu < rmtu ? lmtu : rmtu))
GSO_SEGS=$(cat "/sys/class/net/$NETIF/gso_max_segs" 2>/dev/null || echo 65535)
GSO_SIZE=$(cat "/sys/class/net/$NETIF/gso_max_size" 2>/dev/null || echo 65536)
# IPv4's own limit from 6.3 (BIG TCP for IPv4), shown by ip -d link
GSO_SIZE4=$(ip -d link show dev "$NETIF" | grep -o 'gso_ipv4_max_size [0-9]*' | cut -d' ' -f2)
GSO_SIZE4=${GSO_SIZE4:-$GSO_SIZE}
ktap_info "kernel $KVER ($(uname -r)); NETIF $NETIF mtu $lmtu gso_max_segs $GSO_SEGS" \
	"gso_max_size $GSO_SIZE; remote $REMOTE_TYPE $DRV_RIF mtu $rmtu; $SENDS sends per case;" \
	"UDP_MAX_SEGMENTS $MAXSEGS"

# the remote's receive side: no GRO, so that segments arrive as segments
for f in gro rx-gro-hw; do
	if why=$(drv_feat remote "$DRV_RIF" "$f" off); then
		ktap_info "remote $DRV_RIF: $f off"
	else
		ktap_info "remote $DRV_RIF: $f left as is: $why"
	fi
done

# ---- counters ------------------------------------------------------------------
# snap FILE: NETIF's tx packets and the qstats hw-gso sums, as 'name value'
# (CSIDE=remote: the remote's device instead, for the self-test)
CSIDE=local
snap() {
	if [ "$CSIDE" = remote ]; then
		echo "tx_packets $(drv_remote cat "/sys/class/net/$DRV_RIF/statistics/tx_packets")" >"$1"
		return
	fi
	{
		echo "tx_packets $(cat "/sys/class/net/$NETIF/statistics/tx_packets")"
		python3 "$UG_TOP/scripts/qstats.py" "$NETIF" 2>/dev/null | awk '
			$2 ~ /^tx_queue_[0-9]+_hw_gso_packets$/ { p += $3; n++ }
			$2 ~ /^tx_queue_[0-9]+_hw_gso_wire_packets$/ { w += $3 }
			END { if (n) { print "hw_gso_packets", p; print "hw_gso_wire_packets", w } }'
	} >"$1"
}
# val FILE NAME: the value of counter NAME (a side prefix allowed), else empty
val() {
	awk -v n="$2" 'NF == 2 && ($1 == n || $1 ~ ("[._:/]" n "$")) { print $2; exit }' "$1"
}
# delta NAME: after - before, empty when either is missing
delta() {
	local a b
	a=$(val "$tmp/c1" "$1") b=$(val "$tmp/c0" "$1")
	[ -n "$a" ] && [ -n "$b" ] && echo $((a - b))
}
# dstat NAME: a per-skb counter's count over the case on CSIDE (drv_stats_end)
dstat() { val "$tmp/s1.$CSIDE" "$1"; }
# stats_begin: the per-skb counters of both hosts, from now (a side without
# them is said once, with the reason)
declare -A st_said=()
stats_begin() {
	local side
	for side in local remote; do
		: >"$tmp/s1.$side"
		drv_stats_begin "$side" >"$tmp/s0.$side" && continue
		[ -n "${st_said[$side]:-}" ] ||
			ktap_info "$side per-skb counters: none ($(cat "$tmp/s0.$side"))"
		st_said[$side]=1
	done
}
# stats_end: both hosts' counts since stats_begin into $tmp/s1.SIDE, one line
# naming them by side: the sender's (local) and the receiver's (remote)
stats_end() {
	local side l=
	for side in local remote; do
		drv_stats_end "$side" >"$tmp/s1.$side" 2>/dev/null || : >"$tmp/s1.$side"
		l="$l; $side $(awk '$1 ~ /\.(tx_gso_udp_l4_skbs|tx_dev_gso_skbs|tx_sw_segmented_skbs|rx_skbs|rx_gso_skbs)$/ {
			sub(/^[a-z]*\./, "", $1); s = s sep $1 "=" $2; sep = " " }
			END { print (s == "" ? "none" : s) }' "$tmp/s1.$side")"
	done
	ktap_info "per-skb counters by side: ${l#; }"
}

# ---- one case ------------------------------------------------------------------
# pair FAM LEN GSO [expect options]: $SENDS sends checked at the peer;
# rc of expect in $erc, of send in $src; logs $tmp/expect, $tmp/send
pair() {
	local fam=$1 len=$2 gso=$3 s d
	shift 3
	s=$(drv_addr local "$fam") d=$(drv_addr remote "$fam")
	SPORT=$((SPORT + 1))
	drv_remote "$RBIN" expect "-$fam" -S "$s" -D "$d" -p "$DPORT" --sport "$SPORT" \
		-s "$len" -M "$gso" -i "$DRV_RIF" --mtu "$MTU" --count "$SENDS" "$@" \
		2>"$tmp/expect" |
		timeout 600 "$BIN" send --no-capture --go-stdin "-$fam" -S "$s" -D "$d" \
			-p "$DPORT" --sport "$SPORT" -s "$len" -M "$gso" >"$tmp/send" 2>&1
	local st=("${PIPESTATUS[@]}")
	erc=${st[0]} src=${st[1]}
}

# where WANT SEGS: where segmentation happened, printed, and whether the
# counters agree with WANT (hw: the device, sw: the kernel, none: no GSO
# skb); 0 or 1 with the disagreement in $why
where() {
	local want=$1 segs=$2 n=$SENDS txp hwp hww sws swn dgs l
	txp=$(delta tx_packets) hwp=$(delta hw_gso_packets) hww=$(delta hw_gso_wire_packets)
	sws=$(dstat tx_sw_segmented_skbs) swn=$(dstat tx_sw_segments)
	dgs=$(dstat tx_dev_gso_skbs)
	l="where: expected ${want/none/no GSO skb}; $CSIDE $(drv_dev "$CSIDE") tx_packets +$txp"
	l="$l (${n} sends x $segs segments = $((n * segs)))"
	if [ -n "$hwp" ]; then
		l="$l; qstats tx-hw-gso-packets +$hwp tx-hw-gso-wire-packets +$hww"
	else
		l="$l; qstats tx-hw-gso-*: not reported by the driver"
	fi
	if [ -n "$sws$dgs" ]; then
		l="$l; per-skb tx_gso_udp_l4_skbs +$(dstat tx_gso_udp_l4_skbs)"
		l="$l tx_dev_gso_skbs +${dgs:-?} tx_sw_segmented_skbs +${sws:-?}"
		l="$l tx_sw_segments +${swn:-?}"
	else
		l="$l; per-skb counters: none (neither the module nor udpgso_stats here)"
	fi
	ktap_info "$l"
	why=
	# other traffic (ssh to the remote, neighbour probes) shares NETIF: the
	# counts are exact with a netns remote, lower bounds over ssh
	local exact=1
	[ "$REMOTE_TYPE" = netns ] || exact=0
	ge() { [ -z "$1" ] || [ "$1" -ge "$2" ] || why="$why; $3 +$1 < $2"; }
	eq() {
		[ -z "$1" ] && return 0
		if [ "$exact" = 1 ]; then
			[ "$1" -eq "$2" ] || why="$why; $3 +$1, expected exactly $2"
		else
			[ "$1" -ge "$2" ] || why="$why; $3 +$1 < $2"
		fi
	}
	ge "$txp" "$n" "tx_packets"
	# the receiver's side (the remote's counters): the frames reached its
	# stack, and it sent no UDP GSO (counters of the sending host would)
	if [ "$CSIDE" = local ] && grep -q '^remote\.' "$tmp/s1.remote"; then
		local rrx rgs
		rrx=$(val "$tmp/s1.remote" rx_skbs) rgs=$(val "$tmp/s1.remote" tx_gso_udp_l4_skbs)
		[ "${rrx:-0}" -gt 0 ] ||
			why="$why; the receiver's (remote) rx_skbs +${rrx:-none}: none of the frames"
		[ "${rgs:-0}" -eq 0 ] ||
			why="$why; the receiver's (remote) tx_gso_udp_l4_skbs +$rgs: it sent UDP GSO"
	fi
	case $want in
	hw)
		eq "$hwp" "$n" "tx-hw-gso-packets"
		eq "$hww" "$((n * segs))" "tx-hw-gso-wire-packets"
		[ -z "$sws" ] || [ "$sws" -eq 0 ] ||
			why="$why; tx_sw_segmented_skbs +$sws: the kernel segmented"
		ge "$dgs" "$n" "tx_dev_gso_skbs"
		;;
	sw)
		ge "$txp" "$((n * segs))" "tx_packets"
		[ "$exact" = 0 ] || [ -z "$hwp" ] || [ "$hwp" -eq 0 ] ||
			why="$why; tx-hw-gso-packets +$hwp: the device segmented"
		ge "$sws" "$n" "tx_sw_segmented_skbs"
		ge "$swn" "$((n * segs))" "tx_sw_segments"
		;;
	none)
		ge "$txp" "$n" "tx_packets"
		[ "$exact" = 0 ] || [ -z "$hwp" ] || [ "$hwp" -eq 0 ] ||
			why="$why; tx-hw-gso-packets +$hwp for non-GSO sends"
		;;
	esac
	why=${why#; }
	[ -z "$why" ]
}

# run NAME WANT FAM LEN GSO: one case, one KTAP line
run() {
	local name=$1 want=$2 fam=$3 len=$4 gso=$5 segs last
	# shellcheck disable=SC2254
	case "$name" in $only) ;; *) return 0 ;; esac
	segs=$(((len + gso - 1) / gso))
	[ "$segs" -gt 1 ] || want=none
	# the device takes a GSO skb only within its limits (net/core/dev.c
	# gso_features_check: gso_segs > gso_max_segs or skb->len, Ethernet
	# header included, >= gso_max_size: the kernel segments it)
	local skblen=$((14 + (fam == 4 ? 28 : 48) + len)) gmax=$GSO_SIZE
	[ "$fam" = 6 ] || gmax=$GSO_SIZE4
	if [ "$want" = hw ] && { [ "$segs" -gt "$GSO_SEGS" ] || [ "$skblen" -ge "$gmax" ]; }; then
		want=sw
		ktap_info "$name: $segs segments, skb of $skblen B: beyond the device's" \
			"gso_max_segs $GSO_SEGS / gso max size $gmax: the kernel segments"
	fi
	local t0 t1 t2
	t0=$(drv_ms)
	snap "$tmp/c0"
	stats_begin
	t1=$(drv_ms)
	pair "$fam" "$len" "$gso"
	t2=$(drv_ms)
	stats_end
	snap "$tmp/c1"
	ktap_info "case time $(drv_secs "$t0") s: counters set up $(drv_secs "$t0" "$t1") s," \
		"sends and capture $(drv_secs "$t1" "$t2") s, read $(drv_secs "$t2") s"
	sed 's/^/# remote: /' "$tmp/expect"
	grep -v '^sent ' "$tmp/send" | sed 's/^/# local: /'
	last=$(grep -E '^# expect:' "$tmp/expect" | tail -n1)
	if [ "$erc" != 0 ] || [ "$src" != 0 ]; then
		ktap_fail "$name" "expect exit $erc, send exit $src: $(grep -m1 '^FAIL' \
			"$tmp/expect" "$tmp/send" 2>/dev/null | sed 's|^[^:]*:||')"
		return
	fi
	if [ "$CSIDE" = remote ]; then
		if [ -z "$(dstat tx_sw_segments)" ] && [ "$REMOTE_TYPE" != netns ]; then
			# over ssh the remote's tx packets count the ssh traffic
			ktap_skip "$name" "needs the per-skb counters on the remote over ssh"
		elif where "$want" "$segs"; then
			ktap_fail "$name" "the remote's counters agreed with the local sends"
		else
			ktap_ok "$name: disagreed as expected: $why"
		fi
		return
	fi
	if ! where "$want" "$segs"; then
		ktap_fail "$name" "segments right at the peer, counters disagree: $why"
		return
	fi
	ktap_ok "$name: ${last#\# expect: }"
}

# must_fail NAME CLASSES FAM LEN GSO [expect options]: the checker must fail
# with one of CLASSES (an ERE alternation)
must_fail() {
	local name=$1 class=$2 fam=$3 len=$4 gso=$5
	shift 5
	# shellcheck disable=SC2254
	case "$name" in $only) ;; *) return 0 ;; esac
	pair "$fam" "$len" "$gso" --count 1 "$@"
	sed 's/^/# remote: /' "$tmp/expect"
	if [ "$erc" = 1 ] && grep -Eq "^FAIL .*: ($class): " "$tmp/expect"; then
		ktap_ok "$name: failed as expected ($(grep -m1 -Eo "($class): .*" "$tmp/expect"))"
	else
		ktap_fail "$name" "expect exit $erc, no '$class' failure: the checker passed a bad send"
	fi
}

# sizes FAM VARIANT WANT: the sizes of one variant
sizes() {
	local fam=$1 v=$2 want=$3 mss max
	mss=$((MTU - (fam == 4 ? 28 : 48)))
	max=$((fam == 4 ? 65507 : 65527))
	[ "$QUICK" = 1 ] ||
		run "ipv$fam $v: 1 segment, len $mss gso $mss" "$want" "$fam" "$mss" "$mss"
	[ "$QUICK" = 1 ] ||
		run "ipv$fam $v: exact multiple 4 x $mss" "$want" "$fam" $((4 * mss)) "$mss"
	run "ipv$fam $v: with tail 4 x $mss + 100" "$want" "$fam" $((4 * mss + 100)) "$mss"
	[ "$QUICK" = 1 ] ||
		run "ipv$fam $v: max payload $max at gso $mss" "$want" "$fam" "$max" "$mss"
	run "ipv$fam $v: max segments $MAXSEGS x 100" "$want" "$fam" $((MAXSEGS * 100)) 100
}

# variant NAME WANT FEATURE on|off ...: set the features, run the sizes
variant() {
	local v=$1 want=$2 fam why
	shift 2
	while [ $# -ge 2 ]; do
		if ! why=$(drv_feat local "$NETIF" "$1" "$2"); then
			ktap_skip "$v" "$why"
			return 0
		fi
		shift 2
	done
	for fam in $DRV_FAMILIES; do
		sizes "$fam" "$v" "$want"
	done
}

variant "uso-off (kernel segments)" sw tx-checksumming on tx-udp-segmentation off
for fam in $DRV_FAMILIES; do
	mss=$((MTU - (fam == 4 ? 28 : 48)))
	must_fail "ipv$fam selftest: expect told seed 1 for a seed-0 send" payload \
		"$fam" $((3 * mss + 7)) "$mss" --seed 1
	# without a virtio_net header (before 6.2) a frame longer than the gso_size
	# told passes for a GSO frame of 2 segments: the IPv4 ID sequence or the
	# segment count fails instead of the size
	must_fail "ipv$fam selftest: expect told gso_size $((mss - 8)) for $mss" \
		'seg_size|ip_id|seg_count' \
		"$fam" $((3 * mss + 7)) "$mss" -M $((mss - 8))
	# the consistency check can fail: the counters of the wrong host (the
	# remote's device, which sent none of it) must disagree
	CSIDE=remote
	run "ipv$fam selftest: counters read on the remote's device must disagree" sw \
		"$fam" $((4 * mss + 100)) "$mss"
	CSIDE=local
done
variant "uso-on (device segments)" hw tx-checksumming on tx-udp-segmentation on

# tx-checksumming off: no checksum offload, so no device GSO either
if kver_lt 6 11; then
	# before 10154dbded6d (v6.11) a GSO send without checksum offload fails
	if why=$(drv_feat local "$NETIF" tx-checksumming off); then
		for fam in $DRV_FAMILIES; do
			mss=$((MTU - (fam == 4 ? 28 : 48)))
			name="ipv$fam csum-off: GSO send 4 x $mss + 100: EIO before 6.11"
			# shellcheck disable=SC2254
			case "$name" in $only) ;; *) continue ;; esac
			out=$("$BIN" send --no-capture "-$fam" -S "$(drv_addr local "$fam")" \
				-D "$(drv_addr remote "$fam")" -p "$DPORT" -s $((4 * mss + 100)) \
				-M "$mss" --expect-errno EIO 2>&1)
			ktap_result $? "$name" "$out"
		done
	else
		ktap_skip "csum-off" "$why"
	fi
else
	variant "csum-off (software fallback)" sw tx-checksumming off
fi

ktap_finish
