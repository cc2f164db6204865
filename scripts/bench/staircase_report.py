#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""staircase_report.py DIR: results.json, summary.md and staircase.png of a
scripts/bench/staircase.sh run, from its raw logs (raw/NNN-STEP.log)."""
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_queues  # noqa: E402

WHAT = {
    "plain": "one sender, one receiver, unpinned",
    "pinned": "sender on CPU 0, receiver on the last CPU",
    "2senders": "two sender threads, one address: one rx queue",
    "2ips": "two sender threads to two addresses on different rx queues",
    "2threads": "+ two receiver threads on one socket",
    "reuseport2": "+ SO_REUSEPORT, 2 sockets",
    "reuseport4": "+ SO_REUSEPORT, 4 sockets",
}
MIB = ("InDatagrams", "RcvbufErrors", "InErrors", "NoPorts")


def sections(path):
    sec, cur = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("== "):
                cur = line[3:].strip()
                sec[cur] = ""
                continue
            if cur is not None:
                sec[cur] += line
    return sec


def mib(text):
    names, out = None, {}
    for line in text.splitlines():
        p = line.split()
        if p and p[0] == "Udp:":
            if names is None:
                names = p[1:]
            else:
                out = dict(zip(names, (int(x) for x in p[1:])))
    return out


def eth(text):
    out = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) == 3 and p[0] in ("ethtool", "sysfs", "qstat") and p[2].lstrip("-").isdigit():
            out[p[0] + ":" + p[1]] = int(p[2])
    return out


def one(path):
    sec = sections(path)
    head = [k for k in sec if k.startswith("step ")][0].split()
    r = {"step": head[1], "rep": int(head[3]), "raw_log": os.path.relpath(path, os.path.dirname(
        os.path.dirname(path))), "cmd_tx": sec.get(next((k for k in sec if k.startswith(
            "cmd_tx")), ""), ""), "status": "fail"}
    r["cmd_tx"] = next((k[7:] for k in sec if k.startswith("cmd_tx ")), "")
    r["cmd_rx"] = next((k[7:] for k in sec if k.startswith("cmd_rx ")), "")
    try:
        tx = json.loads(sec.get("tx.json", ""))
        rx = json.loads(sec.get("rx.json", ""))
    except ValueError:
        r["error"] = (sec.get("tx.stderr", "") + sec.get("rx.stderr", "")).strip()[-300:]
        return r
    r["status"] = "ok"
    r["tx_Mpps"] = tx["Mpps"]
    r["tx_datagrams"] = tx["datagrams"]
    r["rx_datagrams"] = rx["datagrams"]
    # the receiver's rate over the sender's window (its own duration starts
    # at its first datagram and ends with its last, backlog included)
    r["rx_Mpps"] = rx["datagrams"] / tx["duration_s"] / 1e6 if tx["duration_s"] else None
    r["delivered"] = rx["datagrams"] / tx["datagrams"] if tx["datagrams"] else None
    r["sockets"] = [s["datagrams"] for s in rx.get("sockets", [])]
    r["threads"] = [t["datagrams"] for t in rx.get("threads", [])]
    m0, m1 = mib(sec.get("counters.before.rx", "")), mib(sec.get("counters.after.rx", ""))
    r["nstat_rx"] = {k: m1[k] - m0[k] for k in MIB if k in m0 and k in m1}
    e0, e1 = eth(sec.get("counters.before.rx", "")), eth(sec.get("counters.after.rx", ""))
    r["nic_rx_drops"] = sum(e1[k] - e0[k] for k in e1 if k in e0 and "drop" in k and
                            k.startswith("ethtool:"))
    r["dev_rx_dropped"] = e1.get("sysfs:rx_dropped", 0) - e0.get("sysfs:rx_dropped", 0)
    w = ab_queues.run_deltas({"counters.before.rx": sec.get("counters.before.rx", ""),
                              "counters.after.rx": sec.get("counters.after.rx", ""),
                              "counters.before.tx": sec.get("counters.before.tx", ""),
                              "counters.after.tx": sec.get("counters.after.tx", "")}) or {}
    r["rxq_packets"] = w.get("rx", {}).get("queues", {}).get("rx", {}).get("packets", [])
    r["txq_packets"] = w.get("tx", {}).get("queues", {}).get("tx", {}).get("packets", [])
    r["irqs_rx"] = [{k: i[k] for k in ("irq", "name", "per_cpu")}
                    for i in w.get("rx", {}).get("irqs", []) if i["total"]]
    return r


def shares(v):
    t = sum(v)
    return [round(x / t, 3) for x in v] if t else []


def main(d):
    conf = {}
    notes = []
    with open(os.path.join(d, "run.conf")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            if k == "note":
                notes.append(v)
            else:
                conf[k] = v
    runs = [one(p) for p in sorted(glob.glob(os.path.join(d, "raw", "*.log")))]
    rows = []
    for s in conf["steps"].split():
        ok = [r for r in runs if r["step"] == s and r["status"] == "ok"]
        row = {"step": s, "what": WHAT.get(s, s), "runs": len(ok),
               "failed": len([r for r in runs if r["step"] == s and r["status"] != "ok"])}
        if ok:
            med = statistics.median
            row["rx_Mpps"] = med(r["rx_Mpps"] for r in ok)
            row["rx_Mpps_min"] = min(r["rx_Mpps"] for r in ok)
            row["rx_Mpps_max"] = max(r["rx_Mpps"] for r in ok)
            row["tx_Mpps"] = med(r["tx_Mpps"] for r in ok)
            row["delivered"] = med(r["delivered"] for r in ok)
            n = max(len(r["rxq_packets"]) for r in ok)
            row["rxq_packets"] = [sum(r["rxq_packets"][q] for r in ok if q < len(
                r["rxq_packets"])) for q in range(n)]
            row["rxq_share"] = shares(row["rxq_packets"])
            n = max(len(r["sockets"]) for r in ok)
            row["socket_datagrams"] = [sum(r["sockets"][i] for r in ok) for i in range(n)]
            row["socket_share"] = shares(row["socket_datagrams"])
            n = max(len(r["threads"]) for r in ok)
            row["thread_share"] = shares([sum(r["threads"][i] for r in ok) for i in range(n)])
            row["nstat_rx"] = {k: sum(r["nstat_rx"].get(k, 0) for r in ok) for k in MIB}
            row["nic_rx_drops"] = sum(r["nic_rx_drops"] for r in ok)
            row["dev_rx_dropped"] = sum(r["dev_rx_dropped"] for r in ok)
            row["cmd_tx"], row["cmd_rx"] = ok[0]["cmd_tx"], ok[0]["cmd_rx"]
        rows.append(row)
    with open(os.path.join(d, "command")) as f:
        command = f.read().strip()
    res = {"tool": "staircase", "command": command, "conf": conf, "notes": notes,
           "steps": rows, "runs": runs}
    made = plot(d, rows, conf) if conf.get("plots") == "1" else []
    res["plots"] = made
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    pct = lambda v: " / ".join("%.0f%%" % (100 * x) for x in v) or "-"  # noqa: E731
    L = ["# Seed 001's staircase: %s-byte datagrams, %s" % (conf["size"], conf["kernel"]), ""]
    L.append("Command: `%s`" % command)
    L.append("")
    L.append("%s -> %s in its namespace (%s, 2nd address %s); %s CPUs; %s rep(s) of %s s per "
             "step; the peer's udp4 rx-flow-hash `%s` during the run (restored after). Probe: "
             "%s -> rx queue %s, %s -> rx queue %s." % (
                 conf["netif"], conf["peer"], conf["dst"], conf["dst2"], conf["ncpu"],
                 conf["reps"], conf["secs"], conf["hash"], conf["dst"], conf["q1"],
                 conf["dst2"], conf["q2"]))
    L.append("")
    L.append("rx Mpps = datagrams the receiver read / the sender's duration (median [min-max] "
             "over the reps); delivered = read / sent; rx queues = packets per rx queue of the "
             "receiving NIC; sockets/threads = datagrams per receiving socket / thread; "
             "RcvbufErrors, InErrors = the receiver's Udp MIB (nstat) deltas: datagrams the "
             "kernel dropped because the socket's buffer was full; NIC drops = the driver's "
             "rx drop counters.")
    L.append("")
    L.append("| step | what | rx Mpps | tx Mpps | delivered | rx queues | sockets | threads | "
             "RcvbufErrors | InErrors | NIC drops |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if not r["runs"]:
            L.append("| %s | %s | failed | | | | | | | | |" % (r["step"], r["what"]))
            continue
        L.append("| %s | %s | %.3f [%.3f-%.3f] | %.3f | %.0f%% | %s | %s | %s | %d | %d | %d |" % (
            r["step"], r["what"], r["rx_Mpps"], r["rx_Mpps_min"], r["rx_Mpps_max"],
            r["tx_Mpps"], 100 * r["delivered"], pct(r["rxq_share"]), pct(r["socket_share"]),
            pct(r["thread_share"]), r["nstat_rx"]["RcvbufErrors"], r["nstat_rx"]["InErrors"],
            r["nic_rx_drops"] + r["dev_rx_dropped"]))
    L.append("")
    L.append("Commands per step (raw/NNN-STEP.log has the JSON and counters):")
    L.append("")
    for r in rows:
        if r["runs"]:
            L.append("- %s: `%s` / `%s`" % (r["step"], r["cmd_tx"], r["cmd_rx"]))
    bad = [r for r in runs if r["status"] != "ok"]
    if bad:
        L.append("")
        L.append("Failed runs:")
        L.append("")
        for r in bad:
            L.append("- %s (%s): %s" % (r["step"], r["raw_log"], r.get("error", "")))
    if notes:
        L.append("")
        L.append("Notes:")
        L.append("")
        for n in notes:
            L.append("- " + n)
    for p in made:
        L.append("")
        L.append("![%s](%s)" % (p, p))
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    return 0


def plot(d, rows, conf):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    ok = [r for r in rows if r["runs"]]
    if not ok:
        return []
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 7), sharex=True,
                                 gridspec_kw={"height_ratios": [2, 1]})
    x = list(range(len(ok)))
    a1.step(x, [r["rx_Mpps"] for r in ok], where="mid", color="tab:blue", label="rx Mpps")
    a1.errorbar(x, [r["rx_Mpps"] for r in ok],
                yerr=[[r["rx_Mpps"] - r["rx_Mpps_min"] for r in ok],
                      [r["rx_Mpps_max"] - r["rx_Mpps"] for r in ok]], fmt="o", color="tab:blue")
    a1.plot(x, [r["tx_Mpps"] for r in ok], "x--", color="tab:gray", label="tx Mpps")
    # where the kernel dropped: the receiver's RcvbufErrors per step
    for i, r in zip(x, ok):
        a1.annotate("drops %d" % r["nstat_rx"]["RcvbufErrors"], (i, r["rx_Mpps"]),
                    textcoords="offset points", xytext=(0, 8), ha="center", fontsize=7)
    a1.margins(y=0.12)
    a1.set_ylabel("million datagrams/s")
    a1.legend(fontsize=8)
    a1.set_title("seed 001 staircase: %s-byte UDP, %s, %s CPUs (TCG guest: the shape, not a NIC's "
                 "rate)" % (conf["size"], conf["kernel"], conf["ncpu"]), fontsize=9)
    nq = max(len(r["rxq_share"]) for r in ok)
    bottom = [0.0] * len(ok)
    for q in range(nq):
        v = [r["rxq_share"][q] if q < len(r["rxq_share"]) else 0 for r in ok]
        a2.bar([i - 0.2 for i in x], v, 0.35, bottom=bottom, label="rx queue %d" % q)
        bottom = [b + y for b, y in zip(bottom, v)]
    ns = max(len(r["socket_share"]) for r in ok)
    bottom = [0.0] * len(ok)
    for s in range(ns):
        v = [r["socket_share"][s] if s < len(r["socket_share"]) else 0 for r in ok]
        a2.bar([i + 0.2 for i in x], v, 0.35, bottom=bottom, hatch="//", alpha=0.6,
               label="socket %d" % s)
        bottom = [b + y for b, y in zip(bottom, v)]
    a2.set_ylabel("share (queues | sockets)")
    a2.set_xticks(x)
    a2.set_xticklabels([r["step"] for r in ok], fontsize=8)
    a2.set_ylim(0, 1.05)
    a2.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    fig.tight_layout()
    fig.savefig(os.path.join(d, "staircase.png"), dpi=90)
    plt.close(fig)
    return ["staircase.png"]


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: staircase_report.py DIR", file=sys.stderr)
        sys.exit(0 if len(sys.argv) == 2 else 1)
    sys.exit(main(sys.argv[1]))
