#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# udpgso-lab: UDP GRO conformance.  udpgso_wire gro writes a train of
# crafted UDP packets (Ethernet/IP/UDP built in user space, right
# checksums unless the case says otherwise) with one sendmmsg on AF_PACKET
# on veth va; the peer vb (GRO on, gro_flush_timeout 20 ms, the sender's
# TSO off so veth takes its NAPI path) has a tap that sees the skbs GRO
# built and a UDP socket that reads them.  Each case's skbs and reads,
# flow by flow, must be what the kernel's GRO rules make of the train
# (udpgso_wire_gro.c names the source lines; docs/suite.md has the table).
# Receivers: a UDP_GRO socket (every case, IPv4 and IPv6), a plain socket
# (nothing merged), a plain socket with rx-gro-list (fraglist skbs split
# back at the socket), a UDP_GRO socket with rx-gro-list (UDP GRO wins).
#
# usage: udpgro_conf.sh [-k PATTERN] [-n REPS]
#   -k: only cases whose name matches; -n: each case until REPS trains had
#   their counters compared (1..100000; a train resent because it crossed a
#   jiffy is not compared, nor one whose counters are incomplete, named;
#   at most 3 x REPS trains;
#   scripts/bench/bpf_stress.sh): one TAP line per case with the counts of
#   reps whose counters agree, disagree, were incomplete (a skipped program
#   run or a lost GRO mark; a resent rep's lost GRO skb too), or were not
#   compared (train resent), and of
#   the reps udpgso_wire's own check failed; the line fails on a counter
#   disagreement, or when incomplete reps left fewer than REPS compared (not
#   a rep whose skbs not seen at netif_receive_skb are single skbs the tap
#   saw that no BPF program ran on, the witness neither: named, its counters
#   compared; docs/bpf.md).  Without -n, an incomplete train is named and
#   sent again, at most 3 trains.  UDPGRO_CONF_FAKE_INCOMPLETE=N (a test
#   hook): the first N counter checks answer incomplete.

set -u
. "$(dirname "$0")/scripts/lib.sh"

BIN="$UDPGSO_BIN/udpgso_wire"
only='*'
reps=1
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) ug_help; exit 0 ;;
	-k) [ $# -ge 2 ] || ug_die "-k needs a shell pattern"; only=$2; shift 2 ;;
	-n) [[ ${2:-} =~ ^[1-9][0-9]{0,5}$ ]] && [ "$2" -le 100000 ] ||
		ug_die "-n '${2:-}': allowed a number of repetitions from 1 to 100000"
	    reps=$2; shift 2 ;;
	*) ug_die "unknown argument '$1', allowed -k PATTERN, -n REPS, -h" ;;
	esac
done
fake_inc=${UDPGRO_CONF_FAKE_INCOMPLETE:-0}
[[ $fake_inc =~ ^[0-9]{1,6}$ ]] ||
	ug_die "UDPGRO_CONF_FAKE_INCOMPLETE '$fake_inc': allowed a count from 0 to 999999"

ktap_header
if ! why=$(ug_need_root) || ! why=$(ug_need_cmd ip ethtool); then
	ktap_skip "udpgro_conf" "$why"
	ktap_finish
fi
ug_need_built "$BIN"
ug_trap_install
# topo's reason when it fails (topo runs in this shell, not in $(...));
# topo's run_deferred would remove a deferred file, so it goes at the end
tmpd=$(mktemp -d)

A4=192.168.1.2 B4=192.168.1.1 A6=2001:db8::2 B6=2001:db8::1

