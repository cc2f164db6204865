#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compare_power.py --all-pairs on default `make run`s of one measuring code,
# each comparison's between-run term as `make compare` takes it by default
# (the two runs' time blocks: "blocks") and from every other run of the set
# (--between-others, leave-two-out: "between").  Sets:
#   v657: this VM instance (kernel 6.18.44-fc-v657): session 13's two default
#         runs (17:21, 18:50), ab-campaign-2026-11-27d (19:28-19:59) and
#         ab-campaign-2026-11-27e (20:55-21:36)
#   all:  those and ab-campaign-2026-11-27c (15:03-15:33, the instance of
#         kernel 6.18.44-fc-v669)
# Each log starts with its command, the commit and the time.  The two ways of
# a set run side by side (one CPU each).
#   results/compare-hours-2026-11-27/power.sh v657|all
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-hours-2026-11-27
cd "$top"
sets=(results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27d/default/*/
      results/ab-campaign-2026-11-27e/default/*/)
case ${1:-} in
v657) name="results/{compare-default-2026-11-27,ab-campaign-2026-11-27{d,e}/default}" ;;
all) sets+=(results/ab-campaign-2026-11-27c/default/*/)
     name="results/{compare-default-2026-11-27,ab-campaign-2026-11-27{c,d,e}/default}" ;;
*) echo "power.sh: '${1:-}': allowed v657 or all" >&2; exit 2 ;;
esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for d in "${sets[@]}"; do
	ln -s "$top/$d" "$dir/$(basename "$d")"
done
pids=()
for how in blocks between; do
	log=$out/power-$1-$how.log
	opt=()
	[ "$how" = between ] && opt=(--between-others)
	echo "\$ python3 scripts/bench/compare_power.py $name --all-pairs ${opt[*]}" \
		"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
	python3 scripts/bench/compare_power.py "$dir" --all-pairs "${opt[@]}" >>"$log" 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p"
done
