#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures netif_case.sh reads from a results.json, one line each:

  run        rx queues carrying traffic, rx queue count, per-queue packets,
             rx input IRQs fired
  oneflow    rx queues carrying traffic, per-queue packets
  csum       A: gso active, calls, datagrams, packets on the tx queues;
             B: gso fallback, calls, datagrams, gso active
  csum_kmod  the per-skb counters' source (kmod, bpf, none), then A's and B's
             tx_gso_udp_l4_skbs, tx_sw_segmented_skbs, tx_sw_segments
  staircase  STEP=Mpps for every step (STEP=failed where no run)
"""
import argparse
import json
import os
import re


def packets(q):
    """the rx queues' packet counts as one word, e.g. [5760,5760]"""
    return "[%s]" % ",".join(str(p) for p in q["rxq_packets"])


def run(r):
    q = r["queues"][0]
    irqs = sum(i["total"] for i in q["irqs"] if "input" in i["name"] and i["side"] == "rx")
    return [q["rxq_carrying"], len(q["rxq_packets"]), packets(q), irqs]


def oneflow(r):
    q = r["queues"][0]
    return [q["rxq_carrying"], packets(q)]


def first_ok(r, setting):
    return [x for x in r["runs"] if x["setting"] == setting and x["status"] == "ok"][0]


def csum(r):
    a, b = first_ok(r, "A"), first_ok(r, "B")
    txq = sum(a["where"]["tx"]["queues"]["tx"]["packets"])
    return [int(a["tx_gso_active"]), a["tx_calls"], a["tx_datagrams"], txq,
            int(b["tx_gso_fallback"]), b["tx_calls"], b["tx_datagrams"], int(b["tx_gso_active"])]


RESDIR = "."


def probe_sends(run):
    """the GSO probe's sends of a run's sender (its JSON `gso.probe` in the
    raw log): GSO skbs of their own, to the sender itself, that the
    machine-wide counters see too"""
    path = os.path.join(RESDIR, run["raw_log"])
    with open(path, errors="replace") as f:
        m = re.search(r'"probe":\{"sends":(\d+)', f.read())
    return int(m.group(1)) if m else 0


def csum_kmod(r):
    """A and B's per-skb counters: source, then for each tx_gso_udp_l4_skbs,
    tx_sw_segmented_skbs, tx_sw_segments ('-' where not read), then B's GSO
    probe sends"""
    out = []
    for s in ("A", "B"):
        c = first_ok(r, s)["counters"]
        k = c.get("kmod") or {}
        if s == "A":
            out.append((c.get("kmod_source") or "none").split()[0])
        out += [k.get(n, "-") for n in ("tx_gso_udp_l4_skbs", "tx_sw_segmented_skbs",
                                        "tx_sw_segments")]
    return out + [probe_sends(first_ok(r, "B"))]


def staircase(r):
    return [" ".join("%s=%.3f" % (s["step"], s["rx_Mpps"]) if s["runs"]
                     else s["step"] + "=failed" for s in r["steps"])]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["run", "oneflow", "csum", "csum_kmod", "staircase"])
    ap.add_argument("results", help="a results.json")
    a = ap.parse_args()
    global RESDIR
    RESDIR = os.path.dirname(os.path.abspath(a.results))
    with open(a.results) as f:
        r = json.load(f)
    print(*globals()[a.what](r))


if __name__ == "__main__":
    main()
