#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The rule of 2026-11-28 (compare_levels.one_explains) on the runs of
# ../compare-hours-2026-11-27 (19 default runs of 2026-11-27 over 4.3 hours,
# one VM instance: kernel build v657), as its power.sh v657 ran them with
# --between-others: its power-v657-between.log has the rule before.
#   results/ab-campaign-2026-11-28a/power-hours.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/ab-campaign-2026-11-28a
cd "$top"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for d in results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27d/default/*/ \
	results/ab-campaign-2026-11-27e/default/*/; do
	ln -s "$top/$d" "$dir/$(basename "$d")"
done
log=$out/power-hours-v657-between.log
echo "\$ python3 scripts/bench/compare_power.py" \
	"results/{compare-default-2026-11-27,ab-campaign-2026-11-27{d,e}/default}" \
	"--all-pairs --between-others   # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
python3 scripts/bench/compare_power.py "$dir" --all-pairs --between-others >>"$log" 2>&1
echo "# done $(date -u +%FT%TZ)" >>"$log"
