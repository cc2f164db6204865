#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where the loopback sender's CPU goes with each receiver: upstream's
# udpgso_bench_tx on CPU 1 (-S 0: 64 KiB GSO sends), a receiver on CPU 0,
# a fresh network namespace per run, perf record -e cpu-clock -g of CPU 1
# for 3 s in the middle of a 5 s run; the share of samples under
# sock_def_readable (waking a reader asleep in poll) and the receiver's
# MB/s lines.  Run from the top directory, as root:
#   results/rx-wake-profile-2026-11-24/profile.sh UP_TX UP_RX OUT
set -eu
uptx=$1 uprx=$2 out=$3
ours=./udpgso_bench_rx
mkdir -p "$out"
one() {	# NAME RXCMD...
	local name=$1
	shift
	unshare -n bash -c '
		ip link set lo up
		taskset -c 0 "$@" 2>"$OUT/$NAME.rx.log" >/dev/null &
		rx=$!
		sleep 0.3
		taskset -c 1 "$UPTX" -4 -D 127.0.0.1 -p 8000 -l 5 -S 0 >/dev/null 2>&1 &
		tx=$!
		sleep 1
		perf record -q -e cpu-clock -C 1 -g -o "$OUT/$NAME.perf.data" -- sleep 3 2>/dev/null
		wait "$tx"
		kill -INT "$rx"
		wait "$rx" || true' x "$@"
	perf report -i "$out/$name.perf.data" --children --sort sym --stdio -g none \
		2>/dev/null | grep -v '^#' | grep '%' >"$out/$name.all.txt"
	head -60 "$out/$name.all.txt" >"$out/$name.report.txt"
	grep -w -e sock_def_readable -e __wake_up_sync_key -e try_to_wake_up \
		"$out/$name.all.txt" >>"$out/$name.report.txt" || true
	rm -f "$out/$name.all.txt"
	rm -f "$out/$name.perf.data"
	printf '%-28s sender CPU under sock_def_readable: %6s   rx MB/s: %s\n' "$name" \
		"$(awk '$NF == "sock_def_readable" { print $1; exit }' "$out/$name.report.txt")" \
		"$(grep -o '[0-9]* MB/s' "$out/$name.rx.log" | awk '{ printf "%s ", $1 }')"
}
export OUT=$out UPTX=$uptx NAME
for r in 1; do
	for m in "-S -1" "-G"; do
		tag=${m// /}
		NAME=upstream$tag.$r; one "$NAME" "$uprx" -4 $m
		NAME=ours-poll-wait$tag.$r; one "$NAME" "$ours" -4 $m --poll-wait
		NAME=ours-nap$tag.$r; one "$NAME" "$ours" -4 $m
	done
done
