#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: tests of the in-run A/B statistics (ab_inrun_stats.py) and of
the reading of its raw logs (ab_inrun.py) on known and simulated data.
One "PASS name" or "FAIL name: why" line per test (ab_stats_test.sh turns
them into KTAP); exit 1 when one failed."""
import math
import os
import random
import sys
import tempfile

from ugtest import close, registry, run_tests, same  # (scripts/bench on sys.path)
import ab_inrun as IR  # noqa: E402
import ab_inrun_stats as S  # noqa: E402
import ab_stats  # noqa: E402
import compare_levels  # noqa: E402

TESTS, test = registry()


@test
def two_level_interval_by_hand():
    # run estimates 0.11, 0.09, 0.10: mean 0.10, sd 0.01, t(2) = 4.302653
    iv = S.two_level([[0.10, 0.12], [0.08, 0.10], [0.11, 0.09]], 95)
    h = 4.302653 * 0.01 / math.sqrt(3)
    close(iv["ratio"], math.exp(0.10), 1e-9)
    close(iv["lo"], math.exp(0.10 - h), 1e-6)
    close(iv["hi"], math.exp(0.10 + h), 1e-6)
    same(iv["n_runs"], 3)
    same(iv["windows"], 6)
    # within: 3 runs x 2 deviations of 0.01: 0.0006 / 3 df; between: 0.0001 - 0.0002/2 = 0
    close(iv["var_within"], 0.0002, 1e-12)
    close(iv["var_between"], 0.0, 1e-12)
    # F = 2 x 0.0001 / 0.0002 = 1 on (2, 3) df: P(F > 1) = 0.4648 (tables)
    close(iv["hetero_p"], 0.46482, 2e-4)
    same(iv["varies"], False)
    # t = 0.10 / (0.01 / sqrt 3) = 17.32 on 2 df: p = 2 (1 - T(17.32)) = 0.003317
    close(iv["p"], 0.003317, 2e-5)


@test
def f_survival_matches_closed_form():
    # F(2, d2): P(F > f) = (1 + 2 f / d2) ^ (-d2 / 2)
    for f, d2 in ((0.5, 3), (1.0, 10), (4.0, 7), (9.0, 30)):
        close(S.f_sf(f, 2, d2), (1 + 2 * f / d2) ** (-d2 / 2.0), 1e-9)


@test
def windows_of_one_run_are_not_replicates():
    # two runs at different levels of the effect, 10 quiet window pairs each:
    # pooling the 20 windows would give a narrow interval around 1.16; runs as
    # the unit and the spread rule must cover both runs' ratios and say so
    rnd = random.Random(1)
    runs = [[0.10 + rnd.gauss(0, 0.002) for _ in range(10)],
            [0.20 + rnd.gauss(0, 0.002) for _ in range(10)]]
    iv = S.two_level(runs, 95)
    same(iv["varies"], True)
    if not (iv["lo"] <= math.exp(0.10) * 1.002 and iv["hi"] >= math.exp(0.20) / 1.002):
        raise AssertionError("interval %.3f-%.3f does not cover the runs 1.105, 1.221"
                             % (iv["lo"], iv["hi"]))
    flat = [x for r in runs for x in r]
    naive = ab_stats.interval([math.exp(x) for x in flat], 95)
    if naive["half_pct"] >= iv["half_pct"]:
        raise AssertionError("windows pooled (%.1f%%) were not narrower: the case tests "
                             "nothing" % naive["half_pct"])


def simulate(rnd, true, sb, sw, runs, wins):
    return [[true + e + rnd.gauss(0, sw) for _ in range(wins)]
            for e in (rnd.gauss(0, sb) for _ in range(runs))]


@test
def coverage_with_between_run_variation():
    # the effect moves between runs (sd 3%), windows inside a run vary 2%:
    # the 95% interval over runs covers the true mean ~95% of the time; the
    # windows taken as independent would cover far less (so this case fails
    # for that mistake)
    rnd = random.Random(7)
    true = math.log(1.5)
    ok = naive_ok = 0
    n = 1000
    for _ in range(n):
        runs = simulate(rnd, true, 0.03, 0.02, 6, 2)
        iv = S.two_level(runs, 95)
        ok += iv["lo"] <= 1.5 <= iv["hi"]
        nv = ab_stats.interval([math.exp(x) for r in runs for x in r], 95)
        naive_ok += nv["lo"] <= 1.5 <= nv["hi"]
    if ok < 0.93 * n:
        raise AssertionError("covered %d of %d" % (ok, n))
    if naive_ok > 0.90 * n:
        raise AssertionError("windows as replicates covered %d of %d: the case cannot tell"
                             % (naive_ok, n))


@test
def aa_runs_call_nothing_after_holm():
    # 13 pairs, no effect, 6 runs x 2 window pairs each: at most ~5% of such
    # make runs call any pair real
    rnd = random.Random(3)
    n, bad = 400, 0
    for _ in range(n):
        ivs = [S.two_level(simulate(rnd, 0.0, 0.02, 0.02, 6, 2), 95) for _ in range(13)]
        real = ab_stats.holm([iv["p"] for iv in ivs], 0.05)
        bad += any(r and iv["excludes_1"] for r, iv in zip(real, ivs))
    if bad > 0.065 * n:
        raise AssertionError("%d of %d A/A runs called a pair real" % (bad, n))


@test
def known_effect_is_found():
    # A at 97% of B, runs vary 1%, windows 1.5%: found (real) in most runs and
    # covered at the level
    rnd = random.Random(11)
    n = found = cov = 0
    for _ in range(300):
        iv = S.two_level(simulate(rnd, math.log(0.97), 0.01, 0.015, 6, 2), 95)
        n += 1
        found += iv["excludes_1"] and iv["hi"] < 1.0
        cov += iv["lo"] <= 0.97 <= iv["hi"]
    if found < 0.8 * n or cov < 0.93 * n:
        raise AssertionError("found %d, covered %d of %d" % (found, cov, n))


@test
def settle_time_from_rates():
    # a ramp of three 100 ms rates, then steady: 300 ms
    same(S.settle_ms([50, 60, 70, 80, 100, 100, 101, 99, 100, 100]), 300)
    # one isolated dip (the host took the CPU) is not a settle: the floor
    same(S.settle_ms([100, 100, 0, 100, 100, 100, 100, 100]), 100)
    same(S.settle_ms([1, 2, 3]), None)


@test
def spending_goes_to_the_nearest():
    iv = {"half_pct": 4.0, "sd_run": 0.02, "varies": False, "run_ratios": [1, 1]}
    far = {"half_pct": 20.0, "sd_run": 0.10, "varies": False, "run_ratios": [1, 1]}
    met = {"half_pct": 2.0, "sd_run": 0.01, "varies": False, "run_ratios": [1, 1]}
    st = {"near": (6, iv), "far": (6, far), "met": (6, met), "full": (30, far), "none": (1, None)}
    order = S.spending_order(st, 95, 3, 30)
    same(order[:2], ["near", "far"])
    same(sorted(order), ["far", "near", "none"])
    # the runs needed at sd 2%: smallest n with t(n-1) 0.02/sqrt(n) <= ln 1.03
    n = S.needed(iv, 95, 3)
    h = math.log(1.03)
    if not (ab_stats.t_quantile(0.975, n - 1) * 0.02 / math.sqrt(n) <= h <
            ab_stats.t_quantile(0.975, n - 2) * 0.02 / math.sqrt(n - 1)):
        raise AssertionError("needed %d" % n)
    wide = dict(far, varies=True, ratio=1.5, run_ratios=[1.3, 1.7])
    same(S.needed(wide, 95, 3), 201)


@test
def optimal_windows_kalibera_jones():
    # sqrt(c_run / c_win x var_w / var_b) = sqrt(4 / 1 x 0.0004 / 0.0001) = 4
    same(S.optimal_windows(0.0004, 0.0001, 4.0, 1.0), 4)
    same(S.optimal_windows(0.0004, 0.0, 4.0, 1.0), None)


LOG = """run run_id=7 pair=2 tx_mode=sendto rx_mode=plain order=A,B window_ms=500 settle_ms=200
cmd_tx tx
switch 100.000 A tx:x=on
s 100.0 0 0 0 7 0 0 0 0 cpu 10 0 10 100 0 0 0 0 0 0
ctr 100.4 start 1 rx_gro_skbs 5
s 100.5 1000000 1000 100000000 7 50000000 0 1000 0 cpu 20 0 20 140 0 0 10 0 0 0
win_start 100.5 1 A
s 101.0 2000000 2000 400000000 7 150000000 0 2000 0 cpu 40 0 40 160 0 0 20 0 0 0
win_end 101.0 1 A
ctr 101.0 end 1 rx_gro_skbs 9
switch 101.1 B tx:x=off
s 101.3 2100000 2100 450000000 7 170000000 0 2100 0 cpu 40 0 40 160 0 0 20 0 0 0
win_start 101.3 2 B
s 101.8 2600000 2600 700000000 7 270000000 0 2600 1 cpu 50 0 50 170 0 0 30 0 0 0
win_end 101.8 2 B
"""


@test
def windows_from_a_raw_log():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "02-007.log")
        with open(p, "w") as f:
            f.write(LOG)
        run = IR.parse(p)
    ws = IR.windows(run, 100)
    same([(w["run_id"], w["window"], w["setting"], w["method"]) for w in ws],
         [(7, 1, "A", "inrun"), (7, 2, "B", "inrun")])
    close(ws[0]["rx_MBps"], 2.0, 1e-9)        # 1e6 bytes in 0.5 s
    close(ws[1]["rx_MBps"], 1.0, 1e-9)
    same(ws[0]["rx_packets"], 1000)
    close(ws[0]["tx_cpu_s"], 0.3, 1e-12)
    close(ws[0]["rx_cpu_s"], 0.1, 1e-12)
    close(ws[0]["busy_cpu_s"], (20 + 20 + 10) / 100.0, 1e-12)
    close(ws[0]["softirq_cpu_s"], 0.1, 1e-12)
    same(ws[0]["counters"], {"rx_gro_skbs": 4})
    same(ws[1]["udp_rcvbuf_errors"], 1)
    close(IR.log_pairs(ws)[0], math.log(2.0), 1e-12)


@test
def counters_by_side_and_family():
    """ab_inrun.sh's 'ctr ... SIDE' lines (skbc_read tx|rx) give each window
    counters_tx and counters_rx, not one mixed set; family= reaches the
    windows, the per-run records and summary.md's pair names."""
    log = LOG.replace("rx_mode=plain ", "rx_mode=plain family=6 ")
    log = log.replace("ctr 100.4 start 1 rx_gro_skbs 5\n",
                      "ctr 100.4 start 1 tx_skbs 5 tx\nctr 100.4 start 1 rx_skbs 50 rx\n")
    log = log.replace("ctr 101.0 end 1 rx_gro_skbs 9\n",
                      "ctr 101.0 end 1 tx_skbs 9 tx\nctr 101.0 end 1 rx_skbs 80 rx\n")
    log = log.replace("cmd_tx tx\n", "cmd_tx tx\nskbc_source tx bpf x dev a\n")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "02-007.log")
        with open(p, "w") as f:
            f.write(log)
        run = IR.parse(p)
    ws = IR.windows(run, 100)
    same(ws[0]["counters_tx"], {"tx_skbs": 4})
    same(ws[0]["counters_rx"], {"rx_skbs": 30})
    same("counters" in ws[0], False)
    same(ws[0]["family"], 6)
    same(run["skbc_source"], {"tx": "bpf x dev a"})
    import ab_inrun_summary as SUM
    res = {"ab": [{"tx_mode": "sendto", "rx_mode": "plain", "family": 6}], "windows": ws}
    t = "\n".join(SUM.skbc_table(res))
    if "| sendto -> plain IPv6 | A | 4 |" not in t or "| 30 |" not in t:
        raise AssertionError("summary's counters by side: %s" % t)


