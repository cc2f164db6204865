#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The output of ab_compare.py: its report (ab_compare.report's dict) as
Markdown and as a plot.  INFO: ab_compare.METRICS, name -> (label, unit, which
way is better, scale) of the metrics the report has."""

import os
import sys
import time


def fmt_change(m):
    if m["verdict"] == "n/a":
        return "n/a"
    u = m["unit"]
    return "%+.1f%s [%+.1f, %+.1f]" % (m["est"], u, m["lo"], m["hi"])


def fmt_val(v):
    if v is None:
        return "-"
    return "%.3g" % v if abs(v) < 100 else "%.0f" % v


def side_words(o):
    runs = o.get("results_dirs") or []
    more = "; %d runs: %s" % (len(runs), ", ".join(os.path.basename(r) for r in runs)) \
        if len(runs) > 1 else ""
    if o.get("method") == "inrun":
        return "in-run, %s%s" % (o["reps"], more)
    return "%s reps x %s s%s" % (o["reps"], o["secs"], more)


def span(t):
    """[first, last] epoch seconds as 'YYYY-MM-DD HH:MM-HH:MM'."""
    a, b = (time.strftime("%Y-%m-%d %H:%M", time.gmtime(x)) for x in t)
    return "%s-%s" % (a, b[11:] if a[:10] == b[:10] else b)


def hours(s):
    """S seconds as 'H h M min'."""
    m = int(round(s / 60.0))
    return "%d h %02d min" % (m // 60, m % 60) if m >= 60 else "%d min" % m


# the between-run term of two runs' own time blocks (compare_levels.between_terms)
BLOCKS = "the variance between 3 time blocks of each run beyond their rounds' spread"


def window_words(b):
    """--between auto: the hours around OLD and NEW its runs were made in
    (compare_runs.near_in_time), or that it took every run of the machine."""
    if not b.get("auto"):
        return ""
    if not b.get("window"):
        if b.get("window_why") == "untimed":
            return ("; every run of this machine: OLD or NEW has no slice times (in-run"
                    " results) to place the hours around them by")
        return ("; every run of this machine: fewer than 3 were made within the hours around"
                " OLD and NEW")
    return "; made within %s UTC, the hours around OLD and NEW%s" % (
        span(b["window"]), ", %d runs of this machine made outside them not used"
        % b["outside_window"] if b.get("outside_window") else "")


def between_words(b, multi):
    """How the headline family's between-run term was estimated."""
    if b:
        ds = b["results_dirs"]
        return ("the larger of the blocks' (" + BLOCKS + ", pooled over the pair's kind) and "
                "the variance of the pair's run means beyond their rounds' spread over the "
                "%d runs of %s (%s to %s%s%s)%s" % (
                    len(ds), "this machine in and below %s (--between auto)" % b["path"]
                    if b.get("auto") else "--between " + b["path"], ds[0][:16], ds[-1][:16],
                    window_words(b),
                    "; %d other results directories not used" % b["other_dirs"]
                    if b["other_dirs"] else "",
                    ", pooled with each side's" if multi else ""))
    return (BLOCKS + "%s, pooled over the pair's kind: it sees the machine's state move "
            "within minutes, not across hours (runs made hours apart: --between DIR, runs of "
            "this machine at other times)" % (" and of each side's run means" if multi else ""))


def made_note(rep, apart):
    """What the made line adds: where the between-run term can fall short."""
    b, a = rep.get("between"), rep.get("between_auto")
    if rep.get("family_kind") != "headline":
        return ""
    if b:
        s = b["made"][1] - b["made"][0] if b.get("made") else 0
        return ("" if apart <= s else
                "; the runs of the between-run term span %s: drift over longer than that is"
                " not in it" % hours(s))
    return ("; the between-run term is from the runs' own minutes: runs made hours apart"
            " need other runs of this machine %s" % (
                "beside them (--between auto found %d of %d in and below %s)" % (
                    a["found"], a["needed"], ", ".join(a["looked_in"])) if a else
                "(make compare BETWEEN=DIR)"))


