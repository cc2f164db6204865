#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: robust verdict intervals for the slices method beside the
paired t, on committed runs and on simulated pairs (issue 26, point 3).

    ab_robust_eval.py runs KIND DIR... [--true 0.97]   KIND: aa, known or default
    ab_robust_eval.py sim [--draws N] [--runs R] [--seed S]
    ab_robust_eval.py tail [--draws N] [--seed S]   A/A rates at 0.05, 0.05/13
    ab_robust_eval.py runsim [--runs R] [--budget PAIRS] [--pairs M] [--seed S]
    ab_robust_eval.py pairs A1 B1 A2 B2 ...     one tx/rx pair's slices

The methods, each on the log ratios ln(A/B) of a tx/rx pair's slice pairs
(the pairs not disturbed by steal), each with Holm's correction over the
pairs of its run at alpha = 1 - LEVEL:
  t        the paired t-interval (ab_stats.interval: the verdict until now)
  trimmed  the 20% trimmed-mean t-interval (ab_robust.trimmed_interval)
  wilcoxon the Hodges-Lehmann estimate with the exact signed-rank interval
           and p (ab_robust.signed_rank_interval; no 95% interval below 6)
  switch   t below n_min pairs, wilcoxon from n_min on, n_min the fewest
           pairs whose smallest exact p, 2^(1-n), passes Holm's first step
           over the run's m pairs: 2^(1-n) <= alpha/m (10 for 13 pairs, 7
           for 2): the test is a function of n alone, decided in advance

