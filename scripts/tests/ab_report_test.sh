#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab_report_test.sh: unit tests of the A/B report math
# (scripts/tests/ab_report_test.py on scripts/bench/ab_report.py and
# ab_stats.py): spreads and medians, counter and /proc/stat deltas, cost
# per GiB, each configuration's medians over the runs that passed, the A/B
# paired ratios of the repetitions both sides have.  No root, no network.
#
#   scripts/tests/ab_report_test.sh
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

ktap_header
if ! why=$(ug_need_cmd python3); then
	ktap_skip "ab_report_test" "$why"
	ktap_finish
fi
n=0
while read -r verdict rest; do
	n=$((n + 1))
	case "$verdict" in
	PASS) ktap_ok "report: $rest" ;;
	FAIL) ktap_fail "report: ${rest%%:*}" "${rest#*: }" ;;
	*) ktap_fail "report: unexpected output" "$verdict $rest" ;;
	esac
done < <(python3 "$UG_TOP/scripts/tests/ab_report_test.py" 2>&1)
[ "$n" -gt 0 ] || ktap_fail "report: ab_report_test.py printed nothing"
ktap_finish
