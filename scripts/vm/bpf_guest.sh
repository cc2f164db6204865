#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module (kmod/) and its BPF twin (bpf/udpgso_stats) over the same
# traffic, INSIDE a guest kernel that loads modules and has BTF (kmod_test.sh
# can run it in the same guest boot as scripts/vm/kmod_guest.sh).  For every
# deterministic case each counter both give must be equal, exactly: the
# module's, udpgso_stats' (fexit where the kernel allows it) and a second
# udpgso_stats inside the first with UDPGSO_STATS_NO_FEXIT=1 (the counters
# derived from tracepoints, as on a kernel that refuses fexit).  Then the
# same case's /proc/net/snmp (Udp, Udp6) deltas against those counters
# (snmp_check; docs/bpf.md "Three ways: /proc/net/snmp").
#
#   scripts/vm/bpf_guest.sh --ko PATH [--out FILE] [--only CASE,...] [--reps N]
#
# --reps N (1..1000): the cases N times in this boot (scripts/bench/bpf_stress.sh),
# each result line then names its rep.  Each BPF run must also say
# '# skipped: none' (no program run the kernel skipped, no GRO mark lost);
# an incomplete run is a failure naming the program and the count.
#
# Two result lines per case on stdout (and appended to FILE), as kmod_guest.sh:
#   UGKMOD ok|not ok|skip <kernel>: bpf <case>: ...
#   UGKMOD ok|not ok <kernel>: bpf <case>: snmp: ...
# A disagreement names the counter and the three values.
set -u

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../bpf_lib.sh"
# a guest under TCG on a loaded host: loading the two udpgso_stats instances
# took the receiver past its 120 s (`timeout`) before the first datagram (the
# lo4 reps that failed: InDatagrams 0, rx_sw_segmented_skbs 0, i.e. no socket
# left); it lives 900 s here, and its queue gets 60 s to empty
export BL_RX_SECS=${BL_RX_SECS:-900} BL_RXQ_SECS=${BL_RXQ_SECS:-60}

usage() {
	echo "usage: $ug_prog --ko PATH [--out FILE] [--only CASE,...]" >&2
	exit 1
}

ko= out=/dev/null only= reps=1 rep=""
while [ $# -gt 0 ]; do
	case "$1" in
	--ko) ko=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--only) only=${2:-}; shift 2 || usage ;;
	--reps) reps=${2:-}; shift 2 || usage
		[[ $reps =~ ^[1-9][0-9]{0,3}$ ]] && [ "$reps" -le 1000 ] ||
			ug_die "--reps '$reps': allowed 1..1000" ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --ko PATH, --out FILE, --only CASE,..., --reps N (-h: usage)" ;;
	esac
done
[ -n "$ko" ] || usage

D=/sys/kernel/debug/udpgso_stats
M=100 K=10 S=1400
TX=$UDPGSO_BIN/udpgso_bench_tx
RX=$UDPGSO_BIN/udpgso_bench_rx
STATS=$UDPGSO_BIN/udpgso_stats
kver=$(uname -v | sed -n 's/.*Debian \([0-9][0-9.]*\).*/\1/p')
[ -n "$kver" ] || kver=$(uname -r | sed 's/[-+].*//')
work=$(mktemp -d /tmp/ugbpfg.XXXXXX)

emit() { local s=$1; shift; echo "UGKMOD $s $kver: bpf $rep$*" | tee -a "$out"; }
wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

