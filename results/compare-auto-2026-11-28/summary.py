#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""summary.py OUT: what run.sh's comparisons said: how many exited 0, 1 and 2
(ab_compare.py's code: make exits 2 when it fails, its stderr names the code),
how many had any verdict (every one is the same code: any is false), which
pairs were called, and where each comparison's between-run term came from
(--between auto: how many runs of the machine beside OLD and NEW)."""

import collections
import glob
import json
import os
import sys


def main():
    out = sys.argv[1]
    rcs, called, calib, wrong = collections.Counter(), collections.Counter(), \
        collections.Counter(), []
    n = 0
    for fn in sorted(glob.glob(os.path.join(out, "*.json"))):
        n += 1
        rc = open(fn[:-5] + ".rc").read().strip()
        if rc == "2":       # make exits 2 when a recipe fails: the tool's code
            err = open(fn[:-5] + ".err").read()
            rc = "1" if "] Error 1" in err else "2"
        rcs[rc] += 1
        rep = json.load(open(fn))
        b = rep.get("between")
        calib["%d runs (auto)" % len(b["results_dirs"]) if b else
              "blocks (auto found %d)" % rep["between_auto"]["found"]
              if rep.get("between_auto") else "blocks"] += 1
        v = ["%s->%s %s" % (p["tx_mode"], p["rx_mode"], p["verdict"]) for p in rep["pairs"]
             if p["verdict"] != "within noise" and p["setting"] == "A"]
        for x in v:
            called[x] += 1
        if v:
            wrong.append("%s: %s" % (os.path.basename(fn)[:-5], "; ".join(v)))
    print("%d comparisons of the same code; ab_compare's exit codes: %s" % (
        n, ", ".join("%s: %d" % kv for kv in sorted(rcs.items()))))
    print("any verdict (false): %d of %d" % (len(wrong), n))
    print("between-run term: %s" % ", ".join("%s: %d" % kv for kv in sorted(calib.items())))
    for k, c in called.most_common():
        print("  %s: %d" % (k, c))
    for w in wrong:
        print("  " + w)


if __name__ == "__main__":
    main()
