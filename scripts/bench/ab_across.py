#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: a slices run's A/B of each pair across the other runs of its
machine (issue 26 point 2: runs are the unit of an interval across states).

A run's interval is about the mean of its slice pairs' log ratios over the
machine states of its own minutes.  The effect of a GSO flag moves with the
state from one run to the next further than that: over 20 default runs of
one quiet hour (results/ab-campaign-2026-11-28a) a GSO pair's ln(A/B) had a
between-run sd of 3.1-5.7% against its runs' own half-widths of ±2.8-2.9%;
the pairs the setting does not touch 0.03-0.22% (tcp 0.95%).  So beside the
run's interval, each pair gets one across the runs of this machine and
matrix in and below the directory that holds the run (as `make run` leaves
them in results/, campaigns in folders of their own): the between-run
variance tau^2 = max(0, var of the other runs' ln(A/B) - their mean se^2)
(method of moments, each run one value), and the interval
ln(A/B) +- sqrt((t_n se)^2 + (t_k tau)^2), t_n on the run's own pairs, t_k
on the k other runs: it covers where the next run's effect may fall, not
only this run's states.  With fewer than MIN_OTHERS other runs there is
none, and the summary says so.
"""
import lzma
import math
import os
import statistics

import ab_stats
from ab_rawlog import read_results, results_file
from compare_runs import conf_key, made, results_tree, run_conf, run_id

# the fewest other runs whose spread makes a between-run term
MIN_OTHERS = 3


def tau_interval(y, se, n, others, level=95.0):
    """(lo, hi, tau) of ln(A/B) = Y with standard error SE over N pairs
    against OTHERS [(y, se), ...] of other runs; None with fewer than
    MIN_OTHERS of them or N < 2."""
    if len(others) < MIN_OTHERS or n < 2:
        return None
    q = 0.5 + level / 200.0
    tau2 = max(0.0, statistics.variance([o[0] for o in others])
               - sum(o[1] ** 2 for o in others) / len(others))
    half = math.hypot(ab_stats.t_quantile(q, n - 1) * se,
                      ab_stats.t_quantile(q, len(others) - 1) * math.sqrt(tau2))
    return math.exp(y - half), math.exp(y + half), math.sqrt(tau2)


def p_value(y, se, n, tau, k):
    """Two-sided p of ln(A/B) = Y against 0 with the interval of
    tau_interval (N pairs of se SE, K other runs giving TAU): the level at
    which its half-width hypot(t_n se, t_k tau) reaches |Y| (bisection)."""
    def half(q):
        return math.hypot(ab_stats.t_quantile(q, n - 1) * se,
                          ab_stats.t_quantile(q, k - 1) * tau)
    if y == 0.0:
        return 1.0
    lo, hi = 0.5, 1.0 - 1e-12
    if half(hi) < abs(y):
        return 2.0 * (1.0 - hi)
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if half(mid) < abs(y):
            lo = mid
        else:
            hi = mid
    return 2.0 * (1.0 - lo)


def call(xs, level):
    """Holm over the pairs of one run on their across-runs p (XS: the
    across_runs records): each gets holm, and real = holm and the interval
    excludes 1.0.  The run-level rule of issue 26: within one run the slice
    pairs share the run's states, so its own interval is honest per pair but
    not per run (Intel A/A campaign ab-campaign-2026-11-28h: 3 of 20 runs
    with a false call; with this rule 1 of 20, results/aa-rule-2026-11-29)."""
    held = ab_stats.holm([x["p"] for x in xs], 1.0 - level / 100.0)
    for x, h in zip(xs, held):
        x["holm"] = h
        x["real"] = bool(h and not x["lo"] <= 1.0 <= x["hi"])


def log_se(iv):
    """(ln ratio, se, n) of an interval record, or None without them."""
    if not iv or not iv.get("ratio") or iv.get("sd_log") is None or (iv.get("n") or 0) < 2:
        return None
    return math.log(iv["ratio"]), iv["sd_log"] / math.sqrt(iv["n"]), iv["n"]


def other_runs(d):
    """(path, result) of each other run of results directory D's machine and
    matrix (compare_runs.conf_key: host, kernel, CPU, topology, method, slice
    length, settings, rate) in and below D's parent, a run copied to two
    places (run_id) counted once, D's own copies left out."""
    want, me = conf_key(d), run_id(d)
    if want is None:
        return []
    seen, out = {me}, []
    for p in results_tree(os.path.dirname(os.path.abspath(d))):
        if os.path.realpath(p) == os.path.realpath(d) or conf_key(p) != want:
            continue
        rid = run_id(p)
        if rid is not None and rid in seen:
            continue
        seen.add(rid)
        try:
            out.append((p, read_results(results_file(p))))
        except (OSError, ValueError, EOFError, lzma.LZMAError):
            continue
    return out


def mark(d, conf, ab, metric):
    """ab[].ci[METRIC]["across_runs"] for each pair of the run in D with at
    least MIN_OTHERS other runs (other_runs): runs, tau_log, lo, hi,
    half_pct, and the range of the runs' A/B (this one's included).
    Returns {"runs": how many other runs, "first", "last": when the first
    of them started and the last ended (epoch s, None without times),
    "tools": this run's run.conf tools= (a hash of the tools' sources, None
    before 2026-11-28 session 21), "same_tools": how many of the others
    have it}: the others may be of other code."""
    others = other_runs(d)
    tools = (conf or {}).get("tools") or None
    same = sum(1 for p, _ in others if tools and (run_conf(p) or {}).get("tools") == tools)
    spans = [m for m in (made(res) for _, res in others if res.get("runs")) if m]
    per = {}
    marked = []
    for _, res in others:
        for a in res.get("ab") or []:
            ci = a.get("ci")
            x = log_se(ci.get(metric) if isinstance(ci, dict) else None)
            if x is not None:
                per.setdefault((a["tx_mode"], a["rx_mode"], a.get("family", 4)), []).append(x)
    for a in ab:
        iv = a["ci"].get(metric)
        me = log_se(iv)
        o = per.get((a["tx_mode"], a["rx_mode"], a.get("family", 4)), [])
        got = me and tau_interval(me[0], me[1], me[2], [x[:2] for x in o], iv["level"])
        if not got:
            continue
        ys = [x[0] for x in o] + [me[0]]
        iv["across_runs"] = {
            "runs": len(o), "tau_log": got[2], "lo": got[0], "hi": got[1],
            "half_pct": 100.0 * (math.sqrt(got[1] / got[0]) - 1.0),
            "p": p_value(me[0], me[1], me[2], got[2], len(o)),
            "ratio_min": math.exp(min(ys)), "ratio_max": math.exp(max(ys)),
            "method": "method-of-moments tau^2 over the other runs of this machine "
                      "and matrix; ln(A/B) +- sqrt((t_n se)^2 + (t_k tau)^2)"}
        marked.append(iv)
    if marked:
        call([iv["across_runs"] for iv in marked], marked[0]["level"])
    return {"runs": len(others), "first": min((m[0] for m in spans), default=None),
            "last": max((m[1] for m in spans), default=None), "tools": tools,
            "same_tools": same}


def words(iv):
    """The summary's clause for a pair's across_runs, or ''."""
    x = iv.get("across_runs")
    if not x:
        return ""
    if x["tau_log"] <= 0.0:
        return ("; across %d other runs of this machine no spread beyond each run's own "
                "(A/B %.2fx-%.2fx with this one)" % (x["runs"], x["ratio_min"], x["ratio_max"]))
    return ("; across %d other runs of this machine it varied between %.2fx and %.2fx with "
            "this one (between-run sd %.1f%%): across runs %.3f-%.3f, ±%.1f%%" % (
                x["runs"], x["ratio_min"], x["ratio_max"], 100.0 * x["tau_log"], x["lo"],
                x["hi"], x["half_pct"]))
