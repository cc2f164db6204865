#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the statistics of an A/B run (no I/O, no third-party modules).

The interval: a paired t-interval on the log ratios ln(A_i / B_i) of the
pairs of slices (A and B of one repetition, run back to back), turned back
into a ratio: exp(mean +- t * sd / sqrt(n)).  Its assumptions: the pairs are
independent of each other, the log ratios come from one distribution
(a stationary machine; the A B / B A order cancels a linear drift inside a
pair), and that distribution is close to normal (a ratio of two positive
rates is close to log-normal).  Why not a bootstrap or Hodges-Lehmann: with
the 3 to 30 pairs a run takes, a bootstrap percentile interval is too narrow
(it undercovers below ~20 pairs), and a Wilcoxon interval at 95% needs at
least 6 pairs to exist at all, and its exact test at least 10 to pass Holm
over 13 pairs; a 20% trimmed-mean t is liberal under Holm at these sizes
(ab_robust.py, ab_robust_eval.py, results/ab-robust-2026-11-26/README.md).

Many pairs at once: a run compares 13 tx/rx pairs by default, and at 95% one
A/A interval in 20 excludes 1.0 by chance.  So a difference is called real
only when the paired t-test's p-value passes Holm's step-down correction
over all pairs of the run at alpha = 1 - LEVEL (the chance that an A/A run
calls any pair different stays below alpha); an interval that excludes 1.0
without passing it is reported as such, not as a difference.

Outliers are named, never left out of the verdict: a pair whose log ratio
has a modified z-score 0.6745 * |x - median| / MAD above 3.5 (Iglewicz and
Hoaglin; at least 5 pairs, MAD > 0, at most a fifth of them, the most
extreme first) is an outlier.  The interval, its p-value and so the verdict
are computed on every pair; the interval without the outliers is shown
beside it ("robust"), for reading only.  Leaving out, after the fact, the
pairs that disagree with the others makes the sd smaller than the t-quantile
of n - 1 degrees of freedom assumes: on simulated A/A pairs of 6 a 5% test
called 8.9% of normal ones and 8.1% of heavy-tailed ones (t, 3 df) real
that way, against 5.1% and 4.2% on all pairs (ab_aa_sim.py, committed in
results/ab-2026-11-25c/aa_sim.md; ab_stats_test.py "aa false calls ...").
The one false call of results/ab-2026-11-25b's A/A campaign was such a case.

A pair in which either slice had steal time above STEAL_MAX of its CPU time
is "disturbed": left out of the interval and named; that rule reads the CPU
accounting, not the ratio, so it is decided before the result is seen.

    ab_stats.py interval RATIO...   the interval of some paired ratios A/B
"""
import argparse
import functools
import math
import statistics
import sys

# a slice with more steal than this share of its CPU time is disturbed.  10%:
# on this project's VMs a 1 s slice's steal has a median near 2% and a third
# of slices are above 5% (results/20261123T155029Z-vm-default, 234 slices:
# 127 above 2%, 76 above 5%, 37 above 10%), so a 2% rule left 2 usable pairs
# of a 9x effect; both slices of a pair share a milder disturbance, which the
# paired ratio cancels
STEAL_MAX = 0.10
OUTLIER_Z = 3.5           # modified z-score above which a log ratio is an outlier
OUTLIER_MIN_N = 5         # the outlier rule needs this many pairs
OUTLIER_MAX_SHARE = 0.2   # and names at most this share of them
POWER = 0.8               # the power of the smallest detectable difference
GIB = float(1 << 30)


# ---- Student's t, from the regularized incomplete beta function -----------------
def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    """P(T <= t) for Student's t with df degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=1024)
def t_quantile(p, df):
    """The t with P(T <= t) = p (0 < p < 1), by bisection."""
    if not 0.0 < p < 1.0 or df < 1:
        raise ValueError("t_quantile: p in (0, 1), df >= 1")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


# ---- small pieces --------------------------------------------------------------------
def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def paired_ratios(a, b):
    """A/B of the repetitions both sides have: a and b map rep -> value."""
    return {r: a[r] / b[r] for r in sorted(set(a) & set(b))
            if a[r] is not None and b[r] is not None and a[r] > 0 and b[r] > 0}


def per_gib(cost, nbytes):
    """A cost (e.g. CPU-seconds) per 2^30 bytes; None without bytes."""
    return cost / (nbytes / GIB) if nbytes else None


def per_datagram_us(cost_s, datagrams):
    """CPU-seconds -> microseconds per datagram; None without datagrams."""
    return 1e6 * cost_s / datagrams if datagrams else None


