#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab_report.py --serve against --pending on the 1895bdd make run (raw.tar.xz
# unpacked into two copies): the same pairs at 50, 120 and 200 s, the same
# out_of_reach.  Run from the repository's top: bash results/ab-overhead-2026-11-27/serve_check.sh
set -eu
here=$(dirname "$0")
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
for c in a b; do
	mkdir "$t/$c"
	cp -r "$here/make-run/before-1895bdd-20261127T111600Z/." "$t/$c/"
	tar -xJf "$t/$c/raw.tar.xz" -C "$t/$c"
	: >"$t/$c/out_of_reach"
done
for e in 50 120 200; do
	python3 scripts/bench/ab_report.py "$t/a" --pending --elapsed "$e"
	echo @@END
done >"$t/pending.out"
printf 'pending 50\npending 120\npending 200\n' |
	python3 scripts/bench/ab_report.py "$t/b" --serve >"$t/serve.out"
diff "$t/pending.out" "$t/serve.out" && echo "answers: same ($(grep -c . "$t/serve.out") lines)"
diff "$t/a/out_of_reach" "$t/b/out_of_reach" &&
	echo "out_of_reach: same ($(grep -c . "$t/b/out_of_reach") lines)"
cat "$t/serve.out"
