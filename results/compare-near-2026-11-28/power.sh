#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BETWEEN=auto's runs from the hours around OLD and NEW (compare_runs.
# near_in_time), measured as compare-kinds-2026-11-28 measured the reference:
# compare_power.py --all-pairs --between-others, each comparison's
# between-run term from the set's other runs, all of them (as auto took them
# before) or only those made within the hours around the two compared
# (--between-near, as auto takes them now); both with each unit taken against
# its mates of the same round (compare_levels.mark_rounds).  Sets, one VM
# instance (kernel build v657), one measuring code each day:
#   v657    the 19 default runs of 2026-11-27 over 4.3 h
#           (../compare-hours-2026-11-27's set)
#   2days   those and the 20 of ../ab-campaign-2026-11-28a/default (06:42-07:15
#           on 2026-11-28), every two made within a day (--within 6: 171 + 190
#           comparisons; across the days the hours around two runs hold both
#           days, and near takes what all takes)
#   28a     ../ab-campaign-2026-11-28a/default alone (33 quiet minutes)
#   aa27a   ../ab-campaign-2026-11-27a/aa (20 A/A runs over 76 min: A and B the
#           same setting; any call there is false)
# One log per set and term, starting with the command, the commit and the
# time; two at a time (one CPU each).
#   results/compare-near-2026-11-28/power.sh [SET...]   (default: all four)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-near-2026-11-28
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/v657" "$tmp/2days" "$tmp/28a" "$tmp/aa27a"
for d in results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27d/default/*/ \
	results/ab-campaign-2026-11-27e/default/*/; do
	ln -s "$top/$d" "$tmp/v657/$(basename "$d")"
	ln -s "$top/$d" "$tmp/2days/$(basename "$d")"
done
for d in results/ab-campaign-2026-11-28a/default/*/; do
	ln -s "$top/$d" "$tmp/2days/$(basename "$d")"
	ln -s "$top/$d" "$tmp/28a/$(basename "$d")"
done
for d in results/ab-campaign-2026-11-27a/aa/*/; do
	ln -s "$top/$d" "$tmp/aa27a/$(basename "$d")"
done
one() {		# SET TERM (all, near)
	local log=$out/power-$1-$2.log opt=(--between-others)
	[ "$2" = near ] && opt+=(--between-near)
	[ "$1" = 2days ] && opt+=(--within 6)
	echo "\$ python3 scripts/bench/compare_power.py $1 --all-pairs ${opt[*]}" \
		"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
	python3 scripts/bench/compare_power.py "$tmp/$1" --all-pairs "${opt[@]}" >>"$log" 2>&1
	echo "# done $(date -u +%FT%TZ)" >>"$log"
}
sets=("$@")
[ $# = 0 ] && sets=(v657 2days 28a aa27a)
for s in "${sets[@]}"; do
	one "$s" all &
	one "$s" near
	wait
done
