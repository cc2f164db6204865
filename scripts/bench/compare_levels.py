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
            for _, x in sorted(by.items(), key=lambda kv: str(kv[0])) if "A" in x]


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


def log_change(old, new):
    """|mean ln(new) - mean ln(old)|, 0 without 2 values a side."""
    w = cs.welch_log(old, new)
    return abs(w[0]) if w else 0.0


def headline_family(ao, an, rel, by_kind, thr, level):
    """The headline family's verdicts on the pairs' levels AO (old) and AN
    (new): pair -> per-unit levels.  Returns (lo, ln, fv, left_out): the
    levels the verdicts used (relative_levels when REL), pair -> Holm's
    verdict at LEVEL and THRESHOLD (compare_stats.headline_verdicts; pairs
    without 2 levels a side are not in it), and the pairs left out of the
    others' reference.

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
        fv = dict(zip(ks, cs.headline_verdicts([(lo[k], ln[k], thr, "higher") for k in ks],
                                               level)))
        called = [k for k in ks if fv[k]["verdict"] != "within noise" and k not in left_out]
        if not rel or not called:
            return lo, ln, fv, left_out
        ko, kn = relative_levels(ao, False, left_out), relative_levels(an, False, left_out)
        left_out.append(max(called, key=lambda k: (log_change(ko[k], kn[k]), k)))
