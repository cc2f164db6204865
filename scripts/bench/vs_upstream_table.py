#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of bench_vs_upstream.sh from its runs.csv: medians per tool,
their ratio, and the median of the per-repetition ratios (ours and the
other tool's runs of one repetition are neighbours in time, so they share
the machine's load).  The other tool is upstream's sender, or with
bench_vs_upstream.sh -B another build of ours ("base")."""
import argparse
import csv
import statistics


def load(path, secs):
    """the rows of runs.csv, each with 'eff': MB sent per CPU second of the
    sender (user + sys), '-' when the run failed"""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        ok = r['rc'] == '0' and r['tx_MBps'] != '-' and float(r['tx_cpu_s'] or 0) > 0
        r['eff'] = '%.1f' % (float(r['tx_MBps']) * secs / float(r['tx_cpu_s'])) if ok else '-'
    return rows


class Table:
    """the figures of one runs.csv; OTHER is the tool compared with ours"""

    def __init__(self, rows, other):
        self.rows, self.other = rows, other

    def vals(self, mode, fam, tool, key):
        return {r['rep']: float(r[key]) for r in self.rows
                if r['mode'] == mode and r['family'] == fam and r['tool'] == tool
                and r[key] != '-' and r['rc'] == '0'}

    def med(self, mode, fam, tool, key):
        v = list(self.vals(mode, fam, tool, key).values())
        return (statistics.median(v), len(v)) if v else (None, 0)

    def ratios(self, mode, fam, key):
        a = self.vals(mode, fam, 'ours', key)
        b = self.vals(mode, fam, self.other, key)
        return [a[k] / b[k] for k in a if k in b and b[k] > 0]

    def paired(self, mode, fam, key):
        q = self.ratios(mode, fam, key)
        return '%.2fx' % statistics.median(q) if q else '-'

    def spread(self, mode, fam, key):
        """the per-repetition ratios' range, how many of them favour ours"""
        q = self.ratios(mode, fam, key)
        if not q:
            return '-', '-'
        return ('%.2f-%.2f' % (min(q), max(q)), '%d/%d' % (sum(x > 1 for x in q), len(q)))


def fmt(x):
    return '-' if x is None else '%.0f' % x


def ratio(a, b):
    return '-' if a is None or not b else '%.2fx' % (a / b)


def head(reps, secs, other):
    up = 'upstream' if other == 'upstream' else other
    print('Medians of %s runs of %ss (n = runs that exited 0, ours/%s).' % (reps, secs, up))
    if other == 'upstream':
        print("tx: the sender's MB/s (2^20 B/s, its per-second lines); rx: MB/s delivered to")
    else:
        print("%s: the other build of our sender (bench_vs_upstream.sh -B)." % other)
        print("tx: the sender's MB/s (2^20 B/s, its per-second lines); rx: MB/s delivered to")
    print("upstream's udpgso_bench_rx; /cpu: MB sent per CPU second (user+sys) of the sender.")
    print('ratio: of the medians; paired: median of the per-repetition ratios (ours/%s' % up)
    print('tx runs next to each other in time), their range, and in how many ours was faster.')
    print()


def main_table(t, modes, fams, beyond):
    """ours against the other tool per mode; returns the other's best UDP
    mode per family (for the table of modes beyond upstream's)"""
    o = t.other
    hdr = '%-16s %-4s %7s %7s %6s %6s %11s %5s  %7s %7s %6s  %7s %7s %6s %6s  %s' % (
        'mode', 'fam', 'ours tx', 'up tx' if o == 'upstream' else o[:4] + ' tx',
        'ratio', 'paired', 'range', 'ours>', 'ours rx',
        'up rx' if o == 'upstream' else o[:4] + ' rx', 'ratio', 'ours/cpu',
        'up/cpu' if o == 'upstream' else o[:4] + '/cpu', 'ratio', 'paired', 'n')
    print(hdr)
    print('-' * len(hdr))
    best = {}
    for fam in fams:
        for m in modes:
            ot, on = t.med(m, fam, 'ours', 'tx_MBps')
            ut, un = t.med(m, fam, o, 'tx_MBps')
            orx, _ = t.med(m, fam, 'ours', 'rx_MBps')
            urx, _ = t.med(m, fam, o, 'rx_MBps')
            oe, _ = t.med(m, fam, 'ours', 'eff')
            ue, _ = t.med(m, fam, o, 'eff')
            rng, wins = t.spread(m, fam, 'tx_MBps')
            print('%-16s %-4s %7s %7s %6s %6s %11s %5s  %7s %7s %6s  %8s %7s %6s %6s  %d/%d' % (
                m, fam.replace('ipv', 'v'), fmt(ot), fmt(ut), ratio(ot, ut),
                t.paired(m, fam, 'tx_MBps'), rng, wins, fmt(orx), fmt(urx), ratio(orx, urx),
                fmt(oe), fmt(ue), ratio(oe, ue), t.paired(m, fam, 'eff'), on, un))
            if ut is not None and m.startswith('udp') and m not in beyond:
                if fam not in best or ut > best[fam][1]:
                    best[fam] = (m, ut, ue)
    return best


def beyond_table(t, fams, beyond, best):
    """our modes that upstream lacks against upstream's best UDP mode"""
    print()
    print("Beyond upstream's udpgso_bench.sh (sendmmsg + GSO; a UDP_GRO receiver), ours,")
    print("against upstream's best udpgso_bench.sh UDP mode (fastest upstream tx of: udp,")
    print("udp -m, udp -S 0, udp -S 0 -z; same family)")
    print()
    hdr = '%-20s %-4s %7s %7s %8s  %-16s %7s %8s %6s %6s' % (
        'mode', 'fam', 'ours tx', 'ours rx', 'ours/cpu', 'upstream best', 'up tx', 'up/cpu',
        'tx', '/cpu')
    print(hdr)
    print('-' * len(hdr))
    for fam in fams:
        for m in beyond:
            ot, _ = t.med(m, fam, 'ours', 'tx_MBps')
            orx, _ = t.med(m, fam, 'ours', 'rx_MBps')
            oe, _ = t.med(m, fam, 'ours', 'eff')
            bm, bv, be = best.get(fam, ('-', None, None))
            print('%-20s %-4s %7s %7s %8s  %-16s %7s %8s %6s %6s' % (
                m, fam.replace('ipv', 'v'), fmt(ot), fmt(orx), fmt(oe), bm, fmt(bv), fmt(be),
                ratio(ot, bv), ratio(oe, be)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('runs', help='runs.csv of bench_vs_upstream.sh')
    ap.add_argument('reps', type=int, help='runs per tool and mode (-r)')
    ap.add_argument('secs', type=int, help='length of each run in seconds (-l)')
    a = ap.parse_args()
    rows = load(a.runs, float(a.secs))
    tools = [r['tool'] for r in rows if r['tool'] != 'ours']
    t = Table(rows, tools[0] if tools else 'upstream')
    modes = list(dict.fromkeys(r['mode'] for r in rows))
    fams = list(dict.fromkeys(r['family'] for r in rows))
    both = [m for m in modes if any(r['mode'] == m and r['tool'] == t.other for r in rows)]
    # beyond upstream's udpgso_bench.sh: sendmmsg + GSO, a GRO receiver;
    # against another build of ours every mode is compared directly
    beyond = []
    if t.other == 'upstream':
        beyond = [m for m in modes if '-m -S' in m or 'rx -G' in m]
    head(a.reps, a.secs, t.other)
    best = main_table(t, both, fams, beyond)
    if beyond:
        beyond_table(t, fams, beyond, best)


if __name__ == '__main__':
    main()
