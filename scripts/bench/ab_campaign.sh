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
#            (--metric mbps: the interval is rx MB/s's, not the CPU cost's)
# Every run's command line, stdout and stderr go to DIR/campaign.log, its
# results directory under DIR/KIND/; DIR/summary.md is
# scripts/bench/ab_campaign_summary.py DIR (rerun it any time).  A benchmark,
# not a test: it asserts nothing.
#
#   scripts/bench/ab_campaign.sh [--rounds N] [--kinds LIST] [--rate RATE]
#                                [--until HH:MM] [--out DIR] [--tx LIST]
#                                [--rx LIST] [--budget SECS] [--gap SECS]
#                                [--family F]
#   --rounds N     rounds of every kind (1..100, default 3)
#   --kinds LIST   comma-separated of default, aa, known (default all three)
#   --rate RATE    the known effect's rate of B (udpgso_ab.sh --rate; default 50MB:
#                  at 5MB a 64 KiB GSO packet leaves tbf in 13 ms steps, 5% of a
#                  0.25 s slice, and the pacer's own A/B is known only to 0.1-0.9%,
#                  results/known-rate-2026-11-28/)
#   --until HH:MM  start no run after this UTC time (its next one: a time
#                  earlier than now is tomorrow's, so a campaign may cross
#                  midnight)
#   --out DIR      default results/ab-campaign-DATE
#   --tx LIST, --rx LIST  the aa and known runs on these tx and rx modes only
#                  (udpgso_ab.sh --tx/--rx; default its whole matrix); a
#                  default run is always `make run`'s
#   --budget SECS  the aa and known runs' udpgso_ab.sh --budget (default its
#                  own: 260 s for 13 pairs); with --tx/--rx, 20 s per pair keeps
#                  every pair's share of a default run
#   --family F     the aa and known runs in address family F: 4, 6 or both
#                  (udpgso_ab.sh --family; default its own, 4)
# A kind may be named more than once in --kinds: the list is one round's order
# (e.g. default,default,aa,known,aa,known with --rounds 1).
#   --gap SECS     seconds of sleep after every run (0..3600, default 0): a low
#                  duty cycle spreads the runs over the hour on a shared machine
#   --host-noise SECS  before every run, scripts/bench/host_noise.py for SECS
#                  per working set (64K, 16M) on CPU 0 (2..600; default 0: off):
#                  the host's own noise at the run's start, in the run's
#                  directory (host_noise.log, .json) and its summary line
#   --host-noise-cpu N  the probe on CPU N instead (0..ncpus-1; the runs pin
#                  the sender to CPU 0 and the receiver to CPU 1)
set -u
. "$(dirname "$0")/../lib.sh"
. "$UG_TOP/scripts/bench/ab_opts.sh"
argv0="$*"

usage() {
	echo "usage: $ug_prog [--rounds N] [--kinds default,aa,known] [--rate RATE]" \
		"[--until HH:MM] [--out DIR] [--tx LIST] [--rx LIST] [--budget SECS] [--gap SECS]" \
		"[--host-noise SECS] [--host-noise-cpu N] [--family F]" >&2
	exit 1
}
rounds=3 kinds=default,aa,known rate=50MB until= out= txl= rxl= budget= gap=0 hn=0 hn_cpu=0 fam=
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:-}; shift 2 || usage ;;
	--kinds) kinds=${2:-}; shift 2 || usage ;;
	--rate) rate=${2:-}; shift 2 || usage ;;
	--until) until=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--tx) txl=${2:-}; shift 2 || usage ;;
	--rx) rxl=${2:-}; shift 2 || usage ;;
	--budget) budget=${2:-}; shift 2 || usage ;;
	--gap) gap=${2:-}; shift 2 || usage ;;
	--host-noise) hn=${2:-}; shift 2 || usage ;;
	--host-noise-cpu) hn_cpu=${2:-}; shift 2 || usage ;;
	--family) fam=${2:-}; shift 2 || usage ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --rounds N, --kinds LIST, --rate RATE," \
		"--until HH:MM, --out DIR, --tx LIST, --rx LIST, --budget SECS, --gap SECS," \
		"--host-noise SECS, --host-noise-cpu N, --family F (-h: usage)" ;;
	esac
done
ab_count_check --rounds "$rounds" 100
[[ "$rate" =~ ^[0-9]+(\.[0-9]+)?[kMG]?B?$ ]] ||
	ug_die "--rate '$rate': allowed NUMBER[k|M|G] bit/s, with a B suffix bytes/s (udpgso_ab.sh --rate)"
