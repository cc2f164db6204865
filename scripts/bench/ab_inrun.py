#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the in-run A/B's raw logs (raw/inrun/*.log, ab_inrun.sh) ->
per-window records and per-pair intervals (ab_inrun_stats.py).

    ab_inrun.py settle LOG             the settle time (ms) measured by LOG's
                                       calibration switches
    ab_inrun.py pending DIR --elapsed S  the pair indexes to run next, nearest
                                       their target first, as many as the
                                       budget left fits (one line)
    ab_inrun.py report DIR             results.json, results.csv, summary.md
                                       (called by ab_report.py)
"""
import argparse
import glob
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_inrun_stats as irs  # noqa: E402
import ab_stats  # noqa: E402
from ab_rawlog import kv, read_conf  # noqa: E402

GIB = float(1 << 30)
STARVED = 0.9           # a window whose sender waited on the run queue (schedstat) for more
                        # than this share of it measured the host's scheduler, not the path:
                        # its window pair is left out (counted); a paced sender that sleeps
                        # does not wait there
CALIB_RATES = 6         # ab_inrun.sh's IR_CALIB_S: the 100 ms rates of one calibration


def parse(path):
    """One run's log: its head (kv), samples, events, counters at edges."""
    run = {"samples": [], "events": [], "ctr": {}, "head": {}, "cmds": {}, "path": path,
           "skbc_source": {}}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "run" and not run["head"]:
                run["head"] = kv(line[4:])
            elif w[0] == "s" and len(w) >= 12:
                run["samples"].append({"t": float(w[1]), "b": int(w[2]), "p": int(w[3]),
                                       "txns": int(w[4]), "txwait": int(w[5]),
                                       "rxns": int(w[6]), "rxwait": int(w[7]),
                                       "udp_in": int(w[8]), "rcvbuf": int(w[9]),
                                       "stat": [int(x) for x in w[11:]]})
                run["events"].append(("s", len(run["samples"]) - 1))
            elif w[0] in ("switch", "calib", "win_start", "win_end"):
                run["events"].append((w[0], float(w[1]), w[2:]))
            elif w[0] == "ctr" and len(w) >= 6:
                # 'ctr T EDGE N NAME VALUE [SIDE]': SIDE tx or rx (ab_skbc.sh), none
                # when one kernel's module was read once for both
                key = (w[2], int(w[3]), w[6] if len(w) >= 7 else "")
                try:
                    run["ctr"].setdefault(key, {})[w[4]] = int(w[5])
                except ValueError:
                    pass
            elif w[0] == "skbc_source" and len(w) >= 3:
                run["skbc_source"][w[1]] = " ".join(w[2:])
            elif w[0] == "settle_measured" and len(w) >= 3:
                run["settle_measured"] = int(w[2])
            elif w[0] in ("cmd_tx", "cmd_rx"):
                run["cmds"][w[0]] = line[len(w[0]) + 1:].strip()
    return run


def _last_sample_before(run, ei):
    for e in reversed(run["events"][:ei]):
        if e[0] == "s":
            return run["samples"][e[1]]
    return None


def _rates(run, i0, i1):
    """Byte rates (bytes/s) between consecutive samples from event i0 to i1."""
    ss = [run["samples"][e[1]] for e in run["events"][i0:i1] if e[0] == "s"]
    return [(b["b"] - a["b"]) / (b["t"] - a["t"]) for a, b in zip(ss, ss[1:]) if b["t"] > a["t"]]


