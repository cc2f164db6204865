#!/usr/bin/env python3
"""Medians of raw.log (run.sh): per workload, filter and build, the programs'
run time per tx skb (all programs / tx_skbs) and per program (avg_ns), and
the NEW/OLD ratio of the medians.  summarize.py raw.log"""
import re
import statistics
import sys


def main():
    runs, cur = [], None
    for line in open(sys.argv[1]):
        m = re.match(r"## round (\d+) workload (\S+) build (\S+) filter (\S+)", line)
        if m:
            cur = {"w": m[2], "b": m[3], "f": m[4], "prog": {}}
            runs.append(cur)
            continue
        if cur is None:
            continue
        f = line.split()
        if f[:1] == ["tx_skbs"]:
            cur["tx"] = int(f[1])
        elif f[:2] == ["#", "prog"]:
            cur["prog"][f[2]] = (int(f[4]), int(f[6]))
    print("| workload | filter | program | OLD ns | NEW ns | NEW/OLD |")
    print("|---|---|---|---|---|---|")
    for w in ("gso-gro", "sendto"):
        for flt in ("none", "port"):
            sel = {b: [r for r in runs if r["w"] == w and r["f"] == flt and r["b"] == b
                       and r.get("tx")] for b in ("old", "new")}
            progs = ["per tx skb"] + sorted({p for r in sel["old"] for p, v in r["prog"].items()
                                             if p != "all" and v[0] > 0})
            for p in progs:
                med = {}
                for b, rs in sel.items():
                    if p == "per tx skb":
                        vals = [r["prog"]["all"][1] / r["tx"] for r in rs]
                    else:
                        vals = [r["prog"][p][1] / r["prog"][p][0] for r in rs
                                if r["prog"].get(p, (0, 0))[0]]
                    med[b] = statistics.median(vals) if vals else float("nan")
                print("| %s | %s | %s | %.0f | %.0f | %.2f |" % (
                    w, flt, p, med["old"], med["new"], med["new"] / med["old"]))


if __name__ == "__main__":
    main()
