#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: where make run's budget goes, replayed on committed runs
(issue 26, the target's "every pair whose effect does not depend on the
machine's state within +-3%").

    ab_budget_eval.py [--seeds N] [--budget PAIRS] [--true R] [--draw smooth|plain]
                      [--max-reps N] DIR...

Each DIR is a slices run (results.json or results.json.xz).  Its tx/rx
pairs' slice-pair log ratios (ab_robust_eval.pairs_of: the undisturbed
pairs) are the pools; a replay is a whole run of the rounds of
udpgso_ab.sh under ab_report.next_round's rules (the -n rounds for every
pair, then the target, max-reps, out-of-reach and spend-left rules) with
each new slice pair drawn from its pair's pool (seeded; the smoothed
bootstrap by default, which keeps a pool's mean and sd and repeats no
value; --draw plain resamples the values), until the run's own number of
slice pairs (or PAIRS) is spent.  Two orders of the out-of-reach rule are
replayed from the same seed:

  nearest     the pairs needing the fewest more pairs first (until
              2026-11-28)
  open-first  the same, but a pair whose interval lies wholly beyond
              +-WIDTH% of 1.0 (ab_stats.decided) after every other

A pair is "open" when the interval of its whole pool reaches into
+-WIDTH% of 1.0 (no effect larger than the target shown: the A/A-like
pairs), else "decided".  Prints Markdown: per run and in total, the open
and decided pairs within the target, and the decided pairs' median
half-width; with --true R every pool is first moved to mean ln R (its
noise as measured, its effect known) and the table gives the replays with
any pair called real after Holm, the pairs called and the intervals that
cover R.  No I/O besides reading results and printing.
"""
import argparse
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_rawlog  # noqa: E402
import ab_robust_eval  # noqa: E402
import ab_stats  # noqa: E402

POLICIES = ("nearest", "open-first")


def smoothed(pool, rng):
    """One draw of the smoothed bootstrap of POOL: a pool value plus normal
    noise of Silverman's width sd n^(-1/5), the sum scaled back to the pool's
    mean and sd (n - 1), so that a draw repeats no value and a few draws
    do not look less spread than the pool (plain resampling of 6-10 values
    draws the same value twice in most runs of six)."""
    n = len(pool)
    m = statistics.mean(pool)
    sd = statistics.stdev(pool)
    var0 = statistics.pvariance(pool, m)
    h = sd * n ** -0.2
    if sd == 0.0:
        return m
    return m + (rng.choice(pool) - m + rng.gauss(0.0, h)) * math.sqrt(sd * sd / (var0 + h * h))


def plain(pool, rng):
    """One draw of plain resampling: a value of POOL."""
    return rng.choice(pool)


def replay(pools, budget, policy, rng, level=95.0, width=3.0, reps=6, max_reps=100,
           draw=smoothed):
    """One replayed run: {key: logs drawn} after BUDGET slice pairs or when
    no pair is left; each slice pair's log ratio is DRAW(pool, rng)."""
    keys = sorted(pools)
    logs = {k: [] for k in keys}
    oor, used, rnd = set(), 0, 0

    def iv(k):
        return ab_stats.interval([math.exp(x) for x in logs[k]], level)

    def short_of(k):
        return (not ab_stats.target_met(iv(k), width, reps)) and len(logs[k]) < max_reps

    def need(k):
        return ab_stats.pairs_needed(iv(k)["sd_log"], level, width)

    while used < budget:
        rnd += 1
        todo = [k for k in keys if short_of(k) and k not in oor]
        if rnd > reps:
            short, young, later = {}, 0, set()
            for k in todo:
                if len(logs[k]) >= ab_stats.REACH_MIN_PAIRS:
                    short[k] = (len(logs[k]), need(k))
                    if policy == "open-first" and ab_stats.decided(iv(k), width):
                        later.add(k)
                else:
                    young += 1
            _, out = ab_stats.in_reach(short, budget - used - young, max_reps, later)
            oor |= set(out)
            todo = [k for k in todo if k not in oor]
            if not todo and budget - used - young >= 1:
                far = {k: (len(logs[k]), need(k)) for k in keys if short_of(k)}
                todo = ab_stats.spend_left(far, budget - used - young, max_reps)
        if not todo:
            break
        for k in todo:
            logs[k].append(draw(pools[k], rng))
            used += 1
    return logs


