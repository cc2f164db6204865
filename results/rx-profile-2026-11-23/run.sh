#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where our receiver's time goes in GRO mode, beside upstream's (a note for
# issue 17's "the tools must not be what is measured"; no tool is changed).
# Our udpgso_bench_tx sends 44 x 1472-byte GSO datagrams on lo in a fresh
# namespace (tx pinned to CPU 0); the receiver (-G, pinned to CPU 1) is ours,
# then upstream's (linux-source-6.1, built in a temporary directory), 4 s
# each, REPS times alternating; perf record -e cpu-clock -g on the receiver
# for 2 s in the middle; then perf report of each receiver's last profile.
#
#   results/rx-profile-2026-11-23/run.sh [OUTDIR]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(dirname "$0")}
reps=${REPS:-2}
tmp=$(mktemp -d)
ns=ugprof$$
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$tmp" --strip-components=5 \
	linux-source-6.1/tools/testing/selftests/net/udpgso_bench_rx.c || exit 1
gcc -O2 -o "$tmp/up_rx" "$tmp/udpgso_bench_rx.c" -lpthread || exit 1
ip netns add "$ns" && ip -n "$ns" link set lo up || exit 1
one() {	# NAME REP RXCMD...
	local name=$1 rep=$2 rxp txp
	shift 2
	ip netns exec "$ns" "$@" >"$out/$name.$rep.rx.out" 2>"$out/$name.$rep.rx.err" &
	rxp=$!
	sleep 0.3
	ip netns exec "$ns" "$top/udpgso_bench_tx" -4 -D 127.0.0.1 -p 9100 -l 4 -s 64768 -S 1472 \
		-C 0 --json >"$out/$name.$rep.tx.json" 2>/dev/null &
	txp=$!
	sleep 1
	perf record -q -e cpu-clock -F 4000 -g -p "$rxp" -o "$tmp/$name.perf" -- sleep 2 \
		>/dev/null 2>&1
	wait "$txp"
	sleep 0.5
	kill -INT "$rxp" 2>/dev/null
	wait "$rxp"
	perf report -i "$tmp/$name.perf" --no-children --sort sym --stdio 2>/dev/null |
		grep '%' | head -40 >"$out/$name.$rep.perf.txt"
	echo "$name rep $rep: $(grep -c . "$out/$name.$rep.perf.txt") symbols" >&2
}
{
	echo "date: $(date -u +%FT%TZ)"; echo "kernel: $(uname -r)"; uptime
	echo "ours: $top/udpgso_bench_rx -4 -p 9100 -G --json -C 5000 -R 1000 --cpu 1"
	echo "upstream: taskset -c 1 up_rx -4 -p 9100 -G (linux-source-6.1 udpgso_bench_rx.c, gcc -O2)"
} >"$out/environment"
for ((r = 1; r <= reps; r++)); do
	one ours "$r" "$top/udpgso_bench_rx" -4 -p 9100 -G --json -C 5000 -R 1000 --cpu 1
	one upstream "$r" taskset -c 1 "$tmp/up_rx" -4 -p 9100 -G
done