declare -A KM BF BD
# compare NAME: every counter udpgso_stats printed equals the module's, in
# both modes; a counter the BPF side marks unavailable is listed, not compared
compare() {
	local name=$1 n bad="" same=0 unav mode
	bl_load "$work/kmod" KM
	bl_load "$work/bpf" BF
	bl_load "$work/bpf_derived" BD
	# (a counter one BPF mode marks unavailable is compared in the other)
	for n in "${!KM[@]}"; do
		[ -z "${BF[$n]:-}" ] && [ -z "${BD[$n]:-}" ] && continue
		if [ "${KM[$n]}" = "${BF[$n]:-${KM[$n]}}" ] &&
		   [ "${KM[$n]}" = "${BD[$n]:-${KM[$n]}}" ]; then
			same=$((same + 1))
			continue
		fi
		bad+="$n kmod=${KM[$n]} bpf=${BF[$n]:-absent} derived=${BD[$n]:-absent}, "
	done
	unav=$(grep -h '^# unavailable:' "$work/bpf" "$work/bpf_derived" | sort -u | tr '\n' ' ')
	[ -s "$work/bpf.err" ] && bad+="$(head -2 "$work/bpf.err" | tr '\n' ' '), "
	# a program run the kernel skipped or a lost GRO mark: incomplete, named
	for mode in bpf bpf_derived; do
		grep -q '^# skipped: none: ' "$work/$mode" ||
			bad+="$mode incomplete: $(grep '^# skipped' "$work/$mode" | tr '\n' ' '), "
	done
	[ "$same" -gt 0 ] || bad+="no counter compared, "
	if [ -n "$bad" ]; then
		emit "not ok" "$name: ${bad%, }"
		paste "$work/kmod" "$work/bpf" | sed 's/^/# /'
	else
		mode=$(sed -n '1s/^# udpgso_stats bpf \([^,]*\),.*/\1/p' "$work/bpf")
		emit ok "$name: $same counters equal (kmod, bpf $mode, bpf derived)," \
			"tx_gso_segs=${KM[tx_gso_segs]}${unav:+; $unav}"
	fi
}

