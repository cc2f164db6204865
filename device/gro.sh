#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# udpgso-lab device case: UDP GRO through NETIF's driver.  The crafted
# trains of udpgro_conf.sh (udpgso_wire gro: the same cases, the same
# expectations per kernel version) are written on the remote's device
# (DRV_RIF, `udpgso_wire gro --role tx`, deployed with drv_deploy) onto the
# wire; NETIF's driver receives them and hands them to GRO in its NAPI;
# `udpgso_wire gro --role rx` here checks the skbs GRO built (tap) and what a
# UDP socket reads, flow by flow.  The two roles are joined by a pipe and a
# fifo: rx asks for each train with a line `go`, tx answers whether a jiffy
# ended in it, so a train that crossed one is asked again (--tries).  rx
# also reads NETIF's NAPI polls and GRO flushes in our tracefs instance
# (--napi-trace: napi:napi_poll, and kprobe events at napi_gro_receive and
# napi_gro_flush with jiffies where the kernel has them): a train a flush
# split is asked again; every try split: judged against the expectation cut
# at the flushes (docs/device.md, "The receiver's NAPI polls").
#
# Receivers, IPv4 and IPv6 (DRV_FAMILIES): a UDP_GRO socket (every case), a
# plain socket (nothing merged), rx-gro-list (fraglist skbs split back at a
# plain socket; a UDP_GRO socket still gets UDP GRO), rx-udp-gro-forwarding
# (no socket: GRO merges for forwarding), the train as one GSO send of the
# remote (its device segmenting it, or its kernel), the device's own coalescing
# (rx-gro-hw, LRO) where NETIF has it: the same expectations, and the
# queue counters rx-hw-gro-packets / rx-hw-gro-wire-packets exact where the
# driver reports them.  Beside every case: the driver's ip_summed and the
# skbs that came from the driver as GSO (tracepoint napi_gro_receive_entry in
# a tracefs instance of our own, filtered on NETIF), and the per-skb
# counters of both hosts (drv_stats_begin/end).  A must-fail case: a wrong
# expectation (--groups) must be reported as failing by the checker.
#
# usage: device/gro.sh [-k PATTERN]   (-k: only cases whose name matches)
# DRV_GRO_QUICK=1: the UDP_GRO socket gets the six cases the other receivers
# get, not every case (for make check's veth runs; about a third of the time)

set -u
GRO_DIR=$(cd "$(dirname "$0")" && pwd)
. "$GRO_DIR/../scripts/lib.sh"
. "$GRO_DIR/../scripts/drv_env.sh"

BIN=$UDPGSO_BIN/udpgso_wire
# not 9000: udpgro_conf.sh counts port 9000 machine-wide (BPF) beside its cases
PORT=9417
# trains asked again when a jiffy ended in one on the sender (a loaded
# sender, or veth, whose receive runs in the sender's sendmmsg): 10, not
# udpgro_conf.sh's 5 (both hosts' per-skb counters and the tracepoint slow
# each train here); a train that matches passes at once
TRIES=10
ug_opt_k "$@"

ktap_header
ug_need_built "$BIN"
ug_trap_install
T_FILE=$(drv_ms)
drv_env_init
# one udpgso_stats serve per side for the file, reset per case (a BPF load
# on both sides per case took 19-31 s of a case's 21-34 s in a TCG guest:
# results/device-guest-2026-11-25c)
drv_stats_keep
RBIN=$(drv_deploy "$BIN") || ug_die "cannot deploy $BIN to the remote"
tmpd=$(mktemp -d)
defer rm -rf "$tmpd"
mkfifo "$tmpd/answers"
ktap_info "kernel $(uname -r), remote $(drv_remote uname -r 2>/dev/null || echo '?');" \
	"NETIF $NETIF ($(ethtool -i "$NETIF" 2>/dev/null | awk '$1 == "driver:" { print $2 }'))," \
	"remote device $DRV_RIF, families $DRV_FAMILIES"

