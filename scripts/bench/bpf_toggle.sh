#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_stats (BPF) overhead, measured inside one long run: per workload one
# udpgso_bench_tx runs without pause while the programs are attached and
# detached in turn, W seconds each (off, MODE1, off, MODE2, off, ...,
# off).  Its per-second tx lines are stamped as they arrive; a second that
# lies wholly inside an attached or a detached window counts for it, the
# seconds around an attach or a detach for none.  One process and one
# socket for the whole run: nothing of a process's start (memory placement,
# a fresh socket, the receiver's state) differs between with and without,
# which is what keeps bpf_bench.sh's per-run alternation wide (a GSO
# sender's throughput falls into one of two levels per run here).
# A benchmark, not a test: it asserts nothing.  Run it under the heavy lock
# on a quiet host.
#
#   scripts/bench/bpf_toggle.sh [--windows N] [--window W] [--workloads LIST]
#                               [--modes LIST] [--old PATH] [--out DIR]
#   scripts/bench/bpf_toggle.sh --summarize DIR   summary.txt again from DIR/raw.log
#
# Workloads (default gso-gro,sendto; also gso-gro-small), each with its own
# receiver in a fresh netns over lo, tx pinned to CPU 0, rx to CPU 1:
#   gso-gro        tx -S 0 (upstream's default send: 61824 bytes, 42 x 1472) -> rx -G
#   gso-gro-small  tx -s 14000 -S 1400 -> rx -G
#   sendto         tx -s 1400 -> rx
# Modes (default on,empty,norc): on, this build's programs; empty, the
# same hooks with programs that return at once (UDPGSO_STATS_EMPTY=1: the
# hooks' own cost, the floor); norc, this build with UDPGSO_STATS_NO_RC=1
# (the gso fields read with bpf_probe_read_kernel, as before 6.2); old,
# another build (--old PATH).  N windows of each mode per workload (default
# 10), W seconds each (default 3; the tool loads before its window starts).
# DIR (default results/bpf-toggle-DATE) gets command.txt, raw.log and
# summary.txt (scripts/bench/bpf_toggle_summary.py: per mode, every window
# against the mean of the detached windows before and after it; the median
# tx MB/s with and without, the ratio of medians, the 95% t-interval of the
# per-window ratios, and the verdict against issue 11's 3%).
set -u

. "$(dirname "$0")/../lib.sh"
. "$UG_TOP/scripts/bpf_lib.sh"

usage() {
	echo "usage: $ug_prog [--windows N] [--window W] [--workloads LIST] [--modes LIST] [--old PATH] [--out DIR] | --summarize DIR" >&2
	exit 1
}

windows=10 win=3 workloads=gso-gro,sendto modes=on,empty,norc out= sumdir= OLD=
STATS=$UDPGSO_BIN/udpgso_stats
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--windows) windows=${2:-}; shift 2 || usage ;;
	--window) win=${2:-}; shift 2 || usage ;;
	--workloads) workloads=${2:-}; shift 2 || usage ;;
	--modes) modes=${2:-}; shift 2 || usage ;;
	--old) OLD=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--summarize) sumdir=${2:-}; shift 2 || usage ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --windows N, --window W, --workloads LIST, --modes LIST, --old PATH, --out DIR, --summarize DIR (-h: usage)" ;;
	esac
done
case "$windows" in ''|0|*[!0-9]*) ug_die "--windows '$windows': allowed a positive integer" ;; esac
case "$win" in ''|0|1|*[!0-9]*) ug_die "--window '$win': allowed an integer of 2 or more (seconds)" ;; esac
ml=()
IFS=, read -r -a ml <<<"$modes"
[ ${#ml[@]} -gt 0 ] || ug_die "--modes '$modes': allowed a comma-separated list of on, empty, norc, old"
bl_bench_workloads "$workloads"
wl=("${bl_wl[@]}")
for m in "${ml[@]}"; do
	case "$m" in
	on | empty | norc) ;;
	old) [ -n "$OLD" ] || ug_die "--modes: 'old' needs --old PATH (allowed without it: on, empty, norc)" ;;
	*) ug_die "--modes: '$m' unknown, allowed on, empty, norc, old" ;;
	esac
