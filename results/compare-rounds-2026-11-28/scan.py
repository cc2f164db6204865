#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scan.py TOP: every committed slices run below TOP/results whose pairs do
not all run in consecutive rounds from the first (a pair that stopped and
came back later: its k-th unit is not in round k).  A round runs each pair
it has once (compare_levels.mark_rounds counts them the same way).  Prints
one line per such run (its first three such pairs, with their rounds) and
the count."""

import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "scripts", "bench"))
from ab_rawlog import read_results, results_file  # noqa: E402
import compare_levels as cl  # noqa: E402


def main(top):
    bad = tot = 0
    default = [0, 0]
    for d, dirs, _ in sorted(os.walk(os.path.join(top, "results"))):
        dirs.sort()
        fn = results_file(d)
        if not fn:
            continue
        try:
            res = read_results(fn)
        except (ValueError, OSError):
            continue
        if not isinstance(res, dict) or res.get("method") != "slices":
            continue
        runs = [r for r in res.get("runs", []) if isinstance(r, dict)]
        cl.mark_rounds(runs)
        rounds = {}
        for r in sorted(runs, key=lambda x: x.get("_round", -1)):
            if "_round" not in r:
                break
            k = "%s -> %s" % (r["tx_mode"], r["rx_mode"])
            if rounds.get(k, [None])[-1] != r["_round"]:
                rounds.setdefault(k, []).append(r["_round"])
        tot += 1
        dflt = d.endswith("-default")
        default[1] += dflt
        mis = {k: v for k, v in rounds.items() if v != list(range(len(v)))}
        if mis:
            bad += 1
            default[0] += dflt
            print("%s: %s" % (os.path.relpath(d, top), "; ".join(
                "%s rounds %s" % (k, ",".join(map(str, v))) for k, v in list(mis.items())[:3])))
    print("# %d of %d slices runs have a pair whose units are not in rounds 0, 1, 2, ...;"
          " of the default runs, %d of %d" % (bad, tot, default[0], default[1]))


if __name__ == "__main__":
    main(sys.argv[1])
