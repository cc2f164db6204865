#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the false-call rate of the A/B verdict on simulated A/A runs.

Each A/A pair gets N log ratios ln(A/B) drawn, seeded, from one symmetric
distribution around 0 (A and B the same setting); a false call is a p-value
under ALPHA.  Two verdicts are compared: ab_stats.pair_interval as it is
(every pair not disturbed by steal is in the test; outliers are named) and
the rule it replaced (leave out the outliers of ab_stats.outliers, then the
t-test on the rest), which ab_stats_test.py also uses to show that its
cases can fail.  With --pairs-per-run K, runs of K pairs are judged with
Holm's correction as udpgso_ab.sh judges them: the share of runs with any
false call.  Prints a markdown table; no I/O besides stdout.

    ab_aa_sim.py [--draws 20000] [--seed 1] [--pairs 5,6,8]
                 [--dists normal,t3,t2,mix] [--pairs-per-run 2]
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_stats  # noqa: E402

ALPHA = 0.05
SCALE = 0.2     # the log ratio's scale (campaign A/A pairs: sd_log 0.1-0.7 at load 5-20)

DISTS = {
    "normal": "normal, sd 0.2",
    "t3": "Student's t, 3 df, x 0.2 (heavy tails)",
    "t2": "Student's t, 2 df, x 0.2 (heavier: no variance)",
    "mix": "normal sd 0.1, one pair in 5 sd 1.0 (a slice in a dip)",
}


def draw(rng, dist, n):
    """n log ratios of an A/A pair from DIST."""
    def t(df):
        return rng.gauss(0, 1) / math.sqrt(sum(rng.gauss(0, 1) ** 2 for _ in range(df)) / df)
    if dist == "normal":
        return [rng.gauss(0, SCALE) for _ in range(n)]
    if dist in ("t3", "t2"):
        return [SCALE * t(int(dist[1])) for _ in range(n)]
    if dist == "mix":
        return [rng.gauss(0, 1.0 if rng.random() < 0.2 else SCALE / 2) for _ in range(n)]
    raise ValueError("--dists: '%s': allowed %s" % (dist, ", ".join(DISTS)))


def p_current(logs):
    """The p-value of ab_stats.pair_interval on these log ratios (as A/B
    values over B = 1)."""
    a = {i: math.exp(x) for i, x in enumerate(logs)}
    return ab_stats.pair_interval(a, {i: 1.0 for i in a}, 95)["p"]


def p_exclude_outliers(logs):
    """The p-value of the replaced rule: the outliers left out first."""
    out = set(ab_stats.outliers(logs))
    return ab_stats.interval([math.exp(x) for i, x in enumerate(logs) if i not in out], 95)["p"]


RULES = {"current": p_current, "exclude-outliers": p_exclude_outliers}


def false_calls(rule, dist, n, draws, seed, per_run=1):
    """The share of A/A pairs (per_run 1) or of runs of per_run pairs with
    Holm's correction that call a difference."""
    rng = random.Random("%s/%d/%d" % (dist, n, seed))
    f = RULES[rule]
    called = 0
    for _ in range(draws):
        ps = [f(draw(rng, dist, n)) for _ in range(per_run)]
        called += any(ab_stats.holm(ps, ALPHA))
    return called / float(draws)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pairs", default="5,6,8", help="pairs per A/A interval, comma-separated")
    ap.add_argument("--dists", default=",".join(DISTS))
    ap.add_argument("--pairs-per-run", type=int, default=2)
    a = ap.parse_args(argv)
    dists = a.dists.split(",")
    bad = [d for d in dists if d not in DISTS]
    if bad:
        print("ab_aa_sim.py: --dists '%s': allowed %s" % (bad[0], ",".join(DISTS)),
              file=sys.stderr)
        return 1
    try:
        ns = [int(x) for x in a.pairs.split(",")]
        if any(not 2 <= x <= 100 for x in ns):
            raise ValueError
    except ValueError:
        print("ab_aa_sim.py: --pairs '%s': allowed integers 2..100, comma-separated" % a.pairs,
              file=sys.stderr)
        return 1
    if a.draws < 100 or a.pairs_per_run < 1:
        print("ab_aa_sim.py: --draws %d --pairs-per-run %d: allowed --draws >= 100, "
              "--pairs-per-run >= 1" % (a.draws, a.pairs_per_run), file=sys.stderr)
        return 1
    se = 100.0 * math.sqrt(ALPHA * (1 - ALPHA) / a.draws)
    print("# Simulated A/A: false calls at %g%% (%d seeded draws a cell, seed %d; binomial "
          "sd at 5%%: %.2f points)" % (100 * ALPHA, a.draws, a.seed, se))
    print()
    print("Per pair: the share of A/A intervals whose p is under %g. Per run: runs of %d pairs, "
          "Holm's correction over them, the share with any call (the campaign's "
          "\"runs with a false call\")." % (ALPHA, a.pairs_per_run))
    print()
    print("| log ratio | pairs | current: per pair | exclude outliers: per pair "
          "| current: per run | exclude outliers: per run |")
    print("|---|---|---|---|---|---|")
    for d in dists:
        for n in ns:
            cells = ["%.2f%%" % (100 * false_calls(rule, d, n, a.draws, a.seed, k))
                     for k in (1, a.pairs_per_run) for rule in ("current", "exclude-outliers")]
            print("| %s | %d | %s |" % (DISTS[d], n, " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
