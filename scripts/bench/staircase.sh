#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# staircase.sh: seed 001's climb to a million small datagrams a second, as
# one scenario on a multiqueue NIC: each step changes one thing and is a row
# (Mpps, per-rx-queue and per-socket shares, where the kernel dropped).
#
#   NETIF=dev REMOTE_V4=addr REMOTE_TYPE=netns REMOTE_ARGS=ns \
#     scripts/bench/staircase.sh [--extra-v4 A,B,...] [-l SECS] [-n REPS] [--size BYTES]
#                                [--hash FIELDS] [--out DIR] [--no-plots]
#
# Steps (sender: sendmmsg, batches of 1024; receiver: recvmmsg, batches of
# 1024, MSG_TRUNC):
#   plain       one sender, one receiver, unpinned
#   pinned      sender on CPU 0, receiver on the last CPU
#   2senders    two sender threads to one address: one rx queue (the hash
#               sees addresses only)
#   2ips        two sender threads to two addresses that the NIC's RSS puts
#               on different rx queues (found by probing --extra-v4)
#   2threads    + two receiver threads on one socket (they contend for it)
#   reuseportN  + N SO_REUSEPORT sockets, a thread each, for N = 2 and 4
#               (the socket hash leaves some idle with few flows)
# The peer's udp4 rx-flow-hash is set to --hash (default sd: addresses
# only, the seed's NIC) for the run and restored after (snapshot.sh).  Per
# step: the receiver's Mpps, the sender's, the share delivered, rx packets
# per queue (ethtool -S or netlink qstats), datagrams per socket and thread,
# and the receiver's Udp InDatagrams/RcvbufErrors/InErrors deltas (nstat's
# counters, in its namespace) with the NIC's drops.  Results in
# results/<date>-<host>-staircase/ (command, raw/, results.json,
# summary.md, staircase.png).  Only REMOTE_TYPE=netns for now.
set -u
. "$(dirname "$0")/../lib.sh"
AB_DIR=$(cd "$(dirname "$0")" && pwd)
SNAP=$AB_DIR/../snapshot.sh

secs=3 reps=1 size=32 hash=sd extra= out_root=$UG_TOP/results plots=1
cmdline="$0"
for a in "$@"; do cmdline+=" $(printf '%q' "$a")"; done
need() { [ "$2" -ge 2 ] || ug_die "$1: needs a value (see -h)"; }
num() {	# NAME VALUE MIN MAX
	case "$2" in '' | *[!0-9]*) ug_die "$1 '$2': not a number, allowed $3..$4" ;; esac
	[ "${#2}" -le 9 ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
		ug_die "$1 $2: out of range, allowed $3..$4"
}
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) ug_help; exit 0 ;;
	-l | --secs) need "$1" $#; num "$1" "$2" 1 60; secs=$2; shift ;;
	-n | --reps) need "$1" $#; num "$1" "$2" 1 20; reps=$2; shift ;;
	--size) need "$1" $#; num "$1" "$2" 1 1472; size=$2; shift ;;
	--hash) need "$1" $#; hash=$2; shift
		[[ "$hash" =~ ^[mvtsdfn]+$ ]] || ug_die "--hash '$hash': allowed ethtool -N letters (m v t s d f n), e.g. sd or sdfn" ;;
	--extra-v4) need "$1" $#; extra=$2; shift ;;
	--out) need "$1" $#; out_root=$2; shift ;;
	--no-plots) plots=0 ;;
	*) ug_die "unknown option '$1' (see -h)" ;;
	esac
	shift
