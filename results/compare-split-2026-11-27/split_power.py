#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""split_power.py TREE DIR [compare_power options]: compare_power.py of the
checkout TREE on DIR with the GSO kind split by receiver: the GSO senders
into a plain receiver ("gso-plain") and into a UDP_GRO one ("gso-gro"), each
its own reference and its own between-run term (compare_levels.kind_of
patched; nothing else changed)."""
import os
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: split_power.py TREE DIR [compare_power options]")
    sys.path.insert(0, os.path.join(argv[0], "scripts", "bench"))
    import compare_levels
    import compare_power
    plain_kind = compare_levels.kind_of

    def kind_of(pair):
        k = plain_kind(pair)
        return "gso-%s" % ("gro" if pair[1].startswith("gro") else "plain") if k == "gso" else k
    compare_levels.kind_of = kind_of
    return compare_power.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
