#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A guest with two multiqueue virtio-net NICs, and scripts/vm/netif_case.sh
# (or another command) run in it: NETIF mode of udpgso_ab.sh proven on a NIC
# with queues and IRQs.
#
#   scripts/vm/netif_guest.sh [--kernel VER|VMLINUZ] [--timeout SECS] [--keep DIR]
#                             [--secs S] [--only CASE,...] [-- COMMAND...]
#
# On the host, in a network namespace of our own: two multi_queue taps
# (tap0, tap1) on a bridge.  The guest (scripts/vm/vng_run.sh, TCG here) gets
# one virtio-net NIC on each, 2 queue pairs, MSI-X (vectors=6); tx-checksumming
# and TSO on, tx-udp-segmentation off [fixed] (QEMU 7.2 has no USO).  A
# flow's rx queue is chosen on the host: the multi_queue tap picks a queue
# by the flow's hash (4-tuple), QEMU delivers that tap queue to the same
# virtio rx queue.  (QEMU's own RSS, rss=on, took the guest's rx-flow-hash
# but the peer then received nothing, not even ARP, with QEMU 7.2 under TCG
# and its software RSS fallback: UG_NETIF_NIC_OPTS=",rss=on" adds it back.)
# Traffic between the NICs never leaves that namespace.
# Every guest result line becomes a TAP line here, prefixed with the guest's
# kernel version.  The namespace (and with it the taps, the bridge and the
# guest) is gone after success, failure or Ctrl-C.
#
# --kernel: a version under /boot or an image (default: the newest 6.12);
# --keep DIR: the guest's results directories and logs are copied to DIR;
# --secs, --only: passed to netif_case.sh.  -- COMMAND: run COMMAND in the
# guest instead (UDPGSO_BIN and UG_TOP set), e.g. scripts/bench/staircase.sh.
# Exit: 0 all ok, 1 a failure, 4 skipped (no vng, qemu or guest kernel).
set -u

. "$(dirname "$0")/../lib.sh"

kernel= tmo=1500 keep= secs=2 only=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:-}; shift 2 || ug_die "--kernel: needs a version or image" ;;
	--timeout) tmo=${2:-}; shift 2 || ug_die "--timeout: needs seconds" ;;
	--keep) keep=${2:-}; shift 2 || ug_die "--keep: needs a directory" ;;
	--secs) secs=${2:-}; shift 2 || ug_die "--secs: needs seconds" ;;
	--only) only=${2:-}; shift 2 || ug_die "--only: needs a list" ;;
	-h | --help) ug_help; exit 0 ;;
	--) shift; break ;;
	*) ug_die "unknown option '$1' (see -h)" ;;
	esac
done
case "$tmo" in '' | 0 | *[!0-9]*) ug_die "--timeout '$tmo': allowed a positive integer (seconds)" ;; esac
case "$secs" in '' | 0 | *[!0-9]*) ug_die "--secs '$secs': allowed 1..60" ;; esac
[[ "$only" =~ ^[a-z,]*$ ]] || ug_die "--only '$only': allowed a list of run,oneflow,csum,int,term,kill,bad,staircase"

ktap_header
skip_all() { ktap_skip "netif_guest" "$1"; ktap_finish; }

why=$(ug_need_root) || skip_all "$why"
why=$(ug_need_cmd ip timeout) || skip_all "$why"
for b in udpgso_bench_tx udpgso_bench_rx; do
	[ -x "$UDPGSO_BIN/$b" ] || skip_all "no $UDPGSO_BIN/$b (run make)"
done
case "$UDPGSO_BIN" in /*) ;; *) UDPGSO_BIN=$(cd "$UDPGSO_BIN" && pwd) ;; esac
if [ -z "$kernel" ]; then
	kernel=$(ls -v /boot/vmlinuz-6.12.* 2>/dev/null | tail -1)
	[ -n "$kernel" ] || skip_all "no /boot/vmlinuz-6.12.* (apt install linux-image-6.12...-amd64-unsigned)"
elif [ -r "/boot/vmlinuz-$kernel" ]; then
	kernel=/boot/vmlinuz-$kernel
fi
[ -r "$kernel" ] || ug_die "--kernel '$kernel': no such readable kernel image (a version under /boot or a path)"
ver=${kernel#*/vmlinuz-}
if [ -n "$keep" ]; then
	mkdir -p "$keep" || ug_die "--keep $keep: cannot create it"
	keep=$(cd "$keep" && pwd)
