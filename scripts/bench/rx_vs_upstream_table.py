#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of rx_vs_upstream.sh from its runs.csv: per receive mode the
median MB/s of each receiver and its MB per receiver CPU second, and for
every receiver but upstream's the median of its per-repetition ratios
against upstream (the receivers of one repetition and mode ran back to
back, so they share the machine's load)."""
import argparse
import csv
import statistics as st


def get(rows, mode, tool, key):
    """{rep: value} of KEY for one mode and tool"""
    return {r['rep']: float(r[key]) for r in rows
            if r['mode'] == mode and r['tool'] == tool and r[key] != '-'}


def eff(rows, mode, tool, secs):
    """{rep: MB received per receiver CPU second over the run}"""
    a, c = get(rows, mode, tool, 'rx_MBps'), get(rows, mode, tool, 'cpu_s')
    return {k: a[k] * secs / c[k] for k in a if c.get(k)}


def table(rows, secs):
    """the lines of table.txt"""
    tools = list(dict.fromkeys(r['tool'] for r in rows))
    modes = list(dict.fromkeys(r['mode'] for r in rows))
    others = [t for t in tools if t != 'upstream']
    out = ["MB/s: median over reps of the receiver's per-second lines; MB/cpu-s: MB received per",
           "receiver CPU second; x: the median of the per-repetition ratios against upstream"]
    hdr = ['mode', 'up MB/s', 'up MB/cpu-s']
    for t in others:
        hdr += [t + ' MB/s', 'x', t + ' MB/cpu-s', 'x']
    out.append(' | '.join(hdr))
    for m in modes:
        u, ue = get(rows, m, 'upstream', 'rx_MBps'), eff(rows, m, 'upstream', secs)
        row = [m, '%.0f' % st.median(u.values()) if u else '-',
               '%.0f' % st.median(ue.values()) if ue else '-']
        for t in others:
            for a, b in ((get(rows, m, t, 'rx_MBps'), u), (eff(rows, m, t, secs), ue)):
                q = [a[k] / b[k] for k in a if b.get(k)]
                row += ['%.0f' % st.median(a.values()) if a else '-',
                        '%.2fx' % st.median(q) if q else '-']
        out.append(' | '.join(row))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('runs_csv', help="rx_vs_upstream.sh's runs.csv")
    ap.add_argument('secs', type=float, help='the length of each run (-l)')
    a = ap.parse_args()
    with open(a.runs_csv) as f:
        rows = [r for r in csv.DictReader(f) if r['rx_MBps'] != '-']
    print('\n'.join(table(rows, a.secs)))


if __name__ == '__main__':
    main()
