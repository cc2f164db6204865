#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# per-slice residuals of the pacer model in a known-effect campaign: ln(measured/model)
# usage: residuals.py TREE CAMPAIGN_DIR (TREE: the checkout whose ab_campaign_summary.py models the pacer)
import math, os, statistics, sys
sys.path.insert(0, os.path.join(sys.argv[1], 'scripts', 'bench'))
import ab_campaign_summary as C
res = {}
for r in C.runs_of(os.path.join(sys.argv[2], 'known')):
    for p in C.pairs(r):
        per = C.pacer_slices(r, p)
        if not per:
            continue
        for v in per.values():
            for st, (model, m) in v.items():
                res.setdefault((p['tx_mode'], p['rx_mode'], st), []).append(math.log(m / model))
for k, v in sorted(res.items()):
    a = sorted(abs(x) for x in v)
    print('%-12s %-6s %s %5d slices: median |r| %.1e, 90th %.1e, mean r %+.1e, beyond 1e-4 %d' % (
        k + (len(v), statistics.median(a), a[int(.9 * len(a))], statistics.mean(v),
             sum(x > 1e-4 for x in a))))
