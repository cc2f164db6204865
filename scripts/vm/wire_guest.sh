#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside a guest (kmod_test.sh runs it in each guest boot): the cases that
# need a device type the host kernel lacks, as UGKMOD result lines for
# kmod_test.sh's relay: udpgso_wire.sh's (default: geneve) and udpgso.sh's
# ipip variants (`tunnel`: every segment captured on the sink under the
# tunnel and checked with its outer header).
#
#   scripts/vm/wire_guest.sh [--out FILE] [-k PATTERN] [-t PATTERN]
set -u

. "$(dirname "$0")/../lib.sh"

out=/dev/null pat='*geneve*' tpat='*tunnel*'
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-}; shift 2 || ug_die "--out: needs a FILE" ;;
	-k) pat=${2:-}; shift 2 || ug_die "-k: needs a shell pattern" ;;
	-t) tpat=${2:-}; shift 2 || ug_die "-t: needs a shell pattern" ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --out FILE, -k PATTERN, -t PATTERN (-h: usage)" ;;
	esac
done
kver=$(uname -r | sed 's/[-+].*//')
# TAG CMD...: CMD's TAP lines as UGKMOD lines named TAG, the rest to stderr
relay() {
	local tag=$1 l r
	shift
	"$@" 2>&1 | while IFS= read -r l; do
		case "$l" in
		"ok "*" # SKIP "*) l=${l#ok }; l=${l#* }
			r="UGKMOD skip $kver: $tag: ${l%% # SKIP *}: ${l#* # SKIP }" ;;
		"ok "*) l=${l#ok }; r="UGKMOD ok $kver: $tag: ${l#* }" ;;
		"not ok "*) l=${l#not ok }; r="UGKMOD not ok $kver: $tag: ${l#* }" ;;
		*) echo "$l" >&2; continue ;;
		esac
		echo "$r" | tee -a "$out"
	done
}
relay wire "$UG_TOP/udpgso_wire.sh" -k "$pat"
[ -z "$tpat" ] || relay udpgso "$UG_TOP/udpgso.sh" -k "$tpat"
exit 0
