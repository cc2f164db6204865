#!/bin/bash
# a GRO-held skb dropped before netif_receive_skb (gro off on the receiving veth while held)
set -u
A=lska$$ B=lskb$$
ip netns add $A; ip netns add $B
ip link add va type veth peer name vb; ip link set va netns $A; ip link set vb netns $B
ip -n $A addr add 10.79.0.1/24 dev va; ip -n $B addr add 10.79.0.2/24 dev vb
ip -n $A link set va up; ip -n $B link set vb up
ip netns exec $A ethtool -K va tso off tx-udp-segmentation off >/dev/null
ip netns exec $B ethtool -K vb gro on >/dev/null
ip netns exec $B sh -c 'echo 5000000000 > /sys/class/net/vb/gro_flush_timeout'
ip -n $A neigh replace 10.79.0.2 dev va lladdr $(ip netns exec $B cat /sys/class/net/vb/address) nud permanent
port=$((RANDOM % 9000 + 50000))
# scripts/udp_once.py: a UDP_GRO socket that never reads; one datagram
ONCE=$(cd "$(dirname "$0")/../../.." && pwd)/scripts/udp_once.py
ip netns exec $B python3 "$ONCE" hold 0.0.0.0 $port 4 &
sleep 0.5
/work/wt/lostskb/udpgso_stats run --filter port $port -- sh -c "ip netns exec $A python3 $ONCE send 10.79.0.2 $port 1000; sleep 0.3; ip netns exec $B ethtool -K vb gro off; sleep 0.3" | grep -v "^[a-z_]* 0$"
wait
ip netns del $A; ip netns del $B
