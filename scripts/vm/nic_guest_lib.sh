# SPDX-License-Identifier: GPL-2.0
# nic_guest_lib.sh: the host side of a guest with two multiqueue virtio-net
# NICs, shared by scripts/vm/netif_guest.sh and scripts/vm/device_guest.sh
# (sourced after scripts/lib.sh, ug_trap_install done).
#
#   nicg_kernel [KERNEL]       the guest image: a version under /boot, a path,
#                              or the newest 6.12 (prints it; skip reason: 4)
#   nicg_host                  our namespace with two multi_queue taps (tap0,
#                              tap1) on bridge ugbr0; sets nicg_ns
#   nicg_qemu_opts [EXTRA0 EXTRA1]  exports UG_VNG_QEMU_OPTS: a virtio-net-pci
#                              NIC on each tap, 2 queue pairs, MSI-X; EXTRAn is
#                              appended to NIC n's -device (e.g. ",mac=...")
#   nicg_accel KERNEL WORK     exports UG_VNG_ACCEL (one probe); 4 and the
#                              reason in WORK/probe.err when no guest can run
#   nicg_run KERNEL TMO WORK LOG CMD   the guest in our namespace, its output
#                              in LOG; returns the guest command's exit code
#
# A flow's rx queue is chosen on the host: the multi_queue tap picks a queue
# by the flow's hash (4-tuple), QEMU delivers that tap queue to the same
# virtio rx queue.  (QEMU's own RSS, rss=on, took the guest's rx-flow-hash
# but the peer then received nothing, not even ARP, with QEMU 7.2 under TCG
# and its software RSS fallback: UG_NETIF_NIC_OPTS=",rss=on" adds it back.)
# Traffic between the NICs never leaves the namespace; the namespace (the
# taps, the bridge) and the guest are gone after success, failure or Ctrl-C.

nicg_kernel() {
	local k=${1:-}
	if [ -z "$k" ]; then
		k=$(ls -v /boot/vmlinuz-6.12.* 2>/dev/null | tail -1)
		[ -n "$k" ] || {
			echo "no /boot/vmlinuz-6.12.* (apt install linux-image-6.12...-amd64-unsigned)"
			return 4
		}
	elif [ -r "/boot/vmlinuz-$k" ]; then
		k=/boot/vmlinuz-$k
	fi
	[ -r "$k" ] || ug_die "--kernel '$k': no such readable kernel image (a version under /boot or a path)"
	echo "$k"
}

nicg_host() {
	local t
	ns_add nif || ug_die "cannot create a network namespace"
	nicg_ns=$(ns_name nif)
	for t in tap0 tap1; do
		ip -n "$nicg_ns" tuntap add dev "$t" mode tap multi_queue ||
			ug_die "cannot create multi_queue tap $t"
	done
	ip -n "$nicg_ns" link add ugbr0 type bridge forward_delay 0 || ug_die "cannot create a bridge"
	for t in tap0 tap1; do
		ip -n "$nicg_ns" link set "$t" master ugbr0
		ip -n "$nicg_ns" link set "$t" up
	done
	ip -n "$nicg_ns" link set ugbr0 up
}

# qemu: a NIC on each tap, 2 queue pairs; vectors = 2 x 2 queues + config + 1
_nicg_nic() {	# ID TAP EXTRA
	printf -- '-netdev tap,id=%s,ifname=%s,script=no,downscript=no,queues=2 ' "$1" "$2"
	printf -- '-device virtio-net-pci,netdev=%s,mq=on,vectors=6%s%s ' "$1" "${UG_NETIF_NIC_OPTS:-}" "$3"
}
nicg_qemu_opts() {
	UG_VNG_QEMU_OPTS="$(_nicg_nic n0 tap0 "${1:-}")$(_nicg_nic n1 tap1 "${2:-}")"
	export UG_VNG_QEMU_OPTS
}

nicg_accel() {
	local rc
	UG_VNG_ACCEL=${UG_VNG_ACCEL:-$("$UG_TOP/scripts/vm/vng_run.sh" --kernel "$1" \
		--probe-accel 2>"$2/probe.err")}
	rc=$?
	export UG_VNG_ACCEL
	return $rc
}

# the guest's session: a TERM, then a KILL of what is left
_nicg_stop() {
	kill -0 "$1" 2>/dev/null && { kill -TERM "$1"; sleep 3; }
	pkill -KILL -s "$1"
	wait "$1"
}
nicg_run() {	# KERNEL TMO WORK LOG CMD
	local gpid rc
	# in our namespace: qemu opens the taps there.  A job of ours in a session
	# of its own, stopped whole (vng_run.sh, timeout's process group, vng, qemu)
	# first when we are: a TERM, then a KILL of what is left (a KILL of
	# vng_run.sh alone left qemu running, holding the heavy lock's descriptor)
	setsid ip netns exec "$nicg_ns" "$UG_TOP/scripts/vm/vng_run.sh" --kernel "$1" --timeout "$2" \
		--rwdir "$3" -- "$5" >"$4" 2>&1 &
	gpid=$!
	defer _nicg_stop "$gpid"
	wait "$gpid"
	rc=$?
	return $rc
}