# ---- the driver's skbs: napi_gro_receive_entry in a tracefs instance --------
# (a private mount namespace mounts tracefs when the machine has it
# unmounted; the instance is removed at exit)
TR_INST=ugdevgro$$
TR_KP=ugnapi$$
tr_on=0
NAPI_ARGS=()
# the kernel's HZ (a poll that used its budget flushes everything below 1000)
KHZ=$( { cat "/boot/config-$(uname -r)" 2>/dev/null || zcat /proc/config.gz 2>/dev/null; } |
	sed -n 's/^CONFIG_HZ=\([0-9]*\)$/\1/p')
tfs() {
	unshare -m sh -c '[ -d /sys/kernel/tracing/instances ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || exit 1
		cd /sys/kernel/tracing && eval "$1"' tfs "$1"
}
tr_init() {
	local ev=instances/$TR_INST/events/net/napi_gro_receive_entry why
	local poll=instances/$TR_INST/events/napi/napi_poll
	# our packets only: the trains' frames are 500+ bytes, ND/ARP are not
	if why=$(tfs "mkdir instances/$TR_INST && echo 'name == \"$NETIF\" && len > 400' > $ev/filter &&
		 echo 1 > $ev/enable" 2>&1); then
		defer tfs "rmdir instances/$TR_INST"
		tr_on=1
		ktap_info "driver skbs: tracepoint net:napi_gro_receive_entry on $NETIF (tracefs instance $TR_INST)"
	else
		tfs "rmdir instances/$TR_INST" 2>/dev/null
		ktap_info "driver skbs: not reported (tracefs instance: ${why:-unavailable})"
		return 0
	fi
	# the NAPI polls between a train's packets, and where the kernel has
	# kprobe events the GRO flushes themselves with jiffies (a flush of a
	# completing poll ends only the skbs of an older jiffy):
	# udpgso_wire_napi.c reads them per train (--napi-trace)
	tfs "echo global > instances/$TR_INST/trace_clock" 2>/dev/null
	if ! why=$(tfs "echo 'dev_name == \"$NETIF\"' > $poll/filter && echo 1 > $poll/enable" 2>&1); then
		ktap_info "NAPI polls: not read (napi:napi_poll: ${why:-unavailable}): trains judged as if in one poll"
		return 0
	fi
	NAPI_ARGS=(--napi-trace "/sys/kernel/tracing/instances/$TR_INST")
	[ -z "$KHZ" ] || NAPI_ARGS+=(--hz "$KHZ")
	if why=$(tfs "echo 'p:$TR_KP/ugnapi_rx napi_gro_receive napi=\$arg1:x64 j=@jiffies_64:u64' >> kprobe_events &&
		 echo 'p:$TR_KP/ugnapi_flush napi_gro_flush napi=\$arg1:x64 old=\$arg2:u8 j=@jiffies_64:u64' >> kprobe_events &&
		 echo 1 > instances/$TR_INST/events/$TR_KP/enable" 2>&1); then
		defer tfs "echo 0 > instances/$TR_INST/events/$TR_KP/enable; echo -:$TR_KP/ugnapi_rx >> kprobe_events; echo -:$TR_KP/ugnapi_flush >> kprobe_events"
		ktap_info "GRO flushes: napi:napi_poll on $NETIF and kprobe events $TR_KP/ugnapi_rx (napi_gro_receive), ugnapi_flush (napi_gro_flush), with jiffies"
	else
		tfs "echo 0 > instances/$TR_INST/events/$TR_KP/enable; echo -:$TR_KP/ugnapi_rx >> kprobe_events; echo -:$TR_KP/ugnapi_flush >> kprobe_events" 2>/dev/null
		ktap_info "GRO flushes: napi:napi_poll on $NETIF only (kprobe events: ${why:-unavailable}): a completing poll with work is taken to keep young skbs${KHZ:+, HZ $KHZ}"
	fi
}
# tr_run CMD...: CMD where /sys/kernel/tracing is mounted (a private mount
# namespace when the machine has it unmounted), for rx's --napi-trace
tr_run() {
	if [ -d /sys/kernel/tracing/instances ]; then
		"$@"
	else
		unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing && exec "$@"' tr_run "$@"
	fi
}
tr_begin() { [ "$tr_on" = 0 ] || tfs "echo > instances/$TR_INST/trace"; }
# tr_end: "SKBS NONE UNNECESSARY COMPLETE PARTIAL GSO" of the skbs the driver
# handed to GRO since tr_begin (GSO: with a gso_size, coalesced by the device)
tr_end() {
	[ "$tr_on" = 1 ] || return 1
	tfs "cat instances/$TR_INST/trace" | awk '
		/ napi_gro_receive_entry:/ {
			n++
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^ip_summed=/) s[substr($i, 11)]++
				if ($i ~ /^gso_size=/ && substr($i, 10) + 0 > 0) g++
			}
		}
		END { printf "%d %d %d %d %d %d\n", n, s[0], s[1], s[2], s[3], g }'
}
tr_line() {		# the tr_end fields, said
	local n none unn comp part gso
	read -r n none unn comp part gso <<<"$1"
	echo "driver handed $n skbs to GRO (ip_summed: NONE $none, UNNECESSARY $unn," \
		"COMPLETE $comp, PARTIAL $part; $gso GSO from the device)"
}

