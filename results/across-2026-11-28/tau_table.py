#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per pair of a campaign's runs: the median between-run sd of ln(A/B)
(tau, leave-one-out over the other runs, as ab_campaign_summary.across_runs
and scripts/bench/ab_across.py compute it), the median of the runs' own
half-widths and of the half-widths with the between-run term.

    tau_table.py RUNS_DIR
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "bench"))
import ab_campaign_summary as C  # noqa: E402


def main():
    rs = C.runs_of(sys.argv[1])
    x = C.across_runs(rs)
    rows = {}
    for r in rs:
        for p in C.pairs(r):
            if id(p) in x:
                lo, hi, tau = x[id(p)]
                rows.setdefault("%s -> %s" % (p["tx_mode"], p["rx_mode"]), []).append(
                    (100 * tau, p["ci"]["half_pct"], 100 * (math.sqrt(hi / lo) - 1)))
    print("%d runs in %s" % (len(rs), sys.argv[1]))
    print("%-22s %5s %9s %10s %10s" % ("pair", "runs", "tau %", "own ±%", "across ±%"))
    for k, v in rows.items():
        print("%-22s %5d %9.2f %10.2f %10.2f" % (k, len(v), *(
            statistics.median(c) for c in zip(*v))))


if __name__ == "__main__":
    main()
