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


def pair_levels(runs):
    """unit (run_id, else rep) -> geometric mean of the A and B rx MB/s of
    that unit, for the units that have both."""
    by = {}
    for r in runs:
        v = number(r.get("rx_MBps"))
        if v is None or v <= 0:
            continue
        by.setdefault(r.get("run_id", r.get("rep")), {})[r["setting"]] = v
    return [math.sqrt(x["A"] * x["B"]) if "B" in x else x["A"]
            for _, x in sorted(by.items(), key=unit_order) if "A" in x]


def unit_order(kv):
    """time order of (unit, ...): numbers as numbers (rep 10 after rep 9;
    until 2026-11-27 they sorted as text), then anything else as text"""
    k = kv[0]
    return (0, k, "") if isinstance(k, (int, float)) and not isinstance(k, bool) \
        else (1, 0, str(k))


# which pairs move together between runs: the non-GSO UDP senders (one skb per
# datagram), the GSO senders (whose level depends on the machine's state:
# +-30% within a run here) and TCP
TX_KIND = {"sendto": "udp", "sendmmsg": "udp", "gso-cmsg": "gso", "gso-sockopt": "gso",
           "sendmmsg-gso": "gso", "zerocopy": "gso", "tcp": "tcp"}


def kind_of(pair):
    """The kind of a (tx mode, rx mode) pair: TX_KIND, else its tx mode."""
    return TX_KIND.get(pair[0], pair[0])


def reference_of(k, keys, by_kind, left_out):
    """The pairs whose levels make K's reference: the other pairs of its kind
    that are not left out (with --reference all, or when fewer than 2 are
    left, every other pair that is not)."""
    others = [q for q in keys if q != k and q not in left_out]
    mates = [q for q in others if kind_of(q) == kind_of(k)]
    return mates if by_kind and len(mates) >= 2 else others


def relative_levels(levels, by_kind=False, left_out=()):
    """pair -> its units' levels, each divided by the geometric mean of its
    reference pairs' levels in the same unit (the k-th run or slice pair of
    every pair: one round, seconds apart; reference_of).  Runs minutes apart
    move every pair's level together (two quiet default runs of 2026-11-23,
    5 minutes apart: +4% to +37% for all 13 pairs), which the ratio takes
    out; what it keeps is a change of one pair against the rest.  A unit that
    fewer than 2 reference pairs have is left out."""
    out = {}
    for k, xs in levels.items():
        ref = reference_of(k, list(levels), by_kind, left_out)
        rel = []
        for i, x in enumerate(xs):
            others = [levels[q][i] for q in ref if len(levels[q]) > i]
            if len(others) >= 2:
                rel.append(x / math.exp(sum(math.log(v) for v in others) / len(others)))
        out[k] = rel
    return out


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


def between_terms(lo, ln, keys=None):
    """kind -> (v, df): the variance a pair's change between two runs has
    beyond its units' own spread, 2 tau^2, with tau^2 the mean of
    block_tau2 over the kind's pairs in both runs (LO, LN: pair -> units),
    and its degrees of freedom ((BLOCKS - 1) per estimate).  Why: the
    units of one run are not independent replicates of the machine's
    state; a pair's level against its kind moves between runs by more than
    they say (the A/A campaign of 2026-11-27 at 0.25 s slices: a GSO pair's
    run means 10-18% apart, sd, against a Welch standard error of 3-4% from
    its 20-60 units; 14 of 19 consecutive same-code comparisons gave a
    verdict without this term).  The state also moves within a run, so
    the blocks of each run estimate it from the two runs alone; pooled over
    a kind's pairs (same machine, same kind of traffic) for degrees of
    freedom.  A kind none of whose pairs has 2 units a block gets none."""
    pool = {}
    for k in keys or lo:
        for xs in (lo.get(k) or [], ln.get(k) or []):
            t = block_tau2(xs)
            if t is not None:
                pool.setdefault(kind_of(k), []).append(t)
    return {kd: (2.0 * sum(ts) / len(ts), float(len(ts) * (BLOCKS - 1)))
            for kd, ts in pool.items()}


def log_change(old, new):
    """|mean ln(new) - mean ln(old)|, 0 without 2 values a side."""
    w = cs.welch_log(old, new)
    return abs(w[0]) if w else 0.0


def headline_family(ao, an, rel, by_kind, thr, level):
    """The headline family's verdicts on the pairs' levels AO (old) and AN
    (new): pair -> per-unit levels.  Returns (lo, ln, fv, left_out, between):
    the levels the verdicts used (relative_levels when REL), pair -> Holm's
    verdict at LEVEL and THRESHOLD (compare_stats.headline_verdicts; pairs
    without 2 levels a side are not in it), the pairs left out of the
    others' reference, and pair -> the between-run term its test used
    (between_terms: (v, df), or None).

    A pair whose change is called is left out of the other pairs' reference
    (the largest change first) and the verdicts are taken again, until no new
    pair is called: one pair cut by 20% would otherwise raise its three
    kind-mates by 0.8^(-1/3) = 7.7%.  The size of a change is taken against
    every other pair not left out: a change that moves half of a kind
    (sendto -> plain and -> gro) makes, against that kind alone, the pairs
    that did not move look as changed.  When the first pass calls nothing,
    nothing is left out: an A/A comparison's chance of any call is the first
    pass's."""
    left_out = []
    while True:
        lo, ln = ao, an
        if rel:
            lo = relative_levels(ao, by_kind, left_out)
            ln = relative_levels(an, by_kind, left_out)
        ks = [k for k in ao if lo[k] and ln[k]]
        bt = between_terms(lo, ln, [k for k in ks if k not in left_out])
        btk = {k: bt.get(kind_of(k)) for k in ks}
        fv = dict(zip(ks, cs.headline_verdicts([(lo[k], ln[k], thr, "higher", btk[k])
                                                for k in ks], level)))
        called = [k for k in ks if fv[k]["verdict"] != "within noise" and k not in left_out]
        if not rel or not called:
            return lo, ln, fv, left_out, btk
        ko, kn = relative_levels(ao, False, left_out), relative_levels(an, False, left_out)
        left_out.append(max(called, key=lambda k: (log_change(ko[k], kn[k]), k)))
