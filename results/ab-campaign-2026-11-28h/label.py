#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""label.py RUNDIR...: A/A runs, the effect of the label (ln A/B) and of the
place in the slice pair (ln first/second) over every slice pair of every
run and per tx/rx pair: mean with a 95% normal interval."""
import json, lzma, math, sys, os, statistics
def load(d):
    for n in ("results.json", "results.json.xz"):
        p = os.path.join(d, n)
        if os.path.exists(p):
            return json.load(lzma.open(p) if n.endswith("xz") else open(p))
lab, pos = [], []
per = {}
for d in sys.argv[1:]:
    r = load(d)
    if r is None: continue
    by = {}
    for x in r["runs"]:
        if x.get("rx_MBps"):
            by.setdefault((x["tx_mode"], x["rx_mode"], x["rep"]), {})[x["setting"]] = (x["rx_MBps"], x["index"])
    for k, v in by.items():
        if "A" in v and "B" in v:
            l = math.log(v["A"][0] / v["B"][0])
            lab.append(l)
            pos.append(l if v["A"][1] < v["B"][1] else -l)
            per.setdefault(k[:2], []).append(l)
def ci(xs):
    m = statistics.mean(xs); se = statistics.stdev(xs) / math.sqrt(len(xs))
    return "%.2f%% +- %.2f%% (n %d)" % (100 * m, 196 * se, len(xs))
print("ln(A/B) over every slice pair (label):", ci(lab))
print("ln(first/second) (position):", ci(pos))
for k in sorted(per):
    print("  %s -> %s: %s" % (k[0], k[1], ci(per[k])))
# the pairs of one run whose slice pairs lean one way in 80% or more of at
# least 8 (the share of B faster, by which slice ran first)
for d in sys.argv[1:]:
    r = load(d)
    if r is None:
        continue
    by = {}
    for x in r["runs"]:
        if x.get("rx_MBps"):
            by.setdefault((x["tx_mode"], x["rx_mode"]), {}).setdefault(x["rep"], {})[
                x["setting"]] = (x["rx_MBps"], x["index"])
    for k, reps in sorted(by.items()):
        ps = [v for v in reps.values() if "A" in v and "B" in v]
        if len(ps) < 8:
            continue
        bf = sum(1 for v in ps if v["B"][0] > v["A"][0])
        if max(bf, len(ps) - bf) >= 0.8 * len(ps):
            ab = [v for v in ps if v["A"][1] < v["B"][1]]
            print("%s %s -> %s: B faster in %d of %d pairs (%d of %d with A first)" % (
                os.path.basename(d.rstrip("/"))[:16], k[0], k[1], bf, len(ps),
                sum(1 for v in ab if v["B"][0] > v["A"][0]), len(ab)))