deadline=
if [ -n "$until" ]; then
	[[ "$until" =~ ^([01][0-9]|2[0-3]):[0-5][0-9]$ ]] ||
		ug_die "--until '$until': allowed HH:MM (UTC, 00:00..23:59)"
	deadline=$(date -u -d "today $until" +%s) || ug_die "--until '$until': date cannot read it"
	[ "$deadline" -gt "$(date -u +%s)" ] || deadline=$((deadline + 86400))
fi
case "$budget" in *[!0-9]* | 0*) ug_die "--budget '$budget': allowed 10..86400 (udpgso_ab.sh --budget)" ;; esac
[ -z "$budget" ] || { [ "$budget" -ge 10 ] && [ "$budget" -le 86400 ]; } ||
	ug_die "--budget $budget: allowed 10..86400 (udpgso_ab.sh --budget)"
case "$gap" in '' | *[!0-9]*) ug_die "--gap '$gap': allowed 0..3600 (seconds)" ;; esac
[ "$gap" -le 3600 ] || ug_die "--gap $gap: allowed 0..3600 (seconds)"
case "$hn" in
'' | *[!0-9]* | 0?*) ug_die "--host-noise '$hn': allowed 0 (off) or 2..600 (seconds)" ;;
esac
[ "$hn" = 0 ] || { [ "$hn" -ge 2 ] && [ "$hn" -le 600 ]; } ||
	ug_die "--host-noise $hn: allowed 0 (off) or 2..600 (seconds)"
ncpu=$(nproc)
case "$hn_cpu" in
'' | *[!0-9]* | 0?*) ug_die "--host-noise-cpu '$hn_cpu': allowed 0..$((ncpu - 1))" ;;
esac
[ "$hn_cpu" -lt "$ncpu" ] || ug_die "--host-noise-cpu $hn_cpu: allowed 0..$((ncpu - 1))"
case "$fam" in '' | 4 | 6 | both) ;; *) ug_die "--family '$fam': allowed 4, 6 or both" ;; esac
common=()
[ -z "$fam" ] || common+=(--family "$fam")
[ -z "$txl" ] || common+=(--tx "$txl")
[ -z "$rxl" ] || common+=(--rx "$rxl")
[ -z "$budget" ] || common+=(--budget "$budget")
ab_list_check --kinds "$kinds" default aa known
kl=("${ab_list[@]}")
AB=$UG_TOP/scripts/bench/udpgso_ab.sh
AA=(--ab tx:tx-udp-segmentation=on tx:tx-udp-segmentation=on)
# kind_args KIND: udpgso_ab.sh's options for a run of that kind, in args
kind_args() {
	case "$1" in
	default) args=() ;;
	aa) args=("${AA[@]}" --label aa) ;;
	known) args=("${AA[@]}" --rate "$rate" --rate-a 97 --metric mbps --label known97) ;;
	esac
	[ "$1" = default ] || args+=("${common[@]}")
}
# every kind validated once (--dry-run: what udpgso_ab.sh needs, tools
# built, options) before the first run, instead of N rounds of one error
for k in "${kl[@]}"; do
	kind_args "$k"
	err=$("$AB" "${args[@]}" --dry-run 2>&1 >/dev/null) ||
		{ err=${err##*$'\n'}; ug_die "$k runs cannot start: ${err#udpgso_ab.sh: }"; }
done
ab_out_dir ab-campaign
log=$out/campaign.log
ab_log_head "$log" "$argv0" "rounds $rounds, kinds $kinds, rate $rate"
for ((i = 1; i <= rounds; i++)); do
	for k in "${kl[@]}"; do
		if [ -n "$deadline" ] && [ "$(date -u +%s)" -gt "$deadline" ]; then
			echo "# $(date -u '+%F %T') UTC: past --until $until" \
				"($(date -u -d "@$deadline" '+%F %T')), stopping" >>"$log"
			break 2
		fi
		kind_args "$k"
		mkdir -p "$out/$k"
		hn_dir=$out/$k/.host_noise
		[ "$hn" = 0 ] || ab_logged_run "$log" "round $i $k host noise" \
			python3 "$UG_TOP/scripts/bench/host_noise.py" --cpu "$hn_cpu" --secs "$hn" --out "$hn_dir"
		before=$(ls "$out/$k")
		ab_logged_run "$log" "round $i $k" "$AB" "${args[@]}" --no-plots --out "$out/$k"
		# the probe goes into the results directory the run created
		new=$(comm -13 <(echo "$before") <(ls "$out/$k"))
		if [ -d "$hn_dir" ] && [ -n "$new" ] && [ -d "$out/$k/$new" ]; then
			mv "$hn_dir"/host_noise.* "$out/$k/$new/"
		fi
		rm -rf "$hn_dir"
		[ "$gap" = 0 ] || sleep "$gap"
	done
done
python3 "$UG_TOP/scripts/bench/ab_campaign_summary.py" "$out" >"$out/summary.md"
cat "$out/summary.md"
