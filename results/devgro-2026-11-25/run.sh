#!/bin/bash
# the runs of this directory: veth_netns.sh made the two namespaces (ugdgL
# holds NETIF dgl0, ugdgR the remote's dgr0), then, from a tree built from
# the commit named in the log's first line (`git archive REV | tar -x`, make):
#   run.sh netns|ssh LOG [PATTERN]   (ssh: an sshd in ugdgR on 192.0.2.2:2222,
#                                     key $SSH_KEY; PATTERN: gro.sh -k)
set -u
mode=$1 log=$2
cfg=(NETIF=dgl0 LOCAL_V4=192.0.2.1 LOCAL_V6=2001:db8:5::1 REMOTE_V4=192.0.2.2
     REMOTE_V6=2001:db8:5::2 UDPGSO_BIN="$PWD")
if [ "$mode" = ssh ]; then
	cfg+=(REMOTE_TYPE=ssh "REMOTE_ARGS=-p 2222 -i $SSH_KEY -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no root@192.0.2.2")
else
	cfg+=(REMOTE_TYPE=netns REMOTE_ARGS=ugdgR)
fi
{
	echo "# $(date -u +%FT%TZ) ${REV:-$(git rev-parse --short HEAD)}: ip netns exec ugdgL env ${cfg[*]} ./device/gro.sh ${3:+-k "$3"}"
	ip netns exec ugdgL env "${cfg[@]}" ./device/gro.sh ${3:+-k "$3"}
	echo "# exit $?"
} >"$log" 2>&1