def half(logs, level):
    iv = ab_stats.interval([math.exp(x) for x in logs], level)
    return iv["half_pct"] if iv else None


def pools_of(r, true):
    """{key: log ratios} of run R's pairs with 2 or more; with TRUE (a ratio)
    each pool moved to that mean: its noise as measured, its effect known."""
    pools = {k: logs for k, (_, logs) in ab_robust_eval.pairs_of(r).items() if len(logs) >= 2}
    if true is not None:
        pools = {k: [x - statistics.mean(v) + math.log(true) for x in v]
                 for k, v in pools.items()}
    return pools


def calls(logs, level):
    """{key: (called, lo, hi)}: the run's verdicts, Holm over its pairs"""
    ivs = {k: ab_stats.interval([math.exp(x) for x in v], level) for k, v in logs.items()}
    keys = sorted(ivs)
    real = ab_stats.holm([ivs[k]["p"] if ivs[k] else None for k in keys],
                         1.0 - level / 100.0)
    return {k: (bool(c and ivs[k]["excludes_1"]), ivs[k]["lo"] if ivs[k] else None,
                ivs[k]["hi"] if ivs[k] else None) for k, c in zip(keys, real)}


def evaluate(d, r, seeds, budget, level, width, true=None, draw=smoothed, max_reps=100):
    """Per policy: open and decided pairs within the target, decided
    half-widths, per pair within, replays with any call, pairs called and
    pairs whose interval covers TRUE, over SEEDS replays of run R."""
    pools = pools_of(r, true)
    total = budget or sum(len(x) for x in pools.values())
    kind = {k: "decided" if ab_stats.decided(ab_stats.interval(
        [math.exp(x) for x in v], level), width) else "open"
        for k, v in pools.items()}
    out = {}
    for policy in POLICIES:
        c = {"open": [0, 0], "decided": [0, 0], "halves": [], "pair": {},
             "runs_called": 0, "called": 0, "covered": 0, "pairs": 0}
        for s in range(seeds):
            # the same seed for both orders: one per run and replay
            rng = random.Random("%s/%d" % (os.path.basename(d.rstrip("/")), s))
            logs = replay(pools, total, policy, rng, level, width, max_reps=max_reps, draw=draw)
            verdicts = calls(logs, level)
            c["runs_called"] += any(v[0] for v in verdicts.values())
            for k, (called, lo, hi) in verdicts.items():
                c["pairs"] += 1
                c["called"] += called
                c["covered"] += (true is not None and lo is not None and lo <= true <= hi)
            for k, x in logs.items():
                h = half(x, level)
                met = len(x) >= 6 and h is not None and h <= width
                c[kind[k]][0] += met
                c[kind[k]][1] += 1
                pk = c["pair"].setdefault(k, [0, 0])
                pk[0] += met
                pk[1] += 1
                if kind[k] == "decided" and h is not None:
                    c["halves"].append(h)
        out[policy] = c
    return total, kind, out


def pct(a, b):
    return "%.1f%%" % (100.0 * a / max(b, 1))


def add(tot, out):
    """Sums OUT (one run's evaluate) into TOT."""
    for p in POLICIES:
        t, o = tot.setdefault(p, {}), out[p]
        for k in ("runs_called", "called", "covered", "pairs"):
            t[k] = t.get(k, 0) + o[k]
        for what in ("open", "decided"):
            t.setdefault(what, [0, 0])
            t[what] = [t[what][0] + o[what][0], t[what][1] + o[what][1]]
        t.setdefault("halves", []).extend(o["halves"])
        for k, v in o["pair"].items():
            t.setdefault("pair", {}).setdefault(k, [0, 0])
            t["pair"][k] = [t["pair"][k][0] + v[0], t["pair"][k][1] + v[1]]


def row_budget(out):
    cells = [pct(*out[p][w]) for w in ("open", "decided") for p in POLICIES]
    return cells + ["%.1f%%" % statistics.median(out[p]["halves"]) if out[p]["halves"]
                    else "-" for p in POLICIES]


