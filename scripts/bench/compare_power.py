#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare_power.py DIR: what `make compare` (ab_compare.py) can tell apart on
this machine, from default runs of the same code (ab_campaign.sh's DIR, or any
directory of udpgso_ab.sh results directories).

For every two consecutive runs (OLD, NEW) in time order (--all-pairs: every
two), it compares them as they are (the same code: any verdict there is a
false one), then once per tx/rx pair with that pair's rx MB/s (A and B, every
repetition of NEW) cut by --cut percent, and once per tx mode with all of its
pairs cut (a slower sendto moves sendto -> plain and sendto -> gro).  A cut is
found when every pair cut is a regression; a verdict on any pair not cut is
counted beside it.  The comparison is ab_compare.py's own (report()), with the
options after `--` (e.g. -- --reference all).

With --within HOURS, only two runs whose starts are at most HOURS apart.

With --per-side N, every N consecutive runs are one side (ab_compare.py's
directory of runs: the between-run term then also has the spread of each
side's run means) and the groups are compared as the runs are.

With --between-others, each comparison's between-run term comes from the
campaign's other runs (ab_compare.py --between): leave-two-out, so that the
runs compared are not in their own calibration.  With --between-near as
well, only those made within the hours around the two compared, as make
compare's BETWEEN=auto takes them (compare_runs.near_in_time).

  compare_power.py DIR [--cut PCT] [--all-pairs] [--per-side N] [--between-others]
                   [--between-near] [--within HOURS] [-- ab_compare options]

Prints a Markdown table.  Exit 0; 2 on bad input (one line).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_compare as ac  # noqa: E402
import compare_levels as cl  # noqa: E402
import compare_runs as cr  # noqa: E402

PROG = os.path.basename(sys.argv[0])


def runs_of(d):
    """The results directories under D (any depth 1), in time order (names
    start with the UTC time udpgso_ab.sh gives them)."""
    if not os.path.isdir(d):
        raise ac.BadInput("DIR '%s': no such directory" % d)
    subs = ac.results_dirs(d)
    if len(subs) < 2:
        raise ac.BadInput("DIR '%s': %d results directories, allowed 2 or more" % (d, len(subs)))
    runs = [ac.load(s, "DIR") for s in subs]
    # one campaign: one method and one matrix, or the comparisons mean nothing
    kinds = {}
    for r in runs:
        k = (r.get("method"), tuple(sorted({(x["tx_mode"], x["rx_mode"], x["setting"])
                                            for x in r["runs"]})))
        kinds.setdefault(k, []).append(os.path.basename(r["_path"]))
    if len(kinds) > 1:
        which = ", ".join("%s%s (%s)" % (ns[0], " and %d more" % (len(ns) - 1) if len(ns) > 1
                                         else "", m or "no method")
                          for (m, _), ns in kinds.items())
        raise ac.BadInput("DIR '%s': runs of different methods or matrices: %s; allowed"
                          " one method and one matrix" % (d, which))
    return runs


def cut(res, keys, factor):
    """RES with the rx MB/s of KEYS' repetitions times FACTOR (a copy of
    the records it changes; RES is shared by every comparison)"""
    out = dict(res)
    out["runs"] = []
    for r in res["runs"]:
        v = ac.number(r.get("rx_MBps"))
        if (r["tx_mode"], r["rx_mode"]) in keys and v is not None:
            r = dict(r, rx_MBps=v * factor)
        out["runs"].append(r)
    return out


def verdicts(old, new, opts, calib=None):
    args = ac.parse([old["_path"], new["_path"]] + opts)
    args.between_res = calib
    rep = ac.report(old, new, args)
    v = {}
    for p in rep["pairs"]:
        k = (p["tx_mode"], p["rx_mode"])
        if v.get(k, "within noise") == "within noise":      # a call of A or B stands
            v[k] = p["verdict"]
    return v, rep


def calibration(members, i, j, sides=None):
    """ab_compare --between's runs for comparing sides I and J: every run of
    the campaign but theirs (MEMBERS: each side's runs, in order); with
    SIDES (--between-near: the two sides' results), of those the runs made
    within the hours around them (compare_runs.near_in_time, as --between
    auto takes them), every one when fewer than 3 are there."""
    rest = [r for x, rs in enumerate(members) if x not in (i, j) for r in rs]
    if sides:
        close, _ = cr.near_in_time(rest, *sides)
        if len(close) >= cr.AUTO_MIN:
            rest = close
    return ac.merge_runs("the other runs", rest, "DIR") | {"_other": 0}


def evaluate(runs, factor, all_pairs, opts, members=None, near=False, within=None):
    """-> (same, n, rows, first report, groups, false): same = comparisons of
    the same code with any verdict; rows = [(name, found, others)]; false =
    each same-code verdict -> how many runs apart its comparisons were.
    MEMBERS (--between-others): each side's runs; every comparison's
    between-run term then comes from the runs of the other sides."""
    idx = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))] \
        if all_pairs else [(i, i + 1) for i in range(len(runs) - 1)]
    if within is not None:
        start = [(cr.made(r) or [None])[0] for r in runs]
        idx = [(i, j) for i, j in idx if None in (start[i], start[j])
               or abs(start[j] - start[i]) <= within]
        if not idx:
            raise ac.BadInput("--within %g: no two runs start that close; allowed more hours"
                              % (within / 3600.0))
    keys = []
    for r in runs[0]["runs"]:
        k = (r["tx_mode"], r["rx_mode"])
        if k not in keys:
            keys.append(k)
    groups = [("%s -> %s" % k, [k]) for k in keys]
    for tx in dict.fromkeys(k[0] for k in keys):
        ks = [k for k in keys if k[0] == tx]
        if len(ks) > 1:
            groups.append(("%s -> every rx" % tx, ks))
    same, found, others, rep0, false = 0, {}, {}, None, {}
    for i, j in idx:
        calib = calibration(members, i, j, near and (runs[i], runs[j])) if members else None
        v, rep = verdicts(runs[i], runs[j], opts, calib)
        rep0 = rep0 or rep
        same += any(x != "within noise" for x in v.values())
        for k, x in v.items():
            if x != "within noise":
                w = "%s -> %s %s" % (k[0], k[1], x)
                false[w] = false.get(w, []) + [j - i]
        for name, ks in groups:
            v, _ = verdicts(runs[i], cut(runs[j], ks, factor), opts, calib)
            found[name] = found.get(name, 0) + all(v.get(k) == "regression" for k in ks)
            others[name] = others.get(name, 0) + sum(1 for k, x in v.items()
                                                     if k not in ks and x != "within noise")
    rows = [(name, found[name], others[name]) for name, ks in groups]
    return same, len(idx), rows, rep0, groups, false


