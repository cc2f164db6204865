#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make compare on the Intel machine's default runs, with and without ten other
# runs of that machine as the between-run term (BETWEEN=DIR against BETWEEN=):
# OLD = session 21's first make run (19:12 UTC), NEW = the 20:14 slices run of
# results/method-intel-2026-11-28, as it is and with one pair's rx MB/s cut
# by 20% in every slice (scripts/tests/compare_mutate.py, A and B x 0.8).
# The between-run runs (results/ab-campaign-2026-11-28g/default, 21:03-21:47)
# are neither OLD nor NEW.  Writes one log per comparison into this directory.
#   run.sh TMPDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$1
old=results/check-2026-11-28/session21-start-make-run-20261128T191243Z
new=results/method-intel-2026-11-28/20261128T201408Z-vm-default-auto
cal=results/ab-campaign-2026-11-28g/default
cd "$top" || exit 1

one() {	# LOG NEWDIR NOTE
	local b tag
	for b in "$cal" ""; do
		tag=campaign-g
		[ -n "$b" ] || tag=none
		{
			echo "\$ make compare OLD=$old NEW=$2 BETWEEN=$b  # $3"
			make -s compare OLD="$old" NEW="$2" BETWEEN="$b"
			echo "exit $?"
		} >"$here/$1-between-$tag.log" 2>&1
	done
}

one uncut "$new" "NEW as it ran"
for p in "sendto plain" "sendto gro" "sendmmsg plain" "sendmmsg gro" \
	"gso-cmsg plain" "sendmmsg-gso gro" "tcp tcp"; do
	set -- $p
	d=$tmp/cut-$1-$2
	mkdir -p "$d"
	cp "$new/run.conf" "$d/"
	python3 scripts/tests/compare_mutate.py "$new" "$d" \
		scale "$1" "$2" A rx_MBps 0.8 -- scale "$1" "$2" B rx_MBps 0.8 >/dev/null || exit 1
	one "cut-$1-$2" "$d" "NEW with $1 -> $2 cut 20% (A and B rx_MBps x 0.8)"
done
