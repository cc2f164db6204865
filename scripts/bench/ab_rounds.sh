# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the rounds of scripts/bench/udpgso_ab.sh (sourced by it; functions
# only; they use its settings and state).  A round gives every tx/rx pair
# that still needs it one pair of slices, A and B back to back, A B or B A
# alternating by round and pair so that a drift hits both.  Before its first
# pair, a pair gets one warm-up slice of each setting (raw/warmup/, never
# counted; in --rate PCT% mode they measure its capacity).  With --ci, after
# the minimum -n rounds, ab_report.py --pending names the pairs whose
# interval is still wider than the target; a pair stops at its own
# --max-reps pairs (a pair's slices are numbered by its own pairs, rep 1..,
# not by the round), and the run stops when no pair is left or when
# --budget seconds of measuring have passed.  A pair
# that the rest of the budget (or --max-reps) cannot bring to the target at
# the noise of its pairs so far stops early ("out of reach", listed in the
# results directory's out_of_reach), so that the budget goes to the pairs
# that can reach it, those whose interval still reaches into the target's
# band around 1.0 before those wholly beyond it (ab_stats.decided: their
# verdict given); when every pair left is out of reach, what remains of
# the budget still goes to the nearest of them (ab_stats.spend_left).  The
# question is asked of one ab_report.py --serve for the whole run.  Once
# every pair is decided, with --after-target rounds (the default) the
# budget left goes to rounds of every pair (below --max-reps): make
# compare's headline family takes each pair's level against its mates of
# the same round, and the runs that spent their budget in such rounds
# found a 20% cut far more often than the same runs cut to their first 6
# rounds (results/compare-rounds-2026-11-28b).
# shellcheck shell=bash

declare -a RUN_TX RUN_RX RUN_SET RUN_REP RUN_CFG RUN_DIR RUN_PI RUN_FAM
declare -A pair_rate
declare -a pair_reps	# pair index -> pairs of slices planned for it
n_runs=0 n_meas=0 meas_i=0 run_i=0
failed=0 cur_set="" cur_pace=none/100/ stop_why= target_at=

fmt_t() { printf -v "$1" '%d:%02d' $(($2 / 60)) $(($2 % 60)); }

