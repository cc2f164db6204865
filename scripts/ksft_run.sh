#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso-lab's own kselftest-style runner (used outside a kernel tree).
#
#   scripts/ksft_run.sh [-t SECONDS] TEST...
#
# Runs each test with a timeout (the `settings` file's timeout=, or -t, times
# $KSELFTEST_TIMEOUT_MULT for slow machines; $kselftest_override_timeout, the
# variable the kernel's runner (6.9+) takes from `run_kselftest.sh -o SECONDS`,
# replaces it), prefixes its output with "# " and prints
# one TAP 13 line per test, as the kernel's runner does:
#   ok N selftests: udpgso-lab: NAME [# SKIP] / not ok N ... [# TIMEOUT]
# The last line counts the test cases inside every test (their own ok /
# not ok lines):  "run_tests: P passed, F failed, S skipped".
# Exit: 1 if any test failed or timed out, 4 if all skipped, else 0.
# KSELFTEST_<NAME>_ARGS (NAME upper-cased, non-alphanumerics as _) adds
# arguments to a test, as the kernel's runner does.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
# ours alone: a runner started by one of the tests must not add to it
totals=${UG_TOTALS:-}
unset UG_TOTALS
timeout_s=
case "${1:-}" in
-h | --help)
	awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"
	exit 0 ;;
-t) timeout_s=$2; shift 2 ;;
-*) echo "ksft_run: unknown option '$1', allowed -t SECONDS, -h" >&2; exit 1 ;;
esac
if [ -z "$timeout_s" ]; then
	timeout_s=$(sed -n 's/^timeout=//p' "$here/settings" 2>/dev/null)
	timeout_s=${timeout_s:-300}
fi
mult=${KSELFTEST_TIMEOUT_MULT:-1}
case "$mult" in ''|*[!0-9]*) echo "ksft_run: KSELFTEST_TIMEOUT_MULT '$mult': allowed a positive integer" >&2; exit 1 ;; esac
timeout_s=$((timeout_s * mult))
over=${kselftest_override_timeout:-}
case "$over" in *[!0-9]*) echo "ksft_run: kselftest_override_timeout '$over': allowed a positive integer" >&2; exit 1 ;; esac
if [ -n "$over" ]; then timeout_s=$over; fi

# the live (not zombie) processes of a process group: "PID:NAME ..."
group_left() {	# PGID
	ps -eo pid=,pgid=,stat=,comm= |
		awk -v g="$1" '$2 == g && $3 !~ /^Z/ { printf "%s:%s ", $1, $4 }'
}
stopped=
stop_test() {	# SIG: pass a signal to us on to the running test's group
	stopped=$1
	kill -"$1" -- "-$tpid" 2>/dev/null
}

echo "TAP version 13"
echo "1..$#"
n=0 tfail=0 tskip=0
cpass=0 cfail=0 cskip=0
for t in "$@"; do
	n=$((n + 1))
	name=$(basename "$t")
	echo "# selftests: udpgso-lab: $name"
	if [ ! -x "$t" ]; then
		echo "not ok $n selftests: udpgso-lab: $name # missing or not executable"
		tfail=$((tfail + 1)); cfail=$((cfail + 1))
		continue
	fi
	var="KSELFTEST_$(echo "$name" | tr '[:lower:]' '[:upper:]' | tr -c 'A-Z0-9\n' '_')_ARGS"
	args=${!var:-}
	log=$(mktemp)
	# timeout leads a process group of its own, the test and what it
	# starts; on expiry it signals the whole group.  A ^C or kill of this
	# runner is passed on to that group (it is not the terminal's).
	# shellcheck disable=SC2086
	(cd "$(dirname "$t")" && exec timeout -k 10 "$timeout_s" "./$name" $args) \
		>"$log" 2>&1 </dev/null &
	tpid=$!
	trap 'stop_test TERM' TERM HUP
	trap 'stop_test INT' INT
	rc=
	while [ -z "$rc" ]; do
		wait "$tpid"
		rc=$?
		# a signal to us ends `wait` early: wait for the test again
		if kill -0 "$tpid" 2>/dev/null; then rc=; fi
	done
	trap - INT TERM HUP
	sed 's/^/# /' "$log"
	# what the test left running in its group is killed and said
	if [ -n "$(group_left "$tpid")" ]; then
		sleep 0.5	# a signal on its way (timeout's, at the end)
		left=$(group_left "$tpid")
		if [ -n "$left" ]; then
			echo "# $name left processes running, killed:" $left
			pkill -KILL -g "$tpid"
		fi
	fi
	if [ -n "$stopped" ]; then
		echo "not ok $n selftests: udpgso-lab: $name # interrupted by SIG$stopped"
		exit 130
	fi
	p=$(grep -cE '^ok [0-9]+ ' "$log" | head -1)
	s=$(grep -cE '^ok [0-9]+ .*# *SKIP' "$log" | head -1)
	f=$(grep -cE '^not ok [0-9]+ ' "$log" | head -1)
	rm -f "$log"
	cpass=$((cpass + p - s)); cskip=$((cskip + s)); cfail=$((cfail + f))
	case $rc in
	0) echo "ok $n selftests: udpgso-lab: $name" ;;
	4) echo "ok $n selftests: udpgso-lab: $name # SKIP"; tskip=$((tskip + 1)) ;;
	124|137) echo "not ok $n selftests: udpgso-lab: $name # TIMEOUT $timeout_s seconds"
	   tfail=$((tfail + 1)); cfail=$((cfail + 1)) ;;
	*) echo "not ok $n selftests: udpgso-lab: $name # exit=$rc"
	   tfail=$((tfail + 1))
	   # a failing test with no failing case still counts as a failure
	   if [ "$f" -eq 0 ]; then cfail=$((cfail + 1)); fi ;;
	esac
done
echo "# Totals: tests:$n fail:$tfail skip:$tskip"
echo "run_tests: $cpass passed, $cfail failed, $cskip skipped"
# `make check` adds up its passes: UG_TOTALS names a file to append to
if [ -n "$totals" ]; then
	echo "$cpass $cfail $cskip $tfail" >>"$totals"
fi
if [ "$tfail" -gt 0 ]; then exit 1; fi
if [ "$n" -gt 0 ] && [ "$tskip" -eq "$n" ]; then exit 4; fi
exit 0
