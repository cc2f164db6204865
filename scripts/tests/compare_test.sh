#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/bench/ab_compare.py (docs/compare.md): the statistics on known data
# (compare_stats_test.py, compare_levels_test.py), verdicts on committed default runs and changed
# copies of them (itself: within noise, exit 0; one configuration 20% slower:
# exit 1 naming it; two committed runs of the same code five minutes apart:
# no regression), each interval on its own (--per-interval), the committed
# guest runs, bad input (exit 2, one line each), udpgso_ab.sh --baseline
# (dry run) and bisect_step.sh's exit 125.  The headline family, the verdict
# of runs that name their method: compare_headline_test.sh.
# Nothing here boots a guest; one case (udpgso_ab.sh --baseline, a real run)
# sends traffic on the veth pair of its own namespaces, about 30 s.
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"
. "$UG_TOP/scripts/tests/compare_lib.sh"

# ---- the statistics ---------------------------------------------------------------
while read -r st num name rest; do
	case "$st" in
	ok) ktap_ok "stats: $name" ;;
	not) read -r num name rest <<<"$name $rest"
	     ktap_fail "stats: $name" "${rest#*# }" ;;
	'#') echo "$st $num $name $rest" ;;
	*) ktap_fail "stats: unexpected output" "$st $num $name $rest" ;;
	esac
done < <(python3 scripts/tests/compare_stats_test.py "$BASE" 2>&1 ||
	 echo "not ok 0 compare_stats_test.py # exit $?")
# the headline family's levels (ugtest.py: PASS/FAIL lines)
while read -r st rest; do
	case "$st" in
	PASS) ktap_ok "levels: $rest" ;;
	FAIL) ktap_fail "levels: ${rest%%:*}" "${rest#*: }" ;;
	*) ktap_fail "levels: unexpected output" "$st $rest" ;;
	esac
done < <(python3 scripts/tests/compare_levels_test.py 2>&1 ||
	 echo "FAIL compare_levels_test.py: exit $?")

# ---- verdicts on the committed run ---------------------------------------------------
run_cmp self "$BASE" "$BASE" --json
if [ "$(rc_of self)" = 0 ] && [ ! -s "$tmp/self.err" ] &&
   ug_jcheck "$tmp/self.out" "count == {'within noise': 26}" "exit == 0"; then
	ktap_ok "the committed run against itself: 26 within noise, exit 0"
else
	ktap_fail "the committed run against itself" "exit $(rc_of self), $(head -1 "$tmp/self.err")"
fi

# ---- the default: Holm over the table ---------------------------------------------------
# 3 reps a side cannot give a family-wise verdict: a 20% drop is no regression
# there, and the notes say how many reps would do
"$MUT" "$BASE" "$tmp/slow" scale sendmmsg plain A rx_MBps 0.8
run_cmp fam3 "$BASE" "$tmp/slow" --json
if [ "$(rc_of fam3)" = 0 ] && ug_jcheck "$tmp/fam3.out" "family" "cells == 78" \
	"family_cells == 0" "count == {'within noise': 26}" \
	"[1 for p in pairs for m in p.metrics.values()
	  if '7 a side would do' not in m.note] == []"; then
	ktap_ok "default with 3 reps: no verdict, says 7 reps a side are needed"
else
	ktap_fail "default with 3 reps" "exit $(rc_of fam3)"
fi
run_cmp famflag "$BASE" "$tmp/slow" --family --json
cmp -s "$tmp/fam3.out" "$tmp/famflag.out" && ktap_ok "--family is the default" ||
	ktap_fail "--family is the default" "output differs"

