#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# budget-order-2026-11-28, part 2: the open-first order with --max-reps 100
# (make run's default until then) and 200, 10 replays of each of the runs in
# runs.txt: as measured, every pool moved to A/A (1.0) and to A at 97% (0.97).
#   results/budget-order-2026-11-28/run-maxreps.sh     (from the repository's top)
set -eu
here=results/budget-order-2026-11-28
mapfile -t runs <"$here/runs.txt"
ev=scripts/bench/ab_budget_eval.py
for m in 100 200; do
	"$ev" --seeds 10 --max-reps "$m" "${runs[@]}" >"$here/maxreps-$m.md" &
	"$ev" --seeds 10 --max-reps "$m" --true 1.0 "${runs[@]}" >"$here/maxreps-$m-aa.md" &
	wait
	"$ev" --seeds 10 --max-reps "$m" --true 0.97 "${runs[@]}" >"$here/maxreps-$m-known-0.97.md"
done
