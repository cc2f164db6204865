#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare_mutate.py SRC DST OP [ARGS] [-- OP [ARGS]]...: write DST/results.json,
a changed copy of SRC/results.json, for compare_test.sh.  Ops:
  scale TX RX SETTING FIELD FACTOR   multiply FIELD of that configuration's runs
  drop TX RX SETTING                 remove that configuration's runs
  schema VALUE                       set "schema" (a JSON value)
  unset-run-field FIELD              remove FIELD from every run
  setting S SPEC                     set settings[S] to SPEC
  secs VALUE                         set "secs" (the slice length, -l) to a number
  steady SD SEED                     every run's rx_MBps := its configuration's median
                                     x exp(N(0, SD)) (a machine whose levels move by SD)
"""

import json
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from ab_rawlog import read_results, results_file  # noqa: E402


def apply(res, op, a):
    runs = res["runs"]
    if op == "scale":
        tx, rx, st, field, factor = a[0], a[1], a[2], a[3], float(a[4])
        hit = 0
        for r in runs:
            if (r["tx_mode"], r["rx_mode"], r["setting"]) == (tx, rx, st):
                r[field] = r[field] * factor
                hit += 1
        if not hit:
            sys.exit("compare_mutate: no configuration %s/%s %s" % (tx, rx, st))
    elif op == "drop":
        res["runs"] = [r for r in runs if (r["tx_mode"], r["rx_mode"], r["setting"]) !=
                       (a[0], a[1], a[2])]
    elif op == "schema":
        res["schema"] = json.loads(a[0])
    elif op == "unset-run-field":
        for r in runs:
            r.pop(a[0], None)
    elif op == "setting":
        res["settings"][a[0]] = a[1]
    elif op == "secs":
        res["secs"] = float(a[0])
    elif op == "steady":
        sd, rnd = float(a[0]), random.Random(int(a[1]))
        med = {}
        for r in runs:
            med.setdefault((r["tx_mode"], r["rx_mode"], r["setting"]), []).append(r["rx_MBps"])
        for r in runs:
            m = statistics.median(med[(r["tx_mode"], r["rx_mode"], r["setting"])])
            r["rx_MBps"] = m * math.exp(rnd.gauss(0, sd))
    else:
        sys.exit("compare_mutate: unknown op %r" % op)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, dst, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    res = read_results(results_file(src) or os.path.join(src, "results.json"))
    ops, cur = [], []
    for w in rest:
        if w == "--":
            ops.append(cur)
            cur = []
        else:
            cur.append(w)
    ops.append(cur)
    for o in ops:
        apply(res, o[0], o[1:])
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "results.json"), "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    main()
