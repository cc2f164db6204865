#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the guest of scripts/vm/device_guest.sh: the kernel's NetDrvEpEnv
# made of the guest's two virtio-net NICs, then COMMAND run with it.
#
#   scripts/vm/device_setup.sh --remote netns|ssh [--work DIR] -- COMMAND...
#
# NIC 1 (MAC 52:54:00:24:00:01) stays in the init namespace as NETIF with
# LOCAL_V4 192.0.2.1 and LOCAL_V6 2001:db8:24::1; NIC 2 (52:54:00:24:00:02)
# is moved into the network namespace `ugremote` with REMOTE_V4 192.0.2.2 and
# REMOTE_V6 2001:db8:24::2 (/24, /64 nodad).  --remote netns: REMOTE_TYPE=netns,
# REMOTE_ARGS=ugremote; ssh: an sshd started in ugremote (throwaway host and
# user keys in DIR, a private /run in its own mount namespace: the guest's
# root filesystem is the host's, so nothing is written outside DIR and
# tmpfs), REMOTE_TYPE=ssh, REMOTE_ARGS the ssh options and root@192.0.2.2.
# The environment is written to DIR/net.env (KEY=VALUE lines, the names of
# net.config) and exported to COMMAND.  DIR defaults to a new directory under
# /tmp.  Exit: COMMAND's, 1 when the NICs or the remote cannot be set up.
set -u

. "$(dirname "$0")/../lib.sh"

remote= work=
while [ $# -gt 0 ]; do
	case "$1" in
	--remote) remote=${2:-}; shift 2 || ug_die "--remote: needs netns or ssh" ;;
	--work) work=${2:-}; shift 2 || ug_die "--work: needs a directory" ;;
	-h | --help) ug_help; exit 0 ;;
	--) shift; break ;;
	*) ug_die "unknown option '$1' (see -h)" ;;
	esac
done
case "$remote" in netns | ssh) ;; *) ug_die "--remote '$remote': allowed netns, ssh" ;; esac
[ $# -gt 0 ] || ug_die "no COMMAND after -- (see -h)"
[ -n "$work" ] || work=$(mktemp -d /tmp/ugdev.XXXXXX)
mkdir -p "$work" || ug_die "--work $work: cannot create it"

RNS=ugremote
L4=192.0.2.1 R4=192.0.2.2 L6=2001:db8:24::1 R6=2001:db8:24::2

dev_by_mac() {	# MAC: the device in the init namespace with that address
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}
for t in udpgso_bench_tx udpgso_bench_rx; do
	[ -x "${UDPGSO_BIN:-}/$t" ] || ug_die "no $t in UDPGSO_BIN='${UDPGSO_BIN:-}': build the tools (make all) first"
done
lif=$(dev_by_mac 52:54:00:24:00:01) || ug_die "no NIC with MAC 52:54:00:24:00:01 (is this device_guest.sh's guest?)"
rif=$(dev_by_mac 52:54:00:24:00:02) || ug_die "no NIC with MAC 52:54:00:24:00:02 (is this device_guest.sh's guest?)"

ip netns add "$RNS" || ug_die "cannot create netns $RNS"
ip link set "$rif" netns "$RNS" || ug_die "cannot move $rif into $RNS"
ip -n "$RNS" link set lo up
ip addr add "$L4/24" dev "$lif"
ip addr add "$L6/64" dev "$lif" nodad
ip link set "$lif" up
ip -n "$RNS" addr add "$R4/24" dev "$rif"
ip -n "$RNS" addr add "$R6/64" dev "$rif" nodad
ip -n "$RNS" link set "$rif" up
# the peer is reached (through the host's bridge), both families: a
# datagram a second to a receiver there that stops after the first (no ping
# on this root filesystem)
reach() {	# FAMILY ADDR
	local r i
	ip netns exec "$RNS" timeout 30 "$UDPGSO_BIN/udpgso_bench_rx" "-$1" -p 9999 -n 1 -C 25000 \
		>/dev/null 2>&1 &
	r=$!
	for ((i = 0; i < 25; i++)); do
		sleep 1
		kill -0 "$r" 2>/dev/null || break
		"$UDPGSO_BIN/udpgso_bench_tx" "-$1" -D "$2" -p 9999 -u -s 16 --count 1 >/dev/null 2>&1
	done
	wait "$r"
}
ok=
reach 4 "$R4" && reach 6 "$R6" && ok=1
if [ -z "$ok" ]; then
	{ ip -s link show "$lif"; ip -n "$RNS" -s link show "$rif"; ip neigh; ip -n "$RNS" neigh; } |
		sed 's/^/# /' >&2
	ug_die "no datagram from $lif to $R4 / $R6 in $RNS ($rif) arrived in 25 s"
fi

NETIF=$lif LOCAL_V4=$L4 LOCAL_V6=$L6 REMOTE_V4=$R4 REMOTE_V6=$R6 REMOTE_TYPE=$remote
REMOTE_ARGS=$RNS
if [ "$remote" = ssh ]; then
	ug_need_cmd /usr/sbin/sshd ssh ssh-keygen unshare >/dev/null ||
		ug_die "--remote ssh: needs /usr/sbin/sshd, ssh, ssh-keygen, unshare (openssh-server, openssh-client)"
	if ! ug_sshd_start "$RNS" "$R4,$R6" 22 "$work/ssh"; then
		{ echo "sshd log:"; cat "$work/ssh/sshd.log"; echo "ssh:"; cat "$work/ssh/ssh.err"
		  echo "listening in $RNS:"; ip netns exec "$RNS" ss -ltnp; } | sed 's/^/# /' >&2
		ug_die "sshd in $RNS does not answer on $R4:22 (ssh: $(tail -n1 "$work/ssh/ssh.err"))"
	fi
	REMOTE_ARGS=$UG_SSH_ARGS
fi
export NETIF LOCAL_V4 LOCAL_V6 REMOTE_V4 REMOTE_V6 REMOTE_TYPE REMOTE_ARGS
# a fresh ssh connection in a TCG guest on a loaded host took over
# drv_env.sh's 20 s (env.sh's restore child, load 16-18): allow 120
[ "$remote" != ssh ] || export DRV_SSH_TIMEOUT=${DRV_SSH_TIMEOUT:-120}
for v in NETIF LOCAL_V4 LOCAL_V6 REMOTE_V4 REMOTE_V6 REMOTE_TYPE REMOTE_ARGS; do
	printf '%s=%q\n' "$v" "${!v}"
done >"$work/net.env"
echo "# device env: NETIF=$NETIF ($(ethtool -i "$NETIF" 2>/dev/null | awk '/^driver/ { print $2 }')) remote $rif in $RNS, REMOTE_TYPE=$REMOTE_TYPE"
bash -c "$*"
