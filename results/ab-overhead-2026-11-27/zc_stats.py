#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per results directory under the given roots (raw/ packed in raw.tar.xz):
zerocopy slices, how many spent over 1 s in tx (0.25 s of sending), the
tx time summed, completions missing, and the instrumented build's 'zcdbg'
lines (its tx.stderr) counted by kind.  Usage: zc_stats.py DIR..."""
import collections
import glob
import json
import os
import re
import sys
import tarfile


def logs(d):
    with tarfile.open(os.path.join(d, "raw.tar.xz")) as t:
        for m in t.getmembers():
            if m.isfile() and m.name.endswith(".log"):
                yield t.extractfile(m).read().decode()


def main(roots):
    for d in sorted(p for r in roots for p in glob.glob(os.path.join(r, "*")) if os.path.isdir(p)):
        txs, miss, dbg = [], 0, collections.Counter()
        for t in logs(d):
            tm = dict(x.split("=") for x in re.search(r"^times (.*)$", t, re.M).group(1).split())
            txs.append(float(tm["tx_done"]) - float(tm["bound"]))
            j = json.loads(t.split("== tx.json\n")[1].split("\n")[0])
            miss += j["error_detail"]["zerocopy_missing"]
            for m in re.finditer(r"^zcdbg it=(\d+) wake=(\d+) timeout_progress=(\d+) "
                                 r"timeout_none=(\d+)", t, re.M):
                dbg["polls %s: woken %s, timed out with %s new / %s none" % m.groups()] += 1
        print("%s: %d slices, %d over 1 s in tx, tx %.1f s in all, %d completions missing"
              % (os.path.relpath(d), len(txs), sum(x > 1 for x in txs), sum(txs), miss))
        for k, n in sorted(dbg.items()):
            print("    %3d x %s" % (n, k))


if __name__ == "__main__":
    main(sys.argv[1:] or ["."])