runs: recomputed from the per-slice records in each run's results.json
(runs[]: rep, setting, status, disturbed, the headline metric), so the
pairs are those each run measured: its stopping rule chose them with the
t-interval of its day.  ± is half the interval's width in log terms,
exp((ln hi - ln lo)/2) - 1 (the t-interval's own ± for t).
sim: seeded draws of log ratios; prints markdown.  No I/O besides reading
results.json and printing.
"""
import argparse
import json
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_robust  # noqa: E402
import ab_stats  # noqa: E402

METHODS = ("t", "trimmed", "wilcoxon", "switch")
NON_GSO = {("sendto", "plain"), ("sendto", "gro"), ("sendmmsg", "plain"),
           ("sendmmsg", "gro"), ("tcp", "tcp")}


def n_min(m, level):
    """The fewest pairs whose exact signed-rank p can pass Holm over m."""
    n = 1
    while 2.0 ** (1 - n) > (1.0 - level / 100.0) / m:
        n += 1
    return n


def judge(logs, level, method, m=13):
    """(lo, hi, p, estimate) of METHOD on log ratios, in log terms; lo and hi
    None when the method has no interval here; m: the pairs of the run."""
    n = len(logs)
    q = 1.0 - (1.0 - level / 100.0) / 2.0
    if method == "switch":
        method = "wilcoxon" if n >= n_min(m, level) else "t"
    if method == "wilcoxon":
        w = ab_robust.signed_rank_interval(logs, level)
        if w is None:
            return None, None, None, None
        return w["lo"], w["hi"], w["p"], w["hl"]
    if method == "t":
        tr = (statistics.mean(logs), statistics.stdev(logs) / math.sqrt(n), n - 1) \
            if n >= 2 else None
    else:
        tr = ab_robust.trimmed_interval(logs, level)
    if tr is None:
        return None, None, None, None
    m, se, df = tr
    h = ab_stats.t_quantile(q, df) * se
    t = abs(m) / se if se > 0 else (math.inf if m else 0.0)
    p = 2.0 * (1.0 - ab_stats.t_cdf(t, df)) if math.isfinite(t) else 0.0
    return m - h, m + h, p, m


def half_pct(lo, hi):
    return 100.0 * (math.exp((hi - lo) / 2.0) - 1.0) if lo is not None else None


def robust_sd(logs, level):
    """The spread the trimmed interval implies for one pair: se x sqrt(n)."""
    tr = ab_robust.trimmed_interval(logs, level)
    return tr[1] * math.sqrt(len(logs)) if tr else None


def pairs_of(r):
    """{(tx, rx, family): (metric, log ratios of the undisturbed pairs)} of a
    slices run's results.json."""
    metric = {}
    for a in r.get("ab") or []:
        metric[(a["tx_mode"], a["rx_mode"], a.get("family", 4))] = a.get("ci_metric",
                                                                          "rx_MBps")
    sides = {}
    for x in r.get("runs") or []:
        k = (x["tx_mode"], x["rx_mode"], x.get("family", 4))
        if k not in metric or x.get("status") != "ok":
            continue
        sides.setdefault(k, {}).setdefault(x["setting"], {})[x["rep"]] = x
    out = {}
    for k, s in sides.items():
        a, b = s.get("A", {}), s.get("B", {})
        f = metric[k]
        logs = []
        for rep in sorted(set(a) & set(b)):
            if a[rep].get("disturbed") or b[rep].get("disturbed"):
                continue
            va, vb = a[rep].get(f), b[rep].get(f)
            if va and vb and va > 0 and vb > 0:
                logs.append(math.log(va / vb))
        out[k] = (f, logs)
    return out


def judge_run(r, level):
    """Per method: [(key, n, lo, hi, p, est, real)] over the run's pairs."""
    pairs = pairs_of(r)
    res = {}
    for m in METHODS:
        rows = [(k,) + (len(logs),) + judge(logs, level, m, len(pairs)) for k, (_, logs)
                in sorted(pairs.items())]
        calls = ab_stats.holm([row[4] for row in rows], 1.0 - level / 100.0)
        res[m] = [row + (bool(c and row[2] is not None and (row[2] > 0 or row[3] < 0)),)
                  for row, c in zip(rows, calls)]
    return res, pairs


def load_runs(dirs):
    out = []
    for d in dirs:
        p = os.path.join(d, "results.json")
        try:
            with open(p) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        if r.get("method") == "inrun":
            continue
        r["_dir"] = d.rstrip("/")
        out.append(r)
    return out


def med(xs):
    xs = [x for x in xs if x is not None]
    return "±%.1f%%" % statistics.median(xs) if xs else "-"


def report_runs(kind, dirs, true):
    rs = load_runs(dirs)
    L = ["%d %s runs (slices), pairs as each run measured them." % (len(rs), kind), ""]
    judged = []
    for r in rs:
        level = float((r.get("interval") or {}).get("level") or 95.0)
        judged.append((r, level) + judge_run(r, level))
    sizes = {}
    for _, _, _, pairs in judged:
        for _, logs in pairs.values():
            sizes[len(logs)] = sizes.get(len(logs), 0) + 1
    L[-1:-1] = ["Slice pairs per tx/rx pair (n: how many tx/rx pairs): " + ", ".join(
        "%d: %d" % kv for kv in sorted(sizes.items()))]
    if kind == "aa":
        L += ["| method | pairs with an interval | called real | runs with a call | "
              "median ± | within ±3% |", "|---|---|---|---|---|---|"]
    elif kind == "known":
        L += ["| method | pairs with an interval | found (real, A/B < 1) | covers %.3f | "
              "median ± | within ±3%% |" % true, "|---|---|---|---|---|---|"]
    else:
        L += ["| method | pairs with an interval | within ±3% (n >= run's minimum) | "
              "non-GSO within ±3% | median ± | called real |", "|---|---|---|---|---|---|"]
    for m in METHODS:
        rows = [(r, row) for r, _, res, _ in judged for row in res[m]]
        ok = [(r, row) for r, row in rows if row[2] is not None]
        hw = [half_pct(row[2], row[3]) for _, row in ok]
        in3 = sum(1 for h in hw if h <= 3.0)
        real = sum(1 for _, row in ok if row[6])
        if kind == "aa":
            runs = sum(1 for _, _, res, _ in judged if any(row[6] for row in res[m]))
            L.append("| %s | %d of %d | %d | %d of %d | %s | %d |" % (
                m, len(ok), len(rows), real, runs, len(judged), med(hw), in3))
        elif kind == "known":
            found = sum(1 for _, row in ok if row[6] and row[5] < 0)
            cov = sum(1 for _, row in ok if row[2] <= math.log(true) <= row[3])
            L.append("| %s | %d of %d | %d | %d | %s | %d |" % (
                m, len(ok), len(rows), found, cov, med(hw), in3))
        else:
            reach = [(r, row) for r, row in ok if row[1] >= int(r.get("reps") or 3)
                     and half_pct(row[2], row[3]) <= 3.0]
            ng = [x for x in ok if x[1][0][:2] in NON_GSO]
            ngr = [x for x in reach if x[1][0][:2] in NON_GSO]
            L.append("| %s | %d of %d | %d | %d of %d | %s | %d |" % (
                m, len(ok), len(rows), len(reach), len(ngr), len(ng), med(hw), real))
    L.append("")
    if kind == "aa":
        L += aa_calls(judged)
    if kind == "default":
        L += per_pair_default(judged) + timing_lines(rs)
    return L


def timing_lines(rs):
    """Wall seconds per slice pair (warm-up pairs included): what a larger
    minimum of pairs would cost a run."""
    L = ["Wall time per slice pair (timing.wall_s over the run's slices and warm-up "
         "slices, / 2):", ""]
    for r in rs:
        t = r.get("timing") or {}
        slices = len(r.get("runs") or []) + (t.get("warmup_runs") or 0)
        if t.get("wall_s") and slices:
            L.append("- %s: %.1f s, %d slices: %.2f s a pair" % (
                os.path.basename(r["_dir"])[:16], t["wall_s"], slices,
                2.0 * t["wall_s"] / slices))
    return L + [""]


def aa_calls(judged):
    """Every A/A pair some method called real, with its sorted log ratios."""
    L = []
    for r, _, res, pairs in judged:
        for i, row in enumerate(res["t"]):
            by = [m for m in METHODS if res[m][i][6]]
            if by:
                L.append("- %s %s -> %s, %d pairs, called by %s (p: %s); ln(A/B) sorted: %s" % (
                    os.path.basename(r["_dir"])[:16], row[0][0], row[0][1], row[1],
                    ", ".join(by), ", ".join("%s %.3g" % (m, res[m][i][4]) for m in METHODS
                                             if res[m][i][4] is not None),
                    " ".join("%+.3f" % x for x in sorted(pairs[row[0]][1]))))
    return (["A/A pairs called real by any method:", ""] + L + [""]) if L else []


def per_pair_default(judged):
    """The non-GSO pairs of default runs: ± of each method, and the pairs
    ±3% needs at the t-interval's sd and at the trimmed one's spread."""
    L = ["Non-GSO pairs: n, ± by method, the pairs ±3% needs (t-interval, pairs_needed) at "
         "the sd of the log ratios / at the trimmed interval's spread (se x sqrt(n)); "
         "1001: over 1000.", "",
         "| run | pair | n | %s | needed at sd | needed at trimmed spread |" % " | ".join(METHODS),
         "|---|---|---|" + "---|" * (len(METHODS) + 2)]
    for r, level, res, pairs in judged:
        for i, row in enumerate(res["t"]):
            k = row[0]
            if k[:2] not in NON_GSO:
                continue
            logs = pairs[k][1]
            hs = []
            for m in METHODS:
                x = res[m][i]
                hs.append("±%.1f%%" % half_pct(x[2], x[3]) if x[2] is not None else "-")
            sd = statistics.stdev(logs) if len(logs) >= 2 else None
            rsd = robust_sd(logs, level)
            L.append("| %s | %s -> %s | %d | %s | %s |" % (
                os.path.basename(r["_dir"])[:16], k[0], k[1], len(logs), " | ".join(hs),
                " | ".join(str(ab_stats.pairs_needed(x, level, 3.0)) if x else "-"
                           for x in (sd, rsd))))
    return L + [""]


# ---- simulation ---------------------------------------------------------------------
def draw(rng, dist, n, effect=0.0):
    """n log ratios: 'quiet' normal sd 3%; 'dips' the same with each slice
    (A or B) in a 10-30% dip with probability 0.1; 't3' Student's t (3 df)
    x 3%; 'bimodal' each slice at one of two levels 35% apart (a GSO sender)
    plus 3% noise."""
    out = []
    for _ in range(n):
        x = effect + rng.gauss(0.0, 0.03)
        if dist == "dips":
            for sign in (1, -1):
                if rng.random() < 0.1:
                    x += sign * math.log(1.0 - rng.uniform(0.1, 0.3))
        elif dist == "t3":
            x = effect + 0.03 * rng.gauss(0, 1) / math.sqrt(
                sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3.0)
        elif dist == "bimodal":
            x += math.log(1.35) * ((rng.random() < 0.5) - (rng.random() < 0.5))
        elif dist != "quiet":
            raise ValueError(dist)
        out.append(x)
    return out


SIZES = (6, 7, 8, 10, 12, 20)


def sim(draws, runs, seed):
    level = 95.0
    L = ["# Simulated slice pairs (seeded: seed %d)" % seed, "",
         "Log ratios: quiet = normal, sd 3%%; dips = quiet, and each slice (A or B) in a "
         "10-30%% dip with probability 0.1; t3 = Student's t, 3 df, x 3%%; bimodal = each "
         "slice at one of two levels 35%% apart, plus quiet. A/A: %d runs of 13 pairs a cell; "
         "known effect: %d pairs a cell." % (runs, draws), "",
         "## A/A: pairs called (p < 0.05) and runs of 13 pairs with a call after Holm", "",
         "| log ratios | n | %s | %s |" % (" | ".join(m + ": pair" for m in METHODS),
                                          " | ".join(m + ": run" for m in METHODS)),
         "|---|---|" + "---|" * (2 * len(METHODS))]
    for dist in ("quiet", "dips", "t3", "bimodal"):
        for n in SIZES:
            rng = random.Random("aa/%s/%d/%d" % (dist, n, seed))
            pair = dict.fromkeys(METHODS, 0)
            run = dict.fromkeys(METHODS, 0)
            nrun = runs
            for _ in range(nrun):
                sets = [draw(rng, dist, n) for _ in range(13)]
                for m in METHODS:
                    ps = [judge(x, level, m)[2] for x in sets]
                    pair[m] += sum(1 for p in ps if p is not None and p < 0.05)
                    run[m] += any(ab_stats.holm(ps, 0.05))
            L.append("| %s | %d | %s | %s |" % (dist, n, " | ".join(
                "%.2f%%" % (100.0 * pair[m] / (13 * nrun)) for m in METHODS), " | ".join(
                "%.1f%%" % (100.0 * run[m] / nrun) for m in METHODS)))
    L += ["", "## A at 97% of B: found (p < 0.05, A/B < 1; switch as in a run of 13), "
          "covered, median ±", "",
          "| log ratios | n | %s | %s | %s |" % tuple(" | ".join(m + w for m in METHODS)
                                                   for w in (": found", ": covers", ": ±")),
          "|---|---|" + "---|" * (3 * len(METHODS))]
    eff = math.log(0.97)
    for dist in ("quiet", "dips", "t3"):
        for n in SIZES:
            rng = random.Random("known/%s/%d/%d" % (dist, n, seed))
            found = dict.fromkeys(METHODS, 0)
            cov = dict.fromkeys(METHODS, 0)
            hw = {m: [] for m in METHODS}
            for _ in range(draws):
                x = draw(rng, dist, n, eff)
                for m in METHODS:
                    lo, hi, p, est = judge(x, level, m)
                    found[m] += p is not None and p < 0.05 and est < 0
                    if lo is not None:
                        cov[m] += lo <= eff <= hi
                        hw[m].append(half_pct(lo, hi))
            L.append("| %s | %d | %s | %s | %s |" % (
                dist, n, " | ".join("%.1f%%" % (100.0 * found[m] / draws) for m in METHODS),
                " | ".join("%.1f%%" % (100.0 * cov[m] / draws) for m in METHODS),
                " | ".join(med(hw[m]) for m in METHODS)))
    return L


def run_half(logs, level, policy, m):
    """The ± (%) of a pair's interval under POLICY (t or switch)."""
    lo, hi, _, _ = judge(logs, level, policy, m)
    return half_pct(lo, hi) if lo is not None else math.inf


def run_need(logs, level, width, policy, m):
    """The pairs the out-of-reach rule thinks a pair needs: at the sd of its
    log ratios (t); under switch also the signed rank's way, from n_min on at
    the trimmed spread, whichever is fewer."""
    need = ab_stats.pairs_needed(statistics.stdev(logs), level, width)
    if policy == "switch":
        rsd = robust_sd(logs, level)
        need = min(need, max(n_min(m, level), ab_stats.pairs_needed(rsd, level, width)))
    return need


def sim_run(rng, kinds, effect, policy, budget, level=95.0, width=3.0, min_pairs=6,
            max_reps=30):
    """One simulated make run: rounds of one slice pair per pending pair, the
    stop, out-of-reach and spend-left rules of ab_report.pending with POLICY's
    interval and spread, until BUDGET slice pairs are spent or none is
    pending.  Returns [(n, lo, hi, p, est, real)] per pair."""
    m = len(kinds)
    logs = [[] for _ in kinds]
    oor = set()
    used = 0

    def open_(i):
        x = logs[i]
        met = len(x) >= min_pairs and run_half(x, level, policy, m) <= width
        return not met and len(x) < max_reps

    while used < budget:
        todo = [i for i in range(m) if open_(i) and i not in oor]
        short, young = {}, 0
        for i in todo:
            if len(logs[i]) >= ab_stats.REACH_MIN_PAIRS:
                short[i] = (len(logs[i]), run_need(logs[i], level, width, policy, m))
            else:
                young += 1
        _, out = ab_stats.in_reach(short, budget - used - young, max_reps)
        oor |= set(out)
        todo = [i for i in todo if i not in oor]
        if not todo and budget - used - young >= 1:
            far = {i: (len(logs[i]), run_need(logs[i], level, width, policy, m))
                   for i in range(m) if open_(i) and len(logs[i]) >= 2}
            todo = ab_stats.spend_left(far, budget - used - young, max_reps)
        if not todo:
            break
        for i in todo:
            logs[i].append(draw(rng, kinds[i], 1, effect)[0])
            used += 1
    rows = [(len(x),) + judge(x, level, policy, m) for x in logs]
    calls = ab_stats.holm([r[3] for r in rows], 1.0 - level / 100.0)
    return [r + (bool(c and (r[1] > 0 or r[2] < 0)),) for r, c in zip(rows, calls)]


def runsim(runs, budget, seed, m=13):
    """Whole simulated runs of M pairs under the t and the switch rules."""
    scen = {"dips": ["dips"] * m}
    if m == 13:
        scen["mixed"] = ["dips"] * 8 + ["bimodal"] * 5
    L = ["# Simulated runs: %d pairs, %d slice pairs of budget, at least 6 and at most "
         "30 pairs a pair, target ±3%%, %d runs a cell (seed %d)" % (m, budget, runs, seed),
         "",
         "dips: every pair as sim.md's dips; mixed: 8 such and 5 bimodal (GSO-like). "
         "A/A: runs with any call after Holm; A at 97%: per pair found (real, A/B < 1), "
         "covered, within ±3%, and the pairs' median n (dips pairs only in mixed).", "",
         "| pairs | rule | A/A: runs with a call | A/A: pairs called | 97%: found | 97%: covered "
         "| 97%: within ±3% | 97%: median n |", "|---|---|---|---|---|---|---|---|"]
    eff = math.log(0.97)
    for name, kinds in scen.items():
        for policy in ("t", "switch"):
            rng = random.Random("runsim/%s/%s/%d/%d/%d" % (name, policy, m, budget, seed))
            bad = called = 0
            for _ in range(runs):
                res = sim_run(rng, kinds, 0.0, policy, budget)
                bad += any(r[5] for r in res)
                called += sum(r[5] for r in res)
            found = cov = met = tot = 0
            ns = []
            for _ in range(runs):
                res = sim_run(rng, kinds, eff, policy, budget)
                for k, r in zip(kinds, res):
                    if k != "dips":
                        continue
                    tot += 1
                    found += r[5] and r[4] < 0
                    cov += r[1] is not None and r[1] <= eff <= r[2]
                    met += r[0] >= 6 and r[1] is not None and half_pct(r[1], r[2]) <= 3.0
                    ns.append(r[0])
            L.append("| %s | %s | %.1f%% | %.2f%% | %.1f%% | %.1f%% | %.1f%% | %d |" % (
                name, policy, 100.0 * bad / runs, 100.0 * called / (m * runs),
                100.0 * found / tot, 100.0 * cov / tot, 100.0 * met / tot,
                statistics.median(ns)))
    return L


def tail(draws, seed):
    """The A/A rate of p < 0.05 and of p < 0.05/13 (where Holm over 13 pairs
    reads the smallest p) on normal log ratios, per method."""
    L = ["# The tail Holm reads: normal A/A log ratios, %d seeded draws a cell (seed %d)"
         % (draws, seed), "",
         "| n | %s |" % " | ".join("%s: p < 0.05 | %s: p < 0.05/13" % (m, m) for m in METHODS),
         "|---|" + "---|" * (2 * len(METHODS))]
    for n in (6, 10, 20):
        rng = random.Random("tail/%d/%d" % (n, seed))
        c = {m: [0, 0] for m in METHODS}
        for _ in range(draws):
            x = [rng.gauss(0.0, 1.0) for _ in range(n)]
            for m in METHODS:
                p = judge(x, 95.0, m)[2]
                c[m][0] += p < 0.05
                c[m][1] += p < 0.05 / 13
        L.append("| %d | %s |" % (n, " | ".join("%.2f%% | %.3f%%" % (
            100.0 * c[m][0] / draws, 100.0 * c[m][1] / draws) for m in METHODS)))
    return L + ["", "Nominal: 5%% and %.3f%%." % (100 * 0.05 / 13)]


def one_pair(vals):
    """The methods on one tx/rx pair given as A1 B1 A2 B2 ... (rx MB/s)."""
    logs = [math.log(a / b) for a, b in zip(vals[0::2], vals[1::2])]
    L = ["ln(A/B): " + " ".join("%+.4f" % x for x in logs)]
    for m in METHODS:
        lo, hi, p, est = judge(logs, 95.0, m)
        L.append("%-8s A/B %.4f [%s] ±%s p %.4g" % (
            m, math.exp(est), "%.4f-%.4f" % (math.exp(lo), math.exp(hi)) if lo is not None
            else "none", "%.1f%%" % half_pct(lo, hi) if lo is not None else "-", p))
    sd = statistics.stdev(logs)
    rsd = robust_sd(logs, 95.0)
    L.append("pairs needed for ±3%%: at the sd %.1f%%: %d; at the trimmed spread %.1f%%: %d" % (
        100 * sd, ab_stats.pairs_needed(sd, 95.0, 3.0), 100 * rsd,
        ab_stats.pairs_needed(rsd, 95.0, 3.0)))
    return L


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("runs")
    p.add_argument("kind", choices=("aa", "known", "default"))
    p.add_argument("dirs", nargs="+")
    p.add_argument("--true", type=float, default=0.97)
    p = sub.add_parser("sim")
    p.add_argument("--draws", type=int, default=2000)
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("runsim", help="whole simulated runs under the t and switch rules")
    p.add_argument("--runs", type=int, default=300)
    p.add_argument("--budget", type=int, default=110)
    p.add_argument("--pairs", type=int, default=13)
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("tail", help="A/A rates at 0.05 and 0.05/13, normal pairs")
    p.add_argument("--draws", type=int, default=40000)
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("pairs", help="the methods on one pair's slices: A1 B1 A2 B2 ...")
    p.add_argument("values", type=float, nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "sim":
        print("\n".join(sim(a.draws, a.runs, a.seed)))
    elif a.cmd == "runsim":
        print("\n".join(runsim(a.runs, a.budget, a.seed, a.pairs)))
    elif a.cmd == "tail":
        print("\n".join(tail(a.draws, a.seed)))
    elif a.cmd == "pairs":
        print("\n".join(one_pair(a.values)))
    else:
        print("\n".join(report_runs(a.kind, a.dirs, a.true)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
