#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How far each paced slice of known-effect runs fell from the pacer's model,
in bytes, and in units of the sender's send: one GSO packet's payload
(SIZE x SEGS) for the GSO and zerocopy senders, one datagram for the others
(model: R*T + bucket payload over the receiver's window T, as
scripts/bench/ab_campaign_summary.py pacer_slices has it; TCP left out).
Per tx -> rx pair and setting: a histogram in 0.1-send bins (bins of 3 or
more slices), the slices more than 0.3 of a send short, and their median.

    quantum.py RESULTS.json[.xz] ...
"""
import collections
import json
import lzma
import statistics
import sys

GSO_TX = ("gso-cmsg", "gso-sockopt", "sendmmsg-gso", "zerocopy")


def main():
    h = collections.defaultdict(list)
    for f in sys.argv[1:]:
        with (lzma.open(f) if f.endswith(".xz") else open(f)) as fh:
            r = json.load(fh)
        size, segs = r.get("size") or 1472, r.get("segs") or 44
        for x in r["runs"]:
            pace = x.get("pace") or {}
            if (not pace.get("rate_Bps") or not x.get("rx_MBps") or not x.get("rx_bytes")
                    or x.get("proto") == "tcp"):
                continue
            t = x["rx_bytes"] / (x["rx_MBps"] * 2 ** 20)
            model = pace["rate_Bps"] * t + pace.get("burst", 131072) * size / (size + 42)
            q = size * segs if x["tx_mode"] in GSO_TX else size
            h[(x["tx_mode"], x["rx_mode"], x["setting"])].append((x["rx_bytes"] - model) / q)
    print("%-24s %-2s %5s %9s %8s  histogram (bin of a send: slices, bins of 3 or more)" % (
        "tx -> rx", "AB", "n", "short>0.3", "median"))
    for k in sorted(h):
        v = h[k]
        short = [d for d in v if d < -0.3]
        c = collections.Counter(round(d, 1) + 0.0 for d in v)
        print("%-24s %-2s %5d %9d %8s  %s" % (
            "%s -> %s" % k[:2], k[2], len(v), len(short),
            "%+.2f" % statistics.median(short) if short else "-",
            " ".join("%+.1f:%d" % kv for kv in sorted(c.items()) if kv[1] >= 3)))


if __name__ == "__main__":
    main()
