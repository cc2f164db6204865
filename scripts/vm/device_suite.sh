#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest of scripts/vm/device_guest.sh (environment from
# scripts/vm/device_setup.sh: NETIF, REMOTE_TYPE, REMOTE_ARGS...): the case
# files given, one after another, each one's KTAP streamed as it runs, then
# one line per file with its exit (0 ok, 4 skipped, else failed) and time.
# Environment knobs of the case files (DRV_GRO_QUICK...) pass through.
#
#   scripts/vm/device_suite.sh FILE [FILE...]
#
# Exit: 0 when every file exited 0 or 4, else 1.
set -u
. "$(dirname "$0")/../lib.sh"

case "${1:-}" in
-h | --help) ug_help; exit 0 ;;
-*) ug_die "unknown option '$1', allowed FILE [FILE...] (-h: usage)" ;;
'') ug_die "needs one case file or more, e.g. device/env.sh device/gso.sh (-h: usage)" ;;
esac
for f in "$@"; do
	[ -x "$f" ] || ug_die "'$f': not an executable case file (allowed e.g. device/*.sh)"
done
echo "# remote: REMOTE_TYPE=${REMOTE_TYPE:-} REMOTE_ARGS=${REMOTE_ARGS:-}"
echo "# guest kernel $(uname -r); NETIF ${NETIF:-}: $(ethtool -k "${NETIF:-lo}" 2>/dev/null |
	grep -E 'tx-udp-segmentation|rx-gro-hw' | tr -s ' \t' ' ' | tr '\n' ';')"
rc=0 sum=
for f in "$@"; do
	t0=$SECONDS
	"$f"
	r=$?
	sum+="# $f: exit $r in $((SECONDS - t0)) s"$'\n'
	echo "# device_suite.sh: $f exit $r in $((SECONDS - t0)) s"
	case $r in 0 | 4) ;; *) rc=1 ;; esac
done
printf '%s' "$sum"
exit "$rc"
