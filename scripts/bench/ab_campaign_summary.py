#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the campaigns of ab_campaign.sh, judged against issue 26's
targets, from the results directories under DIR/{default,aa,known}/.

    ab_campaign_summary.py DIR [--true 0.97] [--recompute]

--recompute: the slices runs' pair intervals and verdicts are computed
again from their raw logs (raw/*.log, run.conf) with this tree's
ab_report.py and ab_stats.py, not read from their results.json: a
campaign judged again under a changed rule without running it again (the
repetitions each run took stay those its rules of the day chose).

A/A: at most 5% of pairs called "real", at most 1 run in 20 with any false
call; known effect (A at 97% of B): found (real, A slower) in at least 80%
of runs' pairs, the interval covering the true ratio in at least 95%: the
pacer's own A/B (pacer_truth, per run) where the slices' pace lines give it,
and the nominal 0.97 beside it, that coverage split by whether the pacer
held its model in every slice of the pair (pacer_fit), to within the
model's own error (PACER_ERR), and with a between-run term from the
campaign's other runs (across_runs).  Says how many runs, over how long,
and whether each target was met: never more."""
import argparse
import collections
import glob
import json
import lzma
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_rawlog import read_results, results_file  # noqa: E402


def recompute(r, d):
    """r["ab"] again from the raw logs of the slices run in d."""
    import ab_report
    from ab_rawlog import read_conf
    conf = read_conf(os.path.join(d, "run.conf"))
    runs = [ab_report.one_run(p, conf) for p in sorted(glob.glob(os.path.join(d, "raw",
                                                                             "*.log")))]
    _, ab = ab_report.aggregate(runs, conf["settings"].split(), ab_report.ci_opts(conf))
    ab_report.mark_out_of_reach(ab, ab_report.read_out_of_reach(d))
    r["ab"] = ab


def runs_of(d, again=False):
    out = []
    for p in filter(None, map(results_file, sorted(glob.glob(os.path.join(d, "*", ""))))):
        try:
            r = read_results(p)
        except (OSError, ValueError, lzma.LZMAError):
            continue
        r["_dir"] = os.path.basename(os.path.dirname(p))
        try:        # ab_campaign.sh --host-noise: the probe before the run
            with open(os.path.join(os.path.dirname(p), "host_noise.json")) as f:
                j = json.load(f)
            r["_host_noise"] = {x["size"]: x for x in j["sizes"]}
            r["_host_noise_cpu"] = (j.get("meta") or {}).get("cpu")
        except (OSError, ValueError, KeyError, TypeError):
            pass
        if r.get("wall_s") is None:     # slices: from run.conf
            try:
                with open(os.path.join(os.path.dirname(p), "run.conf")) as f:
                    c = dict(x.rstrip("\n").split("=", 1) for x in f if "=" in x)
                r["wall_s"] = round(float(c["t_end"]) - float(c["t_start"]), 1)
            except (OSError, KeyError, ValueError):
                pass
        if r.get("method") != "inrun":
            if again:
                recompute(r, os.path.dirname(p))
            for a in r.get("ab") or []:
                slices_ci(a)
        out.append(r)
    return out


def slices_ci(a):
    """A slices run's pair entry in the in-run form this summary reads: ci
    is its headline metric's interval (ci[ci_metric]; real = it excludes 1.0
    and passes Holm over the pairs), the secondary one rx MB/s or the CPU
    cost per GiB, whichever the headline is not."""
    cis = a.get("ci") or {}
    if not isinstance(cis, dict) or "half_pct" in cis:
        return
    m = a.get("ci_metric") or "rx_MBps"
    iv = cis.get(m)
    if not iv or iv.get("half_pct") is None:
        a["ci"] = None
        return
    a["ci"] = dict(iv, real=bool(iv.get("holm") and iv.get("excludes_1")),
                   target_met=bool(a.get("target_reached")), varies=False,
                   n_runs=iv.get("n"))
    a["method"] = "slices"


def span_min(rs):
    """Minutes from the first window or slice of RS to the last; None
    without times."""
    ts = [w["t0"] for r in rs for w in r.get("windows") or []]
    ts += [x["times"]["start"] for r in rs for x in r.get("runs") or []
           if (x.get("times") or {}).get("start")]      # slices
    return (max(ts) - min(ts)) / 60.0 if ts else None


def span(rs):
    m = span_min(rs)
    if m is None:
        return "-"
    return "%.0f min (%s)" % (m, ", ".join(r["_dir"][:16] for r in rs))


def pairs(r):
    return [p for p in r.get("ab") or [] if p.get("ci")]


def outlier_line(rs):
    """How many pairs name an outlier, for intervals that kept them in the
    verdict (those with ci.robust, the interval without them: since
    results/ab-2026-11-25c; before, outliers were left out)."""
    ps = [p for r in rs for p in pairs(r) if "robust" in p["ci"]]
    n = sum(1 for p in ps if p["ci"].get("outliers"))
    if not ps:
        return []
    return ["- pairs with a named outlier (kept in their verdict): %d of %d" % (n, len(ps))]


def load(r):
    """The run's load average (1 min) at its start and end: 'S -> E'."""
    la = r.get("loadavg") or {}
    try:
        return "%s -> %s" % (la["start"].split()[0], la["end"].split()[0])
    except (KeyError, IndexError, AttributeError):
        return "-"


def load_max(r):
    try:
        return max(float((r.get("loadavg") or {})[k].split()[0]) for k in ("start", "end"))
    except (KeyError, IndexError, AttributeError, ValueError):
        return None


def by_load(rs, ok, bounds=(3.0, 6.0)):
    """'load < 3: A of B; 3-6: ...; >= 6: ...' of the pairs for which
    ok(p) holds, the runs grouped by the higher of their start and end load."""
    out = []
    lo = 0.0
    for hi in list(bounds) + [None]:
        g = [p for r in rs for p in pairs(r) if load_max(r) is not None
             and load_max(r) >= lo and (hi is None or load_max(r) < hi)]
        if g:
            name = ("load < %g" % hi if lo == 0 else "load %g-%g" % (lo, hi) if hi
                    else "load >= %g" % lo)
            out.append("%s: %d of %d" % (name, sum(1 for p in g if ok(p)), len(g)))
        lo = hi
    return "; ".join(out)


def aa(rs):
    L = ["## A/A (A and B the same setting)", ""]
    if not rs:
        return L + ["No A/A runs.", ""]
    n = sum(len(pairs(r)) for r in rs)
    real = sum(1 for r in rs for p in pairs(r) if p["ci"]["real"])
    bad_runs = sum(1 for r in rs if any(p["ci"]["real"] for p in pairs(r)))
    hw = [p["ci"]["half_pct"] for r in rs for p in pairs(r)]
    tot = sum(len(r.get("ab") or []) for r in rs)
    L.append("%d runs, %d pair intervals (of %d pairs: the rest had under 2 runs with usable "
             "window pairs), over %s." % (len(rs), n, tot, span(rs)))
    L.append("- pairs called real: %d of %d (%.1f%%; target at most 5%%: %s)" % (
        real, n, 100.0 * real / max(1, n), "NOT met" if real > 0.05 * n else
        "met" if len(rs) >= 20 else "not shown: %d runs are too few" % len(rs)))
    mins = span_min(rs) or 0.0
    L.append("- runs with any false call: %d of %d (target at most 1 in 20%s: %s)" % (
        bad_runs, len(rs), ", and at least 20 runs over an hour",
        "NOT met" if bad_runs > len(rs) / 20.0 else "not shown: too few runs"
        if len(rs) < 20 else "not shown: the runs span %.0f min" % mins if mins < 60
        else "met"))
    if hw:
        L.append("- half-widths: median ±%.1f%%, worst ±%.1f%%; within ±3%%: %d of %d" % (
            statistics.median(hw), max(hw), sum(1 for x in hw if x <= 3), len(hw)))
    x = across_runs(rs)
    ps = [p for r in rs for p in pairs(r) if id(p) in x]
    if ps:
        out = {id(p) for p in ps if not x[id(p)][0] <= 1.0 <= x[id(p)][1]}
        hw3 = sum(1 for p in ps if x[id(p)][1] / x[id(p)][0] <= 1.03 ** 2)
        L.append("- with a between-run term (across_runs, leave-one-out): %d of %d intervals "
                 "exclude 1.0 (before Holm), %d runs with any; within ±3%%: %d of %d" % (
                     len(out), len(ps), len({id(r) for r in rs for p in pairs(r)
                                             if id(p) in out}),
                     hw3, len(ps)))
    L += rule_line(rs)
    L += outlier_line(rs)
    L += secondary(rs, "A/A")
    for r in rs:
        called = ["%s->%s %.3f" % (p["tx_mode"], p["rx_mode"], p["ci"]["ratio"])
                  for p in pairs(r) if p["ci"]["real"]]
        L.append("  - %s (load %s): %d pairs, %s; ± %s" % (
            r["_dir"], load(r), len(pairs(r)),
            "called: " + ", ".join(called) if called else "none called",
            " ".join("%.1f%%" % p["ci"]["half_pct"] for p in pairs(r))))
    # an A/A run's every pair is state-free: its path noise is the host's
    # and the path's alone, with no effect of the setting in it
    return L + [""] + host_noise(rs)


def secondary(rs, title, true=None):
    """The same judgement on the secondary metric (rx MB per tool CPU-second;
    Holm over the pairs as for the headline)."""
    import ab_stats
    ivs = [[p.get("ci_MB_per_tool_cpu_s") for p in pairs(r)] for r in rs]
    n = sum(1 for x in ivs for iv in x if iv)
    if not n:
        return []
    real = bad = cov = 0
    for x in ivs:
        ok = [iv for iv in x if iv]
        h = ab_stats.holm([iv["p"] for iv in ok], 0.05)
        calls = [iv for iv, c in zip(ok, h) if c and iv["excludes_1"]]
        real += len(calls)
        bad += bool(calls)
        if true is not None:
            cov += sum(1 for iv in ok if iv["lo"] <= true <= iv["hi"])
    line = "- secondary metric (rx MB per tool CPU-second), %s: %d of %d pairs called real" % (
        title, real, n)
    if true is None:
        line += ", %d of %d runs with any call" % (bad, len(rs))
    else:
        line += ", interval covers %.3f in %d of %d" % (true, cov, n)
    return [line]


PACER_FIT = 0.001	# a slice within 0.1% of its pace model: the pacer held
# how well the pace model knows a pair's truth: on a quiet machine a
# slice's bytes were within 1e-4 of R*T + bucket (the ±500 of 5.3 MB of
# results/ab-campaign-2026-11-26q/README.md); an interval narrower than
# that (±0.003% at 50 MB/s) cannot be judged against the model closer
PACER_ERR = 1e-4


def tbf_grain(pace, unit_len):
    """How much faster tbf passes packets of unit_len bytes than its rate
    says: the kernel charges a packet whole nanoseconds, (len * mult) >>
    shift with mult and shift as psched_ratecfg_precompute sets them
    (net/sched/sch_generic.c; psched_l2t_ns in include/net/sch_generic.h),
    at tc's rate in whole bytes/s (the pace line's bits/s over 8, the
    fraction dropped: what `tc -j qdisc show` prints back).  A 1514-byte
    packet at 48.5 MB/s of payload costs 30350 ns, not 30350.52: A's pacer
    runs 1.7e-5 fast and B's, at 50 MB/s, 29440.0002 ns, not at all, so the
    pacer's A/B of 1472-byte senders is 0.970016, not 0.970.  A 64 KiB GSO
    packet's part of a nanosecond is under 1e-6.  Multiplies the whole
    model (rate and bucket: the bucket is nanoseconds of tokens too); 1.0
    when the pace line has no rate in bits/s or the unit is unknown."""
    rate = int((pace.get("tbf_bit_s") or 0) / 8)
    if rate <= 0 or not unit_len:
        return 1.0
    factor, shift = 10 ** 9, 0
    while True:
        mult = factor // rate
        if mult & (1 << 31) or factor & (1 << 63):
            break
        factor <<= 1
        shift += 1
    ns = (unit_len * mult) >> shift
    return unit_len * 1e9 / rate / ns if ns else 1.0


def pacer_unit(x, pl, hdr):
    """The bytes tbf charges per packet of slice record x: a datagram and
    its headers, a GSO send's segments each with theirs (qdisc_pkt_len of
    a GSO skb counts every segment's headers), None for TCP (its TSO
    packets vary) and for records without tx_gso_active."""
    if x.get("proto") == "tcp" or "tx_gso_active" not in x:
        return None
    return (pl + hdr) * ((x.get("segs") or 1) if x["tx_gso_active"] else 1)


def wire_unit(x, size):
    """(payload, headers) in bytes of a packet of slice record x as tbf on
    the veth counts it (qdisc_pkt_len: the frame without FCS): Ethernet 14,
    IPv4 20 or IPv6 40, UDP 8 after the record's datagram size (the run's
    SIZE for records without one); TCP at the MSS of a 1500-byte MTU with
    timestamps (1448 over IPv4, 1428 over IPv6) and 32 bytes of header."""
    v6 = x.get("family", 4) == 6
    if x.get("proto") == "tcp":
        return (1428, 86) if v6 else (1448, 66)
    return (x.get("size") or size, 62 if v6 else 42)


def pacer_slices(r, p):
    """Each slice of pair p in the known-effect slices run r that its
    interval used: {rep: {setting: (model, measured)}} in bytes/s of
    payload, or None when it cannot be said (no pace, a slice missing).
    A slice starts with a full tbf bucket (b bytes on the wire,
    b*size/(size+headers) of payload), so over its receiver's window T the
    model passes R*T + b_payload and its rx MB/s is R + b_payload/T, with R
    and b as each slice's pace line set them and T its receiver's window
    (rx bytes / rx MB/s: time, not the bytes under test; the measured rx
    MB/s moves with T fully, this with its b/(R T) share, 2.5% at 5 MB/s in
    1 s).  The bytes left of this model were within 1e-4 of a slice's on a
    quiet machine (results/ab-campaign-2026-11-26q/README.md).  R and b are
    each slice record's pace (ab_slice.py, from its raw log's pace line;
    one without burst is from before 2026-11-26, when every bucket was
    131072).  Both scaled by tbf_grain: the kernel's whole-nanosecond
    packet cost."""
    size = r.get("size") or 1472
    used = set((p["ci"] or {}).get("reps_used") or [])
    per = {}
    for x in r.get("runs") or []:
        if pair_key(x) != pair_key(p) or x.get("rep") not in used:
            continue
        pace = x.get("pace") or {}
        if not pace.get("rate_Bps") or not x.get("rx_MBps") or not x.get("rx_bytes"):
            return None
        pl, hdr = wire_unit(x, size)
        rate, burst = pace["rate_Bps"], pace.get("burst", 131072)
        t = x["rx_bytes"] / (x["rx_MBps"] * 2 ** 20)
        k = tbf_grain(pace, pacer_unit(x, pl, hdr))
        per.setdefault(x["rep"], {})[x["setting"]] = (k * (rate + burst * pl / (pl + hdr) / t),
                                                      x["rx_MBps"] * 2 ** 20)
    per = {k: v for k, v in per.items() if "A" in v and "B" in v}
    if not per or len(per) != len(used):
        return None
    return per


def pacer_truth(r, p):
    """The true A/B of rx MB/s of pair p in the known-effect slices run r,
    from the pacer (pacer_slices): the true ratio of a slice pair is
    (R_A + bA/T_A)/(R_B + bB/T_B), the run's their geometric mean over the
    pairs in its interval.  0.970 exactly only when A's bucket is scaled
    with its rate and T_A = T_B.  None when it cannot be said (in-run runs,
    no pace)."""
    return truth_of(pacer_slices(r, p))


def truth_of(per):
    """pacer_truth from pacer_slices' PER (None: None)."""
    if per is None:
        return None
    logs = [math.log(v["A"][0] / v["B"][0]) for v in per.values()]
    return math.exp(sum(logs) / len(logs))


def pacer_fit(r, p):
    """How far the slices of pair p strayed from the pace model: the largest
    |ln(measured / model)| over them (0.02 = 2%), or None.  Beyond
    PACER_FIT the pacer did not hold its model in some slice (the link idle
    for part of the window, or the window's end late: 4 ms are 1.5% of a
    0.27 s window), and the pacer's A/B is not that pair's truth to better
    than the model's own error."""
    return fit_of(pacer_slices(r, p))


def fit_of(per):
    """pacer_fit from pacer_slices' PER (None: None)."""
    if per is None:
        return None
    return max(abs(math.log(m / model)) for v in per.values() for model, m in v.values())


def pair_key(p):
    """A pair's identity across runs: tx, rx and family."""
    return (p["tx_mode"], p["rx_mode"], p.get("family", 4))


def across_runs(rs):
    """Each pair's interval with a between-run term, leave-one-out: for the
    pair in run r, ab_across.tau_interval against the other runs of the
    campaign (tau^2 by the method of moments, runs as the unit, issue 26
    point 2).  {id(p): (lo, hi, tau)} for the pairs with at least
    ab_across.MIN_OTHERS other runs."""
    import ab_across
    by = {}
    for r in rs:
        for p in pairs(r):
            x = ab_across.log_se(p["ci"])
            if x is not None:
                by.setdefault(pair_key(p), []).append((id(r), p) + x)
    out = {}
    for xs in by.values():
        for rid, p, y, se, n in xs:
            got = ab_across.tau_interval(y, se, n, [x[2:4] for x in xs if x[0] != rid])
            if got:
                out[id(p)] = got
    return out


def across_calls(rs):
    """The run-level rule of make run's verdicts (ab_across.call) replayed
    leave-one-out: each pair's across-runs p against the campaign's other
    runs, Holm over each run's pairs.  {id(p): real} for the pairs with a
    between-run term."""
    import ab_across
    x = across_runs(rs)
    # (the runs of each pair with an interval: the others of one are k - 1)
    k = collections.Counter(pair_key(p) for r in rs for p in pairs(r)
                            if ab_across.log_se(p["ci"]) is not None)
    out = {}
    for r in rs:
        recs = []
        for p in pairs(r):
            if id(p) not in x:
                continue
            y, se, n = ab_across.log_se(p["ci"])
            lo, hi, tau = x[id(p)]
            recs.append((p, {"lo": lo, "hi": hi,
                             "p": ab_across.p_value(y, se, n, tau, k[pair_key(p)] - 1)}))
        ab_across.call([c for _, c in recs], 95.0)
        out.update((id(p), c["real"]) for p, c in recs)
    return out


def rule_line(rs, known_true=None):
    """Pairs and runs called by the run-level rule (across_calls)."""
    import ab_across
    c = across_calls(rs)
    if not c:
        return []
    ps = [p for r in rs for p in pairs(r) if id(p) in c]
    called = [p for p in ps if c[id(p)]]
    runs = sum(1 for r in rs if any(c.get(id(p)) for p in pairs(r)))
    head = ("- the run-level rule (make run's verdict with %d or more other runs of the "
            "machine: the interval with the between-run term, here leave-one-out, must pass "
            "Holm over the run's pairs): " % ab_across.MIN_OTHERS)
    if known_true is not None:
        found = sum(1 for p in called if p["ci"]["ratio"] < 1.0)
        return [head + "found %d of %d" % (found, len(ps))]
    return [head + "%d of %d pairs called, %d of %d runs with any (target at most 1 in 20: %s)"
            % (len(called), len(ps), runs, len(rs), "NOT met" if runs > len(rs) / 20.0 else
               "met" if len(rs) >= 20 else "not shown: too few runs")]


def across_line(rs, tr):
    """Found and coverage of the pacer's A/B with the between-run term
    (across_runs), and each pair's tau."""
    x = across_runs(rs)
    ps = [p for p in tr if id(p) in x]
    if not ps:
        return []
    found = sum(1 for p in ps if x[id(p)][1] < 1.0)
    cov = sum(1 for p in ps if x[id(p)][0] <= p["_truth"] <= x[id(p)][1])
    taus = {}
    for p in ps:
        taus.setdefault("%s->%s" % (p["tx_mode"], p["rx_mode"]), x[id(p)][2])
    return ["- with a between-run term (each pair's interval widened by the spread of its "
            "A/B over the campaign's other runs beyond their own se, leave-one-out: "
            "across_runs): below 1.0 in %d of %d, covers the pacer's A/B in %d of %d (%.0f%%); "
            "between-run sd: %s" % (found, len(ps), cov, len(ps), 100.0 * cov / len(ps),
                                    ", ".join("%s %.3f%%" % (k, 100 * v)
                                              for k, v in sorted(taus.items())))]


def fit_line(tr):
    """Coverage of the pacer's A/B split by whether the pacer held its model
    in every slice of the pair (pacer_fit): a miss where it held is the
    interval's; where it did not, the truth is known only to the model's
    error."""
    held = [p for p in tr if p["_fit"] <= PACER_FIT]
    off = [p for p in tr if p["_fit"] > PACER_FIT]

    def cov(ps):
        return sum(1 for p in ps if p["ci"]["lo"] <= p["_truth"] <= p["ci"]["hi"])
    line = ("- the pacer held its model (every slice within %.1f%% of R*T + bucket) in %d of "
            "%d pairs: the interval covers the pacer's A/B in %d of them" % (
                100 * PACER_FIT, len(held), len(tr), cov(held)))
    if held:
        line += " (%.0f%%)" % (100.0 * cov(held) / len(held))
    if off:
        line += "; in %d of the %d where a slice strayed (by up to %.1f%%)" % (
            cov(off), len(off), 100 * max(p["_fit"] for p in off))
    return line


def windows_line(rs):
    """How the slices' receivers measured their window (runs[].rx_window:
    kernel receive stamps or the reader's clock; none recorded before
    session 22: reads), the pacer's model R*T + bucket being over it."""
    c = {"kernel": 0, "reads": 0}
    for r in rs:
        for x in r.get("runs") or []:
            if x.get("proto") != "tcp":
                w = x.get("rx_window") or "reads"
                c[w] = c.get(w, 0) + 1
    return ("- UDP receivers' windows: %d slices by the kernel's receive stamps, %d by the "
            "reader's clock (--rx-window; the pacer's model is over the window)"
            % (c["kernel"], c["reads"]))


def known(rs, true):
    L = ["## Known effect (A paced at 97%% of B: true A/B %.3f)" % true, ""]
    if not rs:
        return L + ["No known-effect runs.", ""]
    ps = [p for r in rs for p in pairs(r)]
    n = len(ps)
    for r in rs:
        for p in pairs(r):
            per = pacer_slices(r, p) if r.get("method") != "inrun" else None
            p["_truth"], p["_fit"] = truth_of(per), fit_of(per)
    found = sum(1 for p in ps if p["ci"]["real"] and p["ci"]["ratio"] < 1.0)
    cov = sum(1 for p in ps if p["ci"]["lo"] <= true <= p["ci"]["hi"])
    tr = [p for p in ps if p["_truth"] is not None]
    mcov = sum(1 for p in tr if p["ci"]["lo"] <= p["_truth"] <= p["ci"]["hi"])
    ecov = sum(1 for p in tr if p["ci"]["lo"] * (1 - PACER_ERR) <= p["_truth"]
               <= p["ci"]["hi"] * (1 + PACER_ERR))
    tot = sum(len(r.get("ab") or []) for r in rs)
    L.append("%d runs, %d pair intervals (of %d pairs), over %s." % (len(rs), n, tot, span(rs)))
    L.append(windows_line(rs))
    L.append("- found (real, A slower): %d of %d (%.0f%%; target at least 80%%: %s)" % (
        found, n, 100.0 * found / max(1, n), "NOT met" if found < 0.8 * n else
        "met" if len(rs) >= 20 else "not shown: %d runs are too few" % len(rs)))
    L.append("- interval covers %.3f: %d of %d (%.0f%%; target at least 95%%: %s)" % (
        true, cov, n, 100.0 * cov / max(1, n), "NOT met" if cov < 0.95 * n else
        "met" if len(rs) >= 20 else "not shown: %d runs are too few to show a 95%% rate"
        % len(rs)))
    if tr:
        L.append("- interval covers the pacer's own A/B (each slice's full bucket over its "
                 "window, at tbf's whole-ns packet cost, pacer_truth: %.4f-%.4f): %d of %d "
                 "(%.0f%%; target at least 95%%: %s)"
                 % (min(p["_truth"] for p in tr), max(p["_truth"] for p in tr), mcov, len(tr),
                    100.0 * mcov / len(tr), "NOT met" if mcov < 0.95 * len(tr) else "met"
                    if len(rs) >= 20 else "not shown: %d runs are too few" % len(rs)))
        L.append("- the same to within the model's own error (±%g%% of the pacer's A/B: a quiet "
                 "slice's bytes were within %g of R*T + bucket, ab-campaign-2026-11-26q): %d of "
                 "%d (%.0f%%; target at least 95%%: %s)" % (
                     100 * PACER_ERR, PACER_ERR, ecov, len(tr), 100.0 * ecov / len(tr),
                     "NOT met" if ecov < 0.95 * len(tr) else "met" if len(rs) >= 20
                     else "not shown: %d runs are too few" % len(rs)))
        narrow = sum(1 for p in tr if p["ci"]["hi"] / p["ci"]["lo"] < (1 + PACER_ERR) ** 2)
        if narrow:
            L.append("- %d of %d intervals are narrower than the model's own error (±%g%%): "
                     "for them strict coverage of the pacer's A/B asks more than the model "
                     "knows, and the line above (to within the model's own error) is the one "
                     "to judge by" % (narrow, len(tr), 100 * PACER_ERR))
        L.append(fit_line(tr))
        L += across_line(rs, tr)
        L += rule_line(rs, true)
    L.append("- found, by load (1-min load average, the higher of the run's start and end): "
             + by_load(rs, lambda p: p["ci"]["real"] and p["ci"]["ratio"] < 1.0))
    L.append("- covered, by load: " + by_load(rs, lambda p: p["ci"]["lo"] <= true
                                              <= p["ci"]["hi"]))
    L += outlier_line(rs)
    L += secondary(rs, "known", true)
    for r in rs:
        L.append("  - %s (load %s): %s" % (r["_dir"], load(r), "; ".join(
            "%s->%s %.3f [%.3f-%.3f] ±%.1f%%%s" % (
                p["tx_mode"], p["rx_mode"], p["ci"]["ratio"], p["ci"]["lo"], p["ci"]["hi"],
                p["ci"]["half_pct"], " found" if p["ci"]["real"] and p["ci"]["ratio"] < 1
                else "") for p in pairs(r))))
    miss = ["%s %s->%s %.3f [%.3f-%.3f]" % (r["_dir"][:16], p["tx_mode"], p["rx_mode"],
                                            p["ci"]["ratio"], p["ci"]["lo"], p["ci"]["hi"])
            for r in rs for p in pairs(r) if not p["ci"]["lo"] <= true <= p["ci"]["hi"]]
    if miss:
        L.append("- not covering %.3f: " % true + "; ".join(miss))
    miss = ["%s %s->%s %.5f [%.5f-%.5f] pacer %.5f (slices off the model by up to %.2f%%)" % (
        r["_dir"][:16], p["tx_mode"], p["rx_mode"], p["ci"]["ratio"], p["ci"]["lo"],
        p["ci"]["hi"], p["_truth"], 100 * p["_fit"]) for r in rs for p in pairs(r)
        if p["_truth"] is not None and not p["ci"]["lo"] <= p["_truth"] <= p["ci"]["hi"]]
    if miss:
        L.append("- not covering the pacer's A/B: " + "; ".join(miss))
    return L + [""]


def n_runs(r):
    """The runs of a result: in-run runs (run_id), or slices (configuration
    and rep; run_id = rep since issue 26, the same count)."""
    return len({(x.get("config"), x.get("run_id", x.get("rep"))) for x in r["runs"]})


def default(rs):
    L = ["## Default runs (`make run`)", ""]
    if not rs:
        return L + ["No default runs.", ""]
    L.append("%d runs over %s." % (len(rs), span(rs)))
    tally = {"si": 0, "all": 0, "walls": []}
    for r in rs:
        ps = pairs(r)
        met = sum(1 for p in ps if p["ci"]["target_met"])
        hw = [p["ci"]["half_pct"] for p in ps]
        si = [p for p in ps if p.get("tx_mode") in STATE_FREE]
        si_met = sum(1 for p in si if p["ci"]["target_met"])
        tally["si"] += bool(si) and si_met == len(si)
        tally["all"] += bool(ps) and met == len(ps)
        if isinstance(r.get("wall_s"), (int, float)):
            tally["walls"].append(r["wall_s"])
        at = (r.get("interval") or {}).get("target_at_s")
        L.append("- %s: wall %s s%s, %d runs, target ±3%% in %d of %d pairs (%d of %d of the "
                 "pairs the setting does not touch), half-widths median ±%.1f%%; varied "
                 "between runs: %s" % (
                     r["_dir"], r.get("wall_s"),
                     " (every pair decided after %.0f s)" % at if at is not None else "",
                     n_runs(r), met, len(ps), si_met, len(si),
                     statistics.median(hw) if hw else float("nan"),
                     ", ".join("%s->%s" % (p["tx_mode"], p["rx_mode"]) for p in ps
                               if p["ci"]["varies"]) or "none"))
    w = tally["walls"]
    L += ["", "Issue 26's target for `make run` (every pair whose effect does not depend on the "
          "machine's state within ±3%%: the senders the setting does not touch, %s): met in "
          "**%d of %d runs**; every pair within ±3%% in %d of %d; wall time %s." % (
              ", ".join(STATE_FREE), tally["si"], len(rs), tally["all"], len(rs),
              "median %.0f s, at most %.0f s" % (statistics.median(w), max(w)) if w else "-")]
    return L + [""] + host_noise(rs)


# the tx modes whose pairs a GSO flag of the sender does not touch (A/A in
# effect under `make run`'s tx-udp-segmentation on/off): issue 26's target
# wants their intervals within +-3% in every default run
STATE_FREE = ("sendto", "sendmmsg", "tcp")


def ranks(xs):
    """Ranks 1..n of xs, ties given their average rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    rk = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            rk[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return rk


def spearman(xs, ys, shuffles=20000, seed=1):
    """Spearman's rank correlation of paired xs, ys and its two-sided
    permutation p-value (ys shuffled against xs; exact enumeration is not
    needed at these sizes); (None, None) below 3 pairs or without spread."""
    import random
    if len(xs) < 3:
        return None, None
    rx, ry = ranks(xs), ranks(ys)

    def rho(a, b):
        ma, mb = statistics.mean(a), statistics.mean(b)
        num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
        den = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
        return num / den if den else None
    r0 = rho(rx, ry)
    if r0 is None:
        return None, None
    rnd, ry2, hit = random.Random(seed), list(ry), 0
    for _ in range(shuffles):
        rnd.shuffle(ry2)
        if abs(rho(rx, ry2)) >= abs(r0) - 1e-12:
            hit += 1
    return r0, (hit + 1) / (shuffles + 1)


NON_GSO = ("sendto", "sendmmsg")


def pair_sd(p):
    """The sd of ln(A/B) over a slices pair's slice pairs in its interval
    (the interval's own sd_log), %."""
    sd = (p.get("ci") or {}).get("sd_log")
    return None if sd is None else 100 * sd


def host_noise(rs):
    """The runs (default or A/A) with a host-noise probe before them: per run the
    probe's adjacent 1 s pair sd (64K and 16M copies) before it and, where the
    next run's probe follows it, after it, beside the non-GSO UDP pairs' sd of
    ln(A/B) and how many of them reached +-3%; then the rank correlation
    between the host's noise (the mean of before and after where both are
    there) and the path's."""
    rs = [r for r in rs if r.get("_host_noise")]
    if not rs:
        return []
    rs = sorted(rs, key=lambda r: r["_dir"])
    L = ["### The host's own noise around each run (`--host-noise`)", "",
         "Host: the copy loop's sd of ln(next/this) over adjacent 1 s blocks (host_noise.py, "
         "pinned to CPU %s) in the seconds before the run / after it (the next run's probe). "
         "Path: the median over the %d non-GSO UDP pairs (%s -> plain, gro) of the sd of "
         "their slice pairs' ln(A/B)." % (
             ", ".join(sorted({str(r.get("_host_noise_cpu", "?")) for r in rs})),
             2 * len(NON_GSO), ", ".join(NON_GSO)), "",
         "| run | load | host 64K | host 16M | path sd | non-GSO UDP within ±3% | "
         "all within ±3% |", "|---|---|---|---|---|---|---|"]
    sizes = ("64K", "16M")
    pts = []

    def sd_of(r, k):
        return ((r or {}).get("_host_noise", {}).get(k) or {}).get("pair_sd_pct")
    for i, r in enumerate(rs):
        nxt = rs[i + 1] if i + 1 < len(rs) else None
        ps = pairs(r)
        ng = [p for p in ps if p.get("tx_mode") in NON_GSO]
        sds = [x for x in (pair_sd(p) for p in ng) if x is not None]
        path = statistics.median(sds) if sds else None
        cells, host = [], {}
        for k in sizes:
            b, a = sd_of(r, k), sd_of(nxt, k)
            both = [x for x in (b, a) if x is not None]
            host[k] = statistics.mean(both) if both else None
            cells.append("-" if b is None else "%.1f%% / %s" % (b, "-" if a is None
                                                               else "%.1f%%" % a))
        L.append("| %s | %s | %s | %s | %s | %d of %d | %d of %d |" % (
            r["_dir"][:16], load(r), cells[0], cells[1],
            "-" if path is None else "%.1f%%" % path,
            sum(1 for p in ng if p["ci"]["target_met"]), len(ng),
            sum(1 for p in ps if p["ci"]["target_met"]), len(ps)))
        if path is not None:
            pts.append((path, host))
    L.append("")
    for k in sizes:
        xy = [(h[k], y) for y, h in pts if h[k] is not None]
        rho, pv = spearman([a for a, _ in xy], [b for _, b in xy])
        if rho is not None:
            L.append("- host %s (mean of before and after) against the path: Spearman's rank "
                     "correlation %.2f over %d runs (permutation p = %.3g)" % (k, rho, len(xy), pv))
    return L + [""]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--true", type=float, default=0.97)
    ap.add_argument("--recompute", action="store_true",
                    help="the slices runs' intervals again from their raw logs, with this "
                    "tree's rules")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.dir):
        print("ab_campaign_summary.py: '%s': no such directory" % a.dir, file=sys.stderr)
        return 1
    L = ["# A/B campaigns: %s" % a.dir, ""]
    if a.recompute:
        L += ["Intervals and verdicts computed again from the raw logs (--recompute).", ""]
    L += default(runs_of(os.path.join(a.dir, "default"), a.recompute))
    L += aa(runs_of(os.path.join(a.dir, "aa"), a.recompute))
    L += known(runs_of(os.path.join(a.dir, "known"), a.recompute), a.true)
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
