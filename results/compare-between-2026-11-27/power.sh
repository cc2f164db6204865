#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compare_power.py on three campaigns, with the code before the between-run
# term (514fb6b) and with it (affbc51); the after code with 2 and 4 blocks;
# the DerSimonian-Laird term of results/compare-kind-2026-11-27 on the 0.25 s
# campaign.  Each log starts with its command.
#   results/compare-between-2026-11-27/power.sh BEFORE_TREE AFTER_TREE OUTDIR
# (BEFORE_TREE, AFTER_TREE: checkouts of 514fb6b and affbc51, e.g. git worktree)
set -eu
before=$1 after=$2 out=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
# 514fb6b reads results.json only: the 0.25 s campaign is kept as .xz
aa27=$(mktemp -d)
trap 'rm -rf "$aa27"' EXIT
for d in "$top"/results/ab-campaign-2026-11-27a/aa/*/; do
	n=$(basename "$d")
	mkdir "$aa27/$n"
	xz -dc "$d/results.json.xz" >"$aa27/$n/results.json"
done
for tag in before after; do
	tree=${!tag}
	for set in 27a hostnoise 25d; do
		case $set in
		27a) dir=$aa27; name=results/ab-campaign-2026-11-27a/aa ;;
		hostnoise) dir=$top/results/ab-hostnoise-2026-11-27/default
			   name=results/ab-hostnoise-2026-11-27/default ;;
		25d) dir=$top/results/ab-campaign-2026-11-25d/aa; name=results/ab-campaign-2026-11-25d/aa ;;
		esac
		for mode in "" --all-pairs; do
			log=$out/$tag-$set${mode:+-all}.log
			echo "\$ python3 scripts/bench/compare_power.py $name $mode" \
				"  # at $(git -C "$tree" rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
			(cd "$tree" && python3 scripts/bench/compare_power.py "$dir" $mode) >>"$log" 2>&1
		done
	done
done
for b in 2 4; do
	log=$out/after-27a-blocks$b.log
	echo "\$ python3 results/compare-between-2026-11-27/blocks_power.py TREE $b" \
		"results/ab-campaign-2026-11-27a/aa" \
		"  # TREE at $(git -C "$after" rev-parse --short HEAD), $(date -u +%FT%TZ)" >"$log"
	python3 "$top/results/compare-between-2026-11-27/blocks_power.py" "$after" "$b" \
		"$top/results/ab-campaign-2026-11-27a/aa" >>"$log" 2>&1
done
log=$out/before-27a-dersimonian-laird.log
for mode in "" --all; do
	echo "\$ python3 results/compare-kind-2026-11-27/between_run_term.py results/ab-campaign-2026-11-27a/aa $mode" \
		"  # at $(git -C "$before" rev-parse --short HEAD), $(date -u +%FT%TZ)" >>"$log"
	(cd "$before" && python3 results/compare-kind-2026-11-27/between_run_term.py "$aa27" $mode) >>"$log" 2>&1
done