def fake_log(rid, pi, rates, t=1000.0):
    """A raw log as ab_inrun.sh writes it: windows of 0.5 s at the given
    (setting, bytes/s) rates, a sample at each edge."""
    L = ["run run_id=%d pair=%d tx_mode=sendto rx_mode=plain order=%s window_ms=500 "
         "settle_ms=100" % (rid, pi, ",".join(x for x, _ in rates))]
    b = 0
    ns = 0

    def sample():
        return "s %.3f %d %d %d 0 %d 0 %d 0 cpu 1 0 1 1 0 0 0 0 0 0" % (t, b, b // 1000, ns, ns,
                                                                         b // 1000)
    for n, (st, r) in enumerate(rates, 1):
        L.append("switch %.3f %s" % (t, st))
        t += 0.1
        L.append(sample())
        L.append("win_start %.3f %d %s" % (t, n, st))
        t += 0.5
        b += int(r * 0.5)
        ns += 250000000
        L.append(sample())
        L.append("win_end %.3f %d %s" % (t, n, st))
    return "\n".join(L) + "\n"


@test
def report_writes_windows_and_pair_intervals():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "raw", "inrun"))
        with open(os.path.join(d, "run.conf"), "w") as f:
            f.write("label=t\nspec_A=tx:x=on\nspec_B=tx:x=off\nci=95,3\nreps=3\n"
                    "max_reps=30\nbudget=100\nmethod=inrun\nuser_hz=100\nncpus=2\n")
        with open(os.path.join(d, "command"), "w") as f:
            f.write("udpgso_ab.sh\n")
        # A/B 2.0, 1.5, 1.8 in three runs (A B B A each)
        for rid, k in ((1, 2.0), (2, 1.5), (3, 1.8)):
            with open(os.path.join(d, "raw", "inrun", "00-%03d.log" % rid), "w") as f:
                f.write(fake_log(rid, 0, [("A", k * 1e6), ("B", 1e6), ("B", 1e6),
                                          ("A", k * 1e6)], 1000.0 + 100 * rid))
        same(IR.report(d), 0)
        import json
        with open(os.path.join(d, "results.json")) as f:
            res = json.load(f)
    same(len(res["windows"]), 12)
    w = res["windows"][0]
    for k in ("run_id", "window", "setting", "method", "rx_MBps", "rx_bytes", "tx_cpu_s",
              "busy_cpu_s"):
        if k not in w:
            raise AssertionError("window record without %s" % k)
    same((w["run_id"], w["window"], w["setting"], w["method"]), (1, 1, "A", "inrun"))
    p = res["ab"][0]
    same((p["method"], p["runs"], p["ci"]["n_runs"]), ("inrun", 3, 3))
    close(p["ci"]["ratio"], math.exp((math.log(2.0) + math.log(1.5) + math.log(1.8)) / 3), 1e-3)
    same([round(x, 3) for x in p["ci"]["run_ratios"]], [2.0, 1.5, 1.8])
    # no window noise inside a run: all the variation is between runs, and
    # the interval covers every run's ratio
    same(p["ci"]["varies"], True)
    if not (p["ci"]["lo"] <= 1.5 and p["ci"]["hi"] >= 2.0):
        raise AssertionError("interval %.3f-%.3f" % (p["ci"]["lo"], p["ci"]["hi"]))
    if "varied between 1.50x and 2.00x across runs" not in p["ci"]["spread_words"]:
        raise AssertionError(p["ci"]["spread_words"])
    same(sorted({(r["setting"], r["run_id"]) for r in res["runs"]}),
         [("A", 1), ("A", 2), ("A", 3), ("B", 1), ("B", 2), ("B", 3)])


