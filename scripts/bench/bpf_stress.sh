#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF twin's counters under load (issue 25): the counter-compared cases
# of udpgro_conf.sh (-n REPS: each case REPS times, the counters against
# what GRO built) and bpf_test.sh's exact-count cases (BPF_TEST_REPS) run
# side by side while the host's two CPUs carry a load (stress-ng --cpu 2
# and a UDP GSO->GRO pair on lo in a namespace of its own, tx pinned to
# CPU 0, rx to CPU 1: softirqs on both CPUs run the programs on skbs the
# filters leave out); then, with --guest-reps, scripts/vm/bpf_guest.sh's
# module-against-BPF comparison N times in one boot of each guest kernel.
# Every run must show 0 disagreements and '# skipped: none' (no program run
# skipped, no GRO mark lost), or each is named in the log.  Not part of
# make check (make bpf-stress): it takes as long as its repetitions.
#
#   scripts/bench/bpf_stress.sh [--reps N] [--conf PATTERN] [--bt-reps N]
#                               [--bt-cases LIST] [--guest-reps N]
#                               [--kernels LIST] [--guest-cases LIST] [--no-load]
#                               [--out DIR]
#
# --reps N (default 200): each udpgro_conf.sh case matching PATTERN (default
# the two cases once seen one merged skb short, 'ipv[46] [bm]a[dx]_c* (gro)':
# bad_csum and max_count, IPv4 and IPv6, UDP_GRO socket; '*' for every case)
# N times; --bt-reps N (default 200) bpf_test.sh's cases LIST (default
# gro,lo4) N times; --guest-reps N (default 0: no guest) bpf_guest.sh's
# cases (default lo4,swseg,gro: kmod_test.sh's) N times in one boot of each kernel of LIST
# (default: every /boot/vmlinuz-* with headers, e.g. 6.1.0-56-amd64).
# DIR (default results/bpf-stress-DATE) gets command.txt, conf.log, bt.log,
# guest-VER.log, load.log and summary.txt (the TAP totals, every line that
# failed, and the skipped-run lines).
set -u

. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog [--reps N] [--conf PATTERN] [--bt-reps N] [--bt-cases LIST] [--guest-reps N] [--kernels LIST] [--guest-cases LIST] [--no-load] [--out DIR]" >&2
	exit 1
}

reps=200 conf='ipv[46] [bm]a[dx]_c* (gro)' btreps=200 btcases=gro,lo4 greps=0 kernels=
gcases=lo4,swseg,gro load=1 out=
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--reps) reps=${2:-}; shift 2 || usage ;;
	--conf) conf=${2:-}; shift 2 || usage ;;
	--bt-reps) btreps=${2:-}; shift 2 || usage ;;
	--bt-cases) btcases=${2:-}; shift 2 || usage ;;
	--guest-reps) greps=${2:-}; shift 2 || usage ;;
	--kernels) kernels=${2:-}; shift 2 || usage ;;
	--guest-cases) gcases=${2:-}; shift 2 || usage ;;
	--no-load) load=0; shift ;;
	--out) out=${2:-}; shift 2 || usage ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1', allowed --reps N, --conf PATTERN, --bt-reps N, --bt-cases LIST, --guest-reps N, --kernels LIST, --guest-cases LIST, --no-load, --out DIR (-h: usage)" ;;
	esac
