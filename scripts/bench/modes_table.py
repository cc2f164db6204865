#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The summary table of modes.sh: one row per mode from DIR/index (NAME|RC|TX
ARGS|RX ARGS) and DIR/N.tx.json, DIR/N.rx.json."""
import argparse
import json
import os

HEAD = "%-26s %8s %8s %7s %6s %6s %6s %7s" % ("mode", "tx MB/s", "rx MB/s", "rx Mpps",
                                              "dg/rd", "txCPU", "rxCPU", "lost")
FOOT = ("MB/s = 2^20 B/s; dg/rd = datagrams per read (GRO coalescing);"
        " CPU = process user+sys seconds (getrusage); lost = tx - rx datagrams")


def load(path):
    with open(path) as f:
        return json.load(f)


def figures(tx, rx):
    """the row of one mode from its two summaries"""
    udp = tx["proto"] == "udp"
    lost = tx["datagrams"] - rx["datagrams"] if udp else 0
    return "%8.0f %8.0f %7.3f %6.1f %6.2f %6.2f %6.2f%%" % (
        tx["MBps"], rx["MBps"], rx["Mpps"],
        rx.get("datagrams_per_read", 0) if udp else 0,
        tx["cpu_user_s"] + tx["cpu_sys_s"], rx["cpu_user_s"] + rx["cpu_sys_s"],
        100.0 * lost / tx["datagrams"] if tx["datagrams"] else 0)


def rows(d):
    with open(os.path.join(d, "index")) as f:
        index = f.read().splitlines()
    for i, line in enumerate(index, 1):
        name, rc, _, _ = line.split("|")
        try:
            tx = load(os.path.join(d, "%d.tx.json" % i))
            rx = load(os.path.join(d, "%d.rx.json" % i))
        except (OSError, ValueError):
            yield name, "failed (exit %s): see %d.tx.log" % (rc, i)
            continue
        yield name, figures(tx, rx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="the directory modes.sh wrote")
    a = ap.parse_args()
    table = list(rows(a.dir))
    print(HEAD)
    for name, s in table:
        print("%-26s %s" % (name, s))
    print(FOOT)


if __name__ == "__main__":
    main()
