#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 26 point 3 on the code of 2026-11-28 (open verdicts first,
# --max-reps 200), at 0.25 s slices: A/A runs of make run's size (all 13
# pairs, 260 s budget) and known-effect runs (A paced at 97% of B, sendto and
# gso-cmsg -> plain, 20 s a pair: a default run's share), taking turns, one
# ab_campaign.sh --rounds 1 each into one directory (its campaign.log
# appends), 10 s of sleep after every run.
#   results/ab-campaign-2026-11-28b/run.sh OUT [ROUNDS] [UNTIL]
# OUT: the campaign directory (e.g. /tmp/x/ab-campaign-2026-11-28b); ROUNDS
# (default 20) turns of each kind; UNTIL (HH:MM UTC) starts no turn after it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run.sh OUT [ROUNDS] [UNTIL]}
rounds=${2:-20}
until=${3:-}
C=$top/scripts/bench/ab_campaign.sh
for ((i = 1; i <= rounds; i++)); do
	if [ -n "$until" ] && [[ "$(date -u +%H:%M)" > "$until" ]]; then
		echo "run.sh: past $until after $((i - 1)) turns" >&2
		break
	fi
	"$C" --kinds aa --rounds 1 --gap 10 --out "$out" >/dev/null
	"$C" --kinds known --tx sendto,gso-cmsg --rx plain --budget 40 --rounds 1 --gap 10 \
		--out "$out" >/dev/null
done
python3 "$top/scripts/bench/ab_campaign_summary.py" "$out" >"$out/summary.md"
cat "$out/summary.md"
