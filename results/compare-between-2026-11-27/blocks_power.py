#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""blocks_power.py TREE BLOCKS DIR [compare_power options]: compare_power.py
of the checkout TREE on DIR with compare_levels.BLOCKS (the time blocks of a
run for the between-run term) set to BLOCKS instead of its 3."""
import os
import sys


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) < 2:
        sys.exit("usage: blocks_power.py TREE BLOCKS(>=2) DIR [compare_power options]")
    sys.path.insert(0, os.path.join(argv[0], "scripts", "bench"))
    import compare_levels
    import compare_power
    compare_levels.BLOCKS = int(argv[1])
    return compare_power.main(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
