#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""spread_tcp.py TOP DIR...: tcp -> tcp's level against three references,
per run (the mean of ln over its rounds, each round's reference taken as the
headline family takes it: compare_levels.relative_levels, by round), and the
between-run sd of each over the runs in the DIRs (compare_levels.
run_means_tau2): every other pair (make compare's reference for tcp today),
the four non-GSO UDP pairs, the eight GSO pairs.  Also the median
within-run sd of tcp's relative units.  TOP: the repository."""

import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "scripts/bench"))
import ab_compare as ac  # noqa: E402
import compare_levels as cl  # noqa: E402

TCP = ("tcp", "tcp")


def main(argv):
    dirs = sorted((d for a in argv for d in ac.results_dirs(a)), key=os.path.basename)
    refs = {"every other pair": lambda k: k != TCP,
            "non-GSO UDP": lambda k: cl.TX_KIND.get(k[0]) == "udp",
            "GSO": lambda k: cl.TX_KIND.get(k[0]) == "gso"}
    means = {n: [] for n in refs}
    within = {n: [] for n in refs}
    for d in dirs:
        res = ac.load(d, "DIR")
        by = {}
        for r in res["runs"]:
            if r.get("status", "ok") == "ok":
                by.setdefault((r["tx_mode"], r["rx_mode"]), []).append(r)
        lv = {k: cl.pair_levels(v) for k, v in by.items()}
        for n, f in refs.items():
            sub = {k: v for k, v in lv.items() if k == TCP or f(k)}
            rel = cl.relative_levels(sub)[TCP]
            if len(rel) >= 2:
                ls = [math.log(x) for x in rel]
                means[n].append(rel)
                within[n].append(statistics.stdev(ls))
    print("# %d runs: %s" % (len(dirs), ", ".join(os.path.basename(d)[:16] for d in dirs)))
    print("")
    print("| reference | runs | tcp's level per run (exp of the mean ln) | between-run sd (%)"
          " | within-run sd of a unit, median (%) |")
    print("|---|---|---|---|---|")
    for n in refs:
        t = cl.run_means_tau2(means[n])
        lvl = " ".join("%.3f" % math.exp(sum(map(math.log, r)) / len(r)) for r in means[n])
        print("| %s | %d | %s | %s | %.1f |" % (
            n, len(means[n]), lvl, "%.1f" % (100 * math.sqrt(t[0])) if t else "-",
            100 * statistics.median(within[n])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[2:]))
