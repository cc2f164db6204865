#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ab_compare.py OLD NEW: compare two udpgso_ab.sh results directories
(before/after a patch, two kernels) and give a verdict per configuration.

Configurations pair by (tx mode, rx mode, setting).  For each pair and each
metric (throughput rx_MBps, CPU cost_per_GiB, loss_pct; proc_cpu_s_per_GiB on
request) the change of NEW against OLD is the Hodges-Lehmann estimate over the
per-repetition values with the exact Mann-Whitney confidence interval (on the
log scale: a relative change; loss in percentage points).  A metric is a
"regression" or an "improvement" only when its whole interval lies strictly
beyond the threshold (default 5%, 2% in the headline family below; loss 2
points) on that side, otherwise "within noise"; a configuration is a
regression when any metric is.  By
default the error is controlled over the whole table: Holm's step-down over
the intervals whose repetitions can give a verdict (Tarone's rule), so an
A/A comparison calls anything with probability at most 1 - level (5%);
--per-interval controls each interval on its own instead.
docs/compare.md has the method, its assumptions and the bisect recipe.

Results that name their method (udpgso_ab.sh's in-run and slices runs since
2026-11-25: the default `make run`; or --headline) are decided on a smaller
family that a default run can decide:
the headline metric of each tx/rx pair, one value per run (the geometric mean
of its A and B rx MB/s in that run: the pair's level; with 3 pairs or more
divided by the other pairs' of its kind (non-GSO UDP, GSO, TCP) in the same
round, so that what moves those pairs together between two runs minutes
apart cancels: --reference all takes every other pair, --absolute-levels
keeps the pair's own), Welch's t-interval of the log levels with a
between-run term (the units of one run are not independent replicates of
the machine's state: the variance between 3 time blocks of each run beyond
their units' spread, pooled over the kind's pairs of both runs;
compare_levels.between_terms), Holm over the pairs; a pair whose change is called is
left out of the others' reference and the verdicts are taken again (the
largest change first), so that it cannot make its kind-mates look changed.
Every other metric is shown at --level without a verdict.  The time blocks
see the machine's state move within minutes, not across hours: with
--between DIR each pair's between-run variance is the larger of the blocks'
and the spread of the run means of other runs of the machine
(compare_levels.calibration_terms, compare_levels.larger); --between auto
(make compare's default) takes 3 or more such runs of OLD's machine from in
and below the directories that hold OLD and NEW.

Exit: 1 when any configuration is a regression, 0 otherwise, 2 on bad input
(one line each: a missing directory, bad JSON, a schema mismatch, a
configuration that does not pair).

  ab_compare.py OLD NEW [--threshold PCT] [--level PCT] [--per-interval] [--between DIR|auto]
                        [--json] [--out DIR]
  ab_compare.py --next ROOT          one line: make compare for the newest run
                                     in ROOT and the one before it (make run)
  ab_compare.py --matrix-args DIR    the udpgso_ab.sh options that rerun DIR's
                                     matrix, one per line (--baseline uses it)
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_stats as cs  # noqa: E402
import compare_levels as cl  # noqa: E402
from compare_levels import number  # noqa: E402
from compare_output import fmt_change, markdown, plot  # noqa: E402
from compare_runs import (AUTO_MIN, KEY_FIELDS, BadInput, group, load,  # noqa: E402,F401
                          load_between, made, matrix_key, merge_runs, next_hint,
                          results_dirs)

PROG = os.path.basename(sys.argv[0])
# name -> (label, unit of the change, which way is better, scale)
METRICS = {
    "rx_MBps": ("throughput", "%", "higher", "ratio"),
    "cost_per_GiB": ("CPU cost/GiB", "%", "lower", "ratio"),
    "proc_cpu_s_per_GiB": ("tool CPU/GiB", "%", "lower", "ratio"),
    # results of udpgso_ab.sh with interval-driven repetition (issue 17) add
    # the tools' rusage + softirq cost per GiB
    "cpu_cost_per_GiB": ("tool+softirq CPU/GiB", "%", "lower", "ratio"),
    "loss_pct": ("loss", "pp", "lower", "abs"),
}
# the tools' own CPU (getrusage) per GiB, not /proc/stat busy time of all
# CPUs (cost_per_GiB), which counts other programs: two runs five minutes
# apart on this shared machine differ there by up to +45% (docs/compare.md)
DEFAULT_METRICS = "rx_MBps,proc_cpu_s_per_GiB,loss_pct"
# the smallest change called (--threshold's default), per rule.  The headline
# family's cells carry the between-run term (compare_levels.between_terms): its
# interval already holds what the machine's state does between two runs, and
# the threshold is only the smallest change worth naming.  At 2% (5% until
# 2026-11-27) a 20% cut of one non-GSO UDP pair is found in 144-167 of the 190
# comparisons of every two runs of the 0.25 s A/A campaign (107-136 at 5%) and
# 81-95 of 105 of the quiet 1 s one (66-88), with 1 verdict on the same code in
# those 295 and the loaded campaign's 190 (0 at 5%):
# results/compare-threshold-2026-11-27.  The other rules take the repetitions
# as independent: 5% is their margin.
HEADLINE_THRESHOLD = 2.0
TABLE_THRESHOLD = 5.0


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise BadInput("%s (see -h)" % message)


def cname(key):
    return "%s/%s %s" % key


def pair(old, new, ignore_settings):
    """The pairs; BadInput naming every configuration or setting that does
    not match."""
    go, gn = group(old), group(new)
    errs = []
    for k in go:
        if k not in gn:
            errs.append("unpaired configuration %s: only in OLD" % cname(k))
    for k in gn:
        if k not in go:
            errs.append("unpaired configuration %s: only in NEW" % cname(k))
    so, sn = old.get("settings") or {}, new.get("settings") or {}
    if not ignore_settings and isinstance(so, dict) and isinstance(sn, dict):
        for s in sorted({k[2] for k in go} & {k[2] for k in gn}):
            if s in so and s in sn and so[s] != sn[s]:
                errs.append("setting %s differs: OLD '%s', NEW '%s' (--ignore-settings compares"
                            " anyway)" % (s, so[s], sn[s]))
    lo, ln = number(old.get("secs")), number(new.get("secs"))
    if not ignore_settings and lo and ln and lo != ln and old.get("method") != "inrun":
        # a slice's start and end weigh more in a shorter one: levels move
        errs.append("slice length differs: OLD %g s, NEW %g s (-l; --ignore-settings compares"
                    " anyway)" % (lo, ln))
    if errs:
        raise BadInput(errs)
    first = {}
    for k in go:
        first.setdefault(k[:2], len(first))
    return [(k, go[k], gn[k]) for k in sorted(go, key=lambda k: (first[k[:2]], k[2]))]


# ---- comparing -------------------------------------------------------------------------
def metric_values(name, old_runs, new_runs):
    """One metric of one pair: the values of each side and the medians; a
    verdict "n/a" when they cannot be compared."""
    label, unit, better, scale = METRICS[name]
    xo = [v for v in (number(r.get(name)) for r in old_runs) if v is not None]
    xn = [v for v in (number(r.get(name)) for r in new_runs) if v is not None]
    m = {"metric": name, "label": label, "unit": unit, "better": better, "n_old": len(xo),
         "n_new": len(xn), "old_median": cs.median(xo) if xo else None,
         "new_median": cs.median(xn) if xn else None, "_xo": xo, "_xn": xn}
    if not xo or not xn:
        m.update(verdict="n/a", note="no values")
    elif scale == "ratio" and (min(xo) <= 0 or min(xn) <= 0):
        m.update(verdict="n/a", note="a value <= 0: no ratio")
    return m


def threshold_of(name, args):
    return args.threshold / 100.0 if METRICS[name][3] == "ratio" else args.loss_threshold


def decide(m, args, want, need):
    """The change with its interval at coverage want (or the highest the
    repetitions allow) and the verdict when that coverage is at least need."""
    _, _, better, scale = METRICS[m["metric"]]
    xo, xn = m["_xo"], m["_xn"]
    c = cs.change(xo, xn, want, scale)
    v = cs.verdict(c["lo"], c["hi"], threshold_of(m["metric"], args), better, c["level"], need)
    f = 100.0 if scale == "ratio" else 1.0
    m.update(est=c["est"] * f, lo=c["lo"] * f, hi=c["hi"] * f, level=c["level"], verdict=v)
    return m


def compare_family(cells, args):
    """The default: Holm's step-down over every interval of the table that
    could give a verdict (Tarone's rule on the repetition counts), at
    alpha = 1 - level for the whole table (compare_stats.family_verdicts).
    Each cell's interval is shown at the level its Holm step used, so the
    verdict is the interval's."""
    spec = [(m["_xo"], m["_xn"], threshold_of(m["metric"], args), METRICS[m["metric"]][2],
             METRICS[m["metric"]][3]) for m in cells]
    fv = cs.family_verdicts(spec, args.level / 100.0)
    need_reps = cs.reps_for_pvalue((1.0 - args.level / 100.0) / max(1, len(cells)))
    for m, f in zip(cells, fv):
        if f["alpha"] is None:
            decide(m, args, args.level / 100.0, 2.0)        # shown, never a verdict
            m["note"] = ("too few repetitions for a family-wise verdict (%d/%d; %s a side"
                         " would do for %d intervals)" % (m["n_old"], m["n_new"],
                                                          need_reps or "over 50", len(cells)))
            continue
        decide(m, args, 1.0 - f["alpha"], 1.0 - f["alpha"])
        m["holm_alpha"], m["p"] = f["alpha"], f["p"]
        if m["verdict"] != f["verdict"]:        # the two views of one rule must agree
            raise AssertionError("interval and p-value disagree: %s" % m)
    args.family_cells = sum(1 for f in fv if f["alpha"] is not None)
    args.want = 1.0 - (1.0 - args.level / 100.0) / max(1, args.family_cells)


def compare_per_interval(cells, args):
    """--per-interval: every interval at --level on its own (the highest the
    repetitions allow when lower); a verdict from 80% coverage up."""
    want = args.level / 100.0
    for m in cells:
        decide(m, args, want, cs.MIN_LEVEL)
        if m["level"] < want - 1e-12:
            m["note"] = ("interval reaches %.1f%%: too few repetitions (%d/%d; %s a side would"
                         " reach %g%%)" % (100 * m["level"], m["n_old"], m["n_new"],
                                           cs.reps_for_level(want) or "over 50", args.level))
    args.family_cells = 0
    args.want = want


def compare_headline(paired, pairs, args):
    """The headline family: one cell per tx/rx pair (pair_levels), Holm over
    them; the configurations' verdicts are their pair's."""
    heads, order = {}, []
    for (key, go, gn), p in zip(paired, pairs):
        k = key[:2]
        if k not in heads:
            heads[k] = {"old": [], "new": [], "confs": []}
            order.append(k)
        heads[k]["old"] += go["ok"]
        heads[k]["new"] += gn["ok"]
        heads[k]["confs"].append(p)
    ao = {k: cl.side_levels(heads[k]["old"]) for k in order}
    an = {k: cl.side_levels(heads[k]["new"]) for k in order}
    # the between-run term is tau^2 (1/runs OLD + 1/runs NEW)
    scale = cl.between_scale(cl.as_runs(ao), cl.as_runs(an))
    rel = not args.absolute_levels and len(order) >= 3
    by_kind = rel and args.reference == "kind"
    args.levels_kind = "relative" if rel else "absolute"
    args.reference_kind = ("kind" if by_kind else "all") if rel else None
    thr = args.threshold / 100.0
    calib = between_calibration(args.between_res, order, rel, by_kind) \
        if args.between_res else None
    lo, ln, fv, left_out, btk, src = cl.headline_family(ao, an, rel, by_kind, thr,
                                                        args.level / 100.0, calib)
    cells = []
    fo, fn = cl.flat(ao), cl.flat(an)
    for k in order:
        xo, xn = lo[k], ln[k]
        ref = cl.reference_of(k, order, by_kind, left_out) if rel else []
        m = {"metric": "rx_MBps",
             "label": "throughput (pair level: A and B per run%s)" % (
                 ", against %s in its round" % (
                     "the other %s pairs'" % cl.kind_of(k) if by_kind and
                     all(cl.kind_of(q) == cl.kind_of(k) for q in ref) else
                     "the other pairs'") if rel else ""),
             "unit": "%", "better": "higher", "n_old": sum(map(len, xo)),
             "n_new": sum(map(len, xn)),
             "old_median": cs.median(fo[k]) if fo[k] else None,
             "new_median": cs.median(fn[k]) if fn[k] else None, "_xo": xo, "_xn": xn,
             "_key": k}
        if rel:
            m["reference"] = ["%s/%s" % q for q in ref]
        heads[k]["cell"] = m
        if k in fv:
            cells.append(m)
    fv = [fv[m["_key"]] for m in cells]
    args.left_out = ["%s/%s" % k for k in left_out]
    # Welch's t on the log of the runs' levels (the runs of one pair are few:
    # 5-6 in a default run, where Mann-Whitney needs 6 a side for 13 cells)
    for m, f in zip(cells, fv):
        if f["alpha"] is None:
            m.update(verdict="within noise", note="fewer than 2 runs a side: no verdict")
            continue
        bt = btk.get(m["_key"])
        c = cs.welch_change(m["_xo"], m["_xn"], 1.0 - f["alpha"], bt)
        m.update(est=100 * c["est"], lo=100 * c["lo"], hi=100 * c["hi"], level=c["level"],
                 verdict=f["verdict"], p=f["p"], holm_alpha=f["alpha"],
                 test="Welch t on ln(per-run level), with a between-run term",
                 between_run_sd=(100 * math.sqrt(bt[0] / scale) if bt else None),
                 between_run_df=(bt[1] if bt else None),
                 between_from=src.get(m["_key"]))
        v = cs.verdict(c["lo"], c["hi"], thr, "higher", c["level"], 0.0)
        if v != f["verdict"]:        # the two views of one rule must agree
            raise AssertionError("interval and p-value disagree: %s" % m)
        if m["_key"] in left_out:
            m["left_out"] = True
    for p in pairs:
        for m in p["metrics"].values():
            if m.get("verdict") != "n/a":
                decide(m, args, args.level / 100.0, 2.0)
                m["note"] = "outside the headline family: shown, no verdict"
    args.family_cells = len(cells)
    args.want = 1.0 - (1.0 - args.level / 100.0) / max(1, len(cells))
    for k in order:
        m = heads[k]["cell"]
        for f in ("_xo", "_xn", "_key"):
            m.pop(f, None)
        for p in heads[k]["confs"]:
            p["headline"] = m
    args.cells = len(cells)


def between_calibration(res, order, rel, by_kind):
    """pair -> (tau^2, df) from --between's runs (compare_levels.
    calibration_terms), for the pairs of ORDER; kept in RES for the next
    comparison with them (compare_power.py)."""
    memo = res.setdefault("_calib", {})
    key = (tuple(order), rel, by_kind)
    if key in memo:
        return memo[key]
    by = {}
    for conf, g in group(res).items():
        by.setdefault(conf[:2], []).extend(g["ok"])
    memo[key] = cl.calibration_terms({k: cl.side_levels(by.get(k, [])) for k in order},
                                     rel, by_kind)
    return memo[key]


def compare(old, new, args):
    """Every pair's verdict (family-wise by default, see compare_family)."""
    if not (args.per_interval or args.family):
        # results that name their method (in-run, and slices since the default
        # make run became slices again) are decided on the headline family
        args.headline = args.headline or (old.get("method") in ("inrun", "slices") and
                                          new.get("method") in ("inrun", "slices"))
    if args.threshold is None:
        args.threshold = HEADLINE_THRESHOLD if args.headline else TABLE_THRESHOLD
    if args.between == "auto" and not args.headline:
        args.between = None         # make compare's default: the headline family's only
    if args.between and not args.headline:
        raise BadInput("--between '%s': allowed with the headline family only (results"
                       " that name their method, or --headline)" % args.between)
    args.auto_note = None
    if args.between and args.between_res is None:
        args.between_res, args.auto_note = load_between(args.between, old, new)
    paired = pair(old, new, args.ignore_settings)
    pairs, cells = [], []
    for key, go, gn in paired:
        p = dict(zip(KEY_FIELDS, key))
        p["runs_old"], p["runs_new"] = len(go["ok"]), len(gn["ok"])
        if not go["ok"] or not gn["ok"]:
            side = "NEW" if go["ok"] else "OLD"
            bad = gn["bad"] if go["ok"] else go["bad"]
            why = ", ".join("%d %s" % (n, s) for s, n in sorted(bad.items())) or "none"
            # it worked before and not now: that is a regression too
            p["verdict"] = "regression" if side == "NEW" else "not compared"
            p["note"] = "no successful run in %s (%s)" % (side, why)
            p["metrics"] = {}
        else:
            p["metrics"] = {n: metric_values(n, go["ok"], gn["ok"]) for n in args.metrics}
            cells += [m for m in p["metrics"].values() if m.get("verdict") != "n/a"]
        pairs.append(p)
    args.cells = len(cells)
    if args.headline:
        compare_headline(paired, pairs, args)
    elif args.per_interval:
        compare_per_interval(cells, args)
    else:
        compare_family(cells, args)
    for p in pairs:
        for m in p["metrics"].values():
            m.pop("_xo", None)
            m.pop("_xn", None)
        if p.get("headline"):
            h = p["headline"]
            p["verdict"] = h.get("verdict", "within noise")
            if p["verdict"] == "regression":
                p["note"] = "%s %s" % (h["label"], fmt_change(h))
        elif p["metrics"]:
            p["verdict"] = cs.combine([m["verdict"] for m in p["metrics"].values()])
    return pairs


def side_info(res):
    out = {k: res.get(k) for k in ("label", "kernel", "host", "preset", "settings", "reps",
                                    "secs", "command", "method")} | {"path": res["_path"]}
    out["results_dirs"] = res.get("_paths", [res["_path"]])
    out["made"] = made(res)
    if res.get("method") == "inrun":
        out["reps"] = "%d runs" % len({r.get("run_id") for r in res["runs"]})
        out["secs"] = "in-run windows of"
    return out


def report(old, new, args):
    pairs = compare(old, new, args)
    count = {}
    for p in pairs:
        count[p["verdict"]] = count.get(p["verdict"], 0) + 1
    levels = sorted({m["level"] for p in pairs for m in p["metrics"].values() if "level" in m})
    # under no change, a cell is called a regression with probability at
    # most (1 - level) / 2: their sum bounds the expected false regressions
    bound = sum((1.0 - m["level"]) / 2 for p in pairs for m in p["metrics"].values()
                if "level" in m)
    return {
        "tool": "ab_compare", "schema": 1, "old": side_info(old), "new": side_info(new),
        "method": "Hodges-Lehmann shift of NEW against OLD over the per-repetition values "
                  "with the exact Mann-Whitney interval (log scale for ratios, raw for loss)",
        "rule": "regression/improvement only when the whole interval lies strictly beyond "
                "the threshold on that side; a configuration is a regression when any "
                "metric is",
        "level_requested": args.level / 100.0, "levels_used": levels,
        "family": not args.per_interval,
        "family_kind": ("headline" if args.headline else "per-interval" if args.per_interval
                        else "table"),
        "headline_levels": getattr(args, "levels_kind", None),
        "headline_reference": getattr(args, "reference_kind", None),
        "left_out_of_reference": getattr(args, "left_out", []),
        "between": {"path": args.between_res["_path"], "other_dirs": args.between_res["_other"],
                    "results_dirs": [os.path.basename(x) for x in args.between_res["_paths"]],
                    "auto": args.between_res.get("_auto", False),
                    "made": side_info(args.between_res)["made"],
                    "window": args.between_res.get("_window"),
                    "outside_window": args.between_res.get("_far", 0),
                    "window_why": args.between_res.get("_window_why")}
        if args.between_res else None,
        "between_auto": getattr(args, "auto_note", None),
        "control": "per-interval" if args.per_interval else
                   "family-wise over the headline metric of each tx/rx pair (Holm)"
                   if args.headline else
                   "family-wise: Holm over the intervals that can give a verdict (Tarone)",
        "cells": args.cells, "family_cells": args.family_cells,
        "level_per_interval": args.want, "false_regressions_bound": bound,
        "threshold_pct": args.threshold, "loss_threshold_pp": args.loss_threshold,
        "metrics": args.metrics, "pairs": pairs, "count": count,
        "exit": 1 if count.get("regression") else 0,
    }


# ---- --matrix-args -----------------------------------------------------------------------
def matrix_args(path):
    """udpgso_ab.sh options that run DIR's matrix again."""
    res = load(path, "baseline")
    txs, rxs = [], []
    for r in res["runs"]:
        if r["tx_mode"] not in txs:
            txs.append(r["tx_mode"])
        if r["tx_mode"] != "tcp" and r["rx_mode"] not in rxs:
            rxs.append(r["rx_mode"])
    sets = res.get("settings") or {}
    preset = res.get("preset") or ""
    a = ["--preset", preset] if preset else ["--ab", sets.get("A", ""), sets.get("B", "")]
    a += ["--tx", ",".join(txs)]
    if rxs:
        a += ["--rx", ",".join(rxs)]
    for opt, key in (("-n", "reps"), ("-l", "secs"), ("--size", "size"), ("--segs", "segs")):
        v = number(res.get(key))
        if v is not None:
            a += [opt, "%g" % v]
    fams = res.get("families") or [4]
    if fams != [4]:
        a += ["--family", "both" if len(fams) > 1 else str(fams[0])]
    # a run that repeated until an interval target (issue 17's --ci): the
    # same target and cap; reps above is then its minimum
    iv = res.get("interval")
    if isinstance(iv, dict) and number(iv.get("target_pct")) and number(iv.get("level")):
        a += ["--ci", "%g,%g" % (iv["level"], iv["target_pct"])]
        if isinstance(iv.get("max_reps"), int):
            a += ["--max-reps", str(iv["max_reps"])]
    if res.get("method") in ("inrun", "slices"):
        a += ["--method", res["method"]]
    if any("\n" in x for x in a):
        raise BadInput("baseline '%s': a setting contains a newline" % path)
    return a


# ---- main -----------------------------------------------------------------------------
def parse(argv):
    ap = Parser(prog=PROG, description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("old", nargs="?", metavar="OLD", help="results directory before")
    ap.add_argument("new", nargs="?", metavar="NEW", help="results directory after")
    ap.add_argument("--threshold", type=float, default=None, metavar="PCT",
                    help="smallest relative change called a regression (default %g for the"
                         " headline family, %g for the other rules)" % (
                             HEADLINE_THRESHOLD, TABLE_THRESHOLD))
    ap.add_argument("--loss-threshold", type=float, default=2.0, metavar="PP",
                    help="the same for loss, in percentage points (default 2)")
    ap.add_argument("--level", type=float, default=95.0, metavar="PCT",
                    help="interval coverage to aim for (default 95; the highest the "
                         "repetitions allow when lower, e.g. 90 for 3 vs 3)")
    ap.add_argument("--metrics", default=DEFAULT_METRICS,
                    help="comma-separated, of %s (default %s)" % (",".join(METRICS),
                                                                  DEFAULT_METRICS))
    ap.add_argument("--family", action="store_true",
                    help="the default: the error controlled over the whole table (Holm over"
                         " the intervals that can give a verdict); needs repetitions, e.g."
                         " 7 a side for 26 x 3 intervals")
    ap.add_argument("--headline", action="store_true",
                    help="the family is the headline metric of each tx/rx pair (per run: "
                         "the geometric mean of A and B rx MB/s); the default for two "
                         "in-run results")
    ap.add_argument("--absolute-levels", action="store_true",
                    help="the headline family on each pair's own level; by default (3 pairs"
                         " or more) each level is taken against the other pairs' in the "
                         "same round, which removes what moves every pair together")
    ap.add_argument("--reference", choices=("kind", "all"), default="kind",
                    help="the relative level's reference: the other pairs of the same kind "
                         "(non-GSO UDP, GSO, TCP; the default) or all other pairs")
    ap.add_argument("--per-interval", action="store_true",
                    help="each interval at --level on its own (the pre-2026-11-23 default):"
                         " about 0.9 false regressions per 78-interval table at 3 reps")
    ap.add_argument("--ignore-settings", action="store_true",
                    help="compare even when setting A or B means different things")
    ap.add_argument("--between", metavar="DIR|auto",
                    help="the headline family's between-run variance of each pair: the"
                         " larger of the two sides' time blocks' (which do not see the"
                         " machine's state move across hours) and the spread of the run means"
                         " of the runs in DIR (3 or more results directories of OLD's method,"
                         " matrix, settings and slice length besides OLD and NEW: e.g. an hour"
                         " or more of default runs of this machine); auto (make compare's"
                         " default): such runs of OLD's machine (host, kernel, CPU, topology)"
                         " in and below the directories that hold OLD and NEW (campaigns and"
                         " older runs in folders of their own too), when there are 3 or more,"
                         " else the blocks alone")
    ap.add_argument("--json", action="store_true", help="JSON on stdout instead of Markdown")
    ap.add_argument("--out", metavar="DIR",
                    help="also write DIR/compare.md, compare.json, compare.png")
    ap.add_argument("--no-plot", action="store_true", help="no compare.png with --out")
    ap.add_argument("--next", metavar="ROOT",
                    help="one line: how to compare the newest run in ROOT with the one"
                         " before it (make run ends with it)")
    ap.add_argument("--matrix-args", metavar="DIR",
                    help="print the udpgso_ab.sh options of DIR's matrix, one a line")
    args = ap.parse_args(argv)
    args.between_res = None
    if sum((args.family, args.per_interval, args.headline)) > 1:
        raise BadInput("--family, --headline and --per-interval: allowed one of them")
    if args.matrix_args is None and args.next is None and (args.old is None or
                                                           args.new is None):
        raise BadInput("needs OLD and NEW results directories (see -h)")
    if args.threshold is not None and not 0 <= args.threshold < 100:
        raise BadInput("--threshold %g: allowed 0 <= PCT < 100" % args.threshold)
    if not 0 <= args.loss_threshold <= 100:
        raise BadInput("--loss-threshold %g: allowed 0..100" % args.loss_threshold)
    if not 50 <= args.level < 100:
        raise BadInput("--level %g: allowed 50 <= PCT < 100" % args.level)
    args.metrics = [m for m in args.metrics.split(",") if m]
    bad = [m for m in args.metrics if m not in METRICS]
    if bad or not args.metrics:
        raise BadInput("--metrics '%s': allowed a list of %s" % (",".join(bad),
                                                                  ",".join(METRICS)))
    return args


def run(argv):
    args = parse(argv)
    if args.matrix_args is not None:
        print("\n".join(matrix_args(args.matrix_args)))
        return 0
    if args.next is not None:
        print(next_hint(args.next), file=sys.stderr)
        return 0
    old, new = load(args.old, "OLD"), load(args.new, "NEW")
    rep = report(old, new, args)
    md = markdown(rep, METRICS)
    if args.out:
        try:
            os.makedirs(args.out, exist_ok=True)
            if not args.no_plot:
                why = plot(rep, os.path.join(args.out, "compare.png"), METRICS)
                rep["plot"] = None if why else "compare.png"
                if why:
                    print("%s: no plot: %s" % (PROG, why), file=sys.stderr)
                else:
                    md += "\n![change per configuration](compare.png)\n"
            with open(os.path.join(args.out, "compare.md"), "w") as f:
                f.write(md)
            with open(os.path.join(args.out, "compare.json"), "w") as f:
                json.dump(rep, f, indent=1)
                f.write("\n")
        except OSError as e:
            raise BadInput("--out '%s': %s" % (args.out, e.strerror or e))
    sys.stdout.write(json.dumps(rep, indent=1) + "\n" if args.json else md)
    for p in rep["pairs"]:
        if p["verdict"] != "regression":
            continue
        what = "; ".join("%s %s" % (m["label"], fmt_change(m)) for m in p["metrics"].values()
                         if m["verdict"] == "regression") or p.get("note", "")
        print("%s: regression: %s: %s" % (PROG, cname((p["tx_mode"], p["rx_mode"],
                                                       p["setting"])), what), file=sys.stderr)
    return rep["exit"]


def main():
    try:
        return run(sys.argv[1:])
    except BadInput as e:
        for line in e.lines:
            print("%s: %s" % (PROG, line), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
