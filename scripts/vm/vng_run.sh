#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a guest kernel on this machine's root filesystem with virtme-ng and
# run one command in it; never hangs.
#
#   scripts/vm/vng_run.sh --kernel /boot/vmlinuz-VER [--timeout SECS] [--rwdir DIR]
#                      [--cpus N] [--memory SIZE] -- COMMAND...
#   scripts/vm/vng_run.sh --kernel /boot/vmlinuz-VER --probe-accel   prints kvm or tcg
#
# KVM is used when a short probe boot succeeds (here /dev/kvm exists but a
# nested guest hangs, so the probe fails and TCG is used).  The probe result
# is taken from $UG_VNG_ACCEL (kvm|tcg) when set: callers booting several
# guests run --probe-accel once and export it.  UG_VNG_VERBOSE=1 adds the
# guest kernel's console to stderr; UG_VNG_QEMU_OPTS more qemu options (one
# string, e.g. a TCG plugin: scripts/bench/kmod_icount.sh); UG_VNG_APPEND more
# kernel command line (e.g. slub_debug: scripts/vm/kmod_debug_kernel.sh).
# UG_VNG_QEMU_ROOT=DIR: the QEMU extracted under DIR (scripts/setup.sh --for
# device-guest: QEMU 10) instead of the one on PATH: vng --qemu
# DIR/usr/bin/qemu-system-x86_64 with its firmware (-L DIR/usr/share/qemu -L
# DIR/usr/share/seabios, QEMU_MODULE_DIR=DIR/usr/lib/x86_64-linux-gnu/qemu).
# Exit: the command's exit code, 124 when the guest timed out, 255 when it
# died (vng got no exit code: a panic shows on the console), 4 when vng or
# qemu is missing (the reason on stderr).
set -u

. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog --kernel VMLINUZ [--timeout SECS] [--rwdir DIR] [--cpus N] [--memory SIZE] -- COMMAND..." >&2
	exit 1
}

kernel= tmo=600 rwdir= cpus=2 mem=1G probe=
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) (usage) 2>&1; exit 0 ;;
	--probe-accel) probe=1; shift ;;
	--kernel) kernel=${2:-}; shift 2 || usage ;;
	--timeout) tmo=${2:-}; shift 2 || usage ;;
	--rwdir) rwdir=${2:-}; shift 2 || usage ;;
	--cpus) cpus=${2:-}; shift 2 || usage ;;
	--memory) mem=${2:-}; shift 2 || usage ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$kernel" ] || usage
[ -n "$probe" ] || [ $# -gt 0 ] || usage
case "$tmo" in ''|0|*[!0-9]*) ug_die "--timeout '$tmo': allowed a positive integer (seconds)" ;; esac
case "$cpus" in ''|0|*[!0-9]*) ug_die "--cpus '$cpus': allowed a positive integer" ;; esac
[ -r "$kernel" ] || ug_die "--kernel '$kernel': no such readable kernel image"

# vng from PATH, else the project's venv
vng_bin() {
	command -v vng 2>/dev/null && return 0
	[ -x /opt/udpgso-vng/bin/vng ] && { echo /opt/udpgso-vng/bin/vng; return 0; }
	return 1
}

# vng_missing: the reason vng cannot run here, or nothing
vng_missing() {
	vng_bin >/dev/null || { echo "no vng (pip install virtme-ng; /opt/udpgso-vng/bin/vng)"; return; }
	if [ -n "${UG_VNG_QEMU_ROOT:-}" ]; then
		[ -x "$UG_VNG_QEMU_ROOT/usr/bin/qemu-system-x86_64" ] ||
			echo "no $UG_VNG_QEMU_ROOT/usr/bin/qemu-system-x86_64 (scripts/setup.sh --for device-guest)"
		return
	fi
	command -v qemu-system-x86_64 >/dev/null 2>&1 || echo "no qemu-system-x86_64 (apt install qemu-system-x86)"
}

why=$(vng_missing)
if [ -n "$why" ]; then
	ug_err "$why"
	exit $KSFT_SKIP
fi
VNG=$(vng_bin)
# vng calls virtme-run etc. from its own directory
PATH="$(dirname "$VNG"):$PATH"
export PATH

vng=("$VNG" -r "$kernel" --cpus "$cpus" --memory "$mem")
[ -n "$rwdir" ] && vng+=(--rwdir "$rwdir")
if [ -n "${UG_VNG_QEMU_ROOT:-}" ]; then
	q=$UG_VNG_QEMU_ROOT
	vng+=(--qemu "$q/usr/bin/qemu-system-x86_64" "--qemu-opts=-L $q/usr/share/qemu -L $q/usr/share/seabios")
	# its own modules (audio etc.), not the installed QEMU's
	export QEMU_MODULE_DIR=$q/usr/lib/x86_64-linux-gnu/qemu
fi
# UG_VNG_VERBOSE=1: the guest kernel's console too (a panic, an oops)
[ "${UG_VNG_VERBOSE:-0}" = 1 ] && vng+=(--verbose)

probe_accel() {
	# a KVM guest boots in a few seconds; one that hangs is abandoned
	if [ -w /dev/kvm ] &&
	   timeout -k 5 20 "${vng[@]}" -- true </dev/null >/dev/null 2>&1; then
		echo kvm
	else
		echo tcg
	fi
}

if [ -n "$probe" ]; then
	probe_accel
	exit 0
fi
accel=${UG_VNG_ACCEL:-$(probe_accel)}
case "$accel" in
kvm) ;;
tcg)	# one host thread runs all vCPUs: with a thread per vCPU (MTTCG) the
	# guest kernel's live code patching raced, an int3 of a static key
	# switch hit on another vCPU: "Oops: int3" in sched_clock_cpu at
	# boot (results/kmod-test-2026-11-23/).  no_timer_check: on a loaded
	# host the guest's boot-time IO-APIC timer test can miss its ticks and
	# panic ("IO-APIC + timer doesn't work!", a 6.1 guest at load 20:
	# results/kmod-test-2026-11-23b/)
	vng+=(--disable-kvm "--qemu-opts=-accel tcg,thread=single" --append no_timer_check) ;;
*) ug_die "UG_VNG_ACCEL '$accel': allowed kvm or tcg" ;;
esac
[ -n "${UG_VNG_QEMU_OPTS:-}" ] && vng+=("--qemu-opts=$UG_VNG_QEMU_OPTS")
[ -n "${UG_VNG_APPEND:-}" ] && vng+=("--append=$UG_VNG_APPEND")

# timeout without --foreground leads a process group, vng and qemu, and
# signals all of it on expiry; when we are stopped, the group is too (else
# the guest would outlive us until its timeout)
ug_trap_install
timeout -k 10 "$tmo" "${vng[@]}" -- "$*" </dev/null &
guest=$!
# the guest's process group: TERM, then KILL after 2 s
stop_guest() {
	kill -0 "$1" || return 0
	kill -TERM -- "-$1"
	sleep 2
	kill -KILL -- "-$1"
}
defer stop_guest "$guest"
wait "$guest"
