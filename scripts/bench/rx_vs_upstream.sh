#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rx_vs_upstream.sh: our udpgso_bench_rx against the kernel's own selftest
# receiver (tools/testing/selftests/net/udpgso_bench_rx.c of Debian's
# linux-source-6.1) in each of upstream's receive modes, on loopback in a
# fresh network namespace per run, the same sender (upstream's
# udpgso_bench_tx) for every receiver.  A benchmark, not a test.
#
#   scripts/bench/rx_vs_upstream.sh [-l SECS] [-r REPS] [-o DIR] [-M REGEX]
#                                   [-x NAME=PATH]... [-k TARBALL]
#
#   -l SECS     length of each run (default 5)
#   -r REPS     runs per receiver and mode (default 5)
#   -o DIR      command line, raw logs, runs.csv and table.txt
#               (default results/rx-vs-upstream-YYYYMMDD-HHMM)
#   -M REGEX    only the modes whose name matches (grep -E)
#   -x NAME=PATH  one more receiver to compare (e.g. an older build of ours)
#   -k TARBALL  linux-source tarball (default /usr/src/linux-source-6.1.tar.xz)
#
# Receiver on CPU 0, sender on CPU 1.  For each repetition and mode the
# receivers run one after another, their order rotated by repetition, so
# neighbours in time share the machine's load.  Figures per run: the
# receiver's MB/s, the mean of its per-second "udp rx: N MB/s" lines (the
# same format in both tools) without the first and last (partial) seconds,
# and its user+sys CPU seconds (/proc/PID/stat at the end); MB per CPU second is the
# steadier figure when the sender, not the receiver, is the bottleneck.
set -u
. "$(dirname "$0")/../lib.sh"

secs=5 reps=5 out= only= tarball=/usr/src/linux-source-6.1.tar.xz
extra=()
[ "${1:-}" = --help ] && { ug_help; exit 0; }
case "${1:-}" in --help) ug_help; exit 0 ;; --?*) ug_die "unknown option '$1', allowed [-l SECS] [-r REPS] [-o DIR] [-M REGEX] [-x NAME=PATH] [-k TARBALL] (-h: usage)" ;; esac
while getopts ":hl:r:o:M:x:k:" o; do
	case $o in
	h) ug_help; exit 0 ;;
	l) secs=$OPTARG ;;
	r) reps=$OPTARG ;;
	o) out=$OPTARG ;;
	M) only=$OPTARG ;;
	x) extra+=("$OPTARG") ;;
	k) tarball=$OPTARG ;;
	:) ug_die "-$OPTARG: needs a value (-h: usage)" ;;
	*) ug_die "unknown option '-$OPTARG', allowed [-l SECS] [-r REPS] [-o DIR] [-M REGEX] [-x NAME=PATH] [-k TARBALL]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || ug_die "unexpected argument '$1'"
case $secs in ''|*[!0-9]*|0|1|2) ug_die "-l $secs: allowed 3..600 seconds" ;; esac
[ "$secs" -le 600 ] || ug_die "-l $secs: allowed 3..600 seconds"
case $reps in ''|*[!0-9]*|0) ug_die "-r $reps: allowed 1..100" ;; esac
[ "$reps" -le 100 ] || ug_die "-r $reps: allowed 1..100"
[ -r "$tarball" ] || ug_die "-k $tarball: not readable (apt-get install linux-source-6.1)"
why=$(ug_need_root) || ug_die "$why"
why=$(ug_need_cmd ip tar xz gcc taskset python3 pgrep getconf) || ug_die "$why"
names=(ours upstream) bins=("$UDPGSO_BIN/udpgso_bench_rx" "")
[ -x "${bins[0]}" ] || ug_die "${bins[0]}: not built (run make)"
for e in "${extra[@]}"; do
	[ "${e%%=*}" != "$e" ] && [ -x "${e#*=}" ] || ug_die "-x $e: allowed NAME=PATH of an executable"
	names+=("${e%%=*}") bins+=("${e#*=}")
done
[ -n "$out" ] || out=$UG_TOP/results/rx-vs-upstream-$(date -u +%Y%m%d-%H%M)
mkdir -p "$out/raw" || ug_die "-o $out: cannot create"

ug_trap_install
tmp=$(mktemp -d)
defer rm -rf "$tmp"
top=linux-source-6.1 src=linux-source-6.1/tools/testing/selftests/net
tar -xJf "$tarball" -C "$tmp" "$src/udpgso_bench_tx.c" "$src/udpgso_bench_rx.c" \
	"$top/tools/testing/selftests/kselftest.h" || ug_die "cannot extract upstream's tools"
UCFLAGS="-Wall -Wl,--no-as-needed -O2 -g"	# upstream's net/Makefile
for t in tx rx; do
	# shellcheck disable=SC2086
	gcc $UCFLAGS -o "$tmp/up_$t" "$tmp/$src/udpgso_bench_$t.c" ||
		ug_die "cannot build upstream's udpgso_bench_$t.c"
