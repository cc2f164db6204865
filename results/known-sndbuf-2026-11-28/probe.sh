#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The known effect's pacer with the sender's default send buffer and with
# --wmem 2000000 (udpgso_bench_tx --sndbuf: 4 MB as the kernel sets it),
# alternating, budget 60 s each: make run's matrix, A/A settings, B at
# 50 MB/s and A at 97% (ab_campaign.sh --kinds known's command).
#   probe.sh OUTDIR ROUNDS
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 rounds=$2
for ((i = 1; i <= rounds; i++)); do
	for w in default 2000000; do
		extra=()
		[ "$w" = default ] || extra=(--wmem "$w")
		"$top/scripts/bench/udpgso_ab.sh" --ab tx:tx-udp-segmentation=on \
			tx:tx-udp-segmentation=on --rate 50MB --rate-a 97 --metric mbps \
			--label "known97-wmem-$w" --budget 60 --no-plots "${extra[@]}" \
			--out "$out/wmem-$w" >"$out/round$i-wmem-$w.log" 2>&1
	done
done
