#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab_stats_test.sh: tests of the A/B statistics and of the interval and
# fixed-rate options of scripts/bench/udpgso_ab.sh:
#   - scripts/tests/ab_stats_test.py: the interval on known data, A/A coverage,
#     a known effect inside its interval, the stop rule, the outlier rule
#     (outliers named, kept in the verdict: simulated A/A runs of 6 pairs call
#     at most 5%, and the campaign's one false call is not called), medians,
#     paired ratios, cost per GiB and per datagram, steal share, the p-value
#     and Holm's correction (13-pair A/A runs call nothing);
#   - scripts/tests/ab_inrun_test.py: the in-run method's statistics (runs as
#     the unit, between- and within-run variance, the spread rule, coverage
#     and A/A calls on simulated two-level data, the settle time, the budget
#     order, windows read from a raw log, compare's pair level per run);
#   - scripts/tests/ab_robust_test.py: the robust intervals evaluated for the
#     slices method (ab_robust.py: the trimmed-mean t and the exact signed
#     rank, by hand and against enumeration; A/A and known-effect simulations)
#     and ab_budget_eval.py's replays of make run's budget (the rounds and the
#     budget kept, open verdicts before decided ones, the smoothed draws);
#   - scripts/tests/bpf_toggle_test.py: bpf_toggle_summary.py's windows on logs
#     written as bpf_toggle.sh writes them (transition seconds left out, each
#     mode against its neighbours, the 3% verdicts, a failed window);
#   - scripts/tests/host_noise_test.py: host_noise.py's noise of the host on
#     copy-loop logs written here (the sd of adjacent 1 s blocks, blocks by
#     the clock, the first step left out), and one 2 s run of it with its bad
#     input;
#   - bad input (--ci 150,3, --ci 95, --max-reps 0, a rate above what the
#     device can take, ...; bpf_toggle.sh's options): exit 1, one line naming
#     the value and what is allowed, no results directory, no namespace, no
#     setting changed;
#   - three short real runs on the local veth pair: an interval-driven one
#     (warm-up apart, pinned, the stop rule as its intervals say), a
#     fixed-rate one (paced as asked, A at 97%, never above the rate) and an
#     IPv6 one (each UDP receiver stopped once its queue is read empty).
#
#   scripts/tests/ab_stats_test.sh
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

AB=$UG_TOP/scripts/bench/udpgso_ab.sh
SNAP=$UG_TOP/scripts/snapshot.sh

ktap_header
if ! why=$(ug_need_cmd python3); then
	ktap_skip "ab_stats_test" "$why"
	ktap_finish
fi

# ---- the statistics on known data ---------------------------------------------
while read -r verdict rest; do
	case "$verdict" in
	PASS) ktap_ok "stats: $rest" ;;
	FAIL) ktap_fail "stats: ${rest%%:*}" "${rest#*: }" ;;
	*) ktap_fail "stats: unexpected output" "$verdict $rest" ;;
	esac
done < <(python3 "$UG_TOP/scripts/tests/ab_stats_test.py" 2>&1;
	 python3 "$UG_TOP/scripts/tests/ab_inrun_test.py" 2>&1 | sed 's/^\(PASS\|FAIL\) /\1 inrun: /';
	 python3 "$UG_TOP/scripts/tests/ab_robust_test.py" 2>&1 | sed 's/^\(PASS\|FAIL\) /\1 robust: /';
	 python3 "$UG_TOP/scripts/tests/bpf_toggle_test.py" 2>&1 | sed 's/^\(PASS\|FAIL\) /\1 bpf_toggle: /';
	 python3 "$UG_TOP/scripts/tests/host_noise_test.py" 2>&1 | sed 's/^\(PASS\|FAIL\) /\1 host_noise: /')

# ---- host_noise.py: a short real run and its bad input -------------------------
HN=$UG_TOP/scripts/bench/host_noise.py hn_why=
hn_tmp=$(mktemp -d)
if ! command -v cc >/dev/null && ! command -v gcc >/dev/null; then
	ktap_skip "host_noise: a 2 s run" "no C compiler"
