#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The three short runs of results/ab-family-2026-11-25 (issue #24 items 3, 4):
#   local   udpgso_ab.sh -6 on its own veth pair
#   netns   NETIF mode: a veth pair, one end in netns abfl (the "local host" the
#           runner runs in, never the machine's own namespace), the other in
#           netns abfr (the remote), REMOTE_TYPE=netns, --family both
#   ssh     the same pair, REMOTE_TYPE=ssh to an sshd started in abfr
#           (throwaway keys), reached over IPv6, --family both
# usage: [AB_FAMILY_OUT=DIR] results/ab-family-2026-11-25/run.sh local|netns|ssh
#        (from the repo top; DIR, default this directory, gets the results)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${AB_FAMILY_OUT:-$top/results/ab-family-2026-11-25}
AB=$top/scripts/bench/udpgso_ab.sh
export UDPGSO_BIN=${UDPGSO_BIN:-$top}
args=(--out "$out" --preset gro --tx gso-cmsg,sendto,tcp --rx gro -n 2 -l 1 --no-plots)
case "${1:-}" in
local) exec "$AB" "${args[@]}" -6 --label local-v6 ;;
netns | ssh) ;;
*) echo "usage: $0 local|netns|ssh" >&2; exit 1 ;;
esac
k=$(mktemp -d)
cleanup() {
	[ -f "$k/sshd.pid" ] && kill "$(cat "$k/sshd.pid")" 2>/dev/null
	ip netns del abfl 2>/dev/null
	ip netns del abfr 2>/dev/null
	rm -rf "$k"
}
trap cleanup EXIT
ip netns add abfl && ip netns add abfr || exit 1
ip -n abfl link add abfl0 type veth peer name abfr0 netns abfr
ip -n abfl addr add 10.250.0.1/24 dev abfl0
ip -n abfr addr add 10.250.0.2/24 dev abfr0
ip -n abfl addr add fd00:250::1/64 dev abfl0 nodad
ip -n abfr addr add fd00:250::2/64 dev abfr0 nodad
for n in abfl abfr; do
	ip -n "$n" link set lo up
	ip -n "$n" link set "${n}0" up
done
env=(NETIF=abfl0 LOCAL_V4=10.250.0.1 REMOTE_V4=10.250.0.2 LOCAL_V6=fd00:250::1
     REMOTE_V6=fd00:250::2)
if [ "$1" = netns ]; then
	ip netns exec abfl env "${env[@]}" REMOTE_TYPE=netns REMOTE_ARGS=abfr \
		"$AB" "${args[@]}" --family both --label netif-netns
	exit
fi
ssh-keygen -q -t ed25519 -N '' -f "$k/host" </dev/null || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$k/id" </dev/null || exit 1
cp "$k/id.pub" "$k/authorized_keys"
cat >"$k/sshd_config" <<EOC
ListenAddress fd00:250::2
Port 2222
HostKey $k/host
PidFile $k/sshd.pid
AuthorizedKeysFile $k/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel ERROR
EOC
ip netns exec abfr unshare -m --propagation private sh -c \
	'mount -t tmpfs abfssh /run && mkdir -m 0755 /run/sshd && exec /usr/sbin/sshd -e -f "$1"' \
	_ "$k/sshd_config" || exit 1
sleep 1
rargs="-F /dev/null -p 2222 -i $k/id -o IdentitiesOnly=yes -o UserKnownHostsFile=$k/known_hosts"
rargs+=" -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=no root@fd00:250::2"
ip netns exec abfl env "${env[@]}" REMOTE_TYPE=ssh REMOTE_ARGS="$rargs" \
	"$AB" "${args[@]}" --family both --label netif-ssh