def markdown(rep, info):
    o, n = rep["old"], rep["new"]
    lvs = rep["levels_used"]
    lv = "-" if not lvs else ("%.3f%%" % (100 * lvs[0]) if len(lvs) == 1 else
                              "%.3f%% to %.3f%%" % (100 * lvs[0], 100 * lvs[-1]))
    L = ["# ab_compare: %s -> %s" % (o["path"], n["path"]), "",
         "- OLD: %s (kernel %s, %s)" % (o["path"], o["kernel"], side_words(o)),
         "- NEW: %s (kernel %s, %s)" % (n["path"], n["kernel"], side_words(n)),
         "- method: %s; interval level used %s (asked %.0f%%)" % (
             rep["method"], lv, 100 * rep["level_requested"]),
         "- rule: %s; threshold %g%% (loss: %g points)" % (
             rep["rule"], rep["threshold_pct"], rep["loss_threshold_pp"]),
         "- errors: %s" % (
             "family-wise, but none of the %d intervals has the repetitions for a verdict at"
             " that level: no verdict (see the notes)" % rep["cells"]
             if rep["family"] and not rep["family_cells"] else
             "family-wise: Holm's correction over the %d of %d intervals whose repetitions can"
             " give a verdict (the strictest at %.3f%%), so the chance of any false verdict in"
             " the table is at most %.0f%%" % (
                 rep["family_cells"], rep["cells"], 100 * rep["level_per_interval"],
                 100 - 100 * rep["level_requested"])
             if rep["family"] else
             "--per-interval, not for the whole table: under no change each interval gives a"
             " false regression with probability at most (1 - level)/2, here at most %.2f"
             " expected over its %d intervals" % (
                 rep["false_regressions_bound"], rep["cells"])),
         "- verdicts: %s" % ", ".join("%d %s" % (c, v) for v, c in sorted(rep["count"].items())),
         ""]
    if o.get("made") and n.get("made"):
        L[-1:-1] = ["- made: OLD %s, NEW %s (UTC; %s apart)%s" % (
            span(o["made"]), span(n["made"]), hours(abs(n["made"][0] - o["made"][1])),
            made_note(rep, abs(n["made"][0] - o["made"][1])))]
    if rep.get("family_kind") == "headline":
        multi = max(len(rep["old"]["results_dirs"]), len(rep["new"]["results_dirs"])) > 1
        L += ["The family: the headline metric of each tx/rx pair (per run, the geometric mean "
              "of its A and B rx MB/s%s; MB/s: the medians of the pair's own; Welch's t over "
              "the rounds with a between-run term: %s, times 1/runs OLD + 1/runs NEW)%s:" % (
                  ", against the other pairs' of its kind (non-GSO UDP, GSO, TCP; all when "
                  "fewer than 2) in the same round" if rep.get("headline_reference") == "kind"
                  else ", against the other pairs' in the same round"
                  if rep.get("headline_levels") == "relative" else "",
                  between_words(rep.get("between"), multi),
                  "; left out of the other pairs' reference, in this order, each called in"
                  " the pass before: %s" %
                  ", ".join(rep["left_out_of_reference"])
                  if rep.get("left_out_of_reference") else ""), "",
              "| tx | rx | runs old/new | MB/s old -> new | change (%) [interval] "
              "| between-run sd (%) | verdict |",
              "|---|---|---|---|---|---|---|"]
        seen = set()
        for p in rep["pairs"]:
            h = p.get("headline")
            if not h or (p["tx_mode"], p["rx_mode"]) in seen:
                continue
            seen.add((p["tx_mode"], p["rx_mode"]))
            v = h.get("verdict", "n/a")
            bsd = h.get("between_run_sd")
            L.append("| %s | %s | %d/%d | %s -> %s | %s | %s | %s |" % (
                p["tx_mode"], p["rx_mode"], h["n_old"], h["n_new"], fmt_val(h["old_median"]),
                fmt_val(h["new_median"]), fmt_change(h) if "est" in h else "-",
                "%.1f" % bsd if bsd is not None else "-",
                "**%s**" % v if v in ("regression", "improvement") else v))
        L += ["", "Every configuration and metric (shown, verdict from its pair's headline):",
              ""]
    mets = rep["metrics"]
    head = ["tx", "rx", "setting", "reps old/new"]
    for name in mets:
        lab, u = info[name][0], info[name][1]
        head += ["%s old -> new" % lab, "%s change (%s) [interval]" % (lab, u)]
    head.append("verdict")
    L += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for p in rep["pairs"]:
        row = [p["tx_mode"], p["rx_mode"], p["setting"], "%d/%d" % (p["runs_old"], p["runs_new"])]
        for name in mets:
            m = p["metrics"].get(name)
            if m is None:
                row += ["-", "-"]
                continue
            row += ["%s -> %s" % (fmt_val(m["old_median"]), fmt_val(m["new_median"])),
                    fmt_change(m) + ("" if m["verdict"] in ("within noise", "n/a")
                                     else " **%s**" % m["verdict"])]
        v = p["verdict"]
        row.append("**%s**" % v if v in ("regression", "improvement") else v)
        L.append("| " + " | ".join(row) + " |")
    # one line per distinct note, naming where it applies
    notes = {}
    for p in rep["pairs"]:
        where = "%s/%s %s" % (p["tx_mode"], p["rx_mode"], p["setting"])
        if p.get("note"):
            notes.setdefault(p["note"], []).append(where)
        for m in p["metrics"].values():
            if m.get("note"):
                notes.setdefault(m["note"], []).append("%s %s" % (where, m["metric"]))
    if notes:
        L += ["", "Notes:"]
        for t, ws in notes.items():
            L.append("- %s: %s" % (", ".join(ws) if len(ws) <= 3 else
                                   "%d intervals (%s, ...)" % (len(ws), ", ".join(ws[:2])), t))
    L += ["", "Medians per side; the change is NEW against OLD (negative throughput = slower,"
          " positive cost = dearer); docs/compare.md explains the method."]
    return "\n".join(L) + "\n"


