#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per A/A run of this campaign: its pairs within the target (results.json's
target_reached), and of the Target's five (the non-GSO UDP pairs and tcp).
Run in this directory: python3 targets.py > targets.txt"""
import glob
import json
import lzma
import os

FIVE = {("sendto", "plain"), ("sendto", "gro"), ("sendmmsg", "plain"), ("sendmmsg", "gro"),
        ("tcp", "tcp")}
files = sorted(glob.glob("aa/*/results.json.xz"))
all5 = 0
for p in files:
    with lzma.open(p, "rt") as f:
        r = json.load(f)
    n = sum(1 for a in r["ab"] if a["target_reached"])
    n5 = sum(1 for a in r["ab"] if a["target_reached"] and (a["tx_mode"], a["rx_mode"]) in FIVE)
    all5 += n5 == 5
    print("%s: within target %d of 13, the five %d of 5, %d slices"
          % (os.path.basename(os.path.dirname(p)), n, n5, len(r["runs"])))
print("runs with all five within target: %d of %d" % (all5, len(files)))
