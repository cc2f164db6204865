#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compare_power.py on the committed campaigns with the headline threshold at
# 5% (the default until 2026-11-27), 2% and 0%: how often two runs of the same
# code get a verdict, and how often a 20% cut is found.  Each log starts with
# its command, the commit and the time.
#   results/compare-threshold-2026-11-27/power.sh [THRESHOLDS...]   (default: 5 2 0)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-threshold-2026-11-27
cd "$top"
[ $# -gt 0 ] || set -- 5 2 0
for t in "$@"; do
	for set in 27a 27c hostnoise 25d; do
		case $set in
		27a) dir=results/ab-campaign-2026-11-27a/aa ;;
		27c) dir=results/ab-campaign-2026-11-27c/default ;;
		hostnoise) dir=results/ab-hostnoise-2026-11-27/default ;;
		25d) dir=results/ab-campaign-2026-11-25d/aa ;;
		esac
		for mode in "" --all-pairs; do
			log=$out/$set${mode:+-all}-t$t.log
			echo "\$ python3 scripts/bench/compare_power.py $dir $mode -- --threshold $t" \
				"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
			python3 scripts/bench/compare_power.py "$dir" $mode -- --threshold "$t" >>"$log" 2>&1
		done
	done
done