def steal_share(stat0, stat1):
    """Steal time's share of all CPU time between two /proc/stat 'cpu' lines."""
    a = [int(x) for x in stat0.split()[1:9]]
    b = [int(x) for x in stat1.split()[1:9]]
    d = [y - x for x, y in zip(a, b)]
    tot = sum(d)
    return d[7] / float(tot) if tot > 0 else 0.0


def outliers(xs):
    """Indexes of the outliers of xs by the stated rule (most extreme first)."""
    n = len(xs)
    if n < OUTLIER_MIN_N:
        return []
    med = statistics.median(xs)
    mad = statistics.median([abs(x - med) for x in xs])
    if mad <= 0:
        return []
    z = [(0.6745 * abs(x - med) / mad, i) for i, x in enumerate(xs)]
    out = sorted(((zi, i) for zi, i in z if zi > OUTLIER_Z), reverse=True)
    return [i for _, i in out[:int(n * OUTLIER_MAX_SHARE)]]


def interval(ratios, level):
    """The paired t-interval of a list of ratios A/B at LEVEL percent.

    Returns a dict: n, ratio (exp of the mean log ratio), lo, hi, half_pct
    (the half-width as a percentage of the ratio: exp(h) - 1), sd_log,
    mde_pct (the smallest difference this run could have seen: a true ratio
    that far from 1.0 gives an interval excluding 1.0 with POWER
    probability), excludes_1 -- or None with fewer than 2 ratios."""
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    if n < 2:
        return None
    m = statistics.mean(logs)
    sd = statistics.stdev(logs)
    df = n - 1
    tq = t_quantile(1.0 - (1.0 - level / 100.0) / 2.0, df)
    se = sd / math.sqrt(n)
    h = tq * se
    mde = (tq + t_quantile(POWER, df)) * se
    tstat = abs(m) / se if se > 0 else (math.inf if m else 0.0)
    p = 2.0 * (1.0 - t_cdf(tstat, df)) if math.isfinite(tstat) else 0.0
    return {"n": n, "level": level, "ratio": math.exp(m), "lo": math.exp(m - h),
            "p": p,
            "hi": math.exp(m + h), "half_pct": 100.0 * (math.exp(h) - 1.0),
            "sd_log": sd, "mde_pct": 100.0 * (math.exp(mde) - 1.0),
            "excludes_1": (m - h) > 0.0 or (m + h) < 0.0}


def pair_interval(a, b, level, disturbed=()):
    """The interval of one configuration: a and b map rep -> value; reps in
    disturbed are left out (decided by steal time, before the ratio is
    seen).  Every other pair is in the interval, outliers too; they are named
    (outliers) and the interval without them is added as robust (None when
    there are none), which no verdict reads."""
    rs = paired_ratios(a, b)
    dist = sorted(r for r in rs if r in set(disturbed))
    used = [r for r in rs if r not in set(disturbed)]
    logs = [math.log(rs[r]) for r in used]
    out = sorted(used[i] for i in outliers(logs))
    iv = interval([rs[r] for r in used], level)
    if iv is None:
        iv = {"n": len(used), "level": level, "ratio": None, "lo": None, "hi": None, "p": None,
              "half_pct": None, "sd_log": None, "mde_pct": None, "excludes_1": False}
    rob = interval([rs[r] for r in used if r not in out], level) if out else None
    if rob is not None:
        rob = {k: rob[k] for k in ("n", "ratio", "lo", "hi", "half_pct", "p")}
    iv.update({"pairs": len(rs), "reps_used": used, "outliers": out, "disturbed": dist,
               "robust": rob})
    return iv


def holm(pvalues, alpha):
    """Holm's step-down test: which of pvalues (None: no test) are
    significant with a family-wise error rate of alpha."""
    idx = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    m = len(idx)
    out = [False] * len(pvalues)
    for k, (p, i) in enumerate(idx):
        if p > alpha / (m - k):
            break
        out[i] = True
    return out


def target_met(iv, width, min_pairs):
    """The stop rule for one configuration: at least min_pairs pairs used and
    an interval whose half-width is within width percent."""
    return (iv is not None and iv["n"] >= max(2, min_pairs) and iv["half_pct"] is not None
            and iv["half_pct"] <= width)


def pending(intervals, width, min_pairs, reps_done, max_reps):
    """The stop rule for a run: the configurations (keys of intervals) that
    need another repetition: target not met and fewer than max_reps done."""
    return [k for k, iv in intervals.items()
            if not target_met(iv, width, min_pairs) and reps_done.get(k, 0) < max_reps]


