#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The run-level rule as each run of a campaign applied it when it was made
(results.json ab[].ci[metric].across_runs, against the runs of the campaign
made before it): per run, the pairs its own interval called, those the rule
kept, and whether it had a between-run term (3 or more runs before it).

  live.py RUN_DIR...
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "bench"))
from ab_rawlog import read_results, results_file  # noqa: E402

runs = own_runs = rule_runs = with_term = 0
for d in sys.argv[1:]:
    if not results_file(d):        # a run not finished
        continue
    r = read_results(results_file(d))
    own, kept, term = [], [], False
    for a in r.get("ab") or []:
        iv = a["ci"][a.get("ci_metric") or "rx_MBps"]
        x = iv.get("across_runs")
        term = term or bool(x)
        name = "%s->%s %.3f" % (a["tx_mode"], a["rx_mode"], iv.get("ratio") or 0)
        if iv.get("excludes_1") and iv.get("holm"):
            own.append(name)
            if not x or x.get("real"):
                kept.append(name)
    runs += 1
    own_runs += bool(own)
    rule_runs += bool(kept)
    with_term += term
    print("%s: between-run term %s; own: %s; kept: %s" % (
        os.path.basename(d.rstrip("/"))[:16], "yes" if term else "no",
        ", ".join(own) or "-", ", ".join(kept) or "-"))
print("%d runs (%d with a between-run term): own rule %d runs with a call, "
      "the live run-level rule %d" % (runs, with_term, own_runs, rule_runs))
