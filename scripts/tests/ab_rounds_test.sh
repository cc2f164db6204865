#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab_rounds_test.sh: unit tests of the rounds of udpgso_ab.sh
# (scripts/bench/ab_rounds.sh) with its slices and its ab_report.py
# question stubbed: which pairs each round plans, the numbering of a
# pair's slices (its own pairs, 1..N, A and B each), warm-up once per pair,
# --max-reps per pair (not per round), the budget, a failed question, and
# --after-target (once every pair is decided: rounds of every pair, or stop),
# and the pacing's tbf set anew when the rate or the protocol changes.
# No root, no network.
#
#   scripts/tests/ab_rounds_test.sh
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

# what ab_rounds.sh takes from udpgso_ab.sh
pairs=("a plain 4" "b plain 4" "c plain 4")
settings=(A B)
warmup=1 rate="" rate_pct="" ci=95,3 reps=2 max_reps=8 budget=100000 after_target=stop
n_configs=6 resdir=$(mktemp -d) tmp="" py_stats=true AB_DIR=/nonexistent dev_tx=none
trap 'rm -rf "$resdir"' EXIT
apply_setting() { return 0; }
L() { "$@"; }
. "$UG_TOP/scripts/bench/ab_opts.sh"
. "$UG_TOP/scripts/bench/ab_rounds.sh"

# the stubs: each slice is a line "TX SET REP DIR"; the question's answer
# is the rule the test sets (ask_rule), from the slices run so far
declare -a ran
asked() { wc -l <"$resdir/asked"; }
# a measured slice takes SLICE_S seconds of the budget (t_mat moves back)
run_one() {
	ran+=("$3 $5 $6 ${RUN_DIR[$1]:--}")
	[ -n "${RUN_DIR[$1]}" ] || t_mat=$((t_mat - ${SLICE_S:-0}))
}
pend_start() { return 0; }
pend_stop() { return 0; }
reps_of() { printf '%s\n' "${ran[@]}" | awk -v t="$1" '$1 == t && $4 == "-" && $2 == "A"' | wc -l; }
pend_ask() {	# (run in a subshell: the count of questions is kept in a file)
	echo >>"$resdir/asked"
	"$ask_rule"
}
# a reaches its target at 3 pairs; b skips every other round while c runs
# (as the out-of-reach rule can leave a pair out); c never reaches it and
# is named also past --max-reps (the rounds must cap it themselves)
rule_skip() {
	[ "$(reps_of a)" -ge 3 ] || echo "a plain 4"
	if [ $(($(asked) % 2)) = 0 ] || [ "$(reps_of c)" -ge "$max_reps" ]; then
		echo "b plain 4"
	fi
	echo "c plain 4"
	return 0
}
rule_fail() { return 1; }
rule_none() { return 0; }
rule_all() { printf '%s\n' "${pairs[@]}"; }

reset() {
	ran=() n_runs=0 n_meas=0 meas_i=0 run_i=0 failed=0 cur_set="" stop_why= target_at=
	pair_reps=()
	RUN_TX=() RUN_RX=() RUN_SET=() RUN_REP=() RUN_CFG=() RUN_DIR=() RUN_PI=() RUN_FAM=()
	rm -f "$resdir/out_of_reach"
	: >"$resdir/asked"
}

# check_pairs TX WANT: TX's measured slices are A and B of reps 1..WANT, and
# one warm-up slice of each setting
check_pairs() {
	local got want
	got=$(printf '%s\n' "${ran[@]}" | awk -v t="$1" '$1 == t && $4 == "-" { print $3, $2 }' |
		sort -n -k1,1 -k2 | tr '\n' ' ')
	want=$(for ((i = 1; i <= $2; i++)); do printf '%d A %d B ' "$i" "$i"; done)
	[ "$got" = "$want" ] || { echo "$1: slices '$got', want '$want'"; return 1; }
	got=$(printf '%s\n' "${ran[@]}" | awk -v t="$1" '$1 == t && $4 == "warmup/"' | wc -l)
	[ "$got" = 2 ] || { echo "$1: $got warm-up slices, want 2"; return 1; }
}

# run_case RULE T_MAT [TX WANT]...: the rounds from a clean state with the
# question answered by RULE, measuring from T_MAT; each TX (default a b c,
# with -n pairs each) checked with check_pairs; problems in $why
run_case() {
	local rule=$1 t0=$2 msg
	shift 2
	reset
	ask_rule=$rule t_mat=$t0
	run_rounds 2>/dev/null
	why=
	[ $# -gt 0 ] || set -- a "$reps" b "$reps" c "$reps"
	while [ $# -ge 2 ]; do
		msg=$(check_pairs "$1" "$2") || why+="$msg; "
		shift 2
	done
}
# report OK_NAME FAIL_NAME: one KTAP line from $why
report() {
	if [ -z "$why" ]; then ktap_ok "rounds: $1"; else ktap_fail "rounds: $2" "$why"; fi
}

ktap_header
now=${EPOCHREALTIME%.*}

run_case rule_skip "$now" a 3 b 8 c 8
case "$stop_why" in "target reached or max-reps (8)") ;; *) why+="stop '$stop_why'; " ;; esac
report "--max-reps per pair: a pair that skipped rounds still gets its 8 pairs" \
	"--max-reps per pair"