@test
def compare_headline_level_per_run():
    runs = [{"setting": "A", "run_id": 1, "rx_MBps": 4.0}, {"setting": "B", "run_id": 1,
                                                           "rx_MBps": 1.0},
            {"setting": "A", "run_id": 2, "rx_MBps": 9.0}, {"setting": "B", "run_id": 2,
                                                           "rx_MBps": 4.0},
            {"setting": "A", "run_id": 3, "rx_MBps": 5.0}]
    same(compare_levels.pair_levels(runs), [2.0, 6.0, 5.0])


@test
def compare_headline_welch_by_hand():
    import compare_stats as cs
    old, new = [100.0, 110.0, 90.0], [80.0, 88.0, 72.0]      # new = 0.8 x old
    d, se, df = cs.welch_log(old, new)
    close(d, math.log(0.8), 1e-12)
    lo = [math.log(x) for x in old]
    m = sum(lo) / 3
    v = sum((x - m) ** 2 for x in lo) / 2 / 3
    close(se, math.sqrt(2 * v), 1e-12)
    close(df, 4.0, 1e-9)                                       # equal variances: 2(n - 1)
    pr, pi = cs.welch_side_pvalues(old, new, 0.05, "higher")
    z = (math.log(0.95) - math.log(0.8)) / se
    close(pr, 2 * (1 - ab_stats.t_cdf(z, 4.0)), 1e-12)
    same(pi, 1.0)


