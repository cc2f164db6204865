#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# How make compare's power depends on how many rounds of every pair a
# default run has: committed runs whose pairs kept going (the code of
# 2026-11-27 spent the whole budget), each cut to its first K rounds
# (trunc.py), then compare_power.py --all-pairs --between-others
# --between-near on each cut, as make compare's BETWEEN=auto takes the
# calibration.  Sets:
#   v657    the 19 default runs of 2026-11-27 over 4.3 h (../compare-near-2026-11-28's)
#   aa27a   ../ab-campaign-2026-11-27a/aa: 20 A/A runs over 76 min, 282-790 slices each
# One log per set and K, starting with the command, the commit and the time.
#   results/compare-rounds-2026-11-28b/power.sh [SET...]   (default: both)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-rounds-2026-11-28b
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dirs_of() {
	case "$1" in
	v657) ls -d results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27d/default/*/ \
		results/ab-campaign-2026-11-27e/default/*/ ;;
	aa27a) ls -d results/ab-campaign-2026-11-27a/aa/*/ ;;
	esac
}
one() {		# SET K
	local log=$out/power-$1-k$([ "$2" = 0 ] && echo all || echo "$2").log ds
	mapfile -t ds < <(dirs_of "$1")
	python3 "$out/trunc.py" "$2" "$tmp/$1-k$2" "${ds[@]}"
	echo "\$ python3 scripts/bench/compare_power.py $1-k$2 --all-pairs --between-others" \
		"--between-near  # $1 cut to its first $2 rounds (0: all), at" \
		"$(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
	python3 scripts/bench/compare_power.py "$tmp/$1-k$2" --all-pairs --between-others \
		--between-near >>"$log" 2>&1
	echo "# done $(date -u +%FT%TZ)" >>"$log"
}
sets=("$@")
[ $# = 0 ] && sets=(v657 aa27a)
for s in "${sets[@]}"; do
	one "$s" 6 &
	one "$s" 10
	wait
	one "$s" 15 &
	one "$s" 0
	wait
done
