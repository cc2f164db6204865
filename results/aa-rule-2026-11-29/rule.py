#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 26: the run-level rule for calling a pair real, on the campaigns.

Each run's own rule: its paired-t interval over the run's slice pairs
excludes 1.0 and passes Holm over the run's pairs.  The run-level rule
(ab_across.call, make run's verdict with 3 or more other runs of the
machine): the interval with the between-run term must pass too; here each
run's term comes from the other runs of its campaign (leave-one-out,
ab_campaign_summary.across_calls).

  rule.py CAMPAIGN_DIR/KIND...     (e.g. ../ab-campaign-2026-11-28h/aa)

Per folder: runs, pairs, the pairs and runs each rule calls (and how many
with A below B), and the calls of each run.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "bench"))
from ab_campaign_summary import across_calls, pairs, runs_of  # noqa: E402


def study(d):
    rs = runs_of(d)
    c = across_calls(rs)
    print("%s: %d runs, %d pairs with a between-run term" % (d, len(rs), len(c)))
    for name, real in (("own ", lambda p: p["ci"]["real"]), ("rule", lambda p: c.get(id(p)))):
        ps = [p for r in rs for p in pairs(r) if id(p) in c and real(p)]
        print("  %s: %d pairs called (%d A<B), %d runs with a call" % (
            name, len(ps), sum(1 for p in ps if p["ci"]["ratio"] < 1.0),
            sum(1 for r in rs if any(id(p) in c and real(p) for p in pairs(r)))))
    for r in rs:
        own = [p for p in pairs(r) if p["ci"]["real"]]
        if own:
            print("  %s: own %s; rule %s" % (r["_dir"][:16], " ".join(
                "%s->%s %.3f" % (p["tx_mode"], p["rx_mode"], p["ci"]["ratio"]) for p in own),
                " ".join("%s->%s" % (p["tx_mode"], p["rx_mode"]) for p in pairs(r)
                         if c.get(id(p))) or "-"))


if __name__ == "__main__":
    for a in sys.argv[1:]:
        study(a)
