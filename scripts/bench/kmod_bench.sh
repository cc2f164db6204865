#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_stats overhead: the same GSO workload with and without the module
# loaded, alternating (off on on off ...), in a guest kernel booted with
# virtme-ng.  A benchmark, not a test: it asserts nothing.
#
#   scripts/bench/kmod_bench.sh [--kernel VER] [--rounds N] [--secs S] [--out DIR]
#   scripts/bench/kmod_bench.sh --summarize DIR     summary.txt again from DIR/raw.log
#
# Workload: udpgso_bench_tx -4 -D 127.0.0.1 -s 14000 -S 1400 -l S in a fresh
# netns, a plain udpgso_bench_rx on the same port (so the receive side splits
# every GSO skb: every hook of the module fires), module loaded with no filter.
# Reported: tx MB/s per round (from --json), median per mode, on/off ratio.
# Under TCG (no KVM here) absolute numbers are emulator numbers; only the
# ratio of alternating rounds means anything.
# DIR gets command.txt, raw.log (every round) and summary.txt.
set -u

. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog [--kernel VER] [--rounds N] [--secs S] [--out DIR]" >&2
	exit 1
}

kver= rounds=10 secs=5 out= in_guest= ko= sumdir=
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) (usage) 2>&1; exit 0 ;;
	--kernel) kver=${2:-}; shift 2 || usage ;;
	--rounds) rounds=${2:-}; shift 2 || usage ;;
	--secs) secs=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--in-guest) in_guest=1; ko=${2:-}; shift 2 || usage ;;
	--summarize) sumdir=${2:-}; shift 2 || usage ;;
	*) usage ;;
	esac
done
case "$rounds" in ''|0|*[!0-9]*) ug_die "--rounds '$rounds': allowed a positive integer" ;; esac
case "$secs" in ''|0|*[!0-9]*) ug_die "--secs '$secs': allowed a positive integer" ;; esac

# summarize DIR: DIR/summary.txt from DIR/raw.log (also: --summarize DIR)
summarize() {
	local raw=$1/raw.log off on head
	off=$(awk '$1 == "round" && $4 == "off" && $6 != "error" { print $6 }' "$raw" | median)
	on=$(awk '$1 == "round" && $4 == "on" && $6 != "error" { print $6 }' "$raw" | median)
	head=$(sed -n 's/^# [0-9-]* [0-9:]* UTC, host [^,]*, guest \(.*\)$/\1/p' "$raw")
	{
		echo "guest $head; rounds alternate off/on (each mode first half of the time)"
		echo "median tx MB/s without module: $off"
		echo "median tx MB/s with module:    $on"
		awk -v a="$off" -v b="$on" 'BEGIN { if (a > 0) printf "ratio of medians with/without: %.4f (cost %.2f%%)\n", b / a, (1 - b / a) * 100 }'
		# per round: on/off of the two adjacent runs, a measure of the noise
		awk '$1 == "round" && $6 != "error" { v[$2, $4] = $6; r[$2] = 1 }
		     END { for (i in r) if (v[i, "off"] > 0 && v[i, "on"] != "")
			printf "%.4f\n", v[i, "on"] / v[i, "off"] }' "$raw" | sort -g > "$1/.pairs"
		echo "per-round ratios with/without: median $(median < "$1/.pairs")," \
			"min $(head -1 "$1/.pairs"), max $(tail -1 "$1/.pairs"), n $(grep -c . "$1/.pairs")"
		rm -f "$1/.pairs"
		if grep -q 'accel tcg' "$raw"; then
			echo "note: TCG emulation, not hardware speed; only ratios of alternating rounds mean anything, and a spread of per-round ratios far beyond 2% means this run cannot resolve a 2% cost"
		fi
	} | tee "$1/summary.txt"
}

median() {		# numbers on stdin
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

if [ -n "$sumdir" ]; then
	[ -r "$sumdir/raw.log" ] || ug_die "--summarize '$sumdir': no raw.log there"
	summarize "$sumdir"
	exit 0
fi

# ---- inside the guest ---------------------------------------------------------
guest() {
	local i mode mbps port=$((RANDOM % 20000 + 20000)) rxpid order
	ug_trap_install
	defer rmmod udpgso_stats
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	rmmod udpgso_stats 2>/dev/null
	ns_add l || ug_die "cannot create a netns"
	timeout $((rounds * 2 * (secs + 10) + 60)) ip netns exec "$(ns_name l)" \
		"$UDPGSO_BIN/udpgso_bench_rx" -4 -p "$port" >/dev/null 2>&1 &
	rxpid=$!
	defer kill "$rxpid"
	ug_wait_port -u l "$port" "" 30 || ug_die "receiver did not bind port $port"
	echo "# kernel $(uname -r) ($(uname -v)), $(nproc) cpus, accel ${UG_VNG_ACCEL:-?}"
	echo "# workload: udpgso_bench_tx -4 -D 127.0.0.1 -p $port -s 14000 -S 1400 -l $secs --json"
	for ((i = 0; i < rounds; i++)); do
		# off on, on off, off on, ...: each mode first half of the time
		if ((i % 2)); then order="on off"; else order="off on"; fi
		for mode in $order; do
			if [ "$mode" = on ]; then
				insmod "$ko" || ug_die "insmod $ko failed"
			fi
			mbps=$(ns_exec l timeout $((secs + 30)) "$UDPGSO_BIN/udpgso_bench_tx" -4 \
				-D 127.0.0.1 -p "$port" -s 14000 -S 1400 -l "$secs" --json 2>/dev/null |
				ug_jget - MBps 2>/dev/null)
			if [ "$mode" = on ]; then
				echo "# round $i: tx_gso_skbs $(awk '$1 == "tx_gso_skbs" { print $2 }' \
					/sys/kernel/debug/udpgso_stats/counters)"
				rmmod udpgso_stats || ug_die "rmmod failed"
			fi
			echo "round $i mode $mode MBps ${mbps:-error}"
		done
	done
}

if [ -n "$in_guest" ]; then
	guest
	exit 0
fi

# ---- on the host ----------------------------------------------------------------
ug_kmod_host_setup

UG_VNG_ACCEL=${UG_VNG_ACCEL:-$("$UG_TOP/scripts/vm/vng_run.sh" --kernel "/boot/vmlinuz-$kver" --probe-accel)}
export UG_VNG_ACCEL
echo "scripts/bench/kmod_bench.sh ${args[*]}" > "$out/command.txt"
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(uname -r), guest $kver, accel $UG_VNG_ACCEL" \
	> "$out/raw.log"
echo "# host load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/raw.log"
"$UG_TOP/scripts/vm/vng_run.sh" --kernel "/boot/vmlinuz-$kver" \
	--timeout $((rounds * 2 * (secs + 15) + 180)) --rwdir "$work" -- \
	"UG_VNG_ACCEL=$UG_VNG_ACCEL UDPGSO_BIN=$UDPGSO_BIN $UG_TOP/scripts/bench/kmod_bench.sh --rounds $rounds --secs $secs" \
	"--in-guest $work/build/udpgso_stats.ko > $work/guest.log 2>&1" >/dev/null 2>&1
cat "$work/guest.log" >> "$out/raw.log"
echo "# host load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/raw.log"
grep -q '^round ' "$out/raw.log" || { cat "$out/raw.log" >&2; ug_die "no rounds ran"; }

summarize "$out"
