#!/usr/bin/env python3
"""Slice-length experiment: per --secs, each run's pairs: units, sd of a
unit's ln(A/B), the 95% half-width, and the wall seconds per unit; then
the medians, and sd^2 x seconds per unit (what a +-W% interval costs, up
to the t quantile)."""
import glob, json, math, statistics as st, sys
base = sys.argv[1] if len(sys.argv) > 1 else "."
rows = {}
for f in sorted(glob.glob(base + "/s*/*/results.json")):
    d = json.load(open(f))
    secs = d["secs"]
    units = sum(a["n_runs"] for a in d["ab"])
    per_unit = d["timing"]["wall_s"] / units
    for a in d["ab"]:
        lr = [math.log(x) for x in a["run_ratios"]]
        hw = a["ci"]["rx_MBps"].get("half_pct") if isinstance(a["ci"]["rx_MBps"], dict) else None
        rows.setdefault(secs, []).append((f.split("/")[-2][:16], "%s>%s" % (a["tx_mode"], a["rx_mode"]),
                                          len(lr), st.stdev(lr), hw, per_unit))
print("| slice | runs | pair-runs | units per pair (median) | sd of a unit's ln(A/B), median | half-width, median | wall s per unit | sd^2 x s/unit (median) |")
print("|---|---|---|---|---|---|---|---|")
for secs in sorted(rows):
    r = rows[secs]
    cost = [x[3] ** 2 * x[5] * 1e4 for x in r]
    hws = [x[4] for x in r if x[4] is not None]
    print("| %g s | %d | %d | %g | %.1f%% | %s | %.2f | %.1f |" % (
        secs, len({x[0] for x in r}), len(r), st.median(x[2] for x in r),
        100 * st.median(x[3] for x in r), ("±%.1f%%" % st.median(hws)) if hws else "-",
        st.median(x[5] for x in r), st.median(cost)))
if "-v" in sys.argv:
    for secs in sorted(rows):
        for x in rows[secs]:
            print(secs, x[0], x[1], x[2], "%.1f%%" % (100 * x[3]), x[4], "%.2f" % x[5])