# sendmmsg/plain A in RUN2: 204 MB/s [188-211] over 9 reps, so 20% stands out
# even at the family-wise level (99.94% for the first of 78 intervals)
"$MUT" "$RUN2" "$tmp/slow9" scale sendmmsg plain A rx_MBps 0.8
run_cmp slow9 "$RUN2" "$tmp/slow9" --out "$tmp/slow9.d" --no-plot
if [ "$(rc_of slow9)" = 1 ] && [ "$(lines "$tmp/slow9.err")" = 1 ] &&
   grep -q "regression: sendmmsg/plain A: throughput -20.0%" "$tmp/slow9.err" &&
   ug_jcheck "$tmp/slow9.d/compare.json" "family" "family_cells == 78" \
	"count == {'regression': 1, 'within noise': 25}"; then
	ktap_ok "default, 9 reps, sendmmsg/plain A 20% slower: exit 1, named: $(cat "$tmp/slow9.err")"
else
	ktap_fail "default, 9 reps, sendmmsg/plain A 20% slower" \
		"exit $(rc_of slow9): $(head -2 "$tmp/slow9.err")"
fi
row='| sendmmsg | plain | A | 9/9 | 204 -> 163 | -20.0% [-27.0, -12.3] **regression** |'
if grep -qF "$row" "$tmp/slow9.out"; then
	ktap_ok "Markdown row of the slower configuration (its interval at its Holm level)"
else
	ktap_fail "Markdown row of the slower configuration" \
		"$(grep -F '| sendmmsg | plain | A' "$tmp/slow9.out")"
fi
# sendmmsg/plain A's tools' CPU per GiB: 6.92 [6.75-7.42] s
"$MUT" "$RUN2" "$tmp/dear9" scale sendmmsg plain A proc_cpu_s_per_GiB 1.2
run_cmp dear9 "$RUN2" "$tmp/dear9"
if [ "$(rc_of dear9)" = 1 ] &&
   grep -q "regression: sendmmsg/plain A: tool CPU/GiB +20.0%" "$tmp/dear9.err"; then
	ktap_ok "default, sendmmsg/plain A tools' CPU per GiB 20% higher: regression"
else
	ktap_fail "default, sendmmsg/plain A tools' CPU 20% higher" \
		"exit $(rc_of dear9): $(cat "$tmp/dear9.err")"
fi
# gso-sockopt/plain A: 942 MB/s [763-1296] over 9 reps: 20% is within its noise
"$MUT" "$RUN2" "$tmp/noisy9" scale gso-sockopt plain A rx_MBps 0.8
run_cmp noisy9 "$RUN2" "$tmp/noisy9" --json
if [ "$(rc_of noisy9)" = 0 ] && ug_jcheck "$tmp/noisy9.out" "count == {'within noise': 26}"; then
	ktap_ok "default, gso-sockopt/plain A (spread 70%) 20% slower: within noise"
else
	ktap_fail "default, gso-sockopt/plain A 20% slower" "exit $(rc_of noisy9)"
fi

# the committed noisy pair: the same code and command 5 minutes apart; medians
# differ by up to 24% (throughput) and 45% (/proc/stat busy CPU per GiB)
for dir in "$RUN1 $RUN2" "$RUN2 $RUN1"; do
	read -r o n <<<"$dir"
	run_cmp pair "$o" "$n" --json
	if [ "$(rc_of pair)" = 0 ] && ug_jcheck "$tmp/pair.out" "count == {'within noise': 26}"; then
		ktap_ok "default: committed runs 5 minutes apart ($(basename "$o") -> $(basename "$n")):" \
			"26 within noise, exit 0"
	else
		ktap_fail "default: committed runs $(basename "$o") -> $(basename "$n")" \
			"exit $(rc_of pair): $(head -2 "$tmp/pair.err")"
	fi
done
# what the default replaced: each interval on its own, with /proc/stat busy time
run_cmp pairold "$RUN2" "$RUN1" --per-interval --metrics rx_MBps,cost_per_GiB,loss_pct --json
if [ "$(rc_of pairold)" = 1 ]; then
	ktap_ok "the same pair --per-interval with /proc/stat cost: a false regression (exit 1):" \
		"$(head -1 "$tmp/pairold.err")"
else
	ktap_fail "the same pair --per-interval with /proc/stat cost" "exit $(rc_of pairold)"
