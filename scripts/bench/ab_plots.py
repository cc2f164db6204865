# SPDX-License-Identifier: GPL-2.0
"""udpgso-lab: the plots of an A/B run that read the intervals (matplotlib,
Agg backend; the caller has checked that it imports):
  plots/throughput_cost.png  rx MB/s beside CPU cost per GiB, A and B per pair
  plots/ab_ratio.png         A/B per pair with its interval, both metrics"""
import os

from ab_rawlog import pair_name


def _pairs(items):
    out = []
    for c in items:
        p = pair_name(c, "\n-> ")
        if p not in out:
            out.append(p)
    return out


def throughput_cost(plt, d, configs, settings, label):
    pairs = _pairs(configs)
    fig, axes = plt.subplots(1, 2, figsize=(max(12, 1.6 * len(pairs) + 4), 5))
    w = 0.8 / len(settings)
    for ax, field, title, logy in (
            (axes[0], "rx_MBps", "received MB/s (2^20 B/s)", True),
            (axes[1], "cpu_cost_per_GiB", "CPU s per GiB: tools' rusage + softirq", False)):
        for si, s in enumerate(settings):
            xs, ys, lo, hi = [], [], [], []
            for c in configs:
                v = c.get(field)
                if c["setting"] != s or not v:
                    continue
                p = pair_name(c, "\n-> ")
                xs.append(pairs.index(p) + (si - (len(settings) - 1) / 2.0) * w)
                ys.append(v["median"])
                lo.append(v["median"] - v["min"])
                hi.append(v["max"] - v["median"])
            ax.bar(xs, ys, w, yerr=[lo, hi], capsize=3, label=s)
        ax.set_xticks(range(len(pairs)))
        ax.set_xticklabels(pairs, fontsize=7)
        ax.set_title(title + ", median with min-max", fontsize=9)
        if logy:
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(label, fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "plots", "throughput_cost.png"))
    plt.close(fig)
    return os.path.join("plots", "throughput_cost.png")


def ab_ratio(plt, d, ab, label, opts):
    pairs = _pairs(ab)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(pairs) + 3), 5))
    for k, (metric, name) in enumerate((("rx_MBps", "rx MB/s"),
                                        ("cpu_cost_per_GiB", "CPU s/GiB"))):
        xs, ys, lo, hi = [], [], [], []
        for i, a in enumerate(ab):
            iv = a["ci"][metric]
            if iv.get("ratio") is None:
                continue
            xs.append(i + (k - 0.5) * 0.3)
            ys.append(iv["ratio"])
            lo.append(iv["ratio"] - iv["lo"])
            hi.append(iv["hi"] - iv["ratio"])
        head = " (headline)" if metric == opts["metric"] else ""
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=4, label=name + head)
    # a hopeless interval (a busy machine, 2 pairs) would squash the rest
    ylo, yhi = ax.get_ylim() if ax.has_data() else (0.5, 2.0)
    ax.set_yscale("log")
    ax.set_ylim(max(ylo, 0.05), min(yhi, 20.0))
    ax.axhline(1.0, color="grey", lw=1)
    if opts["width"] is not None:
        for y in (1 + opts["width"] / 100.0, 1 / (1 + opts["width"] / 100.0)):
            ax.axhline(y, color="grey", lw=0.5, ls=":")
    ax.set_xticks(range(len(pairs)))
    ax.set_xticklabels(pairs, fontsize=7)
    ax.set_title("%s\nA/B with %g%% paired t-interval (dotted: the ±%s target; "
                 "the axis stops at 0.05 and 20)" % (
        label, opts["level"], "%g%%" % opts["width"] if opts["width"] else "-"), fontsize=9)
    ax.grid(axis="y", alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "plots", "ab_ratio.png"))
    plt.close(fig)
    return os.path.join("plots", "ab_ratio.png")


def plots(d, configs, ab, settings, label, opts):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(os.path.join(d, "plots"), exist_ok=True)
    made = [throughput_cost(plt, d, configs, settings, label)]
    if ab:
        made.append(ab_ratio(plt, d, ab, label, opts))
    return made