def windows(run, user_hz=100):
    """The run's windows: one record each with the measures between the
    samples at its edges."""
    out, start = [], {}
    h = run["head"]
    for i, e in enumerate(run["events"]):
        if e[0] == "win_start":
            start[int(e[2][0])] = i
        elif e[0] == "win_end":
            n = int(e[2][0])
            if n not in start:
                continue
            a = _last_sample_before(run, start[n])
            b = _last_sample_before(run, i)
            if a is None or b is None or b["t"] <= a["t"]:
                continue
            dt = b["t"] - a["t"]
            st = [y - x for x, y in zip(a["stat"], b["stat"])]
            tot = sum(st[:8]) or 1
            busy = sum(st[j] for j in (0, 1, 2, 5, 6) if j < len(st))
            nb = b["b"] - a["b"]
            tool = (b["txns"] - a["txns"] + b["rxns"] - a["rxns"]) / 1e9
            rates = _rates(run, start[n], i + 1)
            w = {"run_id": int(h.get("run_id", 0)), "window": n, "setting": e[2][1],
                 "method": "inrun", "tx_mode": h.get("tx_mode"), "rx_mode": h.get("rx_mode"),
                 "family": int(h.get("family") or 4), "t0": a["t"], "duration_s": dt,
                 "rx_bytes": nb, "rx_packets": b["p"] - a["p"],
                 "rx_MBps": nb / dt / 1e6,
                 "udp_in_datagrams": b["udp_in"] - a["udp_in"],
                 "udp_rcvbuf_errors": b["rcvbuf"] - a["rcvbuf"],
                 "tx_cpu_s": (b["txns"] - a["txns"]) / 1e9,
                 "tx_cpu_share": (b["txns"] - a["txns"]) / 1e9 / dt,
                 "tx_wait_share": (b["txwait"] - a["txwait"]) / 1e9 / dt,
                 "rx_wait_share": (b["rxwait"] - a["rxwait"]) / 1e9 / dt,
                 "MB_per_tool_cpu_s": nb / 1e6 / tool if tool > 0 else None,
                 "rx_cpu_s": (b["rxns"] - a["rxns"]) / 1e9,
                 "tool_cpu_s_per_GiB": tool / (nb / GIB) if nb > 0 else None,
                 "busy_cpu_s": busy / float(user_hz),
                 "softirq_cpu_s": (st[6] if len(st) > 6 else 0) / float(user_hz),
                 "steal_pct": 100.0 * (st[7] if len(st) > 7 else 0) / tot,
                 "rate_cv_pct": (100.0 * statistics.pstdev(rates) / statistics.mean(rates)
                                 if len(rates) >= 2 and statistics.mean(rates) > 0 else None)}
            # per side: counters_tx (the sending host), counters_rx (the
            # receiving one); 'counters' when one kernel's module was read once
            for side, key in (("tx", "counters_tx"), ("rx", "counters_rx"), ("", "counters")):
                c0 = run["ctr"].get(("start", n, side))
                c1 = run["ctr"].get(("end", n, side))
                if c0 and c1:
                    w[key] = {k: c1[k] - c0[k] for k in c1 if k in c0}
            out.append(w)
    return out


def settle_checks(run, settle):
    """Every switch followed by a window: whether the last 100 ms rate before
    the window was already within the window's own noise (its rates' range,
    at least 2% of their median): the settle time held -- (held, total)."""
    held = tot = 0
    sw = None
    for i, e in enumerate(run["events"]):
        if e[0] == "switch":
            sw = i
        elif e[0] == "win_start" and sw is not None:
            end = next((j for j in range(i, len(run["events"]))
                        if run["events"][j][0] == "win_end"), None)
            if end is None:
                continue
            before = _rates(run, sw, i)
            inside = _rates(run, i - 1, end + 1)     # from the edge sample
            if before and len(inside) >= 2:
                tot += 1
                m = statistics.median(inside)
                tol = max(0.02, (max(inside) - min(inside)) / m) if m > 0 else 0.0
                held += m > 0 and abs(before[-1] / m - 1.0) <= tol
            sw = None
    return held, tot


def calib_settle(run):
    """ms: the largest settle time of the run's calibration switches."""
    out = []
    evs = run["events"]
    for i, e in enumerate(evs):
        if e[0] != "calib":
            continue
        j = next((k for k in range(i + 1, len(evs)) if evs[k][0] in ("switch", "calib",
                                                                       "win_start")), len(evs))
        # from the sample taken right after the switch (after the calib line)
        rates = _rates(run, i, j)[:CALIB_RATES]
        s = irs.settle_ms(rates)
        if s is not None:
            out.append(s)
    return max(out) if out else None


def log_pairs(ws, metric="rx_MBps", starved=None):
    """ln(A/B) of METRIC per consecutive window pair (A B or B A) of one run;
    a pair with a starved window (the sender waited on the run queue
    for over STARVED of it) is left
    out and appended to the list starved when given."""
    out = []
    for a, b in zip(ws[0::2], ws[1::2]):
        if max(a["tx_wait_share"], b["tx_wait_share"]) > STARVED:
            if starved is not None:
                starved.append((a["run_id"], a["window"]))
            continue
        x = {a["setting"]: a.get(metric), b["setting"]: b.get(metric)}
        if set(x) == {"A", "B"} and (x["A"] or 0) > 0 and (x["B"] or 0) > 0:
            out.append(math.log(x["A"] / x["B"]))
    return out