# ---- the device's queue counters (qstats), summed over the queues -----------
qsum() {		# SIDE WHAT: the sum of qstat rx_queue_*_WHAT, "" if not reported
	drv_counters "$1" "$([ "$1" = local ] && echo "$NETIF" || echo "$DRV_RIF")" |
		awk -v w="$2" '$1 == "qstat" && $2 ~ "^rx_queue_[0-9]+_" w "$" { s += $3; f = 1 }
			       END { if (f) print s }'
}

# ---- one case -----------------------------------------------------------------
declare -A st_said=()
# the tx role's own arguments (--gso: the train as one GSO send)
TXARGS=()
# run FAM CASE RXMODE [NOTE [RX-ARGS...]]: one KTAP line; sets OUT (the
# checker's lines), RC, TR (tr_end)
run() {
	local fam=$1 c=$2 rx=$3 note=${4:-} name la ra st_l st_r why side
	shift $(($# < 4 ? $# : 4))
	name="ipv$fam $c ($rx${note:+, $note})"
	# shellcheck disable=SC2254
	case "$name" in $only) ;; *) RC=skip; return 0 ;; esac
	la=$(drv_addr local "$fam") ra=$(drv_addr remote "$fam")
	local t0 t1 t2
	t0=$(drv_ms)
	for side in local remote; do
		drv_stats_begin "$side" >/dev/null 2>&1 && continue
		# once per side: why there are no per-skb counters
		[ -n "${st_said[$side]:-}" ] || ktap_info "$side per-skb counters: none (${DRV_STATS_WHY:-?})"
		st_said[$side]=1
	done
	tr_begin
	t1=$(drv_ms)
	# rx's stdout (the 'go' lines) feeds tx; tx's answers come back by the fifo
	tr_run "$BIN" gro --role rx "-$fam" -S "$ra" -D "$la" -p "$PORT" --rx-dev "$NETIF" -c "$c" \
		--rx "$rx" --tx-reply --tries "$TRIES" "${NAPI_ARGS[@]}" "$@" <"$tmpd/answers" \
		2>"$tmpd/out" |
		drv_remote "$RBIN" gro --role tx "-$fam" -S "$ra" -D "$la" -p "$PORT" \
			--tx-dev "$DRV_RIF" --dst-mac "$DRV_LMAC" -c "$c" "${TXARGS[@]}" \
			>"$tmpd/answers" 2>"$tmpd/txerr"
	RC=${PIPESTATUS[0]}
	t2=$(drv_ms)
	OUT=$(cat "$tmpd/out" "$tmpd/txerr")
	TR=$(tr_end) || TR=
	st_l=$(drv_stats_end local 2>/dev/null)
	st_r=$(drv_stats_end remote 2>/dev/null)
	echo "$OUT" | sed 's/^/# /'
	ktap_info "case time $(drv_secs "$t0") s: counters and trace set up $(drv_secs "$t0" "$t1") s," \
		"trains $(drv_secs "$t1" "$t2") s, read $(drv_secs "$t2") s"
	[ -z "$TR" ] || ktap_info "$(tr_line "$TR")"
	# what the receiver's per-skb counters saw come from GRO and the driver
	if [ -n "$st_l" ]; then
		ktap_info "local counters: $(awk '$1 ~ /rx_gro_in$|rx_gro_coalesced_skbs$|rx_gso_passthrough_skbs$|rx_skbs$/ { printf "%s=%s ", $1, $2 }' <<<"$st_l")"
	fi
	if [ -n "$st_r" ]; then
		ktap_info "remote counters: $(awk '$1 ~ /tx_skbs$|tx_dev_skbs$/ { printf "%s=%s ", $1, $2 }' <<<"$st_r")"
	fi
	case "$OUT" in *"train resent"*) name="$name [train resent: a jiffy ended in it]" ;; esac
	# a GRO flush inside the train (udpgso_wire_napi.c): asked again, or cut
	local again
	again=$(echo "$OUT" | sed -n 's/.*; asked again \([0-9]*\) times: poll split.*/\1/p' | head -1)
	[ -z "$again" ] || name="$name [asked again $again times: poll split]"
	# reached GRO out of order (the packets each skb holds, from the payload):
	# asked again and named; the last try too: fails, named by the checker
	again=$(echo "$OUT" | sed -n 's/.*; asked again \([0-9]*\) times: out of order at GRO.*/\1/p' | head -1)
	[ -z "$again" ] || name="$name [asked again $again times: out of order at GRO]"
	# the expectation cut where the trace saw no flush (udpgso_wire_gro.c)
	again=$(echo "$OUT" | sed -n 's/.*; asked again \([0-9]*\) times: split, no flush seen.*/\1/p' | head -1)
	[ -z "$again" ] || name="$name [asked again $again times: split, no flush seen]"
	case "$OUT" in *"every try split by a GRO flush"*)
		name="$name [judged with the cut: $(echo "$OUT" |
			sed -n 's/.*cut at the flushes: \([0-9x,;-]*[0-9x]\).*/\1/p' | head -1)]" ;;
	esac
	why=$(echo "$OUT" | grep -m1 '^FAIL\|^SKIP\|udpgso_wire:')
	# a GSO send: the receiver's per-skb counters must have seen the GSO
	# skbs the driver handed over (passthrough) as the tracepoint did
	if [ "$RC" = 0 ] && [ "${#TXARGS[@]}" -gt 0 ] && [ -n "$TR" ] && [ -n "$st_l" ]; then
		local pass gso
		pass=$(awk '$1 == "local.rx_gso_passthrough_skbs" { print $2 }' <<<"$st_l")
		gso=${TR##* }
		if [ "$pass" = "$gso" ]; then
			name="$name [$gso GSO skbs from the device, counters agree]"
		else
			RC=1 why="local rx_gso_passthrough_skbs=${pass:-none}, the tracepoint saw $gso GSO skbs from the driver"
		fi
	fi
	if [ "$RC" != 0 ] && [ -n "$TR" ] && [ "${TR%% *}" = 0 ]; then
		# nothing of ours reached napi_gro_receive: not a GRO verdict
		RC=4 why="$NETIF's driver handed none of the train to GRO (napi_gro_receive_entry never fired for it): no GRO in this receive path; ${why}"
	elif [ "$RC" != 0 ] && [ -n "$TR" ]; then
		why="$why; $(tr_line "$TR")"
	fi
	ktap_result "$RC" "$name" "$why"
}