@test
def compare_headline_welch_runs_by_hand():
    """Runs a side (several results directories): a side's mean is the mean
    of its runs' means, each run weighing the same whatever its count; its
    variance the runs' own se^2 over runs^2; the between-run term added
    with its df (Welch-Satterthwaite over every part).  One run a side is
    the plain case."""
    import compare_stats as cs
    old = [[100.0, 110.0, 90.0], [120.0, 130.0]]
    new = [[80.0, 88.0, 72.0, 80.0]]
    d, se, df = cs.welch_log(old, new, (0.01, 8.0))
    mean = lambda xs: sum(xs) / len(xs)                                    # noqa: E731
    lg = lambda xs: [math.log(x) for x in xs]                              # noqa: E731
    var = lambda xs: sum((x - mean(xs)) ** 2 for x in xs) / (len(xs) - 1)  # noqa: E731
    o1, o2, n1 = lg(old[0]), lg(old[1]), lg(new[0])
    close(d, mean(n1) - (mean(o1) + mean(o2)) / 2, 1e-12)
    parts = [(var(o1) / 3 / 4, 2), (var(o2) / 2 / 4, 1), (var(n1) / 4, 3), (0.01, 8.0)]
    tot = sum(v for v, _ in parts)
    close(se, math.sqrt(tot), 1e-12)
    close(df, tot ** 2 / sum(v * v / k for v, k in parts), 1e-9)
    same(cs.welch_log([[100.0, 110.0, 90.0]], [[80.0, 88.0, 72.0]]),
         cs.welch_log([100.0, 110.0, 90.0], [80.0, 88.0, 72.0]))


