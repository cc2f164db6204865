#!/bin/bash
# One guest run of this directory: a frozen copy of the tree at HEAD (the
# guest reads device/*.sh from the tree it runs in, so commits made while it
# runs do not change it), device_guest.sh with --keep NAME, then command.txt
# (command line, tree commit, start, end, exit) and host.tap.
# usage: run.sh NAME DEVICE_GUEST_ARGS... [-- COMMAND...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name=$1
shift
sha=$(git -C "$top" rev-parse --short HEAD)
frz=/tmp/dev24-tree-$sha
if [ ! -d "$frz" ]; then
	mkdir -p "$frz.tmp" && tar -C "$top" --exclude=./.git --exclude=./results -cf - . |
		tar -C "$frz.tmp" -xf - && mkdir -p "$frz.tmp/results/device-guest-2026-11-26" &&
		cp "$here"/*.sh "$frz.tmp/results/device-guest-2026-11-26/" &&
		mv "$frz.tmp" "$frz" || exit 1
fi
out=$here/$name
mkdir -p "$out"
line="UDPGSO_BIN=\$PWD scripts/vm/device_guest.sh --keep results/device-guest-2026-11-26/$name $(printf '%q ' "$@")"
echo "$line" >"$out/command.txt"
echo "# tree: $(git -C "$top" log -1 --format='%h %s' HEAD | cut -c1-160) (frozen copy in $frz)  started $(date -u +%FT%TZ)" >>"$out/command.txt"
cd "$frz" || exit 1
UDPGSO_BIN=$PWD scripts/vm/device_guest.sh --keep "$out" "$@" >"$out/host.tap" 2>&1
rc=$?
echo "exit $rc  ended $(date -u +%FT%TZ)" >>"$out/command.txt"
exit "$rc"
