#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: turn an A/B run's raw logs into results.json, results.csv,
summary.md and plots (matplotlib, Agg backend, when it can be imported).

    ab_report.py RESULTS_DIR
    ab_report.py RESULTS_DIR --pending     (the interval rule: what needs more)
    ab_report.py RESULTS_DIR --serve       (the same, asked once a round on stdin)

Everything is computed from RESULTS_DIR/run.conf and RESULTS_DIR/raw/*.log,
so the numbers can always be traced back to the raw log they came from.
The statistics (intervals, the stop and outlier rules) are in ab_stats.py,
the reading of run.conf and the raw logs in ab_rawlog.py, one slice's
record in ab_slice.py.
"""
import argparse
import csv
import glob
import json
import os
import statistics
import sys
import time
import traceback

import ab_across
import ab_pairs
import ab_plots
import ab_queues
import ab_stats
import ab_summary
from ab_rawlog import pair_key, pair_name, read_conf
# one slice's raw log -> its run record: ab_slice.py (the tests reach these
# and the deltas through this module)
from ab_slice import bpf_incomplete, check, one_run  # noqa: F401
from ab_rawlog import delta, parse_counters, parse_skbc, stat_delta  # noqa: F401

MIB = float(1 << 20)
GIB = float(1 << 30)
SCHEMA = 1


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "n": len(vals)}


def ab_ci(a, b, opts):
    """The intervals of one tx/rx pair (a, b: rep -> run of A, B) for both
    metrics, the stop rule's verdict on the chosen one, and how it ended."""
    dist = [r for r in set(a) & set(b) if a[r].get("disturbed") or b[r].get("disturbed")]
    out = {"ci": {}}
    for f in ("rx_MBps", "cpu_cost_per_GiB"):
        out["ci"][f] = ab_stats.pair_interval({r: x.get(f) for r, x in a.items()},
                                              {r: x.get(f) for r, x in b.items()},
                                              opts["level"], dist)
    iv = out["ci"][opts["metric"]]
    out["ci_metric"] = opts["metric"]
    out["reps_taken"] = len(set(a) | set(b))
    if opts["width"] is None:
        out["target_reached"] = None
        out["stopped_by"] = "fixed reps (-n)"
    else:
        out["target_reached"] = ab_stats.target_met(iv, opts["width"], opts["min_pairs"])
        if out["target_reached"]:
            out["stopped_by"] = "target"
        elif out["reps_taken"] >= opts["max_reps"]:
            out["stopped_by"] = "max-reps"
        elif opts.get("target_at") is not None and opts.get("after_target") == "rounds":
            # every pair was decided (within the target, out of reach or at
            # max-reps) when the rounds after the target began; one neither
            # out of reach (mark_out_of_reach) nor at max-reps now was
            # within the target then
            out["stopped_by"] = ("within the target when every pair was decided (after "
                                 "%.0f s), wider after the rounds that followed"
                                 % opts["target_at"])
        else:
            out["stopped_by"] = opts.get("stop") or "budget"
    return out


def ci_opts(conf):
    """The interval settings of a run from its run.conf."""
    ci = conf.get("ci") or ""
    level, width = ab_stats.parse_ci(ci) if ci and ci != "off" else (95.0, None)
    return {"level": level, "width": width, "min_pairs": int(conf.get("reps", "3")),
            "max_reps": int(conf.get("max_reps") or conf.get("reps", "3")),
            "metric": {"mbps": "rx_MBps", "cost": "cpu_cost_per_GiB"}.get(
                conf.get("metric") or "", "cpu_cost_per_GiB" if conf.get("rate") else "rx_MBps"),
            "stop": conf.get("stop"),
            "target_at": float(conf["target_at"]) if conf.get("target_at") else None,
            "after_target": conf.get("after_target") or None}


def aggregate(runs, settings, opts):
    configs, ab = [], []
    keys = []
    for r in runs:
        k = pair_key(r)
        if k not in keys:
            keys.append(k)
    for k in keys:
        per = {}
        for s in settings:
            rs = [r for r in runs if pair_key(r) == k and r["setting"] == s]
            ok = [r for r in rs if r["status"] == "ok"]
            cfg = {"config": rs[0]["config"] if rs else None, "tx_mode": k[0], "rx_mode": k[1],
                   "family": k[2], "setting": s, "runs": len(rs), "ok": len(ok),
                   "skipped": sum(1 for r in rs if r["status"] == "skip"),
                   "failed": sum(1 for r in rs if r["status"] == "fail"),
                   "features": rs[0]["features"] if rs else {}}
            for f in ("rx_MBps", "tx_MBps", "rx_Mpps", "rx_datagrams_per_read",
                      "cost_per_GiB", "cost_per_Mdgram", "cpu_busy_s", "cpu_softirq_s",
                      "cpu_proc_s", "proc_cpu_s_per_GiB", "cpu_idle_fraction", "loss_pct",
                      "cpu_cost_per_GiB", "cpu_cost_us_per_dgram", "steal_share",
                      "rate_reached", "tx_cpu_share", "rx_cpu_share"):
                cfg[f] = spread([r.get(f) for r in ok])
            cfg["contradictions"] = sum(len(r["contradictions"]) for r in ok)
            if not ok and rs:
                cfg["note"] = rs[0].get("error", "")
            configs.append(cfg)
            per[s] = ok
        if len(settings) == 2:
            a = {r["rep"]: r for r in per["A"]}
            b = {r["rep"]: r for r in per["B"]}
            reps = sorted(set(a) & set(b))
            ent = {"tx_mode": k[0], "rx_mode": k[1], "family": k[2], "pairs": len(reps)}
            for f in ("rx_MBps", "cost_per_GiB"):
                ratios = [a[i][f] / b[i][f] for i in reps
                          if a[i].get(f) and b[i].get(f)]
                ent[f + "_ratio"] = spread(ratios)
            ent.update(ab_ci(a, b, opts))
            ent.update(ab_pairs.pair_fields(a, b, ent["ci"][opts["metric"]], opts["metric"]))
            ab.append(ent)
    # a difference is real only if it survives the correction over all pairs
    for metric in ("rx_MBps", "cpu_cost_per_GiB"):
        ivs = [e["ci"][metric] for e in ab]
        for iv, sig in zip(ivs, ab_stats.holm([iv.get("p") for iv in ivs],
                                              1.0 - opts["level"] / 100.0)):
            iv["holm"] = sig
    return configs, ab


def fmt_spread(s, fmt="%.0f"):
    if not s:
        return "-"
    return (fmt + " [" + fmt + "-" + fmt + "]") % (s["median"], s["min"], s["max"])


def plots(d, configs, settings, specs, label, cost_label):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "matplotlib not importable by %s: no plots" % sys.executable
    os.makedirs(os.path.join(d, "plots"), exist_ok=True)
    pairs = []
    for c in configs:
        p = pair_name(c, "\n-> ")
        if p not in pairs:
            pairs.append(p)
    made = []
    for field, title, fname, logy in (
            ("rx_MBps", "received MB/s (2^20 B/s), median with min-max", "throughput.png", True),
            ("cost_per_GiB", "CPU cost per GiB received: %s" % cost_label, "cpu_cost.png",
             False)):
        if not any(c[field] for c in configs):
            continue
        fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(pairs) + 2), 5))
        w = 0.8 / len(settings)
        for si, s in enumerate(settings):
            xs, ys, lo, hi = [], [], [], []
            for c in configs:
                if c["setting"] != s or not c[field]:
                    continue
                p = pair_name(c, "\n-> ")
                v = c[field]
                xs.append(pairs.index(p) + (si - (len(settings) - 1) / 2.0) * w)
                ys.append(v["median"])
                lo.append(v["median"] - v["min"])
                hi.append(v["max"] - v["median"])
            ax.bar(xs, ys, w, yerr=[lo, hi], capsize=3,
                   label="%s: %s" % (s, specs.get(s) or "as found"))
        ax.set_xticks(range(len(pairs)))
        ax.set_xticklabels(pairs, fontsize=8)
        ax.set_title("%s\n%s" % (label, title), fontsize=10)
        if logy:
            ax.set_yscale("log")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(d, "plots", fname))
        plt.close(fig)
        made.append(os.path.join("plots", fname))
    return made, None


OUT_OF_REACH = "out_of_reach"	# in the results directory: "TX RX NEEDED SD_PCT" lines


def read_out_of_reach(d):
    """{(tx, rx, family): (pairs needed, sd %)} of the pairs the out-of-reach rule
    stopped (lines 'TX RX NEEDED SD [FAMILY]')"""
    out = {}
    try:
        with open(os.path.join(d, OUT_OF_REACH)) as f:
            for line in f:
                w = line.split()
                if len(w) in (4, 5):
                    out[(w[0], w[1], int(w[4]) if len(w) == 5 else 4)] = (int(w[2]), float(w[3]))
    except FileNotFoundError:
        pass
    return out


def mark_out_of_reach(ab, oor):
    """the stopped_by of the pairs the out-of-reach rule stopped"""
    for a in ab:
        k = pair_key(a)
        if k in oor and not a.get("target_reached"):
            a["stopped_by"] = "out of reach: ~%d pairs needed at sd %.1f%%" % oor[k]


def next_round(ab, oor, opts, budget, elapsed, slices):
    """Which pairs the next round runs, and which the out-of-reach rule stops
    now: (todo, stopped) with todo the ab entries to run and stopped
    {pair key: (pairs needed, sd_log)}.  ab is aggregate()'s, oor the pairs
    stopped in earlier rounds (read_out_of_reach), budget and elapsed seconds
    of the run so far (None: no budget) and slices the slices run so far,
    warm-up included (their mean time per pair prices the rest).
    A pair whose interval, at the sd of its pairs so far (at least
    REACH_MIN_PAIRS of them), needs more pairs than max-reps or than the rest
    of the budget can give it after the pairs closer to their target is
    stopped (ab_stats.in_reach), so that the budget goes where the target
    can be reached; the pairs whose interval still reaches into +-width of
    1.0 (their verdict open) come first, those wholly beyond it
    (ab_stats.decided: an effect larger than the target, its verdict given)
    after them.  When no pair is left in reach, the rest of the budget
    still goes to the nearest of them (ab_stats.spend_left, issue 26 point
    4), also when they were all stopped in earlier rounds."""
    todo = [a for a in ab if a["stopped_by"] not in ("target", "max-reps")
            and pair_key(a) not in oor]
    stopped = {}
    if not (elapsed and budget):
        return todo, stopped
    per_pair = 2.0 * elapsed / max(slices, 1)
    pairs_left = max(float(budget) - elapsed, 0.0) / per_pair
    short, young, later = {}, 0, set()
    for a in todo:
        iv = a["ci"][opts["metric"]]
        if iv["n"] >= ab_stats.REACH_MIN_PAIRS and iv.get("sd_log") is not None:
            short[pair_key(a)] = (iv["n"], ab_stats.pairs_needed(
                iv["sd_log"], opts["level"], opts["width"]), iv["sd_log"])
            if ab_stats.decided(iv, opts["width"]):
                later.add(pair_key(a))
        else:
            young += 1	# too few pairs to judge: a round each comes first
    if short:
        _, out = ab_stats.in_reach({k: v[:2] for k, v in short.items()},
                                   pairs_left - young, opts["max_reps"], later)
        stopped = {k: (short[k][1], short[k][2]) for k in out}
        todo = [a for a in todo if pair_key(a) not in stopped]
    if not todo and pairs_left - young >= 1:
        need = {k: v[0] for k, v in oor.items()}
        need.update({k: v[0] for k, v in stopped.items()})
        far = {pair_key(a): (a["ci"][opts["metric"]]["n"], need.get(pair_key(a), 10 ** 6))
               for a in ab if a["stopped_by"] not in ("target", "max-reps")
               and a["ci"][opts["metric"]].get("n")}
        keys = set(ab_stats.spend_left(far, pairs_left - young, opts["max_reps"]))
        todo = [a for a in ab if pair_key(a) in keys]
    return todo, stopped


def pending(d, conf, elapsed=None, parsed=None):
    """The interval rule mid-run: print the tx/rx pairs ("TX RX" lines) that
    need another repetition (udpgso_ab.sh reads them after each round) and
    append the pairs next_round() stops to OUT_OF_REACH.  PARSED (a dict)
    keeps each raw log's record between calls: a slice's log is written
    once, when the slice ends, and never again."""
    opts = ci_opts(conf)
    settings = conf["settings"].split()
    if parsed is None:
        parsed = {}
    runs = []
    for p in sorted(glob.glob(os.path.join(d, "raw", "*.log"))):
        if p not in parsed:
            parsed[p] = one_run(p, conf)
        runs.append(parsed[p])
    if len(settings) < 2 or opts["width"] is None:
        return
    _, ab = aggregate(runs, settings, opts)
    slices = len(runs) + len(glob.glob(os.path.join(d, "raw", "warmup", "*.log")))
    todo, stopped = next_round(ab, read_out_of_reach(d), opts, conf.get("budget"),
                               elapsed, slices)
    if stopped:
        with open(os.path.join(d, OUT_OF_REACH), "a") as f:
            for k, (need, sd) in sorted(stopped.items()):
                f.write("%s %s %d %.2f %d\n" % (k[0], k[1], need, 100 * sd, k[2]))
    for a in todo:
        print(*pair_key(a))


def serve(d, conf, inp=sys.stdin, out=sys.stdout):
    """--serve: one process for a whole run, so that a round's question
    costs neither a Python start nor the parsing of every earlier slice.
    Each line 'pending [ELAPSED]' gets pending()'s answer, then '@@END';
    a failure gets its traceback on stderr and '@@FAIL' (udpgso_ab.sh
    stops the run then, as when a --pending process fails)."""
    parsed = {}
    for line in inp:
        w = line.split()
        if not w:
            continue
        try:
            if w[0] != "pending" or len(w) > 2:
                raise ValueError("unknown request %r (allowed: pending [ELAPSED])"
                                 % line.strip())
            pending(d, conf, float(w[1]) if len(w) == 2 else None, parsed)
            print("@@END", file=out, flush=True)
        except Exception:          # one line per failure; the run decides
            traceback.print_exc()
            sys.stderr.flush()
            print("@@FAIL", file=out, flush=True)
    return 0


def warmup_runs(d, conf):
    """The warm-up slices (raw/warmup/): listed, never counted."""
    out = []
    for p in sorted(glob.glob(os.path.join(d, "raw", "warmup", "*.log"))):
        r = one_run(p, conf)
        r["raw_log"] = os.path.join("raw", "warmup", os.path.basename(p))
        out.append(r)
    return out


def tcp_note(runs):
    """None, or how much the TCP pairs' senders sent again (tcp_retrans_pct)."""
    by = {}
    for r in runs:
        if r.get("status") == "ok" and r.get("tcp_retrans_pct") is not None:
            by.setdefault(r["setting"], []).append(r["tcp_retrans_pct"])
    if not by:
        return None
    return ("tcp: the sender retransmitted a median %.2f%% of its segments per slice (%s;"
            " TcpRetransSegs over TcpOutSegs of the sending side's network namespace, other"
            " TCP traffic there included): a TCP pair's rate moves with its loss recovery"
            " (docs/ab.md, \"tcp -> tcp\")" % (
                statistics.median([v for x in by.values() for v in x]),
                ", ".join("%s %.2f%% [%.2f-%.2f]" % (k, statistics.median(v), min(v), max(v))
                          for k, v in sorted(by.items()))))


def cost_label_of(conf):
    if conf.get("cost_unit", "cpu_s") == "cycles":
        return "cycles (perf stat -a, all CPUs)"
    return "CPU-seconds busy on all CPUs (/proc/stat user+nice+system+irq+softirq)"


def make_plots(d, conf, configs, ab, settings, opts, cost_label, notes):
    """the plots (when run.conf asks for them); a reason they could not be
    made goes to NOTES"""
    if conf.get("plots") != "1":
        return []
    title = "%s on %s, %s" % (conf["label"], conf["host"], conf["kernel"])
    made, why = plots(d, configs, settings, {s: conf.get("spec_" + s, "") for s in settings},
                      title, cost_label)
    if why:
        notes.append(why)
        return made
    return made + ab_plots.plots(d, configs, ab, settings, title, opts)


def wall_time(d, conf):
    """the wall time ends when the report is first written (recorded in
    run.conf then, so that writing it again from raw/ keeps it)"""
    if "t_done" not in conf:
        conf["t_done"] = "%.6f" % time.time()
        with open(os.path.join(d, "run.conf"), "a") as f:
            f.write("t_done=%s\n" % conf["t_done"])
    return float(conf["t_done"]) - float(conf["t_start"])


def overhead(slices):
    """where the overhead went, from each run's phase times: before tx, tx
    start and exit, after tx, between runs"""
    pre = post = extra = between = 0.0
    prev_end = None
    for r in slices:
        t = r["times"]
        if not all(k in t for k in ("start", "bound", "tx_done", "end")):
            continue
        pre += t["bound"] - t["start"]
        post += t["end"] - t["tx_done"]
        extra += (t["tx_done"] - t["bound"]) - r.get("duration_s", 0)
        if prev_end is not None:
            between += t["start"] - prev_end
        prev_end = t["end"]
    return pre, extra, post, between


def timing_of(runs, warm, wall):
    slices = sorted(runs + warm, key=lambda r: r["index"])
    measured = sum(r.get("duration_s", 0) for r in slices)
    pre, extra, post, between = overhead(slices)
    return {"wall_s": round(wall, 3), "measured_s": round(measured, 3),
            "overhead_s": round(wall - measured, 3),
            "overhead_fraction": round((wall - measured) / wall, 4) if wall else None,
            "runs": len(runs), "warmup_runs": len(warm),
            "breakdown_s": {
                "before_tx": round(pre, 3),
                "tx_start_and_exit": round(extra, 3),
                "after_tx": round(post, 3),
                "between_runs": round(between, 3),
                "setup_restore_report": round(wall - measured - pre - post - extra - between, 3)},
            "definition": "measured = sum of tx duration_s (traffic flowing); overhead = "
                          "everything else: setup, rx start, counter reads, ethtool, restore, "
                          "report and plots"}


def interval_info(conf, opts, ab):
    """how the intervals were made and how far they got"""
    widths = sorted(a["ci"][opts["metric"]]["half_pct"] for a in ab
                    if a["ci"][opts["metric"]].get("half_pct") is not None)
    return {"method": "paired t-interval on ln(A/B) per repetition pair, "
                      "exp(mean +- t*sd/sqrt(n))",
            "level": opts["level"], "target_pct": opts["width"],
            "metric": opts["metric"], "min_pairs": opts["min_pairs"],
            "max_reps": opts["max_reps"],
            "budget_s": float(conf["budget"]) if conf.get("budget") else None,
            "stop": conf.get("stop") or None,
            # every pair decided after this many seconds (None: not all
            # were); with after_target "rounds" the rest of the budget went
            # to rounds of every pair
            "target_at_s": float(conf["target_at"]) if conf.get("target_at") else None,
            "after_target": conf.get("after_target") or None,
            "half_pct_all": [round(w, 3) for w in widths],
            "half_pct_median": ab_stats.median(widths),
            "reached": sum(1 for a in ab if a.get("target_reached")),
            "outlier_rule": "modified z-score of ln(A/B) > %.1f (n >= %d, at most "
                            "%d%% of pairs): named and kept in the interval and the "
                            "verdict; the interval without them is ci.robust, which no "
                            "verdict reads" % (ab_stats.OUTLIER_Z, ab_stats.OUTLIER_MIN_N,
                                               100 * ab_stats.OUTLIER_MAX_SHARE),
            "out_of_reach_rule": "from %d pairs on, a pair whose interval needs more pairs "
                                 "(at its sd so far) than max-reps or than the rest of the "
                                 "budget gives it, after the pairs nearer their target, "
                                 "stops early" % ab_stats.REACH_MIN_PAIRS,
            "out_of_reach": sum(1 for a in ab if a["stopped_by"].startswith("out of reach")),
            "disturbed_rule": "steal > %.0f%% of a slice's CPU time (either side "
                              "of a pair)" % (100 * ab_stats.STEAL_MAX),
            "mde": "the smallest true difference whose interval would exclude 1.0 "
                   "with %.0f%% probability: (t_level + t_power) * sd/sqrt(n)"
                   % (100 * ab_stats.POWER)}


def units(cost_label):
    return {"MBps": "2^20 bytes/s", "Mpps": "10^6 datagrams/s",
            "cost_per_GiB": cost_label + " per 2^30 bytes received",
            "cost_per_Mdgram": cost_label + " per 10^6 datagrams received",
            "cpu_*_s": "CPU-seconds from /proc/stat over the tx window, all CPUs",
            "cpu_proc_s": "tx+rx process user+sys (getrusage)",
            "proc_cpu_s_per_GiB": "cpu_proc_s per 2^30 bytes received",
            "cpu_idle_fraction": "idle share of all CPUs over the tx window"}


def whole_or_float(text):
    """run.conf's secs: an int when whole (1), else a float (0.5)."""
    v = float(text)
    return int(v) if v.is_integer() else v


def run_doc(conf, settings, command, cost_label):
    """what results.json says about the run itself"""
    return {
        "schema": SCHEMA, "tool": "udpgso_ab", "method": "slices", "label": conf["label"],
        "preset": conf.get("preset") or None, "command": command,
        "host": conf["host"], "kernel": conf["kernel"], "cpu": conf["cpu"],
        "ncpus": int(conf["ncpus"]), "topology": conf["topology"],
        "dev_tx": conf["dev_tx"], "dev_rx": conf["dev_rx"],
        "settings": {s: conf.get("spec_" + s, "") for s in settings},
        "reps": int(conf["reps"]), "secs": whole_or_float(conf["secs"]), "size": int(conf["size"]),
        "families": [int(f) for f in (conf.get("families") or "4").split()],
        "size_v6": int(conf["size_v6"]) if conf.get("size_v6") else None,
        "segs": int(conf["segs"]),
        "counters_source": conf.get("counters_source") or None,
        "cost_unit": conf.get("cost_unit", "cpu_s"), "cost_label": cost_label,
        "perf_events": conf.get("perf_events") or None,
        "units": units(cost_label)}


CSV_COLS = ["index", "config", "tx_mode", "rx_mode", "setting", "rep", "run_id", "window",
            "method", "status", "duration_s", "tx_bytes", "tx_datagrams", "tx_calls", "tx_MBps",
            "rx_bytes", "rx_datagrams", "rx_reads", "rx_MBps", "rx_Mpps", "rx_datagrams_per_read",
            "lost", "loss_pct", "cpu_busy_s", "cpu_softirq_s", "cpu_proc_s", "cost",
            "cost_per_GiB", "cost_per_Mdgram", "contradictions", "error", "raw_log"]


def write_results(d, res, runs):
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=False)
        f.write("\n")
    with open(os.path.join(d, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLS)
        for r in runs:
            row = dict(r)
            row["contradictions"] = "; ".join(r["contradictions"])
            w.writerow([row.get(c, "") for c in CSV_COLS])


def main(argv=None):
    ap = argparse.ArgumentParser(description="results.json, results.csv, summary.md and "
                                 "plots of an A/B run, from its raw logs")
    ap.add_argument("dir", help="the results directory (run.conf, raw/)")
    ap.add_argument("--pending", action="store_true",
                    help="print the tx/rx pairs whose interval is not yet within target")
    ap.add_argument("--serve", action="store_true",
                    help="answer 'pending [ELAPSED]' lines on stdin until EOF "
                    "(one process for a whole run)")
    ap.add_argument("--elapsed", type=float, metavar="SECS",
                    help="with --pending: seconds of measuring so far (the "
                    "out-of-reach rule against the budget)")
    args = ap.parse_args(argv)
    d = args.dir
    conf = read_conf(os.path.join(d, "run.conf"))
    if args.pending:
        return pending(d, conf, args.elapsed)
    if args.serve:
        return serve(d, conf)
    if conf.get("method") == "inrun":        # ab_inrun.py: windows inside runs
        import ab_inrun
        return ab_inrun.report(d, conf)
    settings = conf["settings"].split()
    runs = [one_run(p, conf) for p in sorted(glob.glob(os.path.join(d, "raw", "*.log")))]
    ab_pairs.mark_runs(runs)
    warm = warmup_runs(d, conf)
    opts = ci_opts(conf)
    configs, ab = aggregate(runs, settings, opts)
    mark_out_of_reach(ab, read_out_of_reach(d))
    across = ab_across.mark(d, conf, ab, opts["metric"])
    cost_label = cost_label_of(conf)
    notes = list(conf["notes"])
    tcp = tcp_note(runs)
    if tcp:
        notes.append(tcp)
    made = make_plots(d, conf, configs, ab, settings, opts, cost_label, notes)
    qsum = ab_queues.summarize(runs)
    if conf.get("plots") == "1" and made:
        made += ab_queues.plot(d, qsum, "where the work went: %s on %s, %s" % (
            conf["label"], conf["host"], conf["kernel"]))
    with open(os.path.join(d, "command")) as f:
        command = f.read().strip()
    res = run_doc(conf, settings, command, cost_label)
    res.update({
        "interval": dict(interval_info(conf, opts, ab), across_runs=across),
        "rate": rate_info(conf),
        "loadavg": ({"start": conf["loadavg_start"], "end": conf.get("loadavg_end")}
                    if conf.get("loadavg_start") else None),
        "pin": {"tx_cpu": conf.get("tx_cpu") or None, "rx_cpu": conf.get("rx_cpu") or None},
        "notes": notes, "timing": timing_of(runs, warm, wall_time(d, conf)), "plots": made,
        "configs": configs, "ab": ab, "runs": runs, "queues": qsum,
        "flows": int(conf.get("flows") or 1),
        "device_options": {k: conf.get(k) or None for k in
                           ("channels", "irq_cpus", "rps", "xps", "flow_hash")},
        "queue_conf": {k: conf.get(k) for k in
                       ("dev_tx", "dev_rx", "flows", "tx_threads", "tx_sockets", "rx_reuseport",
                        "channels", "irq_cpus", "rps", "xps", "flow_hash")},
        "warmup": [{k: r.get(k) for k in ("index", "tx_mode", "rx_mode", "setting", "status",
                                          "rx_MBps", "loss_pct", "raw_log")} for r in warm],
    })
    write_results(d, res, runs)
    write_summary(d, res)


def rate_info(conf):
    """Fixed-rate mode: what was asked, and how it was paced."""
    if not conf.get("rate"):
        return None
    return {"asked": conf["rate"], "a_pct": float(conf.get("rate_a") or 100),
            "pacer": conf.get("pacer"),
            "per_pair_Bps": {k[len("rate_pair."):]: float(v) for k, v in conf.items()
                             if k.startswith("rate_pair.")}}


def write_summary(d, res):
    L = ab_summary.headline(res)
    L.append("## Run: %s" % res["label"])
    L.append("")
    L.append("Command: `%s`" % res["command"])
    L.append("")
    L.append("Host %s, kernel %s, %d x %s; topology %s (%s -> %s)." % (
        res["host"], res["kernel"], res["ncpus"], res["cpu"], res["topology"],
        res["dev_tx"], res["dev_rx"]))
    L.append("Settings: " + "; ".join("%s = `%s`" % (k, v or "as found")
                                    for k, v in res["settings"].items()))
    iv = res["interval"]
    if iv["target_pct"] is None:
        L.append("%d reps x %g s per configuration, datagram size %d, %d per GSO send." % (
            res["reps"], res["secs"], res["size"], res["segs"]))
    else:
        L.append("Slices of %g s, A and B alternating; repeated until the %g%% interval of "
                 "every pair is within ±%g%% (at least %d, at most %d pairs%s); stopped: %s. "
                 "Datagram size %d, %d per GSO send." % (
                     res["secs"], iv["level"], iv["target_pct"], iv["min_pairs"],
                     iv["max_reps"], ", budget %.0f s" % iv["budget_s"] if iv["budget_s"]
                     else "", iv["stop"] or "-", res["size"], res["segs"]))
    if res["timing"].get("warmup_runs"):
        L.append("Warm-up: %d slice(s) (raw/warmup/), run before the measured ones, not "
                 "counted." % res["timing"]["warmup_runs"])
    if res.get("loadavg"):
        L.append("Load average (1, 5, 15 min) at the start %s, at the end %s (%d CPUs): other "
                 "work on the machine." % (res["loadavg"]["start"], res["loadavg"]["end"],
                                           res["ncpus"]))
    if res["pin"]["tx_cpu"] or res["pin"]["rx_cpu"]:
        L.append("Pinned: tx to CPU %s, rx to CPU %s." % (res["pin"]["tx_cpu"] or "-",
                                                          res["pin"]["rx_cpu"] or "-"))
    rt = res.get("rate")
    if rt:
        L.append("Fixed rate: %s (UDP payload; %s)%s; per pair: %s." % (
            rt["asked"], rt["pacer"],
            ", A paced at %g%% of B's rate (a known-effect check)" % rt["a_pct"]
            if rt["a_pct"] != 100 else "",
            ", ".join("%s %.1f MB/s" % (k.replace("/", " -> "), v / MIB)
                      for k, v in sorted(rt["per_pair_Bps"].items()))))
    if res.get("families", [4]) != [4]:
        L.append("Address families: %s." % ", ".join("IPv%d (datagrams of %s bytes)" % (
            f, res["size"] if f == 4 else res.get("size_v6") or res["size"]) for f in res["families"]))
    if res.get("counters_source"):
        L.append("Per-skb counters (raw/*.log `kmod.after`, by side `kmod.after.tx|rx`): %s." %
                 ab_summary.counters_source(res["counters_source"]))
    t = res["timing"]
    L.append("Wall time %.1f s, of which %.1f s measured; overhead %.1f s (%.1f%%)." % (
        t["wall_s"], t["measured_s"], t["overhead_s"], 100 * (t["overhead_fraction"] or 0)))
    b = t["breakdown_s"]
    L.append("Overhead: %.1f s before tx (receiver bound, counters read), %.1f s starting and "
             "ending tx beyond its duration, %.1f s after tx (receiver drained, counters "
             "read), %.1f s between runs (settings applied), %.1f s setup, restore, report "
             "and plots." % (b["before_tx"], b["tx_start_and_exit"], b["after_tx"],
                             b["between_runs"], b["setup_restore_report"]))
    L.append("")
    L.append("MB/s = 2^20 bytes/s received (median [min-max] over the reps); "
             "CPU cost = %s per GiB received and per million datagrams." % res["cost_label"])
    L.append("")
    L.append("proc CPU/GiB = the tools' own user+sys seconds (getrusage) per GiB: it misses "
             "softirq work done outside them but, unlike /proc/stat, not other programs; "
             "idle % = idle share of all CPUs during the tx window (near 0: the machine was "
             "saturated, and the /proc/stat cost includes whatever else ran).")
    L.append("")
    L.append("CPU s/GiB = the tools' own user+sys (getrusage) plus softirq time (/proc/stat, "
             "all CPUs) per GiB received, and the same in µs per datagram: the fixed-rate "
             "headline metric; without IRQ time accounting (this kernel) softirq ticks that "
             "land inside the tools count in both parts, and /proc/stat softirq includes other "
             "programs'. tx/rx CPU % = each tool's own user+sys time over the slice (median; 100 = "
             "one CPU all the time). steal % = the largest steal share of all CPU time in a "
             "slice.")
    L.append("")
    L.append("| tx -> rx | set | ok | rx MB/s | rx Mpps | dgram/read | cost/GiB | cost/Mdgram "
             "| proc CPU/GiB | CPU s/GiB | CPU µs/dgram | tx/rx CPU % | idle % | steal % | loss % "
             "| flags |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in res["configs"]:
        flags = []
        if c["contradictions"]:
            flags.append("%d contradiction(s)" % c["contradictions"])
        if c["failed"]:
            flags.append("%d failed" % c["failed"])
        if c["skipped"]:
            flags.append("skipped: %s" % c.get("note", ""))
        idle = c["cpu_idle_fraction"]
        steal = c["steal_share"]
        loss = c["loss_pct"]
        if res.get("rate") and loss and loss["median"] > 0.1:
            flags.append("loss > 0.1%: above this path's drop point")
        got = c.get("rate_reached")
        if res.get("rate") and got and got["median"] < 0.95:
            flags.append("rate not held: %.0f%% of the paced rate arrived" % (100 * got["median"]))
        shares = "/".join("%.0f" % (100 * c[k]["median"]) if c[k] else "-"
                          for k in ("tx_cpu_share", "rx_cpu_share"))
        L.append("| %s | %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                 "| %s | %s |" % (
            pair_name(c), c["setting"], c["ok"], c["runs"],
            fmt_spread(c["rx_MBps"]), fmt_spread(c["rx_Mpps"], "%.3f"),
            fmt_spread(c["rx_datagrams_per_read"], "%.1f"),
            fmt_spread(c["cost_per_GiB"], "%.2f"), fmt_spread(c["cost_per_Mdgram"], "%.2f"),
            fmt_spread(c["proc_cpu_s_per_GiB"], "%.2f"),
            fmt_spread(c["cpu_cost_per_GiB"], "%.2f"),
            fmt_spread(c["cpu_cost_us_per_dgram"], "%.2f"), shares,
            "%.0f" % (100 * idle["median"]) if idle else "-",
            "%.1f" % (100 * steal["max"]) if steal else "-",
            fmt_spread(c["loss_pct"], "%.1f"), ", ".join(flags)))
    if res["ab"]:
        L.append("")
        L.append("A/B ratios (A / B, paired by repetition: median [min-max]); "
                 "MB/s above 1 means A is faster, cost above 1 means A costs more:")
        L.append("")
        L.append("| tx -> rx | pairs | MB/s A/B | cost/GiB A/B |")
        L.append("|---|---|---|---|")
        for a in res["ab"]:
            L.append("| %s | %d | %s | %s |" % (
                pair_name(a), a["pairs"],
                fmt_spread(a["rx_MBps_ratio"], "%.2f"), fmt_spread(a["cost_per_GiB_ratio"], "%.2f")))
    L.append("")
    L.extend(ab_summary.ci_table(res))
    L.extend(ab_summary.skbc_table(res))
    if res.get("queues"):
        L.append("")
        L.extend(ab_queues.summary_lines(res["queues"], res["queue_conf"]))
    bad = [(r["index"], x) for r in res["runs"] for x in r["contradictions"]]
    if bad:
        L.append("")
        L.append("Counters that contradict the bench's own counts:")
        L.append("")
        for i, x in bad:
            L.append("- run %d (raw/%03d.log): %s" % (i, i, x))
    inc = [r for r in res["runs"] if (r.get("counters") or {}).get("kmod_incomplete")]
    if inc:
        L.append("")
        L.append("Runs whose per-skb counters are incomplete (program runs the kernel skipped, "
                 "GRO marks lost):")
        L.append("")
        for r in inc:
            L.append("- run %d (raw/%03d.log): %s" % (r["index"], r["index"],
                                                      r["counters"]["kmod_incomplete"]))
    errs = [r for r in res["runs"] if r["status"] != "ok"]
    if errs:
        L.append("")
        L.append("Runs that did not complete:")
        L.append("")
        for r in errs:
            L.append("- run %d %s: %s" % (r["index"], r["status"], r.get("error", "")))
    if res["notes"]:
        L.append("")
        L.append("Notes:")
        L.append("")
        for n in res["notes"]:
            L.append("- " + n)
    for p in res["plots"]:
        L.append("")
        L.append("![%s](%s)" % (os.path.basename(p), p))
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