done

summarize() { bl_bench_summary bpf_toggle_summary.py "$1"; }	# DIR
[ -z "$sumdir" ] || { bl_bench_resummarize bpf_toggle_summary.py "$sumdir"; exit 0; }
bl_bench_tools ${OLD:+"$OLD"}
[ "$(nproc)" -ge 2 ] || ug_die "needs 2 CPUs (tx and rx pinned apart)"
"$STATS" hooks >/dev/null || ug_die "udpgso_stats cannot attach here (see above)"
[ -n "$out" ] || out=$UG_TOP/results/bpf-toggle-$(date -u +%Y-%m-%d)
mkdir -p "$out" || ug_die "--out '$out': cannot create"
raw=$out/raw.log
ug_trap_install

# one window with MODE's programs attached: "event T load|on_from|on_to MODE"
attached() {		# MODE
	local b=$STATS e=0 n=0
	case "$1" in
	empty) e=1 ;;
	norc) n=1 ;;
	old) b=$OLD ;;
	esac
	echo "event $EPOCHREALTIME load $1" >>"$raw"
	UDPGSO_STATS_EMPTY=$e UDPGSO_STATS_NO_RC=$n "$b" run -- bash -c \
		'echo "event $EPOCHREALTIME on_from $2" >>"$1"; sleep "$3";
		 echo "event $EPOCHREALTIME on_to $2" >>"$1"' sh "$raw" "$1" "$win" \
		>"$out/.stats" 2>&1 || echo "# $1: udpgso_stats failed: $(tail -1 "$out/.stats")" >>"$raw"
}

echo "scripts/bench/bpf_toggle.sh ${args[*]}" >"$out/command.txt"
{
	echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), kernel $(uname -r), $(nproc) cpus," \
		"udpgso_stats $("$STATS" hooks | sed -n 's/^# mode //p') ($STATS)," \
		"$("$STATS" hooks | sed -n 's/^# //p' | grep '^gso fields')"
	[ -z "$OLD" ] || echo "# mode old: $OLD"
	echo "# host load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# $windows windows of $win s per mode (${ml[*]}), each between detached windows of $win s; tx pinned to CPU 0, rx to CPU 1"
} >"$raw"

for w in "${wl[@]}"; do
	defer_scope_begin
	ns_add t || ug_die "cannot create a netns"
	port=$((RANDOM % 20000 + 20000))
	rxf=()
	[ "$w" = sendto ] || rxf=(-G)
	ns_exec t "$RX" -4 -p "$port" --cpu 1 "${rxf[@]}" >/dev/null 2>&1 &
	defer kill $!
	ug_wait_port -u t "$port" "" 30 || ug_die "receiver did not bind port $port"
	# shellcheck disable=SC2046
	echo "workload $w tx $(bl_bench_tx_args "$w") tracing_progs_before $(bl_tracing_progs)" \
		"load1 $(cut -d' ' -f1 /proc/loadavg)" >>"$raw"
	# shellcheck disable=SC2046
	ns_exec t "$TX" -4 -D 127.0.0.1 -p "$port" -l 100000 -C 0 $(bl_bench_tx_args "$w") 2>&1 |
		while IFS= read -r l; do echo "tx $EPOCHREALTIME $l"; done >>"$raw" &
	txp=$!
	defer kill $txp
	sleep 2
	for ((i = 0; i < windows; i++)); do
		for m in "${ml[@]}"; do
			echo "event $EPOCHREALTIME off" >>"$raw"
			sleep "$win"
			attached "$m"
		done
	done
	echo "event $EPOCHREALTIME off" >>"$raw"
	sleep "$win"
	echo "event $EPOCHREALTIME end" >>"$raw"
	ns_kill_pids "$(ns_name t)"
	defer_scope_end
	wait 2>/dev/null
done
echo "# host load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw"
rm -f "$out/.stats"
summarize "$out"