@test
def compare_headline_family_errors():
    # 13 pairs, 6 runs a side, the pair's level varying 3% between runs: two
    # runs of the same code call nothing in >= 95% of tables; a 20% drop of
    # one pair is found in most
    import compare_stats as cs
    rnd = random.Random(5)
    n, false, found = 300, 0, 0
    for _ in range(n):
        cells = []
        for k in range(13):
            lv = 100.0 * (k + 1)
            old = [lv * math.exp(rnd.gauss(0, 0.03)) for _ in range(6)]
            new = [lv * math.exp(rnd.gauss(0, 0.03)) for _ in range(6)]
            cells.append((old, new, 0.05, "higher"))
        v = cs.headline_verdicts(cells, 0.95)
        false += any(x["verdict"] != "within noise" for x in v)
        cells[4] = (cells[4][0], [x * 0.8 for x in cells[4][1]], 0.05, "higher")
        v = cs.headline_verdicts(cells, 0.95)
        found += v[4]["verdict"] == "regression"
    if false > 0.05 * n:
        raise AssertionError("%d of %d same-code tables had a verdict" % (false, n))
    if found < 0.8 * n:
        raise AssertionError("the 20%% drop found in %d of %d" % (found, n))


if __name__ == "__main__":
    sys.exit(run_tests(TESTS))
