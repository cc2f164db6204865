#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The known effect's pacer with the receiver's window by the kernel's receive
# stamps (--rx-window kernel, the default with --rate since session 22) and by
# the reader's clock (--rx-window reads, before), alternating, budget 60 s
# each: make run's matrix, A/A settings, B at 50 MB/s and A at 97%
# (ab_campaign.sh --kinds known's command).
#   probe.sh OUTDIR ROUNDS
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 rounds=$2
for ((i = 1; i <= rounds; i++)); do
	for w in kernel reads; do
		"$top/scripts/bench/udpgso_ab.sh" --ab tx:tx-udp-segmentation=on \
			tx:tx-udp-segmentation=on --rate 50MB --rate-a 97 --metric mbps \
			--rx-window "$w" --label "known97-$w" --budget 60 --no-plots \
			--out "$out/$w" >"$out/round$i-$w.log" 2>&1
	done
done
