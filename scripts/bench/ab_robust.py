#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: two robust intervals for the log ratios of slice pairs,
evaluated against the paired t-interval (ab_robust_eval.py,
results/ab-robust-2026-11-26/) and used by no verdict: the 20% trimmed-mean
t-interval, and the Hodges-Lehmann estimate with the exact Wilcoxon
signed-rank interval and p-value.  No I/O, no third-party modules.
"""
import functools
import math
import statistics

TRIM = 0.2      # the share of the pairs trimmed from each end (Wilcox's default)


def trim_count(n):
    """How many of n values the trimmed mean drops at each end: floor(TRIM n)."""
    return int(math.floor(TRIM * n + 1e-9))


def trimmed_interval(logs, level):
    """The one-sample trimmed-mean t-interval of log ratios (Tukey and
    McLaughlin 1963, Yuen 1974): g = floor(TRIM n) values dropped at each
    end, h = n - 2g kept; the estimate is the mean of the kept ones, its
    standard error sqrt((n - 1) s_w^2 / (h (h - 1))) with s_w^2 the variance
    of the Winsorized sample (the g lowest set to the lowest kept, the g
    highest to the highest kept), and t with h - 1 degrees of freedom.  With
    g = 0 (n < 5) it is the paired t-interval.  Returns (mean, se, df), or
    None with fewer than 2 kept."""
    n = len(logs)
    g = trim_count(n)
    h = n - 2 * g
    if h < 2:
        return None
    xs = sorted(logs)
    kept = xs[g:n - g]
    wins = [kept[0]] * g + kept + [kept[-1]] * g
    se = math.sqrt((n - 1) * statistics.variance(wins) / (h * (h - 1.0)))
    return statistics.mean(kept), se, h - 1


@functools.lru_cache(maxsize=256)
def signed_rank_counts(n):
    """How many of the 2^n sign patterns of ranks 1..n give each sum w of the
    positive ranks (w = 0 .. n(n+1)/2): Wilcoxon's signed-rank statistic
    under the null, exactly."""
    c = [1]
    for k in range(1, n + 1):
        nxt = c + [0] * k
        for w, x in enumerate(c):
            nxt[w + k] += x
        c = nxt
    return tuple(c)


def signed_rank_cdf(w, n):
    """P(W <= w) for Wilcoxon's signed-rank statistic of n values."""
    c = signed_rank_counts(n)
    w = int(math.floor(w))
    if w < 0:
        return 0.0
    return sum(c[:w + 1]) / float(2 ** n)


def walsh(xs):
    """The Walsh averages (x_i + x_j)/2, i <= j, sorted."""
    return sorted((xs[i] + xs[j]) / 2.0 for i in range(len(xs)) for j in range(i, len(xs)))


def signed_rank_interval(logs, level):
    """The Hodges-Lehmann estimate (the median of the Walsh averages) and the
    exact Wilcoxon signed-rank interval: the (K+1)-th smallest and largest
    Walsh averages, K the largest w with P(W <= w) <= (1 - LEVEL)/2; its
    exact level, 1 - 2 P(W <= K), is at least LEVEL.  The p-value is exact:
    W+ = the Walsh averages above 0 (Tukey: the sum of the positive ranks),
    p = 2 min(P(W <= W+), P(W >= W+)).  Returns a dict (hl, lo, hi, p,
    level_exact), lo and hi None when no interval at LEVEL exists (n < 6 at
    95%)."""
    n = len(logs)
    if n < 1:
        return None
    wa = walsh(logs)
    big = len(wa)
    wplus = sum(1.0 if x > 0 else 0.5 if x == 0 else 0.0 for x in wa)
    p = 2.0 * min(signed_rank_cdf(wplus, n), signed_rank_cdf(big - math.ceil(wplus), n))
    a2 = (1.0 - level / 100.0) / 2.0
    k = -1
    while signed_rank_cdf(k + 1, n) <= a2:
        k += 1
    out = {"hl": statistics.median(wa), "p": min(1.0, p), "lo": None, "hi": None,
           "level_exact": None}
    if k >= 0:
        out.update(lo=wa[k], hi=wa[big - 1 - k],
                   level_exact=100.0 * (1.0 - 2.0 * signed_rank_cdf(k, n)))
    return out