fi

# ---- --per-interval (each interval on its own, the pre-2026-11-23 default) -----------------
# sendmmsg/plain A: 110 MB/s +-3.5% over its 3 reps, so 20% stands out
run_cmp slow "$BASE" "$tmp/slow" --per-interval --out "$tmp/slow.out.d" --no-plot
if [ "$(rc_of slow)" = 1 ] && [ "$(lines "$tmp/slow.err")" = 1 ] &&
   grep -q "regression: sendmmsg/plain A: throughput -20.0%" "$tmp/slow.err" &&
   ug_jcheck "$tmp/slow.out.d/compare.json" "not family" \
	"count == {'regression': 1, 'within noise': 25}" \
	"([(p.tx_mode, p.rx_mode, p.setting) for p in pairs if p.verdict == 'regression']
	  == [('sendmmsg', 'plain', 'A')])"; then
	ktap_ok "--per-interval: sendmmsg/plain A 20% slower: exit 1, named: $(cat "$tmp/slow.err")"
else
	ktap_fail "--per-interval: sendmmsg/plain A 20% slower" \
		"exit $(rc_of slow): $(head -2 "$tmp/slow.err")"
fi
row='| sendmmsg | plain | A | 3/3 | 110 -> 87.9 | -20.0% [-22.8, -17.1] **regression** |'
if grep -qF "$row" "$tmp/slow.out"; then
	ktap_ok "--per-interval: Markdown row of the slower configuration"
else
	ktap_fail "--per-interval: Markdown row of the slower configuration" \
		"$(grep -F '| sendmmsg | plain | A' "$tmp/slow.out")"
fi

"$MUT" "$BASE" "$tmp/fast" scale sendmmsg plain A rx_MBps 1.25
run_cmp fast "$BASE" "$tmp/fast" --per-interval --json
if [ "$(rc_of fast)" = 0 ] &&
   ug_jcheck "$tmp/fast.out" "count == {'improvement': 1, 'within noise': 25}"; then
	ktap_ok "--per-interval: sendmmsg/plain A 25% faster: improvement, exit 0"
else
	ktap_fail "--per-interval: sendmmsg/plain A 25% faster" "exit $(rc_of fast)"
fi

# sendto/plain B: 78.6..110 MB/s over its 3 reps: 3 reps cannot see 20% there
"$MUT" "$BASE" "$tmp/noisy" scale sendto plain B rx_MBps 0.8
run_cmp noisy "$BASE" "$tmp/noisy" --per-interval --json
if [ "$(rc_of noisy)" = 0 ] && ug_jcheck "$tmp/noisy.out" "count == {'within noise': 26}"; then
	ktap_ok "--per-interval: sendto/plain B (spread 40%) 20% slower: within noise"
else
	ktap_fail "--per-interval: sendto/plain B 20% slower" "exit $(rc_of noisy)"
fi

"$MUT" "$BASE" "$tmp/dear" scale tcp tcp B cost_per_GiB 1.2
run_cmp dear "$BASE" "$tmp/dear" --per-interval --metrics rx_MBps,cost_per_GiB,loss_pct
if [ "$(rc_of dear)" = 1 ] &&
   grep -q "regression: tcp/tcp B: CPU cost/GiB +20.0%" "$tmp/dear.err"; then
	ktap_ok "--per-interval --metrics ...,cost_per_GiB: tcp/tcp B CPU cost 20% higher: regression"
else
	ktap_fail "--per-interval: tcp/tcp B CPU cost 20% higher" \
		"exit $(rc_of dear): $(cat "$tmp/dear.err")"
fi

run_cmp thr "$BASE" "$tmp/slow" --per-interval --threshold 25
[ "$(rc_of thr)" = 0 ] && ktap_ok "--per-interval --threshold 25: a 20% drop is within noise" ||
	ktap_fail "--threshold 25" "exit $(rc_of thr)"

