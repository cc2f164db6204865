#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The summary of kmod_icount.sh: the module's cost per send in guest
instructions, from raw.log (one line per window: round, mode, workload, N
sends, window, instructions, kernel instructions) and windows.log (the
receive buffer drops).  Cost per send = (median I(2N) - median I(N)) / N
per round; spread = (max - min) / median over the rounds."""
import argparse
import statistics as st


def drops_line(path):
    with open(path) as f:
        drops = [ln.split() for ln in f if "receive buffer drops" in ln]
    if not drops:
        return None
    last = drops[-1]
    return ("receive buffer drops in the whole run: ns l %s, ns b %s"
            " (0: every datagram sent was received)" % (last[-3].rstrip(","), last[-1]))


def windows(path):
    """(round, mode, work, n) -> [(insns, kernel insns)] per window, and the
    workloads in order of appearance"""
    with open(path) as f:
        rows = [ln.split() for ln in f if ln.startswith("round ")]
    win, works = {}, []
    for r in rows:
        win.setdefault((r[1], r[3], r[5], int(r[7])), []).append((int(r[11]), int(r[13])))
        if r[5] not in works:
            works.append(r[5])
    return win, works


def per_send(a, b, n1, n2, i):
    """(median of B - median of A) / (n2 - n1) of field I of the windows"""
    return (st.median(x[i] for x in b) - st.median(x[i] for x in a)) / (n2 - n1)


def mode_cost(win, rounds, w, mode, n1, n2, byround):
    """the per-round costs per send of one mode, the kernel's, and the
    spread of the windows of one run (percent)"""
    vals, kv, wsp = [], [], []
    for rnd in rounds:
        a, b = win.get((rnd, mode, w, n1)), win.get((rnd, mode, w, n2))
        if not a or not b:
            continue
        vals.append(per_send(a, b, n1, n2, 0))
        byround[(rnd, mode)] = vals[-1]
        kv.append(per_send(a, b, n1, n2, 1))
        for ws in (a, b):
            t = [x[0] for x in ws]
            wsp.append((max(t) - min(t)) / st.median(t) * 100)
    return vals, kv, wsp


def workload(win, rounds, w):
    ns = sorted({k[3] for k in win if k[2] == w})
    if len(ns) < 2:
        return
    n1, n2 = ns[0], ns[-1]
    per, byround = {}, {}
    for mode in ("off", "on"):
        vals, kv, wsp = mode_cost(win, rounds, w, mode, n1, n2, byround)
        if not vals:
            continue
        m = st.median(vals)
        per[mode] = m
        print(f"{w:9s} module {mode:3s}: {m:9.1f} insns/send (kernel {st.median(kv):9.1f}),"
              f" spread {(max(vals) - min(vals)) / m * 100:.2f}% over {len(vals)} rounds"
              f" [{' '.join(f'{v:.0f}' for v in vals)}]; windows of one run spread"
              f" <= {max(wsp):.2f}%")
    if "off" in per and "on" in per:
        off, on = per["off"], per["on"]
        d = [byround[(r, "on")] - byround[(r, "off")] for r in rounds
             if (r, "on") in byround and (r, "off") in byround]
        print(f"{w:9s} the module adds {on - off:.1f} insns/send = {(on / off - 1) * 100:.2f}%"
              f" (per round {min(d):.0f}..{max(d):.0f});"
              f" throughput with/without {off / on:.4f} if time follows instructions")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("raw", help="raw.log of kmod_icount.sh")
    ap.add_argument("windows", help="windows.log of kmod_icount.sh")
    a = ap.parse_args()
    line = drops_line(a.windows)
    if line:
        print(line)
    win, works = windows(a.raw)
    rounds = sorted({k[0] for k in win}, key=int)
    print("cost per send = (median I(2N) - median I(N)) / N in guest instructions, per round;"
          " spread = (max - min) / median over rounds")
    for w in works:
        workload(win, rounds, w)


if __name__ == "__main__":
    main()
