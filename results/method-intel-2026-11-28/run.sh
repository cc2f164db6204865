#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run's A/B (udpgso_ab.sh with its defaults: --method auto, slices) against
# the same with --method inrun, alternating, ROUNDS times each, on this machine.
#   run.sh OUTDIR ROUNDS
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 rounds=$2
for ((i = 1; i <= rounds; i++)); do
	for m in auto inrun; do
		"$top/scripts/bench/udpgso_ab.sh" --method "$m" --label "default-$m" --no-plots \
			--out "$out/$m" >"$out/round$i-$m.log" 2>&1
	done
done