# ---- the worked example: comparisons committed with the guest runs ---------------------
# every NEW/compare/compare.json under $GUEST (udpgso_ab.sh --baseline in a
# guest) is reproduced from the committed directories: the same verdicts, exit
n=0
for cj in "$GUEST"/*/compare/compare.json; do
	[ -f "$cj" ] || continue
	n=$((n + 1))
	newd=$(dirname "$(dirname "$cj")")
	oldd=$GUEST/$(basename "$(ug_jget "$cj" old.path)")
	name="$(basename "$oldd") -> $(basename "$newd")"
	run_cmp "guest$n" "$oldd" "$newd" --json
	if [ "$(rc_of "guest$n")" = "$(ug_jget "$cj" exit)" ] &&
	   ug_jcheck "$tmp/guest$n.out" "count == $(ug_jget "$cj" count)"; then
		ktap_ok "guests: $name: the committed verdicts again ($(ug_jget "$cj" count))"
	else
		ktap_fail "guests: $name" "exit $(rc_of "guest$n"), committed $(ug_jget "$cj" exit)"
	fi
done
[ "$n" -gt 0 ] || ktap_skip "guests" "no committed comparison under $GUEST"

# ---- output ---------------------------------------------------------------------------------
run_cmp out "$BASE" "$BASE" --out "$tmp/o" --no-plot
if cmp -s "$tmp/out.out" "$tmp/o/compare.md" && [ ! -e "$tmp/o/compare.png" ] &&
   ug_jcheck "$tmp/o/compare.json" "exit == 0" "len(pairs) == 26"; then
	ktap_ok "--out --no-plot: compare.md (as printed) and compare.json, no plot"
else
	ktap_fail "--out --no-plot" "$(ls "$tmp/o" 2>&1 | tr '\n' ' ')"
fi
# the plot, or (matplotlib missing) the tool's own note saying so: a skip
/usr/bin/python3 "$CMP" "$RUN2" "$tmp/slow9" --out "$tmp/p" >/dev/null 2>"$tmp/p.err"
if [ -s "$tmp/p/compare.png" ]; then
	grep -q 'compare.png' "$tmp/p/compare.md" &&
		ktap_ok "plot: compare.png, linked from compare.md" ||
		ktap_fail "plot" "compare.png not linked from compare.md"
elif grep -q "no plot: matplotlib not importable" "$tmp/p.err"; then
	ktap_skip "plot" "$(grep -m1 'no plot' "$tmp/p.err")"
else
	ktap_fail "plot" "no compare.png and no note why: $(tail -n1 "$tmp/p.err")"
fi
# without matplotlib: a note, the rest written, the verdict's exit
mkdir -p "$tmp/nomp/matplotlib"
echo 'raise ImportError("hidden by compare_test.sh")' >"$tmp/nomp/matplotlib/__init__.py"
PYTHONPATH=$tmp/nomp python3 "$CMP" "$RUN2" "$tmp/slow9" --out "$tmp/np" \
	>/dev/null 2>"$tmp/np.err"
rc=$?
if [ "$rc" = 1 ] && [ -s "$tmp/np/compare.json" ] && [ ! -e "$tmp/np/compare.png" ] &&
   grep -q "no plot: matplotlib not importable" "$tmp/np.err"; then
	ktap_ok "no matplotlib: no plot, one note, results and exit 1 as before"
else
	ktap_fail "no matplotlib" "exit $rc, $(cat "$tmp/np.err")"
fi

want="--preset default --tx sendto,sendmmsg,gso-cmsg,gso-sockopt,sendmmsg-gso,zerocopy,tcp"
want+=" --rx plain,gro -n 3 -l 3 --size 1472 --segs 44"
got=$("$CMP" --matrix-args "$BASE" | tr '\n' ' ')
if [ "$got" = "$want " ]; then
	ktap_ok "--matrix-args: $want"
else
	ktap_fail "--matrix-args" "got '$got'"
fi

# ---- bad input: exit 2, one line each, nothing on stdout ---------------------------
mkdir -p "$tmp/empty" "$tmp/badjson"
head -c 300 "$BASE/results.json" >"$tmp/badjson/results.json"
"$MUT" "$BASE" "$tmp/schema" schema 99
"$MUT" "$BASE" "$tmp/nokey" unset-run-field tx_mode
"$MUT" "$BASE" "$tmp/drop1" drop zerocopy gro B
"$MUT" "$BASE" "$tmp/drop2" drop zerocopy gro B -- drop tcp tcp A
"$MUT" "$BASE" "$tmp/otherset" setting A rx:gro=on
"$MUT" "$BASE" "$tmp/othersecs" secs 0.25
bad 1 1 "OLD '$tmp/none': no such directory" "$tmp/none" "$BASE"
bad 2 1 "NEW '$tmp/empty': no results.json" "$BASE" "$tmp/empty"
bad 3 1 "bad JSON" "$BASE" "$tmp/badjson"
bad 4 1 "schema mismatch: schema 99, allowed 1" "$BASE" "$tmp/schema"
bad 5 1 "schema mismatch: run 1 has no 'tx_mode'" "$tmp/nokey" "$BASE"
bad 6 1 "unpaired configuration zerocopy/gro B: only in OLD" "$BASE" "$tmp/drop1"
bad 7 2 "unpaired configuration tcp/tcp A: only in NEW" "$tmp/drop2" "$BASE"
bad 8 1 "setting A differs: OLD 'tx:tx-udp-segmentation=on', NEW 'rx:gro=on'" \
	"$BASE" "$tmp/otherset"
bad 9 1 "needs OLD and NEW" "$BASE"
bad 10 1 "--threshold -1: allowed 0 <= PCT < 100" "$BASE" "$BASE" --threshold -1
bad 11 1 "--metrics 'speed': allowed" "$BASE" "$BASE" --metrics speed
bad 12 1 "unrecognized arguments: --frobnicate" "$BASE" "$BASE" --frobnicate
bad 13 1 "--level 100: allowed 50 <= PCT < 100" "$BASE" "$BASE" --level 100
bad 14 1 "--family, --headline and --per-interval: allowed one of them" "$BASE" "$BASE" --family \
	--per-interval
bad 15 1 "argument --reference: invalid choice: 'round' (choose from 'kind', 'all')" \
	"$BASE" "$BASE" --reference round
bad 16 1 "slice length differs: OLD 3 s, NEW 0.25 s" "$BASE" "$tmp/othersecs"
run_cmp ign "$BASE" "$tmp/otherset" --ignore-settings
[ "$(rc_of ign)" = 0 ] && ktap_ok "--ignore-settings compares different settings" ||
	ktap_fail "--ignore-settings" "exit $(rc_of ign)"


# ---- udpgso_ab.sh --baseline and bisect_step.sh (no traffic) -----------------------
./scripts/bench/udpgso_ab.sh --baseline "$BASE" --dry-run >"$tmp/bl.out" 2>"$tmp/bl.err"
rc=$?
if [ "$rc" = 0 ] && grep -q "configurations: 26 (13 tx/rx pairs x 2 settings), 3 reps, 78 runs" \
	"$tmp/bl.out"; then
	ktap_ok "udpgso_ab.sh --baseline DIR --dry-run: DIR's matrix (26 configurations, 3 x 3 s)"
else
	ktap_fail "udpgso_ab.sh --baseline --dry-run" "exit $rc: $(head -2 "$tmp/bl.err")"
fi
./scripts/bench/udpgso_ab.sh --baseline "$BASE" -n 5 --dry-run >"$tmp/bl5.out" 2>&1
if grep -q "configurations: 26 (13 tx/rx pairs x 2 settings), 5 reps, 130 runs" \
	"$tmp/bl5.out"; then
	ktap_ok "udpgso_ab.sh --baseline DIR -n 5: options given win over DIR's"
else
	ktap_fail "udpgso_ab.sh --baseline DIR -n 5" "$(grep configurations "$tmp/bl5.out")"
fi
./scripts/bench/udpgso_ab.sh --baseline "$tmp/none" --dry-run >"$tmp/bl2.out" 2>"$tmp/bl2.err"
rc=$?
if [ "$rc" = 1 ] && [ ! -s "$tmp/bl2.out" ] && [ "$(lines "$tmp/bl2.err")" = 1 ]; then
	ktap_ok "udpgso_ab.sh --baseline (no such dir): exit 1: $(cat "$tmp/bl2.err")"
else
	ktap_fail "udpgso_ab.sh --baseline (no such dir)" "exit $rc, $(head -2 "$tmp/bl2.err")"
fi

# a real run and a rerun against it: 1 tx/rx pair x 2 settings x 3 reps of 1 s
# on the local veth pair, about 30 s; the verdict is whatever the machine
# gives, the test checks that it is reached and reported consistently
if why=$(ug_need_root); then
	ab=(./scripts/bench/udpgso_ab.sh --method slices --tx sendto --rx plain -n 3 -l 1 --no-perf --no-plots
	    --out "$tmp/ab")
	"${ab[@]}" --label cmpbase >/dev/null 2>"$tmp/ab1.err"
	rc1=$?
	b1=$(ls -d "$tmp"/ab/*-cmpbase 2>/dev/null | head -1)
	UG_COMPARE_ARGS="--threshold 10" ./scripts/bench/udpgso_ab.sh --baseline "$b1" --no-perf \
		--no-plots --out "$tmp/ab" --label cmpnew >"$tmp/ab2.out" 2>"$tmp/ab2.err"
	rc2=$?
	cj=$(ls "$tmp"/ab/*-cmpnew/compare/compare.json 2>/dev/null | head -1)
	if [ "$rc1" = 0 ] && [ -n "$cj" ] && [ "$rc2" = "$(ug_jget "$cj" exit)" ] &&
	   ug_jcheck "$cj" "len(pairs) == 2" "threshold_pct == 10" &&
	   grep -q "^| sendto | plain | A | 3/3 |" "$tmp/ab2.out"; then
		ktap_ok "udpgso_ab.sh --baseline: a real rerun compared, exit $rc2 = the verdict's" \
			"($(ug_jget "$cj" count))"
	else
		ktap_fail "udpgso_ab.sh --baseline (real run)" \
			"exit $rc1/$rc2: $(tail -1 "$tmp/ab1.err") $(tail -1 "$tmp/ab2.err")"
	fi
else
	ktap_skip "udpgso_ab.sh --baseline (real run)" "$why"
fi

mkdir -p "$tmp/ktree"
# a stand-in kernel tree whose bzImage does not build
printf '%s\n' 'olddefconfig:' '	@true' 'bzImage:' \
	'	@echo "error: this commit does not build" >&2; false' >"$tmp/ktree/Makefile"
./scripts/bench/bisect_step.sh --tree "$tmp/ktree" --baseline "$BASE" --out "$tmp/bs" \
	>"$tmp/bs.out" 2>"$tmp/bs.err"
rc=$?
[ "$rc" = 125 ] && grep -q "error: this commit does not build" "$tmp"/bs/build-*.log &&
	ktap_ok "bisect_step.sh: a tree that does not build: exit 125 (skip), its log kept" ||
	ktap_fail "bisect_step.sh: unbuildable" "exit $rc: $(tail -1 "$tmp/bs.err")"
./scripts/bench/bisect_step.sh --tree "$tmp/ktree" --baseline "$tmp/none" --out "$tmp/bs2" \
	>/dev/null 2>"$tmp/bs2.err"
rc=$?
[ "$rc" = 128 ] && [ "$(lines "$tmp/bs2.err")" = 1 ] &&
	ktap_ok "bisect_step.sh: no baseline: exit 128 (bisect stops): $(cat "$tmp/bs2.err")" ||
	ktap_fail "bisect_step.sh: no baseline" "exit $rc: $(head -1 "$tmp/bs2.err")"

ktap_finish
