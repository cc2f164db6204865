#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab_campaign.sh: the honesty campaigns of the A/B method (issue 26), default-
# sized udpgso_ab.sh runs one after another, the kinds taking turns so that
# each spreads over the whole campaign:
#   default  udpgso_ab.sh as `make run` runs it
#   aa       A/A: --ab tx:tx-udp-segmentation=on tx:tx-udp-segmentation=on
#            (a pair called "real" is a false call)
#   known    a known effect: the same A/A settings, paced (tbf on the sending
#            veth) to --rate, A at 97% of it: the true A/B of rx MB/s is 0.970
# Every run's command line, stdout and stderr go to DIR/campaign.log, its
# results directory under DIR/KIND/; DIR/summary.md is
# scripts/bench/ab_campaign_summary.py DIR (rerun it any time).  A benchmark,
# not a test: it asserts nothing.
#
#   scripts/bench/ab_campaign.sh [--rounds N] [--kinds LIST] [--rate RATE]
#                                [--until HH:MM] [--out DIR]
#   --rounds N     rounds of every kind (1..100, default 3)
#   --kinds LIST   comma-separated of default, aa, known (default all three)
#   --rate RATE    the known effect's rate of B (udpgso_ab.sh --rate; default 5MB)
#   --until HH:MM  start no run after this UTC time
#   --out DIR      default results/ab-campaign-DATE
set -u
. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog [--rounds N] [--kinds default,aa,known] [--rate RATE]" \
		"[--until HH:MM] [--out DIR]" >&2
	exit 1
}
rounds=3 kinds=default,aa,known rate=5MB until= out=
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:-}; shift 2 || usage ;;
	--kinds) kinds=${2:-}; shift 2 || usage ;;
	--rate) rate=${2:-}; shift 2 || usage ;;
	--until) until=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --rounds N, --kinds LIST, --rate RATE," \
		"--until HH:MM, --out DIR (-h: usage)" ;;
	esac
done
case "$rounds" in '' | 0 | *[!0-9]*) ug_die "--rounds '$rounds': allowed 1..100" ;; esac
[ "$rounds" -le 100 ] || ug_die "--rounds $rounds: allowed 1..100"
[[ "$rate" =~ ^[0-9]+(\.[0-9]+)?[kMG]?B?$ ]] ||
	ug_die "--rate '$rate': allowed NUMBER[k|M|G] bit/s, with a B suffix bytes/s (udpgso_ab.sh --rate)"
[ -z "$until" ] || [[ "$until" =~ ^[0-2][0-9]:[0-5][0-9]$ ]] ||
	ug_die "--until '$until': allowed HH:MM (UTC)"
kl=()
IFS=, read -r -a kl <<<"$kinds"
[ ${#kl[@]} -gt 0 ] || ug_die "--kinds '$kinds': allowed a list of default, aa, known"
for k in "${kl[@]}"; do
	case "$k" in
	default | aa | known) ;;
	*) ug_die "--kinds: '$k' unknown, allowed default, aa, known" ;;
	esac
done
[ -n "$out" ] || out=$UG_TOP/results/ab-campaign-$(date -u +%Y-%m-%d)
mkdir -p "$out" || ug_die "--out '$out': cannot create"
AB=$UG_TOP/scripts/bench/udpgso_ab.sh
AA=(--ab tx:tx-udp-segmentation=on tx:tx-udp-segmentation=on)
log=$out/campaign.log
echo "# $(date -u '+%F %T') UTC: $ug_prog $* (rounds $rounds, kinds $kinds, rate $rate)" >>"$log"
for ((i = 1; i <= rounds; i++)); do
	for k in "${kl[@]}"; do
		if [ -n "$until" ] && [[ "$(date -u +%H:%M)" > "$until" ]]; then
			echo "# $(date -u '+%F %T') UTC: past --until $until, stopping" >>"$log"
			break 2
		fi
		case "$k" in
		default) args=() ;;
		aa) args=("${AA[@]}" --label aa) ;;
		known) args=("${AA[@]}" --rate "$rate" --rate-a 97 --label known97) ;;
		esac
		mkdir -p "$out/$k"
		{
			echo "## round $i $k $(date -u '+%F %T') UTC load $(cut -d' ' -f1-3 /proc/loadavg)"
			echo "## command: $AB ${args[*]} --no-plots --out $out/$k"
		} >>"$log"
		"$AB" "${args[@]}" --no-plots --out "$out/$k" >>"$log" 2>&1
		echo "## exit $? at $(date -u '+%F %T') UTC" >>"$log"
	done
done
python3 "$UG_TOP/scripts/bench/ab_campaign_summary.py" "$out" >"$out/summary.md"
cat "$out/summary.md"
