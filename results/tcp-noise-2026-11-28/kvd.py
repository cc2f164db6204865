#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kvd.py BEFORE AFTER: the TCP counters of kv.py that changed (loss,
reordering, DSACK, drops, segments); kvd.py MBps RX_JSON: the receiver's MB/s."""
import json
import re
import sys

if sys.argv[1] == "MBps":
    print(json.load(open(sys.argv[2]))["MBps"])
    sys.exit(0)
a = dict(x.split() for x in open(sys.argv[1]) if x.strip())
b = dict(x.split() for x in open(sys.argv[2]) if x.strip())
want = re.compile(r"Retrans|LossProbe|Timeouts|Recovery|RcvQDrop|BacklogDrop|Prune|OFO|"
                  r"ZeroWindow|DelayedACKLost|Reorder|DSACK|Spurious|InSegs|OutSegs|Drop")
print(" ".join("%s=%d" % (k, int(b[k]) - int(a[k])) for k in a
               if want.search(k) and int(b[k]) != int(a[k])))
