#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One recorded guest run for a results directory: scripts/vm/device_guest.sh
# run from a frozen copy of the tree at HEAD (the guest reads device/*.sh
# from the tree it runs in, so commits made while it runs do not change
# what it runs), with --keep DIR/NAME; DIR/NAME/command.txt gets the command
# line, the tree commit, the start, the end and the exit, DIR/NAME/host.tap
# the host's TAP; the tools are built in the copy first (DIR/NAME/build.log).
# Run from the repository's top; DIR inside it.
#
#   scripts/vm/guest_record.sh DIR NAME [DEVICE_GUEST_ARGS...] [-- COMMAND...]
#
# e.g. scripts/vm/guest_record.sh results/device-guest-DATE a-6.12-ssh
#      --remote ssh --timeout 2700 -- scripts/vm/device_suite.sh device/env.sh
# The frozen copy (without .git and results/) stays in
# /tmp/ugrec-tree-COMMIT for later runs at the same commit.
# Exit: device_guest.sh's (0 ok, 1 a failure, 4 skipped).
set -u
. "$(dirname "$0")/../lib.sh"

case "${1:-}" in
-h | --help) ug_help; exit 0 ;;
-*) ug_die "unknown option '$1', allowed DIR NAME [DEVICE_GUEST_ARGS...] [-- COMMAND...] (-h: usage)" ;;
esac
[ $# -ge 2 ] || ug_die "needs DIR NAME, e.g. results/device-guest-DATE run-a (-h: usage)"
dir=${1%/} name=$2
shift 2
case "$dir" in /* | ../* | *..*) ug_die "DIR '$dir': allowed a directory inside the tree, relative to its top" ;; esac
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || ug_die "NAME '$name': allowed letters, digits, . _ -"
top=$UG_TOP
sha=$(git -C "$top" rev-parse --short HEAD) || ug_die "$top: not a git checkout"
frz=/tmp/ugrec-tree-$sha
if [ ! -d "$frz" ]; then
	rm -rf "$frz.tmp"
	mkdir -p "$frz.tmp" && tar -C "$top" --exclude=./.git --exclude=./results -cf - . |
		tar -C "$frz.tmp" -xf - && mv "$frz.tmp" "$frz" || ug_die "cannot copy the tree to $frz"
fi
out=$top/$dir/$name
mkdir -p "$out" || ug_die "cannot make $out"
# the tools the guest runs, built in the copy (make device-guest-check's `all`)
make -s -C "$frz" all >"$out/build.log" 2>&1 || ug_die "make all failed in $frz (see $out/build.log)"
{
	echo "UDPGSO_BIN=\$PWD scripts/vm/device_guest.sh --keep $dir/$name $(printf '%q ' "$@")"
	echo "# tree: $(git -C "$top" log -1 --format='%h %s' HEAD | cut -c1-160) (frozen copy in $frz)  started $(date -u +%FT%TZ)"
} >"$out/command.txt"
cd "$frz" || exit 1
UDPGSO_BIN=$PWD scripts/vm/device_guest.sh --keep "$out" "$@" >"$out/host.tap" 2>&1
rc=$?
echo "exit $rc  ended $(date -u +%FT%TZ)" >>"$out/command.txt"
exit "$rc"
