#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The paced GSO senders' slices of known-effect runs, from their raw logs:
the slices more than 0.3 of a GSO send short of the pacer's model (R*T +
bucket payload, T the receiver's window) against the others, by how long
the receiver's window outlasted the sender's (T_rx - T_tx), the sender's
window, its sends, and the bytes received.  Same bytes and sends with a
longer T_rx says the window, not the traffic, moved.

    window.py RAWDIR...     (each a run's raw/ directory, unpacked)
"""
import json
import re
import statistics
import sys
from pathlib import Path

GSO_TX = ("gso-cmsg", "gso-sockopt", "sendmmsg-gso", "zerocopy")


def slices(raw):
    for f in sorted(Path(raw).glob("*.log")):
        s = f.read_text()
        m = re.search(r"^run .*tx_mode=(\S+) rx_mode=(\S+) setting=(\S)", s, re.M)
        p = re.search(r"^pace rate_Bps=(\d+) \S+ burst=(\d+)", s, re.M)
        if not m or not p or m.group(1) not in GSO_TX or "== rx.json\n" not in s:
            continue
        tx = json.loads(s.split("== tx.json\n")[1].split("\n")[0])
        rx = json.loads(s.split("== rx.json\n")[1].split("\n")[0])
        size = tx["options"]["gso_size"] if tx["options"].get("gso_size") else 1472
        send = tx["options"]["payload_len"]
        t = rx["duration_s"]
        model = int(p.group(1)) * t + int(p.group(2)) * size / (size + 42)
        yield {"pair": m.group(1, 2, 3), "short": (rx["bytes"] - model) / send,
               "lag_ms": 1000 * (t - tx["duration_s"]), "tx_ms": 1000 * tx["duration_s"],
               "calls": tx["calls"], "rx_mb": rx["bytes"] / 1e6, "tx_mb": tx["bytes"] / 1e6}


def main():
    rows = [x for raw in sys.argv[1:] for x in slices(raw)]
    print("%-8s %6s %14s %12s %10s %12s %12s" % (
        "slices", "n", "T_rx-T_tx ms", "T_tx ms", "tx sends", "rx MB", "rx-tx MB"))
    for name, sel in (("short", lambda x: x["short"] < -0.3), ("others", lambda x: x["short"] >= -0.3)):
        rs = [x for x in rows if sel(x)]
        if not rs:
            continue
        med = {k: statistics.median(x[k] for x in rs) for k in ("lag_ms", "tx_ms", "calls", "rx_mb")}
        diff = statistics.median(x["rx_mb"] - x["tx_mb"] for x in rs)
        print("%-8s %6d %14.2f %12.2f %10.0f %12.3f %12.3f" % (
            name, len(rs), med["lag_ms"], med["tx_ms"], med["calls"], med["rx_mb"], diff))
    print()
    print("short slices: T_rx - T_tx beyond the others' median, ms (deciles)")
    base = statistics.median(x["lag_ms"] for x in rows if x["short"] >= -0.3)
    ex = sorted(x["lag_ms"] - base for x in rows if x["short"] < -0.3)
    if ex:
        print(" ".join("%.2f" % ex[min(len(ex) - 1, i * len(ex) // 10)] for i in range(10)))
        print("their shortfall in sends, median %.2f; one send's time at the pace: %.2f ms" % (
            statistics.median(x["short"] for x in rows if x["short"] < -0.3),
            statistics.median(1000 * 64768 / (x["rx_mb"] * 1e6 / x["tx_ms"] * 1000)
                              for x in rows if x["short"] < -0.3)))

    print()
    print("per sender and setting, short / others (means): sends, T_tx ms, T_rx - T_tx ms")
    for tx in GSO_TX:
        for st in "AB":
            cells = []
            for sel in (lambda x: x["short"] < -0.3, lambda x: x["short"] >= -0.3):
                rs = [x for x in rows if sel(x) and x["pair"][0] == tx and x["pair"][2] == st]
                cells.append("%4d: %.3f %.3f %.3f" % (
                    len(rs), statistics.mean(x["calls"] for x in rs),
                    statistics.mean(x["tx_ms"] for x in rs),
                    statistics.mean(x["lag_ms"] for x in rs)) if rs else "   0")
            print("%-13s %s  short %s | others %s" % (tx, st, cells[0], cells[1]))


if __name__ == "__main__":
    main()