elif out=$("$HN" --secs 2 --sizes 64K --out "$hn_tmp" 2>&1) &&
	[[ "$out" =~ 64K\ copy:\ [0-9.]+\ GB/s ]] &&
	hn_why=$(python3 "$UG_TOP/scripts/tests/host_noise_test.py" --check-run \
		"$hn_tmp/host_noise.json" 2>&1); then
	ktap_ok "host_noise: a 2 s run (64K copy, 2 blocks of 1 s, a rate)"
else
	ktap_fail "host_noise: a 2 s run" "$out ${hn_why:-}"
fi
for bad in "--sizes 3K|4K..1G" "--secs 1|2..3600" "--cpu 4096|online CPUs" "--step-ms 5|10..1000"; do
	# shellcheck disable=SC2086 # the option and its value, split on purpose
	out=$("$HN" ${bad%%|*} --out "$hn_tmp/bad" 2>&1)
	rc=$?
	if [ "$rc" = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		[[ "$out" == *"${bad#*|}"* ]] && [ ! -e "$hn_tmp/bad" ]; then
		ktap_ok "host_noise: bad input ${bad%%|*}: one line, exit 1, nothing written"
	else
		ktap_fail "host_noise: bad input ${bad%%|*}" "rc $rc: $out"
	fi
done
rm -rf "$hn_tmp"

# ---- bad input ------------------------------------------------------------------
if ! why=$(ug_need_root) || ! why=$(ug_need_cmd ip ethtool tc); then
	ktap_skip "bad input" "$why"
	ktap_finish
fi
ug_trap_install
tmp=$(mktemp -d)
defer rm -rf "$tmp"
out=$tmp/results
# the machine's own state (other tests may add or remove namespaces meanwhile)
state() { bash "$SNAP" save | grep -v '^netns '; }
base=$(state)

# bad NAME WANT ARGS...: exit 1, one stderr line that contains WANT (the value
# and what is allowed), no results, no namespace of that run, nothing changed
bad() {
	local name=$1 want=$2 rc lines pid
	shift 2
	rm -rf "$out"
	"${BAD_CMD:-$AB}" --out "$out" "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait "$pid"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ]; then
		ktap_fail "bad input: $name" "exit $rc, $lines stderr lines"
		sed 's/^/# /' "$tmp/err"
	elif ! grep -qF -- "$want" "$tmp/err" || ! grep -q 'allowed' "$tmp/err"; then
		ktap_fail "bad input: $name" "the line does not name '$want' and what is allowed"
		sed 's/^/# /' "$tmp/err"
	elif [ -e "$out" ] || ip netns list | grep -q "^ug$pid-"; then
		ktap_fail "bad input: $name" "created something"
	elif [ "$(state)" != "$base" ]; then
		ktap_fail "bad input: $name" "changed a setting"
	else
		ktap_ok "bad input: $name: $(cat "$tmp/err")"
	fi
}
bad "--ci level above 99.9" "--ci 150,3" --ci 150,3
bad "--ci without a width" "--ci '95'" --ci 95
bad "--ci width 0" "--ci 95,0" --ci 95,0
bad "--max-reps 0" "--max-reps 0" --max-reps 0
bad "--max-reps below -n" "--max-reps 3" --ci 95,3 -n 5 --max-reps 3
bad "--method unknown" "--method 'fast': allowed auto, inrun, slices" --method fast
bad "--window not a multiple of 100" "--window 250: allowed a multiple of 100" --window 250
bad "--window-pairs 0" "--window-pairs 0: out of range, allowed 1..20" --window-pairs 0
bad "--method inrun with one setting" "--method inrun: needs two settings" --method inrun --preset none
bad "--budget 5" "--budget 5" --budget 5
bad "--after-target unknown" "--after-target 'more': allowed rounds, stop" --after-target more
bad "a rate above what the device can take" "--rate 20G" --rate 20G
bad "a rate in bytes above it" "--rate 2GB" --rate 2GB
bad "a share above 100%" "--rate 150%" --rate 150%
bad "a rate with no unit it knows" "--rate '5T'" --rate 5T
bad "--rate PCT% without warm-up" "--rate 90%" --rate 90% --no-warmup
bad "--rate-a without --rate" "--rate-a 97" --rate-a 97
bad "--rate-a under what keeps a GSO packet in A's bucket" "--rate-a 50: out of range, allowed 55..100" \
	--rate 5MB --rate-a 50
bad "an unknown metric" "--metric 'pps'" --metric pps
bad "an unknown receive window" "--rx-window 'wire': allowed kernel, reads" --rx-window wire
bad "--secs under 0.2" "--secs 0.1: out of range, allowed 0.2..60" --secs 0.1
bad "--secs with 4 decimals" "--secs '1.2345': not a number of seconds, allowed 0.2..60" --secs 1.2345
# the BPF overhead benchmark that toggles the programs around one long run
BAD_CMD=$UG_TOP/scripts/bench/bpf_toggle.sh
bad "bpf_toggle.sh --windows 0" "--windows '0'" --windows 0
bad "bpf_toggle.sh --window 1" "--window '1'" --window 1
bad "bpf_toggle.sh an unknown mode" "--modes: 'fast'" --modes on,fast
bad "bpf_toggle.sh mode old without --old" "'old' needs --old PATH" --modes old
bad "bpf_toggle.sh an unknown workload" "--workloads: 'tcp'" --workloads tcp
# the campaigns: each kind's udpgso_ab.sh options checked before the first run
BAD_CMD=$UG_TOP/scripts/bench/ab_campaign.sh
bad "ab_campaign.sh a run that cannot start" "aa runs cannot start: --tx: unknown mode 'bogus'" \
	--kinds aa --rounds 1 --tx bogus
bad "ab_campaign.sh --rounds 0" "--rounds" --rounds 0
bad "ab_campaign.sh --host-noise 1" "--host-noise 1: allowed 0 (off) or 2..600" --host-noise 1
bad "ab_campaign.sh --host-noise-cpu past the last CPU" \
	"--host-noise-cpu $(nproc): allowed 0..$(($(nproc) - 1))" --host-noise-cpu "$(nproc)"
bad "ab_campaign.sh --until 24:00" "--until '24:00': allowed HH:MM (UTC, 00:00..23:59)" --until 24:00
bad "ab_campaign.sh --family 5" "--family '5': allowed 4, 6 or both" --family 5
unset BAD_CMD

# ---- three short real runs --------------------------------------------------------
# real NAME KIND ARGS...: the run exits 0 and its results.json passes the
# checks of ab_stats_test.py --check-run (KIND ci or rate)
real() {
	local name=$1 kind=$2 dir rc
	shift 2
	rm -rf "$out"
	if [ ! -x "$UDPGSO_BIN/udpgso_bench_tx" ] || [ ! -x "$UDPGSO_BIN/udpgso_bench_rx" ]; then
		ktap_fail "$name" "tools not built (run make)"
		return
	fi
	"$AB" --out "$out" --label "$kind" --no-plots "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	dir=$(ls -d "$out"/*-"$kind" 2>/dev/null | head -n1)
	if [ "$rc" -ne 0 ] || [ -z "$dir" ]; then
		ktap_fail "$name" "exit $rc"
		tail -n3 "$tmp/err" | sed 's/^/# /'
	elif python3 "$UG_TOP/scripts/tests/ab_stats_test.py" --check-run "$dir" "$kind"; then
		ktap_ok "$name"
	else
		ktap_fail "$name"
	fi
}
if [ "$(nproc)" -lt 2 ]; then
	ktap_skip "interval-driven run" "one CPU: nothing to pin to"
	ktap_skip "fixed-rate run" "one CPU: nothing to pin to"
	ktap_skip "IPv6 run" "one CPU: nothing to pin to"
else
	real "interval-driven run: warm-up apart, pinned, stop rule as the intervals say" ci \
		--method slices --tx gso-cmsg,tcp --rx gro --ci 95,40 -n 2 --max-reps 4 --no-perf
	real "fixed-rate run: paced as asked (A at 97%), never above the rate, cost per GiB" rate \
		--method slices --tx gso-cmsg --rx gro --rate 40M --rate-a 97 --ci off -n 2 --no-perf
	real "IPv6 run: each UDP receiver stopped as soon as its socket queue is read empty" ci \
		--family 6 --method slices --tx sendto,gso-cmsg --rx plain --ci 95,40 -n 2 \
		--max-reps 4 --no-perf
fi
ktap_finish