def load(d):
    conf = read_conf(os.path.join(d, "run.conf"))
    runs = [parse(p) for p in sorted(glob.glob(os.path.join(d, "raw", "inrun", "*.log")))]
    return conf, runs


def pair_state(conf, runs):
    level, width = ab_stats.parse_ci(conf["ci"]) if conf.get("ci", "off") != "off" else (95.0, 3.0)
    hz = int(conf.get("user_hz") or 100)
    by = {}
    for r in runs:
        h = r["head"]
        if not h:
            continue
        by.setdefault(int(h["pair"]), []).append(r)
    state = {}
    for pi, rs in by.items():
        ws = [windows(r, hz) for r in rs]
        starved = []
        lp = [x for x in (log_pairs(w, starved=starved) for w in ws) if x]
        lc = [x for x in (log_pairs(w, "MB_per_tool_cpu_s") for w in ws) if x]
        state[pi] = (len(rs), irs.two_level(lp, level), rs, lp, starved,
                     irs.two_level(lc, level))
    return level, width, state


def pending(d, elapsed):
    conf, runs = load(d)
    level, width, state = pair_state(conf, runs)
    budget = float(conf.get("budget") or 0)
    max_runs = int(conf.get("max_reps") or 30)
    order = irs.spending_order({k: (v[0], v[1]) for k, v in state.items()}, level, width,
                               max_runs)
    # seconds per run so far: as many of the nearest as the budget left fits
    durs = []
    for r in runs:
        ts = [s["t"] for s in r["samples"]]
        if len(ts) >= 2:
            durs.append(ts[-1] - ts[0] + 0.5)
    per = statistics.mean(durs) if durs else 5.0
    left = budget - (elapsed or 0.0)
    n = max(1, int(left // per)) if left > 0 else 0
    print(" ".join(str(k) for k in order[:n]))
    return 0


def pair_record(pi, st, level, width, max_runs):
    done, iv, rs, lp, starved, ivc = st
    h = rs[0]["head"]
    rec = {"tx_mode": h.get("tx_mode"), "rx_mode": h.get("rx_mode"), "method": "inrun",
           "family": int(h.get("family") or 4), "counters_source": rs[0]["skbc_source"],
           "runs": done, "runs_used": len(lp), "window_pairs_per_run": [len(x) for x in lp],
           "settle_ms": int(h.get("settle_ms") or 0), "window_ms": int(h.get("window_ms") or 0)}
    held = tot = 0
    for r in rs:
        a, b = settle_checks(r, rec["settle_ms"])
        held, tot = held + a, tot + b
    rec["settle_held"] = [held, tot]
    rec["starved_window_pairs"] = starved
    rec["ci_MB_per_tool_cpu_s"] = ivc
    meas = [r["settle_measured"] for r in rs if "settle_measured" in r]
    rec["settle_measured_ms"] = meas[0] if meas else None
    if iv is None:
        rec["ci"] = None
        return rec
    ci = dict(iv)
    ci["runs_needed"] = irs.needed(iv, level, width)
    ci["target_met"] = iv["half_pct"] <= width
    # K&J's optimum from this run's costs: a run's fixed part (start, settle
    # calibration, stop) against one window pair
    wp = 2 * (rec["settle_ms"] + rec["window_ms"]) / 1000.0
    durs = [r["samples"][-1]["t"] - r["samples"][0]["t"] for r in rs if len(r["samples"]) > 1]
    npr = statistics.mean(len(x) for x in lp) if lp else 1
    fixed = max(0.0, statistics.mean(durs) - npr * wp) if durs else 0.0
    ci["optimal_window_pairs"] = irs.optimal_windows(iv["var_within"], iv["var_between"],
                                                     fixed + 0.5, wp)
    if iv["varies"]:
        ci["spread_words"] = "varied between %.2fx and %.2fx across runs" % (
            min(iv["run_ratios"]), max(iv["run_ratios"]))
    rec["ci"] = ci
    return rec


def per_run_records(runs, hz):
    """One record per run and setting (the unit ab_compare.py compares):
    rx MB/s over that setting's windows of the run."""
    out = []
    for r in runs:
        h = r["head"]
        if not h:
            continue
        ws = windows(r, hz)
        for s in ("A", "B"):
            x = [w for w in ws if w["setting"] == s]
            if not x:
                continue
            nb = sum(w["rx_bytes"] for w in x)
            dt = sum(w["duration_s"] for w in x)
            tool = sum(w["tx_cpu_s"] + w["rx_cpu_s"] for w in x)
            out.append({"tx_mode": h["tx_mode"], "rx_mode": h["rx_mode"], "setting": s,
                        "family": int(h.get("family") or 4),
                        "run_id": int(h["run_id"]), "rep": int(h["run_id"]), "status": "ok",
                        "method": "inrun", "windows": len(x), "rx_MBps": nb / dt / 1e6,
                        "proc_cpu_s_per_GiB": tool / (nb / GIB) if nb > 0 else None,
                        "raw_log": os.path.relpath(r["path"], os.path.dirname(
                            os.path.dirname(os.path.dirname(r["path"]))))})
    return out


def report(d, conf=None):
    if conf is None:
        conf = read_conf(os.path.join(d, "run.conf"))
    _, runs = load(d)
    level, width, state = pair_state(conf, runs)
    hz = int(conf.get("user_hz") or 100)
    max_runs = int(conf.get("max_reps") or 30)
    pairs = [pair_record(pi, state[pi], level, width, max_runs) for pi in sorted(state)]
    real = ab_stats.holm([p["ci"]["p"] if p["ci"] else None for p in pairs],
                         1.0 - level / 100.0)
    for p, rl in zip(pairs, real):
        if p["ci"]:
            p["ci"]["real"] = bool(rl and p["ci"]["excludes_1"])
    wins = [w for r in runs for w in windows(r, hz)]
    with open(os.path.join(d, "command")) as f:
        command = f.read().strip()
    res = {"schema": 1, "method": "inrun", "label": conf.get("label"), "command": command,
           "preset": conf.get("preset") or None,
           "host": conf.get("host"), "kernel": conf.get("kernel"), "cpu": conf.get("cpu"),
           "ncpus": int(conf.get("ncpus") or 0),
           "settings": {"A": conf.get("spec_A"), "B": conf.get("spec_B")},
           "interval": {"level": level, "target_pct": width, "unit": "run",
                        "rule": "t-interval over runs (each run: mean ln(A/B) of its window "
                        "pairs); widened to every run's ratio when the effect varies between "
                        "runs (F-test p < %g); Holm over pairs for 'real'" % irs.HETERO_P,
                        "budget_s": conf.get("budget"), "min_runs": conf.get("reps"),
                        "max_runs": max_runs, "stop": conf.get("stop")},
           "loadavg": {"start": conf.get("loadavg_start"), "end": conf.get("loadavg_end")},
           "counters_source": conf.get("counters_source"),
           "notes": conf.get("notes", []),
           "wall_s": None, "ab": pairs, "runs": per_run_records(runs, hz), "windows": wins}
    try:
        res["wall_s"] = round(float(conf["t_end"]) - float(conf["t_start"]), 1)
    except (KeyError, ValueError):
        pass
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    cols = ["run_id", "window", "setting", "method", "tx_mode", "rx_mode", "duration_s",
            "rx_bytes", "rx_packets", "rx_MBps", "udp_in_datagrams", "udp_rcvbuf_errors",
            "tx_cpu_s", "rx_cpu_s", "tool_cpu_s_per_GiB", "busy_cpu_s", "softirq_cpu_s",
            "steal_pct"]
    with open(os.path.join(d, "results.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for w in wins:
            f.write(",".join("" if w.get(c) is None else str(w[c]) for c in cols) + "\n")
    import ab_inrun_summary
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(ab_inrun_summary.summary(res))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("settle")
    p.add_argument("log")
    p = sub.add_parser("pending")
    p.add_argument("dir")
    p.add_argument("--elapsed", type=float, default=0.0)
    p = sub.add_parser("report")
    p.add_argument("dir")
    a = ap.parse_args(argv)
    if a.cmd == "settle":
        s = calib_settle(parse(a.log))
        if s is None:
            print("ab_inrun.py settle: no calibration samples in %s" % a.log, file=sys.stderr)
            return 1
        print(s)
        return 0
    if a.cmd == "pending":
        return pending(a.dir, a.elapsed)
    return report(a.dir)


if __name__ == "__main__":
    sys.exit(main())
