#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcp_slices.py DIR: the tcp -> tcp slices of the results directories in DIR:
rx MB/s against the sender's retransmitted share, the tools' CPU shares and the
idle share of the machine"""
import json, lzma, sys, glob, statistics as st, math
rows = []
for f in sorted(glob.glob(sys.argv[1] + '/*/results.json.xz')):
    d = json.load(lzma.open(f))
    for r in d['runs']:
        if r.get('tx_mode') != 'tcp' or r.get('status') != 'ok':
            continue
        c = r.get('counters', {}).get('nstat_tx', {})
        out = c.get('TcpOutSegs', 0); ret = c.get('TcpRetransSegs', 0)
        rows.append((f.split('/')[-2], r['rx_MBps'], 100.0 * ret / out if out else float('nan'),
                     r.get('tx_cpu_share'), r.get('rx_cpu_share'), r.get('cpu_idle_fraction'),
                     r.get('duration_s'), r.get('setting')))
print(len(rows), 'tcp slices')
def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    sa = math.sqrt(sum((x - ma) ** 2 for x in a)); sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb)
mb = [r[1] for r in rows]
for i, name in [(2, 'retrans%'), (3, 'tx_cpu'), (4, 'rx_cpu'), (5, 'idle')]:
    pairs = [(r[1], r[i]) for r in rows if r[i] is not None and not math.isnan(r[i])]
    print(name, 'corr with MB/s %.2f' % corr([p[0] for p in pairs], [p[1] for p in pairs]),
          'median %.3f' % st.median([p[1] for p in pairs]))
qs = sorted(mb)
print('MB/s quantiles', [round(qs[int(q * (len(qs) - 1))]) for q in (0, .1, .25, .5, .75, .9, 1)])
# bins by retrans
for lo, hi in [(0, .1), (.1, .3), (.3, .6), (.6, 1), (1, 100)]:
    v = [r[1] for r in rows if lo <= r[2] < hi]
    if v:
        print('retrans %.1f-%.1f%%: n=%d median %.0f MB/s' % (lo, hi, len(v), st.median(v)))
print('slow tail (<2300):')
for lo, hi in [(0, 2000), (2000, 2300), (2300, 2600), (2600, 2900), (2900, 4000)]:
    v = [r for r in rows if lo <= r[1] < hi]
    if v:
        print('%d-%d n=%d retrans %.2f tx_cpu %.2f rx_cpu %.2f idle %.2f dur %.3f' % (lo, hi, len(v),
              st.median([x[2] for x in v]), st.median([x[3] for x in v]), st.median([x[4] for x in v]),
              st.median([x[5] for x in v]), st.median([x[6] for x in v])))
