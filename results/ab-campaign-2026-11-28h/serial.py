#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""serial.py LAG RUNDIR...: lag-1 autocorrelation of slice pairs' ln(A/B) within each tx/rx pair of
A/A slices runs, and the calls a Newey-West (lag L) t-interval would make
beside the paired t's (before and after Holm over the run's pairs)."""
import json, lzma, math, sys, glob, statistics, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench"))
import ab_stats

def load(d):
    for n in ("results.json", "results.json.xz"):
        p = os.path.join(d, n)
        if os.path.exists(p):
            return json.load(lzma.open(p) if n.endswith("xz") else open(p))

def nw_se(x, L):
    n = len(x); m = sum(x) / n
    d = [v - m for v in x]
    g0 = sum(v * v for v in d) / n
    s = g0
    for l in range(1, L + 1):
        gl = sum(d[i] * d[i - l] for i in range(l, n)) / n
        s += 2 * (1 - l / (L + 1)) * gl
    return math.sqrt(max(s, 0) / n * n / (n - 1)), g0

L = int(sys.argv[1])
rho_all = []; calls_t = 0; calls_nw = 0; runs_t = 0; runs_nw = 0; npairs = 0
for d in sys.argv[2:]:
    r = load(d)
    if r is None:
        continue
    pt, pn = [], []
    for a in r["ab"]:
        c = a["ci"][a["ci_metric"]]
        reps = c.get("reps_used") or []
        by = {}
        for x in r["runs"]:
            if (x["tx_mode"], x["rx_mode"]) == (a["tx_mode"], a["rx_mode"]) and x["rep"] in reps and x.get("rx_MBps"):
                by.setdefault(x["rep"], {})[x["setting"]] = x["rx_MBps"]
        xs = [math.log(by[k]["A"] / by[k]["B"]) for k in sorted(by) if "A" in by[k] and "B" in by[k]]
        if len(xs) < 6:
            continue
        npairs += 1
        m = statistics.mean(xs); sd = statistics.stdev(xs)
        d0 = [v - m for v in xs]
        rho = sum(d0[i] * d0[i - 1] for i in range(1, len(xs))) / sum(v * v for v in d0) if sd > 0 else 0
        rho_all.append(rho)
        n = len(xs)
        se_t = sd / math.sqrt(n)
        se_n, _ = nw_se(xs, L)
        for se, lst in ((se_t, pt), (se_n, pn)):
            t = abs(m) / se if se > 0 else 0
            p = 2 * (1 - ab_stats.t_cdf(t, n - 1))
            lst.append(p)
    ht = ab_stats.holm(pt, 0.05); hn = ab_stats.holm(pn, 0.05)
    ct = sum(1 for v in ht if v); cn = sum(1 for v in hn if v)
    calls_t += ct; calls_nw += cn; runs_t += ct > 0; runs_nw += cn > 0
print("runs %d, pairs %d; lag-1 autocorrelation of ln(A/B): median %.2f, mean %.2f, share > 0.2: %.0f%%" % (
    len(sys.argv) - 2, npairs, statistics.median(rho_all), statistics.mean(rho_all),
    100 * sum(1 for v in rho_all if v > 0.2) / len(rho_all)))
print("called after Holm: paired t %d pairs in %d runs; Newey-West lag %d: %d pairs in %d runs" % (
    calls_t, runs_t, L, calls_nw, runs_nw))