def main(argv):
    opts = []
    if "--" in argv:
        opts = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = ac.Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR")
    ap.add_argument("--cut", type=float, default=20.0, metavar="PCT",
                    help="the cut of a pair's rx MB/s, percent (default 20)")
    ap.add_argument("--all-pairs", action="store_true",
                    help="every two runs, not only consecutive ones")
    ap.add_argument("--per-side", type=int, default=1, metavar="N",
                    help="N consecutive runs a side (ab_compare's directory of runs; "
                         "default 1)")
    ap.add_argument("--between-others", action="store_true",
                    help="each comparison with ab_compare --between the campaign's other "
                         "runs (every run but the two sides'): what a campaign of the "
                         "machine made at other times gives")
    ap.add_argument("--within", type=float, metavar="HOURS",
                    help="only two runs whose starts are at most HOURS apart")
    ap.add_argument("--between-near", action="store_true",
                    help="with --between-others, only the other runs made within the hours "
                         "around the two compared (as make compare's BETWEEN=auto takes "
                         "them; all when fewer than 3)")
    a = ap.parse_args(argv)
    if not 0 < a.cut < 100:
        raise ac.BadInput("--cut %g: allowed 0 < PCT < 100" % a.cut)
    if a.per_side < 1:
        raise ac.BadInput("--per-side %d: allowed 1 or more" % a.per_side)
    runs = runs_of(a.dir)
    members = [[r] for r in runs]
    if a.per_side > 1:
        if len(runs) < 2 * a.per_side:
            raise ac.BadInput("--per-side %d: DIR '%s' has %d runs, allowed at least %d"
                              % (a.per_side, a.dir, len(runs), 2 * a.per_side))
        members = [runs[i:i + a.per_side]
                   for i in range(0, len(runs) - a.per_side + 1, a.per_side)]
        runs = [ac.merge_runs("%s[%d:%d]" % (a.dir, i * a.per_side, (i + 1) * a.per_side),
                              rs, "DIR") for i, rs in enumerate(members)]
    if a.between_others and len(members) < 5:
        raise ac.BadInput("--between-others: DIR '%s' has %d sides, allowed 5 or more (3 "
                          "runs besides the two compared)" % (a.dir, len(members)))
    if a.within is not None and not a.within > 0:
        raise ac.BadInput("--within %g: allowed HOURS > 0" % a.within)
    if a.between_near and not a.between_others:
        raise ac.BadInput("--between-near: allowed with --between-others only")
    ac.parse(["x", "y"] + opts)         # the options' own bad input, before any work
    same, n, rows, rep, groups, false = evaluate(runs, 1.0 - a.cut / 100.0, a.all_pairs, opts,
                                                 members if a.between_others else None,
                                                 a.between_near,
                                                 a.within and 3600.0 * a.within)
    kind = {name: ",".join(sorted({cl.kind_of(k) for k in ks})) for name, ks in groups}
    print("# compare_power: %s, %d %s, %d comparisons (%s%s)" % (
        a.dir, len(runs), "runs" if a.per_side == 1 else "groups of %d runs" % a.per_side, n,
        "every two" if a.all_pairs else "consecutive",
        " started at most %g h apart" % a.within if a.within else ""))
    print("")
    print("- ab_compare options: %s%s; reference: %s" % (
        " ".join(opts) or "(default)", "; --between: the other runs of DIR (every run but"
        " the two sides'%s)" % (", made within the hours around them" if a.between_near
                                else "") if a.between_others else "",
        rep.get("headline_reference") or
        rep.get("headline_levels") or rep.get("family_kind")))
    print("- the same code: %d of %d comparisons with any verdict (a false one)%s" % (
        same, n, "".join("; %s x%d (runs apart: %s)" % (w, len(g), ",".join(map(str, g)))
                         for w, g in sorted(false.items()))))
    print("- cut: %g%% of rx MB/s (A and B, every repetition of NEW)" % a.cut)
    print("")
    print("| cut | kind | found | verdicts on pairs not cut |")
    print("|---|---|---|---|")
    for name, f, o in rows:
        print("| %s | %s | %d of %d | %d |" % (name, kind[name], f, n, o))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ac.BadInput as e:
        for line in e.lines:
            print("%s: %s" % (PROG, line), file=sys.stderr)
        sys.exit(2)
