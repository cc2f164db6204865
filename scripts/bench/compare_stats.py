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

import functools
import math

# below this coverage an interval says nothing (1 vs 1 repetition: 0%,
# 2 vs 2: 67%); 2 vs 3 reaches 80%, 3 vs 3 90%
MIN_LEVEL = 0.80


def mw_null_counts(m, n):
    """mw_null_counts_t's counts, as a list of the caller's own"""
    return list(mw_null_counts_t(m, n))


@functools.lru_cache(maxsize=None)
def mw_null_counts_t(m, n):
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
    return tuple(f[m][n])       # (cached: so that no caller can change it)


# above this m * n the null distribution of U is taken as normal (with the
# continuity correction) rather than counted: the exact table takes memory
# and time of the order of (m n)^2 (a directory of three runs a side, 450
# repetitions each, exhausted 24 GiB), and at these sizes the two agree to
# the third decimal of a coverage or a p-value (compare_stats_test.py)
EXACT_MAX_MN = 2500


def mw_normal_cdf(m, n, u):
    """P(U <= u) under H0 by the normal approximation with the continuity
    correction (no ties)."""
    mu, sd = m * n / 2.0, math.sqrt(m * n * (m + n + 1) / 12.0)
    return 0.5 * (1.0 + math.erf((u + 0.5 - mu) / sd / math.sqrt(2.0)))


@functools.lru_cache(maxsize=None)
def mw_rank_k(m, n, level):
    """(k, achieved): the rank k of the interval's ends among the sorted
    pairwise differences and the interval's coverage (exact up to
    EXACT_MAX_MN, else mw_normal_cdf's).  k is the largest with coverage >=
    level; when even k = 1 (the widest interval) falls short of level, k = 1
    and its lower coverage is returned."""
    if m * n > EXACT_MAX_MN:
        def cov(k):
            return 1.0 - 2.0 * mw_normal_cdf(m, n, k - 1)
        lo, hi = 1, m * n // 2 + 1
        if cov(1) < level - 1e-12:
            return 1, cov(1)
        while lo < hi:                  # coverage falls as k grows
            mid = (lo + hi + 1) // 2
            if cov(mid) >= level - 1e-12:
                lo = mid
            else:
                hi = mid - 1
        return lo, cov(lo)
    counts = mw_null_counts_t(m, n)
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


def mw_cdf(m, n, u):
    """P(U <= u) under H0 (exact up to EXACT_MAX_MN, else mw_normal_cdf),
    U the Mann-Whitney statistic of sizes m, n."""
    if u < 0:
        return 0.0
    if m * n > EXACT_MAX_MN:
        return mw_normal_cdf(m, n, u)
    counts = mw_null_counts_t(m, n)
    return sum(counts[:u + 1]) / float(sum(counts))


def min_pvalue(m, n):
    """The smallest two-sided p-value m against n repetitions can give
    (every difference on one side): 2 / C(m+n, m)."""
    return min(1.0, 2.0 / math.comb(m + n, m))


def reps_for_pvalue(alpha, limit=50):
    """The fewest repetitions a side (equal sides) whose smallest p-value is
    at most alpha, or None within limit."""
    for n in range(1, limit + 1):
        if min_pvalue(n, n) <= alpha:
            return n
    return None


def bounds(threshold, scale):
    """The change threshold on the scale of the pairwise differences:
    (below, above) = (ln(1-t), ln(1+t)) for ratios, (-t, +t) raw."""
    if scale == "ratio":
        return math.log1p(-threshold), math.log1p(threshold)
    return -threshold, threshold