def row_known(out, seeds):
    return ["%s | %s | %s" % (pct(out[p]["runs_called"], seeds), pct(out[p]["called"],
                                                                     out[p]["pairs"]),
                              pct(out[p]["covered"], out[p]["pairs"])) for p in POLICIES]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=int, default=0, help="slice pairs a run (default: its own)")
    ap.add_argument("--true", type=float, default=None,
                    help="move every pool to this ratio (1.0: A/A; 0.97: A at 97%%)")
    ap.add_argument("--draw", choices=("smooth", "plain"), default="smooth",
                    help="smoothed bootstrap (default) or plain resampling of the pools")
    ap.add_argument("--max-reps", type=int, default=100, help="udpgso_ab.sh's --max-reps")
    ap.add_argument("--level", type=float, default=95.0)
    ap.add_argument("--width", type=float, default=3.0)
    a = ap.parse_args(argv)
    if (a.seeds < 1 or a.budget < 0 or (a.true is not None and not 0.5 <= a.true <= 2.0)
            or not 6 <= a.max_reps <= 200):
        print("ab_budget_eval.py: --seeds %d --budget %d --true %s --max-reps %d: allowed "
              "--seeds >= 1, --budget >= 0, --true 0.5..2.0, --max-reps 6..200" % (
                  a.seeds, a.budget, a.true, a.max_reps), file=sys.stderr)
        return 2
    L = ["# Where the budget goes: %d replays of each run (%s draws), target ±%g%% at %g%%%s%s"
         % (a.seeds, "smoothed bootstrap" if a.draw == "smooth" else "plain resampled",
            a.width, a.level, "" if a.max_reps == 100 else
            ", at most %d pairs a pair" % a.max_reps, "" if a.true is None else
            ", every pair's pool moved to A/B %g" % a.true), ""]
    if a.true is None:
        L += ["Open pairs: their whole run's interval reaches into ±%g%% of 1.0; decided: "
              "wholly beyond it. Cells: pairs within the target over all replays, and the "
              "decided pairs' median ± (half-width)." % a.width, "",
              "| run | slice pairs | open pairs | decided pairs | nearest: open within | "
              "open-first: open within | nearest: decided within | open-first: decided within | "
              "nearest: decided median ± | open-first: decided median ± |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    else:
        L += ["Per order: replays with any pair called real (Holm over the run's pairs), "
              "pairs called, pairs whose interval covers %g." % a.true, "",
              "| run | slice pairs | %s |" % " | ".join(
                  "%s: runs with a call | %s: pairs called | %s: covered" % (p, p, p)
                  for p in POLICIES), "|---|---|" + "---|---|---|" * len(POLICIES)]
    tot, kinds, runs = {}, {}, 0
    for d in a.dirs:
        fn = ab_rawlog.results_file(d)
        try:
            r = ab_rawlog.read_results(fn) if fn else None
        except (OSError, ValueError) as e:
            print("ab_budget_eval.py: %s: %s" % (d, e), file=sys.stderr)
            return 2
        if r is None or r.get("method") == "inrun":
            print("ab_budget_eval.py: %s: not a slices results directory" % d, file=sys.stderr)
            return 2
        n, kind, out = evaluate(d, r, a.seeds, a.budget, a.level, a.width, a.true,
                                smoothed if a.draw == "smooth" else plain, a.max_reps)
        runs += 1
        add(tot, out)
        for k, v in kind.items():
            kinds.setdefault(k, [0, 0])
            kinds[k] = [kinds[k][0] + (v == "open"), kinds[k][1] + 1]
        name = os.path.basename(d.rstrip("/"))
        if a.true is None:
            L.append("| %s | %d | %d | %d | %s |" % (
                name, n, sum(v == "open" for v in kind.values()),
                sum(v == "decided" for v in kind.values()), " | ".join(row_budget(out))))
        else:
            L.append("| %s | %d | %s |" % (name, n, " | ".join(row_known(out, a.seeds))))
    if a.true is None:
        L.append("| **all %d runs** | | | | %s |" % (runs, " | ".join(row_budget(tot))))
    else:
        L.append("| **all %d runs** | | %s |" % (runs, " | ".join(row_known(tot, runs * a.seeds))))
    L += ["", "Per pair, over all runs: in how many runs it was open, and its replays within "
          "the target under each order.", "",
          "| pair | open in | %s |" % " | ".join("%s: within" % p for p in POLICIES),
          "|---|---|" + "---|" * len(POLICIES)]
    for k, (nopen, n) in sorted(kinds.items(), key=lambda x: (-x[1][0], x[0])):
        L.append("| %s -> %s%s | %d of %d | %s |" % (
            k[0], k[1], "" if k[2] == 4 else " IPv6", nopen, n,
            " | ".join(pct(*tot[p]["pair"][k]) for p in POLICIES)))
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
