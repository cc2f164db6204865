#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_stats (BPF) overhead on this machine's kernel: the same workloads
# with and without the BPF programs attached, alternating (off on, on off,
# ...), no filter (every program runs for every skb).  A benchmark, not a
# test: it asserts nothing.  Run it under the heavy lock on a quiet host.
#
#   scripts/bench/bpf_bench.sh [--rounds N] [--secs S] [--stats-rounds N]
#                              [--workloads LIST] [--old PATH] [--empty] [--out DIR]
#   scripts/bench/bpf_bench.sh --summarize DIR     summary.txt again from DIR/raw.log
#
# Workloads (LIST: comma-separated, default all three), each to its own
# receiver in one fresh netns over lo, tx pinned to CPU 0 and rx to CPU 1
# (as udpgso_ab.sh), tx MB/s from udpgso_bench_tx --json:
#   gso-gro        tx -S 0: upstream udpgso_bench_tx's default send, 61824
#                  bytes (42 segments of 1472), as the upstream selftest's
#                  GSO->GRO benchmark -> rx -G (UDP_GRO)
#   gso-gro-small  tx -s 14000 -S 1400 (10 segments of 1400) -> rx -G
#   sendto         tx -s 1400 (one datagram per sendto) -> rx
# Every round runs each workload without ("off") and with ("on") the
# programs, and in two more modes if asked: "old", with another udpgso_stats
# binary (--old PATH: an earlier build, for a before/after in one run), and
# "empty", with programs that return at once (--empty: UDPGSO_STATS_EMPTY=1,
# the cost of the hooks themselves, the floor).  Even rounds run the modes in
# the order off on [old] [empty], odd rounds in the reverse order.
# "on": tx runs under `udpgso_stats run` (attached before tx starts,
# detached after it ends), without run-time statistics.  Before every tx the
# number of tracing BPF programs already attached is logged (another tool's
# programs make the round "disturbed": left out of the interval).
# Then --stats-rounds N (default 3) rounds per workload under `udpgso_stats
# run --prog-stats` (BPF_ENABLE_STATS): the programs' own run time per
# program and per send, labelled as such; their throughput is not compared.
# The programs' sizes (bpftool: xlated instructions, JIT bytes) are logged
# once per binary.
# DIR (default results/bpf-overhead-DATE) gets command.txt, raw.log and
# summary.txt (scripts/bench/bpf_bench_summary.py: per mode against off,
# medians, the ratio of medians, the per-round ratios' spread, a 95% paired
# t-interval of the ratio from ab_stats.py; the programs' run time and sizes).
set -u

. "$(dirname "$0")/../lib.sh"
. "$UG_TOP/scripts/bpf_lib.sh"

usage() {
	echo "usage: $ug_prog [--rounds N] [--secs S] [--stats-rounds N] [--workloads LIST] [--old PATH] [--empty] [--out DIR] | --summarize DIR" >&2
	exit 1
}

rounds=20 secs=3 stats_rounds=3 workloads=gso-gro,gso-gro-small,sendto out= sumdir=
STATS=$UDPGSO_BIN/udpgso_stats OLD= empty=0
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:-}; shift 2 || usage ;;
	--secs) secs=${2:-}; shift 2 || usage ;;
	--stats-rounds) stats_rounds=${2:-}; shift 2 || usage ;;
	--workloads) workloads=${2:-}; shift 2 || usage ;;
	--old) OLD=${2:-}; shift 2 || usage ;;
	--empty) empty=1; shift ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--summarize) sumdir=${2:-}; shift 2 || usage ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --rounds N, --secs S, --stats-rounds N, --workloads LIST, --old PATH, --empty, --out DIR, --summarize DIR (-h: usage)" ;;
	esac
done
case "$rounds" in ''|0|*[!0-9]*) ug_die "--rounds '$rounds': allowed a positive integer" ;; esac
case "$secs" in ''|0|*[!0-9]*) ug_die "--secs '$secs': allowed a positive integer" ;; esac
case "$stats_rounds" in ''|*[!0-9]*) ug_die "--stats-rounds '$stats_rounds': allowed 0 or a positive integer" ;; esac
bl_bench_workloads "$workloads"
wl=("${bl_wl[@]}")

summarize() { bl_bench_summary bpf_bench_summary.py "$1"; }	# DIR
[ -z "$sumdir" ] || { bl_bench_resummarize bpf_bench_summary.py "$sumdir"; exit 0; }
bl_bench_tools ${OLD:+"$OLD"}
"$STATS" hooks >/dev/null || ug_die "udpgso_stats cannot attach here (see above)"
[ -n "$out" ] || out=$UG_TOP/results/bpf-overhead-$(date -u +%Y-%m-%d)
mkdir -p "$out" || ug_die "--out '$out': cannot create"
ug_trap_install
ns_add l || ug_die "cannot create a netns"
tx_pin=() rx_pin=() pinned="tx and rx not pinned (fewer than 2 CPUs)"
if [ "$(nproc)" -ge 2 ]; then
	tx_pin=(-C 0) rx_pin=(--cpu 1) pinned="tx pinned to CPU 0, rx to CPU 1"
