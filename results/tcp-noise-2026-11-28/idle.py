#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""idle.py RESULTS_DIR: per slice of a udpgso_ab.sh run (time order) its rx
MB/s and the idle and steal ticks of all CPUs during it (the raw log's stat0
and stat1 lines); then the slices' sd and the sd of the pairs' ln(A/B)."""
import json
import math
import os
import statistics as st
import sys

top = sys.argv[1]
runs = sorted((x for x in json.load(open(os.path.join(top, "results.json")))["runs"]
               if x["status"] == "ok"), key=lambda x: x["times"]["start"])
t0 = runs[0]["times"]["start"]
for x in runs:
    stat = {}
    for line in open(os.path.join(top, x["raw_log"])):
        if line.startswith(("stat0", "stat1")):
            stat[line[:5]] = [int(v) for v in line.split()[2:]]
    d = [b - a for a, b in zip(stat["stat0"], stat["stat1"])]
    print("%s %2d %7.1f MB/s  t=%5.1f s  idle %d  steal %d ticks" % (
        x["setting"], x["rep"], x["rx_MBps"], x["times"]["start"] - t0, d[3], d[7]))
by = {}
for x in runs:
    by.setdefault(x["rep"], {})[x["setting"]] = x["rx_MBps"]
lr = [math.log(v["A"] / v["B"]) for v in by.values() if len(v) == 2]
mb = [x["rx_MBps"] for x in runs]
print("%d slices: mean %.0f MB/s, sd %.1f%%; %d pairs: sd of ln(A/B) %.1f%%" % (
    len(mb), st.mean(mb), 100 * st.stdev(mb) / st.mean(mb), len(lr), 100 * st.stdev(lr)))