done
why=$(ug_need_root) || ug_die "$why"
why=$(ug_need_cmd ip ss ethtool python3) || ug_die "$why"
TX=$UDPGSO_BIN/udpgso_bench_tx RX=$UDPGSO_BIN/udpgso_bench_rx
[ -x "$TX" ] && [ -x "$RX" ] || ug_die "$TX or $RX missing: run make first"
[ -n "${NETIF:-}" ] && [ -e "/sys/class/net/$NETIF" ] || ug_die "NETIF='${NETIF:-}': set it to a local device"
[ "${REMOTE_TYPE:-}" = netns ] || ug_die "REMOTE_TYPE='${REMOTE_TYPE:-}': allowed netns (ssh is not done here yet)"
ns=${REMOTE_ARGS:-}
ip netns list | awk '{ print $1 }' | grep -qxF "$ns" || ug_die "REMOTE_ARGS='$ns': no such network namespace"
R() { ip netns exec "$ns" "$@"; }
dst=${REMOTE_V4:-}
peer=$(R ip -o -4 addr show | awk -v a="$dst" '{ split($4, p, "/"); if (p[1] == a) { print $2; exit } }')
[ -n "$peer" ] || ug_die "REMOTE_V4='$dst': no device in $ns has this address"
IFS=, read -ra cands <<<"$extra"
for c in "${cands[@]}"; do
	R ip -o -4 addr show dev "$peer" | grep -qF " $c/" ||
		ug_die "--extra-v4 $c: not an address of $peer in $ns"
done
ncpu=$(nproc)
last=$((ncpu - 1))

host=$(hostname -s 2>/dev/null || hostname)
resdir=$out_root/$(date -u +%Y%m%dT%H%M%SZ)-$host-staircase
mkdir -p "$resdir/raw" || ug_die "cannot create $resdir"
echo "$cmdline" >"$resdir/command"
{
	echo "date: $(date -u +%FT%TZ)"
	echo "kernel: $(uname -r) ($(uname -v))"
	echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) x $ncpu"
	echo "NETIF: $NETIF -> $ns/$peer $dst"
	echo "== ethtool -i $NETIF"; ethtool -i "$NETIF"
	echo "== ethtool -l $peer"; R ethtool -l "$peer"
	echo "== ethtool -k $NETIF"; ethtool -k "$NETIF"
	echo "loadavg: $(cat /proc/loadavg)"
} >"$resdir/environment" 2>&1

ug_trap_install
R bash "$SNAP" save "$peer" >"$resdir/snapshot.before.rx" || ug_die "snapshot of $peer failed"
defer "R bash '$SNAP' restore \"\$(cat '$resdir/snapshot.before.rx')\" '$peer'"
notes=()
if ! R ethtool -N "$peer" rx-flow-hash udp4 "$hash" >/dev/null 2>&1; then
	notes+=("ethtool -N $peer rx-flow-hash udp4 $hash: refused; the device's hash as found")
fi
kill_ours() { local p; for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done; }
defer kill_ours

# rxq_of ADDR: the rx queue that a burst to ADDR lands on (most packets)
port=4321
rxq_packets() { R bash "$SNAP" counters "$peer" | awk '$2 ~ /^rx_queue_[0-9]+_packets$/ { print $2, $3 }'; }
rxq_of() {
	local a b
	a=$(rxq_packets)
	"$TX" -4 -D "$1" -p 9 -u -s "$size" --count 3000 >/dev/null 2>&1
	b=$(rxq_packets)
	join <(echo "$a") <(echo "$b") | awk '{ d = $3 - $2; if (d > m) { m = d; q = $1 } } END { print q }'
}
dst2= q1=$(rxq_of "$dst") q2=
for c in "${cands[@]}"; do
	q2=$(rxq_of "$c")
	if [ -n "$q1" ] && [ -n "$q2" ] && [ "$q2" != "$q1" ]; then dst2=$c; break; fi
done
if [ -z "$dst2" ]; then
	dst2=${cands[0]:-$dst}
	notes+=("no address of --extra-v4 ($extra) reached another rx queue than $dst ($q1); 2ips uses $dst2")
fi
echo "probe: $dst -> ${q1:-?}, $dst2 -> ${q2:-?}" >>"$resdir/environment"

