# SPDX-License-Identifier: GPL-2.0
"""Statistics of scripts/bench/ab_compare.py: the Hodges-Lehmann shift between two
samples with its exact Mann-Whitney (distribution-free) confidence interval,
and the verdict rule.  Pure functions, no I/O; docs/compare.md explains the
method and its assumptions.

Model: NEW = OLD shifted by delta (on the log scale for positive metrics, so
delta is a ratio; on the raw scale for loss in percentage points), the
repetitions of each side independent draws from one continuous distribution.
Under that model the interval [D(k), D(mn+1-k)] of the m*n sorted pairwise
differences new_j - old_i covers delta with probability exactly
1 - 2 * P(U <= k - 1), U the Mann-Whitney statistic under H0.  With 3
repetitions a side only 20 orderings exist, so the highest level is 90%
(k = 1: the range of all 9 differences); the level actually used is reported.
"""

import math

# below this coverage an interval says nothing (1 vs 1 repetition: 0%,
# 2 vs 2: 67%); 2 vs 3 reaches 80%, 3 vs 3 90%
MIN_LEVEL = 0.80


def mw_null_counts(m, n):
    """Number of the C(m+n, m) equally likely orderings giving each value of
    the Mann-Whitney U (0..m*n) when both samples come from one continuous
    distribution.  Recurrence on the largest observation: it belongs to the
    second sample (adding m to U) or to the first."""
    # f[i][j] = counts for sizes i, j, as a list indexed by U
    f = [[None] * (n + 1) for _ in range(m + 1)]
    for i in range(m + 1):
        f[i][0] = [1]
    for j in range(n + 1):
        f[0][j] = [1]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            a = f[i][j - 1]      # largest in sample 2: U grows by i
            b = f[i - 1][j]      # largest in sample 1: U unchanged
            c = [0] * (i * j + 1)
            for u, v in enumerate(a):
                c[u + i] += v
            for u, v in enumerate(b):
                c[u] += v
            f[i][j] = c
    return f[m][n]


def mw_rank_k(m, n, level):
    """(k, achieved): the rank k of the interval's ends among the sorted
    pairwise differences and the interval's exact coverage.  k is the
    largest with coverage >= level; when even k = 1 (the widest interval)
    falls short of level, k = 1 and its lower coverage is returned."""
    counts = mw_null_counts(m, n)
    total = sum(counts)
    best = (1, 1.0 - 2.0 * counts[0] / total)
    cum = 0
    for k in range(1, m * n // 2 + 2):
        cum += counts[k - 1]            # P(U <= k-1) * total
        cov = 1.0 - 2.0 * cum / total
        if cov >= level - 1e-12:
            best = (k, cov)
        else:
            break
    return best


def reps_for_level(level, limit=50):
    """The fewest repetitions a side (equal sides) whose widest interval
    reaches level, or None within limit."""
    for n in range(1, limit + 1):
        if 1.0 - 2.0 / math.comb(2 * n, n) >= level - 1e-12:
            return n
    return None


def family_level(level, cells):
    """Bonferroni: the per-cell coverage that keeps the chance of any
    interval missing its true value, over cells intervals, within 1 - level."""
    return 1.0 - (1.0 - level) / max(1, cells)


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of nothing")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def shift_interval(old, new, level):
    """Hodges-Lehmann estimate of new - old and its Mann-Whitney interval:
    dict est, lo, hi, level (achieved), m, n."""
    m, n = len(old), len(new)
    if m == 0 or n == 0:
        raise ValueError("a sample is empty")
    d = sorted(y - x for x in old for y in new)
    k, cov = mw_rank_k(m, n, level)
    return {"est": median(d), "lo": d[k - 1], "hi": d[m * n - k],
            "level": cov, "m": m, "n": n}


def change(old, new, level, scale):
    """The change of NEW against OLD with its interval.  scale "ratio": the
    values must be > 0; est/lo/hi are relative changes (0.05 = +5%), from
    the shift of the logs.  scale "abs": differences in the metric's unit."""
    if scale == "ratio":
        if min(old) <= 0 or min(new) <= 0:
            raise ValueError("ratio scale needs positive values")
        s = shift_interval([math.log(v) for v in old], [math.log(v) for v in new], level)
        for key in ("est", "lo", "hi"):
            s[key] = math.expm1(s[key])
        return s
    if scale == "abs":
        return shift_interval(old, new, level)
    raise ValueError("unknown scale %r" % scale)


def verdict(lo, hi, threshold, better, level=1.0, min_level=MIN_LEVEL):
    """"regression", "improvement" or "within noise".  A verdict needs the
    whole interval strictly beyond the threshold on one side: for a metric
    where higher is better, regression when hi < -threshold, improvement
    when lo > +threshold (lower is better: the mirror image).  An interval
    whose coverage is below min_level gives no verdict."""
    if level < min_level:
        return "within noise"
    if better == "higher":
        worse, gain = hi < -threshold, lo > threshold
    elif better == "lower":
        worse, gain = lo > threshold, hi < -threshold
    else:
        raise ValueError("better must be higher or lower")
    if worse:
        return "regression"
    if gain:
        return "improvement"
    return "within noise"


def combine(verdicts):
    """A configuration's verdict from its metrics': any regression wins,
    then any improvement."""
    if "regression" in verdicts:
        return "regression"
    if "improvement" in verdicts:
        return "improvement"
    return "within noise"