fi

# one tx: "MBps X sends N" (MBps error if none); MODE off, on, old, empty or stats
tx_round() {		# WORKLOAD MODE PORT
	local j=$out/.tx.json
	local -a tx
	# shellcheck disable=SC2207
	tx=("$TX" -4 -D 127.0.0.1 -p "$3" -l "$secs" --json "${tx_pin[@]}" $(bl_bench_tx_args "$1"))
	rm -f "$j"
	case "$2" in
	off)
		ns_exec l "${tx[@]}" >"$j" 2>/dev/null ;;
	on | old | empty)
		local b=$STATS
		[ "$2" = old ] && b=$OLD
		UDPGSO_STATS_EMPTY=$([ "$2" = empty ] && echo 1 || echo 0) \
		"$b" run -- sh -c 'o=$1; shift; exec "$@" >"$o"' sh "$j" \
			ip netns exec "$(ns_name l)" "${tx[@]}" >"$out/.stats" 2>&1 ;;
	stats)
		"$STATS" run --prog-stats -- sh -c 'o=$1; shift; exec "$@" >"$o"' sh "$j" \
			ip netns exec "$(ns_name l)" "${tx[@]}" >"$out/.stats" 2>&1 ;;
	esac
	echo "MBps $(ug_jget "$j" MBps 2>/dev/null || echo error)" \
		"sends $(ug_jget "$j" calls 2>/dev/null || echo error)"
}

modes="off on${OLD:+ old}$([ "$empty" = 0 ] || echo " empty")"
echo "scripts/bench/bpf_bench.sh ${args[*]}" >"$out/command.txt"
{
	echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), kernel $(uname -r), $(nproc) cpus," \
		"udpgso_stats $("$STATS" hooks | sed -n 's/^# mode //p') ($STATS)"
	[ -z "$OLD" ] || echo "# mode old: $OLD"
	[ "$empty" = 0 ] || echo "# mode empty: $STATS with UDPGSO_STATS_EMPTY=1 (programs that return at once)"
	echo "# host load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# modes per round: $modes (even rounds), reversed (odd rounds); tx -l $secs per run; $pinned"
	for w in "${wl[@]}"; do
		echo "# workload $w: udpgso_bench_tx $(bl_bench_tx_args "$w")$([ "${w#gso-gro}" != "$w" ] && echo " -> udpgso_bench_rx -G")"
	done
	# the programs' sizes: the newest program of each name (ours)
	for m in on ${OLD:+old}; do
		command -v bpftool >/dev/null || break
		b=$STATS
		[ "$m" = old ] && b=$OLD
		"$b" run -- bpftool prog show 2>/dev/null |
			awk -v m="$m" '/: tracing +name ugs_/ { n = $4 }
			     /xlated/ && n { x[n] = $2; j[n] = $4; n = "" }
			     END { for (p in x) { sub(/B$/, "", x[p]); sub(/B$/, "", j[p])
				printf "size mode %s prog %s xlated_insns %d jited_bytes %d\n",
					m, p, x[p] / 8, j[p] } }' |
			sort
	done
} >"$out/raw.log"

declare -A port
for w in "${wl[@]}"; do
	port[$w]=$((RANDOM % 20000 + 20000))
	rxf=()
	[ "$w" = sendto ] || rxf=(-G)
	ip netns exec "$(ns_name l)" timeout $((rounds * 4 * (secs + 10) * ${#wl[@]} + stats_rounds * (secs + 10) * ${#wl[@]} + 120)) \
		"$RX" -4 -p "${port[$w]}" "${rx_pin[@]}" "${rxf[@]}" >/dev/null 2>&1 &
	defer kill $!
	ug_wait_port -u l "${port[$w]}" "" 30 || ug_die "receiver did not bind port ${port[$w]}"
done
rmodes=$(echo "$modes" | tr ' ' '\n' | tac | tr '\n' ' ')
for ((i = 0; i < rounds; i++)); do
	if ((i % 2)); then order=$rmodes; else order=$modes; fi
	for w in "${wl[@]}"; do
		for mode in $order; do
			pre=$(bl_tracing_progs) load=$(cut -d' ' -f1 /proc/loadavg)
			echo "round $i workload $w mode $mode $(tx_round "$w" "$mode" "${port[$w]}")" \
				"tracing_progs_before $pre load1 $load" >>"$out/raw.log"
		done
	done
done
for ((i = 0; i < stats_rounds; i++)); do
	for w in "${wl[@]}"; do
		echo "statsround $i workload $w $(tx_round "$w" stats "${port[$w]}")" >>"$out/raw.log"
		grep -E '^(tx_skbs|rx_skbs|tx_gso_skbs) ' "$out/.stats" | tr '\n' ' ' |
			sed 's/^/# bpf counters: /; s/$/\n/' >>"$out/raw.log"
		sed -n "s/^# prog /progstat $i workload $w prog /p" "$out/.stats" >>"$out/raw.log"
	done
done
echo "# host load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/raw.log"
rm -f "$out/.tx.json" "$out/.stats"
summarize "$out"