done
for v in "reps:$reps" "bt-reps:$btreps" "guest-reps:$greps"; do
	[[ ${v#*:} =~ ^[0-9]{1,5}$ ]] || ug_die "--${v%%:*} '${v#*:}': allowed 0..99999"
done
[[ $btcases =~ ^[a-z0-9,]+$ ]] || ug_die "--bt-cases '$btcases': allowed a list of lo4,lo4gro,lo6,swseg,gro,gropass,unseen,unseenold,diag,late"
[[ $gcases =~ ^[a-z0-9,]+$ ]] || ug_die "--guest-cases '$gcases': allowed a list of lo4,lo4drop,lo4gro,lo6,swseg,gro,vlan,gropass"
ug_need_root >/dev/null || ug_die "needs root (namespaces, BPF)"
[ -x "$UDPGSO_BIN/udpgso_stats" ] || ug_die "no $UDPGSO_BIN/udpgso_stats (make)"
if [ "$load" = 1 ]; then
	command -v stress-ng >/dev/null || ug_die "no stress-ng (scripts/setup.sh installs it; or --no-load)"
fi
out=${out:-$UG_TOP/results/bpf-stress-$(date -u +%Y-%m-%d)}
mkdir -p "$out" || ug_die "cannot create $out"
out=$(cd "$out" && pwd)
{
	echo "# $(date -u +%FT%TZ) $(uname -r) $(git -C "$UG_TOP" rev-parse --short HEAD 2>/dev/null)"
	printf '%q ' "$0" "${args[@]}"
	echo
} >"$out/command.txt"

ug_trap_install
# ---- the load: both CPUs ----------------------------------------------------------
if [ "$load" = 1 ]; then
	nice -n 10 stress-ng --cpu 2 --cpu-load 80 --timeout 86400 >>"$out/load.log" 2>&1 &
	defer kill $!
	ns_add s || ug_die "cannot create a network namespace"
	port=$((RANDOM % 5000 + 45000))	# apart from udpgro_conf.sh's 50000-58999
	ns_exec s ip link set lo up
	# (every process left in the load's namespace is killed at the end)
	defer ns_kill_pids "$(ns_name s)"
	ip netns exec "$(ns_name s)" nice -n 10 taskset -c 1 "$UDPGSO_BIN/udpgso_bench_rx" -4 \
		-p "$port" -G >>"$out/load.log" 2>&1 &
	defer kill $!	# (ip netns exec, nice and taskset exec: $! is the tool itself)
	ug_wait_port -u "$(ns_name s)" "$port" "" 30 >/dev/null 2>&1
	# 14000-byte GSO sends, niced so that the cases still get CPU time
	ip netns exec "$(ns_name s)" nice -n 10 taskset -c 0 "$UDPGSO_BIN/udpgso_bench_tx" -4 \
		-D 127.0.0.1 -p "$port" -s 14000 -S 1400 -l 86400 >>"$out/load.log" 2>&1 &
	defer kill $!
	echo "# load (nice 10): stress-ng --cpu 2 --cpu-load 80; udpgso_bench_tx -s 14000 -S 1400 (CPU 0) -> udpgso_bench_rx -G (CPU 1) on lo, port $port" |
		tee -a "$out/load.log"
fi

# ---- host: udpgro_conf.sh and bpf_test.sh side by side ----------------------------
t0=$SECONDS
pids=()
if [ "$reps" -gt 0 ]; then
	"$UG_TOP/udpgro_conf.sh" -k "$conf" -n "$reps" >"$out/conf.log" 2>&1 &
	pids+=($!)
fi
if [ "$btreps" -gt 0 ]; then
	BPF_TEST_REPS=$btreps BPF_TEST_CASES=$btcases "$UG_TOP/bpf_test.sh" >"$out/bt.log" 2>&1 &
	pids+=($!)
fi
for p in "${pids[@]}"; do wait "$p"; done
echo "# host phase: $((SECONDS - t0)) s" | tee -a "$out/load.log"

# ---- guests: the module against BPF, N times in one boot --------------------------
if [ "$greps" -gt 0 ]; then
	if [ -z "$kernels" ]; then
		kernels=$(cd /boot && ls vmlinuz-* 2>/dev/null | sed 's/^vmlinuz-//' | tr '\n' ',')
	fi
	work=$(mktemp -d /tmp/bpfstress.XXXXXX)
	defer rm -rf "$work"
	for v in ${kernels//,/ }; do
		hdr=/usr/src/linux-headers-$v
		if [ ! -r "/boot/vmlinuz-$v" ] || [ ! -d "$hdr" ]; then
			echo "UGKMOD skip $v: no /boot/vmlinuz-$v or $hdr" | tee -a "$out/guest-$v.log"
			continue
		fi
		if ! make -s -C "$UG_TOP/kmod" KDIR="$hdr" BUILD="$work/b-$v" >"$work/b-$v.log" 2>&1; then
			echo "UGKMOD not ok $v: module build: $(tail -1 "$work/b-$v.log")" | tee -a "$out/guest-$v.log"
			continue
		fi
		t0=$SECONDS
		# 70 s a case and rep in a quiet TCG guest (6.1, lo4,gro: 2764 s for
		# 20 reps); the guard allows 4 times that, for a host under load
		ncases=$(($(tr -cd , <<<"$gcases" | wc -c) + 1))
		"$UG_TOP/scripts/vm/vng_run.sh" --kernel "/boot/vmlinuz-$v" \
			--timeout $((600 + greps * ncases * 280)) --rwdir "$work" -- \
			"UDPGSO_BIN=$UDPGSO_BIN $UG_TOP/scripts/vm/bpf_guest.sh" \
			"--ko $work/b-$v/udpgso_stats.ko --only $gcases --reps $greps" \
			>>"$out/guest-$v.log" 2>&1
		echo "# guest $v: exit $?, $((SECONDS - t0)) s" | tee -a "$out/guest-$v.log"
	done
fi
run_deferred

# ---- summary ------------------------------------------------------------------------
{
	echo "# bpf_stress: $(cat "$out/command.txt" | tail -1)"
	for f in "$out"/conf.log "$out"/bt.log; do
		[ -e "$f" ] || continue
		echo "## $(basename "$f"): $(grep -c '^ok ' "$f") ok, $(grep -c '^not ok ' "$f") not ok; $(grep -m1 '^# Totals' "$f")"
		grep '^not ok \|^# rep .*\(incomplete\|counters\)' "$f" | head -50
		grep '^ok .*x[0-9]*: counters agree' "$f"
	done
	for f in "$out"/guest-*.log; do
		[ -e "$f" ] || continue
		echo "## $(basename "$f"): $(grep -c '^UGKMOD ok ' "$f") ok, $(grep -c '^UGKMOD not ok ' "$f") not ok, $(grep -c '^UGKMOD skip ' "$f") skip"
		grep '^UGKMOD not ok\|^UGKMOD skip\|^# guest' "$f" | head -50
	done
	echo "## skipped runs (lines naming a program run skipped or a mark lost):" \
		"$(cat "$out"/*.log | grep -c 'INCOMPLETE\|counters incomplete:\|_derived incomplete\|bpf incomplete')"
} >"$out/summary.txt"
cat "$out/summary.txt"
! grep -q '^## .* [1-9][0-9]* not ok' "$out/summary.txt"
