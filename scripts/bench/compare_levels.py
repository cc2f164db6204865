#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The headline family of ab_compare.py: each tx/rx pair's level per run (the
geometric mean of its A and B rx MB/s), taken against the other pairs of its
kind in the same round, and the verdicts on those levels (docs/compare.md,
"The headline family")."""

import math

import compare_stats as cs


def number(v):
    """v as a finite float, else None (absent, null, text, NaN)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


class Units(list):
    """A pair's unit levels in time order, with ROUNDS: the round of each
    (mark_rounds), or None when a record had none."""
    rounds = None

    @classmethod
    def of(cls, xs, rounds=None):
        out = cls(xs)
        out.rounds = list(rounds) if rounds is not None else getattr(xs, "rounds", None)
        return out


def mark_rounds(runs):
    """Set "_round" on RUNS' records (one results directory's): the round of
    the run its unit (tx/rx pair and run_id, else rep) was made in, counted
    from 0.  A round runs each pair it has once, one after the other (the
    unit of a pair that comes again starts the next one), so a pair that
    stopped and came back later (the budget's leftover goes to the pairs
    nearest their target, also those stopped as out of reach) has its later
    units in the later rounds, not in the rounds after its last: of the
    committed slices runs, 89 of 345 had such a pair (19 of the 19 default
    runs of 2026-11-27, results/compare-rounds-2026-11-28).  Records
    without times get none."""
    def unit(r):
        return (r["tx_mode"], r["rx_mode"], r.get("family"), unit_of(r))
    start = {}
    for r in runs:
        t = number((r.get("times") or {}).get("start"))
        if t is None:
            return
        u = unit(r)
        start[u] = min(start.get(u, t), t)
    rnd, seen, of = 0, set(), {}
    for u in sorted(start, key=lambda x: (start[x], str(x))):
        if u[:3] in seen:
            rnd, seen = rnd + 1, set()
        seen.add(u[:3])
        of[u] = rnd
    for r in runs:
        r["_round"] = of[unit(r)]


def unit_of(r):
    """A record's unit within its pair: its run_id, else its rep."""
    return r.get("run_id", r.get("rep"))


def pair_levels(runs):
    """unit (run_id, else rep) -> geometric mean of the A and B rx MB/s of
    that unit, for the units that have both: Units, with the round of each
    when the records have one (mark_rounds)."""
    by = {}
    for r in runs:
        v = number(r.get("rx_MBps"))
        if v is None or v <= 0:
            continue
        x = by.setdefault(unit_of(r), {})
        x[r["setting"]] = v
        x.setdefault("round", r.get("_round"))      # one per unit (mark_rounds)
    units = [x for _, x in sorted(by.items(), key=unit_order) if "A" in x]
    rounds = [x.get("round") for x in units]
    return Units.of([math.sqrt(x["A"] * x["B"]) if "B" in x else x["A"] for x in units],
                    rounds if None not in rounds else None)


def side_levels(runs):
    """The levels of one side's records, per results directory: a list with
    pair_levels of each ("_run", set when a side holds several runs; 0
    otherwise), in the order of their runs."""
    by = {}
    for r in runs:
        by.setdefault(r.get("_run", 0), []).append(r)
    return [pair_levels(by[i]) for i in sorted(by)]


def unit_order(kv):
    """time order of (unit, ...): numbers as numbers (rep 10 after rep 9;
    until 2026-11-27 they sorted as text), then anything else as text"""
    k = kv[0]
    return (0, k, "") if isinstance(k, (int, float)) and not isinstance(k, bool) \
        else (1, 0, str(k))


# which pairs move together between runs: the non-GSO UDP senders (one skb per
# datagram), the GSO senders (whose level depends on the machine's state:
# +-30% within a run here) and TCP; the GSO senders by receiver (BY_RX)
TX_KIND = {"sendto": "udp", "sendmmsg": "udp", "gso-cmsg": "gso", "gso-sockopt": "gso",
           "sendmmsg-gso": "gso", "zerocopy": "gso", "tcp": "tcp"}
# the kinds whose pairs are grouped by receiver too: a GSO sender's level
# against the other GSO senders into the same receiver (plain or UDP_GRO)
# moves between runs by 1-6% (sd), against all eight GSO pairs by 8-13%: the
# state moves the plain and the GRO receiver's pairs apart (19 default runs
# of 2026-11-27 over 4.3 hours, results/compare-kinds-2026-11-28/spread-v657.log);
# the non-GSO UDP kind stays whole: by receiver it would have 2 pairs, one
# mate each, too few for a reference
BY_RX = ("gso",)


