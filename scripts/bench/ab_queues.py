# SPDX-License-Identifier: GPL-2.0
"""Where the work went: per-queue packet and byte deltas and per-IRQ
interrupt deltas of each A/B run (from snapshot.sh counters: `ethtool -S`
rx_queue_N_packets as older drivers print them, or the netlink qstats lines
6.10+ drivers such as virtio_net report instead, and `irq N NAME c0 c1 ...`
from /proc/interrupts), added up per configuration, as results.json entries,
a summary.md table and a plot.  Used by ab_report.py."""
import os
import re

from ab_rawlog import pair_name

QUEUE_RE = re.compile(r"^(rx|tx)_queue_(\d+)_(packets|bytes)$")
# a queue "carries traffic" when it has at least this share of the packets
CARRY_SHARE = 0.05


def parse(text):
    """(queue counters {(dir, q, what): v}, irqs {irq: (name, [per cpu])})"""
    qs, irqs = {}, {}
    for line in text.splitlines():
        p = line.split()
        if len(p) == 3 and p[0] in ("ethtool", "qstat"):
            m = QUEUE_RE.match(p[1])
            if m and p[2].isdigit():
                qs[(m.group(1), int(m.group(2)), m.group(3))] = int(p[2])
        elif len(p) >= 4 and p[0] == "irq":
            try:
                irqs[int(p[1])] = (p[2], [int(x) for x in p[3:]])
            except ValueError:
                pass
    return qs, irqs


def run_deltas(sec):
    """One run's per-queue and per-IRQ deltas on both sides, or None when
    its counters have neither (veth: no queue stats, no IRQs)."""
    out = {}
    for side in ("tx", "rx"):
        q0, i0 = parse(sec.get("counters.before." + side, ""))
        q1, i1 = parse(sec.get("counters.after." + side, ""))
        queues = {}
        for k, v in sorted(q1.items()):
            if k in q0:
                d, q, what = k
                queues.setdefault(d, {}).setdefault(what, {})[q] = v - q0[k]
        irqs = []
        for n in sorted(i1):
            if n in i0 and len(i0[n][1]) == len(i1[n][1]):
                per = [b - a for a, b in zip(i0[n][1], i1[n][1])]
                irqs.append({"irq": n, "name": i1[n][0], "per_cpu": per, "total": sum(per)})
        if queues or irqs:
            out[side] = {"queues": {d: {w: [v[q] for q in sorted(v)] for w, v in ws.items()}
                                    for d, ws in queues.items()},
                         "irqs": irqs}
    return out or None


def _add(acc, vals):
    for i, v in enumerate(vals):
        if i < len(acc):
            acc[i] += v
        else:
            acc.append(v)


def summarize(runs):
    """Per configuration (tx mode, rx mode, setting): the deltas added up
    over its ok runs; the rx device's rx queues and the tx device's tx
    queues, their shares and how many carried traffic."""
    out = []
    keys = []
    by = {}
    for r in runs:
        w = r.get("where")
        if r.get("status") != "ok" or not w:
            continue
        k = (r["tx_mode"], r["rx_mode"], r["setting"], int(r.get("family") or 4))
        if k not in by:
            keys.append(k)
            by[k] = {"runs": 0, "rxq": [], "rxq_bytes": [], "txq": [], "txq_bytes": [],
                     "irqs": {}}
        a = by[k]
        a["runs"] += 1
        rq = w.get("rx", {}).get("queues", {}).get("rx", {})
        tq = w.get("tx", {}).get("queues", {}).get("tx", {})
        _add(a["rxq"], rq.get("packets", []))
        _add(a["rxq_bytes"], rq.get("bytes", []))
        _add(a["txq"], tq.get("packets", []))
        _add(a["txq_bytes"], tq.get("bytes", []))
        for side in ("tx", "rx"):
            for i in w.get(side, {}).get("irqs", []):
                e = a["irqs"].setdefault(i["irq"], {"irq": i["irq"], "name": i["name"],
                                                    "side": side, "per_cpu": []})
                _add(e["per_cpu"], i["per_cpu"])
    for k in keys:
        a = by[k]
        c = {"tx_mode": k[0], "rx_mode": k[1], "setting": k[2], "family": k[3],
             "runs": a["runs"]}
        for n in ("rxq", "txq"):
            tot = sum(a[n])
            c[n + "_packets"] = a[n]
            c[n + "_bytes"] = a[n + "_bytes"]
            c[n + "_share"] = [round(v / tot, 4) if tot else 0 for v in a[n]]
            c[n + "_carrying"] = sum(1 for v in a[n] if tot and v / tot >= CARRY_SHARE)
        c["irqs"] = []
        for n in sorted(a["irqs"]):
            e = a["irqs"][n]
            e["total"] = sum(e["per_cpu"])
            c["irqs"].append(e)
        out.append(c)
    return out


