# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the statistics of the in-run A/B (scripts/bench/ab_inrun.sh):
runs as the unit, a two-level (runs, windows) random-effects model as in
Kalibera & Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013).

A run of a tx/rx pair is one sender and one receiver with A and B switched
in windows; consecutive windows form pairs (A B, B A, ...), each giving
ln(A/B).  A run's estimate is the mean of its window pairs' log ratios; the
interval is a t-interval over the runs' estimates (df = runs - 1), never
over windows.  The within-run variance (windows around their run's mean)
and the between-run variance (what the runs' estimates vary beyond it) are
estimated separately; when the between-run part is significant (one-way
ANOVA F-test), the effect "varied between X and Y across runs" and the
reported interval is widened to cover every run's estimate.
"""

import math
import statistics

import ab_stats

HETERO_P = 0.05         # the F-test level at which the effect is said to vary between runs


def f_sf(f, d1, d2):
    """P(F > f) for an F(d1, d2) variable (the regularized incomplete beta)."""
    if f <= 0:
        return 1.0
    x = d2 / (d2 + d1 * f)
    return ab_stats.betainc(d2 / 2.0, d1 / 2.0, x)


def run_estimates(runs):
    """runs: lists of per-window-pair log ratios, one list per run.  Returns
    (estimates, within-run variance or None, its df)."""
    est = [statistics.mean(r) for r in runs if r]
    ss, df = 0.0, 0
    for r in runs:
        if len(r) >= 2:
            m = statistics.mean(r)
            ss += sum((x - m) ** 2 for x in r)
            df += len(r) - 1
    return est, (ss / df if df > 0 else None), df


def two_level(runs, level):
    """The interval of one pair from its runs (lists of ln(A/B) per window
    pair).  Returns a dict (None with fewer than 2 runs):
      n_runs, windows (window pairs), ratio (exp of the mean of the runs'
      estimates), lo, hi (the t-interval over runs, widened to cover every
      run's ratio when the effect varies between runs), half_pct, p (two-sided
      t-test of ratio 1 over runs), sd_run (sd of the runs' log estimates),
      var_within, var_between (Kalibera & Jones: var of run means minus the
      within-run part / windows per run, floored at 0), hetero_p (the F-test
      of between-run variation), varies (hetero_p < HETERO_P), run_ratios,
      runs_needed (runs for +-width at sd_run, see needed()), excludes_1."""
    est, vw, dfw = run_estimates(runs)
    n = len(est)
    if n < 2:
        return None
    m = statistics.mean(est)
    sd = statistics.stdev(est)
    tq = ab_stats.t_quantile(1.0 - (1.0 - level / 100.0) / 2.0, n - 1)
    se = sd / math.sqrt(n)
    h = tq * se
    lo, hi = m - h, m + h
    t = abs(m) / se if se > 0 else (math.inf if m else 0.0)
    p = 2.0 * (1.0 - ab_stats.t_cdf(t, n - 1)) if math.isfinite(t) else 0.0
    k = statistics.mean(len(r) for r in runs if r)
    vb = None
    hp = None
    if vw is not None:
        vb = max(0.0, sd * sd - vw / k)
        if vw > 0:
            hp = f_sf(k * sd * sd / vw, n - 1, dfw)
        else:
            hp = 0.0 if sd > 0 else 1.0
    varies = hp is not None and hp < HETERO_P
    if varies:
        lo, hi = min(lo, min(est)), max(hi, max(est))
    half = max(m - lo, hi - m)
    return {"n_runs": n, "windows": sum(len(r) for r in runs), "level": level,
            "ratio": math.exp(m), "lo": math.exp(lo), "hi": math.exp(hi),
            "half_pct": 100.0 * (math.exp(half) - 1.0), "p": p, "sd_run": sd,
            "var_within": vw, "var_between": vb, "hetero_p": hp, "varies": varies,
            "run_ratios": [math.exp(e) for e in est],
            "excludes_1": lo > 0.0 or hi < 0.0}


def needed(iv, level, width, cap=200):
    """The runs this pair needs for +-width at its sd between runs so far; a
    pair whose effect varies between runs never narrows below the spread of
    its runs: cap + 1 then, unless that spread is within width already."""
    if iv is None:
        return cap + 1
    if iv["varies"]:
        lo, hi = min(iv["run_ratios"]), max(iv["run_ratios"])
        r = iv["ratio"]
        if max(r / lo, hi / r) - 1.0 > width / 100.0:
            return cap + 1
    return ab_stats.pairs_needed(iv["sd_run"], level, width, cap)


def optimal_windows(var_within, var_between, cost_run, cost_window):
    """Kalibera & Jones: the window pairs per run that minimise the time to
    a given precision, sqrt(cost_run/cost_window * var_within/var_between);
    None when the between-run variance is 0 (then one run of many windows)."""
    if not var_between or var_within is None or cost_window <= 0:
        return None
    return max(1, round(math.sqrt(cost_run / cost_window * var_within / var_between)))


def settle_ms(rates, period_ms=100, floor_ms=100):
    """The settle time after a switch from the 100 ms rates that follow it:
    the steady level is the median of the second half, its noise the scaled
    MAD (relative); the rate has settled once the running median of three
    consecutive rates (which an isolated dip of the host's scheduling does
    not move) stays within max(3 x noise, 2%) of the level: the end of the
    last 100 ms whose running median lies outside.  Returns ms (at least
    floor_ms), or None with fewer than 4 rates."""
    if len(rates) < 4:
        return None
    tail = rates[len(rates) // 2:]
    lvl = statistics.median(tail)
    if lvl <= 0:
        return None
    mad = statistics.median([abs(x - lvl) for x in tail]) * 1.4826
    tol = max(3.0 * mad / lvl, 0.02)
    last = -1
    for i in range(len(rates)):
        m3 = statistics.median(rates[i:i + 3])
        if abs(m3 / lvl - 1.0) > tol:
            last = i
    return max(floor_ms, (last + 1) * period_ms)


def spending_order(state, level, width, max_runs):
    """The default run spends its budget on the pairs nearest their target:
    state maps a pair to (runs done, interval or None).  Returns the pairs
    still short of the target (and under max_runs), nearest first: fewest
    more runs needed, then the narrowest interval."""
    out = []
    for k, (done, iv) in state.items():
        if done >= max_runs:
            continue
        if iv is not None and iv["half_pct"] <= width:
            continue
        need = needed(iv, level, width)
        hw = iv["half_pct"] if iv else math.inf
        out.append((max(need - done, 1), hw, k))
    return [k for _, _, k in sorted(out)]