def kind_of(pair):
    """The kind of a (tx mode, rx mode) pair: TX_KIND, else its tx mode;
    for a kind of BY_RX, KIND/rx mode (gso/plain, gso/gro)."""
    k = TX_KIND.get(pair[0], pair[0])
    return "%s/%s" % (k, pair[1]) if k in BY_RX else k


def pool_of(pair):
    """The kind a pair's time-block estimate of the between-run variance is
    pooled over (between_terms): TX_KIND's, the GSO pairs of both receivers
    together (twice the degrees of freedom of one receiver's four)."""
    return TX_KIND.get(pair[0], pair[0])


def reference_of(k, keys, by_kind, left_out):
    """The pairs whose levels make K's reference: the other pairs of its kind
    that are not left out (with --reference all, or when fewer than 2 are
    left, every other pair that is not)."""
    others = [q for q in keys if q != k and q not in left_out]
    mates = [q for q in others if kind_of(q) == kind_of(k)]
    return mates if by_kind and len(mates) >= 2 else others


def relative_levels(levels, by_kind=False, left_out=()):
    """pair -> its units' levels, each divided by its reference in the same
    round (one slice pair or run of every pair, seconds apart; Units.rounds,
    else the k-th unit of every pair; reference_of).  Runs minutes apart
    move every pair's level together (two quiet default runs of 2026-11-23,
    5 minutes apart: +4% to +37% for all 13 pairs), which the ratio takes
    out; what it keeps is a change of one pair against the rest.  The
    reference of a unit is the geometric mean of the reference pairs' levels
    in it when all of them have it; when only some do, of theirs each taken
    against its place among them (ref_scale): the same scale.  Why: a pair
    stops when its interval is narrow enough (and may come back for the
    budget's leftover), so later rounds have fewer of its mates (for tcp ->
    tcp, of every other pair), and a geometric mean of whichever were there
    changed scale with them (sendto and sendmmsg differ by a third).  A unit
    that fewer than 2 reference pairs have is left out."""
    by_round = by_rounds(levels)
    out = {}
    for k, xs in levels.items():
        ref = [q for q in reference_of(k, list(levels), by_kind, left_out) if levels[q]]
        off = ref_scale(by_round, ref)
        rel = []
        for rnd, x in by_round[k].items():
            others = [math.log(by_round[q][rnd]) - off[q] for q in ref if rnd in by_round[q]]
            if len(others) >= 2:
                rel.append(x / math.exp(sum(others) / len(others)))
        out[k] = rel
    return out


def by_rounds(levels):
    """pair -> {round: level} of LEVELS (pair -> its units): by the rounds the
    units were made in (Units.rounds) when every pair has them, else the
    k-th unit of each pair is round k."""
    have = all(getattr(xs, "rounds", None) is not None for xs in levels.values() if xs)
    return {k: dict(zip(xs.rounds if have and xs else range(len(xs)), xs))
            for k, xs in levels.items()}


def ref_scale(by_round, ref):
    """q -> the mean of ln(q's level) less the mean ln level of REF, over the
    rounds all of REF have (BY_ROUND: by_rounds's), or 0 for every q when no
    round has them all.  Taken over the same rounds, the machine's state in
    them cancels; the offsets sum to 0, so a round that all of REF have
    gets their plain geometric mean."""
    common = set.intersection(*(set(by_round[q]) for q in ref)) if ref else set()
    if not common:
        return dict.fromkeys(ref, 0.0)
    rnds = sorted(common)
    mean = {i: sum(math.log(by_round[q][i]) for q in ref) / len(ref) for i in rnds}
    return {q: sum(math.log(by_round[q][i]) - mean[i] for i in rnds) / len(rnds) for q in ref}


# a run's units (rounds, in time order) fall into this many blocks for its
# between-block variance (between_terms)
BLOCKS = 3


