#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Session 17's two default runs (06:17 and 08:39 on 2026-11-28, 2 h 21 min
# apart) compared as a user compares them, `make compare OLD NEW` with both in
# results/ beside every committed run (BETWEEN=auto), at this commit: the
# same code, then the end run with one pair's rx MB/s cut by 20% (A and B,
# compare_mutate.py; the uncut end run stays beside it and joins the
# calibration, as in ../check-2026-11-28/session17-compare-start-end-cut-*.log,
# the same comparisons with auto taking every run of the machine).  results/
# is copied as a tree of links; the two runs are linked on its top, as make
# run leaves them.  One log per comparison in this directory.
#   results/compare-near-2026-11-28/start-end.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/results/compare-near-2026-11-28
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -as "$top/results" "$tmp/results"
s17=$top/results/check-2026-11-28
old=$tmp/results/20261128T061702Z-vm-default
new=$tmp/results/20261128T083933Z-vm-default
ln -s "$s17/session17-start-make-run-20261128T061702Z" "$old"
ln -s "$s17/session17-end-make-run-20261128T083933Z" "$new"
one() {		# NAME NEW
	local log=$out/start-end-$1.log rc=0
	{
		echo "\$ make compare OLD=$old NEW=$2  # at $(git rev-parse --short HEAD)," \
			"$(date -u +%FT%TZ)"
		make -s --no-print-directory compare OLD="$old" NEW="$2" 2>&1 || rc=$?
		echo "# make exit $rc"
	} >"$log"
}
one same "$new"
for p in "sendto gro" "gso-cmsg plain" "tcp tcp" "sendto plain" "sendmmsg gro"; do
	set -- $p
	cut=$tmp/results/20261128T083933Z-vm-cut-$1-$2
	python3 scripts/tests/compare_mutate.py "$new" "$cut" scale "$1" "$2" A rx_MBps 0.8 \
		-- scale "$1" "$2" B rx_MBps 0.8
	one "cut-$1-$2" "$cut"
done
