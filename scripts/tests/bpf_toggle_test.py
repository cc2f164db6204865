#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: tests of bpf_toggle_summary.py (the BPF overhead measured by
attaching and detaching the programs around one long run) on raw logs
written here, seconds and windows as bpf_toggle.sh writes them.  Prints one
"PASS name" or "FAIL name: why" line per test (ab_stats_test.sh turns them
into KTAP); exits 1 when one failed."""
import math
import os
import random
import sys
import tempfile

from ugtest import registry, run_tests  # (scripts/bench on sys.path)
import bpf_toggle_summary as T  # noqa: E402

TESTS, test = registry()


def raw_log(plan, off=1000.0, transition=5.0, jitter=0.0, seed=1, phase=0.37):
    """A raw.log: PLAN is a list of (mode, level) per attached window, each
    between detached windows of 3 s; the tool's load takes 0.4 s before a
    window starts.  A second straddling a boundary reads TRANSITION (so that
    counting it would show); JITTER is the relative sd of every second."""
    rnd = random.Random(seed)
    ev, t, wins = [], 1000.0, []
    for mode, level in plan:
        ev.append((t, "off", None))
        wins.append((t, t + 3.0, off))
        ev.append((t + 3.0, "load", mode))
        t += 3.0 + 0.4
        ev.append((t, "on_from", mode))
        wins.append((t, t + 3.0, off * level))
        t += 3.0
        ev.append((t, "on_to", mode))
        t += 0.05
    ev.append((t, "off", None))
    wins.append((t, t + 3.0, off))
    t += 3.0
    ev.append((t, "end", None))
    lines = ["# test log", "workload gso-gro tx -S 0 tracing_progs_before 0 load1 0.1"]
    s = 1000.0 + phase
    recs = [(tt, "event %.6f %s%s" % (tt, k, " " + m if m else "")) for tt, k, m in ev]
    while s < t:
        v = transition
        for a, b, lvl in wins:
            if s - 1.0 >= a and s <= b:
                v = lvl
        v *= 1.0 + jitter * rnd.gauss(0, 1)
        recs.append((s, "tx %.6f udp tx:   %d MB/s   100 calls/s 100 msg/s" % (s, round(v))))
        s += 1.0
    lines += [r for _, r in sorted(recs)]
    return "\n".join(lines) + "\n"


def summarize(text):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
    try:
        _, wls = T.parse(f.name)
    finally:
        os.unlink(f.name)
    return T.mode_rows(wls["gso-gro"])


def close(a, b, tol):
    if a is None or abs(a - b) > tol:
        raise AssertionError("%r, expected %r (+-%g)" % (a, b, tol))


@test
def seconds_straddling_an_attach_or_detach_count_for_no_window():
    rows = summarize(raw_log([("on", 0.95)] * 6))
    r = rows["on"]
    if len(r["ratios"]) != 6:
        raise AssertionError("%d windows, expected 6" % len(r["ratios"]))
    if 5.0 in r["on"] or 5.0 in r["off"]:
        raise AssertionError("a transition second was counted")
    for x in r["ratios"]:
        close(x, 0.95, 1e-3)


@test
def each_mode_against_its_own_neighbours():
    plan = [("on", 0.95), ("empty", 0.98), ("norc", 0.90)] * 5
    rows = summarize(raw_log(plan))
    for mode, want in (("on", 0.95), ("empty", 0.98), ("norc", 0.90)):
        iv = T.ab_stats.interval(rows[mode]["ratios"], 95)
        close(iv["ratio"], want, 2e-3)
        if len(rows[mode]["ratios"]) != 5:
            raise AssertionError("%s: %d windows" % (mode, len(rows[mode]["ratios"])))


@test
def verdicts_met_not_met_undecided():
    met = T.ab_stats.interval(summarize(raw_log([("on", 0.99)] * 10, jitter=0.003))["on"]["ratios"], 95)
    bad = T.ab_stats.interval(summarize(raw_log([("on", 0.94)] * 10, jitter=0.003))["on"]["ratios"], 95)
    und = T.ab_stats.interval(summarize(raw_log([("on", 0.97)] * 4, jitter=0.05, seed=3))["on"]["ratios"], 95)
    for iv, want in ((met, "met"), (bad, "not met"), (und, "undecided")):
        if T.verdict(iv) != want:
            raise AssertionError("interval %.4f [%.4f, %.4f]: %s, expected %s" % (
                iv["ratio"], iv["lo"], iv["hi"], T.verdict(iv), want))


@test
def a_window_whose_tool_failed_is_left_out():
    text = raw_log([("on", 0.95)] * 4)
    lines = text.splitlines()
    # the second window's on_to never came (the tool died): no window, and
    # its detached neighbours still serve the windows around it
    k = [i for i, ln in enumerate(lines) if " on_to " in ln][1]
    del lines[k]
    rows = summarize("\n".join(lines) + "\n")
    if len(rows["on"]["ratios"]) != 3:
        raise AssertionError("%d windows, expected 3" % len(rows["on"]["ratios"]))


@test
def the_known_cost_is_inside_the_interval_with_noise():
    iv = T.ab_stats.interval(summarize(raw_log([("on", 0.95)] * 12, jitter=0.03, seed=7))
                             ["on"]["ratios"], 95)
    if not iv["lo"] <= 0.95 <= iv["hi"]:
        raise AssertionError("0.95 outside [%.4f, %.4f]" % (iv["lo"], iv["hi"]))
    if not math.isfinite(iv["half_pct"]) or iv["half_pct"] > 3.0:
        raise AssertionError("half-width %.2f%%" % iv["half_pct"])


if __name__ == "__main__":
    sys.exit(run_tests(TESTS))
