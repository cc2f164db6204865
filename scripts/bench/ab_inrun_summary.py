# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: summary.md of an in-run A/B (ab_inrun.py report)."""

import statistics

from ab_rawlog import pair_name

# the per-skb counters shown per side (results.json windows[] has them all)
SKBC_SHOW = {"tx": ("tx_skbs", "tx_gso_udp_l4_skbs", "tx_gso_segs", "tx_sw_segments"),
             "rx": ("rx_gro_in", "rx_skbs", "rx_gso_skbs", "rx_gro_coalesced_segs")}


def pct(x):
    return "±%.1f%%" % x if x is not None else "-"


def settle(p):
    """The settle time used, and the measured one when it was capped."""
    m = p.get("settle_measured_ms")
    if m is not None and m > p["settle_ms"]:
        return "%d (measured %d: capped)" % (p["settle_ms"], m)
    return "%d" % p["settle_ms"]


def pair_line(p, n):
    where = pair_name(p)
    ci = p["ci"]
    if ci is None:
        return "- %s [inrun]: no interval (%d run(s) with window pairs; 2 needed)" % (
            where, p["runs_used"])
    rng = "A/B %.3f, %g%% interval %.3f-%.3f, %s, %d runs, %d window pairs" % (
        ci["ratio"], ci["level"], ci["lo"], ci["hi"], pct(ci["half_pct"]), ci["n_runs"],
        ci["windows"])
    if ci.get("varies"):
        rng += "; the effect **%s** (F-test p = %.2g: more than the within-run noise " \
               "explains; the interval covers that spread)" % (ci["spread_words"], ci["hetero_p"])
    if not ci["target_met"]:
        rng += "; target not reached (~%s runs needed)" % (
            ci["runs_needed"] if ci["runs_needed"] <= 200 else "over 200")
    if ci["real"]:
        r = ci["ratio"]
        side = "A" if r > 1 else "B"
        f = r if r >= 1 else 1 / r
        by = "%.2fx" % f if f >= 1.5 else "%.1f%%" % (100 * (f - 1))
        return ("- %s [inrun]: **%s is faster by %s** (%s) — real (Holm over %d pairs, "
                "p = %.2g)" % (where, side, by, rng, n, ci["p"]))
    if ci["excludes_1"]:
        return ("- %s [inrun]: **not shown** (%s) — excludes 1.0 but p = %.2g fails Holm "
                "over %d" % (where, rng, ci["p"], n))
    return "- %s [inrun]: **no difference shown** (%s)" % (where, rng)