def plot(rep, fn, info):
    """The change per configuration with its interval, one panel per metric;
    returns a reason when no plot was made."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return "matplotlib not importable by %s (%s)" % (sys.executable, e)
    mets, pairs = rep["metrics"], rep["pairs"]
    colors = {"regression": "tab:red", "improvement": "tab:green", "within noise": "tab:gray"}
    fig, axes = plt.subplots(1, len(mets), figsize=(4.2 * len(mets), 0.9 + 0.32 * len(pairs)),
                             sharey=True, squeeze=False)
    ys = list(range(len(pairs)))[::-1]
    for ax, name in zip(axes[0], mets):
        lab, u, _, scale = info[name]
        thr = rep["threshold_pct"] if scale == "ratio" else rep["loss_threshold_pp"]
        ax.axvspan(-thr, thr, color="0.92")
        ax.axvline(0, color="0.5", lw=0.8)
        for y, p in zip(ys, pairs):
            m = p["metrics"].get(name)
            if not m or "est" not in m:
                continue
            ax.errorbar([m["est"]], [y], xerr=[[m["est"] - m["lo"]], [m["hi"] - m["est"]]],
                        fmt="o", ms=4, capsize=3, color=colors.get(m["verdict"], "k"))
        ax.set_title(lab)
        ax.set_xlabel("change (%s), NEW vs OLD" % u)
    axes[0][0].set_yticks(ys)
    axes[0][0].set_yticklabels(["%s/%s %s" % (p["tx_mode"], p["rx_mode"], p["setting"])
                                for p in pairs], fontsize=8)
    fig.suptitle("%s -> %s (band: threshold; bars: interval)" % (
        os.path.basename(os.path.normpath(rep["old"]["path"])),
        os.path.basename(os.path.normpath(rep["new"]["path"]))), fontsize=9)
    fig.tight_layout()
    fig.savefig(fn, dpi=90)
    plt.close(fig)
    return None
