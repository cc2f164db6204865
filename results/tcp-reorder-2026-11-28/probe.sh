#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# probe.sh [N [L [R]]]: N rounds; each round one tcp -> tcp slice of L s (as
# make run runs it: tx pinned to CPU 0, rx to CPU 1, a new connection a slice)
# on each of three veth pairs in their own namespaces, in turn: def (as
# created), reo (net.ipv4.tcp_reordering=R in the sending namespace), rps
# (rps_cpus 1 on the receiving veth: every packet of the pair to CPU 0's
# backlog).  One line a slice: round, variant, rx MB/s, the sender's
# TcpRetransSegs.  stats.py LOG sums it up.
set -eu
N=${1:-30} L=${2:-0.25} R=${3:-127} B=$(cd "$(dirname "$0")/../.." && pwd) t=$(mktemp -d)
mk() {	# NAME-SUFFIX
	ip netns add "ugp-tx$1"; ip netns add "ugp-rx$1"
	ip link add "ugp0$1" netns "ugp-tx$1" type veth peer name "ugp1$1" netns "ugp-rx$1"
	ip -n "ugp-tx$1" addr add 10.248.0.1/24 dev "ugp0$1"; ip -n "ugp-rx$1" addr add 10.248.0.2/24 dev "ugp1$1"
	ip -n "ugp-tx$1" link set "ugp0$1" up; ip -n "ugp-rx$1" link set "ugp1$1" up
}
trap 'for v in def reo rps; do ip netns del ugp-tx$v; ip netns del ugp-rx$v; done 2>/dev/null; rm -rf "$t"' EXIT
for v in def reo rps; do mk $v; done
ip netns exec ugp-txreo sysctl -qw net.ipv4.tcp_reordering="$R"
ip netns exec ugp-rxrps sh -c 'echo 1 > /sys/class/net/ugp1rps/queues/rx-0/rps_cpus'
sleep 1
p=21000
for i in $(seq 1 "$N"); do
	for v in def reo rps; do
		p=$((p + 1))
		r0=$(ip netns exec ugp-tx$v awk '/^Tcp:/ {n++; if (n == 2) print $13}' /proc/net/snmp)
		ip netns exec ugp-rx$v $B/udpgso_bench_rx -4 -p $p --json -C 30000 -R 2000 -t --cpu 1 >"$t/rx.json" 2>/dev/null &
		sleep 0.05
		ip netns exec ugp-tx$v $B/udpgso_bench_tx -4 -D 10.248.0.2 -p $p -l "$L" --json -t -s 64768 -C 0 >"$t/tx.json" 2>/dev/null
		wait
		r1=$(ip netns exec ugp-tx$v awk '/^Tcp:/ {n++; if (n == 2) print $13}' /proc/net/snmp)
		mb=$(grep -o '"MBps":[0-9.]*' "$t/rx.json" | head -n 1 | cut -d: -f2)
		echo "$i $v $mb $((r1 - r0))"
	done
done