def side_pvalues(old, new, threshold, better, scale):
    """Exact two-sided p-values (p_regression, p_improvement) of the shift
    lying beyond the threshold on the bad / good side: the interval at
    level 1 - alpha lies strictly beyond it (the rule of verdict()) exactly
    when the p-value is at most alpha.  With u the pairwise differences
    that fail to be beyond the threshold, p = 2 * P(U <= u)."""
    if scale == "ratio":
        old, new = [math.log(v) for v in old], [math.log(v) for v in new]
    m, n = len(old), len(new)
    d = [y - x for x in old for y in new]
    below, above = bounds(threshold, scale)
    u_down = sum(1 for v in d if v >= below)     # not strictly below -t
    u_up = sum(1 for v in d if v <= above)       # not strictly above +t
    p_down = min(1.0, 2 * mw_cdf(m, n, u_down))
    p_up = min(1.0, 2 * mw_cdf(m, n, u_up))
    if better == "higher":
        return p_down, p_up
    if better == "lower":
        return p_up, p_down
    raise ValueError("better must be higher or lower")


def testable(min_ps, alpha):
    """Tarone's rule: the indices of the cells that could reach a verdict at
    the family-wise level, the smallest K for which at most K cells have a
    smallest possible p-value of alpha / K or less.  Depends only on the
    repetition counts, not on the values, so Holm's correction over these
    cells keeps the family-wise error of the whole table within alpha
    (the others never give a verdict)."""
    for k in range(1, len(min_ps) + 1):
        sel = [i for i, p in enumerate(min_ps) if p <= alpha / k]
        if len(sel) <= k:
            return sel
    return []


def holm_levels(pvals, alpha):
    """Holm's step-down over pvals: per cell (rejected, alpha it was tested
    at).  Sorted ascending, the j-th (from 0) is rejected when it and every
    smaller one are at most alpha / (K - j); the cells after the first that
    is not are tested at that cell's alpha and not rejected."""
    k = len(pvals)
    order = sorted(range(k), key=lambda i: pvals[i])
    out = [None] * k
    stopped = None
    for j, i in enumerate(order):
        a = alpha / (k - j)
        if stopped is None and pvals[i] <= a:
            out[i] = (True, a)
            continue
        if stopped is None:
            stopped = a
        out[i] = (False, stopped)
    return out


def family_verdicts(cells, level):
    """The default of ab_compare.py: verdicts over a whole table with the
    chance of any false verdict at most 1 - level.  cells: a list of
    (old, new, threshold, better, scale).  Per cell a dict: verdict, alpha
    (the per-cell alpha Holm's step tested it at; None when its repetitions
    cannot give a verdict at all, Tarone's rule), p (min of the two side
    p-values, None when not tested)."""
    alpha = 1.0 - level
    fam = testable([min_pvalue(len(c[0]), len(c[1])) for c in cells], alpha)
    out = [{"verdict": "within noise", "alpha": None, "p": None} for _ in cells]
    sides = []
    for i in fam:
        pr, pi = side_pvalues(*cells[i])
        sides.append((pr, pi))
        out[i]["p"] = min(pr, pi)
    for i, (pr, pi), (rej, a) in zip(fam, sides, holm_levels([out[i]["p"] for i in fam],
                                                               alpha)):
        out[i]["alpha"] = a
        if rej:
            out[i]["verdict"] = "regression" if pr <= pi else "improvement"
    return out


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


# ---- the headline family of in-run results: Welch's t on the log of the runs' values ----
def _t_cdf(t, df):
    import ab_stats
    return ab_stats.t_cdf(t, df)


def _t_quantile(p, df):
    import ab_stats
    return ab_stats.t_quantile(p, df)


