#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: tests of the robust intervals evaluated for the slices method
(ab_robust.py, ab_robust_eval.py) on hand-computed and enumerated cases and
on simulated pairs, and of the replays of make run's budget (ab_budget_eval.py).  One "PASS name" or "FAIL name: why" line per test;
exits 1 when one failed."""
import itertools
import math
import os
import random
import statistics
import sys

from ugtest import close, registry, run_tests, same  # (scripts/bench on sys.path)
import ab_robust as R  # noqa: E402
import ab_robust_eval as E  # noqa: E402
import ab_budget_eval as B  # noqa: E402
import ab_stats as S  # noqa: E402

TESTS, test = registry()


def enumerated_p(xs):
    """The exact two-sided signed-rank p by enumerating the 2^n sign patterns
    of the ranks of |x| (no ties in the cases below)."""
    n = len(xs)
    rank = {i: r + 1 for r, i in enumerate(sorted(range(n), key=lambda i: abs(xs[i])))}
    obs = sum(rank[i] for i in range(n) if xs[i] > 0)
    ws = [sum(rank[i] for i in range(n) if s[i]) for s in itertools.product((0, 1), repeat=n)]
    lo = sum(1 for w in ws if w <= obs)
    hi = sum(1 for w in ws if w >= obs)
    return min(1.0, 2.0 * min(lo, hi) / len(ws))


@test
def signed_rank_counts_match_enumeration():
    for n in range(1, 11):
        c = [0] * (n * (n + 1) // 2 + 1)
        for s in itertools.product((0, 1), repeat=n):
            c[sum(k + 1 for k in range(n) if s[k])] += 1
        same(list(R.signed_rank_counts(n)), c)
    same(R.signed_rank_counts(4), (1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1))
    close(R.signed_rank_cdf(2, 7), 3 / 128.0, 1e-15)
    same(R.signed_rank_cdf(-1, 7), 0.0)


@test
def signed_rank_interval_of_six_is_the_range():
    # n = 6: P(W <= 0) = 1/64 <= 0.025 < P(W <= 1) = 2/64, so K = 0: the
    # interval is the smallest and largest Walsh average (the data's range),
    # at 1 - 2/64 = 96.875%; all six above 0: W+ = 21, p = 2/64
    w = R.signed_rank_interval([x / 100.0 for x in (1, 2, 3, 4, 5, 6)], 95)
    close(w["lo"], 0.01, 1e-15)
    close(w["hi"], 0.06, 1e-15)
    close(w["level_exact"], 96.875, 1e-12)
    close(w["p"], 2 / 64.0, 1e-15)
    close(w["hl"], 0.035, 1e-15)
    # five: 1/32 > 0.025, no 95% interval; the p still exists
    w = R.signed_rank_interval([x / 100.0 for x in (1, 2, 3, 4, 5)], 95)
    same((w["lo"], w["hi"]), (None, None))
    close(w["p"], 2 / 32.0, 1e-15)


@test
def signed_rank_interval_of_seven_by_hand():
    # x = -3 -1 2 4 5 7 10 (%): P(W <= 2) = 3/128 <= 0.025 < P(W <= 3) = 5/128,
    # K = 2: the 3rd smallest Walsh average (-3-3)/2, (-3-1)/2, (-1-1)/2 ->
    # -1, the 3rd largest 10, (10+7)/2, (10+5)/2 -> 7.5; negative Walsh
    # averages -3, -2, -1, -0.5: W+ = 24 = 28 - 4, the signed ranks' W- =
    # 1 + 3 = 4: p = 2 P(W <= 4) = 2 x 7/128
    xs = [x / 100.0 for x in (-3, -1, 2, 4, 5, 7, 10)]
    w = R.signed_rank_interval(xs, 95)
    close(w["lo"], -0.01, 1e-15)
    close(w["hi"], 0.075, 1e-15)
    close(w["p"], 14 / 128.0, 1e-15)
    close(w["level_exact"], 100 * (1 - 6 / 128.0), 1e-12)
    brute = sorted((a + b) / 2 for a, b in itertools.combinations_with_replacement(xs, 2))
    close(w["hl"], (brute[13] + brute[14]) / 2, 1e-15)


@test
def signed_rank_p_matches_enumeration():
    rng = random.Random(5)
    for n in range(2, 11):
        for _ in range(20):
            xs = [rng.gauss(0.02, 0.05) for _ in range(n)]
            close(R.signed_rank_interval(xs, 95)["p"], enumerated_p(xs), 1e-12)


@test
def trimmed_interval_by_hand():
    # x = -10 1 2 3 4 20 (%): g = 1, kept 1..4 (mean 2.5), Winsorized
    # 1 1 2 3 4 4 (variance 9.5/5 = 1.9), se^2 = (n-1) 1.9 / (h (h-1)) =
    # 5 x 1.9 / 12, df = h - 1 = 3
    m, se, df = R.trimmed_interval([x / 100.0 for x in (-10, 1, 2, 3, 4, 20)], 95)
    close(m, 0.025, 1e-15)
    close(se, math.sqrt(5 * 1.9 / 12) / 100.0, 1e-15)
    same(df, 3)
    # under 5 values nothing is trimmed: the paired t
    xs = [0.01, 0.03, 0.02, 0.07]
    m, se, df = R.trimmed_interval(xs, 95)
    close(m, statistics.mean(xs), 1e-15)
    close(se, statistics.stdev(xs) / 2.0, 1e-15)
    same(df, 3)
    same([R.trim_count(n) for n in (4, 5, 9, 10, 14, 15, 20)], [0, 1, 1, 2, 2, 3, 4])


@test
def the_brief_tcp_pair():
    # tcp -> tcp of a make run (rx MB/s, A B by rep, issue 26): sd 21.4%,
    # the t-interval +-25.2% and ~204 pairs for +-3%; trimmed +-6.5%
    out = E.one_pair([2701, 2738, 2815, 2677, 2784, 2660, 2909, 2842, 2751, 2235,
                      1937, 2969])
    same(out[-1], "pairs needed for ±3%: at the sd 21.4%: 204; at the trimmed spread "
         "4.8%: 13")
    same([x.split()[0] for x in out[1:5]], list(E.METHODS))
    same("±25.2%" in out[1] and "±6.5%" in out[2] and "±37.4%" in out[3], True)


@test
def holm_needs_ten_pairs_for_an_exact_signed_rank_call_in_13():
    # the smallest two-sided exact p of n pairs is 2^(1-n); Holm's first
    # step over m pairs is alpha/m
    same(E.n_min(13, 95), 10)
    same(E.n_min(2, 95), 7)
    same(2.0 ** (1 - 9) > 0.05 / 13 >= 2.0 ** (1 - 10), True)


def aa_rate(method, dist, n, draws, seed=3):
    rng = random.Random("%s/%s/%d/%d" % (method, dist, n, seed))
    called = 0
    for _ in range(draws):
        p = E.judge(E.draw(rng, dist, n), 95, method)[2]
        called += p is not None and p < 0.05
    return called / float(draws)


@test
def aa_false_calls_at_most_nominal_with_dips():
    # A/A pairs with single-slice dips, normal and heavy tails: at most 5%
    # plus 3 binomial sd (2000 draws: 0.49 points; the t is exact on normal
    # pairs and calls 6.15% of them with this seed)
    for method in ("wilcoxon", "trimmed", "t"):
        for dist in ("dips", "quiet", "t3"):
            got = aa_rate(method, dist, 8, 2000)
            if got > 0.065:
                raise AssertionError("%s %s x 8: %.2f%% called" % (method, dist, 100 * got))


def aa_run_rate(method, dist, n, runs, seed=3):
    """The share of simulated A/A runs of 13 pairs with a call after Holm."""
    rng = random.Random("run/%s/%s/%d/%d" % (method, dist, n, seed))
    called = 0
    for _ in range(runs):
        ps = [E.judge(E.draw(rng, dist, n), 95, method)[2] for _ in range(13)]
        called += any(S.holm(ps, 0.05))
    return called / float(runs)


@test
def aa_runs_of_13_switch_honest_trimmed_not():
    # why the trimmed t is not the verdict: Holm over 13 pairs reads its p
    # at 0.05/13, where the trimmed t's approximation calls too often on
    # normal pairs (8.4% of 1000 runs at 10 pairs in sim.md); the switch
    # rule (the exact signed rank from 10 pairs) stays within 5% + 2 sd
    got = aa_run_rate("switch", "quiet", 10, 800)
    if got > 0.066:
        raise AssertionError("switch: %.1f%% of A/A runs with a call" % (100 * got))
    got = aa_run_rate("trimmed", "quiet", 10, 800)
    if got <= 0.06:
        raise AssertionError("trimmed: %.1f%% of A/A runs with a call: the case no longer "
                             "shows why it is not the verdict" % (100 * got))


@test
def known_effect_covered_with_dips():
    # A at 97% of B, 12 pairs with dips: each interval covers ln 0.97 in at
    # least 94% of 1000 draws, and the robust ones find it more often than t
    rng = random.Random(11)
    eff = math.log(0.97)
    cov = dict.fromkeys(E.METHODS, 0)
    found = dict.fromkeys(E.METHODS, 0)
    for _ in range(1000):
        x = E.draw(rng, "dips", 12, eff)
        for m in E.METHODS:
            lo, hi, p, est = E.judge(x, 95, m)
            cov[m] += lo <= eff <= hi
            found[m] += p < 0.05 and est < 0
    for m in E.METHODS:
        if cov[m] < 940:
            raise AssertionError("%s covered %d of 1000" % (m, cov[m]))
    if not (found["trimmed"] > found["t"] and found["wilcoxon"] > found["t"]):
        raise AssertionError("found: %r" % found)


@test
def simulated_run_keeps_the_budget_and_the_pair_limits():
    # a whole simulated run: every pair gets 5 at least (the out-of-reach
    # rule judges from REACH_MIN_PAIRS = 5, as in ab_report.pending), none
    # more than 30, no round starts once the budget is spent (a round adds
    # at most 13)
    rng = random.Random(2)
    for policy in ("t", "switch"):
        for budget in (110, 260):
            res = E.sim_run(rng, ["dips"] * 8 + ["bimodal"] * 5, 0.0, policy, budget)
            ns = [r[0] for r in res]
            if min(ns) < S.REACH_MIN_PAIRS or max(ns) > 30 or not budget <= sum(ns) < budget + 13:
                raise AssertionError("%s, budget %d: pairs %r" % (policy, budget, ns))
    # the switch's planning: a pair with one dip in 6 needs n_min..13, not 204
    logs = [math.log(a / b) for a, b in ((2701, 2738), (2815, 2677), (2784, 2660),
                                         (2909, 2842), (2751, 2235), (1937, 2969))]
    same(E.run_need(logs, 95.0, 3.0, "t", 13), 204)
    same(E.run_need(logs, 95.0, 3.0, "switch", 13), 13)


@test
def campaign_tables_recompute_the_t_verdicts():
    # the t rows of ab_robust_eval.py runs equal ab_stats' verdicts of the
    # committed recompute (results/ab-2026-11-25c: A/A 0 of 40, known
    # found 22 of 40, covered 40 of 40)
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), "results", "ab-2026-11-25b", "campaign")
    dirs = sorted(os.path.join(root, "known", d) for d in os.listdir(os.path.join(root,
                                                                                  "known")))
    out = E.report_runs("known", dirs, 0.97)
    same([x for x in out if x.startswith("| t |")], ["| t | 40 of 40 | 22 | 40 | ±2.3% | 23 |"])


@test
def budget_replay_keeps_the_rounds_and_the_budget():
    # ab_budget_eval.replay: every pair its -n 6 rounds first, none past
    # max-reps, the budget spent (a round adds at most one pair each)
    pools = {("a", "x", 4): [0.1, -0.08, 0.05, -0.05, 0.07, -0.1],
             ("b", "x", 4): [0.69, 0.74, 0.64, 0.70, 0.66, 0.72],
             ("c", "x", 4): [0.01, -0.01, 0.02, -0.02, 0.0, 0.01]}
    for policy in B.POLICIES:
        for budget in (18, 60, 200):
            logs = B.replay(pools, budget, policy, random.Random(1), max_reps=50)
            ns = [len(v) for v in logs.values()]
            if min(ns) < 6 or max(ns) > 50 or sum(ns) > budget + 2:
                raise AssertionError("%s, budget %d: pairs %r" % (policy, budget, ns))
    # c reaches +-3% at 6 and stops there; with room, b too
    logs = B.replay(pools, 200, "nearest", random.Random(1), max_reps=50)
    same(len(logs[("c", "x", 4)]), 6)


@test
def budget_replay_open_first_gives_the_open_pair_its_pairs():
    # an A/A-like pair (+-8.5% in turn: 41 pairs for +-3% at the sd of its
    # first 6, 36 in the end) and a 2x pair nearer its target (+-5% in turn:
    # 16, then 15), each pool drawn in order: with 36 pairs left after the 6
    # rounds, not room for both, nearest feeds the 2x pair first and the
    # open one ends short of its 36; open-first brings the open one to its
    # target and the 2x pair gets the rest
    pools = {("sendto", "gro", 4): [0.085, -0.085],
             ("gso", "gro", 4): [math.log(2.0) + 0.05, math.log(2.0) - 0.05]}
    seen = {}

    def in_turn(pool, rng):
        i = seen[id(pool)] = seen.get(id(pool), -1) + 1
        return pool[i % 2]

    same(S.pairs_needed(statistics.stdev([0.085, -0.085] * 3), 95, 3), 41)
    same(S.pairs_needed(statistics.stdev([0.05, -0.05] * 3), 95, 3), 16)
    n = {}
    for policy in B.POLICIES:
        seen.clear()
        logs = B.replay(pools, 12 + 36, policy, random.Random(4), draw=in_turn)
        n[policy] = {k[0]: len(v) for k, v in logs.items()}
    same(n, {"nearest": {"gso": 15, "sendto": 33}, "open-first": {"gso": 12, "sendto": 36}})


@test
def smoothed_draws_keep_the_pools_mean_and_sd_and_repeat_nothing():
    pool = [0.69, 0.74, 0.64, 0.70, 0.66, 0.72, 0.41]
    rng = random.Random(5)
    xs = [B.smoothed(pool, rng) for _ in range(40000)]
    close(statistics.mean(xs), statistics.mean(pool), 2e-3)
    close(statistics.stdev(xs), statistics.stdev(pool), 2e-3)
    same(len(set(xs[:6])), 6)
    same(B.smoothed([0.1, 0.1], rng), 0.1)   # no spread: the pool's value


@test
def budget_eval_moves_pools_and_calls_with_holm():
    r = {"ab": [{"tx_mode": "a", "rx_mode": "x"}, {"tx_mode": "b", "rx_mode": "x"}],
         "runs": [{"tx_mode": t, "rx_mode": "x", "status": "ok", "setting": s, "rep": i,
                   "rx_MBps": v * (1.0 if s == "B" else q)}
                  for t, q in (("a", 2.0), ("b", 1.0))
                  for i, v in enumerate((100, 103, 98, 101, 99, 102), 1)
                  for s in ("A", "B")]}
    r["runs"] = [dict(x, rx_MBps=x["rx_MBps"] * (1.0 + 0.01 * (x["rep"] % 3 - 1)))
                 if x["setting"] == "A" else x for x in r["runs"]]
    pools = B.pools_of(r, None)
    close(statistics.mean(pools[("a", "x", 4)]), math.log(2.0), 1e-3)
    moved = B.pools_of(r, 0.97)
    for k in pools:
        close(statistics.mean(moved[k]), math.log(0.97), 1e-12)
        close(statistics.stdev(moved[k]), statistics.stdev(pools[k]), 1e-12)
    v = B.calls(pools, 95.0)
    same((v[("a", "x", 4)][0], v[("b", "x", 4)][0]), (True, False))


if __name__ == "__main__":
    sys.exit(run_tests(TESTS))