# delta NAME FILE0 FILE1: NAME's value in FILE1 minus FILE0 (bl_snmp's)
delta() {
	local a b
	a=$(awk -v n="$1" '$1 == n { print $2 }' "$2")
	b=$(awk -v n="$1" '$1 == n { print $2 }' "$3")
	[ -n "$a" ] && [ -n "$b" ] && echo $((b - a))
}
# snmp_check NAME SAME_NS: the netns UDP MIB (Udp of /proc/net/snmp, Udp6 of
# /proc/net/snmp6) against the counters of the three sources, exactly
# (docs/bpf.md, "Three ways: /proc/net/snmp", has the kernel lines):
#   OutDatagrams(tx ns) - probe sends = tx_skbs           (udp_send_skb)
#   InDatagrams(rx ns) - probe reads = the receiver's reads (udp_recvmsg)
#   InDatagrams - probe reads + RcvbufErrors + MemErrors
#     = rx_skbs - rx_sw_segmented_skbs + rx_sw_segments   (datagrams queued)
#   RcvbufErrors + MemErrors = InErrors = rx_udp_queue_fails
# with the sender's GSO probe (its --json gso.probe) read back whole
snmp_check() {
	local name=$1 same=$2 bad="" w=$work/bpf src v n
	local outd in rcv mem inerr txin sndb ps pd pr reads want
	local -A S=()
	outd=$(delta OutDatagrams "$w.snmp.tx0" "$w.snmp.tx1")
	sndb=$(delta SndbufErrors "$w.snmp.tx0" "$w.snmp.tx1")
	txin=$(delta InDatagrams "$w.snmp.tx0" "$w.snmp.tx1")
	in=$(delta InDatagrams "$w.snmp.rx0" "$w.snmp.rx1")
	rcv=$(delta RcvbufErrors "$w.snmp.rx0" "$w.snmp.rx1")
	mem=$(delta MemErrors "$w.snmp.rx0" "$w.snmp.rx1")
	inerr=$(delta InErrors "$w.snmp.rx0" "$w.snmp.rx1")
	# the sender's --json gso.probe {sends, datagrams, reads}: "S D R"
	read -r ps pd pr < <(grep -o '"probe":{[^}]*}' "$w.tx.json" 2>/dev/null |
		tr -dc '0-9,' | tr ',' ' ')
	reads=$(sed -n 's/.*"reads":\([0-9]*\),"gro_reads".*/\1/p' "$w.rx.json" 2>/dev/null)
	for v in outd sndb txin in rcv mem inerr ps pd pr reads; do
		[ -n "${!v}" ] || { emit "not ok" "$name: snmp: no figure $v (snmp or --json)"; return; }
	done
	[ "$pd" = "$pr" ] || bad+="probe sent $pd datagrams, read $pr, "
	[ "$sndb" = 0 ] || bad+="SndbufErrors $sndb, "
	local in_ok="InDatagrams $in = $reads reads + $pr probe reads"
	if [ "$same" = 0 ]; then
		[ "$txin" = "$pr" ] || bad+="InDatagrams(sender's netns) snmp=$txin probe reads=$pr, "
		in_ok="InDatagrams $in = $reads reads, sender's netns $txin = probe reads"
		pr=0
	fi
	[ $((in - pr)) = "$reads" ] || bad+="InDatagrams snmp=$in - $pr probe reads, reads=$reads, "
	[ "$inerr" = $((rcv + mem)) ] || bad+="InErrors $inerr RcvbufErrors $rcv MemErrors $mem, "
	S[OutDatagrams]=$((outd - ps)) S[queued]=$((in - pr + rcv + mem)) S[fails]=$((rcv + mem))
	local -A cnt=([kmod]=0 [bpf]=0 [derived]=0)
	for src in KM BF BD; do
		local -n c=$src
		n=${src/KM/kmod}; n=${n/BF/bpf}; n=${n/BD/derived}
		if [ -n "${c[tx_skbs]:-}" ]; then
			cnt[$n]=$((cnt[$n] + 1))
			[ "${c[tx_skbs]}" = "${S[OutDatagrams]}" ] ||
				bad+="OutDatagrams snmp=$outd - $ps probe sends, $n tx_skbs=${c[tx_skbs]}, "
		fi
		if [ -n "${c[rx_skbs]:-}" ] && [ -n "${c[rx_sw_segmented_skbs]:-}" ] &&
		   [ -n "${c[rx_sw_segments]:-}" ]; then
			cnt[$n]=$((cnt[$n] + 1))
			want=$((c[rx_skbs] - c[rx_sw_segmented_skbs] + c[rx_sw_segments]))
			[ "$want" = "${S[queued]}" ] ||
				bad+="InDatagrams+RcvbufErrors+MemErrors snmp=${S[queued]}, $n rx_skbs"
			[ "$want" = "${S[queued]}" ] ||
				bad+="-rx_sw_segmented_skbs+rx_sw_segments=$want, "
		fi
		if [ -n "${c[rx_udp_queue_fails]:-}" ]; then
			cnt[$n]=$((cnt[$n] + 1))
			[ "${c[rx_udp_queue_fails]}" = "${S[fails]}" ] ||
				bad+="RcvbufErrors+MemErrors snmp=${S[fails]}, $n rx_udp_queue_fails"
			[ "${c[rx_udp_queue_fails]}" = "${S[fails]}" ] ||
				bad+="=${c[rx_udp_queue_fails]}, "
		fi
		unset -n c
	done
	[ "${cnt[kmod]}" -gt 0 ] && [ "${cnt[bpf]}" -gt 0 ] ||
		bad+="no counter of the module or of bpf to compare, "
	if [ -n "$bad" ]; then
		emit "not ok" "$name: snmp: ${bad%, }"
	else
		emit ok "$name: snmp: OutDatagrams $outd = tx_skbs ${S[OutDatagrams]} + $ps probe" \
			"sends; $in_ok; queued ${S[queued]} = rx_skbs - rx_sw_segmented_skbs +" \
			"rx_sw_segments; RcvbufErrors+MemErrors $((rcv + mem)) = rx_udp_queue_fails;" \
			"relations checked: kmod ${cnt[kmod]}, bpf ${cnt[bpf]}, derived ${cnt[derived]}"
	fi
}

