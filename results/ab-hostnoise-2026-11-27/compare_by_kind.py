#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An experiment on this campaign, not part of the tool: `make compare`'s
headline family takes each pair's level against the geometric mean of the
other pairs of its round (at 800b4b5; by kind since compare_levels.py).  The variants
take it against the other pairs of its kind only ("kind": non-GSO UDP =
sendto, sendmmsg; GSO = gso-cmsg, gso-sockopt, sendmmsg-gso, zerocopy; tcp is
alone, so against all), and the same with the median of those pairs instead
of their geometric mean ("kind-median": one pair's change moves its kind's
reference less).  For every two consecutive runs (OLD, NEW): any verdict with
the same code, and for each pair whether a 20% cut of its rx MB/s (A and B,
every repetition of NEW) is a regression, and how many times another pair
got a verdict with it.  Holm over the 13 cells at 5%, threshold 5%, Welch's
t on the log levels: compare_stats.headline_verdicts, as ab_compare.py.

    python3 results/ab-hostnoise-2026-11-27/compare_by_kind.py \\
        results/ab-hostnoise-2026-11-27/default
"""
import glob
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "bench"))
import compare_levels  # noqa: E402
import compare_stats  # noqa: E402

KIND = {"sendto": "udp", "sendmmsg": "udp", "tcp": "tcp"}


def kind(pair):
    return KIND.get(pair[0], "gso")


def levels(res, cut=None):
    """pair -> its per-repetition levels (compare_levels.pair_levels), CUT's x 0.8."""
    by = {}
    for r in res["runs"]:
        if r.get("status") != "ok":
            continue
        k = (r["tx_mode"], r["rx_mode"])
        r = dict(r, rx_MBps=r["rx_MBps"] * (0.8 if k == cut else 1.0))
        by.setdefault(k, []).append(r)
    return {k: compare_levels.pair_levels(v) for k, v in by.items()}


def relative(lv, mode):
    out = {}
    for k, xs in lv.items():
        grp = [q for q in lv if q != k and (mode == "all" or kind(q) == kind(k))]
        if len(grp) < 2:
            grp = [q for q in lv if q != k]
        rel = []
        for i, x in enumerate(xs):
            o = [lv[q][i] for q in grp if len(lv[q]) > i]
            if len(o) < 2:
                continue
            if mode == "kind-median":
                ref = statistics.median(o)
            else:
                ref = math.exp(sum(map(math.log, o)) / len(o))
            rel.append(x / ref)
        out[k] = rel
    return out


def verdicts(old, new, mode):
    lo, ln = relative(old, mode), relative(new, mode)
    keys = sorted(lo)
    fv = compare_stats.headline_verdicts([(lo[k], ln[k], 0.05, "higher") for k in keys], 0.95)
    return {k: f["verdict"] for k, f in zip(keys, fv)}


def main(d):
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(d, "*", "results.json")))]
    for mode in ("all", "kind", "kind-median"):
        same, found = 0, {}
        for a, b in zip(runs, runs[1:]):
            lo = levels(a)
            same += any(v != "within noise" for v in verdicts(lo, levels(b), mode).values())
            for k in lo:
                v = verdicts(lo, levels(b, cut=k), mode)
                f = found.setdefault(k, [0, 0, 0])
                f[0] += v[k] == "regression"
                f[1] += 1
                f[2] += sum(1 for q, x in v.items() if q != k and x != "within noise")
        print("%s: same code, runs with any verdict: %d of %d" % (mode, same, len(runs) - 1))
        for k in sorted(found, key=lambda k: (kind(k), k)):
            print("   %-20s 20%% cut found %2d of %d (verdicts on other pairs: %d)" % (
                "%s -> %s" % k, *found[k]))


if __name__ == "__main__":
    main(sys.argv[1])
