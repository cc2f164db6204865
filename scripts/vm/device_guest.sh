#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device suite (`make device-check`, device/*.sh) on a NIC with a real
# driver: the two-NIC multiqueue virtio-net guest of scripts/vm/netif_guest.sh,
# NIC 1 as NETIF, NIC 2 as the remote in netns `ugremote`.
#
#   scripts/vm/device_guest.sh [--profile qemu10|qemu72] [--remote netns|ssh]
#                              [--kernel VER|VMLINUZ] [--timeout SECS]
#                              [--keep DIR] [--probe] [-- COMMAND...]
#
# --profile qemu10 (default): QEMU 10.0.2 from bookworm-backports, extracted
#   by `scripts/setup.sh --for device-guest` into UG_QEMU10_DIR (default
#   /var/cache/udpgso-lab/qemu10): virtio-net with USO (tx-udp-segmentation
#   settable) and device-side coalescing (rx-gro-hw: the peer's driver gets
#   UDP GSO skbs from its device).  qemu72: Debian 12's QEMU 7.2, no USO
#   (tx-udp-segmentation off [fixed]).
# --remote netns (default) or ssh: REMOTE_TYPE; for ssh an sshd is started in
#   ugremote (scripts/vm/device_setup.sh sets up both NICs and the
#   environment: NETIF, LOCAL_V4/V6, REMOTE_V4/V6, REMOTE_TYPE, REMOTE_ARGS).
# Then `make device-check` runs in the guest with that environment, or
# --probe: scripts/vm/device_probe.sh (what the NICs do with UDP GSO,
# measured), or COMMAND.  --kernel: a version under /boot or an image
# (default the newest 6.12); --keep DIR: the guest's log and environment are
# copied to DIR (guest-VER-PROFILE-REMOTE.log).  The host side (namespace,
# taps, bridge, guest) is scripts/vm/nic_guest_lib.sh's, gone after success,
# failure or Ctrl-C.  The guest's output becomes TAP lines here.
# Exit: 0 ok, 1 a failure, 4 skipped (no vng, QEMU 10, guest kernel, or no
# device/ suite in this tree).
set -u

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/nic_guest_lib.sh"

profile=qemu10 remote=netns kernel= tmo=2400 keep= probe=
while [ $# -gt 0 ]; do
	case "$1" in
	--profile) profile=${2:-}; shift 2 || ug_die "--profile: needs qemu10 or qemu72" ;;
	--remote) remote=${2:-}; shift 2 || ug_die "--remote: needs netns or ssh" ;;
	--kernel) kernel=${2:-}; shift 2 || ug_die "--kernel: needs a version or image" ;;
	--timeout) tmo=${2:-}; shift 2 || ug_die "--timeout: needs seconds" ;;
	--keep) keep=${2:-}; shift 2 || ug_die "--keep: needs a directory" ;;
	--probe) probe=1; shift ;;
	-h | --help) ug_help; exit 0 ;;
	--) shift; break ;;
	*) ug_die "unknown option '$1' (see -h)" ;;
	esac
done
case "$profile" in qemu10 | qemu72) ;; *) ug_die "--profile '$profile': allowed qemu10, qemu72" ;; esac
case "$remote" in netns | ssh) ;; *) ug_die "--remote '$remote': allowed netns, ssh" ;; esac
case "$tmo" in '' | 0 | *[!0-9]*) ug_die "--timeout '$tmo': allowed a positive integer (seconds)" ;; esac
[ -z "$probe" ] || [ $# -eq 0 ] || ug_die "--probe and a COMMAND: allowed one of them"

ktap_header
skip_all() { ktap_skip "device_guest" "$1"; ktap_finish; }

why=$(ug_need_root) || skip_all "$why"
why=$(ug_need_cmd ip timeout) || skip_all "$why"
case "$UDPGSO_BIN" in /*) ;; *) UDPGSO_BIN=$(cd "$UDPGSO_BIN" && pwd) ;; esac
kernel=$(nicg_kernel "$kernel")
case $? in 0) ;; 4) skip_all "$kernel" ;; *) exit 1 ;; esac
ver=${kernel#*/vmlinuz-}
if [ "$profile" = qemu10 ]; then
	UG_VNG_QEMU_ROOT=${UG_QEMU10_DIR:-/var/cache/udpgso-lab/qemu10}
	[ -x "$UG_VNG_QEMU_ROOT/usr/bin/qemu-system-x86_64" ] ||
		skip_all "no QEMU 10 in $UG_VNG_QEMU_ROOT (scripts/setup.sh --for device-guest)"
	export UG_VNG_QEMU_ROOT
