#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make compare's headline family after 63e7765 (a GSO pair against the other
# GSO senders into its receiver; a reference pair that stopped keeps its
# scale), measured as before it: compare_power.py --all-pairs on committed
# campaigns, each comparison's between-run term from the campaign's other runs
# (--between-others, as BETWEEN=auto takes the runs beside OLD and NEW) and,
# for two of them, from the time blocks alone (BETWEEN=).  Sets:
#   28a     ../ab-campaign-2026-11-28a/default (20 default runs, 33 min)
#   v657    the 19 default runs of 2026-11-27 on one VM instance over 4.3 h
#           (../compare-hours-2026-11-27's set)
#   aa27a   ../ab-campaign-2026-11-27a/aa (20 A/A runs over 76 min)
# One log per set and term, starting with the command, the commit and the
# time; two sets at a time (one CPU each).
#   results/compare-kinds-2026-11-28/power.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-kinds-2026-11-28
cd "$top"
v657=$(mktemp -d)
trap 'rm -rf "$v657"' EXIT
for d in results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27d/default/*/ \
	results/ab-campaign-2026-11-27e/default/*/; do
	ln -s "$top/$d" "$v657/$(basename "$d")"
done
one() {		# NAME DIR TERM
	local log=$out/power-$1-$3.log opt=()
	[ "$3" = between ] && opt=(--between-others)
	echo "\$ python3 scripts/bench/compare_power.py $2 --all-pairs ${opt[*]}" \
		"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
	python3 scripts/bench/compare_power.py "$2" --all-pairs "${opt[@]}" >>"$log" 2>&1
	echo "# done $(date -u +%FT%TZ)" >>"$log"
}
one 28a results/ab-campaign-2026-11-28a/default between &
one v657 "$v657" between
wait
one aa27a results/ab-campaign-2026-11-27a/aa between &
one 28a results/ab-campaign-2026-11-28a/default blocks
wait
one aa27a results/ab-campaign-2026-11-27a/aa blocks