# topo RX-FEATURES...: a fresh pair, va (sender, TSO off) and vb (GRO on,
# the given features, gro_flush_timeout 20 ms), no IPv6 autoconf noise
topo() {
	run_deferred
	ug_trap_install
	ns_add a && ns_add b || return 1
	NA=$(ns_name a) NB=$(ns_name b)
	ip netns exec "$NB" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 >/dev/null 2>&1
	veth_pair a va b vb || return 1
	ip -n "$NA" addr add "$A4/24" dev va && ip -n "$NB" addr add "$B4/24" dev vb &&
	ip -n "$NA" addr add "$A6/64" dev va nodad && ip -n "$NB" addr add "$B6/64" dev vb nodad ||
		return 1
	ip netns exec "$NA" ethtool -K va tso off >/dev/null 2>&1
	ip netns exec "$NB" ethtool -K vb gro on "$@" >/dev/null 2>&1
	ip netns exec "$NA" ethtool -k va | grep -q '^tcp-segmentation-offload: off' ||
		{ echo "ethtool -K va tso off did not take"; return 1; }
	ip netns exec "$NB" ethtool -k vb | grep -q '^generic-receive-offload: on' ||
		{ echo "ethtool -K vb gro on did not take"; return 1; }
	while [ $# -ge 2 ]; do
		ip netns exec "$NB" ethtool -k vb | grep -q "^$1: $2" ||
			{ echo "ethtool -K vb $1 $2 did not take"; return 1; }
		shift 2
	done
	ip netns exec "$NB" sh -c 'echo 20000000 > /sys/class/net/vb/gro_flush_timeout' ||
		{ echo "cannot set gro_flush_timeout"; return 1; }
}

# gro FAM CASE RXMODE [NOTE]: one case, one TAP line
# ---- the per-skb counters (bpf/udpgso_stats, when it can attach here) -------
# `udpgso_stats serve --filter port $PORT` runs beside the cases: reset
# before each, counters after; what GRO built (the skbs the tap recorded:
# "len/gso_size" is a merged skb, "len" a single one) must be what the
# counters say: rx_gro_in = packets injected, rx_gro_coalesced_skbs = merged
# skbs (docs/bpf.md: coalesced = entered GRO whole, left as a UDP GSO skb)
STATS=$UDPGSO_BIN/udpgso_stats
# the trains' destination port: the port filter sees every namespace, so a
# fixed port would count another run's trains on this machine as this one's
# (50000-58999: outside bl_port's 20000-39999 and the trains' source ports 41000+)
PORT=$((RANDOM % 9000 + 50000))
st_on=0
st_start() {
	st_on=0
	# compared in both passes of make check (the sanitizer pass too)
	if ! [ -x "$STATS" ] || ! "$STATS" hooks >/dev/null 2>&1; then
		ktap_info "per-skb counters: not checked (no udpgso_stats that attaches here)"
		return 0
	fi
	# only the GRO counters are compared: no consume_skb/kfree_skb programs
	# (their runs in process context are the ones a softirq makes the kernel skip)
	# (issue 25) with the observers: a second netif_receive_skb program and
	# the socket reads of GRO skbs whose mark no netif_receive_skb run took
	coproc UGST { UDPGSO_STATS_NO_FREE=1 UDPGSO_STATS_DIAG=1 exec "$STATS" serve \
		--filter port "$PORT" 2>&1; }
	local l
	if ! read -r -t 60 l <&"${UGST[0]}" || [ "${l%% *}" != ready ]; then
		ktap_info "per-skb counters: not checked (udpgso_stats serve: '${l:-}')"
		return 0
	fi
	ktap_info "per-skb counters: udpgso_stats (BPF, ${l#ready }) beside every case"
	# (topo's run_deferred stops it with the topology: started after each)
	defer kill "$UGST_PID"
	st_on=1
}
st_cmd() {		# CMD: its answer (lines up to ".") on stdout
	local l
	echo "$1" >&"${UGST[1]}"
	while read -r -t 30 l <&"${UGST[0]}"; do
		[ "$l" = . ] && return 0
		echo "$l"
	done
	return 1
}
# st_why OUT: why=$(st_check OUT); the first UDPGRO_CONF_FAKE_INCOMPLETE
# checks of the run answer "counters incomplete" instead (the hook by which
# scripts_test.sh tests what an incomplete train gets)
st_why() {
	if [ "$fake_inc" -gt 0 ]; then
		fake_inc=$((fake_inc - 1))
		why="counters incomplete: injected by UDPGRO_CONF_FAKE_INCOMPLETE"
		return
	fi
	why=$(st_check "$1")
}
# st_check OUT: "" or what the counters contradict
st_check() {
	local out=$1 c pk merged in co
	c=$(st_cmd counters) || { echo "udpgso_stats serve did not answer"; return; }
	pk=$(sed -n 's/.*: \([0-9]*\) packets -> skbs.*/\1/p' <<<"$out" | head -1)
	merged=$(sed -n 's/.* -> skbs \[\(.*\)\] reads .*/\1/p' <<<"$out" | head -1 |
		tr ' ' '\n' | grep -c /)
	in=$(awk '$1 == "rx_gro_in" { print $2 }' <<<"$c")
	co=$(awk '$1 == "rx_gro_coalesced_skbs" { print $2 }' <<<"$c")
	[ -n "$pk" ] || return 0
	# a run the kernel skipped of a program these counters come from (the GRO
	# entries and exits, netif_receive_skb), or a GRO mark not stored: not
	# comparable.  Skips of the others cannot change rx_gro_in or the
	# coalesced counts: named only (consume_skb/kfree_skb, whose runs in
	# process context a softirq made the kernel skip, are not loaded here)
	# (issue 25) a GRO skb of the port's not seen at netif_receive_skb: not
	# merged away, not counted there (dropped, or a program run not made)
	# the witness (a second netif_receive_skb program) counted what rx_skbs
	# counts, less the skbs counted at the socket read it did not see either
	# (a held GRO skb no netif_receive_skb run took: counted there, named);
	# else the counting program's run was not made on some skb: incomplete
	local rx wrx wgso late wlate ns single=0 unrun=""
	rx=$(awk '$1 == "rx_skbs" { print $2 }' <<<"$c")
	wrx=$(sed -n 's/^# diag: netif_receive_skb witness rx_skbs \([0-9]*\) .*/\1/p' <<<"$c")
	wgso=$(sed -n 's/^# diag: netif_receive_skb witness rx_skbs [0-9]* udp_gso_skbs \([0-9]*\),.*/\1/p' <<<"$c")
	late=$(sed -n 's/^# skipped: .* counted at a socket read instead \([0-9]*\),.*/\1/p' <<<"$c")
	wlate=$(sed -n 's/^# diag read unseen: witnessed \([0-9]*\);.*/\1/p' <<<"$c")
	ns=$(sed -n 's/^# skipped: .* gro skbs not seen at netif_receive_skb \([0-9]*\),.*/\1/p' <<<"$c")
	# (issue 25b) held single packets the tap saw reach netif_receive_skb
	# and no BPF program ran on there, the witness neither (this host's
	# kernel runs none while a tgid-1 task is current: the GRO timer's
	# softirq on one), nor at the read (a linear skb is copied without
	# skb_copy_datagram_iovec): every one of the tap's single skbs is either
	# the witness's or not seen, every merged one the witness's or counted at
	# the read; then rx_gro_in and the coalesced counts, compared below, are
	# whole: named, not incomplete
	single=$(sed -n 's/.* -> skbs \[\(.*\)\] reads .*/\1/p' <<<"$out" | head -1 | tr ' ' '\n' |
		grep -c '^[0-9][0-9]*$')
	if [ "${ns:-0}" -gt 0 ] && [ -n "$wrx" ] && [ -n "$wgso" ] &&
		[ $((wrx - wgso + ns)) = "$single" ] &&
		[ $((wgso + ${late:-0} - ${wlate:-0})) = "$merged" ] &&
		[ $((wrx + ${late:-0} - ${wlate:-0})) = "$rx" ]; then
		unrun="$ns single skbs the tap saw no BPF program ran on at netif_receive_skb \
(the witness neither: a tgid-1 task current, docs/bpf.md) nor at the read; "
		c=$(sed 's/gro skbs not seen at netif_receive_skb [0-9]*,/gro skbs not seen at netif_receive_skb 0,/' <<<"$c")
	fi
	if grep -Eq '^# skipped prog (napi_gro_|netif_receive_skb)' <<<"$c" ||
		! grep -q 'mark updates failed 0 ' <<<"$c" ||
		! grep -q 'gro skbs not seen at netif_receive_skb 0,' <<<"$c" ||
		{ [ -n "$wrx" ] && [ $((wrx + ${late:-0} - ${wlate:-0})) != "$rx" ]; }; then
		echo "counters incomplete: $(grep '^# skipped\|^# diag' <<<"$c" | sed 's/^# //' |
			tr '\n' ' ')(rx_skbs $rx)"
		return
	fi
	! grep -q '^# skipped prog' <<<"$c" ||
		echo "# (skipped runs of other programs: $(grep '^# skipped prog' <<<"$c" | sed 's/^# skipped prog //' | tr '\n' ' '))" >&2
	if [ "$in" = "$pk" ] && [ "$co" = "$merged" ]; then
		# (issue 25) an skb counted at the socket read (no netif_receive_skb
		# run took it), read unseen or a held mark lost, the counts right:
		# named (the skipped line, the observers' lines), not a disagreement
		local note=$unrun
		[ "${late:-0}" = 0 ] || note+="counted at a socket read instead $late; "
		grep -Eq '^# diag read unseen|^# diag held lost' <<<"$c" &&
			note+=$(grep '^# diag' <<<"$c" | sed 's/^# //' | tr '\n' ' ')
		[ -z "$note" ] || echo "agree; $note"
		return 0
	fi
	[ "$in" = "$pk" ] || echo -n "counters: rx_gro_in=$in, $pk packets injected; "
	[ "$co" = "$merged" ] || echo -n "counters: rx_gro_coalesced_skbs=$co, GRO built $merged; "
	# what else they say: the receive counters and the GRO marks' health
	# and why the programs left a GRO-built skb out (the reasons not zero)
	awk '$1 ~ /^rx_(skbs|gso_skbs|gso_passthrough_skbs|gro_coalesced_segs)$/ { printf "%s=%s ", $1, $2 }
	     /^# gro marks/ { sub(/^# /, ""); printf "(%s)", $0 }
	     /^# diag:/ { sub(/^# /, ""); printf " (%s)", $0 }
	     /^# rejected:/ { r = ""; for (i = 3; i < NF; i += 2) if ($(i + 1) != 0) r = r " " $i " " $(i + 1)
			      printf " (rejected:%s)", r == "" ? " none" : r }' <<<"$c"
	echo
}

