#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compare_power.py with N runs a side (--per-side N: groups of N consecutive
# runs, ab_compare.py's directory of runs) on the 0.25 s A/A campaign, and
# N = 1 at the same code (the single-run path, which must give what
# results/compare-threshold-2026-11-27/27a-t2.log gave).  Each log starts with
# its command, the commit and the time.
#   results/compare-runs-2026-11-27/power.sh A|B
# (A: N = 1, 2; B: N = 3; run the two at once on two CPUs)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-runs-2026-11-27
dir=results/ab-campaign-2026-11-27a/aa
cd "$top"
case ${1:-} in
A) jobs="1: 2: 2:--all-pairs" ;;
B) jobs="3: 3:--all-pairs" ;;
*) echo "power.sh: '${1:-}': allowed A or B" >&2; exit 2 ;;
esac
for j in $jobs; do
	n=${j%%:*} mode=${j#*:}
	log=$out/27a-per-side-$n${mode:+-all}.log
	echo "\$ python3 scripts/bench/compare_power.py $dir --per-side $n $mode" \
		"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
	python3 scripts/bench/compare_power.py "$dir" --per-side "$n" $mode >>"$log" 2>&1
done