def block_tau2(xs, blocks=None):
    """The between-block variance component of ln(xs), xs a run's units in
    time order cut into BLOCKS consecutive blocks: the variance of the block
    means less what the units' own spread inside the blocks explains (the
    two-level estimate of Kalibera and Jones, ISMM 2013, with the blocks of
    one run for its runs), at least 0; None with fewer than 2 units a block."""
    blocks = blocks or BLOCKS
    n = len(xs)
    if n < 2 * blocks or min(xs) <= 0:
        return None
    ls = [math.log(x) for x in xs]
    bl = [ls[i * n // blocks:(i + 1) * n // blocks] for i in range(blocks)]
    means = [sum(b) / len(b) for b in bl]
    mm = sum(means) / blocks
    vb = sum((m - mm) ** 2 for m in means) / (blocks - 1)
    within = sum(sum((x - m) ** 2 for x in b) / (len(b) - 1) / len(b)
                 for b, m in zip(bl, means)) / blocks
    return max(0.0, vb - within)


def run_means_tau2(runs):
    """(tau^2, df) from the spread of one side's run means of ln(units)
    (RUNS: a list of unit lists, one per run): the variance of the run means
    less the mean of their own squared standard errors, at least 0, with
    len(RUNS) - 1 degrees of freedom; None with fewer than 2 runs of 2 units."""
    rs = [[math.log(x) for x in xs] for xs in runs if len(xs) >= 2 and min(xs) > 0]
    if len(rs) < 2:
        return None
    means = [sum(r) / len(r) for r in rs]
    mm = sum(means) / len(means)
    vb = sum((m - mm) ** 2 for m in means) / (len(means) - 1)
    within = sum(sum((x - m) ** 2 for x in r) / (len(r) - 1) / len(r)
                 for r, m in zip(rs, means)) / len(rs)
    return max(0.0, vb - within), float(len(rs) - 1)


def between_terms(lo, ln, keys=None):
    """kind -> (tau^2, df): the variance a pair's level has from run to run
    beyond its units' own spread, and its degrees of freedom.  LO, LN: pair
    -> the units of each run of that side (a list of lists).  Two estimates
    are pooled, weighted by their degrees of freedom, over the kind's pairs:
    block_tau2 of every run ((BLOCKS - 1) each), and with several runs a
    side the spread of that side's run means (run_means_tau2: runs - 1).
    Why: the units of one run are not independent replicates of the
    machine's state; a pair's level against its kind moves between runs by
    more than they say (the A/A campaign of 2026-11-27 at 0.25 s slices: a
    GSO pair's run means 10-18% apart, sd, against a Welch standard error of
    3-4% from its 20-60 units; 14 of 19 consecutive same-code comparisons
    gave a verdict without this term).  The state also moves within a run,
    so the blocks of each run estimate it from two runs alone; pooled over a
    kind's pairs (same machine, same kind of traffic) for degrees of
    freedom.  A pair's change between the two sides' means then has
    tau^2 (1/runs OLD + 1/runs NEW) beyond its units' spread
    (headline_family).  A kind with no estimate gets none."""
    pool = {}
    for k in keys or lo:
        for side in (lo.get(k) or [], ln.get(k) or []):
            ests = [(t, float(BLOCKS - 1)) for t in map(block_tau2, side) if t is not None]
            rm = run_means_tau2(side)
            pool.setdefault(pool_of(k), []).extend(ests + ([rm] if rm else []))
    return {kd: pooled(ests) for kd, ests in pool.items() if ests}


def pooled(ests):
    """(tau^2, df) estimates pooled, weighted by their degrees of freedom."""
    df = sum(d for _, d in ests)
    return sum(t * d for t, d in ests) / df, df


def calibration_terms(runs_by_pair, rel, by_kind):
    """pair -> (tau^2, df) of its level between runs made at other times
    (ab_compare --between: a campaign of the machine, e.g. an hour or more of
    default runs), or None: RUNS_BY_PAIR pair -> a list of runs' units, taken
    as the headline family takes them (against the pair's reference in each
    round when REL), then run_means_tau2 of each pair's runs.  Why: the time
    blocks of two runs see how the machine's state moves within minutes, not
    across hours.  Default runs of two sessions 4-5 hours apart (two
    instances of this VM: results/ab-campaign-2026-11-27d, 27c against 27d)
    gave the same code a verdict in 6 of 78 comparisons, all GSO -> gro
    pairs, whose level against their kind's moved between runs by 15-18%
    (sd of 15 run means over 5 hours) where the blocks of two calm runs saw
    a few percent."""
    rr = per_run_relative(runs_by_pair, by_kind, ()) if rel else runs_by_pair
    return {k: run_means_tau2(nonempty(runs)) for k, runs in rr.items()}


def larger(runs, blocks):
    """(the (tau^2, df) of the larger tau^2, "runs" or "blocks"), of RUNS
    (side_terms's) and BLOCKS (between_terms's kind estimate), either may
    be None; (None, None) when both are.  Why the larger: the runs of a
    calibration miss what a run of its own does (one default run of 19 had
    sendto -> gro 9% below its kind for all of its 4 minutes, in no other
    run), and the blocks miss the hours; on 19 default runs of one VM over
    4.3 hours (results/compare-hours-2026-11-27), each compared with every
    other with the 17 others as calibration, the same code got a verdict in
    14 of 171 comparisons with the blocks, 18 with the runs, 1 with the
    larger, a non-GSO UDP pair's 20% cut found as often as with the
    blocks."""
    if runs and (not blocks or runs[0] >= blocks[0]):
        return runs, "runs"
    return (blocks, "blocks") if blocks else (None, None)


def side_terms(k, ro, rn, calib):
    """(tau^2, df) of pair K from CALIB[K] pooled with the spread of each
    side's run means (RO, RN: pair -> runs' units, several runs a side), or
    None when CALIB has no estimate for K."""
    if not calib or not calib.get(k):
        return None
    rms = [run_means_tau2(nonempty(s[k])) for s in (ro, rn)]
    return pooled([calib[k]] + [r for r in rms if r])


def log_change(old, new):
    """|mean ln(new) - mean ln(old)|, 0 without 2 values a side."""
    w = cs.welch_log(old, new)
    return abs(w[0]) if w else 0.0


def as_runs(levels):
    """pair -> a list of runs' unit lists (compare_stats.as_runs of each
    value: several runs a side, or one), each keeping its rounds (Units)."""
    out = {}
    for k, v in levels.items():
        runs = v if v and isinstance(v[0], (list, tuple)) else [v]
        out[k] = [Units.of(r) for r in runs]
    return out


def between_scale(ro, rn):
    """1/runs OLD + 1/runs NEW (RO, RN: as_runs's), the factor of tau^2 in
    a pair's between-run term (headline_family; ab_compare's
    between_run_sd divides by it)."""
    return 1.0 / max(1, max(map(len, ro.values()), default=1)) + \
        1.0 / max(1, max(map(len, rn.values()), default=1))


def nonempty(runs):
    """RUNS without its empty runs (a run none of whose units had a
    reference)."""
    return [r for r in runs if r]


def flat(runs_by_pair):
    """pair -> every unit of its runs, in run order."""
    return {k: [x for xs in rs for x in xs] for k, rs in runs_by_pair.items()}


def per_run_relative(runs_by_pair, by_kind, left_out):
    """relative_levels taken inside each run (its rounds are what pair up):
    pair -> a list of runs' relative unit lists."""
    n = max((len(rs) for rs in runs_by_pair.values()), default=0)
    out = {k: [] for k in runs_by_pair}
    for i in range(n):
        rel = relative_levels({k: (rs[i] if i < len(rs) else [])
                               for k, rs in runs_by_pair.items()}, by_kind, left_out)
        for k in out:
            out[k].append(rel[k])
    return out


def headline_family(ao, an, rel, by_kind, thr, level, calib=None):
    """The headline family's verdicts on the pairs' levels AO (old) and AN
    (new): pair -> per-unit levels of one run, or pair -> a list of the
    units of each run (several results directories a side).  Returns (lo,
    ln, fv, left_out, between): the levels the verdicts used (relative_levels
    inside each run when REL), pair -> Holm's
    verdict at LEVEL and THRESHOLD (compare_stats.headline_verdicts; pairs
    without 2 levels a side are not in it), the pairs left out of the
    others' reference, pair -> the between-run term its test used
    ((tau^2 (1/runs OLD + 1/runs NEW), df) from between_terms, or None; with
    CALIB, calibration_terms's, the larger of side_terms's and that) and
    pair -> where the term came from ("runs", "blocks" or None).
    With runs a side, LO and LN keep them apart (pair -> a list of runs'
    levels): each run weighs the same in the test (compare_stats.welch_log).

    A pair whose change is called is left out of the other pairs' reference:
    one pair cut by 20% would otherwise raise its three kind-mates by
    0.8^(-1/3) = 7.7%.  Which pairs: the one pair of the first pass's calls
    that, left out of every reference, is then the only pair called, when
    exactly one is (one_explains); else the largest change against every
    other pair not left out goes first, until no new pair is called
    (greedy_left_out).  When the first pass calls nothing, nothing is left
    out: an A/A comparison's chance of any call is the first pass's."""
    ctx = {"ao": ao, "ro": as_runs(ao), "rn": as_runs(an), "rel": rel, "by_kind": by_kind,
           "thr": thr, "level": level, "calib": calib,
           "multi": any(v and isinstance(v[0], list)
                        for v in list(ao.values()) + list(an.values()))}
    ctx["scale"] = between_scale(ctx["ro"], ctx["rn"])
    first = family_pass(ctx, [])
    called = calls(first[2])
    if not rel or not called:
        return first
    return one_explains(ctx, called) or greedy_left_out(ctx, first)


def against_all(ctx, left_out):
    """pair -> |the change of its level| against every other pair not in
    LEFT_OUT (greedy_left_out's order)."""
    ko = flat(per_run_relative(ctx["ro"], False, left_out))
    kn = flat(per_run_relative(ctx["rn"], False, left_out))
    return {k: log_change(ko[k], kn[k]) for k in ko}


def family_pass(ctx, left_out):
    """headline_family's result with LEFT_OUT left out of every reference
    (CTX: headline_family's inputs, their runs and between_scale)."""
    ro, rn = ctx["ro"], ctx["rn"]
    if ctx["rel"]:
        ro = per_run_relative(ro, ctx["by_kind"], left_out)
        rn = per_run_relative(rn, ctx["by_kind"], left_out)
    lo, ln = flat(ro), flat(rn)
    ks = [k for k in ctx["ao"] if lo[k] and ln[k]]
    bt = between_terms(ro, rn, [k for k in ks if k not in left_out])
    src = {k: larger(side_terms(k, ro, rn, ctx["calib"]), bt.get(pool_of(k))) for k in ks}
    btk = {k: (src[k][0][0] * ctx["scale"], src[k][0][1]) if src[k][0] else None for k in ks}
    src = {k: src[k][1] for k in ks}
    # each run weighs the same in its side's mean (compare_stats.welch_log)
    fv = dict(zip(ks, cs.headline_verdicts([(nonempty(ro[k]), nonempty(rn[k]), ctx["thr"],
                                             "higher", btk[k]) for k in ks], ctx["level"])))
    if ctx["multi"]:
        lo = {k: nonempty(v) for k, v in ro.items()}
        ln = {k: nonempty(v) for k, v in rn.items()}
    return lo, ln, fv, list(left_out), btk, src


def calls(fv):
    """The pairs FV calls (regression or improvement)."""
    return [k for k, f in fv.items() if f["verdict"] != "within noise"]


def one_explains(ctx, called):
    """family_pass(CTX, [K]) for the one pair K of CALLED that, left out of
    every reference, is the only pair called; None when no pair or two do.
    Why: a kind whose level moved between the runs against the other kinds
    (the machine's state moves the non-GSO and GSO pairs apart) makes a
    kind-mate of a cut pair the largest change against every pair, and
    leaving it out first (greedy_left_out) named the whole kind, or only
    the mates, beside the cut in 6-15 of the 190 comparisons of
    results/ab-campaign-2026-11-28a; the cut pair alone explains the calls:
    with it left out its mates' reference is the other mates.  Only one
    pair: two pairs of a kind (half of it) and the other half explain the
    calls alike when the kind moved, and greedy_left_out's order (against
    every pair) is the better guess there."""
    found = []
    for k in called:
        ev = family_pass(ctx, [k])
        if calls(ev[2]) == [k]:
            found.append(ev)
    return found[0] if len(found) == 1 else None


def greedy_left_out(ctx, first=None):
    """The pairs called, left out one at a time, the largest change against
    every other pair not left out first (sized against every pair: a
    change that moves half of a kind, sendto -> plain and -> gro, makes the
    pairs of that kind that did not move look as changed against it), until
    no new pair is called.  FIRST: family_pass(CTX, []) when already taken."""
    left_out = []
    while True:
        ev = first if first and not left_out else family_pass(ctx, left_out)
        called = [k for k in calls(ev[2]) if k not in left_out]
        if not called:
            return ev
        size = against_all(ctx, left_out)
        left_out.append(max(called, key=lambda k: (size[k], k)))
