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
# (tap0, tap1) on a bridge (scripts/vm/nic_guest_lib.sh).  The guest
# (scripts/vm/vng_run.sh, TCG here) gets one virtio-net NIC on each, 2 queue
# pairs, MSI-X (vectors=6); tx-checksumming and TSO on, tx-udp-segmentation
# off [fixed] (QEMU 7.2 has no USO).
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
. "$(dirname "$0")/nic_guest_lib.sh"

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
kernel=$(nicg_kernel "$kernel")
case $? in 0) ;; 4) skip_all "$kernel" ;; *) exit 1 ;; esac
ver=${kernel#*/vmlinuz-}
if [ -n "$keep" ]; then
	mkdir -p "$keep" || ug_die "--keep $keep: cannot create it"
	keep=$(cd "$keep" && pwd)
fi

work=$(mktemp -d /tmp/ugnif.XXXXXX)
ug_trap_install
defer rm -rf "$work"
nicg_host
ns=$nicg_ns
nicg_qemu_opts
nicg_accel "$kernel" "$work"
[ $? -eq 4 ] && skip_all "$(cat "$work/probe.err")"
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
nicg_run "$kernel" "$tmo" "$work" "$work/guest.log" "$cmd"
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
