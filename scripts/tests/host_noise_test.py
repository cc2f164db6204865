#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: tests of host_noise.py (the host's own noise from a pinned copy
loop) on raw logs written here as copyloop and host_noise.py write them.
Prints one "PASS name" or "FAIL name: why" line per test (ab_stats_test.sh
turns them into KTAP); exits 1 when one failed.  With --check-run JSON: the
checks of a real 2 s run's host_noise.json instead."""
import math
import os
import random
import sys
import tempfile

from ugtest import close, registry, run_tests, same  # (scripts/bench on sys.path)
import host_noise as H  # noqa: E402

TESTS, test = registry()


def steps(block_rates, step_ms=100, first=None, jitter=0.0, seed=1):
    """copyloop's lines for 1 s blocks at BLOCK_RATES bytes/s, STEP_MS steps;
    FIRST: the first step's rate (the loop settling), JITTER: relative sd of a
    step around its block's rate."""
    rnd = random.Random(seed)
    per, dt, t, out = 1000 // step_ms, step_ms / 1000.0, 0.0, []
    for i, r in enumerate(block_rates):
        for j in range(per):
            t += dt
            v = first if (first and i == 0 and j == 0) else r * (1 + jitter * rnd.gauss(0, 1))
            out.append((round(t, 6), int(v * dt)))
    return out


@test
def steady_host():
    s = H.stats(100, steps([1e10] * 12))
    close(s["median_GBps"], 10.0, 1e-6)
    close(s["cv_step_pct"], 0.0, 1e-6)
    close(s["pair_sd_pct"], 0.0, 1e-6)
    same(s["pairs_for_3pct"], 2)
    same(s["blocks_1s"], 12)  # the first block has 9 of its 10 steps


@test
def pair_sd_is_sqrt2_block_sd():
    # independent log-normal 1 s blocks with sd 5%: ln(next/this) has sd 5% x sqrt(2)
    rnd = random.Random(7)
    rates = [1e10 * math.exp(0.05 * rnd.gauss(0, 1)) for _ in range(3000)]
    s = H.stats(100, steps(rates))
    close(s["pair_sd_pct"], 5 * math.sqrt(2), 0.4)
    close(s["cv_1s_pct"], 5.0, 0.4)


@test
def slow_drift_cancels_in_pairs():
    # a level that moves 0.1% a second: large across the run, nothing in a pair
    rates = [1e10 * (1 + 0.001 * i) for i in range(60)]
    s = H.stats(100, steps(rates))
    if not s["cv_1s_pct"] > 1.0:
        raise AssertionError("1 s cv %r: the drift should show there" % s["cv_1s_pct"])
    close(s["pair_sd_pct"], 0.0, 0.01)


@test
def first_step_not_counted():
    a = H.stats(100, steps([1e10] * 5))
    b = H.stats(100, steps([1e10] * 5, first=3e9))
    close(b["cv_step_pct"], a["cv_step_pct"], 1e-9)
    close(b["median_GBps"], 10.0, 1e-6)


@test
def fast_noise_averages_in_blocks():
    # step noise 20%, independent: a 1 s block of 10 steps averages it to ~6.3%
    s = H.stats(100, steps([1e10] * 400, jitter=0.2, seed=3))
    close(s["cv_step_pct"], 20.0, 1.5)
    close(s["cv_1s_pct"], 20.0 / math.sqrt(10), 0.8)


@test
def pairs_needed_matches_ab_stats():
    rnd = random.Random(11)
    rates = [1e10 * math.exp(0.04 * rnd.gauss(0, 1)) for _ in range(50)]
    s = H.stats(100, steps(rates))
    same(s["pairs_for_3pct"], H.ab_stats.pairs_needed(s["pair_sd_pct"] / 100, 95, 3))


@test
def raw_log_round_trip():
    lines = ["# host_noise.py --secs 2", "start 2026-11-27T02:00:00Z", "cpu 0",
             "load0 0.10 0.20 0.30 1/70 1", "size 65536 step_ms 100"]
    lines += ["%.6f %d" % x for x in steps([4e10, 4e10, 4.4e10])]
    lines += ["size 16777216 step_ms 200"]
    lines += ["%.6f %d" % x for x in steps([1e10] * 3, step_ms=200)]
    lines += ["load1 0.50 0.20 0.30 1/70 2"]
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        s = H.summarize(H.parse_raw(f.name))
    finally:
        os.unlink(f.name)
    same([x["size"] for x in s["sizes"]], ["64K", "16M"])
    same([x["step_ms"] for x in s["sizes"]], [100, 200])
    same(s["sizes"][1]["blocks_1s"], 3)  # 4 + 5 + 5 steps of 200 ms after the first
    # blocks 40, 40, 44 GB/s: adjacent ln ratios 0 and ln 1.1, their sd
    close(s["sizes"][0]["pair_sd_pct"], 100 * math.log(1.1) / math.sqrt(2), 0.01)
    txt = "\n".join(H.lines(s))
    for want in ("load average 0.10 0.20 0.30 -> 0.50 0.20 0.30", "64K copy", "16M copy"):
        if want not in txt:
            raise AssertionError("%r not in %r" % (want, txt))


@test
def bad_raw_line_named():
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write("size 65536 step_ms 100\n0.1 100\nbogus line here\n")
    try:
        H.parse_raw(f.name)
    except ValueError as e:
        if ":3: unexpected line 'bogus line here'" not in str(e):
            raise AssertionError(str(e))
    else:
        raise AssertionError("no error")
    finally:
        os.unlink(f.name)


@test
def sizes():
    same(H.parse_size("64K"), 65536)
    same(H.parse_size("16m"), 16 << 20)
    same(H.parse_size("4096"), 4096)
    for bad in ("3K", "2G", "abc", "", "-4K", "1.5M"):
        try:
            H.parse_size(bad)
        except (ValueError, IndexError):
            continue
        raise AssertionError("%r accepted" % bad)


def check_run(path):
    """Checks of a real 2 s run's host_noise.json (ab_stats_test.sh runs it
    with --sizes 64K): returns problems."""
    import json
    s = json.load(open(path))["sizes"]
    if [x["size"] for x in s] != ["64K"]:
        return ["sizes %r, expected ['64K']" % [x["size"] for x in s]]
    bad = []
    if s[0]["blocks_1s"] != 2:
        bad.append("%r blocks of 1 s, expected 2" % s[0]["blocks_1s"])
    if not (s[0]["median_GBps"] or 0) > 0:
        bad.append("median rate %r" % s[0]["median_GBps"])
    return bad


if __name__ == "__main__":
    if sys.argv[1:2] == ["--check-run"] and len(sys.argv) == 3:
        problems = check_run(sys.argv[2])
        for b in problems:
            print("# " + b)
        sys.exit(1 if problems else 0)
    sys.exit(run_tests(TESTS))
