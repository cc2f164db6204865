#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the results directories ab_compare.py reads: one run or a
directory of runs per side (load, merge_runs), the runs --between takes for
the between-run term (a directory, or auto: the runs of this machine and
matrix in and below the directories that hold OLD and NEW), and make run's
last line (--next).  Bad input is BadInput, one line each."""
import lzma
import os
import sys
import time

from ab_rawlog import read_conf, read_results, results_file
from compare_levels import mark_rounds, number

PROG = os.path.basename(sys.argv[0])
SCHEMAS = (1,)
KEY_FIELDS = ("tx_mode", "rx_mode", "setting")


class BadInput(Exception):
    """Bad input: one or more lines, exit 2."""

    def __init__(self, lines):
        super().__init__("\n".join(lines) if isinstance(lines, list) else lines)
        self.lines = lines if isinstance(lines, list) else [lines]


def load(path, side):
    """results.json of a results directory, checked enough to be compared;
    or, for a directory of results directories (several runs of one side,
    e.g. ab_campaign.sh's DIR/default), load_runs of them."""
    if not os.path.isdir(path):
        raise BadInput("%s '%s': no such directory" % (side, path))
    fn = results_file(path)
    if fn is None:
        subs = results_dirs(path)
        if subs:
            return load_runs(path, subs, side)
        raise BadInput("%s '%s': no results.json (not a udpgso_ab.sh results directory,"
                       " nor a directory of them)" % (side, path))
    try:
        res = read_results(fn)
    except (ValueError, OSError, lzma.LZMAError) as e:
        raise BadInput("%s '%s': bad JSON: %s" % (side, fn, str(e).splitlines()[0]))
    if not isinstance(res, dict):
        raise BadInput("%s '%s': schema mismatch: not a JSON object" % (side, fn))
    schema = res.get("schema")
    if schema not in SCHEMAS:
        raise BadInput("%s '%s': schema mismatch: schema %r, allowed %s"
                       % (side, fn, schema, ", ".join(map(str, SCHEMAS))))
    if res.get("tool", "udpgso_ab") != "udpgso_ab":
        raise BadInput("%s '%s': schema mismatch: tool %r, allowed udpgso_ab"
                       % (side, fn, res.get("tool")))
    runs = res.get("runs")
    if not isinstance(runs, list) or not runs:
        raise BadInput("%s '%s': schema mismatch: no runs list" % (side, fn))
    for i, r in enumerate(runs, 1):
        if not isinstance(r, dict):
            raise BadInput("%s '%s': schema mismatch: run %d is not an object" % (side, fn, i))
        for k in KEY_FIELDS:
            if not isinstance(r.get(k), str):
                raise BadInput("%s '%s': schema mismatch: run %d has no '%s'" % (side, fn, i, k))
    mark_rounds(runs)
    res["_path"] = path
    return res


def results_dirs(path):
    """The results directories directly under PATH, in time order (their
    names start with the UTC time udpgso_ab.sh gives them)."""
    return sorted(os.path.join(path, x) for x in os.listdir(path)
                  if results_file(os.path.join(path, x)))


def load_runs(path, subs, side):
    """Several results directories of one side (SUBS, in time order: their
    names start with the UTC time) as one: the first's description, every
    run record tagged with "_run" (its directory's index: the headline
    family takes each directory's rounds apart, compare_levels.side_levels)
    and "_paths" the directories.  They must share the
    method, the matrix, the settings and the slice length (BadInput naming
    the first that does not)."""
    return merge_runs(path, [load(s, side) for s in subs], side)


def merge_runs(path, rs, side):
    """load_runs of results already loaded (RS, in time order), named PATH."""
    subs = [r["_path"] for r in rs]
    first = rs[0]
    for r in rs[1:]:
        for what, f in (("method", lambda x: x.get("method")),
                        ("matrix", lambda x: sorted(group(x))),
                        ("settings", lambda x: x.get("settings")),
                        ("slice length", lambda x: x.get("secs"))):
            if f(r) != f(first):
                raise BadInput("%s '%s': runs %s and %s differ in their %s; allowed runs"
                               " of one method, matrix, settings and slice length"
                               % (side, path, os.path.basename(subs[0]),
                                  os.path.basename(r["_path"]), what))
    out = dict(first)
    out["runs"] = [dict(x, _run=i) for i, r in enumerate(rs) for x in r["runs"]]
    out["_paths"] = subs
    out["_path"] = path
    return out


# --between's runs as read, by real path (compare_power.py compares many times)
_BETWEEN = {}
# --between auto: the fewest other runs of this machine that make a calibration
AUTO_MIN = 3
# --between auto: the runs it takes are those made within the hours around OLD
# and NEW: from their first slice less W to their last plus W, W the time
# between them but at least AUTO_NEAR seconds (near_in_time)
AUTO_NEAR = 3600.0


def machine_key(res):
    """What two results must share to be runs of one machine (--between auto)."""
    return tuple(res.get(k) for k in ("host", "kernel", "cpu", "ncpus", "topology"))


def results_tree(place):
    """The results directories in and below PLACE, in time order (by name):
    a results directory is not looked into, nor a linked directory that is
    not one."""
    out = []
    for top, dirs, _ in os.walk(place):
        keep = []
        for d in dirs:
            p = os.path.join(top, d)
            if results_file(p):
                out.append(p)
            elif not os.path.islink(p):
                keep.append(d)
        dirs[:] = sorted(keep)
    return sorted(out, key=lambda p: (os.path.basename(p), p))


# run.conf keys that a run must share with OLD or NEW to be read for auto
CONF_KEYS = ("host", "kernel", "cpu", "ncpus", "topology", "method", "secs", "spec_A",
             "spec_B", "rate")


def run_conf(d):
    """Results directory D's run.conf (ab_rawlog.read_conf), or None without
    one."""
    try:
        return read_conf(os.path.join(d, "run.conf"))
    except OSError:
        return None


def conf_key(d):
    """CONF_KEYS' values in results directory D's run.conf, or None without
    one: auto reads a run's results only when this matches OLD's or NEW's (a
    run of another machine or matrix is known by its run.conf alone)."""
    conf = run_conf(d)
    return None if conf is None else tuple(conf.get(k) for k in CONF_KEYS)


def run_id(d):
    """(host, t_start) in results directory D's run.conf, None without: one
    run copied to two places (a session's run kept under results/check-*)
    is one run."""
    conf = run_conf(d)
    if conf is None or "host" not in conf or "t_start" not in conf:
        return None
    return (conf["host"], conf["t_start"])


def loaded(place, side, skip=(), tree=False, want=None):
    """(real path, result or None when it cannot be read or is not wanted) of
    each results directory in PLACE (TREE: and below it, results_tree) but
    those in SKIP (real paths), each read once per process (_BETWEEN); with
    WANT (a set of conf_key values), one whose conf_key is not in it is not
    read."""
    for d in (results_tree(place) if tree else results_dirs(place)):
        real = os.path.realpath(d)
        if real in skip:
            continue
        if want is not None and None not in want:
            k = conf_key(d)
            if k is not None and k not in want:
                yield real, None
                continue
        if real not in _BETWEEN:
            try:
                _BETWEEN[real] = load(d, side)
            except BadInput:
                _BETWEEN[real] = None
        yield real, _BETWEEN[real]


def auto_places(old, new):
    """--between auto: the directories that hold OLD and NEW (read with
    what is below them)."""
    out = []
    for r in (old, new):
        d = os.path.dirname(os.path.abspath(r["_path"]))
        if d not in out:
            out.append(d)
    return out


def near_in_time(rs, old, new):
    """--between auto: (the results of RS made within the hours around OLD
    and NEW, the window [from, to] in epoch seconds): from OLD's and NEW's
    first slice less W to their last plus W, W the time from the first to
    the last but at least AUTO_NEAR.  A run counts when any of its slices
    falls in the window.  The machine's state moves over hours (sendto's
    pairs sat at 0.82-0.84 of their kind on the evening of 2026-11-27 and
    until 05:00 on 2026-11-28, at 0.95 from 06:17 on), so the runs of other
    days would give two runs of one morning the spread of the days.  Without
    times on OLD or NEW: RS and None."""
    ends = [made(r) for r in (old, new)]
    if None in ends:
        return list(rs), None
    lo, hi = min(e[0] for e in ends), max(e[1] for e in ends)
    w = max(AUTO_NEAR, hi - lo)
    win = [lo - w, hi + w]
    out = []
    for r in rs:
        m = made(r)
        if m is not None and m[1] >= win[0] and m[0] <= win[1]:
            out.append(r)
    return out, win


def load_between(path, old, new):
    """--between DIR: the results directories in DIR (one level down, as a
    directory of runs) of OLD's method, matrix, settings and slice length,
    other than OLD's and NEW's own and copies of a run (run_id), as one result of several runs
    (merge_runs), and None; BadInput with fewer than 3.  --between auto:
    the same in and below the directories that hold OLD and NEW (a results/
    with campaigns and older runs in folders of their own), of OLD's machine
    (machine_key; NEW's when OLD's has too few); with fewer than 3, None and
    where it looked (the report's between_auto).  Auto takes the runs made
    within the hours around OLD and NEW (near_in_time), or every run of the
    machine when fewer than 3 are there ("_window_why": few) or OLD or NEW
    has no slice times to place the hours by (untimed: in-run results)."""
    auto = path == "auto"
    if not auto and not os.path.isdir(path):
        raise BadInput("--between '%s': no such directory" % path)
    places = auto_places(old, new) if auto else [path]
    own = {os.path.realpath(p) for r in (old, new) for p in r.get("_paths", [r["_path"]])}
    like = matrix_key(old)
    rs, other, seen = [], 0, set()
    mine = [p for r in (old, new) for p in r.get("_paths", [r["_path"]])]
    want = {conf_key(p) for p in mine}
    ids = {run_id(p) for p in mine} - {None}
    for place in places:
        for real, r in loaded(place, "--between", own, tree=auto, want=want if auto else None):
            if real in seen:
                continue
            seen.add(real)
            rid = run_id(real)
            if rid is not None and rid in ids:
                continue	# a copy of OLD, NEW or a run already taken
            if rid is not None:
                ids.add(rid)
            if r is not None and matrix_key(r) == like:
                rs.append(r)
            else:
                other += 1
    if auto:
        mine = [x for x in (machine_key(old), machine_key(new))
                if sum(machine_key(r) == x for r in rs) >= AUTO_MIN][:1]
        use = [r for r in rs if mine and machine_key(r) == mine[0]]
        other += len(rs) - len(use)
        if len(use) < AUTO_MIN:
            return None, {"looked_in": [rel(x) for x in places], "found": len(use),
                          "needed": AUTO_MIN, "other_dirs": other}
        near, win = near_in_time(use, old, new)
        far, why = 0, None
        if win is None:
            why = "untimed"         # every run of the machine
        elif len(near) < AUTO_MIN:
            win, why = None, "few"  # every run of the machine
        else:
            far = len(use) - len(near)
            use = near
        rs = sorted(use, key=lambda r: os.path.basename(r["_path"]))
    elif len(rs) < 3:
        raise BadInput("--between '%s': %d runs of OLD's method, matrix, settings and slice"
                       " length besides OLD and NEW (%d other results directories); allowed"
                       " 3 or more" % (path, len(rs), other))
    out = merge_runs(", ".join(rel(x) for x in places) if auto else path, rs, "--between")
    out["_other"] = other
    out["_auto"] = auto
    if auto:
        out["_window"] = win
        out["_far"] = far
        out["_window_why"] = why
    return out, None


def next_hint(root):
    """--next ROOT: how to compare the newest run in ROOT (make run's, just
    written) with the one before it of its matrix and machine in ROOT, and
    how many other such runs in and below ROOT --between auto has to take
    (make run's last line)."""
    if not os.path.isdir(root):
        raise BadInput("--next '%s': no such directory" % root)
    rs = [((made(r) or [0, 0])[1], r["_path"], r)
          for _, r in loaded(root, "--next") if r is not None]
    if not rs:
        raise BadInput("--next '%s': no results directories" % root)
    rs.sort(key=lambda x: x[:2])
    new = rs.pop()
    mine = (matrix_key(new[2]), machine_key(new[2]))
    same = [(d, r) for _, d, r in rs if (matrix_key(r), machine_key(r)) == mine]
    own = [new[1]] + [d for d, _ in same[-1:]]
    ids, others = {run_id(d) for d in own} - {None}, []
    for real, r in loaded(root, "--next", {os.path.realpath(d) for d in own}, tree=True,
                          want={conf_key(new[1])}):
        rid = run_id(real)
        if r is None or (matrix_key(r), machine_key(r)) != mine or rid in ids:
            continue
        others.append(r)
        if rid is not None:
            ids.add(rid)
    n = len(others)
    near, win = near_in_time(others, same[-1][1], new[2]) if same else (others, None)
    if win is not None and AUTO_MIN <= len(near) < n:
        joins = (", %d of them made within the hours around the two (%s to %s UTC): their"
                 " spread joins the between-run term (BETWEEN=auto)" % (
                     len(near), *(time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))
                                  for t in win)))
    elif n >= AUTO_MIN:
        joins = ": their spread joins the between-run term (BETWEEN=auto)"
    else:
        joins = (": with %d or more their spread joins the between-run term, which without"
                 " them sees minutes, not hours" % AUTO_MIN)
    if not same:
        return ("%s: the first run of its matrix on this machine in %s: after another, make"
                " compare OLD=%s NEW=<the next> gives a verdict per pair; %d other run%s of"
                " this machine and matrix in and below it%s" % (
                    PROG, rel(root), rel(new[1]), n, "" if n == 1 else "s", joins))
    return ("%s: make compare OLD=%s NEW=%s compares it with the run before; %d other run%s"
            " of this machine and matrix in and below %s%s" % (
                PROG, rel(same[-1][0]), rel(new[1]), n, "" if n == 1 else "s", rel(root), joins))


def rel(path):
    """PATH relative to the working directory when it is under it."""
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


def matrix_key(res):
    """What two results must share for their levels to mean the same."""
    return (res.get("method"), sorted(group(res)), res.get("settings"), res.get("secs"))


def group(res):
    """(tx, rx, setting) -> {"ok": [runs], "bad": {status: count}}, in the
    order the configurations first appear."""
    out = {}
    for r in res["runs"]:
        # an IPv6 configuration (udpgso_ab.sh --family) is a pair of its own
        key = tuple(r[k] + (" IPv6" if k == "rx_mode" and r.get("family") == 6 else "")
                    for k in KEY_FIELDS)
        g = out.setdefault(key, {"ok": [], "bad": {}})
        st = r.get("status", "ok")
        if st == "ok":
            g["ok"].append(r)
        else:
            g["bad"][st] = g["bad"].get(st, 0) + 1
    return out


def made(res):
    """[first, last] start and end time of RES's slices or windows, or None."""
    ts = [t for r in res["runs"] if isinstance(r.get("times"), dict)
          for t in (number(r["times"].get("start")), number(r["times"].get("end")))
          if t is not None]
    return [min(ts), max(ts)] if ts else None
