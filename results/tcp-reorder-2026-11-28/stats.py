#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stats.py LOG: per variant of probe.sh's LOG the slices' median rx MB/s, the sd
of ln(MB/s), the range and the median retransmitted segments"""
import sys, statistics as st, math
d = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 4 and f[0].isdigit():
        d.setdefault(f[1], []).append((float(f[2]), int(f[3])))
for v, xs in d.items():
    m = [x[0] for x in xs]
    lg = [math.log(x) for x in m]
    print('%s n=%d median %.0f MB/s sd(log) %.1f%% min %.0f max %.0f retrans median %d' % (
        v, len(m), st.median(m), 100 * st.stdev(lg), min(m), max(m), st.median([x[1] for x in xs])))
