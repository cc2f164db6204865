# SPDX-License-Identifier: GPL-2.0
# scripts/tests/compare_lib.sh: what compare_test.sh and compare_headline_test.sh
# share (sourced after lib.sh): the KTAP header, the top directory as the
# working directory, the committed runs both use, a temporary directory and the
# helpers that run ab_compare.py and judge its exit, output and JSON.
ktap_header
cd "$UG_TOP" || exit 1
CMP=scripts/bench/ab_compare.py
MUT=scripts/tests/compare_mutate.py
BASE=results/20261122T224220Z-vm-default	# 3 reps x 3 s
# two interval-driven default runs of the same code, 5 minutes apart, 9 reps
# a configuration: RUN1 (15:50, 2% steal rule) and RUN2 (15:55, 10% rule)
RUN1=results/20261123T155029Z-vm-default
RUN2=results/20261123T155541Z-vm-default
GUEST=results/guest-6.1-vs-6.12-2026-11-23
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# run_cmp NAME ARGS...: run ab_compare.py, keep out/err/rc in $tmp/NAME.*
run_cmp() {
	local n=$1
	shift
	"$CMP" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	echo $? >"$tmp/$n.rc"
}
rc_of() { cat "$tmp/$1.rc"; }
# same_code NAME WHAT OLD NEW CHECKS...: ab_compare.py --json OLD NEW exits 0
# and its JSON passes every CHECK (ug_jcheck)
same_code() {
	local n=$1 what=$2 old=$3 new=$4
	shift 4
	run_cmp "$n" "$old" "$new" --json
	if [ "$(rc_of "$n")" = 0 ] && ug_jcheck "$tmp/$n.out" "$@"; then
		ktap_ok "$what"
	else
		ktap_fail "${what%%:*}" "exit $(rc_of "$n"): $(head -2 "$tmp/$n.err")"
	fi
}
lines() { wc -l <"$1" | tr -d ' '; }
# bad NAME LINES PATTERN ARGS...: ab_compare.py ARGS exits 2 with LINES lines on
# stderr matching PATTERN and nothing on stdout
bad() {
	local n=$1 want=$2 pat=$3
	shift 3
	run_cmp "bad$n" "$@"
	if [ "$(rc_of "bad$n")" = 2 ] && [ ! -s "$tmp/bad$n.out" ] &&
	   [ "$(lines "$tmp/bad$n.err")" = "$want" ] && grep -q -- "$pat" "$tmp/bad$n.err"; then
		ktap_ok "bad input: $(tr '\n' '|' <"$tmp/bad$n.err" | sed 's/|$//')"
	else
		ktap_fail "bad input $n" \
			"exit $(rc_of "bad$n"), $(lines "$tmp/bad$n.err") lines: $(head -3 "$tmp/bad$n.err")"
	fi
}
