#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: what ab_report.py reads from an A/B run's files: run.conf, the
sections of a raw/*.log (`== NAME` blocks), the tools' JSON, counter and
perf stat blocks, /proc/stat deltas; a results directory's results.json."""
import json
import lzma
import os

STAT_FIELDS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]


def read_conf(path):
    conf, notes = {}, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" not in line:
                continue
            k, v = line.split("=", 1)
            if k == "note":
                notes.append(v)
            else:
                conf[k] = v
    conf["notes"] = notes
    return conf


def results_file(d):
    """The results.json of results directory D, or results.json.xz when only
    that is there (results/ keeps large runs packed); None without either."""
    fn = os.path.join(d, "results.json")
    for f in (fn, fn + ".xz"):
        if os.path.isfile(f):
            return f
    return None


def read_results(fn):
    """results_file()'s JSON (OSError, ValueError or lzma.LZMAError when it
    cannot be read)"""
    with (lzma.open(fn, "rt") if fn.endswith(".xz") else open(fn)) as f:
        return json.load(f)


def parse_log(path):
    """One raw run log: header lines, then '== name' sections."""
    head, sections, cur = {}, {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("== "):
                cur = line[3:]
                sections[cur] = []
                continue
            if cur is not None:
                sections[cur].append(line)
                continue
            if line.startswith("#") or not line.strip():
                continue
            key, _, rest = line.partition(" ")
            head[key] = rest
    return head, {k: "\n".join(v) for k, v in sections.items()}


def kv(s):
    out = {}
    for tok in s.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
    return out


def load_json(text):
    try:
        return json.loads(text) if text.strip() else None
    except ValueError:
        return None


def parse_counters(text):
    """snapshot.sh counters: /proc/net/snmp pairs (snmp6: name value lines),
    sysfs and ethtool lines."""
    mib, sysfs, eth = {}, {}, {}
    names = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] in ("Udp:", "UdpLite:", "Tcp:"):
            proto = parts[0][:-1]
            if proto not in names:
                names[proto] = parts[1:]
            else:
                for n, v in zip(names.pop(proto), parts[1:]):
                    mib[proto + n] = int(v)
        elif parts[0].startswith(("Udp6", "UdpLite6")) and len(parts) == 2:
            mib[parts[0]] = int(parts[1])	# /proc/net/snmp6
        elif parts[0] == "sysfs" and len(parts) == 3:
            sysfs[parts[1]] = int(parts[2])
        elif parts[0] == "ethtool" and len(parts) == 3:
            try:
                eth[parts[1]] = int(parts[2])
            except ValueError:
                pass
    return mib, sysfs, eth


def delta(a, b, keep_zero=False):
    out = {}
    for k, v in b.items():
        if k in a:
            d = v - a[k]
            if d or keep_zero:
                out[k] = d
    return out


def parse_perf(text):
    ev = {}
    for line in text.splitlines():
        p = line.split(",")
        if len(p) < 3 or not p[2]:
            continue
        try:
            ev[p[2]] = float(p[0])
        except ValueError:
            ev[p[2]] = None      # <not supported> / <not counted>
    return ev


def stat_delta(s0, s1, hz):
    a = [int(x) for x in s0.split()[1:9]]
    b = [int(x) for x in s1.split()[1:9]]
    d = dict(zip(STAT_FIELDS, [(y - x) / float(hz) for x, y in zip(a, b)]))
    d["busy"] = d["user"] + d["nice"] + d["system"] + d["irq"] + d["softirq"]
    return d


def last_line(text):
    lines = [x for x in text.splitlines() if x.strip()]
    return lines[-1] if lines else ""


def pair_key(x):
    """A tx/rx pair's key: its modes and address family (4 when a log or
    result predates --family)."""
    return (x["tx_mode"], x["rx_mode"], int(x.get("family") or 4))


def pair_name(x, sep=" -> "):
    """'TX -> RX', and the family when it is IPv6."""
    fam = int(x.get("family") or 4)
    return "%s%s%s%s" % (x["tx_mode"], sep, x["rx_mode"], "" if fam == 4 else " IPv6")


def parse_skbc(sec):
    """The per-skb counters of a run log: {"kmod": ..., "kmod_source": ...}
    from the unsided 'kmod.after' (one kernel, read once), and per side
    'kmod.after.tx' / 'kmod.after.rx' with their 'kmod.source.SIDE' (the
    sending and the receiving host); None where a section is absent."""
    out = {}
    for sfx in ("", ".tx", ".rx"):
        key = "kmod" + sfx.replace(".", "_")
        if "kmod.after" + sfx not in sec:
            out[key] = out[key.replace("kmod", "kmod_source")] = None
            continue
        vals = {}
        for line in sec["kmod.after" + sfx].splitlines():
            p = line.split()
            if len(p) == 2 and p[1].isdigit():
                vals[p[0]] = int(p[1])
        out[key] = vals
        # who counted: the module, or its BPF twin (udpgso_stats, its mode)
        out[key.replace("kmod", "kmod_source")] = (
            sec.get("kmod.source" + sfx, "").strip() or "kmod")
    return out
