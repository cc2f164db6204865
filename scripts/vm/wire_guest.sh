#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside a guest (kmod_test.sh runs it in each guest boot): the cases of
# udpgso_wire.sh that need a device type the host kernel lacks (default:
# geneve), as UGKMOD result lines for kmod_test.sh's relay.
#
#   scripts/vm/wire_guest.sh [--out FILE] [-k PATTERN]
set -u

. "$(dirname "$0")/../lib.sh"

out=/dev/null pat='*geneve*'
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-}; shift 2 || ug_die "--out: needs a FILE" ;;
	-k) pat=${2:-}; shift 2 || ug_die "-k: needs a shell pattern" ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --out FILE, -k PATTERN (-h: usage)" ;;
	esac
done
kver=$(uname -r | sed 's/[-+].*//')
"$UG_TOP/udpgso_wire.sh" -k "$pat" 2>&1 | while IFS= read -r l; do
	case "$l" in
	"ok "*" # SKIP "*) l=${l#ok }; l=${l#* }
		r="UGKMOD skip $kver: wire: ${l%% # SKIP *}: ${l#* # SKIP }" ;;
	"ok "*) l=${l#ok }; r="UGKMOD ok $kver: wire: ${l#* }" ;;
	"not ok "*) l=${l#not ok }; r="UGKMOD not ok $kver: wire: ${l#* }" ;;
	*) echo "$l" >&2; continue ;;
	esac
	echo "$r" | tee -a "$out"
done
exit 0
