#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 26, point 5, on two default `make run`s of this session (fresh clones
# of 0b57972 at 17:21 and of 9aa0afe at 18:50 UTC; the code a run measures
# with is the same in both: the commits between change make compare, docs and
# results).  make compare OLD NEW as they are (the same code), then with each
# non-GSO UDP pair's rx MB/s (A and B, every slice) cut by 20% in NEW.  Every
# command is echoed before its output.
#   results/compare-default-2026-11-27/demo.sh >results/compare-default-2026-11-27/demo.log
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
d=results/compare-default-2026-11-27
old=$d/20261127T172154Z-vm-default new=$d/20261127T185007Z-vm-default
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)"
echo "\$ scripts/bench/ab_compare.py $old $new"
scripts/bench/ab_compare.py "$old" "$new" 2>&1
echo "exit $?"
for p in "sendto plain" "sendto gro" "sendmmsg plain" "sendmmsg gro"; do
	set -- $p
	echo
	echo "\$ scripts/tests/compare_mutate.py $new CUT scale $1 $2 A rx_MBps 0.8 -- scale $1 $2 B rx_MBps 0.8"
	scripts/tests/compare_mutate.py "$new" "$tmp/$1-$2" scale "$1" "$2" A rx_MBps 0.8 -- \
		scale "$1" "$2" B rx_MBps 0.8
	echo "\$ scripts/bench/ab_compare.py $old CUT | the headline table; stderr"
	scripts/bench/ab_compare.py "$old" "$tmp/$1-$2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sed -n '/^| tx | rx | runs old\/new/,/^$/p' "$tmp/out"
	cat "$tmp/err"
	echo "exit $rc"
	echo "\$ scripts/bench/ab_compare.py $old CUT --threshold 5   # the default until 2026-11-27"
	scripts/bench/ab_compare.py "$old" "$tmp/$1-$2" --threshold 5 >/dev/null 2>"$tmp/err"
	rc=$?
	cat "$tmp/err"
	echo "exit $rc"
done