# the out-of-reach rule judges a configuration from this many pairs on
REACH_MIN_PAIRS = 5


def pairs_needed(sd, level, width, cap=1000):
    """The pairs a paired t-interval at LEVEL needs to be within +-WIDTH% when
    one pair's ln(A/B) has this sd: the smallest n with
    t(n-1) sd/sqrt(n) <= ln(1 + WIDTH/100); cap + 1 when more than cap."""
    h = math.log1p(width / 100.0)
    q = 1.0 - (1.0 - level / 100.0) / 2.0
    for n in range(2, cap + 1):
        if t_quantile(q, n - 1) * sd / math.sqrt(n) <= h:
            return n
    return cap + 1


def decided(iv, width):
    """Whether a configuration's interval lies wholly beyond +-WIDTH% of 1.0:
    an effect larger than the target width, whichever way it goes; narrowing
    it further changes the digits of its size, never its verdict."""
    if not iv or iv.get("lo") is None or iv.get("hi") is None:
        return False
    w = 1.0 + width / 100.0
    return iv["lo"] > w or iv["hi"] < 1.0 / w


def in_reach(short, pairs_left, max_reps, later=()):
    """The out-of-reach rule: short maps a configuration still short of its
    target to (pairs done, pairs needed at its sd so far); pairs_left is how
    many more pairs the rest of the budget can run, all configurations
    together.  Those needing the fewest more pairs are kept while their
    needs fit, the configurations in LATER (decided: their verdict is
    given) after all the others; one needing more than max_reps, or no
    longer fitting, is out of reach.  Returns (kept, out_of_reach), both
    sorted."""
    kept, out = [], []
    later = set(later)
    for k in sorted(short, key=lambda k: (k in later, short[k][1] - short[k][0], k)):
        done, need = short[k]
        more = max(need - done, 1)
        if need <= max_reps and more <= pairs_left:
            kept.append(k)
            pairs_left -= more
        else:
            out.append(k)
    return sorted(kept), sorted(out)


def spend_left(far, pairs_left, max_reps):
    """The budget left when every configuration still short of its target
    is out of reach: far maps such a configuration to (pairs done, pairs
    needed); one more pair each goes to the nearest (fewest more pairs
    needed), as many as pairs_left holds, none past max_reps.  Returns
    them, sorted."""
    near = sorted((k for k in far if far[k][0] < max_reps),
                  key=lambda k: (far[k][1] - far[k][0], k))
    return sorted(near[:max(int(pairs_left), 0)])


def parse_ci(text):
    """'LEVEL,WIDTH' -> (level, width), or ValueError naming what is allowed."""
    allowed = "allowed LEVEL,WIDTH with LEVEL 50..99.9 (%) and WIDTH 0.1..50 (+-%), e.g. 95,3"
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        level, width = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError("--ci '%s': %s" % (text, allowed)) from None
    if not (50.0 <= level <= 99.9 and 0.1 <= width <= 50.0):
        raise ValueError("--ci %s: out of range, %s" % (text, allowed))
    return level, width


def verdict(iv, higher_is_better):
    """(better, factor, real): which side is better ('A', 'B' or None), by
    what factor (>= 1), and whether it is real: the interval excludes 1.0
    and, when the caller set iv["holm"], the corrected test agrees."""
    if not iv or iv.get("ratio") is None:
        return None, None, False
    r = iv["ratio"]
    a_better = (r > 1.0) == higher_is_better
    factor = r if r >= 1.0 else 1.0 / r
    return ("A" if a_better else "B"), factor, bool(iv["excludes_1"] and iv.get("holm", True))


def main(argv=None):
    ap = argparse.ArgumentParser(description="paired t-interval of A/B ratios")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("interval", help="the interval of some ratios A/B")
    p.add_argument("--level", type=float, default=95.0)
    p.add_argument("ratios", type=float, nargs="+")
    p = sub.add_parser("check-ci", help="validate a --ci value")
    p.add_argument("value")
    args = ap.parse_args(argv)
    if args.cmd == "check-ci":
        try:
            parse_ci(args.value)
        except ValueError as e:
            print(str(e), file=sys.stderr)
            return 1
        return 0
    iv = interval(args.ratios, args.level)
    if iv is None:
        print("interval: needs at least 2 ratios", file=sys.stderr)
        return 1
    print("n=%d ratio=%.4f lo=%.4f hi=%.4f half=%.2f%% mde=%.2f%%" % (
        iv["n"], iv["ratio"], iv["lo"], iv["hi"], iv["half_pct"], iv["mde_pct"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
