#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: ab_tune.sh's cells (DIR/cells/*/results.json) per configuration
and case: the half-width each configuration reached in the same budget, and
what its noise predicts for --at seconds.

    ab_tune_summary.py DIR [--at 20] [--width 3]

Per cell (one udpgso_ab.sh run of one pair): the half-width reached, the
units of the interval (in-run: runs; slices: slice pairs), the load.  Per
configuration and case: the median half-width over the rounds, the pooled
sd of one unit's ln(A/B) (the mean over the rounds of each cell's unit
variance), the median units per cell, and the predicted half-width
exp(t(n-1) sd / sqrt(n)) - 1 for the n units that --at seconds give at the
cells' measured time per unit.  In-run cells also give the within-run
variance per window pair and the between-run variance (Kalibera & Jones)."""
import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_stats  # noqa: E402

LABEL = re.compile(r"tune-(?P<config>[0-9]+x[0-9]+|slices)-(?P<case>flag|aa|gso)-r(?P<round>[0-9]+)$")
CASES = {"flag": "sendto -> plain, uso on/off", "aa": "gso-cmsg -> plain, A/A",
         "gso": "gso-cmsg -> plain, uso on/off"}


def unit_time(r):
    """Seconds of measuring per unit: the first window or slice start to the
    last one's end, over the units."""
    ws = r.get("windows") or []
    if ws:
        t0 = min(w["t0"] for w in ws)
        t1 = max(w["t0"] + w["duration_s"] for w in ws)
        n = len({w["run_id"] for w in ws})
        return (t1 - t0) / n if n else None
    return None


def cell(path):
    with open(path) as f:
        r = json.load(f)
    m = LABEL.match(r.get("label") or "")
    if not m or not r.get("ab"):
        return None
    a = r["ab"][0]
    c = {"config": m["config"], "case": m["case"], "round": int(m["round"]),
         "dir": os.path.basename(os.path.dirname(path)), "wall_s": r.get("wall_s"),
         "load": r.get("loadavg"), "method": r.get("method")}
    if r.get("method") == "inrun":
        iv = a.get("ci") or {}
        c.update(half=iv.get("half_pct"), ratio=iv.get("ratio"), n=iv.get("n_runs") or 0,
                 sd=iv.get("sd_run"), vw=iv.get("var_within"), vb=iv.get("var_between"),
                 varies=iv.get("varies"), t_unit=unit_time(r), settle=a.get("settle_ms"))
    else:
        iv = (a.get("ci") or {}).get("rx_MBps") or {}
        c.update(half=iv.get("half_pct"), ratio=iv.get("ratio"), n=iv.get("n") or 0,
                 sd=iv.get("sd_log"), vw=None, vb=None, varies=None, settle=None,
                 t_unit=slice_unit_time(r, a))
    return c


def slice_unit_time(r, a):
    """Slices: a slice pair's time, from the runs' start times of this pair."""
    ts = sorted(x["times"]["start"] for x in r.get("runs") or []
                if (x.get("times") or {}).get("start") and not x.get("warmup"))
    n = len(ts) // 2
    if n >= 2:
        return (ts[-1] - ts[0]) / (n - 0.5)
    return None


def predicted(sd, n, level=95.0):
    if sd is None or n < 2:
        return None
    t = ab_stats.t_quantile(1.0 - (1.0 - level / 100.0) / 2.0, n - 1)
    return 100.0 * (math.exp(t * sd / math.sqrt(n)) - 1.0)


def fmt(x, f="%.1f"):
    return "-" if x is None else f % x


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--at", type=float, default=20.0)
    ap.add_argument("--width", type=float, default=3.0)
    o = ap.parse_args(argv)
    cells = [c for c in (cell(p) for p in sorted(glob.glob(
        os.path.join(o.dir, "cells", "*", "results.json")))) if c]
    if not cells:
        print("no cells under %s/cells" % o.dir)
        return 1
    configs = []
    for c in cells:
        if c["config"] not in configs:
            configs.append(c["config"])
    configs.sort(key=lambda k: (k == "slices", [int(x) for x in k.split("x")]
                                if k != "slices" else []))
    loads = [float(c["load"]["start"].split()[0]) for c in cells if c.get("load")]
    print("# In-run window length x window pairs per run against slices (ab_tune.sh)\n")
    print("%d cells (%d rounds), each one tx/rx pair for the same budget; load average "
          "(1 min, at the cells' start) %.1f-%.1f, median %.1f.\n"
          % (len(cells), max(c["round"] for c in cells), min(loads or [0]), max(loads or [0]),
             statistics.median(loads or [0])))
    print("Predicted ±: exp(t(n-1) sd/sqrt(n)) - 1 with sd the pooled sd of one unit's "
          "ln(A/B) and n = %g s / the measured seconds per unit.\n" % o.at)
    for case in ("flag", "aa", "gso"):
        cs = [c for c in cells if c["case"] == case]
        if not cs:
            continue
        print("## %s\n" % CASES[case])
        print("| config | cells | ± reached (median) | ± per round | units per cell | s per unit |"
              " sd per unit | var within (per window pair) | var between | predicted ± at %g s |"
              " A/B medians |" % o.at)
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for k in configs:
            g = sorted((c for c in cs if c["config"] == k), key=lambda c: c["round"])
            if not g:
                continue
            hs = [c["half"] for c in g if c["half"] is not None]
            sds = [c["sd"] for c in g if c["sd"] is not None]
            sd = math.sqrt(statistics.mean([s * s for s in sds])) if sds else None
            tus = [c["t_unit"] for c in g if c["t_unit"]]
            tu = statistics.median(tus) if tus else None
            n_at = int(o.at // tu) if tu else None
            vws = [c["vw"] for c in g if c["vw"] is not None]
            vbs = [c["vb"] for c in g if c["vb"] is not None]
            print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k, len(g), fmt(statistics.median(hs) if hs else None, "±%.1f%%"),
                " ".join(fmt(h, "%.1f") for h in hs),
                " ".join(str(c["n"]) for c in g), fmt(tu, "%.1f"),
                fmt(100 * sd if sd is not None else None, "%.1f%%"),
                fmt(statistics.mean(vws) if vws else None, "%.4f"),
                fmt(statistics.mean(vbs) if vbs else None, "%.4f"),
                fmt(predicted(sd, n_at) if n_at else None, "±%.1f%%"),
                " ".join(fmt(c["ratio"], "%.3f") for c in g)))
        print()
    print("## Cells\n")
    print("| cell | config | case | round | method | ± | units | sd | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in sorted(cells, key=lambda c: c["dir"]):
        print("| %s | %s | %s | %d | %s | %s | %d | %s | %s |" % (
            c["dir"], c["config"], c["case"], c["round"], c["method"],
            fmt(c["half"], "±%.1f%%"), c["n"], fmt(100 * c["sd"] if c["sd"] else None, "%.1f%%"),
            "%s -> %s" % (c["load"]["start"], c["load"]["end"]) if c["load"] else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