cases_of() {		# FAM: the cases for this family
	"$BIN" gro -l | awk -v f="$1" '$2 == 0 || $2 == f { print $1 }'
}

# ---- the receiving device's configuration --------------------------------------
# feat SIDE DEV FEATURE on|off: switch it; "" or the reason it cannot be
feat() {
	local why rc
	why=$(drv_feat "$@"); rc=$?
	[ "$rc" = 0 ] && return 0
	echo "${why:-drv_feat $* failed (exit $rc)}"
	return "$rc"
}
# base: GRO on, every other receive offload off where NETIF has it;
# gro_flush_timeout 20 ms so a train's held skbs wait for the train
base() {
	local f why
	why=$(feat local "$NETIF" gro on) || { echo "$why"; return 1; }
	for f in rx-gro-list rx-udp-gro-forwarding rx-gro-hw lro; do
		why=$(feat local "$NETIF" "$f" off)
		case $? in
		0 | 4) ;;
		*) echo "$why"; return 1 ;;
		esac
	done
}
FLUSH0=$(cat "/sys/class/net/$NETIF/gro_flush_timeout" 2>/dev/null) ||
	drv_ksft_skip_all "$NETIF has no gro_flush_timeout (sysfs)"
defer sh -c "echo $FLUSH0 > /sys/class/net/$NETIF/gro_flush_timeout"
echo 20000000 >"/sys/class/net/$NETIF/gro_flush_timeout" ||
	drv_ksft_skip_all "cannot set $NETIF's gro_flush_timeout"
