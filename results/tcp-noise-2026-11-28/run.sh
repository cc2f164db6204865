#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Why tcp -> tcp's slices are noisy on the local veth pair: N back-to-back TCP
# slices as make run's tcp pair makes them (udpgso_bench_tx -t -s 64768 for
# -l 0.25 s on CPU 0, udpgso_bench_rx -t --cpu 1, a new connection each) in
# two namespaces of their own and a veth pair, with each slice's TCP
# counters from both namespaces (/proc/net/snmp and netstat, the nonzero
# differences: kv.py, kvd.py).  VARIANT:
#   base      as make run
#   rps       RPS on both veth ends to CPU 0 (rps_cpus 1): every packet of the
#             flow through one backlog queue
#   pollwait  the receiver sleeps in poll() (--poll-wait) instead of napping
#   results/tcp-noise-2026-11-28/run.sh VARIANT [N]   (root; make first)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
variant=${1:-}
n=${2:-30}
case $variant in base|rps|pollwait) ;;
*) echo "run.sh: VARIANT '$variant': allowed base, rps or pollwait" >&2; exit 2 ;; esac
a=ugtn$$a
b=ugtn$$b
ip netns add "$a"
trap 'ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null' EXIT
ip netns add "$b"
ip link add ugtnx netns "$a" type veth peer name ugtny netns "$b"
ip -n "$a" addr add 10.251.0.1/24 dev ugtnx
ip -n "$b" addr add 10.251.0.2/24 dev ugtny
for x in "$a ugtnx" "$b ugtny"; do
	set -- $x
	ip -n "$1" link set lo up
	ip -n "$1" link set "$2" up
	[ "$variant" = rps ] &&
		ip netns exec "$1" sh -c "echo 1 >/sys/class/net/$2/queues/rx-0/rps_cpus"
done
rxopt=()
[ "$variant" = pollwait ] && rxopt=(--poll-wait)
tmp=$(mktemp -d)
trap 'ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null; rm -rf "$tmp"' EXIT
snap() { ip netns exec "$1" cat /proc/net/snmp /proc/net/netstat | python3 "$here/kv.py"; }
echo "# run.sh $variant $n at $(git -C "$top" rev-parse --short HEAD), $(date -u +%FT%TZ)," \
	"kernel $(uname -r); rps_cpus: $(ip netns exec "$b" cat /sys/class/net/ugtny/queues/rx-0/rps_cpus)"
sleep 1
for i in $(seq 1 "$n"); do
	port=$((40000 + i))
	snap "$a" >"$tmp/a0"
	snap "$b" >"$tmp/b0"
	ip netns exec "$b" "$top/udpgso_bench_rx" -4 -p "$port" --json -C 30000 -R 2000 -t \
		--cpu 1 "${rxopt[@]}" >"$tmp/rx.json" &
	rx=$!
	sleep 0.05
	ip netns exec "$a" taskset -c 0 "$top/udpgso_bench_tx" -4 -D 10.251.0.2 -p "$port" \
		-l 0.25 --json -t -s 64768 -C 0 >/dev/null
	wait "$rx"
	snap "$a" >"$tmp/a1"
	snap "$b" >"$tmp/b1"
	echo "$i $(python3 "$here/kvd.py" MBps "$tmp/rx.json") | tx: $(python3 "$here/kvd.py" \
		"$tmp/a0" "$tmp/a1") | rx: $(python3 "$here/kvd.py" "$tmp/b0" "$tmp/b1")"
done