def summary(res):
    ab = res["ab"]
    iv = res["interval"]
    L = ["# A/B (in-run): A = `%s` vs B = `%s`" % (res["settings"]["A"] or "as found",
                                                    res["settings"]["B"] or "as found"), ""]
    L.append("Method per pair: `inrun` = A and B switched (ethtool -K) inside one sender and "
             "one receiver, in windows after a measured settle time; rx MB/s from the "
             "receiving device's byte counter. Interval: %g%% t-interval over **runs** (each "
             "run one estimate: the mean ln(A/B) of its window pairs), never over windows; "
             "\"real\" = excludes 1.0 and passes Holm over the %d pairs." % (iv["level"], len(ab)))
    L.append("")
    for p in ab:
        L.append(pair_line(p, len(ab)))
    L.append("")
    hw = [p["ci"]["half_pct"] for p in ab if p["ci"]]
    if hw:
        got = sum(1 for p in ab if p["ci"] and p["ci"]["target_met"])
        L.append("Half-widths: best ±%.1f%%, median ±%.1f%%, worst ±%.1f%%; target ±%g%% "
                 "reached in %d of %d pairs; %d runs in all; stopped by %s; wall %s s; load "
                 "%s -> %s." % (min(hw), statistics.median(hw), max(hw), iv["target_pct"], got,
                                len(ab), len({(r["run_id"]) for r in res["runs"]}),
                                iv.get("stop"), res.get("wall_s"), res["loadavg"]["start"],
                                res["loadavg"]["end"]))
        L.append("")
    L += ["| tx -> rx | method | A/B | interval | ± | runs | windows/run | sd run | "
          "var within | var between | K&J windows/run | settle ms (windows whose last 100 ms "
          "before them was within their noise) | per-run A/B |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in ab:
        c = p["ci"]
        if c is None:
            L.append("| %s | inrun | - | - | - | %d | - | - | - | - | - | %s | - |" % (
                pair_name(p), p["runs"], settle(p)))
            continue
        L.append("| %s | inrun | %.3f | %.3f-%.3f | %s | %d | %s | %.2f%% | %s | %s | "
                 "%s | %s (%d/%d) | %s |" % (
                     pair_name(p), c["ratio"], c["lo"], c["hi"], pct(c["half_pct"]),
                     c["n_runs"], ",".join(str(x) for x in sorted(set(p["window_pairs_per_run"]))),
                     100 * c["sd_run"],
                     "%.2g" % c["var_within"] if c["var_within"] is not None else "-",
                     "%.2g" % c["var_between"] if c["var_between"] is not None else "-",
                     c["optimal_window_pairs"] or "-", settle(p), p["settle_held"][0],
                     p["settle_held"][1], " ".join("%.3f" % x for x in c["run_ratios"])))
    L.append("")
    L.append("Secondary metric, rx MB per CPU-second of the two tools (schedstat; what the "
             "path costs, whatever share of the CPU the host left them): A/B per pair, "
             "interval over runs:")
    L.append("")
    for p in ab:
        c = p.get("ci_MB_per_tool_cpu_s")
        if c:
            L.append("- %s: %.3f [%.3f-%.3f] %s, %d runs%s" % (
                pair_name(p), c["ratio"], c["lo"], c["hi"], pct(c["half_pct"]),
                c["n_runs"], "; varied between runs" if c["varies"] else ""))
    st = sum(len(p.get("starved_window_pairs") or []) for p in ab)
    if st:
        L.append("")
        L.append("Left out: %d window pair(s) in which the sender waited on the run queue "
                 "for over 90%% of a window (the host's scheduler, not the path)." % st)
    L += skbc_table(res)
    L.append("")
    L.append("Command: `%s`  " % res["command"])
    L.append("Host %s, kernel %s, %d CPUs; per-skb counters: %s." % (
        res["host"], res["kernel"], res["ncpus"], res.get("counters_source")))
    for n in res.get("notes") or []:
        L.append("- note: %s" % n)
    L.append("")
    return "\n".join(L)


def skbc_table(res):
    """Medians per window of the per-skb counters by side (the sending and
    the receiving host), per pair and setting, where the windows have them."""
    rows = []
    sides = ("tx", "rx")
    for p in res["ab"]:
        for st in ("A", "B"):
            ws = [w for w in res["windows"] if w["setting"] == st and
                  (w["tx_mode"], w["rx_mode"], w.get("family", 4)) ==
                  (p["tx_mode"], p["rx_mode"], p.get("family", 4))]
            cells = []
            for side in sides:
                ks = [w.get("counters_" + side, w.get("counters")) for w in ws]
                ks = [k for k in ks if k is not None]
                for n in SKBC_SHOW[side]:
                    v = sorted(k.get(n, 0) for k in ks)
                    cells.append("%d" % v[len(v) // 2] if v else "-")
            if any(x != "-" for x in cells):
                rows.append("| %s | %s | %s |" % (pair_name(p), st, " | ".join(cells)))
    if not rows:
        return []
    shared = any("counters" in w for w in res["windows"])
    head = ["sender: " + n for n in SKBC_SHOW["tx"]] + ["receiver: " + n for n in SKBC_SHOW["rx"]]
    return (["", "Per-skb counters by side, median per window (raw/inrun/*.log `ctr ... tx|rx`; "
             "results.json windows[].counters_tx, counters_rx%s):" % (
                 "; one kernel's module read once for both sides" if shared else ""), "",
             "| tx -> rx | set | " + " | ".join(head) + " |",
             "|---|---|" + "---|" * len(head)] + rows)
