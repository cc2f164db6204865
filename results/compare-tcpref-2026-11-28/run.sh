#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# spread_tcp.py on four committed sets (one log each, starting with the
# command, the commit and the time):
#   28a    ../ab-campaign-2026-11-28a/default (20 quiet default runs, 33 min)
#   aa28b  ../ab-campaign-2026-11-28b/aa (34 A/A runs of make run's size, 61 min)
#   v657   the 19 default runs of 2026-11-27 (../compare-near-2026-11-28/power.sh's)
#   aa27a  ../ab-campaign-2026-11-27a/aa (20 A/A runs, 76 min)
#   results/compare-tcpref-2026-11-28/run.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-tcpref-2026-11-28
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27d/default/*/ \
	results/ab-campaign-2026-11-27e/default/*/; do
	ln -s "$top/$d" "$tmp/$(basename "$d")"
done
one() {		# NAME DIR
	{
		echo "\$ python3 results/compare-tcpref-2026-11-28/spread_tcp.py . $1" \
			"  # at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)"
		python3 "$out/spread_tcp.py" "$top" "$2"
	} >"$out/spread-$1.log"
}
one 28a results/ab-campaign-2026-11-28a/default
one aa28b results/ab-campaign-2026-11-28b/aa
one v657 "$tmp"
one aa27a results/ab-campaign-2026-11-27a/aa