gro() {
	local fam=$1 c=$2 rx=$3 name out rc s d why="" try cmp
	name="ipv$fam $c ($rx${4:+, $4})"
	# shellcheck disable=SC2254
	case "$name" in $only) ;; *) return 0 ;; esac
	if [ "$reps" -gt 1 ]; then gro_reps "$@"; return; fi
	if [ "$fam" = 4 ]; then s=$A4 d=$B4; else s=$A6 d=$B6; fi
	# a train whose counters are incomplete (issue 25: an skb no BPF program
	# saw, named) is not compared: another is sent, at most 3 in all
	for ((try = 1; try <= 3; try++)); do
		[ "$st_on" = 0 ] || st_cmd reset >/dev/null
		out=$(ip netns exec "$NA" "$BIN" gro "-$fam" -S "$s" -D "$d" -p "$PORT" --tx-dev va \
			--rx-netns "$NB" --rx-dev vb -c "$c" --rx "$rx" 2>&1)
		rc=$?
		echo "$out" | sed 's/^/# /'
		cmp=0
		[ "$rc" != 0 ] || [ "$st_on" != 1 ] || [[ $c == *dstopts* ]] ||
			[[ $out == *"train resent"* ]] || cmp=1
		[ "$cmp" = 1 ] || break
		st_why "$out"
		[[ $why == "counters incomplete"* ]] && [ "$try" -lt 3 ] || break
		echo "# train $try not compared: $why; sent again"
	done
	case "$out" in
	*"train resent"*) name="$name [train resent: a jiffy ended in it]" ;;
	*) if [ "$rc" = 0 ] && [ "$st_on" = 1 ] && [[ $c == *dstopts* ]]; then
		# the filter reads the ports right after the fixed IPv6 header
		name="$name [counters not compared: the port filter does not follow IPv6 extension headers, kmod and BPF alike]"
	   elif [ "$cmp" = 1 ]; then
		[ "$try" = 1 ] || name="$name [$((try - 1)) train(s) before with counters incomplete, named]"
		case "$why" in
		"agree; "*) name="$name [counters agree; ${why#agree; }]"; why="" ;;
		'') name="$name [counters agree]" ;;
		*) rc=1 ;;
		esac
	   fi ;;
	esac
	ktap_result "$rc" "$name" "${why:-$(echo "$out" | grep -m1 '^FAIL\|^SKIP\|udpgso_wire:')}"
}

