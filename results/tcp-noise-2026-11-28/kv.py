#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kv.py: /proc/net/snmp and netstat (header and value lines) on stdin as
"ProtoName value" lines."""
import sys

lines = sys.stdin.read().split("\n")
for head, vals in zip(lines[0::2], lines[1::2]):
    k, v = head.split(), vals.split()
    for name, val in zip(k[1:], v[1:]):
        print(k[0][:-1] + name, val)
