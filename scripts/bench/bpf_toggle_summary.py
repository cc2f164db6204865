#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the summary of a bpf_toggle.sh run, from its raw.log.

raw.log holds, per workload, the tx tool's per-second lines stamped on
arrival ("tx T udp tx: X MB/s ...": the second (T-1, T]) and the windows'
events ("event T off", "event T load MODE" when the tool starts loading,
"event T on_from MODE" once attached, "event T on_to MODE", "event T end").
A detached window runs from "off" to the next event, an attached one from
on_from to on_to; a second counts for a window when it lies wholly inside
it, so the seconds around a load, an attach or a detach count for none.  Per workload and
mode, every attached window is compared with the mean of the detached
windows just before and just after it (one ratio per window); the summary
gives the median tx MB/s with (all of the mode's seconds) and without (the
detached seconds next to the mode's windows), their ratio, and the 95%
t-interval of the per-window ratios (ab_stats.interval: exp(mean log ratio
+- t * sd / sqrt(n))), with the verdict against issue 11's target of at
most 3% less throughput: met when the whole interval is above 0.97, not
met when it is wholly below, undecided otherwise.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_stats  # noqa: E402

TARGET = 0.97
LEVEL = 95


def parse(path):
    """-> header lines, {workload: {"seconds": [(t, MBps)], "events": [(t, kind, mode)]}}"""
    heads, wls, cur = [], {}, None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if line.startswith("#"):
                heads.append(line.rstrip("\n"))
            elif w[0] == "workload":
                cur = {"name": w[1], "seconds": [], "events": [], "line": line.rstrip("\n")}
                wls[w[1]] = cur
            elif cur is None:
                continue
            elif w[0] == "tx" and len(w) > 5 and w[2:4] == ["udp", "tx:"] and w[5] == "MB/s":
                cur["seconds"].append((float(w[1]), float(w[4])))
            elif w[0] == "event" and len(w) >= 3:
                cur["events"].append((float(w[1]), w[2], w[3] if len(w) > 3 else None))
    return heads, wls


def windows(events):
    """-> [(kind, mode, start, end)], kind "off" or "on", in time order"""
    out = []
    ev = sorted(events)
    for i, (t, kind, mode) in enumerate(ev):
        if kind == "off" and i + 1 < len(ev):
            out.append(("off", None, t, ev[i + 1][0]))
        elif kind == "on_from" and i + 1 < len(ev) and ev[i + 1][1] == "on_to":
            out.append(("on", mode, t, ev[i + 1][0]))
    return out


def inside(seconds, start, end):
    return [v for t, v in seconds if t - 1.0 >= start and t <= end]


def mode_rows(wl):
    """-> {mode: {"on": [...], "off": [...], "ratios": [...]}}"""
    wins = windows(wl["events"])
    vals = [inside(wl["seconds"], a, b) for _, _, a, b in wins]
    res = {}
    for i, (kind, mode, _, _) in enumerate(wins):
        if kind != "on" or not vals[i]:
            continue
        near = [j for j in (i - 1, i + 1)
                if 0 <= j < len(wins) and wins[j][0] == "off" and vals[j]]
        if not near:
            continue
        r = res.setdefault(mode, {"on": [], "off_windows": set(), "ratios": []})
        off = [v for j in near for v in vals[j]]
        r["on"] += vals[i]
        r["off_windows"].update(near)
        r["ratios"].append(statistics.mean(vals[i]) / statistics.mean(off))
    for r in res.values():
        r["off"] = [v for j in sorted(r.pop("off_windows")) for v in vals[j]]
    return res


def verdict(iv):
    if iv is None:
        return "too few windows"
    if iv["lo"] >= TARGET:
        return "met"
    if iv["hi"] < TARGET:
        return "not met"
    return "undecided"


def cost(r):
    return 100.0 * (1.0 - r)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", help="bpf_toggle.sh's raw.log")
    a = ap.parse_args(argv)
    heads, wls = parse(a.raw)
    for h in heads:
        print(h)
    for name, wl in wls.items():
        print(f"workload {name}: {len(wl['seconds'])} seconds logged")
        for mode, r in mode_rows(wl).items():
            iv = ab_stats.interval(r["ratios"], LEVEL)
            m_on, m_off = statistics.median(r["on"]), statistics.median(r["off"])
            line = (f"{name} {mode}/off: median tx MB/s off {m_off:.0f}, {mode} {m_on:.0f} "
                    f"({len(r['ratios'])} windows, {len(r['on'])} s with, {len(r['off'])} s "
                    f"without): ratio of medians {m_on / m_off:.4f} (cost {cost(m_on / m_off):.2f}%)")
            print(line)
            rs = sorted(r["ratios"])
            print(f"{name} {mode}/off: per-window ratios: min {rs[0]:.4f}, median "
                  f"{statistics.median(rs):.4f}, max {rs[-1]:.4f}")
            if iv is None:
                print(f"{name} {mode}/off: {verdict(iv)}")
                continue
            print(f"{name} {mode}/off: {LEVEL}% t-interval of the per-window ratio "
                  f"{iv['ratio']:.4f} [{iv['lo']:.4f}, {iv['hi']:.4f}] (cost "
                  f"{cost(iv['ratio']):.2f}% [{cost(iv['hi']):.2f}, {cost(iv['lo']):.2f}]); "
                  f"<= 3% cost: {verdict(iv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
