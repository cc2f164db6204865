#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Per tx/rx pair of committed udpgso_ab.sh results: the 95% paired t-interval
# half-width of A/B for three metrics over the pairs the steal rule keeps
# (steal <= 10%; no outlier rule), the sd of ln(A/B) per pair, and N3, the
# pairs a +-3% interval would need at that sd.  Run from the top directory:
#   python3 results/ab-widths-2026-11-23/widths.py DIR...
import json, math, statistics as st, sys
sys.path.insert(0, 'scripts/bench')
import ab_stats as ab
for d in sys.argv[1:]:
    r = json.load(open(d + '/results.json'))
    runs = [x for x in r['runs'] if x.get('status') == 'ok']
    print(d, 'load', r.get('loadavg'))
    print('%-22s' % 'pair', ' '.join('%24s' % m for m in ('rx_MBps', 'cpu_cost_per_GiB', 'proc_cpu_s_per_GiB')))
    pairs = {}
    for x in runs:
        pairs.setdefault((x['tx_mode'], x['rx_mode']), {}).setdefault(x['rep'], {})[x['setting']] = x
    need_all = {}
    for k, reps in pairs.items():
        row = []
        for m in ('rx_MBps', 'cpu_cost_per_GiB', 'proc_cpu_s_per_GiB'):
            lr = [math.log(v['A'][m] / v['B'][m]) for v in reps.values() if 'A' in v and 'B' in v
                  and v['A'].get(m) and v['B'].get(m)
                  and max(v['A'].get('steal_share', 0), v['B'].get('steal_share', 0)) <= 0.10]
            if len(lr) < 3:
                row.append('%24s' % '-'); continue
            sd = st.stdev(lr); n = len(lr)
            half = math.expm1(ab.t_quantile(0.975, n - 1) * sd / math.sqrt(n)) * 100
            # pairs for +-3%: smallest n with t(n-1)*sd/sqrt(n) <= ln 1.03
            nn = next((j for j in range(3, 2000) if ab.t_quantile(0.975, j - 1) * sd / math.sqrt(j) <= math.log(1.03)), 2000)
            need_all.setdefault(m, []).append(nn)
            row.append('%5.1f%% n=%2d sd=%4.1f%% N3=%3d' % (half, n, 100 * sd, nn))
        print('%-22s' % ('%s->%s' % k), ' '.join(row))
    for m, v in need_all.items():
        print('  %s: pairs for +-3%%: median %d, worst %d' % (m, st.median(v), max(v)))