# one case: kmod filtered and reset, both BPF tools around the traffic
both() {		# NAME NS_TX NS_RX DST FAMILY RXFLAGS
	local name=$1 port
	echo "# bpf_guest: '$name' at $((SECONDS - t0)) s" >&2
	port=$(bl_port)
	echo "port $port" >"$D/filter" && echo 1 >"$D/reset"
	BL_SNMP=1 BL_INNER_OUT=$work/bpf_derived bl_run "$work/bpf" "$2" "$3" "$4" "$port" \
		"$5" "$6" --filter port "$port"
	cat "$D/counters" >"$work/kmod"
	compare "$name"
	snmp_check "$name" "$([ "$2" = "$3" ] && echo 1 || echo 0)"
}

t0=$SECONDS
ug_trap_install
cleanup_done() { echo "# bpf_guest: cleanup done at $((SECONDS - t0)) s" >&2; }
defer cleanup_done
defer rm -rf "$work"
defer rmmod udpgso_stats
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
for b in "$TX" "$RX" "$STATS"; do
	[ -x "$b" ] || { emit skip "all: no $b (make; make -C bpf)"; exit 4; }
done
if [ ! -r "$D/counters" ] && ! err=$(insmod "$ko" 2>&1); then
	emit "not ok" "load module: $err"
	exit 1
fi
if ! "$STATS" hooks >"$work/hooks" 2>&1; then
	emit skip "all: $(tail -1 "$work/hooks")"
	exit 4
fi
sed 's/^/# hooks: /' "$work/hooks"
grep -q '^# mode fexit' "$work/hooks" &&
	emit ok "hooks: fexit attached, $(sed -n 's/^# \(gso fields read with .*\)/\1/p' "$work/hooks")" ||
	emit "not ok" "hooks: fexit not attached on a kernel whose module's kretprobes attach"

run_cases() {
wanted lo4 && { ns_add l; both "lo gso plain socket" l l 127.0.0.1 -4 ""; bl_down; }
# a receive buffer too small for the burst: RcvbufErrors against rx_udp_queue_fails
wanted lo4drop && { ns_add l; both "lo gso plain socket, 8 KB rcvbuf" l l 127.0.0.1 -4 \
	"--rcvbuf 8192"; bl_down; }
wanted lo4gro && { ns_add l; both "lo gso UDP_GRO socket" l l 127.0.0.1 -4 "-G"; bl_down; }
wanted lo6 && { ns_add l; both "lo gso ipv6 plain socket" l l ::1 -6 ""; bl_down; }
if wanted swseg; then
	bl_veth && ns_exec a ethtool -K "$BL_DA" tx-udp-segmentation off >/dev/null 2>&1
	both "veth tx-udp-segmentation off" a b 10.71.0.2 -4 ""
	bl_down
fi
if wanted gro; then
	bl_veth && ns_exec a ethtool -K "$BL_DA" tx-udp-segmentation off tso off >/dev/null 2>&1
	ns_exec b ethtool -K "$BL_DB" gro on >/dev/null 2>&1
	both "veth GRO (UDP_GRO socket)" a b 10.71.0.2 -4 "-G"
	bl_down
fi
if wanted vlan; then
	if bl_vlan; then
		both "vlan over veth" a b 10.72.0.2 -4 ""
	else
		emit skip "vlan over veth: no VLAN device"
	fi
	bl_down
fi
if wanted gropass; then
	bl_veth && ns_exec a ethtool -K "$BL_DA" tso off >/dev/null 2>&1
	ns_exec b ethtool -K "$BL_DB" gro on >/dev/null 2>&1
	both "veth GRO on, GSO skb passed whole" a b 10.71.0.2 -4 "-G"
	bl_down
fi
}

for ((r = 1; r <= reps; r++)); do
	[ "$reps" = 1 ] || rep="[rep $r/$reps] "
	run_cases
done
echo "# bpf_guest: cases done at $((SECONDS - t0)) s" >&2
exit 0