def _fmt_q(pk, share):
    return " / ".join("q%d %d (%.0f%%)" % (i, v, 100 * s) for i, (v, s) in
                      enumerate(zip(pk, share))) or "-"


def summary_lines(qsum, conf):
    """summary.md section: one row per configuration, then its IRQs."""
    if not qsum:
        return []
    flows = int(conf.get("flows") or 1)
    L = ["## Where the work went: queues and IRQs", ""]
    L.append("Per-queue packets (rx queues of the receiving device %s, tx queues of the sending "
             "device %s; ethtool -S rx_queue_N_packets or netlink qstats) and interrupts per IRQ "
             "and CPU (/proc/interrupts), added up over each configuration's measured runs. "
             "%d flow(s) (tx --threads %s x --sockets %s); a queue carries traffic with >= %d%% "
             "of the packets. Asked: channels %s, IRQ CPUs %s, RPS %s, XPS %s, rx-flow-hash "
             "udp4 %s." % (conf.get("dev_rx"), conf.get("dev_tx"), flows,
                           conf.get("tx_threads", "1"), conf.get("tx_sockets", "1"),
                           100 * CARRY_SHARE, conf.get("channels") or "as found",
                           conf.get("irq_cpus") or "as found", conf.get("rps") or "as found",
                           conf.get("xps") or "as found", conf.get("flow_hash") or "as found"))
    L.append("")
    L.append("| tx -> rx | set | runs | rx queues (packets, share) | rx queues carrying | "
             "tx queues (packets, share) | tx queues carrying |")
    L.append("|---|---|---|---|---|---|---|")
    for c in qsum:
        L.append("| %s | %s | %d | %s | %d of %d | %s | %d of %d |" % (
            pair_name(c), c["setting"], c["runs"],
            _fmt_q(c["rxq_packets"], c["rxq_share"]), c["rxq_carrying"], len(c["rxq_packets"]),
            _fmt_q(c["txq_packets"], c["txq_share"]), c["txq_carrying"], len(c["txq_packets"])))
    L.append("")
    L.append("| tx -> rx | set | IRQ | name | side | interrupts per CPU | total |")
    L.append("|---|---|---|---|---|---|---|")
    for c in qsum:
        for i in c["irqs"]:
            if not i["total"]:
                continue
            L.append("| %s | %s | %d | %s | %s | %s | %d |" % (
                pair_name(c), c["setting"], i["irq"], i["name"], i["side"],
                " ".join("cpu%d:%d" % (n, v) for n, v in enumerate(i["per_cpu"])), i["total"]))
    L.append("")
    return L


def plot(d, qsum, title):
    """queues.png: rx-queue packet shares and IRQ counts per configuration."""
    if not qsum:
        return []
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    names = ["%s %s" % (pair_name(c, "->"), c["setting"]) for c in qsum]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 0.5 * len(names) + 2.5))
    nq = max(len(c["rxq_packets"]) for c in qsum)
    left = [0.0] * len(qsum)
    for q in range(nq):
        vals = [c["rxq_packets"][q] if q < len(c["rxq_packets"]) else 0 for c in qsum]
        a1.barh(names, vals, left=left, label="rx queue %d" % q)
        left = [x + v for x, v in zip(left, vals)]
    a1.set_xlabel("packets received per rx queue (%s)" % "receiving device")
    a1.legend(fontsize=8)
    irq_names = sorted({i["name"] for c in qsum for i in c["irqs"] if i["total"]})
    left = [0.0] * len(qsum)
    for nm in irq_names:
        vals = [sum(i["total"] for i in c["irqs"] if i["name"] == nm) for c in qsum]
        a2.barh(names, vals, left=left, label=nm)
        left = [x + v for x, v in zip(left, vals)]
    a2.set_xlabel("interrupts per IRQ (/proc/interrupts)")
    a2.set_yticklabels([])
    a2.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "queues.png"), dpi=90)
    plt.close(fig)
    return ["queues.png"]
