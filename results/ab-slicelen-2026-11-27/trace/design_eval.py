#!/usr/bin/env python3
"""From a receiving device's byte counter sampled every 50 ms during one long
CPU-bound send (trace.sh), what a slice design would see: slices of B seconds
with a gap of G seconds between them (a new process's start and end), units
AB (ln A - ln B) or ABBA ((ln A1 - ln B1 - ln B2 + ln A2) / 2), units tiled
through the trace.  Prints each design's sd per unit, the units a +-3% 95%
t-interval needs at that sd, and the seconds that takes."""
import math
import statistics as st
import sys
from bisect import bisect_left

dev = [tuple(map(float, l.split()[:2])) for l in open(sys.argv[1])]
G = float(sys.argv[2]) if len(sys.argv) > 2 else 0.16
ts = [d[0] for d in dev]
t_lo, t_hi = ts[0] + 2.0, ts[-1] - 2.0


def at(t):
    i = bisect_left(ts, t)
    a, b = dev[i - 1], dev[i]
    return a[1] + (t - a[0]) / (b[0] - a[0]) * (b[1] - a[1])


def tq(df):
    # 97.5% t quantile (Cornish-Fisher-free: table for small df, else normal+)
    tab = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
           9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042}
    if df in tab:
        return tab[df]
    k = max(x for x in tab if x <= df) if df < 30 else None
    return tab[k] if k else 1.96 + 2.4 / df


def need(sd):
    for n in range(2, 2000):
        if tq(n - 1) * sd / math.sqrt(n) <= 0.03:
            return n
    return 2000


def units(b, k, start):
    out = []
    t = start
    while t + k * (b + G) <= t_hi:
        r = []
        for j in range(k):
            s = t + j * (b + G)
            r.append(math.log((at(s + b) - at(s)) / b))
        out.append(r[0] - r[1] if k == 2 else (r[0] - r[1] - r[2] + r[3]) / 2)
        t += k * (b + G)
    return out


print(f"trace {t_hi - t_lo:.0f} s, gap {G} s per slice")
print("| slice | design | units | sd per unit | units for +-3% | seconds |")
print("|---|---|---|---|---|---|")
for b in (0.25, 0.5, 1.0, 2.0):
    for name, k in (("AB", 2), ("ABBA", 4)):
        # several phases of the tiling, pooled
        u = []
        for ph in range(4):
            u += units(b, k, t_lo + ph * (b + G) / 4)
        sd = st.stdev(u)
        n = need(sd)
        print(f"| {b} s | {name} | {len(u) // 4} | {sd * 100:.1f}% | {n} | {n * k * (b + G):.0f} |")
