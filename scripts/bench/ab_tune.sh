#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab_tune.sh: which in-run window length and window pairs per run (or the
# per-process slices) give the narrowest A/B interval in the time a default
# `make run` gives one tx/rx pair (its --budget over its 13 pairs: about
# 20 s).  One alternating session: every round runs each configuration
# once on each case, the configurations' order rotated per round, so that
# every configuration meets the same periods of the machine.  Cases:
#   flag     sendto -> plain, tx-udp-segmentation on/off (a non-GSO sender:
#            the flag cannot act, the effect does not depend on the state)
#   aa       gso-cmsg -> plain, A/A (tx-udp-segmentation on both sides)
#   gso      gso-cmsg -> plain, tx-udp-segmentation on/off (a GSO pair)
# Each cell is one udpgso_ab.sh run of one pair with --budget SECS and a
# target it cannot reach (--ci 95,0.1), so that every configuration spends
# the same wall time; ab_tune_summary.py DIR then reports per configuration
# and case the half-width reached, the runs, the within- and between-run
# variances and the half-width those predict for --at seconds (default 20).
# A benchmark, not a test: it asserts nothing.
#
#   scripts/bench/ab_tune.sh [--rounds N] [--budget SECS] [--configs LIST]
#                            [--cases LIST] [--out DIR]
#   --rounds N      rounds (1..20, default 3)
#   --budget SECS   udpgso_ab.sh --budget of every cell (10..600, default 20)
#   --configs LIST  comma-separated WINDOWxPAIRS (inrun: ms x window pairs
#                   per run) or 'slices' (default
#                   200x2,200x8,500x2,500x4,1000x1,1000x2,slices)
#   --cases LIST    comma-separated of flag, aa, gso (default all three)
#   --out DIR       default results/ab-tune-DATE
set -u
. "$(dirname "$0")/../lib.sh"
. "$UG_TOP/scripts/bench/ab_opts.sh"
argv0="$*"

rounds=3 budget=20 configs=200x2,200x8,500x2,500x4,1000x1,1000x2,slices
cases=flag,aa,gso out=
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:-}; shift 2 || ug_die "--rounds needs N (1..20)" ;;
	--budget) budget=${2:-}; shift 2 || ug_die "--budget needs SECS (10..600)" ;;
	--configs) configs=${2:-}; shift 2 || ug_die "--configs needs a LIST" ;;
	--cases) cases=${2:-}; shift 2 || ug_die "--cases needs a LIST" ;;
	--out) out=${2:-}; shift 2 || ug_die "--out needs a DIR" ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --rounds N, --budget SECS, --configs LIST," \
		"--cases LIST, --out DIR (-h: usage)" ;;
	esac
done
ab_count_check --rounds "$rounds" 20
case "$budget" in '' | *[!0-9]*) ug_die "--budget '$budget': allowed 10..600" ;; esac
[ "$budget" -ge 10 ] && [ "$budget" -le 600 ] || ug_die "--budget $budget: allowed 10..600"
IFS=, read -r -a cl <<<"$configs"
[ ${#cl[@]} -gt 0 ] || ug_die "--configs '$configs': allowed WINDOWxPAIRS or slices, comma-separated"
for c in "${cl[@]}"; do
	[ "$c" = slices ] && continue
	[[ "$c" =~ ^([0-9]+)x([0-9]+)$ ]] ||
		ug_die "--configs: '$c' is not WINDOWxPAIRS (e.g. 500x4) or slices"
	w=${BASH_REMATCH[1]} p=${BASH_REMATCH[2]}
	[ "$w" -ge 100 ] && [ "$w" -le 10000 ] && [ $((w % 100)) = 0 ] ||
		ug_die "--configs: window $w in '$c': allowed 100..10000 ms, a multiple of 100"
	[ "$p" -ge 1 ] && [ "$p" -le 20 ] || ug_die "--configs: pairs $p in '$c': allowed 1..20"
done
ab_list_check --cases "$cases" flag aa gso
kl=("${ab_list[@]}")
ab_out_dir ab-tune
AB=$UG_TOP/scripts/bench/udpgso_ab.sh
log=$out/tune.log
ab_log_head "$log" "$argv0" "rounds $rounds, budget $budget, configs $configs, cases $cases"
for ((i = 1; i <= rounds; i++)); do
	# rotate the configurations' order by one per round
	k=$(((i - 1) % ${#cl[@]}))
	order=("${cl[@]:k}" "${cl[@]:0:k}")
	for c in "${order[@]}"; do
		for k in "${kl[@]}"; do
			case "$k" in
			flag) args=(--tx sendto --rx plain) ;;
			aa) args=(--tx gso-cmsg --rx plain
				--ab tx:tx-udp-segmentation=on tx:tx-udp-segmentation=on) ;;
			gso) args=(--tx gso-cmsg --rx plain) ;;
			esac
			if [ "$c" = slices ]; then
				args+=(--method slices)
			else
				args+=(--method inrun --window "${c%x*}" --window-pairs "${c#*x}")
			fi
			args+=(--ci 95,0.1 --max-reps 200 --budget "$budget" --no-plots
				--label "tune-$c-$k-r$i" --out "$out/cells")
			mkdir -p "$out/cells"
			ab_logged_run "$log" "round $i config $c case $k" "$AB" "${args[@]}"
		done
	done
done
python3 "$UG_TOP/scripts/bench/ab_tune_summary.py" "$out" >"$out/summary.md"
cat "$out/summary.md"
