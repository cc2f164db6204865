#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bench/compare_stats.py on known data, and of the verdict
rule on noise of the size seen in a committed results directory (A/A data
drawn from each configuration's own spread).  Prints one KTAP line per test
("ok N name" / "not ok N name # reason"); exit 1 when any failed.
compare_test.sh runs it.

  compare_stats_test.py [RESULTS_DIR]   (default: the committed default run)
"""

import itertools
import json
import math
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "scripts", "bench"))
import compare_stats as cs  # noqa: E402

DEFAULT_DIR = os.path.join(TOP, "results", "20261122T224220Z-vm-default")
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def check(cond, why):
    if not cond:
        raise AssertionError(why)


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


# ---- the Mann-Whitney null distribution ------------------------------------------------
def brute_counts(m, n):
    """U for every choice of which m of the m+n ranks are sample 1."""
    counts = [0] * (m * n + 1)
    for first in itertools.combinations(range(m + n), m):
        s1 = set(first)
        # U = pairs (x in 1, y in 2) with y above x
        u = sum(1 for x in s1 for y in range(m + n) if y not in s1 and y > x)
        counts[u] += 1
    return counts


@test
def null_counts_3x3_known():
    c = cs.mw_null_counts(3, 3)
    check(c == [1, 1, 2, 3, 3, 3, 3, 2, 1, 1], "3x3 counts %s" % c)


@test
def null_counts_match_enumeration():
    for m, n in ((1, 1), (2, 3), (3, 2), (4, 4), (3, 6), (5, 5)):
        c, b = cs.mw_null_counts(m, n), brute_counts(m, n)
        check(c == b, "%dx%d: %s != %s" % (m, n, c, b))
        check(sum(c) == math.comb(m + n, m), "%dx%d total" % (m, n))


@test
def rank_k_against_tables():
    # published two-sided 5% critical values of U: n1=n2=5: 2; 8: 13; 10: 23
    for n, crit in ((5, 2), (8, 13), (10, 23)):
        k, cov = cs.mw_rank_k(n, n, 0.95)
        check(k == crit + 1, "n=%d: k %d, table %d" % (n, k, crit + 1))
        check(cov >= 0.95, "n=%d: coverage %.4f" % (n, cov))
    k, cov = cs.mw_rank_k(5, 5, 0.95)
    check(close(cov, 1 - 8 / 252), "5x5 coverage %.6f, want 1-8/252" % cov)


@test
def normal_beyond_exact_max():
    """Above EXACT_MAX_MN the null of U is normal: at 50 x 50 (the largest
    exact size) the two agree within 1% of the rank (at 99.9% the normal
    interval is a little wider: k 773 against 778) and 0.001 of coverage at
    95% and 99.9%, and within 0.001 of P(U <= u) along the lower tail; 450 x
    450 (three runs of 150 repetitions a side, whose exact table exhausted
    the machine's memory) takes one normal k, with its coverage."""
    for level in (0.95, 0.999):
        ke, ce = cs.mw_rank_k(50, 50, level)
        save = cs.EXACT_MAX_MN
        cs.EXACT_MAX_MN = 0
        cs.mw_rank_k.cache_clear()
        try:
            ka, ca = cs.mw_rank_k(50, 50, level)
            cdf = [cs.mw_cdf(50, 50, u) for u in range(700, 1300, 50)]
        finally:
            cs.EXACT_MAX_MN = save
            cs.mw_rank_k.cache_clear()
        check(ke - ke // 100 <= ka <= ke + 1 and abs(ce - ca) < 1e-3, "%g: exact %s, normal %s"
              % (level, (ke, ce), (ka, ca)))
    exact = [cs.mw_cdf(50, 50, u) for u in range(700, 1300, 50)]
    check(max(abs(a - b) for a, b in zip(cdf, exact)) < 1e-3, "cdf %s vs %s" % (cdf, exact))
    k, cov = cs.mw_rank_k(450, 450, 0.95)
    check(cov >= 0.95 and 1 - 2 * cs.mw_normal_cdf(450, 450, k) < 0.95, "450x450: %s" % ((k, cov),))


@test
def rank_k_short_of_level():
    # 3 vs 3: only 20 orderings, the widest interval is a 90% one
    check(cs.mw_rank_k(3, 3, 0.95) == (1, 0.9), "3x3 -> %s" % (cs.mw_rank_k(3, 3, 0.95),))
    check(cs.mw_rank_k(3, 3, 0.80) == (2, 0.8), "3x3 at 80%% -> %s"
          % (cs.mw_rank_k(3, 3, 0.80),))
    check(cs.mw_rank_k(1, 1, 0.95) == (1, 0.0), "1x1 -> %s" % (cs.mw_rank_k(1, 1, 0.95),))


@test
def reps_and_family_level():
    check(cs.reps_for_level(0.95) == 4, "95%% needs %s" % cs.reps_for_level(0.95))
    lv = cs.family_level(0.95, 78)
    check(close(lv, 1 - 0.05 / 78), "family level %.6f" % lv)
    check(cs.reps_for_level(lv) == 7, "26x3 family needs %s" % cs.reps_for_level(lv))


# ---- Hodges-Lehmann and its interval ------------------------------------------------------
@test
def hodges_lehmann_known():
    s = cs.shift_interval([1, 2, 3], [2, 3, 4], 0.95)
    # differences -1 0 0 1 1 1 2 2 3: median 1, widest interval [-1, 3]
    check((s["est"], s["lo"], s["hi"], s["level"]) == (1, -1, 3, 0.9), "got %s" % s)
    s = cs.shift_interval([10, 11, 12, 13, 14], [20, 21, 22, 23, 24], 0.95)
    # differences 6..14; k=3: the 3rd smallest (7) and 3rd largest (13)
    check((s["est"], s["lo"], s["hi"]) == (10, 7, 13), "5x5 got %s" % s)


@test
def ratio_scale_exact_scaling():
    old = [92.2, 74.7, 99.2]
    c = cs.change(old, [0.8 * v for v in old], 0.95, "ratio")
    check(close(c["est"], -0.2), "est %.6f" % c["est"])
    # interval: 0.8 x the widest ratio spread of the old values
    check(close(c["lo"], 0.8 * 74.7 / 99.2 - 1) and close(c["hi"], 0.8 * 99.2 / 74.7 - 1),
          "interval %.4f %.4f" % (c["lo"], c["hi"]))


@test
def ratio_scale_refuses_nonpositive():
    try:
        cs.change([1.0, 0.0], [1.0, 2.0], 0.95, "ratio")
    except ValueError:
        return
    raise AssertionError("no ValueError for a zero value")


@test
def verdict_rule_strict():
    v = cs.verdict
    check(v(-0.30, -0.051, 0.05, "higher", 0.9) == "regression", "throughput down")
    check(v(-0.30, -0.05, 0.05, "higher", 0.9) == "within noise", "touching is not beyond")
    check(v(-0.30, 0.01, 0.05, "higher", 0.9) == "within noise", "straddling")
    check(v(0.06, 0.30, 0.05, "higher", 0.9) == "improvement", "throughput up")
    check(v(0.06, 0.30, 0.05, "lower", 0.9) == "regression", "cost up")
    check(v(-0.3, -0.06, 0.05, "lower", 0.9) == "improvement", "cost down")
    check(v(-0.3, -0.06, 0.05, "lower", 0.67) == "within noise", "too few reps")
    check(cs.combine(["within noise", "improvement", "regression"]) == "regression", "combine")
    check(cs.combine(["within noise", "improvement"]) == "improvement", "combine 2")


@test
def coverage_by_simulation():
    # the interval covers the true shift at its stated level (normal and
    # heavy-tailed data; 3x3 at 90%, 5x5 at 96.8%)
    rng = random.Random(15)
    for m, dist in ((3, "normal"), (5, "normal"), (3, "cauchy"), (5, "cauchy")):
        hit, trials = 0, 3000
        for _ in range(trials):
            draw = (lambda: rng.gauss(0, 1)) if dist == "normal" else \
                (lambda: math.tan(math.pi * (rng.random() - 0.5)))
            s = cs.shift_interval([draw() for _ in range(m)], [draw() + 0.7 for _ in range(m)],
                                  0.95)
            hit += s["lo"] <= 0.7 <= s["hi"]
        want = cs.mw_rank_k(m, m, 0.95)[1]
        se = math.sqrt(want * (1 - want) / trials)
        check(abs(hit / trials - want) < 4 * se + 0.002,
              "%dx%d %s: covered %.3f, stated %.3f" % (m, m, dist, hit / trials, want))


# ---- noise of the size seen in a committed run ---------------------------------------------
METRICS = {"rx_MBps": ("higher", "ratio", 0.05), "cost_per_GiB": ("lower", "ratio", 0.05),
           "proc_cpu_s_per_GiB": ("lower", "ratio", 0.05), "loss_pct": ("lower", "abs", 2.0)}


OLD_DEFAULT = ("rx_MBps", "cost_per_GiB", "loss_pct")            # until 2026-11-23
NEW_DEFAULT = ("rx_MBps", "proc_cpu_s_per_GiB", "loss_pct")


def committed_noise(path, metrics=OLD_DEFAULT):
    """(configuration, metric) -> (scale, centre, spread) from the run's own
    repetitions: for ratios the mean and sd of the logs."""
    with open(os.path.join(path, "results.json")) as f:
        runs = [r for r in json.load(f)["runs"] if r.get("status", "ok") == "ok"]
    groups = {}
    for r in runs:
        groups.setdefault((r["tx_mode"], r["rx_mode"], r["setting"]), []).append(r)
    out = {}
    for k, rs in groups.items():
        for m in metrics:
            scale = METRICS[m][1]
            xs = [r[m] for r in rs if isinstance(r.get(m), (int, float))]
            if len(xs) < 2:
                continue
            if scale == "ratio":
                xs = [math.log(x) for x in xs]
            out[(k, m)] = (scale, statistics.mean(xs), statistics.stdev(xs))
    return out


def draw_table(noise, rng, reps, shift=None):
    """Both sides of every cell drawn from the cell's committed distribution;
    shift = {(configuration, metric): factor} multiplies NEW there."""
    cells = []
    for (k, m), (scale, mu, sd) in noise.items():
        better, _, thr = METRICS[m]
        if scale == "ratio":
            o = [math.exp(rng.gauss(mu, sd)) for _ in range(reps)]
            f = (shift or {}).get((k, m), 1.0)
            n = [f * math.exp(rng.gauss(mu, sd)) for _ in range(reps)]
        else:
            o = [max(0.0, rng.gauss(mu, sd)) for _ in range(reps)]
            n = [max(0.0, rng.gauss(mu, sd)) for _ in range(reps)]
        cells.append(((k, m), (o, n, thr, better, scale)))
    return cells


def aa_trial(noise, rng, reps, want, need):
    """One A/A comparison of the whole table, each interval on its own
    (--per-interval); the cells called a regression."""
    bad = []
    for (k, m), (o, n, thr, better, scale) in draw_table(noise, rng, reps):
        c = cs.change(o, n, want, scale)
        if cs.verdict(c["lo"], c["hi"], thr, better, c["level"], need) == "regression":
            bad.append((k, m))
    return bad


@test
def aa_committed_noise_per_interval():
    # 3 reps a side as committed: each interval errs at most (1-0.9)/2 = 5%
    noise = committed_noise(RESULTS_DIR)
    rng = random.Random(1517)
    trials, bad = 300, 0
    for _ in range(trials):
        bad += len(aa_trial(noise, rng, 3, 0.95, cs.MIN_LEVEL))
    rate = bad / (trials * len(noise))
    print("# A/A, committed noise, 3 reps: %.2f%% of %d intervals called a regression"
          " (bound 5%%); %.2f per table of %d" % (100 * rate, trials * len(noise),
                                                  bad / trials, len(noise)))
    check(rate <= 0.05, "per-interval false regression rate %.3f over the 5%% bound" % rate)


@test
def aa_committed_noise_default():
    # the default (Holm over the table, Tarone): at 3 reps no verdict is
    # possible; at 9 (what the interval-driven make run takes) at most 5% of
    # A/A tables have any false regression, and a 20% throughput drop of a
    # configuration as steady as sendmmsg -> plain is found
    noise = committed_noise(RESULTS_DIR, NEW_DEFAULT)
    rng = random.Random(1519)
    for reps, trials in ((3, 100), (9, 200)):
        tables = 0
        for _ in range(trials):
            t = draw_table(noise, rng, reps)
            v = cs.family_verdicts([c for _, c in t], 0.95)
            tables += any(x["verdict"] == "regression" for x in v)
        print("# A/A, committed noise, %d reps, default (Holm): %d of %d tables with a false"
              " regression" % (reps, tables, trials))
        se = math.sqrt(0.05 * 0.95 / trials)
        check(tables / trials <= 0.05 + 2 * se, "%d reps: family-wise rate %.3f"
              % (reps, tables / trials))
        if reps == 3:
            check(tables == 0, "3 reps cannot give a family-wise verdict")
    key = (("sendmmsg", "plain", "A"), "rx_MBps")
    found, trials = 0, 100
    for _ in range(trials):
        t = draw_table(noise, rng, 9, {key: 0.8})
        v = cs.family_verdicts([c for _, c in t], 0.95)
        found += any(x["verdict"] == "regression" and k == key for (k, _), x in zip(t, v))
    print("# 20%% drop of sendmmsg -> plain A, 9 reps, default: found in %d of %d" % (found,
                                                                                  trials))
    check(found >= 0.9 * trials, "found in %d of %d" % (found, trials))


@test
def side_pvalues_match_intervals():
    # p <= alpha exactly when the (1 - alpha) interval lies beyond the
    # threshold on that side (random data, sizes and levels)
    rng = random.Random(1520)
    for _ in range(400):
        m, n = rng.randint(3, 9), rng.randint(3, 9)
        o = [math.exp(rng.gauss(0, 0.1)) for _ in range(m)]
        nn = [math.exp(rng.gauss(rng.choice((-0.3, 0, 0.3)), 0.1)) for _ in range(n)]
        alpha = rng.choice((0.2, 0.05, 0.01, 0.001))
        for better in ("higher", "lower"):
            pr, pi = cs.side_pvalues(o, nn, 0.05, better, "ratio")
            c = cs.change(o, nn, 1 - alpha, "ratio")
            v = cs.verdict(c["lo"], c["hi"], 0.05, better, c["level"], 1 - alpha)
            want = "regression" if pr <= alpha else "improvement" if pi <= alpha else \
                "within noise"
            check(v == want, "%dx%d alpha %g %s: interval %s, p %g/%g" % (m, n, alpha, better,
                                                                       v, pr, pi))


@test
def holm_and_tarone_known():
    # Holm: 0.01 <= 0.05/4, 0.02 > 0.05/3 stops: one rejection
    r = cs.holm_levels([0.04, 0.01, 0.02, 0.5], 0.05)
    check([x[0] for x in r] == [False, True, False, False], "holm %s" % r)
    check(close(r[1][1], 0.0125) and close(r[2][1], 0.05 / 3) and close(r[0][1], 0.05 / 3),
          "holm alphas %s" % r)
    r = cs.holm_levels([0.01, 0.02, 0.04], 0.05)
    check(all(x[0] for x in r), "all three rejected %s" % r)
    # Tarone: 3x3 (min p 0.1) never testable; 5x5 (0.0079) with 6 or fewer
    check(cs.testable([cs.min_pvalue(3, 3)] * 4, 0.05) == [], "3x3 testable")
    check(cs.testable([cs.min_pvalue(5, 5)] * 6, 0.05) == list(range(6)), "5x5 x6")
    check(cs.testable([cs.min_pvalue(5, 5)] * 7, 0.05) == [], "5x5 x7")
    mix = [cs.min_pvalue(3, 3)] * 20 + [cs.min_pvalue(9, 9)] * 10
    check(cs.testable(mix, 0.05) == list(range(20, 30)), "mixed: the 9x9 cells")
    check(cs.reps_for_pvalue(0.05 / 78) == 7, "78 cells: %s" % cs.reps_for_pvalue(0.05 / 78))


@test
def aa_committed_noise_family():
    # Bonferroni intervals (the --family of 2026-11-23) with 7 reps a side:
    # the whole table errs in at most 5% of runs
    noise = committed_noise(RESULTS_DIR)
    rng = random.Random(1518)
    lv = cs.family_level(0.95, len(noise))
    trials, tables = 300, 0
    for _ in range(trials):
        tables += bool(aa_trial(noise, rng, 7, lv, lv))
    print("# A/A, committed noise, 7 reps, --family: %d of %d tables with a false regression"
          % (tables, trials))
    se = math.sqrt(0.05 * 0.95 / trials)
    check(tables / trials <= 0.05 + 2 * se, "family-wise rate %.3f" % (tables / trials))


def main():
    global RESULTS_DIR
    RESULTS_DIR = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_DIR
    failed = 0
    for i, fn in enumerate(TESTS, 1):
        try:
            fn()
            print("ok %d %s" % (i, fn.__name__))
        except AssertionError as e:
            failed += 1
            print("not ok %d %s # %s" % (i, fn.__name__, e))
    return 1 if failed else 0


RESULTS_DIR = DEFAULT_DIR
if __name__ == "__main__":
    sys.exit(main())
