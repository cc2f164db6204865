# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the slice pairs of an A/B run as its runs (issue 26).

A slice pair (A and B of one tx/rx pair and repetition, back to back) is
the unit of the interval, and the pairs of one tx/rx pair are taken rounds
apart, each in the machine state of its moment, as the in-run method's
runs are.  So each slice record names its pair (run_id = its rep), its
place in the pair by time (window 1 or 2) and the method, as the in-run
method's window records do; and each tx/rx pair's entry gives the A/B of
every slice pair in its interval and their range: the t-interval is about
the mean of the pairs' log ratios, the range shows how far the states
moved the effect.
"""
from ab_rawlog import pair_key

METHOD = "slices"
RATIO_DIGITS = 4        # run_ratios: 4 decimals (a 0.01% step, far below any interval)


def mark_runs(runs):
    """Set run_id, window and method of every slice record: the slices of
    one tx/rx pair and rep are one run, their windows numbered 1, 2 in the
    order they ran (index)."""
    seen = {}
    for r in sorted(runs, key=lambda x: x["index"]):
        k = pair_key(r) + (r["rep"],)
        seen[k] = seen.get(k, 0) + 1
        r["run_id"] = r["rep"]
        r["window"] = seen[k]
        r["method"] = METHOD


def fmt_range(spread):
    return "%.2fx-%.2fx" % (spread["min"], spread["max"])


def pair_fields(a, b, iv, metric):
    """The ab entry fields of one tx/rx pair: a, b map rep -> slice record
    of A, B; iv is the interval of METRIC (its reps_used are the pairs in
    it).  run_ratios are in rep order."""
    ratios = [round(a[r][metric] / b[r][metric], RATIO_DIGITS) for r in iv["reps_used"]]
    out = {"method": METHOD, "n_runs": len(ratios), "run_ratios": ratios,
           "spread": None, "spread_words": None}
    if len(ratios) >= 2:
        out["spread"] = {"min": min(ratios), "max": max(ratios)}
        out["spread_words"] = "ratios of its %d pairs ranged %s" % (
            len(ratios), fmt_range(out["spread"]))
    return out


def short_range(ent):
    """' ranging 1.52x-2.31x' for a verdict line after 'N pairs' ('' when
    the entry has no spread, e.g. one written before issue 26)."""
    s = ent.get("spread")
    return " ranging " + fmt_range(s) if s else ""
