# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the parts of summary.md that read the A/B intervals: the
headline a person can act on (first in the file) and the interval table."""
import time

import ab_across
import ab_pairs
import ab_stats
from ab_rawlog import pair_name

METRIC = {
    "rx_MBps": ("rx MB/s", True, "faster"),
    "cpu_cost_per_GiB": ("CPU cost per GiB (tools' rusage + softirq)", False, "cheaper"),
}


def fmt_ratio(x):
    return "-" if x is None else "%.3f" % x


def fmt_pct(x):
    return "-" if x is None else "±%.1f%%" % x


def pair_line(a, n_pairs):
    """One headline bullet for one tx -> rx pair."""
    metric = a["ci_metric"]
    name, higher, better_word = METRIC[metric]
    iv = a["ci"][metric]
    where = pair_name(a) + " [slices]"
    if iv.get("ratio") is None:
        return "- %s: no interval (%d usable pairs)" % (where, iv.get("n", 0))
    side, factor, real = ab_stats.verdict(iv, higher)
    rng = "A/B %.3f, %g%% interval %.3f-%.3f, %s, %d pairs%s" % (
        iv["ratio"], iv["level"], iv["lo"], iv["hi"], fmt_pct(iv["half_pct"]), iv["n"],
        ab_pairs.short_range(a))
    if a.get("target_reached") is False:
        rng += ", target not reached (%s)" % a["stopped_by"]
    rng += ab_across.words(iv)
    x = iv.get("across_runs") or {}
    if real and x.get("real") is False:
        return ("- %s: **not shown across runs** (%s) — this run's own interval excludes 1.0 "
                "and passes Holm, but with the between-run term (p = %.3g) the correction for "
                "%d pairs does not pass: within one run its slice pairs share the run's "
                "states; treat as no difference" % (where, rng, x["p"], n_pairs))
    if iv["excludes_1"] and not real:
        return ("- %s: **not shown** (%s) — the interval excludes 1.0, but p = %.3g does not "
                "pass the correction for %d pairs (Holm): treat as no difference" % (
                    where, rng, iv["p"], n_pairs))
    if real:
        pct = 100.0 * (factor - 1.0)
        by = ("%.2fx" % factor) if factor >= 1.5 else ("%.1f%%" % pct)
        return ("- %s: **%s is %s by %s** (%s) — real: the interval excludes 1.0 and "
                "%s passes the correction for %d pairs" % (
                    where, side, better_word, by, rng, fmt_p(iv["p"]), n_pairs))
    return ("- %s: **no difference shown** (%s) — the interval includes 1.0; a difference "
            "below %.1f%% could not have been seen" % (where, rng, iv["mde_pct"]))


def across_note(x, least):
    """What the "across runs" clauses of the verdicts stand on (X: the
    report's interval.across_runs, ab_across.mark)."""
    if x is None:
        return ("Across runs: not computed (a run reported before 2026-11-28 session 20).")
    n = x["runs"]
    if n < least:
        return ("Across runs: %d other run(s) of this machine and matrix in and below the "
                "directory that holds this one, fewer than %d: each interval is about this "
                "run's own minutes, and the next run's effect may fall outside it (on the "
                "VM of results/across-2026-11-28 a GSO pair's A/B moved between runs by a "
                "between-run sd of 3-6%%); its calls are honest per pair, not per run (on "
                "the Intel A/A campaign ab-campaign-2026-11-28h 3 of 20 runs called a pair "
                "whose A and B were the same; with %d other runs the verdicts also need the "
                "interval across them: 1 of 20)." % (n, least, least))
    when = ""
    if x.get("first") is not None and x.get("last") is not None:
        when = ", made from %s to %s UTC" % tuple(
            time.strftime("%Y-%m-%d %H:%M", time.gmtime(t)) for t in (x["first"], x["last"]))
    return ("Across runs: each verdict also says how far its A/B varied over the %d other runs "
            "of this machine and matrix in and below the directory that holds this one%s, and "
            "gives an interval across them (between-run variance over runs, each run one value: "
            "where the next run's effect may fall, not only this run's states)%s." % (
                n, when, code_words(x)))


def code_words(x):
    """Which code made the other runs (ab_across.mark's tools, same_tools)."""
    if not x.get("tools"):
        return ""
    k = x.get("same_tools", 0)
    return ("; %d of them by the same tools' sources as this one (run.conf tools=%s), %d by "
            "other or unrecorded ones: where those differ, code and state are mixed in the "
            "spread" % (k, x["tools"], x["runs"] - k))


def fmt_p(p):
    """'p = 2.1e-07'; a p below what a double's t tail holds (it reads 0) as
    'p < 1e-16', never 'p = 0'."""
    return "p < 1e-16" if p < 1e-16 else "p = %.2g" % p


def headline(res):
    """The lines summary.md starts with."""
    ab = res.get("ab") or []
    s = res["settings"]
    L = []
    if not ab:
        L.append("# udpgso run: %s (one setting, no A/B)" % res["label"])
        L.append("")
        return L
    metric = ab[0]["ci_metric"]
    name = METRIC[metric][0]
    L.append("# A/B: A = `%s` vs B = `%s`" % (s.get("A") or "as found", s.get("B") or "as found"))
    L.append("")
    ci = res["interval"]
    L.append("Compared by %s%s, %g%% paired t-intervals of A/B per tx -> rx pair; \"real\" "
             "= the interval excludes 1.0 and the paired t-test passes Holm's correction over "
             "the %d pairs (family-wise error %g%%), and, with %d or more other runs of this "
             "machine and matrix, so does the interval with the between-run term (one run's "
             "own is honest per pair, not per run); \"N pairs ranging X-Y\" = the lowest and "
             "highest A/B of the slice pairs, each taken in its round's machine state:" % (
                 name, " at a fixed offered rate" if res.get("rate") else "", ci["level"],
                 len(ab), 100 - ci["level"], ab_across.MIN_OTHERS))
    L.append("")
    for a in ab:
        L.append(pair_line(a, len(ab)))
    L.append("")
    widths = [(a["ci"][metric]["half_pct"], pair_name(a))
              for a in ab if a["ci"][metric].get("half_pct") is not None]
    if widths:
        med = ab_stats.median([w for w, _ in widths])
        worst = max(widths)
        line = "Interval half-widths: best ±%.1f%%, median ±%.1f%%, worst ±%.1f%% (%s)" % (
            min(widths)[0], med, worst[0], worst[1])
        if ci["target_pct"] is not None:
            got = sum(1 for a in ab if a["target_reached"])
            line += "; target ±%g%% reached in %d of %d" % (ci["target_pct"], got, len(ab))
            short = ["%s (%s)" % (pair_name(a), a["stopped_by"])
                     for a in ab if not a["target_reached"]]
            if short:
                line += "; stopped short: " + ", ".join(short)
            if ci.get("target_at_s") is not None and ci.get("after_target") == "rounds":
                line += " (every pair decided after %.0f s; the budget left went to more " \
                        "rounds of every pair, for make compare)" % ci["target_at_s"]
        t = res["timing"]
        L.append(line + ". Wall time %.0f s%s." % (
            t["wall_s"], " (budget %.0f s of measuring)" % ci["budget_s"] if ci["budget_s"]
            else ""))
        L.append("")
        L.append(across_note(ci.get("across_runs"), ab_across.MIN_OTHERS))
        L.append("")
    dist = sum(len(a["ci"][metric]["disturbed"]) for a in ab)
    outl = sum(len(a["ci"][metric]["outliers"]) for a in ab)
    if dist:
        L.append("Left out of the intervals: %d pair(s) disturbed by steal time (rule in "
                 "results.json `interval`)." % dist)
        L.append("")
    if outl:
        L.append("Outliers: %d pair(s), named in the table and kept in the intervals and "
                 "the verdicts; without them: %s." % (outl, "; ".join(
                     "%s %s" % (pair_name(a), fmt_robust(a["ci"][metric]["robust"]))
                     for a in ab if a["ci"][metric].get("robust"))))
        L.append("")
    return L


def fmt_robust(rob):
    """The interval without the outliers, as shown beside the verdict."""
    return "A/B %.3f [%.3f-%.3f] (%d pairs, p = %.2g; not a verdict)" % (
        rob["ratio"], rob["lo"], rob["hi"], rob["n"], rob["p"])


def ci_table(res):
    """The per-pair interval table."""
    ab = res.get("ab") or []
    if not ab:
        return []
    ci = res["interval"]
    L = ["Intervals (%g%% paired t on ln(A/B); ±%% = half-width; MDE = the smallest "
         "difference the run could have seen, at %.0f%% power; pairs used / reps taken; "
         "outliers: named, kept in the interval; "
         "target %s):" % (ci["level"], 100 * ab_stats.POWER,
                          "±%g%%" % ci["target_pct"] if ci["target_pct"] is not None
                          else "none (fixed -n)"), "",
         "| tx -> rx | metric | A/B | interval | ± | MDE | pairs/reps | outliers | disturbed "
         "| target | stopped by |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for a in ab:
        for metric in ("rx_MBps", "cpu_cost_per_GiB"):
            iv = a["ci"][metric]
            mark = " (headline)" if metric == a["ci_metric"] else ""
            L.append("| %s | %s%s | %s | %s-%s | %s | %s | %d/%d | %s | %s | %s | %s |" % (
                pair_name(a), METRIC[metric][0], mark, fmt_ratio(iv["ratio"]),
                fmt_ratio(iv["lo"]), fmt_ratio(iv["hi"]), fmt_pct(iv["half_pct"]),
                fmt_pct(iv["mde_pct"]), iv["n"], a["reps_taken"],
                ",".join(str(r) for r in iv["outliers"]) or "-",
                ",".join(str(r) for r in iv["disturbed"]) or "-",
                "-" if a["target_reached"] is None or metric != a["ci_metric"]
                else ("yes" if a["target_reached"] else "no"),
                a["stopped_by"] if metric == a["ci_metric"] else ""))
    L.append("")
    return L


SRC_NAMES = {"kmod": "the module (kmod/)", "bpf": "BPF (udpgso_stats, bpf/)", "none": "none read"}
# the per-skb counters summary.md shows per side (results.json has them all)
SKBC_SHOW = {"tx": ("tx_skbs", "tx_gso_udp_l4_skbs", "tx_gso_segs", "tx_sw_segments"),
             "rx": ("rx_gro_in", "rx_skbs", "rx_gso_skbs", "rx_gro_coalesced_segs")}


def counters_source(src):
    """run.conf's counters_source: 'kmod', 'bpf', 'none' (one kernel, read
    once) or 'tx:SRC,rx:SRC' (each host its own)."""
    if ":" not in src:
        return SRC_NAMES.get(src, src)
    sides = dict(p.split(":", 1) for p in src.split(","))
    return "; ".join("%s side (%s host): %s" % (
        s, "sending" if s == "tx" else "receiving", SRC_NAMES.get(v, v))
        for s, v in sorted(sides.items(), reverse=True))


def skbc_table(res):
    """Medians per configuration of the per-skb counters, by side (the
    sender's and the receiver's host), where the runs have them."""
    rows = []
    for c in res["configs"]:
        rs = [r for r in res["runs"] if r.get("status") == "ok" and r["config"] == c["config"]]
        cells = []
        for side in ("tx", "rx"):
            ks = [r["counters"].get("kmod_" + side) for r in rs]
            ks = [k for k in ks if k is not None]
            for n in SKBC_SHOW[side]:
                v = sorted(k.get(n, 0) for k in ks)
                cells.append("%d" % v[len(v) // 2] if v else "-")
        if any(x != "-" for x in cells):
            rows.append("| %s | %s | %s |" % (pair_name(c), c["setting"], " | ".join(cells)))
    if not rows:
        return []
    head = ["sender: " + n for n in SKBC_SHOW["tx"]] + ["receiver: " + n for n in SKBC_SHOW["rx"]]
    return (["", "Per-skb counters by side, median per slice (raw/*.log `kmod.after.tx`, "
             "`kmod.after.rx`; results.json runs[].counters.kmod_tx, kmod_rx):", "",
             "| tx -> rx | set | " + " | ".join(head) + " |",
             "|---|---|" + "---|" * len(head)] + rows)