# gro_reps FAM CASE RXMODE [NOTE]: the case $reps times, one TAP line; every
# rep whose train stayed in one jiffy has its counters compared with what
# the tap saw, whether udpgso_wire's own GRO check passed or not
gro_reps() {
	local fam=$1 c=$2 rx=$3 name out rc s d why i ag=0 dis=0 inc=0 res=0 wf=0 first=""
	name="ipv$fam $c ($rx${4:+, $4})"
	if [ "$fam" = 4 ]; then s=$A4 d=$B4; else s=$A6 d=$B6; fi
	if [ "$st_on" = 1 ] && [[ $c == *dstopts* ]]; then
		ktap_skip "$name x$reps" "counters not compared: the port filter does not follow IPv6 extension headers (docs/bpf.md)"
		return
	fi
	[ "$st_on" = 1 ] || { ktap_skip "$name x$reps" "no udpgso_stats to compare"; return; }
	# REPS compared reps: a resent train is not one, nor one whose counters
	# are incomplete (named) (at most 3 x REPS trains)
	for ((i = 1; ag + dis < reps && i <= 3 * reps; i++)); do
		st_cmd reset >/dev/null
		out=$(ip netns exec "$NA" "$BIN" gro "-$fam" -S "$s" -D "$d" -p "$PORT" \
			--tx-dev va --rx-netns "$NB" --rx-dev vb -c "$c" --rx "$rx" 2>&1)
		rc=$?
		[ "$rc" = 0 ] || { wf=$((wf + 1)); echo "# rep $i: udpgso_wire exit $rc: $(grep -m1 '^FAIL\|^SKIP\|udpgso_wire:' <<<"$out")"; }
		# resent, or every try crossed a jiffy (SKIP): several trains counted
		case "$out" in
		*"train resent"* | *"each train crossed a jiffy"*)
			res=$((res + 1))
			# (issue 25) not compared, but a GRO skb of its trains not seen at
			# netif_receive_skb is a loss all the same: named in this rep (else
			# it shows later, when another skb takes that address)
			c2=$(st_cmd counters)
			if ! grep -q 'gro skbs not seen at netif_receive_skb 0,' <<<"$c2"; then
				inc=$((inc + 1))
				echo "# rep $i (train resent, not compared): counters incomplete: $(grep \
					'^# skipped\|^# diag' <<<"$c2" | sed 's/^# //' | tr '\n' ' ')"
			fi
			continue ;;
		esac
		st_why "$out"
		case "$why" in
		'') ag=$((ag + 1)) ;;
		"counters incomplete"*) inc=$((inc + 1)); echo "# rep $i: $why"
			# what the tap saw and the counters' whole answer (issue 25)
			echo "$out" | sed 's/^/#   /'
			c2=$(st_cmd counters)
			grep -v '^[a-z]' <<<"$c2" | sed 's/^/#   counters again: /' ;;
		"agree; "*) ag=$((ag + 1)); echo "# rep $i: counters agree: ${why#agree; }" ;;
		*) dis=$((dis + 1)); echo "# rep $i: $why"; echo "$out" | sed 's/^/#   /' ;;
		esac
		[ -n "$first" ] || [ -z "$why" ] || first="rep $i: $why"
	done
	# a disagreement fails; so do incomplete counters that kept it from
	# REPS compared reps (a resent train is the jiffy's, as before)
	rc=0
	[ "$dis" -eq 0 ] || rc=1
	[ "$inc" -eq 0 ] || [ "$ag" -ge "$reps" ] || rc=1
	ktap_result "$rc" "$name x$reps: counters agree $ag, disagree $dis, incomplete $inc, not compared (train resent or every try crossed a jiffy) $res; udpgso_wire check failed $wf" "$first"
}

