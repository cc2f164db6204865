#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_stats (BPF) overhead on this machine's kernel: the same workloads
# with and without the BPF programs attached, alternating (off on, on off,
# ...), no filter (every program runs for every skb).  A benchmark, not a
# test: it asserts nothing.
#
#   scripts/bench/bpf_bench.sh [--rounds N] [--secs S] [--out DIR]
#   scripts/bench/bpf_bench.sh --summarize DIR     summary.txt again from DIR/raw.log
#
# Workloads, each in a fresh netns over lo, tx MB/s from udpgso_bench_tx --json:
#   gso-gro  udpgso_bench_tx -s 14000 -S 1400 (GSO) -> udpgso_bench_rx -G (UDP_GRO)
#   sendto   udpgso_bench_tx -s 1400 (one datagram per sendto) -> udpgso_bench_rx
# "on": the round's tx runs under `udpgso_stats run` (attached before tx
# starts, detached after it ends).  DIR (default results/bpf-overhead-DATE)
# gets command.txt, raw.log (every round, with the BPF counters of each "on"
# round, and its programs' run counts and time from `udpgso_stats run
# --prog-stats`) and summary.txt (medians per workload and mode, their
# ratio, the per-round ratios' spread, and the programs' time per tx skb
# and as a share of one CPU).
set -u

. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog [--rounds N] [--secs S] [--out DIR] | --summarize DIR" >&2
	exit 1
}

rounds=10 secs=3 out= sumdir=
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:-}; shift 2 || usage ;;
	--secs) secs=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--summarize) sumdir=${2:-}; shift 2 || usage ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --rounds N, --secs S, --out DIR, --summarize DIR (-h: usage)" ;;
	esac
done
case "$rounds" in ''|0|*[!0-9]*) ug_die "--rounds '$rounds': allowed a positive integer" ;; esac
case "$secs" in ''|0|*[!0-9]*) ug_die "--secs '$secs': allowed a positive integer" ;; esac

median() {		# numbers on stdin
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

mbps() {		# RAW WORKLOAD MODE: the rounds' MB/s
	awk -v w="$2" -v m="$3" '$1 == "round" && $4 == w && $6 == m && $8 != "error" { print $8 }' "$1"
}

summarize() {		# DIR
	local raw=$1/raw.log w off on
	{
		grep '^# ' "$raw" | head -3
		for w in gso-gro sendto; do
			off=$(mbps "$raw" "$w" off | median)
			on=$(mbps "$raw" "$w" on | median)
			echo "$w: median tx MB/s without BPF $off, with BPF $on"
			awk -v a="$off" -v b="$on" -v w="$w" 'BEGIN { if (a > 0)
				printf "%s: ratio of medians with/without %.4f (cost %.2f%%)\n", w, b / a, (1 - b / a) * 100 }'
			awk -v w="$w" '$1 == "round" && $4 == w && $8 != "error" { v[$2, $6] = $8; r[$2] = 1 }
			     END { for (i in r) if (v[i, "off"] > 0 && v[i, "on"] != "")
				printf "%.4f\n", v[i, "on"] / v[i, "off"] }' "$raw" | sort -g >"$1/.pairs"
			echo "$w: per-round ratios with/without: median $(median <"$1/.pairs")," \
				"min $(head -1 "$1/.pairs"), max $(tail -1 "$1/.pairs"), n $(grep -c . "$1/.pairs")"
			rm -f "$1/.pairs"
			awk -v w="$w" '$1 == "progtime" && $3 == w && $9 > 0 {
				print $7 / $9, $7 / ($5 * 1e7) }' "$raw" >"$1/.pt"
			[ -s "$1/.pt" ] && echo "$w: BPF programs' run time (BPF_STATS_RUN_TIME):" \
				"median $(cut -d' ' -f1 "$1/.pt" | median) ns per tx skb," \
				"$(cut -d' ' -f2 "$1/.pt" | median)% of one CPU during tx"
			rm -f "$1/.pt"
		done
	} | tee "$1/summary.txt"
}