fi

work=$(mktemp -d /tmp/ugnif.XXXXXX)
ug_trap_install
defer "rm -rf '$work'"
ns_add nif || ug_die "cannot create a network namespace"
ns=$(ns_name nif)
for t in tap0 tap1; do
	ip -n "$ns" tuntap add dev "$t" mode tap multi_queue || ug_die "cannot create multi_queue tap $t"
done
ip -n "$ns" link add ugbr0 type bridge forward_delay 0 || ug_die "cannot create a bridge"
for t in tap0 tap1; do
	ip -n "$ns" link set "$t" master ugbr0
	ip -n "$ns" link set "$t" up
done
ip -n "$ns" link set ugbr0 up

# qemu: a NIC on each tap, 2 queue pairs; vectors = 2 x 2 queues + config + 1
nic() {	# ID TAP
	printf -- '-netdev tap,id=%s,ifname=%s,script=no,downscript=no,queues=2 ' "$1" "$2"
	printf -- '-device virtio-net-pci,netdev=%s,mq=on,vectors=6%s ' "$1" "${UG_NETIF_NIC_OPTS:-}"
}
export UG_VNG_QEMU_OPTS="$(nic n0 tap0)$(nic n1 tap1)"
UG_VNG_ACCEL=${UG_VNG_ACCEL:-$("$UG_TOP/scripts/vm/vng_run.sh" --kernel "$kernel" --probe-accel 2>"$work/probe.err")}
rc=$?
[ $rc -eq 4 ] && skip_all "$(cat "$work/probe.err")"
export UG_VNG_ACCEL
ktap_info "guest $ver ($UG_VNG_ACCEL), namespace $ns: tap0, tap1 (multi_queue) on ugbr0"

res=$work/res.txt
: >"$res"
# the guest runs a copy of scripts/: bash reads a script as it goes, and
# an edit of the tree during a long TCG run would change what it runs
cp -a "$UG_TOP/scripts" "$work/scripts" || ug_die "cannot copy scripts/ to $work"
# matplotlib in the guest: a writable config directory with this host's font
# cache (building it under TCG took minutes)
mkdir -p "$work/mpl"
cp /root/.cache/matplotlib/fontlist-*.json "$work/mpl/" 2>/dev/null
if [ $# -gt 0 ]; then
	cmd="cd $UG_TOP && MPLCONFIGDIR=$work/mpl UDPGSO_BIN=$UDPGSO_BIN $*"
else
	cmd="MPLCONFIGDIR=$work/mpl UDPGSO_BIN=$UDPGSO_BIN $work/scripts/vm/netif_case.sh --out $res --secs $secs"
	[ -z "$only" ] || cmd+=" --only $only"
	[ -z "$keep" ] || cmd+=" --keep $work/keep"
fi
t0=$SECONDS
# in our namespace: qemu opens the taps there.  A job of ours in a session
# of its own, stopped whole (vng_run.sh, timeout's process group, vng, qemu)
# first when we are: a TERM, then a KILL of what is left (a KILL of
# vng_run.sh alone left qemu running, holding the heavy lock's descriptor)
setsid ip netns exec "$ns" "$UG_TOP/scripts/vm/vng_run.sh" --kernel "$kernel" --timeout "$tmo" \
	--rwdir "$work" -- "$cmd" >"$work/guest.log" 2>&1 &
gpid=$!
defer "kill -0 $gpid 2>/dev/null && { kill -TERM $gpid; sleep 3; }; pkill -KILL -s $gpid; wait $gpid"
wait "$gpid"
rc=$?
ktap_info "$ver: guest ran $((SECONDS - t0)) s (exit $rc)"
if [ -n "$keep" ]; then
	[ ! -d "$work/keep" ] || cp -a "$work/keep/." "$keep/"
	cp "$work/guest.log" "$keep/guest-$ver.log"
fi
if [ $# -gt 0 ]; then
	cat "$work/guest.log"
	ktap_result "$rc" "$ver: $*"
else
	ktap_relay "$res"
	if [ $rc -ne 0 ] || ! grep -q "netif done" "$res"; then
		grep -v '^UGKMOD' "$work/guest.log" | tail -30 | sed 's/^/# guest: /'
		ktap_fail "$ver: guest run complete" "exit $rc$([ $rc -eq 124 ] && echo ", timed out after $tmo s")"
	fi
fi
ktap_finish
