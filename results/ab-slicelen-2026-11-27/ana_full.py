#!/usr/bin/env python3
"""The full make-run matrix at each slice length: per run, the pairs within
+-3%, the median half-width, and the five pairs whose effect does not depend
on the machine's state (sendto, sendmmsg -> plain, gro; tcp -> tcp): their
half-widths, units and the sd of a unit's ln(A/B)."""
import glob, json, math, statistics as st, sys
base = sys.argv[1] if len(sys.argv) > 1 else "."
SI = [("sendto", "plain"), ("sendto", "gro"), ("sendmmsg", "plain"), ("sendmmsg", "gro"),
      ("tcp", "tcp")]
print("| run | slice | load at start | within ±3% | median half-width | the 5 state-independent pairs: half-width (units, sd of a unit) |")
print("|---|---|---|---|---|---|")
for f in sorted(glob.glob(base + "/full*/*/results.json"), key=lambda f: f.split("/")[-2]):
    d = json.load(open(f))
    hw = [a["ci"]["rx_MBps"]["half_pct"] for a in d["ab"]]
    by = {(a["tx_mode"], a["rx_mode"]): a for a in d["ab"]}
    si = []
    for k in SI:
        a = by[k]
        lr = [math.log(x) for x in a["run_ratios"]]
        si.append("±%.1f%% (%d, %.1f%%)" % (a["ci"]["rx_MBps"]["half_pct"], len(lr), 100 * st.stdev(lr)))
    print("| %s | %g s | %s | %d of 13 (%d of 5) | ±%.1f%% | %s |" % (
        f.split("/")[-2][:16], d["secs"], d["loadavg"]["start"], sum(h <= 3.0 for h in hw),
        sum(by[k]["ci"]["rx_MBps"]["half_pct"] <= 3.0 for k in SI), st.median(hw), "; ".join(si)))
