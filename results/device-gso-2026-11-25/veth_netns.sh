#!/bin/bash
# run device/gso.sh on veth: netns L (NETIF va) and R (vb); args go to gso.sh
set -u
WT=${WT:-$(cd "$(dirname "$0")/../.." && pwd)}
L=gsoL$$ R=gsoR$$
ip netns add $L; ip netns add $R
trap 'ip netns del $L; ip netns del $R' EXIT
ip link add va netns $L type veth peer name vb netns $R
ip -n $L addr add 10.9.0.1/24 dev va; ip -n $R addr add 10.9.0.2/24 dev vb
ip -n $L addr add fd00:9::1/64 dev va nodad; ip -n $R addr add fd00:9::2/64 dev vb nodad
for n in $L $R; do ip -n $n link set lo up; done
ip -n $L link set va up; ip -n $R link set vb up
ip -n $L link set va mtu ${MTU:-1500}; ip -n $R link set vb mtu ${MTU:-1500}
cd $WT && ip netns exec $L env NETIF=va LOCAL_V4=10.9.0.1 REMOTE_V4=10.9.0.2 LOCAL_V6=fd00:9::1 REMOTE_V6=fd00:9::2 REMOTE_TYPE=netns REMOTE_ARGS=$R UDPGSO_BIN=${BINDIR:-$WT} ./device/gso.sh "$@"