plan() {	# PI SET REP DIR
	local tx rx fam si=0
	read -r tx rx fam <<<"${pairs[$1]}"
	[ "$2" = B ] && si=1
	n_runs=$((n_runs + 1))
	RUN_TX[n_runs]=$tx RUN_RX[n_runs]=$rx RUN_SET[n_runs]=$2 RUN_REP[n_runs]=$3
	RUN_CFG[n_runs]=$(($1 * ${#settings[@]} + si + 1)) RUN_DIR[n_runs]=$4 RUN_PI[n_runs]=$1
	RUN_FAM[n_runs]=${fam:-4}
	[ -n "$4" ] || n_meas=$((n_meas + 1))
}

plan_round() {	# PAIR_INDEX...: one more pair of slices each (its next rep)
	local rep pi set
	local -a order
	for pi in "$@"; do
		rep=$((${pair_reps[pi]:-0} + 1))
		pair_reps[pi]=$rep
		order=("${settings[@]}")
		if [ ${#settings[@]} = 2 ] && [ $(((rep + pi) % 2)) = 0 ]; then order=(B A); fi
		if [ "$rep" = 1 ] && [ "$warmup" = 1 ]; then
			for set in "${order[@]}"; do plan "$pi" "$set" 0 warmup/; done
		fi
		for set in "${order[@]}"; do plan "$pi" "$set" "$rep" ""; done
	done
}

# pace_for N: the pacing of slice N (a tbf rate, or none), set when it changes;
# the tbf rate counts the wire's headers, TCP's not UDP's and IPv6's not
# IPv4's (wire_bps), so a TCP or IPv6 slice after another at the same payload
# rate needs its own (until 2026-11-28 the key was the payload rate alone:
# the first slice of a pair after the other protocol's ran 1.6% off its pace
# line; until 2026-11-29 IPv6 was charged IPv4's headers)
pace_for() {
	local n=$1 key want pct=100 proto=udp pk
	if [ -z "$rate" ]; then return 0; fi
	[ "${RUN_TX[n]}" = tcp ] && proto=tcp
	key=${RUN_TX[n]}/${RUN_RX[n]}
	[ "${RUN_FAM[n]}" = 4 ] || key+=/v${RUN_FAM[n]}
	if [ -n "$rate_pct" ] && [ -n "${RUN_DIR[n]}" ]; then
		want=none	# warm-up slices measure the capacity
	else
		if [ -z "${pair_rate[$key]:-}" ]; then
			if [ -n "$rate_pct" ]; then
				pair_rate[$key]=$(($(warm_capacity "${RUN_TX[n]}" "${RUN_RX[n]}") * rate_pct / 100))
			else
				pair_rate[$key]=$rate_Bps
			fi
		fi
		want=${pair_rate[$key]}
		[ "${RUN_SET[n]}" = A ] && want=$((want * rate_a / 100)) pct=$rate_a
	fi
	# A's bucket is scaled as its rate (pace_set's PCT): both make the pacing
	[ "$want" = none ] && proto=
	pk=$want/$pct/$proto
	[ "$want" = none ] || pk+=/${RUN_FAM[n]}
	[ "$pk" = "$cur_pace" ] && return 0
	if [ "$want" = none ] || [ "$want" -le 0 ]; then
		L tc qdisc del dev "$dev_tx" root </dev/null >/dev/null 2>&1
		pace_line=
	else
		pace_set "$want" "$proto" "$pct" "${RUN_FAM[n]}" ||
			{ ug_err "tc qdisc replace dev $dev_tx root tbf failed"; return 1; }
	fi
	cur_pace=$pk
}

# run_planned: every planned slice not run yet
run_planned() {
	local now el left what of_reps="<=$max_reps"
	[ "$ci" = off ] && of_reps=$reps
	while [ "$run_i" -lt "$n_runs" ]; do
		run_i=$((run_i + 1))
		set=${RUN_SET[run_i]}
		if [ "$set" != "$cur_set" ]; then
			apply_setting "$set" || { ug_err "ethtool -K for setting $set failed"; exit 1; }
			cur_set=$set
		fi
		pace_for "$run_i" || exit 1
		now=${EPOCHREALTIME%.*}
		el=$((now - t_mat))
		if [ -n "${RUN_DIR[run_i]}" ]; then
			what="warm-up"
		else
			meas_i=$((meas_i + 1))
			what="run $meas_i/$n_meas"
		fi
		if [ "$ci" = off ]; then
			left=0
			[ "$run_i" -gt 1 ] && left=$((el * (n_runs - run_i + 1) / (run_i - 1)))
			fmt_t left_s "$left"
			left_s="left ~$left_s"
		else
			left=$((budget - el)); [ "$left" -ge 0 ] || left=0
			fmt_t left_s "$left"
			left_s="budget left $left_s"
		fi
		fmt_t el_s "$el"
		printf '%s: config %d/%d %s  %-12s -> %-8s v%s %s rep %d/%s  elapsed %s  %s\n' \
			"$ug_prog" "${RUN_CFG[run_i]}" "$n_configs" "$what" "${RUN_TX[run_i]}" \
			"${RUN_RX[run_i]}" "${RUN_FAM[run_i]}" "$set" "${RUN_REP[run_i]}" \
			"$of_reps" "$el_s" "$left_s" >&2
		run_one "$run_i" "${RUN_CFG[run_i]}" "${RUN_TX[run_i]}" "${RUN_RX[run_i]}" "$set" \
			"${RUN_REP[run_i]}" || failed=$((failed + 1))
	done
}

# pend_start: ab_report.py --serve, asked after each round through fifos
# (one Python for the run: a round's question then costs about 10 ms, not
# a start and a parse of every slice so far, 0.2-0.6 s; pend_stop ends it)
pend_in="" pend_out="" pend_pid=""
pend_start() {
	mkfifo "$tmp/pend.in" "$tmp/pend.out" || return 1
	"$py_stats" "$AB_DIR/ab_report.py" "$resdir" --serve \
		<"$tmp/pend.in" >"$tmp/pend.out" &
	pend_pid=$!
	exec {pend_in}>"$tmp/pend.in" {pend_out}<"$tmp/pend.out"
}

pend_stop() {
	[ -n "$pend_in" ] || return 0
	exec {pend_in}>&- {pend_out}<&-
	wait "$pend_pid" 2>/dev/null
	pend_in="" pend_out=""
}

# pend_ask ELAPSED: the server's answer (its lines before @@END); 1 when it
# failed or is gone (a reply is waited for at most 120 s)
pend_ask() {
	local line
	[ -n "$pend_in" ] || return 1
	printf 'pending %s\n' "$1" 2>/dev/null >&"$pend_in" || return 1
	while IFS= read -r -t 120 -u "$pend_out" line; do
		case "$line" in
		@@END) return 0 ;;
		@@FAIL) return 1 ;;
		*) printf '%s\n' "$line" ;;
		esac
	done
	return 1
}

# pending_pairs ELAPSED: the indexes of the pairs whose interval is not yet
# within target and still within reach of it (ab_report.py's out-of-reach
# rule, against the budget); 1 when the report failed (never taken for
# "none left")
pending_pairs() {
	local out tx rx fam pi
	out=$(pend_ask "$1") || return 1
	# (the loop's own status is its last comparison's: not the function's)
	while read -r tx rx fam; do
		[ -n "$tx" ] || continue
		for pi in "${!pairs[@]}"; do
			if [ "${pairs[$pi]}" = "$tx $rx ${fam:-4}" ]; then echo "$pi"; fi
		done
	done <<<"$out"
	return 0
}

# below_max PAIR_INDEX...: those with fewer than --max-reps pairs planned
# (ab_report.py leaves out the pairs at max-reps too; this holds the cap
# also when some of a pair's slices failed and it counted fewer)
below_max() {
	local pi
	for pi in "$@"; do
		[ "${pair_reps[pi]:-0}" -lt "$max_reps" ] && echo "$pi"
	done
	return 0
}

# every_pair: the pairs below --max-reps, into todo (the rounds after the
# target: --after-target rounds)
every_pair() { mapfile -t todo < <(below_max "${!pairs[@]}"); }

run_rounds() {
	local round=0 el pend decided=
	local -a todo=("${!pairs[@]}")
	# fixed -n: every round is planned at once (so the total is known)
	if [ "$ci" = off ] || [ ${#settings[@]} -lt 2 ]; then
		for ((round = 1; round <= reps; round++)); do plan_round "${todo[@]}"; done
		run_planned
		stop_why="fixed reps (-n $reps)"
		return
	fi
	pend_start || { ug_err "cannot start ab_report.py --serve"; exit 1; }
	while :; do
		round=$((round + 1))
		plan_round "${todo[@]}"
		run_planned
		[ "$round" -lt "$reps" ] && continue
		el=$((${EPOCHREALTIME%.*} - t_mat))
		if [ "$el" -ge "$budget" ]; then
			stop_why="${decided:+$decided; then rounds of every pair until the }budget (${budget} s)"
			break
		fi
		if [ -n "$decided" ]; then
			every_pair
			[ ${#todo[@]} -gt 0 ] && continue
			stop_why="$decided; then rounds of every pair until max-reps ($max_reps)"
			break
		fi
		if ! pend=$(pending_pairs "$el"); then
			ug_err "ab_report.py --pending failed: stopping after round $round"
			stop_why="error (ab_report.py --pending failed)"
			failed=$((failed + 1))
			break
		fi
		todo=()
		if [ -n "$pend" ]; then
			mapfile -t todo <<<"$pend"
			mapfile -t todo < <(below_max "${todo[@]}")
		fi
		if [ ${#todo[@]} = 0 ]; then
			stop_why="target reached"
			[ "$(below_max "${!pairs[@]}" | wc -l)" = ${#pairs[@]} ] ||
				stop_why="target reached or max-reps ($max_reps)"
			[ -s "$resdir/out_of_reach" ] &&
				stop_why="$stop_why or out of reach (the budget left went to the nearest)"
			target_at=$el
			if [ "$after_target" = rounds ]; then
				every_pair
				if [ ${#todo[@]} -gt 0 ]; then
					decided="$stop_why after $el s"
					echo "$ug_prog: round $round done: every pair decided after $el s;" \
						"the budget left goes to rounds of every pair (--after-target rounds)" >&2
					continue
				fi
			fi
			break
		fi
		echo "$ug_prog: round $round done: ${#todo[@]} pair(s) above ±${ci#*,}%" >&2
	done
	pend_stop
}
