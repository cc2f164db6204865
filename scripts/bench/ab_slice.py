#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: one slice of an A/B run (raw/*.log of udpgso_ab.sh's slices)
-> its run record (ab_report.py gathers them into results.json): the tools'
counts, the CPU, perf, the MIB, device and per-skb counters, the queues, and
the cross-check of the tools' counts against the counters (check)."""
import os

import ab_queues
import ab_stats
from ab_rawlog import (delta, kv, last_line, load_json, parse_counters, parse_skbc,
                       parse_log, parse_perf, stat_delta)

GIB = float(1 << 30)
MIB_KEYS = ["InDatagrams", "OutDatagrams", "RcvbufErrors", "SndbufErrors", "InErrors",
            "NoPorts", "InCsumErrors", "RetransSegs", "OutSegs"]


def one_run(path, conf):
    head, sec = parse_log(path)
    meta = kv(head.get("run", ""))
    r = {
        "index": int(meta["idx"]), "config": int(meta["config"]),
        "tx_mode": meta["tx_mode"], "rx_mode": meta["rx_mode"],
        "family": int(meta.get("family", "4")),
        "setting": meta["setting"], "rep": int(meta["rep"]),
        "proto": meta["proto"], "size": int(meta["size"]), "segs": int(meta["segs"]),
        "rc_tx": int(meta["rc_tx"]), "rc_rx": int(meta["rc_rx"]),
        "raw_log": os.path.join("raw", os.path.basename(path)),
        "cmd_tx": head.get("cmd_tx", ""), "cmd_rx": head.get("cmd_rx", ""),
        "features": kv(head.get("features", "")),
        "times": {k: float(v) for k, v in kv(head.get("times", "")).items()},
        "window_s": float(meta["t1"]) - float(meta["t0"]),
        "contradictions": [],
    }
    tx = load_json(sec.get("tx.json", ""))
    rx = load_json(sec.get("rx.json", ""))
    if r["rc_tx"] == 4 or r["rc_rx"] == 4:
        r["status"] = "skip"
        r["error"] = last_line(sec.get("tx.stderr", "") if r["rc_tx"] == 4
                               else sec.get("rx.stderr", ""))
        return r
    if r["rc_tx"] or r["rc_rx"] or tx is None or rx is None or meta.get("rx_bound") != "1":
        r["status"] = "fail"
        why = []
        if meta.get("rx_bound") != "1":
            why.append("rx did not bind its port")
        if r["rc_tx"] or tx is None:
            why.append("tx exit %d%s: %s" % (r["rc_tx"], "" if tx else ", no JSON summary",
                                             last_line(sec.get("tx.stderr", ""))))
        if r["rc_rx"] or rx is None:
            why.append("rx exit %d%s: %s" % (r["rc_rx"], "" if rx else ", no JSON summary",
                                             last_line(sec.get("rx.stderr", ""))))
        r["error"] = "; ".join(why)
        return r
    r["status"] = "ok"
    r["duration_s"] = tx["duration_s"]
    for k in ("bytes", "datagrams", "calls", "MBps", "Mpps", "errors"):
        r["tx_" + k] = tx[k]
        r["rx_" + k] = rx[k]
    r["rx_reads"] = rx.get("reads")
    r["rx_datagrams_per_read"] = rx.get("datagrams_per_read")
    # the receiver's window (rx MB/s is bytes over it): "kernel" (its first
    # and last datagram's receive stamps, --rx-window kernel) or "reads"
    # (its reader's clock; also a --kstamp receiver whose edges had no
    # stamp), with both lengths where the receiver gave them
    r["rx_window"] = rx.get("window", "reads")
    r["rx_window_reads_s"] = rx.get("window_reads_s")
    r["rx_window_kernel_s"] = rx.get("window_kernel_s")
    r["tx_gso_active"] = bool(tx.get("gso", {}).get("active"))
    r["tx_gso_fallback"] = bool(tx.get("gso", {}).get("fallback"))
    r["tx_zerocopy_copied"] = tx.get("zerocopy", {}).get("copied")
    r["cpu_proc_s"] = (tx["cpu_user_s"] + tx["cpu_sys_s"] + rx["cpu_user_s"] + rx["cpu_sys_s"])
    hz = int(conf.get("user_hz", "100"))
    st = stat_delta(head["stat0"], head["stat1"], hz)
    r["cpu_busy_s"] = st["busy"]
    r["cpu_softirq_s"] = st["softirq"]
    r["cpu_system_s"] = st["system"]
    r["cpu_user_s"] = st["user"] + st["nice"]
    r["cpu_idle_s"] = st["idle"] + st["iowait"]
    r["perf"] = parse_perf(sec.get("perf", ""))
    if conf.get("cost_unit") == "cycles" and r["perf"].get("cycles"):
        cost = r["perf"]["cycles"]
    else:
        cost = r["cpu_busy_s"]
    r["cost"] = cost
    r["cost_per_GiB"] = cost / (rx["bytes"] / GIB) if rx["bytes"] else None
    r["cost_per_Mdgram"] = (cost / (rx["datagrams"] / 1e6)
                            if rx["datagrams"] and r["proto"] == "udp" else None)
    # the tools' own CPU (getrusage): blind to softirq work done elsewhere,
    # but not to other programs on a shared machine, which /proc/stat is
    r["proc_cpu_s_per_GiB"] = r["cpu_proc_s"] / (rx["bytes"] / GIB) if rx["bytes"] else None
    # the headline CPU cost: the tools' own CPU (getrusage: user+sys, which
    # on a kernel without IRQ time accounting includes softirq work done in
    # their context) plus softirq time from /proc/stat (all CPUs: catches
    # softirq done in ksoftirqd or while idle; counts other programs' too)
    r["cpu_cost_s"] = r["cpu_proc_s"] + r["cpu_softirq_s"]
    r["cpu_cost_per_GiB"] = ab_stats.per_gib(r["cpu_cost_s"], rx["bytes"])
    r["cpu_cost_us_per_dgram"] = (ab_stats.per_datagram_us(r["cpu_cost_s"], rx["datagrams"])
                                  if r["proto"] == "udp" else None)
    # each tool's own CPU share of the slice (1.0 = one CPU all the time)
    for who, j in (("tx", tx), ("rx", rx)):
        r[who + "_cpu_share"] = ((j["cpu_user_s"] + j["cpu_sys_s"]) / r["window_s"]
                                 if r["window_s"] > 0 else None)
    r["steal_share"] = ab_stats.steal_share(head["stat0"], head["stat1"])
    r["disturbed"] = r["steal_share"] > ab_stats.STEAL_MAX
    if "pace" in head:
        r["pace"] = {k: float(v) for k, v in kv(head["pace"]).items()}
        # the share of the paced rate that arrived over the sender's window
        # (1.0: the rate was held; the receiver's own window is shorter when
        # it started late and read a backlog)
        r["rate_reached"] = (rx["bytes"] / tx["duration_s"] / r["pace"]["rate_Bps"]
                             if tx["duration_s"] and r["pace"].get("rate_Bps") else None)
    ncpu = int(conf.get("ncpus", "1"))
    win = r["window_s"] * ncpu
    r["cpu_idle_fraction"] = r["cpu_idle_s"] / win if win > 0 else None
    # counters around the run
    c = {}
    for side in ("tx", "rx"):
        m0, s0, e0 = parse_counters(sec.get("counters.before." + side, ""))
        m1, s1, e1 = parse_counters(sec.get("counters.after." + side, ""))
        c["nstat_" + side] = {k: v for k, v in delta(m0, m1, True).items()
                              if any(k.endswith(x) for x in MIB_KEYS)}
        c["dev_" + side] = delta(s0, s1, True)
        c["ethtool_" + side] = delta(e0, e1)
    # the per-skb counters: kmod (one kernel, read once), kmod_tx, kmod_rx
    c.update(parse_skbc(sec))
    # the BPF twin's runs the kernel skipped or marks it lost, per side
    incs = []
    for sfx in ("", ".tx", ".rx"):
        x = bpf_incomplete(sec.get("kmod.after" + sfx, ""))
        if x:
            incs.append((sfx[1:] + " side: " if sfx else "") + x)
    c["kmod_incomplete"] = "; ".join(incs) or None
    r["counters"] = c
    # TCP: the share of the sender's segments sent again (its namespace's
    # Tcp MIB; over the local veth pair most are spurious, after reordering:
    # results/tcp-noise-2026-11-28)
    t = c["nstat_tx"]
    r["tcp_retrans_pct"] = (100.0 * t.get("TcpRetransSegs", 0) / t["TcpOutSegs"]
                            if r.get("proto") == "tcp" and t.get("TcpOutSegs") else None)
    # per-queue and per-IRQ deltas (devices with queue stats or IRQs)
    r["where"] = ab_queues.run_deltas(sec)
    check(r, tx, rx)
    return r