if [ -n "$sumdir" ]; then
	[ -r "$sumdir/raw.log" ] || ug_die "--summarize '$sumdir': no raw.log there"
	summarize "$sumdir"
	exit 0
fi

TX=$UDPGSO_BIN/udpgso_bench_tx
RX=$UDPGSO_BIN/udpgso_bench_rx
STATS=$UDPGSO_BIN/udpgso_stats
for b in "$TX" "$RX" "$STATS"; do
	[ -x "$b" ] || ug_die "no $b (make; make -C bpf)"
done
"$STATS" hooks >/dev/null || ug_die "udpgso_stats cannot attach here (see above)"
[ -n "$out" ] || out=$UG_TOP/results/bpf-overhead-$(date -u +%Y-%m-%d)
mkdir -p "$out" || ug_die "--out '$out': cannot create"
ug_trap_install
ns_add l || ug_die "cannot create a netns"

# one tx round: MB/s on stdout ("error" if none), the BPF counters to raw
tx_round() {		# WORKLOAD MODE PORT
	local -a tx=("$TX" -4 -D 127.0.0.1 -p "$3" -l "$secs" --json -s 1400)
	local j=$out/.tx.json
	[ "$1" = gso-gro ] && tx=("$TX" -4 -D 127.0.0.1 -p "$3" -l "$secs" --json -s 14000 -S 1400)
	if [ "$2" = on ]; then
		"$STATS" run --prog-stats -- sh -c 'o=$1; shift; exec "$@" >"$o"' sh "$j" \
			ip netns exec "$(ns_name l)" "${tx[@]}" >"$out/.stats" 2>&1
		grep -E '^(tx_gso_skbs|tx_skbs|rx_skbs) ' "$out/.stats" | tr '\n' ' ' |
			sed 's/^/# bpf counters: /; s/$/\n/' >>"$out/raw.log"
		# the programs' own time (BPF_STATS_RUN_TIME): a cost measure that
		# other load on the machine does not blur as much as throughput
		awk -v w="$1" '$2 == "prog" && $3 == "all" { a = $7 } $1 == "tx_skbs" { t = $2 }
			END { printf "progtime workload %s secs '"$secs"' run_time_ns %d tx_skbs %d\n",
				w, a, t }' "$out/.stats" >>"$out/raw.log"
		grep '^# prog ' "$out/.stats" >>"$out/raw.log"
	else
		ip netns exec "$(ns_name l)" "${tx[@]}" >"$j" 2>/dev/null
	fi
	ug_jget "$j" MBps 2>/dev/null ||
		echo error
}

echo "scripts/bench/bpf_bench.sh ${args[*]}" >"$out/command.txt"
{
	echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), kernel $(uname -r), $(nproc) cpus," \
		"udpgso_stats $("$STATS" hooks | sed -n 's/^# mode //p')"
	echo "# host load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# rounds alternate off/on and on/off; tx -l $secs per round"
} >"$out/raw.log"
for w in gso-gro sendto; do
	port=$((RANDOM % 20000 + 20000))
	rxf=""
	[ "$w" = gso-gro ] && rxf=-G
	# shellcheck disable=SC2086
	timeout $((rounds * 2 * (secs + 10) + 60)) ip netns exec "$(ns_name l)" "$RX" -4 \
		-p "$port" $rxf >/dev/null 2>&1 &
	rxpid=$!
	ug_wait_port -u l "$port" "" 30 || ug_die "receiver did not bind port $port"
	for ((i = 0; i < rounds; i++)); do
		if ((i % 2)); then order="on off"; else order="off on"; fi
		for mode in $order; do
			echo "round $i workload $w mode $mode MBps $(tx_round "$w" "$mode" "$port")" \
				>>"$out/raw.log"
		done
	done
	kill "$rxpid" 2>/dev/null
	wait "$rxpid" 2>/dev/null
done
echo "# host load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/raw.log"
rm -f "$out/.tx.json" "$out/.stats"
summarize "$out"
