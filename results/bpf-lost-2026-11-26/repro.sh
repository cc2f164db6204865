#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 25, session 5: the lost merged skb under an observer that is not BPF.
# A tracefs instance of its own (removed at the end) records, with the
# CLOCK_MONOTONIC clock of bpf_ktime_get_ns() and unhashed addresses:
# net:netif_receive_skb on vb (and its _entry/_list_entry twins, netif_rx), GRO
# entries (on vb) and exits, napi_poll on vb, the gro_flush_timeout timer
# (napi_watchdog), kfree_skb of IPv4 skbs (not a full socket buffer:
# another run's benchmark), and the sockets' reads of
# 2000/64000-byte datagrams (skb_copy_datagram_iovec), while two
# udpgro_conf.sh 'ipv4 max_count (gro)' loops (their serves with the diag
# observers, UDPGSO_STATS_DIAG_RING: the witness's runs before a lost skb)
# and bpf_test.sh's gro reps run beside stress-ng at 80% on both CPUs.
#
#   repro.sh OUTDIR REPS BT_REPS [--no-trace] [--no-load]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/lib.sh"
[ $# -ge 3 ] || ug_die "usage: $ug_prog OUTDIR REPS BT_REPS [--no-trace] [--no-load]"
out=$1 reps=$2 btreps=$3 trace=1 load=1
shift 3
for a in "$@"; do
	case "$a" in
	--no-trace) trace=0 ;;
	--no-load) load=0 ;;
	*) ug_die "unknown argument '$a'" ;;
	esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
ug_trap_install
# the threads of tgid 1 (this host's init: BPF tracing programs never run in
# its context, kcheck/), to tell them in the trace
tgid1() { for t in /proc/1/task/*; do echo "${t##*/} $(cat "$t/comm")"; done; }
tgid1 >"$out/tgid1-threads.txt"
T=/sys/kernel/tracing
if [ "$trace" = 1 ]; then
	mountpoint -q "$T" || mount -t tracefs nodev "$T"
	inst=$T/instances/ug-lost25-$$
	mkdir "$inst"
	defer rmdir "$inst"
	defer sh -c "echo 0 > $inst/tracing_on; echo 0 > $inst/events/enable; sleep 1"
	echo mono >"$inst/trace_clock"
	echo 0 >"$inst/options/hash-ptr"
	echo 32768 >"$inst/buffer_size_kb"
	ev() {	# EVENT FILTER
		[ "$2" = - ] || echo "$2" >"$inst/events/$1/filter"
		echo 1 >"$inst/events/$1/enable"
	}
	ev net/netif_receive_skb 'name == "vb"'
	ev net/netif_receive_skb_entry 'name == "vb"'
	ev net/netif_receive_skb_list_entry 'name == "vb"'
	ev net/netif_rx 'name == "vb"'
	ev net/napi_gro_receive_entry 'name == "vb"'
	ev net/napi_gro_receive_exit -
	ev napi/napi_poll 'dev_name == "vb"'
	ev skb/skb_copy_datagram_iovec 'len == 2000 || len == 64000'
	ev skb/kfree_skb 'protocol == 2048 && reason != 6'
	wd=$(awk '$3 == "napi_watchdog" { print $1; exit }' /proc/kallsyms)
	ev timer/hrtimer_expire_entry "function == 0x$wd"
	grep -r . "$inst/events/"*/*/filter | grep -v 'none$' >"$out/trace-filters.txt" || true
	cat "$inst/trace_pipe" >"$out/trace.txt" &
	defer kill $!
fi
if [ "$load" = 1 ]; then
	nice -n 10 stress-ng --cpu 2 --cpu-load 80 --timeout 86400 >"$out/load.log" 2>&1 &
	defer kill $!
fi
export UDPGSO_BIN=$UG_TOP
pids=()
for l in a b; do
	UDPGSO_STATS_DIAG_RING=$out/ring-$l.txt "$UG_TOP/udpgro_conf.sh" \
		-k 'ipv4 max_count (gro)' -n "$reps" >"$out/conf-$l.log" 2>&1 &
	pids+=($!)
done
BPF_TEST_REPS=$btreps BPF_TEST_CASES=gro "$UG_TOP/bpf_test.sh" >"$out/bt.log" 2>&1 &
bt=$!
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
wait "$bt" || rc=1
if [ "$trace" = 1 ]; then
	for c in "$inst"/per_cpu/cpu*; do
		echo "${c##*/}: $(grep -E 'overrun|dropped' "$c/stats" | tr '\n' ' ')"
	done >"$out/trace-stats.txt"
fi
tgid1 >>"$out/tgid1-threads.txt"
exit "$rc"
