#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""level_estimators.py DIR...: per pair, the sd over the runs of DIR of its run
level against its kind (compare_levels.relative_levels in each run) taken as
the mean, the median, the 20% trimmed mean and the Hodges-Lehmann estimate of
its units' ln levels, and the units' own standard error (within-se)"""
import sys, math, statistics as st, glob, os
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), '..', '..', 'scripts', 'bench'))
import compare_runs as cr, compare_levels as cl, ab_compare as ac
def levels_of(res):
    by = {}
    for r in res['runs']:
        by.setdefault((r['tx_mode'], r['rx_mode']), []).append(r)
    return {k: cl.pair_levels(v) for k, v in by.items()}
def trim(xs, f):
    xs = sorted(xs); n = len(xs); c = int(n * f)
    xs = xs[c:n - c] if n - 2 * c >= 2 else xs
    return sum(xs) / len(xs)
def hl(xs):  # Hodges-Lehmann
    w = [(xs[i] + xs[j]) / 2 for i in range(len(xs)) for j in range(i, len(xs))]
    return st.median(w)
dirs = sys.argv[1:]
subs = []
for d in dirs:
    subs += cr.results_dirs(d) if cr.results_file(d) is None else [d]
ests = {}
for s in subs:
    res = cr.load(s, 'X')
    rel = cl.relative_levels(levels_of(res), True, ())
    for k, xs in rel.items():
        if len(xs) < 4:
            continue
        ls = [math.log(x) for x in xs]
        e = ests.setdefault(k, {'mean': [], 'median': [], 'trim20': [], 'hl': [], 'se2': [], 'n': []})
        e['mean'].append(sum(ls) / len(ls)); e['median'].append(st.median(ls))
        e['trim20'].append(trim(ls, 0.2)); e['hl'].append(hl(ls))
        e['se2'].append(st.variance(ls) / len(ls)); e['n'].append(len(ls))
print(len(subs), 'runs')
for k, e in sorted(ests.items()):
    row = '%-26s n~%3d' % ('%s->%s' % k, st.median(e['n']))
    for m in ('mean', 'median', 'trim20', 'hl'):
        row += ' %s %4.1f%%' % (m, 100 * st.stdev(e[m]))
    row += '  within-se %.1f%%' % (100 * math.sqrt(st.mean(e['se2'])))
    print(row)