# veth takes its NAPI (GRO) path only for frames its peer did not mark as
# GSO-able (the sender's TSO off); harmless on a NIC, absent on some
why=$(feat remote "$DRV_RIF" tso off) || ktap_info "remote $DRV_RIF: tso not switched off: $why"
tr_init
# one receive queue: every flow of a train on one NAPI, whose flushes
# udpgso_wire_napi.c reads (restored at exit by drv_env_init's snapshot)
ch=$(ethtool -l "$NETIF" 2>/dev/null |
	awk '/^Current hardware settings/ { c = 1 } c && $1 == "Combined:" { print $2; exit }')
if [ "${ch:-0}" != n/a ] && [ "${ch:-0}" -gt 1 ] 2>/dev/null; then
	if ethtool -L "$NETIF" combined 1 >/dev/null 2>&1; then
		ktap_info "$NETIF: combined channels $ch -> 1 (a train's flows on one NAPI)"
	else
		ktap_info "$NETIF: combined channels stay $ch (ethtool -L combined 1 failed): a train on two NAPIs is judged as before"
	fi
fi
ktap_info "set-up $(drv_secs "$T_FILE") s (environment, both snapshots, trace, channels)"
# ---- the checker itself: a wrong expectation must fail --------------------------
selftest() {
	local fam=${DRV_FAMILIES%% *} la ra out rc name="selftest: a wrong expectation (same as 2+2) fails"
	# shellcheck disable=SC2254
	case "selftest" in $only) ;; *) return 0 ;; esac
	la=$(drv_addr local "$fam") ra=$(drv_addr remote "$fam")
	# a train a GRO flush split (the driver's 2+2 would make the wrong
	# expectation right) is asked again, up to TRIES: judged in one go
	tr_run "$BIN" gro --role rx "-$fam" -S "$ra" -D "$la" -p "$PORT" --rx-dev "$NETIF" -c same \
		--groups "0-1;2-3" --tries "$TRIES" --tx-reply "${NAPI_ARGS[@]}" <"$tmpd/answers" \
		2>"$tmpd/out" |
		drv_remote "$RBIN" gro --role tx "-$fam" -S "$ra" -D "$la" -p "$PORT" \
			--tx-dev "$DRV_RIF" --dst-mac "$DRV_LMAC" -c same >"$tmpd/answers" 2>"$tmpd/txerr"
	rc=${PIPESTATUS[0]}
	out=$(cat "$tmpd/out")
	echo "$out" | sed 's/^/# /'
	# (2+2 with gso_size 1000, or, on 6.1, whose expectation for two merged
	# packets carries none, `2028 2028`: results/device-guest-2026-11-25c)
	if [ "$rc" = 1 ] && echo "$out" | grep -Eq '^# expected skbs \[41000: [0-9]+(/1000)? [0-9]+(/1000)?\]'; then
		ktap_ok "$name"
	elif [ "$rc" = 4 ] && echo "$out" | grep -q '^SKIP .*each train crossed a jiffy'; then
		# (the 6.1 guest under TCG: results/device-guest-matrix-2026-11-25)
		ktap_skip "$name" "each of $TRIES trains crossed a jiffy on the sender: a train in one piece never came, nothing to judge the wrong expectation against"
	elif [ "$rc" = 0 ] && echo "$out" | grep -q 'every try split by a GRO flush'; then
		ktap_skip "$name" "every one of $TRIES trains was split by a GRO flush ($(echo "$out" |
			grep -c '^# try .*split the train') tries split): the wrong expectation cannot be told from the driver's split"
	else
		ktap_fail "$name" "exit $rc, not the checker's failure naming the expected 2+2"
	fi
}

