#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The results of a short udpgso_ab.sh matrix (scripts_test.sh): every field
of results.json, nonzero numbers, bytes = datagrams x size, the run's numbers
in its raw log, each slice's run and window and each pair's ratios and their
range (issue 26), results.csv, the environment and the plots.  Prints "# ..."
for each problem (at most 20) and exits 1 when there is one."""
import argparse
import csv
import json
import os
import re
import sys

TOP = ["schema", "tool", "label", "command", "host", "kernel", "cpu", "ncpus", "topology",
       "dev_tx", "dev_rx", "settings", "reps", "secs", "size", "segs", "cost_unit",
       "cost_label", "units", "notes", "timing", "plots", "configs", "ab", "runs"]
TIMING = ["wall_s", "measured_s", "overhead_s", "overhead_fraction"]
RUN = ["config", "tx_mode", "rx_mode", "setting", "rep", "proto", "size", "duration_s",
       "tx_bytes", "tx_datagrams", "tx_calls", "tx_MBps", "rx_bytes", "rx_datagrams",
       "rx_reads", "rx_MBps", "rx_Mpps", "cpu_busy_s", "cpu_softirq_s", "cpu_proc_s",
       "cost", "cost_per_GiB", "cost_per_Mdgram", "perf", "counters", "contradictions",
       "lost", "loss_pct", "raw_log", "cmd_tx", "cmd_rx", "features"]
POSITIVE = ["duration_s", "tx_bytes", "tx_datagrams", "tx_calls", "tx_MBps", "rx_bytes",
            "rx_datagrams", "rx_reads", "rx_MBps", "cpu_busy_s", "cost", "cost_per_GiB"]


def need(bad, obj, keys, where):
    for k in keys:
        if k not in obj:
            bad.append("%s: no field %s" % (where, k))


def check_udp(bad, x, w):
    """a UDP run: bytes = datagrams x size, rx <= tx, the nstat delta"""
    for who in ("tx", "rx"):
        if x["%s_bytes" % who] != x["%s_datagrams" % who] * x["size"]:
            bad.append("%s: %s bytes %d != datagrams %d x size %d" % (
                w, who, x["%s_bytes" % who], x["%s_datagrams" % who], x["size"]))
    if x["rx_datagrams"] > x["tx_datagrams"]:
        bad.append("%s: rx datagrams > tx datagrams" % w)
    if not x.get("cost_per_Mdgram") or x["cost_per_Mdgram"] <= 0:
        bad.append("%s: cost_per_Mdgram %r" % (w, x.get("cost_per_Mdgram")))
    nst = x["counters"]["nstat_rx"]
    u = "Udp6" if x.get("family") == 6 else "Udp"	# the family's MIB
    if nst.get(u + "InDatagrams", 0) <= 0:
        bad.append("%s: %sInDatagrams delta %r" % (w, u, nst.get(u + "InDatagrams")))


def check_run(bad, d, x):
    w = "run %s" % x.get("index")
    if x.get("status") != "ok":
        bad.append("%s: status %s: %s" % (w, x.get("status"), x.get("error")))
        return
    need(bad, x, RUN, w)
    for k in POSITIVE:
        if not x.get(k) or x[k] <= 0:
            bad.append("%s: %s = %r, expected > 0" % (w, k, x.get(k)))
    if x.get("proto") == "udp":
        check_udp(bad, x, w)
    elif x["tx_bytes"] != x["rx_bytes"]:
        bad.append("%s: TCP bytes tx %d rx %d" % (w, x["tx_bytes"], x["rx_bytes"]))
    if not os.path.exists(os.path.join(d, x["raw_log"])):
        bad.append("%s: raw log %s missing" % (w, x["raw_log"]))
    # the run's own numbers must be the ones in its raw log
    with open(os.path.join(d, x["raw_log"])) as f:
        raw = f.read()
    for k in ("tx_bytes", "rx_bytes"):
        if not re.search(r'"bytes":\s*%d\b' % x[k], raw):
            bad.append("%s: %s %d not in its raw log" % (w, k, x[k]))
    if x.get("contradictions"):
        bad.append("%s: contradictions: %s" % (w, x["contradictions"]))


def spread_ok(s):
    return s and 0 < s["min"] <= s["median"] <= s["max"]


def check_summaries(bad, r, ncfg, nab):
    """the per-config spreads and the A/B ratios"""
    cfgs = r.get("configs", [])
    if len(cfgs) != ncfg:
        bad.append("%d configs, expected %d" % (len(cfgs), ncfg))
    for c in cfgs:
        for k in ("rx_MBps", "cost_per_GiB"):
            if not spread_ok(c.get(k)):
                bad.append("config %s/%s/%s: %s spread %r" % (
                    c.get("tx_mode"), c.get("rx_mode"), c.get("setting"), k, c.get(k)))
    if len(r.get("ab", [])) != nab:
        bad.append("%d A/B entries, expected %d" % (len(r.get("ab", [])), nab))
    for a in r.get("ab", []):
        if not spread_ok(a.get("rx_MBps_ratio")):
            bad.append("A/B %s/%s: ratio %r" % (a.get("tx_mode"), a.get("rx_mode"),
                                                a.get("rx_MBps_ratio")))
    t = r.get("timing", {})
    if not (0 < t.get("measured_s", 0) < t.get("wall_s", 0)):
        bad.append("timing: %r" % t)


def check_pairs(bad, r):
    """issue 26: every slice names its run (its pair: run_id = rep), its
    window (1, 2 by index) and the method; every A/B entry the method, the
    pairs in its headline interval, their A/B and its range"""
    wins = {}
    for x in r.get("runs", []):
        w = "run %s" % x.get("index")
        need(bad, x, ("run_id", "window", "method"), w)
        if x.get("method") != "slices" or x.get("run_id") != x.get("rep"):
            bad.append("%s: method %r, run_id %r (rep %r)" % (
                w, x.get("method"), x.get("run_id"), x.get("rep")))
        k = (x.get("tx_mode"), x.get("rx_mode"), x.get("family"), x.get("run_id"))
        wins.setdefault(k, []).append((x.get("index"), x.get("window")))
    for k, iw in wins.items():
        if [w for _, w in sorted(iw)] != list(range(1, len(iw) + 1)):
            bad.append("%s/%s run %s: windows %r, not 1.. by index" % (k[0], k[1], k[3], iw))
    for a in r.get("ab", []):
        w = "A/B %s/%s" % (a.get("tx_mode"), a.get("rx_mode"))
        need(bad, a, ("method", "n_runs", "run_ratios", "spread", "spread_words"), w)
        iv = (a.get("ci") or {}).get(a.get("ci_metric")) or {}
        rr = a.get("run_ratios") or []
        if a.get("n_runs") != iv.get("n") or len(rr) != a.get("n_runs"):
            bad.append("%s: n_runs %r, %d run_ratios, interval n %r" % (
                w, a.get("n_runs"), len(rr), iv.get("n")))
        if len(rr) >= 2 and a.get("spread") != {"min": min(rr), "max": max(rr)}:
            bad.append("%s: spread %r of %r" % (w, a.get("spread"), rr))


def check_files(bad, d, r, nruns):
    """results.csv, the other files of the directory, the plots"""
    with open(os.path.join(d, "results.csv")) as f:
        rows = list(csv.reader(f))
    if len(rows) != nruns + 1:
        bad.append("results.csv: %d rows, expected %d + header" % (len(rows), nruns))
    for f in ("command", "environment", "summary.md", "snapshot.before.tx",
              "snapshot.before.rx"):
        if not os.path.getsize(os.path.join(d, f)):
            bad.append("%s missing or empty" % f)
    with open(os.path.join(d, "environment")) as f:
        env = f.read()
    for want in ("kernel:", "cpu:", "ethtool -k", "ethtool -l", "ethtool -i"):
        if want not in env:
            bad.append("environment: no '%s'" % want)
    for p in r.get("plots", []):
        if not os.path.getsize(os.path.join(d, p)):
            bad.append("plot %s empty" % p)


def check_sides(bad, r, devs, fams):
    """--sides TXDEV,RXDEV: every run's per-skb counters read on both hosts,
    each filtered to its own device, and the receiver's counts are a
    receiver's (skbs received, no GSO sent: counters read on the sending
    host would show its GSO sends); --families: the configurations' families."""
    if fams:
        got = sorted({str(c.get("family")) for c in r.get("configs", [])})
        if got != sorted(fams.split(",")):
            bad.append("configs' families %s, expected %s" % (",".join(got), fams))
    if not devs:
        return
    tdev, rdev = devs.split(",")
    for x in r.get("runs", []):
        w = "run %s" % x.get("index")
        c = x.get("counters", {})
        for side, dev in (("tx", tdev), ("rx", rdev)):
            src = c.get("kmod_source_" + side) or ""
            if c.get("kmod_" + side) is None:
                bad.append("%s: no %s-side per-skb counters" % (w, side))
            elif src.startswith("bpf") and not src.endswith(" dev " + dev):
                bad.append("%s: %s-side counters from '%s', not device %s" % (w, side, src, dev))
        k_tx, k_rx = c.get("kmod_tx") or {}, c.get("kmod_rx") or {}
        if x.get("rx_datagrams") and not k_rx.get("rx_skbs"):
            bad.append("%s: the receiver's counters saw no rx_skbs" % w)
        if x.get("tx_datagrams") and not k_tx.get("tx_skbs"):
            bad.append("%s: the sender's counters saw no tx_skbs" % w)
        if k_rx.get("tx_gso_udp_l4_skbs"):
            bad.append("%s: the receiver's counters saw %d UDP GSO sends (the sender's?)" % (
                w, k_rx["tx_gso_udp_l4_skbs"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="the results directory")
    ap.add_argument("runs", type=int, help="runs expected")
    ap.add_argument("configs", type=int, help="configurations expected")
    ap.add_argument("ab", type=int, help="A/B entries expected")
    ap.add_argument("--sides", metavar="TXDEV,RXDEV",
                    help="per-skb counters on both hosts, filtered to these devices")
    ap.add_argument("--families", metavar="4,6", help="the configurations' families")
    ap.add_argument("--before-26", action="store_true",
                    help="written before issue 26 point 6 (2026-11-26): no run_id, window, "
                    "method per run, no pair spread")
    a = ap.parse_args()
    try:
        with open(os.path.join(a.dir, "results.json")) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        print("# results.json: %s" % e)
        return 1
    bad = []
    need(bad, r, TOP, "top")
    need(bad, r.get("timing", {}), TIMING, "timing")
    runs = r.get("runs", [])
    if len(runs) != a.runs:
        bad.append("%d runs, expected %d" % (len(runs), a.runs))
    for x in runs:
        check_run(bad, a.dir, x)
    check_summaries(bad, r, a.configs, a.ab)
    if not a.before_26:
        check_pairs(bad, r)
    check_files(bad, a.dir, r, a.runs)
    check_sides(bad, r, a.sides, a.families)
    for b in bad[:20]:
        print("# " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
