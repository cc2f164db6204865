#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make compare across a day, as a user meets it: every default run of
# 2026-11-27 on this VM instance (kernel 6.18.44-fc-v657: session 13's two,
# ab-campaign-2026-11-27d and -27e, 17:21-21:34 UTC) as OLD against each run
# of 2026-11-28 given (NEW), all linked into one directory as make run leaves
# them in results/, so that BETWEEN=auto takes the other 18 runs of
# 2026-11-27 for its between-run term.  The measuring code is the same on
# both days: any verdict is false.  One JSON report per comparison in out-*/
# (not committed: summary.py's input).
#   results/compare-crossday-2026-11-28/run.sh BETWEEN NEWDIR...  (BETWEEN= : the blocks)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/results/compare-crossday-2026-11-28
between=$1
shift
cd "$top"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
olds=()
for d in results/compare-default-2026-11-27/2*/ results/ab-campaign-2026-11-27[de]/default/*/; do
	ln -s "$top/$d" "$dir/$(basename "$d")"
	olds+=("$(basename "$d")")
done
news=()
for d in "$@"; do
	ln -s "$(cd "$d" && pwd)" "$dir/$(basename "$d")"
	news+=("$(basename "$d")")
done
out=$here/out-${between:-blocks}
rm -rf "$out"
mkdir -p "$out"
echo "\$ make compare OLD=X NEW=Y BETWEEN=$between ARGS=--json  # ${#olds[@]} runs of" \
	"2026-11-27 x ${#news[@]} of 2026-11-28 in one directory, at" \
	"$(git rev-parse --short HEAD), $(date -u +%FT%TZ)"
# one comparison: OLD NEW -> out/OLD-NEW.{json,err,rc} (two at a time, xargs -P 2)
one() {
	local f=$out/${1:0:16}-${2:0:16} rc=0
	make -s --no-print-directory compare OLD="$dir/$1" NEW="$dir/$2" BETWEEN="$between" \
		ARGS=--json >"$f.json" 2>"$f.err" || rc=$?
	echo "$rc" >"$f.rc"
}
export -f one
export out dir between
for o in "${olds[@]}"; do printf '%s\n' "${news[@]/#/$o }"; done |
	xargs -P 2 -n 2 bash -c 'one "$1" "$2"' _
echo "$(ls "$out"/*.rc | wc -l) comparisons, done $(date -u +%FT%TZ)"