# ---- the order check itself: a train sent out of order must fail, named --------
selftest_order() {
	local fam=${DRV_FAMILIES%% *} la ra out rc name="selftest: a train out of order (1, 2 swapped) fails, named"
	# shellcheck disable=SC2254
	case "selftest" in $only) ;; *) return 0 ;; esac
	la=$(drv_addr local "$fam") ra=$(drv_addr remote "$fam")
	tr_run "$BIN" gro --role rx "-$fam" -S "$ra" -D "$la" -p "$PORT" --rx-dev "$NETIF" -c same \
		--tries 2 --tx-reply "${NAPI_ARGS[@]}" <"$tmpd/answers" 2>"$tmpd/out" |
		drv_remote "$RBIN" gro --role tx "-$fam" -S "$ra" -D "$la" -p "$PORT" \
			--tx-dev "$DRV_RIF" --dst-mac "$DRV_LMAC" -c same --swap 1,2 \
			>"$tmpd/answers" 2>"$tmpd/txerr"
	rc=${PIPESTATUS[0]}
	out=$(cat "$tmpd/out")
	echo "$out" | sed 's/^/# /'
	if [ "$rc" = 1 ] && echo "$out" | grep -q '^FAIL .*reached GRO out of order in 2 of 2 tries'; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "exit $rc, not the checker's failure naming the order"
	fi
}

SUBSET="same small_last larger bad_csum ports max_count"

if why=$(base); then
	selftest
	selftest_order
	for fam in $DRV_FAMILIES; do
		cs=$(cases_of "$fam")
		[ -z "${DRV_GRO_QUICK:-}" ] || cs=$SUBSET
		for c in $cs; do
			run "$fam" "$c" gro
		done
		# a plain socket, no fraglist: nothing is merged
		for c in $SUBSET; do
			run "$fam" "$c" plain
		done
	done
else
	ktap_skip "gro: GRO in $NETIF's NAPI" "$why"
fi

# ---- GSO sends from the remote --------------------------------------------------
# The train as one UDP_SEGMENT send from a socket on the remote: segmented by
# DRV_RIF (tx-udp-segmentation on) or by the remote's kernel (off).  The skbs
# after GRO and the reads are the train's all the same: the packets merge in
# GRO, or a GSO skb the driver hands over (a device that passes the sender's
# GSO packet on: virtio-net with rx-gro-hw; veth) goes through whole.  The
# driver line says which: "g GSO from the device".
gso_sends() {		# NOTE
	local fam c
	TXARGS=(--gso)
	for fam in $DRV_FAMILIES; do
		for c in same small_last; do
			run "$fam" "$c" gro "$1"
		done
	done
	TXARGS=()
}
if why=$(base); then
	for uso in on off; do
		if why=$(feat remote "$DRV_RIF" tx-udp-segmentation "$uso"); then
			gso_sends "GSO send, remote tx-udp-segmentation $uso"
		else
			ktap_skip "gro: GSO send, remote tx-udp-segmentation $uso" "$why"
		fi
	done
