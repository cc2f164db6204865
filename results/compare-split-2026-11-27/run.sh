#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# split_power.py (the GSO kind split by receiver) against compare_power.py as
# it is, on the 0.25 s A/A campaign (consecutive and every two runs), the
# quiet 1 s one, the six default runs of 2026-11-27c and the loaded 1 s A/A
# campaign (every two).  Each log starts with its command, commit, time.
#   [SETS="27a hostnoise 27c 25d"] results/compare-split-2026-11-27/run.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-split-2026-11-27
cd "$top"
for set in ${SETS:-27a hostnoise 27c 25d}; do
	case $set in
	27a) dir=results/ab-campaign-2026-11-27a/aa ;;
	hostnoise) dir=results/ab-hostnoise-2026-11-27/default ;;
	27c) dir=results/ab-campaign-2026-11-27c/default ;;
	25d) dir=results/ab-campaign-2026-11-25d/aa ;;
	esac
	for mode in "" --all-pairs; do
		[ "$set" != 27a ] && [ -z "$mode" ] && continue
		log=$out/$set${mode:+-all}-split.log
		echo "\$ python3 results/compare-split-2026-11-27/split_power.py . $dir $mode" \
			"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
		python3 "$out/split_power.py" "$top" "$dir" $mode >>"$log" 2>&1
	done
done
