#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trunc.py K OUT DIR...: each results directory DIR as if its run had
stopped after its first K rounds (compare_levels.mark_rounds: a round runs
each pair it has once): its results.json with only those records, written
to OUT/<name of DIR>/results.json (K 0: all of them)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "bench"))
import compare_runs as cr  # noqa: E402


def main(argv):
    k, out = int(argv[0]), argv[1]
    for d in argv[2:]:
        res = cr.load(d, "DIR")
        res["runs"] = [r for r in res["runs"] if not k or r.get("_round", 0) < k]
        for r in res["runs"]:
            r.pop("_round", None)
        res.pop("_path", None)
        o = os.path.join(out, os.path.basename(d.rstrip("/")))
        os.makedirs(o, exist_ok=True)
        with open(os.path.join(o, "results.json"), "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main(sys.argv[1:])
