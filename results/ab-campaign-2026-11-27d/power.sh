#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compare_power.py --all-pairs on this campaign's default runs, and on them
# with the six of ../ab-campaign-2026-11-27c (the same measuring code), with
# the GSO kind as it is and split by receiver
# (../compare-split-2026-11-27/split_power.py).  Each log starts with its
# command, the commit and the time.
#   results/ab-campaign-2026-11-27d/power.sh 27d|both
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/ab-campaign-2026-11-27d
cd "$top"
case ${1:-} in
27d) dir=results/ab-campaign-2026-11-27d/default name=$dir ;;
both)
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	for d in results/ab-campaign-2026-11-27c/default/*/ results/ab-campaign-2026-11-27d/default/*/; do
		ln -s "$top/$d" "$dir/$(basename "$d")"
	done
	name="results/ab-campaign-2026-11-27{c,d}/default" ;;
*) echo "power.sh: '${1:-}': allowed 27d or both" >&2; exit 2 ;;
esac
for how in asis split; do
	log=$out/power-$1-$how.log
	if [ "$how" = asis ]; then
		echo "\$ python3 scripts/bench/compare_power.py $name --all-pairs" \
			"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
		python3 scripts/bench/compare_power.py "$dir" --all-pairs >>"$log" 2>&1
	else
		echo "\$ python3 results/compare-split-2026-11-27/split_power.py . $name --all-pairs" \
			"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
		python3 results/compare-split-2026-11-27/split_power.py "$top" "$dir" --all-pairs >>"$log" 2>&1
	fi
done
