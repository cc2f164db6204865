#!/bin/bash
# device/gso.sh on veth with REMOTE_TYPE=ssh to an sshd in the remote netns
set -u
WT=${WT:-$(cd "$(dirname "$0")/../.." && pwd)}
L=gsoL$$ R=gsoR$$ k=$(mktemp -d)
ip netns add $L; ip netns add $R
ip link add va netns $L type veth peer name vb netns $R
ip -n $L addr add 10.9.0.1/24 dev va; ip -n $R addr add 10.9.0.2/24 dev vb
ip -n $L addr add fd00:9::1/64 dev va nodad; ip -n $R addr add fd00:9::2/64 dev vb nodad
for n in $L $R; do ip -n $n link set lo up; done
ip -n $L link set va up; ip -n $R link set vb up
ssh-keygen -q -t ed25519 -N '' -f "$k/host" </dev/null; ssh-keygen -q -t ed25519 -N '' -f "$k/id" </dev/null
cp "$k/id.pub" "$k/authorized_keys"
cat >"$k/sshd_config" <<EOC
ListenAddress 10.9.0.2
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
ip netns exec "$R" unshare -m --propagation private sh -c 'mount -t tmpfs ugssh /run && mkdir -m 0755 /run/sshd && exec /usr/sbin/sshd -D -e -f "$1"' _ "$k/sshd_config" 2>"$k/sshd.log" &
spid=$!
trap 'kill $spid; sleep 0.5; ip netns del $L; ip netns del $R; rm -rf $k' EXIT
sleep 2
RARGS="-F /dev/null -p 2222 -i $k/id -o IdentitiesOnly=yes -o UserKnownHostsFile=$k/known_hosts -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=no root@10.9.0.2"
cd $WT && ip netns exec $L env NETIF=va LOCAL_V4=10.9.0.1 REMOTE_V4=10.9.0.2 LOCAL_V6=fd00:9::1 REMOTE_V6=fd00:9::2 REMOTE_TYPE=ssh REMOTE_ARGS="$RARGS" UDPGSO_BIN=${BINDIR:-$WT} ./device/gso.sh "$@"