def welch_log(old, new, between=None):
    """(d, se, df): the mean of ln(new) less the mean of ln(old), its
    standard error and Welch's degrees of freedom; None with fewer than 2
    values a side or a value <= 0.  BETWEEN (v, df), when given, is a
    variance the difference has beyond the values' own spread (the runs'
    between-run term, compare_levels.between_terms) with its degrees of
    freedom: added to se^2, and to the Welch-Satterthwaite df.

    OLD and NEW may also be lists of runs (lists of values): a side's mean
    is then the mean of its runs' means, each run weighing the same whatever
    its count (its variance: the runs' own se^2 over runs^2), which is what
    BETWEEN's tau^2 (1/runs OLD + 1/runs NEW) assumes; one run a side is
    the plain case."""
    ro, rn = as_runs(old), as_runs(new)
    if sum(map(len, ro)) < 2 or sum(map(len, rn)) < 2 or min(map(len, ro + rn)) < 1:
        return None
    if min(min(r) for r in ro + rn) <= 0:
        return None
    parts, dsum = [], 0.0
    for runs, sign in ((ro, -1.0), (rn, 1.0)):
        # a run of one value has no spread of its own: its side's pooled one
        ls = [[math.log(x) for x in r] for r in runs]
        means = [sum(r) / len(r) for r in ls]
        dsum += sign * sum(means) / len(means)
        pooled = [x - m for r, m in zip(ls, means) for x in r]
        dfp = sum(len(r) - 1 for r in ls)
        sp2 = sum(e * e for e in pooled) / dfp if dfp > 0 else 0.0
        for r, m in zip(ls, means):
            v = (sum((x - m) ** 2 for x in r) / (len(r) - 1) if len(r) > 1 else sp2)
            parts.append((v / len(r) / len(runs) ** 2, max(1, len(r) - 1)))
    vb, dfb = between if between and between[0] > 0 else (0.0, 1.0)
    if vb > 0:
        parts.append((vb, dfb))
    var = sum(v for v, _ in parts)
    n = sum(map(len, ro)) + sum(map(len, rn))
    if var == 0:
        return dsum, 0.0, float(n - 2)
    df = var ** 2 / sum(v * v / d for v, d in parts if v > 0)
    return dsum, math.sqrt(var), df


def as_runs(xs):
    """XS as a list of runs: itself when its items are lists, else [XS]."""
    return [list(r) for r in xs] if xs and isinstance(xs[0], (list, tuple)) else [list(xs)]


def welch_side_pvalues(old, new, threshold, better, between=None):
    """The two side p-values of the threshold rule on the log scale: p of
    "worse by more than threshold" and of "better by more than threshold";
    p <= alpha exactly when the (1 - alpha) t-interval of the ratio lies
    strictly beyond the threshold on that side (BETWEEN: welch_log's)."""
    w = welch_log(old, new, between)
    if w is None:
        return 1.0, 1.0
    d, se, df = w
    down, up = math.log(1.0 - threshold), math.log(1.0 + threshold)
    if se == 0:
        return (0.0 if d < down else 1.0), (0.0 if d > up else 1.0)
    p_down = 2.0 * (1.0 - _t_cdf((down - d) / se, df)) if d < down else 1.0
    p_up = 2.0 * (1.0 - _t_cdf((d - up) / se, df)) if d > up else 1.0
    p_down, p_up = min(1.0, p_down), min(1.0, p_up)
    return (p_down, p_up) if better == "higher" else (p_up, p_down)


def welch_change(old, new, level, between=None):
    """est, lo, hi (relative changes) of NEW against OLD at coverage level
    (BETWEEN: welch_log's)."""
    d, se, df = welch_log(old, new, between)
    h = _t_quantile(1.0 - (1.0 - level) / 2.0, df) * se if se > 0 else 0.0
    return {"est": math.exp(d) - 1.0, "lo": math.exp(d - h) - 1.0, "hi": math.exp(d + h) - 1.0,
            "level": level}


def headline_verdicts(cells, level):
    """Holm at alpha = 1 - level over cells (old, new, threshold, better
    [, between]) of per-run values, with Welch's t on their logs (cells with
    fewer than 2 values a side are left out: alpha None; between: welch_log's)."""
    alpha = 1.0 - level
    idx = [i for i, c in enumerate(cells) if welch_log(c[0], c[1]) is not None]
    out = [{"verdict": "within noise", "alpha": None, "p": None} for _ in cells]
    sides = {i: welch_side_pvalues(*cells[i]) for i in idx}
    for i in idx:
        out[i]["p"] = min(sides[i])
    for i, (rej, a) in zip(idx, holm_levels([out[i]["p"] for i in idx], alpha)):
        out[i]["alpha"] = a
        if rej:
            pr, pi = sides[i]
            out[i]["verdict"] = "regression" if pr <= pi else "improvement"
    return out