fi

# ---- rx-gro-list: a plain socket gets fraglist skbs, split back ------------------
if why=$(base) && why=$(feat local "$NETIF" rx-gro-list on); then
	for fam in $DRV_FAMILIES; do
		for c in $SUBSET; do
			run "$fam" "$c" plain-fraglist
		done
		for c in same larger; do
			run "$fam" "$c" gro rx-gro-list
		done
	done
else
	ktap_skip "gro: rx-gro-list" "$why"
fi

# ---- rx-udp-gro-forwarding: GRO for no socket (what a forwarder gets) -----------
if why=$(base) && why=$(feat local "$NETIF" rx-udp-gro-forwarding on); then
	for fam in $DRV_FAMILIES; do
		for c in $SUBSET; do
			run "$fam" "$c" none rx-udp-gro-forwarding
		done
	done
else
	ktap_skip "gro: rx-udp-gro-forwarding" "$why"
fi

# ---- the device's own coalescing: rx-gro-hw, LRO ----------------------------------
# The skbs after GRO must still be what GRO makes of the train; the skbs that
# came from the device as GSO (tracepoint) must be what the driver counted in
# qstats rx-hw-gro-packets, their wire packets rx-hw-gro-wire-packets.
hw_case() {		# FEATURE FAM CASE [NOTE]
	local f=$1 fam=$2 c=$3 p0 w0 p1 w1 n gso
	p0=$(qsum local hw_gro_packets) w0=$(qsum local hw_gro_wire_packets)
	run "$fam" "$c" gro "$f${4:+, $4}"
	[ "$RC" = skip ] && return 0
	p1=$(qsum local hw_gro_packets) w1=$(qsum local hw_gro_wire_packets)
	if [ -z "$p1" ]; then
		ktap_info "$NETIF's driver reports no qstats rx-hw-gro-packets: not compared"
		return 0
	fi
	read -r n _ _ _ _ gso <<<"${TR:-x x x x x x}"
	local name="ipv$fam $c ($f${4:+, $4}): qstats rx-hw-gro-packets +$((p1 - p0)), wire packets +$((w1 - w0))"
	if [ -z "$TR" ]; then
		ktap_skip "$name" "no tracepoint to count the device's GSO skbs against"
	elif [ "$((p1 - p0))" = "$gso" ] && { [ "$gso" = 0 ] && [ "$((w1 - w0))" = 0 ] ||
		[ "$((w1 - w0))" -ge "$((2 * gso))" ]; }; then
		ktap_ok "$name [= $gso GSO skbs from the device]"
	else
		ktap_fail "$name" "the driver handed $gso GSO skbs ($n skbs) to GRO"
	fi
}
for f in rx-gro-hw lro; do
	if ! why=$(base) || ! why=$(feat local "$NETIF" "$f" on); then
		ktap_skip "gro: $f" "$why"
		continue
	fi
	for fam in $DRV_FAMILIES; do
		for c in same ports max_count; do
			hw_case "$f" "$fam" "$c"
		done
	done
	# the remote's GSO send, segmented by its device (USO on) or its kernel
	# (off): where the device passes the GSO packet on (virtio-net with
	# rx-gro-hw), the driver hands a GSO skb to GRO, which goes up whole
	for uso in on off; do
		if ! why=$(feat remote "$DRV_RIF" tx-udp-segmentation "$uso"); then
			ktap_skip "gro: $f, GSO send, remote tx-udp-segmentation $uso" "$why"
			continue
		fi
		TXARGS=(--gso)
		for fam in $DRV_FAMILIES; do
			hw_case "$f" "$fam" same "GSO send, remote tx-udp-segmentation $uso"
		done
		TXARGS=()
	done
done

ktap_finish