STEPS="plain pinned 2senders 2ips 2threads reuseport2 reuseport4"
# step_args STEP: sets txa and rxa
step_args() {
	local t="-4 -p $port -m --batch 1024 -s $size -l $secs --json"
	local r="-4 -p $port --json --mode recvmmsg --batch 1024 -C 30000 -R 1500"
	case "$1" in
	plain) txa="$t -D $dst" rxa="$r" ;;
	pinned) txa="$t -D $dst -C 0" rxa="$r --cpu $last" ;;
	2senders) txa="$t -D $dst -C 0 --threads 2" rxa="$r --cpu $last" ;;
	2ips) txa="$t --dst-list $dst,$dst2 -C 0 --threads 2" rxa="$r --cpu $last" ;;
	2threads) txa="$t --dst-list $dst,$dst2 -C 0 --threads 2" rxa="$r --threads 2 --cpu $last,0" ;;
	reuseport2) txa="$t --dst-list $dst,$dst2 -C 0 --threads 2" rxa="$r --reuseport 2 --cpu $last,0" ;;
	reuseport4) txa="$t --dst-list $dst,$dst2 -C 0 --threads 2" rxa="$r --reuseport 4 --cpu $last,0" ;;
	esac
}

wait_bound() {
	local i
	for ((i = 0; i < 100; i++)); do
		R ss -Hlnu "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
n=0
for ((rep = 1; rep <= reps; rep++)); do
	for s in $STEPS; do
		n=$((n + 1))
		step_args "$s"
		log=$(printf '%s/raw/%03d-%s.log' "$resdir" "$n" "$s")
		echo "$ug_prog: step $s (rep $rep)" >&2
		{
			echo "== step $s rep $rep"
			echo "== cmd_tx $TX $txa"
			echo "== cmd_rx $RX $rxa"
			echo "== counters.before.rx"; R bash "$SNAP" counters "$peer"
			echo "== counters.before.tx"; bash "$SNAP" counters "$NETIF"
		} >"$log" 2>&1
		# shellcheck disable=SC2086
		R $RX $rxa >"$resdir/raw/rx.json" 2>"$resdir/raw/rx.err" &
		rxp=$!
		wait_bound || echo "rx did not bind" >>"$resdir/raw/rx.err"
		# shellcheck disable=SC2086
		$TX $txa >"$resdir/raw/tx.json" 2>"$resdir/raw/tx.err"
		rc_tx=$?
		wait "$rxp"
		rc_rx=$?
		{
			echo "== rc tx=$rc_tx rx=$rc_rx"
			echo "== counters.after.rx"; R bash "$SNAP" counters "$peer"
			echo "== counters.after.tx"; bash "$SNAP" counters "$NETIF"
			echo "== tx.json"; cat "$resdir/raw/tx.json"
			echo "== tx.stderr"; cat "$resdir/raw/tx.err"
			echo "== rx.json"; cat "$resdir/raw/rx.json"
			echo "== rx.stderr"; cat "$resdir/raw/rx.err"
		} >>"$log" 2>&1
		rm -f "$resdir/raw/tx.json" "$resdir/raw/rx.json" "$resdir/raw/tx.err" "$resdir/raw/rx.err"
	done
done
run_deferred
trap - EXIT INT TERM HUP
R bash "$SNAP" save "$peer" >"$resdir/snapshot.after.rx"
cmp -s <(grep -v '^netns ' "$resdir/snapshot.before.rx") <(grep -v '^netns ' "$resdir/snapshot.after.rx") ||
	notes+=("restore: $peer differs from its snapshot before the run (see snapshot.*.rx)")
{
	echo "secs=$secs"; echo "reps=$reps"; echo "size=$size"; echo "hash=$hash"
	echo "netif=$NETIF"; echo "peer=$peer"; echo "dst=$dst"; echo "dst2=$dst2"
	echo "q1=$q1"; echo "q2=$q2"; echo "ncpu=$ncpu"; echo "kernel=$(uname -r)"; echo "host=$host"
	echo "steps=$STEPS"; echo "plots=$plots"
	for x in "${notes[@]}"; do echo "note=$x"; done
} >"$resdir/run.conf"
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" "$AB_DIR/staircase_report.py" "$resdir" || ug_die "writing the results failed"
grep -v '^!\[' "$resdir/summary.md"
echo "$ug_prog: results in $resdir" >&2
