#!/bin/bash
# gro.sh on a veth pair in two namespaces of our own (as scripts/tests/device_test.sh sets them)
set -u
BIN=${1:?tree}; shift
H=ugnapi$$-h P=ugnapi$$-p
ip netns add $H; ip netns add $P
trap 'ip netns del $H; ip netns del $P' EXIT
ip -n $H link set lo up; ip -n $P link set lo up
ip link add ugd0 netns $H type veth peer name ugd1 netns $P
ip -n $H addr add 10.252.0.1/24 dev ugd0; ip -n $P addr add 10.252.0.2/24 dev ugd1
ip -n $H addr add fd00:252::1/64 dev ugd0 nodad; ip -n $P addr add fd00:252::2/64 dev ugd1 nodad
ip -n $H link set ugd0 up; ip -n $P link set ugd1 up
sleep 1
cd "$BIN" && ip netns exec $H env UDPGSO_BIN="$BIN" NETIF=ugd0 LOCAL_V4=10.252.0.1 REMOTE_V4=10.252.0.2 \
	LOCAL_V6=fd00:252::1 REMOTE_V6=fd00:252::2 REMOTE_TYPE=netns REMOTE_ARGS=$P "$@"
