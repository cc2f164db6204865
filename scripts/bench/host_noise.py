#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""host_noise.py: how steady this machine is right now, apart from the network path.

    scripts/bench/host_noise.py [--cpu N] [--secs S] [--sizes 64K,16M] [--step-ms MS]
                                [--out DIR] [--json]
    scripts/bench/host_noise.py --from-raw DIR/host_noise.log [--json]

Runs copyloop (scripts/bench/hostnoise/copyloop.c, built here with cc) pinned to
one CPU for each working-set size in turn and reads how many bytes it copied in
every step.  A working set in the core's own caches (64 KiB) moves with the CPU
time and frequency the host gives this vCPU; one far above the last-level cache
(16 MiB) also moves with the memory traffic of every other tenant.  Per size:
the median copy rate, the coefficient of variation of the steps and of 1 s
blocks, and the sd of ln(next/this) over adjacent 1 s blocks ("pair sd"): the
noise a pair of 1 s slices, A then B, would see from the host alone, with the
slice pairs a +-3% 95% interval would need at that sd (ab_stats.pairs_needed).
The first step of each size is not counted (the loop settling in it).
The adjacent differences overlap (block i with i+1, then i+1 with i+2): each
has the variance of one pair's, which is what is estimated.

Writes DIR/host_noise.log (the command, /proc/loadavg before and after, and
copyloop's lines under a header per size) and DIR/host_noise.json with --out.
A benchmark, not a test: it asserts nothing.  Exit 0; 1 on bad input (one
line naming the value and what is allowed); 4 when no C compiler is found."""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import ab_stats

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "hostnoise", "copyloop.c")
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
PROG = "host_noise.py"


def parse_size(s):
    """64K, 16M, 4096 -> bytes; ValueError outside 4 KiB..1 GiB."""
    s = s.strip().upper()
    u = s[-1] if s[-1:] in ("K", "M", "G") else ""
    n = int(s[:-1] if u else s) * UNITS[u]
    if not 4096 <= n <= (1 << 30):
        raise ValueError(s)
    return n


def size_name(n):
    for u in ("G", "M", "K"):
        if n % UNITS[u] == 0:
            return "%d%s" % (n // UNITS[u], u)
    return str(n)


def parse_raw(path):
    """The raw log: {"meta": {...}, "sizes": [(bytes, step_ms, [(t, copied)])]}."""
    meta, sizes, cur = {}, [], None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0] == "#":
                continue
            if w[0] == "size":
                cur = (int(w[1]), int(w[3]), [])
                sizes.append(cur)
            elif w[0] in ("load0", "load1", "cpu", "start"):
                meta[w[0]] = " ".join(w[1:])
            elif cur is not None and len(w) == 2:
                cur[2].append((float(w[0]), int(w[1])))
            else:
                raise ValueError("%s:%d: unexpected line '%s'" % (path, no, line.strip()))
    return {"meta": meta, "sizes": sizes}


def stats(step_ms, steps):
    """Rates of STEPS [(t_end, bytes)] and their noise (see the module's doc).
    The first step is left out: the loop's caches and the CPU's clock settle
    in it (about 30% slower than the next ones here)."""
    rates, prev, by_s = [], None, {}
    for t, b in steps:
        if prev is not None and t > prev:
            rates.append(b / (t - prev))
            # 1 s blocks by the clock (a step belongs to the second its
            # middle is in: copyloop's step ends a little after its edge)
            blk = by_s.setdefault(int(((prev + t) / 2) // 1.0), [0, 0.0, 0])
            blk[0] += b
            blk[1] += t - prev
            blk[2] += 1
        prev = t
    per_block = max(1, int(round(1000.0 / step_ms)))
    # a block with under half its steps (the last, cut short) is left out
    blocks = [by_s[k][0] / by_s[k][1] for k in sorted(by_s) if 2 * by_s[k][2] >= per_block]
    out = {"steps": len(rates), "blocks_1s": len(blocks),
           "median_GBps": statistics.median(rates) / 1e9 if rates else None,
           "cv_step_pct": None, "cv_1s_pct": None, "pair_sd_pct": None,
           "pairs_for_3pct": None}
    if len(rates) > 1:
        out["cv_step_pct"] = 100 * statistics.stdev(rates) / statistics.mean(rates)
    if len(blocks) > 1:
        out["cv_1s_pct"] = 100 * statistics.stdev(blocks) / statistics.mean(blocks)
    d = [math.log(blocks[i + 1] / blocks[i]) for i in range(len(blocks) - 1)]
    if len(d) > 1:
        sd = statistics.stdev(d)
        out["pair_sd_pct"] = 100 * sd
        out["pairs_for_3pct"] = ab_stats.pairs_needed(sd, 95, 3)
    return out


def summarize(raw):
    res = []
    for n, step_ms, steps in raw["sizes"]:
        s = stats(step_ms, steps)
        s.update({"bytes": n, "size": size_name(n), "step_ms": step_ms})
        res.append(s)
    return {"tool": "host_noise", "meta": raw["meta"], "sizes": res}


def fmt(v, f):
    return "-" if v is None else f % v


def lines(summary):
    m = summary["meta"]

    def load(k):
        return " ".join(m.get(k, "?").split()[:3])
    out = ["host noise on CPU %s, %s (load average %s -> %s):" % (
        m.get("cpu", "?"), m.get("start", "?"), load("load0"), load("load1"))]
    for s in summary["sizes"]:
        out.append("  %5s copy: %s GB/s median; steps (%d ms) cv %s%%, 1 s cv %s%%; "
                   "adjacent 1 s pair sd %s%% (a +-3%% interval needs ~%s slice pairs)" % (
                       s["size"], fmt(s["median_GBps"], "%.1f"), s["step_ms"],
                       fmt(s["cv_step_pct"], "%.1f"), fmt(s["cv_1s_pct"], "%.1f"),
                       fmt(s["pair_sd_pct"], "%.1f"), fmt(s["pairs_for_3pct"], "%d")))
    return out


def build(work):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("%s: SKIP: no C compiler (cc or gcc) to build copyloop" % PROG, file=sys.stderr)
        sys.exit(4)
    exe = os.path.join(work, "copyloop")
    subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE=", "-o", exe, SRC],
                   check=True)
    return exe


def measure(a, sizes, log):
    with tempfile.TemporaryDirectory() as work:
        exe = build(work)
        with open(log, "w") as f:
            f.write("# %s %s\n" % (PROG, " ".join(a.argv)))
            f.write("start %s\ncpu %d\n" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                            a.cpu))
            f.write("load0 %s\n" % open("/proc/loadavg").read().strip())
            for n in sizes:
                f.write("size %d step_ms %d\n" % (n, a.step_ms))
                f.flush()
                subprocess.run([exe, str(a.cpu), str(a.secs), str(a.step_ms), str(n)],
                               stdout=f, check=True)
            f.write("load1 %s\n" % open("/proc/loadavg").read().strip())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", default="0")
    ap.add_argument("--secs", default="10")
    ap.add_argument("--sizes", default="64K,16M")
    ap.add_argument("--step-ms", default="100")
    ap.add_argument("--out")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--from-raw")
    a = ap.parse_args(argv)
    a.argv = argv

    def bad(what, allowed):
        print("%s: %s: allowed %s" % (PROG, what, allowed), file=sys.stderr)
        return 1
    if a.from_raw:
        try:
            summary = summarize(parse_raw(a.from_raw))
        except (OSError, ValueError) as e:
            return bad("--from-raw: %s" % e, "a host_noise.log written by this tool")
    else:
        ncpu = os.cpu_count() or 1
        if not a.cpu.isdigit() or int(a.cpu) >= ncpu:
            return bad("--cpu '%s'" % a.cpu, "0..%d (online CPUs)" % (ncpu - 1))
        if not a.secs.isdigit() or not 2 <= int(a.secs) <= 3600:
            return bad("--secs '%s'" % a.secs, "2..3600")
        if not a.step_ms.isdigit() or not 10 <= int(a.step_ms) <= 1000:
            return bad("--step-ms '%s'" % a.step_ms, "10..1000")
        try:
            sizes = [parse_size(s) for s in a.sizes.split(",")]
        except (ValueError, IndexError):
            return bad("--sizes '%s'" % a.sizes,
                       "a comma-separated list of 4K..1G (K, M, G suffixes)")
        a.cpu, a.secs, a.step_ms = int(a.cpu), int(a.secs), int(a.step_ms)
        out = a.out or tempfile.mkdtemp(prefix="host_noise.")
        os.makedirs(out, exist_ok=True)
        log = os.path.join(out, "host_noise.log")
        measure(a, sizes, log)
        summary = summarize(parse_raw(log))
        with open(os.path.join(out, "host_noise.json"), "w") as f:
            json.dump(summary, f, indent=1)
    print(json.dumps(summary, indent=1) if a.json else "\n".join(lines(summary)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