# --after-target rounds: once decided, every pair goes on (up to --max-reps),
# with no more questions
after_target=rounds
run_case rule_skip "$now" a 8 b 8 c 8
n=$(asked)
case "$stop_why" in "target reached or max-reps (8) after "*" s; then rounds of every pair until max-reps (8)") ;;
*) why+="stop '$stop_why'; " ;; esac
[ -n "$target_at" ] || why+="no target_at; "
after_target=stop
run_case rule_skip "$now" a 3 b 8 c 8
[ "$(asked)" = "$n" ] || why+="asked $n times with rounds after the target, $(asked) without; "
report "--after-target rounds: every pair to --max-reps once decided, no question more" \
	"--after-target rounds to max-reps"

# ... and until the budget: 1 s a slice, 6 a round, decided at the first
# question (12 s; 13 when the clock's second turns during the case), rounds
# until 102 s >= 100
after_target=rounds budget=100 max_reps=50 SLICE_S=1
run_case rule_none "${EPOCHREALTIME%.*}" a 17 b 17 c 17
case "$stop_why" in "target reached after 1"[23]" s; then rounds of every pair until the budget (100 s)") ;;
*) why+="stop '$stop_why'; " ;; esac
case "$target_at" in 1[23]) ;; *) why+="target_at '$target_at', want 12; " ;; esac
[ "$(asked)" = 1 ] || why+="asked $(asked) times, want 1; "
report "--after-target rounds: the budget left in rounds of every pair, the target's time kept" \
	"--after-target rounds to the budget"
after_target=stop
run_case rule_none "${EPOCHREALTIME%.*}" a 2 b 2 c 2
[ "$stop_why" = "target reached" ] || why+="stop '$stop_why'; "
case "$target_at" in 1[23]) ;; *) why+="target_at '$target_at', want 12; " ;; esac
report "--after-target stop: the run ends when every pair is decided" "--after-target stop"
after_target=stop budget=100000 max_reps=8 SLICE_S=0

run_case rule_all $((now - budget))
[ "$(asked)" = 0 ] || why+="asked $(asked) times after the budget; "
[ "$stop_why" = "budget ($budget s)" ] || why+="stop '$stop_why'; "
report "budget spent: the -n minimum, then no new round" "budget spent"

run_case rule_fail "$now"
[ "$failed" = 1 ] || why+="failed=$failed; "
case "$stop_why" in error*) ;; *) why+="stop '$stop_why'; " ;; esac
report "a failed question stops the run as an error, never as 'target reached'" \
	"a failed question"

# pace_for: a new tbf when the payload rate, A's share or the protocol
# changes (the wire rate counts TCP's headers, not UDP's), none otherwise
paced=()
pace_set() { paced+=("$1 $2 $3 $4"); }
rate=5MB rate_Bps=5000000 rate_a=97 cur_pace=none/100/
RUN_TX=(- sendto sendto tcp tcp sendto sendto sendto) RUN_RX=(- plain plain tcp tcp gro gro gro)
RUN_SET=(- A B B A A A A) RUN_FAM=(- 4 4 4 4 4 4 6) RUN_DIR=(- "" "" "" "" "" "" "")
why=
for i in 1 2 3 4 5 6 7; do pace_for "$i" || why+="pace_for $i failed; "; done
got=$(printf '%s;' "${paced[@]}")
want="4850000 udp 97 4;5000000 udp 100 4;5000000 tcp 100 4;4850000 tcp 97 4;4850000 udp 97 4;"
want+="4850000 udp 97 6;"
[ "$got" = "$want" ] || why+="tbf set as '$got'; "
report "pacing: a new tbf when the rate, the protocol or the family changes, none when none does" \
	"pacing by rate, protocol and family"
# the wire rate of a payload rate: IPv4 UDP 42 bytes of headers a 1472-byte
# datagram, IPv6 62 a 1452-byte one, TCP 66 a 1448-byte segment, 86 a 1428
declare -A fam_size=([4]=1472 [6]=1452)
size=1472
for c in "udp 4 41141304" "udp 6 41707989" "tcp 4 41823204" "tcp 6 42408964"; do
	read -r p f w <<<"$c"
	got=$(wire_bps 5000000 "$p" "$f")
	[ "$got" = "$w" ] || why+="wire_bps 5000000 $p $f: $got, not $w; "
done
report "the tbf rate counts each family's and protocol's headers" "wire rate by family"
unset fam_size
rate=""

ci=off reps=3
run_case rule_fail "$now"
[ "$(asked)" = 0 ] || why+="asked $(asked) times with --ci off; "
[ "$stop_why" = "fixed reps (-n 3)" ] || why+="stop '$stop_why'; "
report "--ci off: -n pairs each, planned at once, no question asked" "--ci off"
ktap_finish
