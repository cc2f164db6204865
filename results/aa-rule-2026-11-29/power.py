#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 26: what the run-level rule costs in power, on the A/A campaigns.

A known effect is added to one pair at a time in every run of an A/A
campaign: its ln(A/B) moves by ln(1 + D) in each run, its se stays (the
slice pairs' noise is the campaign's own), and the between-run tau of the
pair is unchanged (every run moved alike).  Then, per run, the pair is
"found" by
  own:  the run's paired t (p from t = y / se on n - 1 df), Holm over the
        run's pairs with the others' own p unchanged;
  rule: that, and the interval with the between-run term (leave-one-out,
        ab_across.p_value), Holm over the run's pairs on those p.
Printed per campaign and effect: the share of (run, pair) found by each,
over the 13 pairs, and per pair for the rule.

  power.py CAMPAIGN_DIR/KIND... [--effects 2,3,5,10,20]
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "bench"))
import ab_across  # noqa: E402
import ab_stats  # noqa: E402
from ab_campaign_summary import across_runs, pairs, runs_of  # noqa: E402


def key(p):
    return (p["tx_mode"], p["rx_mode"], p.get("family", 4))


def own_p(y, se, n):
    return 1.0 if se <= 0 else 2.0 * (1.0 - ab_stats.t_cdf(abs(y) / se, n - 1))


def study(d, effects):
    rs = runs_of(d)
    x = across_runs(rs)
    k = {}
    for r in rs:
        for p in pairs(r):
            if id(p) in x:
                k[key(p)] = k.get(key(p), 0) + 1
    kinds = sorted({key(p) for r in rs for p in pairs(r) if id(p) in x})
    print("%s: %d runs, %d pairs" % (d, len(rs), len(kinds)))
    base = {}       # each run's pairs and their p without an effect
    for r in rs:
        ps = [p for p in pairs(r) if id(p) in x]
        base[id(r)] = (ps, [own_p(*ab_across.log_se(p["ci"])) for p in ps],
                       [ab_across.p_value(*ab_across.log_se(p["ci"]), x[id(p)][2],
                                          k[key(p)] - 1) for p in ps])
    for e in effects:
        s = math.log(1.0 + e / 100.0)
        own_n = rule_n = tot = 0
        per = {}
        for kd in kinds:
            for r in rs:
                ps, po, pa = base[id(r)]
                if not any(key(p) == kd for p in ps):
                    continue
                i = [key(p) for p in ps].index(kd)
                y, se, n = ab_across.log_se(ps[i]["ci"])
                po, pa = list(po), list(pa)
                po[i] = own_p(y + s, se, n)
                pa[i] = ab_across.p_value(y + s, se, n, x[id(ps[i])][2], k[kd] - 1)
                ho = ab_stats.holm(po, 0.05)
                ha = ab_stats.holm(pa, 0.05)
                tot += 1
                own_n += ho[i]
                rule_n += ho[i] and ha[i]
                c = per.setdefault(kd, [0, 0])
                c[0] += ho[i] and ha[i]
                c[1] += 1
        print("  +%g%%: own %d of %d (%.0f%%), rule %d (%.0f%%); rule by pair: %s" % (
            e, own_n, tot, 100.0 * own_n / tot, rule_n, 100.0 * rule_n / tot,
            ", ".join("%s->%s %d/%d" % (kd[0], kd[1], c[0], c[1])
                      for kd, c in sorted(per.items()))))


if __name__ == "__main__":
    args = sys.argv[1:]
    eff = [2, 3, 5, 10, 20]
    if "--effects" in args:
        i = args.index("--effects")
        eff = [float(v) for v in args[i + 1].split(",")]
        del args[i:i + 2]
    for a in args:
        study(a, eff)
