#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per tx/rx pair of udpgso_ab.sh results directories: the sd of one pair's
ln(A/B) for each metric (pairs the steal rule keeps: steal <= 10% on both
sides; no outlier rule, as results/ab-widths-2026-11-23/widths.py), N3 (the
pairs a 95% paired t-interval within +-3% needs at that sd), the run's wall
seconds per pair (wall_s over measured and warm-up slices, times two) and
T3 = N3 x that: the wall time +-3% would take for that pair alone, which is
what makes slice lengths comparable.  Run from the top directory:
    python3 results/ab-noise-2026-11-24/noise.py DIR..."""
import argparse
import json
import math
import statistics as st
import sys

sys.path.insert(0, 'scripts/bench')
import ab_stats  # noqa: E402

METRICS = ('rx_MBps', 'cpu_cost_per_GiB', 'proc_cpu_s_per_GiB')
LN3 = math.log(1.03)


def need(sd):
    """the smallest n whose 95% t half-width t(n-1) sd/sqrt(n) is <= ln 1.03"""
    return next((n for n in range(3, 5000)
                 if ab_stats.t_quantile(0.975, n - 1) * sd / math.sqrt(n) <= LN3), 5000)


def lnratios(reps, metric):
    """ln(A/B) of every complete, undisturbed pair"""
    out = []
    for v in reps.values():
        if 'A' not in v or 'B' not in v or not v['A'].get(metric) or not v['B'].get(metric):
            continue
        if max(v['A'].get('steal_share') or 0, v['B'].get('steal_share') or 0) > 0.10:
            continue
        out.append(math.log(v['A'][metric] / v['B'][metric]))
    return out


def report(d):
    r = json.load(open(d + '/results.json'))
    tm = r.get('timing') or {}
    slices = (tm.get('runs') or 0) + (tm.get('warmup_runs') or 0)
    per_pair = 2 * tm['wall_s'] / slices if slices else float('nan')
    print('%s: %s s slices, rate %s, load %s, wall %.0f s, %.2f s per pair' % (
        d, r.get('secs'), (r.get('rate') or {}).get('asked', 'none'),
        r.get('loadavg'), tm.get('wall_s', 0), per_pair))
    pairs = {}
    for x in r['runs']:
        if x.get('status') == 'ok':
            pairs.setdefault('%s->%s' % (x['tx_mode'], x['rx_mode']), {}).setdefault(
                x['rep'], {})[x['setting']] = x
    print('%-20s' % 'pair' + ''.join('%34s' % m for m in METRICS))
    sums = {m: [] for m in METRICS}
    for k, reps in pairs.items():
        row = '%-20s' % k
        for m in METRICS:
            lr = lnratios(reps, m)
            if len(lr) < 3:
                row += '%34s' % '-'
                continue
            sd = st.stdev(lr)
            n3 = need(sd)
            sums[m].append((sd, n3, n3 * per_pair))
            row += '   n=%2d sd=%5.1f%% N3=%4d T3=%5.0fs' % (len(lr), 100 * sd, n3, n3 * per_pair)
        print(row)
    for m, v in sums.items():
        if v:
            print('  %-20s sd median %.1f%%, N3 median %d worst %d, T3 median %.0f s worst %.0f s'
                  % (m, 100 * st.median(x[0] for x in v), st.median(x[1] for x in v),
                     max(x[1] for x in v), st.median(x[2] for x in v), max(x[2] for x in v)))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('dirs', nargs='+', help='udpgso_ab.sh results directories')
    for d in ap.parse_args().dirs:
        report(d.rstrip('/'))


if __name__ == '__main__':
    main()
