#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sim_split.py TREE: the simulation of compare_levels_test.py's
between_run_term_keeps_same_code_quiet (200 pairs of state_runs, seed 7) at
thresholds 5% and 2%, with the GSO kind as it is and split by receiver (as
split_power.py patches it): A/A calls and a non-GSO UDP pair's 20% cut found."""
import os
import random
import sys


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: sim_split.py TREE")
    sys.path.insert(0, os.path.join(argv[0], "scripts", "tests"))
    sys.path.insert(0, os.path.join(argv[0], "scripts", "bench"))
    import compare_levels as cl
    import compare_levels_test as t
    plain_kind = cl.kind_of

    def split(pair):
        k = plain_kind(pair)
        return "gso-%s" % ("gro" if pair[1].startswith("gro") else "plain") if k == "gso" else k
    for name, kind in (("as is", plain_kind), ("split", split)):
        cl.kind_of = kind
        rng = random.Random(7)
        calls, found = {0.05: 0, 0.02: 0}, {0.05: 0, 0.02: 0}
        for _ in range(200):
            old, new = t.state_runs(rng), t.state_runs(rng)
            cut = t.state_runs(rng, cut=[t.UDP[2]])
            for thr in calls:
                calls[thr] += bool(t.verdicts(t.family(old, new, thr=thr)[2]))
                found[thr] += t.verdicts(t.family(old, cut, thr=thr)[2]).get(t.UDP[2]) == \
                    "regression"
        print("%s: A/A calls of 200 %s; UDP cut found %s" % (name, calls, found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
