#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""units_needed.py DIR K...: compare_power.py's consecutive comparisons of the
runs under DIR with every tx/rx pair cut to its first K slice pairs (in time
order), for each K: how many slice pairs a default run would have to give
the non-GSO UDP pairs for make compare to find a 20% cut of one of them
(the default runs of 2026-11-27c stop them at 6).  Prints, per K, the
same-code comparisons with a verdict and each single-pair cut found."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "bench"))
import compare_power as cp  # noqa: E402


def first_k(res, k):
    out = dict(res)
    keep = {}
    for r in sorted(res["runs"], key=lambda r: r.get("index", 0)):
        key = (r["tx_mode"], r["rx_mode"])
        reps = keep.setdefault(key, [])
        if r["rep"] not in reps and len(reps) < k:
            reps.append(r["rep"])
    out["runs"] = [r for r in res["runs"] if r["rep"] in keep[(r["tx_mode"], r["rx_mode"])]]
    return out


def main(argv):
    runs = cp.runs_of(argv[0])
    for k in map(int, argv[1:]):
        rs = [first_k(r, k) for r in runs]
        same, n, rows, _, _, _ = cp.evaluate(rs, 0.8, False, [])
        print("K=%-3d same code %d of %d; cut found: %s" % (
            k, same, n, ", ".join("%s %d" % (name, f) for name, f, _ in rows
                                  if "every" not in name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
