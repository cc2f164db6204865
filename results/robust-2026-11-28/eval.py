#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The verdict intervals of scripts/bench/ab_robust_eval.py (t, trimmed,
wilcoxon, switch) on the campaigns of the current default (slices of
0.25 s, the budget spent): A/A false calls, the known effect's coverage of
the pacer's own A/B (ab_campaign_summary.pacer_slices, each pair's slices
as its interval used them), and the widths.

    eval.py aa DIR...      A/A runs (campaign KIND directories)
    eval.py known DIR...   known-effect runs
    eval.py default DIR... default runs: widths only
"""
import math
import os
import statistics
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "scripts", "bench"))
import ab_campaign_summary as S  # noqa: E402
import ab_robust_eval as E  # noqa: E402

ERR = S.PACER_ERR


def truths(r):
    """{(tx, rx, family): the pacer's A/B} of a known run's pairs."""
    out = {}
    for p in r.get("ab") or []:
        if p.get("ci"):
            t = S.truth_of(S.pacer_slices(r, p))
            if t is not None:
                out[(p["tx_mode"], p["rx_mode"], p.get("family", 4))] = t
    return out


def main(kind, dirs):
    rs = [r for d in dirs for r in S.runs_of(d)]
    print("%d %s runs from %s" % (len(rs), kind, ", ".join(dirs)))
    print()
    print("| method | pairs | called real | runs with a call | found | covers the pacer's "
          "A/B | within %g | median ± | within ±3%% | non-GSO within ±3%% |" % ERR)
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in E.METHODS:
        n = real = runs_call = found = cov = ecov = in3 = ng = ng3 = 0
        hw = []
        for r in rs:
            level = float((r.get("interval") or {}).get("level") or 95.0)
            res, _ = E.judge_run(r, level)
            tr = truths(r) if kind == "known" else {}
            call = False
            for k, npairs, lo, hi, p, est, is_real in res[m]:
                if lo is None:
                    continue
                n += 1
                h = E.half_pct(lo, hi)
                hw.append(h)
                in3 += h <= 3.0
                if k[:2] in E.NON_GSO:
                    ng += 1
                    ng3 += h <= 3.0
                real += is_real
                call = call or is_real
                found += is_real and est < 0
                if k in tr:
                    t = math.log(tr[k])
                    cov += lo <= t <= hi
                    ecov += lo + math.log(1 - ERR) <= t <= hi + math.log(1 + ERR)
            runs_call += call
        print("| %s | %d | %d | %d of %d | %s | %s | %s | ±%.2f%% | %d | %d of %d |" % (
            m, n, real, runs_call, len(rs), found if kind == "known" else "-",
            cov if kind == "known" else "-", ecov if kind == "known" else "-",
            statistics.median(hw) if hw else float("nan"), in3, ng3, ng))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("aa", "known", "default"):
        sys.exit("usage: eval.py aa|known|default DIR...")
    sys.exit(main(sys.argv[1], sys.argv[2:]))