def bpf_incomplete(text):
    """None, or what the BPF twin's '# skipped: INCOMPLETE' and '# skipped prog NAME
    recursion_misses N' lines say: that run's counters are incomplete"""
    inc = []
    for line in text.splitlines():
        if line.startswith("# skipped: INCOMPLETE: "):
            inc.append(line[len("# skipped: INCOMPLETE: "):].split(", marks evicted")[0])
        elif line.startswith("# skipped prog "):
            inc.append(line[len("# skipped prog "):])
    return "; ".join(inc) if inc else None


# the most UDP datagrams one received skb holds: a UDP GSO skb passed whole
# (UDP_MAX_SEGMENTS, 128 from 6.9) or one UDP GRO built (64, UDP_GRO_CNT_MAX)
SKB_MAX_DGRAMS = 128


def check(r, tx, rx):
    """Say so where the counters contradict the bench's own counts."""
    bad = r["contradictions"]
    c = r["counters"]
    if r["proto"] == "udp":
        lost = tx["datagrams"] - rx["datagrams"]
        r["lost"] = lost
        r["loss_pct"] = 100.0 * lost / tx["datagrams"] if tx["datagrams"] else 0.0
        if lost < 0:
            bad.append("rx counted %d datagrams more than tx sent" % -lost)
        u = "Udp6" if r.get("family") == 6 else "Udp"	# the family's MIB
        ind = c["nstat_rx"].get(u + "InDatagrams", 0)
        outd = c["nstat_tx"].get(u + "OutDatagrams", 0)
        if rx["datagrams"] and ind == 0:
            bad.append("rx read %d datagrams but %sInDatagrams did not move" % (rx["datagrams"], u))
        if ind > tx["datagrams"]:
            bad.append("%sInDatagrams +%d exceeds the %d datagrams tx sent" %
                       (u, ind, tx["datagrams"]))
        if tx["datagrams"] and outd == 0:
            bad.append("tx sent %d datagrams but %sOutDatagrams did not move" %
                       (tx["datagrams"], u))
        if outd > tx["datagrams"]:
            bad.append("%sOutDatagrams +%d exceeds the %d datagrams tx counted" %
                       (u, outd, tx["datagrams"]))
        # (InErrors counts the RcvbufErrors drops too)
        drops = (max(c["nstat_rx"].get(u + "RcvbufErrors", 0),
                     c["nstat_rx"].get(u + "InErrors", 0))
                 + c["nstat_rx"].get(u + "NoPorts", 0)
                 + c["nstat_tx"].get(u + "SndbufErrors", 0)
                 + c["dev_tx"].get("tx_dropped", 0) + c["dev_rx"].get("rx_dropped", 0)
                 + sum(v for k, v in c["ethtool_tx"].items() if "drop" in k)
                 + sum(v for k, v in c["ethtool_rx"].items() if "drop" in k))
        r["drops_counted"] = drops
        if lost > 0 and drops == 0:
            bad.append("%d datagrams lost but no drop counter moved" % lost)
        for who, j in (("tx", tx), ("rx", rx)):
            if j["bytes"] != j["datagrams"] * r["size"]:
                bad.append("%s bytes %d != datagrams %d x size %d" %
                           (who, j["bytes"], j["datagrams"], r["size"]))
    else:
        r["lost"] = 0
        r["loss_pct"] = 0.0
        if tx["bytes"] != rx["bytes"]:
            bad.append("TCP: tx wrote %d bytes, rx read %d" % (tx["bytes"], rx["bytes"]))
    # the sender's counters for what it sent, the receiver's for what it read
    side = "_tx" if c.get("kmod_tx") is not None else ""
    k = c.get("kmod" + side)
    if k and r["tx_gso_active"] and r["tx_mode"] != "tcp" and not k.get("tx_gso_udp_l4_skbs"):
        bad.append("tx used UDP GSO but the %s%s counted no tx_gso_udp_l4_skbs" % (
            "sender's " if side else "", (c.get("kmod_source" + side) or "kmod").split()[0]))
    k = c.get("kmod_rx")
    src = c.get("kmod_source_rx") or "kmod"
    if k is not None and rx["datagrams"] and not k.get("rx_skbs"):
        bad.append("rx read %d datagrams but the receiver's %s counted no rx_skbs (%s)" % (
            rx["datagrams"], src.split()[0], src))
    elif (k is not None and r["proto"] == "udp"
          and k.get("rx_skbs", 0) * SKB_MAX_DGRAMS < rx["datagrams"]):
        # counters of another host or device see some skbs of their own
        bad.append("rx read %d datagrams but the receiver's %s counted %d rx_skbs, fewer "
                   "than one per %d datagrams (%s)" % (rx["datagrams"], src.split()[0],
                                                      k["rx_skbs"], SKB_MAX_DGRAMS, src))
