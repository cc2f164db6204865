#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An experiment, not part of the tool: make compare's headline family (first
pass, against the kind, compare_levels) with and without a between-run term.
"tau": each pair's Welch standard error gets a DerSimonian-Laird between-run
variance added, estimated from the other pairs of its kind (leave-one-out, so
a cut pair does not widen its own interval).  Prints, for two consecutive runs
(--all: every two) of DIR, how many same-code comparisons gave any verdict and
how often a 20% cut of each non-GSO UDP pair was called a regression.

    python3 results/compare-kind-2026-11-27/between_run_term.py DIR [--all]
"""
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "bench"))
import compare_levels as cl  # noqa: E402
import compare_stats as cs  # noqa: E402

WELCH = cs.welch_log
EXTRA = {}      # (id(old levels), id(new levels)) -> the between-run variance added


def welch_with_tau(old, new):
    w = WELCH(old, new)
    if w is None:
        return w
    d, se, df = w
    return d, math.sqrt(se * se + EXTRA.get((id(old), id(new)), 0.0)), df


cs.welch_log = welch_with_tau


def levels(res, cut=()):
    by = {}
    for r in res["runs"]:
        if r.get("status", "ok") != "ok":
            continue
        k = (r["tx_mode"], r["rx_mode"])
        r = dict(r)
        if k in cut and r.get("rx_MBps"):
            r["rx_MBps"] *= 0.8
        by.setdefault(k, []).append(r)
    return {k: cl.pair_levels(v) for k, v in by.items()}


def tau2(ds, mates):
    """DerSimonian-Laird between-run variance over MATES' (d, se, df)."""
    w = [1.0 / max(ds[q][1] ** 2, 1e-12) for q in mates]
    d = [ds[q][0] for q in mates]
    dw = sum(a * b for a, b in zip(w, d)) / sum(w)
    q = sum(a * (b - dw) ** 2 for a, b in zip(w, d))
    den = sum(w) - sum(a * a for a in w) / sum(w)
    return max(0.0, (q - (len(mates) - 1)) / den)


def verdicts(ao, an, mode):
    lo, ln = cl.relative_levels(ao, True), cl.relative_levels(an, True)
    ks = [k for k in ao if lo[k] and ln[k]]
    EXTRA.clear()
    if mode == "tau":
        ds = {k: WELCH(lo[k], ln[k]) for k in ks}
        for k in ks:
            mates = [q for q in ks if q != k and cl.kind_of(q) == cl.kind_of(k) and ds[q]]
            if len(mates) >= 2:
                EXTRA[(id(lo[k]), id(ln[k]))] = tau2(ds, mates)
    fv = cs.headline_verdicts([(lo[k], ln[k], 0.05, "higher") for k in ks], 0.95)
    return {k: f["verdict"] for k, f in zip(ks, fv)}


def main(d, every):
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(d, "*", "results.json")))]
    n = len(runs)
    idx = [(i, j) for i in range(n) for j in range(i + 1, n)] if every else \
        [(i, i + 1) for i in range(n - 1)]
    for mode in ("plain", "tau"):
        same, found = 0, {}
        for i, j in idx:
            a = levels(runs[i])
            same += any(x != "within noise" for x in verdicts(a, levels(runs[j]), mode).values())
            for k in [q for q in a if cl.kind_of(q) == "udp"]:
                v = verdicts(a, levels(runs[j], cut=(k,)), mode)
                found[k] = found.get(k, 0) + (v.get(k) == "regression")
        print("%-5s the same code: %d of %d with a verdict; 20%% cut found: %s" % (
            mode, same, len(idx), ", ".join("%s/%s %d" % (k + (c,)) for k, c in found.items())))


if __name__ == "__main__":
    main(sys.argv[1], "--all" in sys.argv[2:])