cases_of() {		# FAM: the cases for this family
	"$BIN" gro -l | awk -v f="$1" '$2 == 0 || $2 == f { print $1 }'
}

ktap_info "kernel $(uname -r)"

# one must-fail self-test: NAME, the checker's output PATTERN it must fail with,
# then the family and the gro role's own arguments
_must_fail() {
	local name=$1 pat=$2 fam=$3 src=$A4 dst=$B4 out rc
	shift 3
	[ "$fam" = 4 ] || { src=$A6; dst=$B6; }
	out=$(ip netns exec "$NA" "$BIN" gro "-$fam" -S "$src" -D "$dst" -p "$PORT" --tx-dev va \
		--rx-netns "$NB" --rx-dev vb "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ "$rc" = 1 ] && echo "$out" | grep -q "$pat"; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "exit $rc"
	fi
}

# the comparison itself: a wrong expectation must fail, naming what it saw
cmp_selftest() {
	# shellcheck disable=SC2254
	case "selftest" in $only) ;; *) return 0 ;; esac
	_must_fail "selftest: a wrong expectation (same as 2+2) fails" \
		'^# expected skbs \[41000: 2028/1000 2028/1000\]' 4 -c same --groups "0-1;2-3"
	# a train sent out of order (packets 1 and 2 swapped) must fail so, named
	_must_fail "selftest: a train out of order (1, 2 swapped) fails, named" \
		'^FAIL .*reached GRO out of order in 2 of 2 tries' 6 -c same --swap 1,2 --tries 2
}

