#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the report math of scripts/bench/ab_report.py on known
data: spreads (medians of odd and even counts, missing values left out),
counter and /proc/stat deltas, and aggregate(): each configuration's
medians over its runs that passed, the A/B paired ratios of the
repetitions both sides have, cost per GiB, the address families kept
apart; the per-skb counters by side and the cross-check that takes the
sender's for what was sent and the receiver's for what was read (each
read on the other host is flagged); an outlier pair kept in the interval
and the verdict, named in summary.md with the interval without it beside
(not a verdict); the slices as runs (issue 26): run_id and window by time,
each pair's run_ratios, n_runs and spread on known ratios, the verdict
line's range, and ab_results_check.py naming each of them missing or
wrong; a pair within the target when every pair was decided and wider
after the rounds that followed, named so; each pair's interval across
the other runs of its machine (ab_across); the --serve protocol (an answer per request, each log parsed
once).  One PASS/FAIL line per test
(ab_report_test.sh makes them TAP)."""
import argparse
import os
import sys

from ugtest import registry, run_tests  # (scripts/bench on sys.path)
import ab_report as R  # noqa: E402
import ab_stats as S  # noqa: E402

TESTS, test = registry()
GIB = 1 << 30


def same(a, b):
    if a != b:
        raise AssertionError("%r, expected %r" % (a, b))


def close(a, b, tol=1e-9):
    if a is None or abs(a - b) > tol:
        raise AssertionError("%r, expected %r (+-%g)" % (a, b, tol))


@test
def spread_medians_min_max_n():
    same(R.spread([3, 1, 2]), {"median": 2, "min": 1, "max": 3, "n": 3})
    same(R.spread([4, 1, None, 2, 3]), {"median": 2.5, "min": 1, "max": 4, "n": 4})
    same(R.spread([None, None]), None)
    same(R.spread([]), None)


@test
def counter_deltas():
    same(R.delta({"a": 1, "b": 5, "c": 2}, {"a": 4, "b": 5, "d": 9}), {"a": 3})
    same(R.delta({"a": 1, "b": 5}, {"a": 4, "b": 5}, keep_zero=True), {"a": 3, "b": 0})


@test
def proc_stat_delta_in_seconds():
    s0 = "cpu  100 10 50 1000 5 2 8 0 0 0"
    s1 = "cpu  300 10 150 1100 5 4 48 6 0 0"
    d = R.stat_delta(s0, s1, 100)
    close(d["user"], 2.0)
    close(d["system"], 1.0)
    close(d["softirq"], 0.4)
    close(d["steal"], 0.06)
    # busy: user + nice + system + irq + softirq (not idle, iowait, steal)
    close(d["busy"], 2.0 + 0 + 1.0 + 0.02 + 0.4)


@test
def bpf_skipped_runs_mark_counters_incomplete():
    ok = "tx_skbs 5\n# skipped: none: recursion_misses 0, mark updates failed 0 (map full 0), " \
         "marks evicted none (hash map)\n"
    same(R.bpf_incomplete(ok), None)
    same(R.bpf_incomplete("tx_skbs 5\n"), None)
    bad = "tx_skbs 5\n# skipped: INCOMPLETE: recursion_misses 3, mark updates failed 1 " \
          "(map full 1), marks evicted none (hash map)\n" \
          "# skipped prog netif_receive_skb recursion_misses 3\n"
    same(R.bpf_incomplete(bad), "recursion_misses 3, mark updates failed 1 (map full 1); "
         "netif_receive_skb recursion_misses 3")


@test
def tcp_counters_and_the_retransmission_note():
    # snapshot.sh counters: header and value lines of /proc/net/snmp
    text = ("Udp: InDatagrams OutDatagrams\nUdp: 7 9\n"
            "Tcp: RtoAlgorithm InSegs OutSegs RetransSegs InErrs\nTcp: 1 50 1000 15 0\n"
            "sysfs rx_packets 3\n")
    mib, sysfs, _ = R.parse_counters(text)
    same((mib["TcpOutSegs"], mib["TcpRetransSegs"], mib["UdpOutDatagrams"]), (1000, 15, 9))
    same(sysfs, {"rx_packets": 3})
    runs = [{"status": "ok", "setting": s, "tcp_retrans_pct": v}
            for s, v in (("A", 1.0), ("A", 3.0), ("B", 2.0), ("B", 0.5))]
    runs += [{"status": "ok", "setting": "A", "tcp_retrans_pct": None},
             {"status": "failed", "setting": "B", "tcp_retrans_pct": 9.0}]
    n = R.tcp_note(runs)
    same(n.startswith("tcp: the sender retransmitted a median 1.50% of its segments per "
                      "slice (A 2.00% [1.00-3.00], B 1.25% [0.50-2.00];"), True)
    same(R.tcp_note([{"status": "ok", "setting": "A"}]), None)


def run(setting, rep, mbps, cost_s, nbytes, status="ok"):
    """a run as one_run() returns it, with the fields aggregate() reads"""
    r = {"tx_mode": "gso-cmsg", "rx_mode": "gro", "setting": setting, "rep": rep,
         "config": 1, "status": status, "features": {}, "contradictions": [],
         "rx_MBps": mbps, "cost_per_GiB": S.per_gib(cost_s, nbytes),
         "cpu_cost_per_GiB": S.per_gib(cost_s, nbytes), "disturbed": False}
    if status != "ok":
        r["error"] = "failed"
    return r


OPTS = {"level": 95.0, "width": None, "min_pairs": 3, "max_reps": 5, "metric": "rx_MBps",
        "stop": None}


@test
def cost_per_gib():
    close(S.per_gib(2.0, 4 * GIB), 0.5)
    close(S.per_gib(1.5, GIB // 2), 3.0)
    same(S.per_gib(1.0, 0), None)


@test
def aggregate_medians_per_configuration():
    runs = [run("A", 1, 100.0, 1.0, GIB), run("A", 2, 300.0, 1.0, 2 * GIB),
            run("A", 3, 200.0, 3.0, GIB), run("A", 4, 999.0, 1.0, GIB, status="fail"),
            run("B", 1, 50.0, 2.0, GIB), run("B", 2, 150.0, 2.0, GIB),
            run("B", 3, 100.0, 1.0, GIB)]
    cfgs, _ = R.aggregate(runs, ["A", "B"], OPTS)
    a, b = cfgs
    same((a["setting"], a["runs"], a["ok"], a["failed"]), ("A", 4, 3, 1))
    # the failed run's 999 MB/s is not in the median
    same(a["rx_MBps"], {"median": 200.0, "min": 100.0, "max": 300.0, "n": 3})
    # cost per GiB: 1.0, 0.5, 3.0 CPU-seconds per GiB
    same(a["cost_per_GiB"], {"median": 1.0, "min": 0.5, "max": 3.0, "n": 3})
    same(b["rx_MBps"]["median"], 100.0)
    same(b["cost_per_GiB"]["median"], 2.0)


@test
def aggregate_paired_ratios_of_common_repetitions():
    runs = [run("A", 1, 100.0, 1.0, GIB), run("A", 2, 300.0, 1.0, GIB),
            run("A", 3, 200.0, 1.0, GIB), run("A", 4, 400.0, 1.0, GIB),
            run("B", 1, 50.0, 2.0, GIB), run("B", 2, 100.0, 4.0, GIB),
            run("B", 3, 200.0, 1.0, GIB)]
    _, ab = R.aggregate(runs, ["A", "B"], OPTS)
    same(len(ab), 1)
    e = ab[0]
    # rep 4 has no B: three pairs, ratios 2, 3, 1
    same(e["pairs"], 3)
    same(e["rx_MBps_ratio"], {"median": 2.0, "min": 1.0, "max": 3.0, "n": 3})
    # cost ratios A/B: 0.5, 0.25, 1
    same(e["cost_per_GiB_ratio"], {"median": 0.5, "min": 0.25, "max": 1.0, "n": 3})
    same(S.paired_ratios({1: 100.0, 2: 300.0, 4: 1.0}, {1: 50.0, 2: 100.0, 3: 7.0}),
         {1: 2.0, 2: 3.0})
    same(e["stopped_by"], "fixed reps (-n)")



@test
def a_pair_wider_after_the_rounds_after_the_target_says_so():
    # every pair decided after 81 s, then rounds to the budget: a pair not
    # within +-3% at the end, neither out of reach nor at max-reps, was
    # within it when decided and widened; with --after-target stop (or no
    # target time) it stopped on the budget as before
    import ab_summary
    conf = {"ci": "95,3", "reps": "3", "max_reps": "200", "stop": "target reached after "
            "81 s; then rounds of every pair until the budget (260 s)", "target_at": "81",
            "after_target": "rounds"}
    o = R.ci_opts(conf)
    same((o["target_at"], o["after_target"], o["width"]), (81.0, "rounds", 3.0))
    mb = {1: (100.0, 100.0), 2: (110.0, 100.0), 3: (92.0, 100.0), 4: (104.0, 100.0)}
    runs = [run(s, rep, ab[i], 1.0, GIB) for rep, ab in mb.items()
            for i, s in enumerate("AB")]
    _, ab = R.aggregate(runs, ["A", "B"], o)
    same(ab[0]["target_reached"], False)
    same(ab[0]["stopped_by"], "within the target when every pair was decided (after 81 s), "
         "wider after the rounds that followed")
    line = ab_summary.pair_line(ab[0], 13)
    same("target not reached (within the target when every pair was decided" in line, True)
    # out of reach when decided: the out-of-reach words win
    R.mark_out_of_reach(ab, {("gso-cmsg", "gro", 4): (40, 6.5)})
    same(ab[0]["stopped_by"], "out of reach: ~40 pairs needed at sd 6.5%")
    for c, want in ((dict(conf, after_target="stop"), conf["stop"]),
                    (dict(conf, target_at=""), conf["stop"]),
                    (dict(conf, max_reps="4"), "max-reps")):
        _, ab = R.aggregate(runs, ["A", "B"], R.ci_opts(c))
        same(ab[0]["stopped_by"], want)


@test
def across_runs_of_the_machine():
    # the between-run term of issue 26 point 2: tau from the other runs'
    # ln(A/B) less their se^2, the interval widened by it; the other runs
    # are those of the machine and matrix (run.conf) in and below the run's
    # parent, a copy of a run (same host and t_start) once, the run itself
    # and a run of other settings never
    import json
    import math
    import shutil
    import tempfile
    import ab_across as X
    import ab_summary
    lo, hi, tau = X.tau_interval(0.0, 0.001, 16, [(0.01, 0.001), (-0.01, 0.001),
                                                  (0.02, 0.001)])
    close(tau, 0.0152425, 1e-6)
    close(lo, 0.936489, 1e-6)
    close(hi, 1.067818, 1e-6)
    same(X.tau_interval(0.0, 0.001, 16, [(0.01, 0.001), (-0.01, 0.001)]), None)
    root = tempfile.mkdtemp()
    try:
        def mk(rel, t0, y, spec_b="tx:tx-udp-segmentation=off", res=True, tools="t1"):
            d = os.path.join(root, rel)
            os.makedirs(d)
            with open(os.path.join(d, "run.conf"), "w") as f:
                f.write("host=vm\nkernel=k\ncpu=c\nncpus=2\ntopology=local-veth\n"
                        "method=slices\nsecs=0.25\nspec_A=tx:tx-udp-segmentation=on\n"
                        "spec_B=%s\nrate=\nt_start=%s\n" % (spec_b, t0))
                if tools:
                    f.write("tools=%s\n" % tools)
            if res:
                with open(os.path.join(d, "results.json"), "w") as f:
                    json.dump({"runs": [{"times": {"start": t0, "end": t0 + 260}}],
                               "ab": [{"tx_mode": "gso-cmsg", "rx_mode": "plain", "family": 4,
                                       "ci": {"rx_MBps": {"ratio": math.exp(y),
                                                          "sd_log": 0.004, "n": 16}}}]}, f)
            return d
        me = mk("run0", 1000.0, 0.0, res=False)
        mk("a/run1", 2000.0, 0.01)
        mk("a/run2", 3000.0, -0.01, tools="t0")
        mk("b/run3", 4000.0, 0.02)
        shutil.copytree(os.path.join(root, "a/run1"), os.path.join(root, "b/copy-of-run1"))
        mk("c/other-settings", 5000.0, 0.5, spec_b="tx:tx-udp-segmentation=on")
        same(sorted(os.path.basename(p).replace("copy-of-", "") for p, _ in X.other_runs(me)),
             ["run1", "run2", "run3"])
        ab = [{"tx_mode": "gso-cmsg", "rx_mode": "plain", "family": 4,
               "ci": {"rx_MBps": {"ratio": 1.0, "sd_log": 0.004, "n": 16, "level": 95.0}}}]
        got = X.mark(me, {}, ab, "rx_MBps")
        same((got["runs"], got["first"], got["last"]), (3, 2000.0, 4260.0))
        x = ab[0]["ci"]["rx_MBps"]["across_runs"]
        same(x["runs"], 3)
        close(x["tau_log"], 0.0152425, 1e-6)
        close(x["lo"], 0.936489, 1e-6)
        close((x["ratio_min"], x["ratio_max"])[1], math.exp(0.02), 1e-12)
        same(X.words(ab[0]["ci"]["rx_MBps"]),
             "; across 3 other runs of this machine it varied between 0.99x and 1.02x with "
             "this one (between-run sd 1.5%): across runs 0.936-1.068, ±6.8%")
        same(ab_summary.across_note(got, 3).startswith(
            "Across runs: each verdict also says how far its A/B varied over the 3 other runs"),
            True)
        # which code made the others: run1 by the same tools (its copy once), run2 by
        # others, run3 by the same
        got = X.mark(me, {"tools": "t1"}, ab, "rx_MBps")
        same((got["tools"], got["same_tools"]), ("t1", 2))
        same(ab_summary.across_note(got, 3).endswith(
            "; 2 of them by the same tools' sources as this one (run.conf tools=t1), 1 by other "
            "or unrecorded ones: where those differ, code and state are mixed in the spread."),
            True)
        same(X.mark(me, {}, ab, "rx_MBps")["same_tools"], 0)
        same(ab_summary.across_note({"runs": 2}, 3).startswith(
            "Across runs: 2 other run(s) of this machine"), True)
        # the run-level rule: the across interval's p (the level at which it
        # reaches 1.0), Holm over the run's pairs; A/B 1.0 is p 1, not real
        same((x["p"], x["holm"], x["real"]), (1.0, False, False))
        # p inverts the interval: at p the half-width is |ln A/B|
        y = 0.05
        pv = X.p_value(y, 0.001, 16, 0.0152425, 3)
        q = 1.0 - pv / 2.0
        close(math.hypot(S.t_quantile(q, 15) * 0.001, S.t_quantile(q, 2) * 0.0152425), y, 1e-6)
        # A/B 1.03 with a tight run (se 0.001: its own p tiny, Holm passes) is
        # inside the between-run term's ±6.8%: "not shown across runs"; 1.2 is real
        for ratio, want in ((1.03, "**not shown across runs**"), (1.2, "**A is faster by")):
            iv = {"ratio": ratio, "sd_log": 0.004, "n": 16, "level": 95.0,
                  "lo": ratio * 0.998, "hi": ratio * 1.002, "half_pct": 0.2,
                  "excludes_1": True, "p": 1e-12, "holm": True, "mde_pct": 0.3}
            ent = {"tx_mode": "gso-cmsg", "rx_mode": "plain", "family": 4,
                   "ci_metric": "rx_MBps", "ci": {"rx_MBps": iv}}
            X.mark(me, {}, [ent], "rx_MBps")
            same(iv["across_runs"]["real"], ratio == 1.2)
            line = ab_summary.pair_line(ent, 1)
            same(want in line, True)
        # the same A/B in every run: no spread beyond each run's own
        ab[0]["ci"]["rx_MBps"].pop("across_runs")
        for rel in ("a/run1", "b/copy-of-run1", "a/run2", "b/run3"):
            with open(os.path.join(root, rel, "results.json")) as f:
                doc = json.load(f)
            doc["ab"][0]["ci"]["rx_MBps"]["ratio"] = 1.0
            with open(os.path.join(root, rel, "results.json"), "w") as f:
                json.dump(doc, f)
        X.mark(me, {}, ab, "rx_MBps")
        same(X.words(ab[0]["ci"]["rx_MBps"]), "; across 3 other runs of this machine no spread "
             "beyond each run's own (A/B 1.00x-1.00x with this one)")
    finally:
        shutil.rmtree(root)


@test
def outlier_kept_in_the_verdict_and_named():
    # 6 pairs, A 2% faster in 5 of them, one pair far off the other way: the
    # interval and "real" are on all 6 (not real), the summary names the
    # outlier and shows the 5-pair interval beside it, not as the verdict
    import ab_summary
    mb = {1: (102.0, 100.0), 2: (102.5, 100.0), 3: (101.8, 100.0), 4: (102.2, 100.0),
          5: (101.9, 100.0), 6: (60.0, 100.0)}
    runs = [run(s, rep, ab[i], 1.0, GIB) for rep, ab in mb.items()
            for i, s in enumerate("AB")]
    _, ab = R.aggregate(runs, ["A", "B"], OPTS)
    iv = ab[0]["ci"]["rx_MBps"]
    same((iv["n"], iv["outliers"], iv["reps_used"]), (6, [6], [1, 2, 3, 4, 5, 6]))
    same((iv["excludes_1"], iv["holm"]), (False, False))
    same(iv["robust"]["n"], 5)
    same(S.verdict(iv, True)[2], False)
    res = {"ab": ab, "settings": {"A": "x", "B": "y"}, "label": "t", "rate": None,
           "interval": {"level": 95.0, "target_pct": None, "budget_s": None},
           "timing": {"wall_s": 1.0}}
    text = "\n".join(ab_summary.headline(res))
    for want in ("no difference shown", "6 pairs", "Outliers: 1 pair(s)",
                 "kept in the intervals and the verdicts",
                 "A/B %.3f [%.3f-%.3f] (5 pairs" % (iv["robust"]["ratio"], iv["robust"]["lo"],
                                                   iv["robust"]["hi"])):
        if want not in text:
            raise AssertionError("summary lacks %r:\n%s" % (want, text))


@test
def slice_pairs_are_runs_with_windows_by_time():
    # two tx/rx pairs, reps 1 and 2; rep 2 ran B first; the list is not in
    # time order: window follows index, run_id is the rep
    import ab_pairs
    runs = [dict(run(s, rep, 100.0, 1.0, GIB), index=i) for i, s, rep in
            ((4, "A", 2), (1, "A", 1), (3, "B", 2), (2, "B", 1))]
    runs += [dict(run(s, 1, 100.0, 1.0, GIB), index=i, rx_mode="plain")
             for i, s in ((6, "A"), (5, "B"))]
    ab_pairs.mark_runs(runs)
    same([(r["index"], r["run_id"], r["window"], r["method"]) for r in runs],
         [(4, 2, 2, "slices"), (1, 1, 1, "slices"), (3, 2, 1, "slices"),
          (2, 1, 2, "slices"), (6, 1, 2, "slices"), (5, 1, 1, "slices")])
    d = write_dir(runs)
    import csv
    with open(os.path.join(d, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    same([(r["index"], r["run_id"], r["window"], r["method"]) for r in rows],
         [("4", "2", "2", "slices"), ("1", "1", "1", "slices"), ("3", "2", "1", "slices"),
          ("2", "1", "2", "slices"), ("6", "1", "2", "slices"), ("5", "1", "1", "slices")])
    for f in ("results.json", "results.csv"):
        os.remove(os.path.join(d, f))
    os.rmdir(d)


def write_dir(runs):
    import tempfile
    d = tempfile.mkdtemp()
    for r in runs:
        r.setdefault("contradictions", [])
    R.write_results(d, {"runs": runs}, runs)
    return d


@test
def pair_ratios_and_their_spread():
    # A/B 2.0, 1.5, 1.25 (disturbed: out of the interval), 2.5, 1.0/0.6:
    # the entry names the method, the 4 pairs in the interval, each pair's
    # A/B in rep order and their range; the verdict line shows the range
    import ab_summary
    mb = {1: (200.0, 100.0), 2: (150.0, 100.0), 3: (125.0, 100.0), 4: (250.0, 100.0),
          5: (100.0, 60.0)}
    runs = [run(s, rep, v[i], 1.0, GIB) for rep, v in mb.items() for i, s in enumerate("AB")]
    runs[4]["disturbed"] = True
    _, ab = R.aggregate(runs, ["A", "B"], OPTS)
    e = ab[0]
    same(e["ci"]["rx_MBps"]["reps_used"], [1, 2, 4, 5])
    same((e["method"], e["n_runs"], e["pairs"]), ("slices", 4, 5))
    same(e["run_ratios"], [2.0, 1.5, 2.5, 1.6667])
    same(e["spread"], {"min": 1.5, "max": 2.5})
    same(e["spread_words"], "ratios of its 4 pairs ranged 1.50x-2.50x")
    res = {"ab": ab, "settings": {"A": "x", "B": "y"}, "label": "t", "rate": None,
           "interval": {"level": 95.0, "target_pct": None, "budget_s": None},
           "timing": {"wall_s": 1.0}}
    line = ab_summary.pair_line(e, 1)
    if ", 4 pairs ranging 1.50x-2.50x" not in line:
        raise AssertionError(line)
    # one pair: no spread, and a verdict line without it
    _, ab = R.aggregate(runs[:2], ["A", "B"], OPTS)
    same((ab[0]["n_runs"], ab[0]["run_ratios"], ab[0]["spread"], ab[0]["spread_words"]),
         (1, [2.0], None, None))
    if "ranging" in "\n".join(ab_summary.headline(dict(res, ab=ab))[4:]):
        raise AssertionError("a range of one pair")


@test
def results_check_names_a_missing_or_wrong_pair_field():
    # ab_results_check.py (scripts_test.sh) on the records aggregate() and
    # mark_runs() write: clean; each field taken away or wrong: named
    import ab_pairs
    import ab_results_check as C
    runs = [dict(run(s, rep, v, 1.0, GIB), index=2 * rep + i, family=4)
            for rep, (va, vb) in ((1, (200.0, 100.0)), (2, (150.0, 100.0)))
            for i, (s, v) in enumerate((("A", va), ("B", vb)))]
    ab_pairs.mark_runs(runs)
    _, ab = R.aggregate(runs, ["A", "B"], OPTS)
    bad = []
    C.check_pairs(bad, {"runs": runs, "ab": ab})
    same(bad, [])
    for where, obj, key, val in (("run 2: no field window", runs[0], "window", None),
                                 ("A/B gso-cmsg/gro: no field spread", ab[0], "spread", None),
                                 ("A/B gso-cmsg/gro: n_runs 3", ab[0], "n_runs", 3),
                                 ("A/B gso-cmsg/gro: spread", ab[0], "spread",
                                  {"min": 1.5, "max": 2.5})):
        old = obj.pop(key)
        if val is not None:
            obj[key] = val
        bad = []
        C.check_pairs(bad, {"runs": runs, "ab": ab})
        obj[key] = old
        if not any(b.startswith(where) for b in bad):
            raise AssertionError("%s: %r" % (where, bad))


@test
def aggregate_keeps_families_apart():
    v6 = [dict(x, family=6) for x in (run("A", 1, 10.0, 1.0, GIB), run("B", 1, 20.0, 1.0, GIB))]
    runs = [run("A", 1, 100.0, 1.0, GIB), run("B", 1, 50.0, 1.0, GIB)] + v6
    cfgs, ab = R.aggregate(runs, ["A", "B"], OPTS)
    same([(c["family"], c["setting"], c["rx_MBps"]["median"]) for c in cfgs],
         [(4, "A", 100.0), (4, "B", 50.0), (6, "A", 10.0), (6, "B", 20.0)])
    same([(e["family"], e["rx_MBps_ratio"]["median"]) for e in ab], [(4, 2.0), (6, 0.5)])
    same([R.pair_name(e) for e in ab], ["gso-cmsg -> gro", "gso-cmsg -> gro IPv6"])


@test
def skb_counters_by_side():
    sec = {"kmod.after.tx": "tx_skbs 7\ntx_gso_udp_l4_skbs 7\n# a comment",
           "kmod.source.tx": "bpf tp_btf dev a0", "kmod.after.rx": "rx_skbs 7"}
    c = R.parse_skbc(sec)
    same((c["kmod"], c["kmod_source"]), (None, None))
    same(c["kmod_tx"], {"tx_skbs": 7, "tx_gso_udp_l4_skbs": 7})
    same((c["kmod_source_tx"], c["kmod_source_rx"]), ("bpf tp_btf dev a0", "kmod"))
    c = R.parse_skbc({"kmod.after": "rx_skbs 3"})	# one kernel, read once (old logs)
    same((c["kmod"], c["kmod_source"], c["kmod_tx"]), ({"rx_skbs": 3}, "kmod", None))


def checked(kmod_tx, kmod_rx, family=4, n=10):
    """check() on a UDP GSO run of N datagrams sent and read"""
    zero = {k: {} for k in ("dev_tx", "dev_rx", "ethtool_tx", "ethtool_rx")}
    u = "Udp6" if family == 6 else "Udp"
    r = {"proto": "udp", "size": 100, "tx_gso_active": True, "tx_mode": "gso-cmsg",
         "family": family, "contradictions": [],
         "counters": dict(zero, nstat_rx={u + "InDatagrams": n},
                          nstat_tx={u + "OutDatagrams": n},
                          kmod=None, kmod_tx=kmod_tx, kmod_source_tx="bpf x dev a0",
                          kmod_rx=kmod_rx, kmod_source_rx="bpf x dev b0")}
    j = {"datagrams": n, "bytes": 100 * n}
    R.check(r, j, dict(j))
    return r["contradictions"]


@test
def cross_check_takes_each_side():
    good_tx, good_rx = {"tx_skbs": 1, "tx_gso_udp_l4_skbs": 1}, {"rx_skbs": 1, "rx_gso_skbs": 1}
    same(checked(good_tx, good_rx), [])
    same(checked(good_tx, good_rx, family=6), [])
    # the receiver's counters read on the sending host: no skb received there
    same(checked(good_tx, good_tx),
         ["rx read 10 datagrams but the receiver's bpf counted no rx_skbs (bpf x dev b0)"])
    # ... where the sending host received a few skbs of its own (ARP, ICMP)
    same(checked(good_tx, {"rx_skbs": 4, "tx_gso_udp_l4_skbs": 1}, n=1000),
         ["rx read 1000 datagrams but the receiver's bpf counted 4 rx_skbs, fewer than "
          "one per 128 datagrams (bpf x dev b0)"])
    same(checked(good_tx, {"rx_skbs": 8}, n=1000), [])  # 125 datagrams an skb: possible
    # the sender's read on the receiving host: no UDP GSO sent there
    same(checked(good_rx, good_rx),
         ["tx used UDP GSO but the sender's bpf counted no tx_gso_udp_l4_skbs"])


def pair_runs(tx, rx, ratios):
    """slice runs of one tx/rx pair with these A/B ratios, rep 1..n"""
    out = []
    for rep, q in enumerate(ratios, 1):
        for s, mb in (("A", 100.0 * q), ("B", 100.0)):
            r = run(s, rep, mb, 1.0, GIB)
            r.update(tx_mode=tx, rx_mode=rx)
            out.append(r)
    return out


@test
def the_budget_left_goes_to_the_nearest_even_when_all_were_stopped_before():
    # issue 26 point 4: a default run of 2026-11-26 stopped with 37 s of its
    # 270 s left because every pair had been named out of reach in earlier
    # rounds; the rest of the budget must still buy pairs, nearest first
    opts = dict(OPTS, width=3.0, max_reps=30)
    wide = [1.10, 0.92, 1.05, 0.95, 1.08, 0.90]      # sd ~8%: ~30 pairs needed
    wider = [1.30, 0.80, 1.20, 0.85, 1.25, 0.75]     # ~200 needed
    runs = pair_runs("sendto", "plain", wide) + pair_runs("tcp", "tcp", wider)
    _, ab = R.aggregate(runs, ["A", "B"], opts)
    oor = {("sendto", "plain", 4): (30, 8.0), ("tcp", "tcp", 4): (200, 21.0)}
    todo, stopped = R.next_round(ab, oor, opts, 270, 234, 210)    # ~16 pairs left
    same(sorted(R.pair_key(a) for a in todo), sorted(oor))
    same(stopped, {})
    todo, _ = R.next_round(ab, oor, opts, 270, 268, 210)          # under one pair left
    same(todo, [])
    todo, _ = R.next_round(ab, oor, opts, 270, 265, 210)          # room for one: the nearest
    same([R.pair_key(a) for a in todo], [("sendto", "plain", 4)])
    # neither stopped yet, 16 pairs left: both are out of reach at once (30 > 6 + 16),
    # named, and the same round still spends on both
    todo, stopped = R.next_round(ab, {}, opts, 270, 234, 210)
    same(sorted(stopped), sorted(oor))
    same(len(todo), 2)
    # no budget: every pair short of its target runs, none is stopped
    todo, stopped = R.next_round(ab, {}, opts, None, 234, 210)
    same((len(todo), stopped), (2, {}))


@test
def the_budget_goes_to_open_verdicts_before_decided_ones():
    # a GSO-like pair (A about 2x B, interval wholly beyond +-3%) needing
    # fewer pairs than an A/A-like one (interval around 1.0): with room for
    # one of them, the open one is kept and the decided one stopped
    opts = dict(OPTS, width=3.0, max_reps=100)
    aa = [1.10, 0.92, 1.05, 0.95, 1.08, 0.90]                       # sd ~8%
    gso = [2.0 * q for q in (1.06, 0.95, 1.04, 0.96, 1.05, 0.94)]   # sd ~5%
    runs = pair_runs("sendto", "gro", aa) + pair_runs("gso-cmsg", "gro", gso)
    _, ab = R.aggregate(runs, ["A", "B"], opts)
    need = {R.pair_key(a): S.pairs_needed(a["ci"]["rx_MBps"]["sd_log"], 95, 3)
            for a in ab}
    same(need[("gso-cmsg", "gro", 4)] < need[("sendto", "gro", 4)], True)
    same((need[("sendto", "gro", 4)], need[("gso-cmsg", "gro", 4)]), (36, 17))
    # 2 * 234 / 210 s a pair: about 33 pairs left, room for the open one's 30 more only
    todo, stopped = R.next_round(ab, {}, opts, 308, 234, 210)
    same([R.pair_key(a) for a in todo], [("sendto", "gro", 4)])
    same(sorted(stopped), [("gso-cmsg", "gro", 4)])
    # with room for both, both run
    todo, stopped = R.next_round(ab, {}, opts, 400, 234, 210)
    same((len(todo), stopped), (2, {}))


@test
def out_of_reach_lines_with_and_without_family():
    import tempfile
    d = tempfile.mkdtemp()
    with open(os.path.join(d, R.OUT_OF_REACH), "w") as f:
        f.write("sendto gro 40 12.50\nsendto gro 50 20.00 6\n")
    same(R.read_out_of_reach(d), {("sendto", "gro", 4): (40, 12.5),
                                  ("sendto", "gro", 6): (50, 20.0)})
    os.remove(os.path.join(d, R.OUT_OF_REACH))
    os.rmdir(d)


@test
def serve_answers_each_request_and_parses_each_log_once():
    # the run's one ab_report.py --serve: '@@END' after each answer,
    # '@@FAIL' for a request it does not know or a failed answer, and a
    # slice's log parsed once, however many rounds ask
    import io
    import shutil
    import tempfile
    d = tempfile.mkdtemp()
    os.mkdir(os.path.join(d, "raw"))

    def slice_log(i):
        open(os.path.join(d, "raw", "%03d.log" % i), "w").close()

    def rounds():
        slice_log(1)
        slice_log(2)
        yield "pending 10\n"
        yield "\n"
        yield "bogus 1\n"
        slice_log(3)
        yield "pending 20\n"
        yield "pending\n"
        yield "pending x\n"

    parsed, saved, err = [], R.one_run, sys.stderr
    R.one_run = lambda p, conf: parsed.append(os.path.basename(p)) or {}
    sys.stderr = io.StringIO()      # the tracebacks of the two failures
    try:
        out = io.StringIO()
        # one setting: pending() parses the logs and names no pair
        same(R.serve(d, {"settings": "A"}, rounds(), out), 0)
    finally:
        R.one_run, tb, sys.stderr = saved, sys.stderr.getvalue(), err
        shutil.rmtree(d)
    same(out.getvalue().split(), ["@@END", "@@FAIL", "@@END", "@@END", "@@FAIL"])
    same(parsed, ["001.log", "002.log", "003.log"])
    same(tb.count("Traceback"), 2)
    same("unknown request 'bogus 1'" in tb, True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.parse_args()
    return run_tests(TESTS)


if __name__ == "__main__":
    sys.exit(main())
