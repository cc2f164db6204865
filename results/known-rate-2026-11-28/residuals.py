#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How far each slice of known-effect runs strayed from the pacer's model:
per tx -> rx pair and setting, a histogram of 100*ln(measured / model) in
0.1% bins (model: R*T + bucket payload over the receiver's window T, as
scripts/bench/ab_campaign_summary.py pacer_slices has it), every slice of
the runs (warm-up excluded), and the mean.

    residuals.py RESULTS.json[.xz] ...
"""
import collections
import json
import lzma
import math
import sys


def main():
    h = collections.defaultdict(list)
    for f in sys.argv[1:]:
        with (lzma.open(f) if f.endswith(".xz") else open(f)) as fh:
            r = json.load(fh)
        size = r.get("size") or 1472
        for x in r["runs"]:
            pace = x.get("pace") or {}
            if not pace.get("rate_Bps") or not x.get("rx_MBps") or not x.get("rx_bytes"):
                continue
            pl, hdr = (1448, 66) if x.get("proto") == "tcp" else (size, 42)
            t = x["rx_bytes"] / (x["rx_MBps"] * 2 ** 20)
            model = pace["rate_Bps"] + pace.get("burst", 131072) * pl / (pl + hdr) / t
            h[(x["tx_mode"], x["rx_mode"], x["setting"])].append(
                100 * math.log(x["rx_MBps"] * 2 ** 20 / model))
    print("%-24s %-2s %5s %8s %7s  histogram (bin %%: slices)" % (
        "tx -> rx", "AB", "n", "mean %", "|>0.1%|"))
    for k in sorted(h):
        v = h[k]
        c = collections.Counter(round(d, 1) + 0.0 for d in v)
        print("%-24s %-2s %5d %+8.3f %7d  %s" % (
            "%s -> %s" % k[:2], k[2], len(v), sum(v) / len(v),
            sum(1 for d in v if abs(d) > 0.1),
            " ".join("%+.1f:%d" % kv for kv in sorted(c.items()))))


if __name__ == "__main__":
    main()