done
bins[1]=$tmp/up_rx

# NAME|SENDER ARGS|RECEIVER ARGS: every receive mode of upstream's tool
MODES=(
	"udp 1472 (-S 0)|-S 0|"
	"udp 61824|-s 61824|"
	"udp -r|-S 0|-r"
	"udp -v|-S 0|-v"
	"udp -G|-S 0|-G"
	"udp -G -S 1472|-S 0|-G -S 1472"
	"udp -S -1|-S 0|-S -1"
	"tcp|-t|-t"
)
if [ -n "$only" ]; then
	sel=()
	for m in "${MODES[@]}"; do grep -qE -- "$only" <<<"${m%%|*}" && sel+=("$m"); done
	[ ${#sel[@]} -gt 0 ] || ug_die "-M $only: matches no mode"
	MODES=("${sel[@]}")
fi
{
	echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -r) $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "cd $UG_TOP && scripts/bench/rx_vs_upstream.sh -l $secs -r $reps -o $out" \
		"${only:+-M '$only'}$([ ${#extra[@]} -eq 0 ] || printf ' -x %q' "${extra[@]}")"
	echo "# ours: ${bins[0]} ($(git -C "$UG_TOP" describe --always --dirty 2>/dev/null || echo '?'))"
	echo "# upstream: $src/udpgso_bench_{tx,rx}.c, gcc $UCFLAGS ($(gcc -dumpfullversion))"
	echo "# sender: upstream's udpgso_bench_tx -4 -D 127.0.0.1 -l $secs on CPU 1; receivers on CPU 0"
} >"$out/cmdline.txt"
echo "mode,tool,rep,rx_MBps,rx_lines,cpu_s,rc,load1" >"$out/runs.csv"

nrun=0
run_one() {	# MODE_INDEX TOOL_INDEX REP
	local name txa rxa tool=${names[$2]} bin=${bins[$2]} tag ns rxpid pid rc mb cpu f=()
	IFS='|' read -r name txa rxa <<<"${MODES[$1]}"
	nrun=$((nrun + 1))
	ns=r$nrun
	ns_add "$ns" || ug_die "cannot create a network namespace"
	ip -n "$(ns_name "$ns")" link set lo up
	tag=$(tr ' ' '_' <<<"$name").$tool.$3
	[ "$tool" = upstream ] || f=(-C 5000 -R 2000)
	# shellcheck disable=SC2086
	ns_exec "$ns" taskset -c 0 "$bin" -4 -p 8000 $rxa "${f[@]}" >"$out/raw/$tag.rx.out" \
		2>"$out/raw/$tag.rx.log" &
	rxpid=$!
	if [[ $rxa == *-t* ]]; then ns_wait_port -t "$ns" 8000; else ns_wait_udp_port "$ns" 8000; fi
	pid=$(pgrep -P "$rxpid" | head -1)	# ip and taskset exec: the receiver
	[ -n "$pid" ] || ug_die "$tool: the receiver did not start (raw/$tag.rx.log)"
	# shellcheck disable=SC2086
	ns_exec "$ns" taskset -c 1 "$tmp/up_tx" -4 -D 127.0.0.1 -p 8000 -l "$secs" $txa \
		>"$out/raw/$tag.tx.log" 2>&1
	sleep 0.3
	# its user+sys CPU time (clock ticks), then stop it
	cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' \
		"/proc/$pid/stat" 2>/dev/null)
	kill -INT "$pid" 2>/dev/null
	wait "$rxpid"
	rc=$?
	ip netns del "$(ns_name "$ns")" 2>/dev/null
	read -r mb lines < <(awk '$2 == "rx:" && $4 == "MB/s" { v[n++] = $3 }
		END { s = 0; k = 0; for (i = 1; i < n - 1; i++) { s += v[i]; k++ }
		      if (k) printf "%.1f %d\n", s / k, k; else print "- 0" }' "$out/raw/$tag.rx.log")
	echo "$name,$tool,$3,$mb,$lines,${cpu:--},$rc,$(cut -d' ' -f1 /proc/loadavg)" >>"$out/runs.csv"
	echo "$name $tool rep $3: $mb MB/s, cpu ${cpu:--} s" >&2
}

for ((r = 1; r <= reps; r++)); do
	for i in "${!MODES[@]}"; do
		n=${#names[@]}
		for ((k = 0; k < n; k++)); do run_one "$i" $(((k + r) % n)) "$r"; done
	done
done
echo "# end $(date -u '+%H:%M:%S UTC'); load: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/cmdline.txt"

python3 "$(dirname "$0")/rx_vs_upstream_table.py" "$out/runs.csv" "$secs" >"$out/table.txt"
cat "$out/table.txt"
