#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rereport.sh: session 20's start make run (results/check-2026-11-28/
# session20-start-make-run-20261128T153552Z, 4a606ca) reported again by this
# tree's scripts/bench/ab_report.py as `make run` would have left it, in
# results/ beside the committed runs of this machine (ab_across: the other
# runs in and below the directory that holds it); its summary.md is kept
# here, the copy in results/ removed.  Run from the top of the repository.
set -eu
src=results/check-2026-11-28/session20-start-make-run-20261128T153552Z
tmp=results/zz-rereport-20261128T153552Z-vm-default
out=results/across-2026-11-28/session20-start-rereported-summary.md
[ ! -e "$tmp" ] || { echo "rereport.sh: $tmp exists, remove it first" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp"
cp "$src"/{command,environment,run.conf} "$tmp/"
tar -C "$tmp" -xJf "$src/raw-plots.tar.xz" raw
python3 scripts/bench/ab_report.py "$tmp" >/dev/null
cp "$tmp/summary.md" "$out"
grep -c '' "$out"
