#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make compare` tells apart between two default runs of the code of
# 2026-11-28 (open verdicts first, --max-reps 200): compare_power.py
# --all-pairs on this campaign's default runs, each comparison's between-run
# term from the campaign's other runs (--between-others, leave-two-out: as
# BETWEEN=auto takes the runs beside OLD and NEW), and once more with the
# time blocks alone (BETWEEN=).  The log starts with the command, the commit
# and the time.  The two ways run one after the other.
#   results/ab-campaign-2026-11-28a/power.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/ab-campaign-2026-11-28a
cd "$top"
for how in between blocks; do
	log=$out/power-$how.log
	opt=()
	[ "$how" = between ] && opt=(--between-others)
	echo "\$ python3 scripts/bench/compare_power.py $out/default --all-pairs ${opt[*]}" \
		"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
	python3 scripts/bench/compare_power.py "$out/default" --all-pairs "${opt[@]}" >>"$log" 2>&1
	echo "# done $(date -u +%FT%TZ)" >>"$log"
done
