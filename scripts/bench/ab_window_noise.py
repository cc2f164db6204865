#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: how far apart two windows of the SAME setting in one in-run
run are (udpgso_ab.sh --method inrun results, raw/inrun/*.log): in A B B A
(or B A A B) the first and fourth windows share a setting, and so do the
second and third; ln(w1/w4) and ln(w2/w3) are pure window noise (no A/B
effect in them).  Their sd per tx/rx pair is the noise a window pair's
ln(A/B) carries, before any effect.

    ab_window_noise.py DIR
"""
import glob
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_inrun  # noqa: E402


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: ab_window_noise.py DIR (an in-run results directory)", file=sys.stderr)
        return 1
    by = {}
    for p in sorted(glob.glob(os.path.join(argv[0], "raw", "inrun", "*.log"))):
        r = ab_inrun.parse(p)
        ws = ab_inrun.windows(r)
        if len(ws) != 4 or min(w["rx_MBps"] for w in ws) <= 0:
            continue
        key = "%s -> %s" % (r["head"].get("tx_mode"), r["head"].get("rx_mode"))
        by.setdefault(key, []).append(math.log(ws[0]["rx_MBps"] / ws[3]["rx_MBps"]))
        by[key].append(math.log(ws[1]["rx_MBps"] / ws[2]["rx_MBps"]))
    if not by:
        print("no in-run runs of 4 windows under %s" % argv[0], file=sys.stderr)
        return 1
    print("| tx -> rx | same-setting window pairs | sd of ln(w/w') | median abs |")
    print("|---|---|---|---|")
    allx = []
    for k, xs in by.items():
        allx += xs
        print("| %s | %d | %.1f%% | %.1f%% |" % (k, len(xs), 100 * statistics.stdev(xs),
                                               100 * statistics.median(abs(x) for x in xs)))
    print("| all | %d | %.1f%% | %.1f%% |" % (len(allx), 100 * statistics.stdev(allx),
                                            100 * statistics.median(abs(x) for x in allx)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
