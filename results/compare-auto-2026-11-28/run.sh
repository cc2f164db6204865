#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make compare OLD=X NEW=Y` as a user runs it (BETWEEN=auto, the default
# since 2026-11-28) on every two of the 25 default runs of 2026-11-27, all
# linked into one directory as `make run` leaves them in results/: session
# 13's two (17:21, 18:50), ab-campaign-2026-11-27c (15:03-15:33, the VM
# instance of kernel 6.18.44-fc-v669), -27d (19:28-19:59) and -27e
# (20:55-21:36), all of one measuring code.  Every comparison is of the same
# code: any verdict is false.  One JSON report per comparison in out/ (not
# committed: summary.py's input), two comparisons at a time.
#   results/compare-auto-2026-11-28/run.sh [BETWEEN]   (BETWEEN= : the blocks)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/results/compare-auto-2026-11-28
between=${1-auto}
cd "$top"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for d in results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27[cde]/default/*/; do
	ln -s "$top/$d" "$dir/$(basename "$d")"
done
out=$here/out-${between:-blocks}
rm -rf "$out"
mkdir -p "$out"
echo "\$ make compare OLD=X NEW=Y BETWEEN=$between ARGS=--json  # every two of 25 runs in one" \
	"directory, at $(git rev-parse --short HEAD), $(date -u +%FT%TZ)"
mapfile -t runs < <(ls "$dir")
n=0
for ((i = 0; i < ${#runs[@]}; i++)); do
	for ((j = i + 1; j < ${#runs[@]}; j++)); do
		f=$out/${runs[i]:0:16}-${runs[j]:0:16}
		(rc=0
		 make -s --no-print-directory compare OLD="$dir/${runs[i]}" NEW="$dir/${runs[j]}" \
			BETWEEN="$between" ARGS=--json >"$f.json" 2>"$f.err" || rc=$?
		 echo "$rc" >"$f.rc") &
		n=$((n + 1))
		[ $((n % 2)) = 0 ] && wait
	done
done
wait
echo "$n comparisons, done $(date -u +%FT%TZ)"