else
	unset UG_VNG_QEMU_ROOT
fi
if [ -z "$probe" ] && [ $# -eq 0 ] && ! grep -q '^device-check:' "$UG_TOP/Makefile"; then
	skip_all "no device-check target in $UG_TOP/Makefile (the device suite, device/*.sh, is not in this tree)"
fi
if [ -n "$keep" ]; then
	mkdir -p "$keep" || ug_die "--keep $keep: cannot create it"
	keep=$(cd "$keep" && pwd)
fi

work=$(mktemp -d /tmp/ugdevg.XXXXXX)
ug_trap_install
defer rm -rf "$work"
nicg_host
# MACs: device_setup.sh finds NIC 1 and NIC 2 by them
nicg_qemu_opts ",mac=52:54:00:24:00:01" ",mac=52:54:00:24:00:02"
nicg_accel "$kernel" "$work"
[ $? -eq 4 ] && skip_all "$(cat "$work/probe.err")"
qv=$("${UG_VNG_QEMU_ROOT:+$UG_VNG_QEMU_ROOT/usr/bin/}qemu-system-x86_64" --version | head -1)
ktap_info "guest $ver ($UG_VNG_ACCEL), profile $profile ($qv), remote $remote, namespace $nicg_ns"

# the guest runs a copy of scripts/ (bash reads a script as it goes)
cp -a "$UG_TOP/scripts" "$work/scripts" || ug_die "cannot copy scripts/ to $work"
if [ -n "$probe" ]; then
	run="$work/scripts/vm/device_probe.sh --profile $profile"
elif [ $# -gt 0 ]; then
	# each word as given (a -k pattern with blanks or parentheses stays one)
	run=$(printf '%q ' "$@")
	run=${run% }
else
	run="make --no-print-directory device-check"
fi
cmd="cd $UG_TOP && UDPGSO_BIN=$UDPGSO_BIN UG_DEVICE_PROFILE=$profile"
cmd+=" $work/scripts/vm/device_setup.sh --remote $remote --work $work/env -- $(printf '%q' "$run")"
ktap_info "in the guest: $run"
t0=$SECONDS
nicg_run "$kernel" "$tmo" "$work" "$work/guest.log" "$cmd"
rc=$?
ktap_info "$ver $profile $remote: guest ran $((SECONDS - t0)) s (exit $rc)"
if [ -n "$keep" ]; then
	cp "$work/guest.log" "$keep/guest-$ver-$profile-$remote.log"
	[ ! -f "$work/env/net.env" ] || cp "$work/env/net.env" "$keep/net-$ver-$profile-$remote.env"
fi
# the guest's TAP lines, as comments, then one verdict
grep -v '^UGKMOD' "$work/guest.log" | sed 's/^/# /'
case $rc in
0) ktap_ok "$ver $profile $remote: $run" ;;
4) ktap_skip "$ver $profile $remote: $run" "$(grep -m1 'SKIP' "$work/guest.log" | sed 's/.*SKIP *//')" ;;
*) ktap_fail "$ver $profile $remote: $run" "exit $rc$([ $rc -eq 124 ] && echo ", timed out after $tmo s")" ;;
esac
ktap_finish
