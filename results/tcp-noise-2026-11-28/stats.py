#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stats.py LOG...: per run.sh log, the slices' MB/s (mean, sd, min, max) and
the median of their retransmitted and DSACKed segments."""
import re
import statistics as st
import sys

for fn in sys.argv[1:]:
    v, rt, ds = [], [], []
    for line in open(fn):
        p = line.split()
        if len(p) > 1 and p[0].isdigit():
            v.append(float(p[1]))
            for lst, key in ((rt, "TcpRetransSegs"), (ds, "TcpExtTCPDSACKRecvSegs")):
                m = re.search(key + r"=(\d+)", line)
                lst.append(int(m.group(1)) if m else 0)
    print("%s: %d slices, MB/s mean %.0f sd %.1f%% min %.0f max %.0f; per slice: retransmitted"
          " segments median %d, DSACKed %d" % (fn, len(v), st.mean(v), 100 * st.stdev(v) /
                                            st.mean(v), min(v), max(v), st.median(rt),
                                            st.median(ds)))
