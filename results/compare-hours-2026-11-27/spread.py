#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""spread.py TOP DIR...: each tx/rx pair's level against its kind per run
(the mean of ln over the run's rounds, as make compare's headline family
takes it), for the default runs in the DIRs (results directories, in time
order), and its between-run sd: compare_levels.run_means_tau2 over all the
runs, and over all but one (LEAVE, a run's name) to show what a calibration
without it says.  TOP: the repository (its scripts/bench is imported)."""

import math
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "scripts/bench"))
import ab_compare as ac  # noqa: E402
import compare_levels as cl  # noqa: E402


def main(argv):
    leave = None
    if argv and argv[0].startswith("--leave="):
        leave, argv = argv[0][len("--leave="):], argv[1:]
    dirs = sorted((d for a in argv for d in ac.results_dirs(a)), key=os.path.basename)
    runs = ac.merge_runs("runs", [ac.load(d, "DIR") for d in dirs], "DIR")
    by = {}
    for key, g in ac.group(runs).items():
        by.setdefault(key[:2], []).extend(g["ok"])
    order = list(by)
    lv = {k: cl.side_levels(by[k]) for k in order}
    rel = cl.per_run_relative(lv, True, ())
    names = [os.path.basename(d)[:16] for d in dirs]
    print("# %d runs: %s" % (len(dirs), ", ".join(names)))
    print("")
    print("pair; level against its kind per run (exp of the run's mean ln); between-run sd "
          "(%%) over all runs%s" % ("; without %s" % leave if leave else ""))
    for k in order:
        means = ["%.3f" % math.exp(sum(map(math.log, r)) / len(r)) if r else "-"
                 for r in rel[k]]
        t = cl.run_means_tau2(cl.nonempty(rel[k]))
        out = "%s -> %s; %s; %.1f" % (k[0], k[1], " ".join(means), 100 * math.sqrt(t[0]))
        if leave:
            t2 = cl.run_means_tau2(cl.nonempty([r for n, r in zip(names, rel[k])
                                                if not n.startswith(leave)]))
            out += "; %.1f" % (100 * math.sqrt(t2[0]))
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[2:]))