# ---- a UDP_GRO socket: every case ---------------------------------------------
if topo >"$tmpd/why"; then
	st_start
	cmp_selftest
	for fam in 4 6; do
		for c in $(cases_of $fam); do
			gro $fam "$c" gro
		done
	done
	# ---- a plain socket, no fraglist: nothing is merged (udp_gro_receive:
	# no GRO_ENABLED, no NETIF_F_GRO_FRAGLIST, a local socket: "goto out")
	for fam in 4 6; do
		for c in same small_last larger bad_csum ports max_count; do
			gro $fam "$c" plain
		done
	done
else
	ktap_skip "udpgro_conf gro" "$(cat "$tmpd/why")"
fi

# ---- rx-gro-list: a plain socket gets fraglist skbs, split back --------------
if topo rx-gro-list on >"$tmpd/why"; then
	st_start
	for fam in 4 6; do
		for c in same small_last larger bad_csum ports max_count; do
			gro $fam "$c" plain-fraglist
		done
		# a UDP_GRO socket: is_flist = !GRO_ENABLED = 0, plain UDP GRO
		for c in same larger; do
			gro $fam "$c" gro rx-gro-list
		done
	done
else
	ktap_skip "udpgro_conf rx-gro-list" "$(cat "$tmpd/why")"
fi
rm -rf "$tmpd"

ktap_finish
