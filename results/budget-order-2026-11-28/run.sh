#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# budget-order-2026-11-28: make run's out-of-reach order replayed on every
# committed default run (preset default, slices of 0.25 s, --ci 95,3, not
# paced): scripts/bench/ab_budget_eval.py with its pools as measured (drawn by
# the smoothed bootstrap, and by plain resampling), every pool moved to A/A
# (1.0) and to A at 97% (0.97).
#   results/budget-order-2026-11-28/run.sh [SEEDS]    (from the repository's top)
set -eu
seeds=${1:-30}
here=results/budget-order-2026-11-28
runs=()
while read -r conf; do
	grep -qx 'preset=default' "$conf" && grep -qx 'method=slices' "$conf" &&
		grep -qx 'secs=0.25' "$conf" && grep -qx 'ci=95,3' "$conf" &&
		grep -qx 'rate=' "$conf" && runs+=("$(dirname "$conf")")
done < <(find results -name run.conf | sort)
printf '%s\n' "${runs[@]}" >"$here/runs.txt"
ev=scripts/bench/ab_budget_eval.py
"$ev" --seeds "$seeds" "${runs[@]}" >"$here/as-measured.md" &
"$ev" --seeds "$seeds" --draw plain "${runs[@]}" >"$here/as-measured-plain.md" &
"$ev" --seeds "$seeds" --true 1.0 "${runs[@]}" >"$here/aa.md" &
"$ev" --seeds "$seeds" --true 0.97 "${runs[@]}" >"$here/known-0.97.md" &
wait
