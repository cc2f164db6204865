#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench_vs_upstream.sh: our udpgso_bench_tx against the kernel's own selftest
# tx (tools/testing/selftests/net/udpgso_bench_tx.c of Debian's
# linux-source-6.1), side by side on loopback, a fresh network namespace per
# run.  A benchmark, not a test: it asserts nothing about speed.
#
#   scripts/bench/bench_vs_upstream.sh [-l SECS] [-r REPS] [-o DIR] [-f 4|6|46]
#                                [-k TARBALL] [-M REGEX] [-n] [-B TX] | -T DIR
#
#   -l SECS     length of each run (default 3)
#   -r REPS     runs per tool and mode (default 5)
#   -o DIR      where to write the command line, raw logs and the table
#               (default results/bench-vs-upstream-YYYYMMDD-HHMM)
#   -f FAMS     address families: 4, 6 or 46 (default 46)
#   -k TARBALL  linux-source tarball (default /usr/src/linux-source-6.1.tar.xz)
#   -M REGEX    only the modes whose name matches (grep -E), e.g. 'S 0$'
#   -n          do not pin (default: receiver on CPU 0, sender on CPU 1)
#   -B TX       compare with this udpgso_bench_tx (another build of ours, e.g.
#               an older commit's; "base" in the table) instead of upstream's
#               sender, in every mode, same command lines
#   -T DIR      no runs: write DIR/table.txt again from DIR/runs.csv
#
# Upstream's udpgso_bench_{tx,rx}.c are extracted to a temporary directory
# and built there with upstream's CFLAGS; nothing of them is kept.  The
# receiver is upstream's udpgso_bench_rx for both senders, so only the
# sender differs.  Runs alternate: for each repetition, for each mode, ours
# then upstream's on odd repetitions, upstream's then ours on even ones.
# The figure compared is the sender's own per-second "udp tx: N MB/s" lines
# (upstream's format, kept by our tool), averaged over the run; the
# receiver's per-second lines give the delivered MB/s, and the sender's
# user+sys CPU time (bash's `time`) its cost: MB sent per CPU second, less
# sensitive to a busy machine than MB/s.  Table:
# medians over the repetitions and our/upstream ratios; then our modes that
# upstream lacks (sendmmsg + GSO) against upstream's best mode.
set -u
. "$(dirname "$0")/../lib.sh"

secs=3 reps=5 out= fams=46 pin=1 only= table_only= base=
tarball=/usr/src/linux-source-6.1.tar.xz
[ "${1:-}" = --help ] && { ug_help; exit 0; }
while getopts ":hl:r:o:f:k:M:T:nB:" o; do
	case $o in
	h) ug_help; exit 0 ;;
	l) secs=$OPTARG ;;
	r) reps=$OPTARG ;;
	o) out=$OPTARG ;;
	f) fams=$OPTARG ;;
	k) tarball=$OPTARG ;;
	M) only=$OPTARG ;;
	T) table_only=$OPTARG ;;
	n) pin=0 ;;
	B) base=$OPTARG ;;
	:) ug_die "-$OPTARG: needs a value (-h: usage)" ;;
	*) ug_die "-$OPTARG: unknown option, allowed [-l SECS] [-r REPS] [-o DIR] [-f 4|6|46] [-k TARBALL] [-M REGEX] [-T DIR] [-n] [-B TX]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || ug_die "unexpected argument '$1'"
# ---- the table -----------------------------------------------------------------
# the table from runs.csv (scripts/bench/vs_upstream_table.py)
make_table() {	# DIR REPS SECS
	python3 "$UG_TOP/scripts/bench/vs_upstream_table.py" "$1/runs.csv" "$2" "$3" \
		>"$1/table.txt"
}
# -T DIR: the table again from DIR/runs.csv, -l and -r from DIR/cmdline.txt
if [ -n "$table_only" ]; then
	[ -r "$table_only/runs.csv" ] || ug_die "-T $table_only: no runs.csv there"
	c=$(sed -n 2p "$table_only/cmdline.txt" 2>/dev/null)
	secs=$(grep -oE -- ' -l [0-9]+' <<<"$c" | awk '{print $2}')
	reps=$(grep -oE -- ' -r [0-9]+' <<<"$c" | awk '{print $2}')
	[ -n "$secs" ] && [ -n "$reps" ] || ug_die "-T $table_only: no -l/-r in cmdline.txt"
	make_table "$table_only" "$reps" "$secs"
	cat "$table_only/table.txt"
	exit 0
fi

case $secs in ''|*[!0-9]*|0) ug_die "-l $secs: allowed 1..600 seconds" ;; esac
[ "$secs" -le 600 ] || ug_die "-l $secs: allowed 1..600 seconds"
case $reps in ''|*[!0-9]*|0) ug_die "-r $reps: allowed 1..100" ;; esac
[ "$reps" -le 100 ] || ug_die "-r $reps: allowed 1..100"
case $fams in 4|6|46|64) ;; *) ug_die "-f $fams: allowed 4, 6 or 46" ;; esac
[ -r "$tarball" ] || ug_die "-k $tarball: not readable (apt-get install linux-source-6.1)"
why=$(ug_need_root) || ug_die "$why"
why=$(ug_need_cmd ip ss tar xz gcc taskset python3) || ug_die "$why"
OURS=$UDPGSO_BIN/udpgso_bench_tx
[ -x "$OURS" ] || ug_die "$OURS: not built (run make)"
[ -z "$base" ] || [ -x "$base" ] || ug_die "-B $base: not an executable"
if [ -z "$out" ]; then
	out=$UG_TOP/results/bench-vs-upstream-$(date -u +%Y%m%d-%H%M)
fi
mkdir -p "$out/raw" || ug_die "-o $out: cannot create"

TIMEFORMAT='%U %S'
ug_trap_install
tmp=$(mktemp -d)
defer rm -rf "$tmp"

# ---- upstream's tools, built in a temporary directory -------------------------
top=$(basename "$tarball" .tar.xz)
src=$top/tools/testing/selftests/net
echo "extracting upstream's udpgso_bench_{tx,rx}.c from $(basename "$tarball") ..." >&2
# (upstream's tx includes ../kselftest.h)
tar -xJf "$tarball" -C "$tmp" "$src/udpgso_bench_tx.c" "$src/udpgso_bench_rx.c" \
	"$top/tools/testing/selftests/kselftest.h" ||
	ug_die "cannot extract $src/udpgso_bench_{tx,rx}.c from $tarball"
UCFLAGS="-Wall -Wl,--no-as-needed -O2 -g"	# upstream's net/Makefile
for t in tx rx; do
	# shellcheck disable=SC2086
	gcc $UCFLAGS -o "$tmp/up_$t" "$tmp/$src/udpgso_bench_$t.c" ||
		ug_die "cannot build upstream's udpgso_bench_$t.c"
done
UTX=$tmp/up_tx URX=$tmp/up_rx
other=upstream
if [ -n "$base" ]; then
	UTX=$base other=base
fi

# ---- modes: NAME|TX MODE [S]|RX ARGS|WHO (both: ours and upstream; ours: ours
# only).  TX MODE is one of lib.sh's table, with upstream's defaults: no -s,
# no --batch, -S only where given
MODES=(
	"udp|send|-|both"
	"udp -m|sendmmsg|-|both"
	"udp -S 0|gso-cmsg 0|-|both"
	"udp -S 0 -z|zerocopy-gso 0|-|both"
	"tcp|tcp|-t|both"
	"udp -S 0, rx -G|gso-cmsg 0|-G|both"
	"udp -m -S 0|sendmmsg-gso 0|-|ours"
	"udp -m -S 0, rx -G|sendmmsg-gso 0|-G|ours"
)
# another build of ours has every mode
[ -z "$base" ] || MODES=("${MODES[@]/%|ours/|both}")
if [ -n "$only" ]; then
	sel=()
	for m in "${MODES[@]}"; do
		if grep -qE -- "$only" <<<"${m%%|*}"; then sel+=("$m"); fi
	done
	[ ${#sel[@]} -gt 0 ] || ug_die "-M $only: matches no mode"
	MODES=("${sel[@]}")
fi
port=8000
if [ "$pin" -eq 1 ]; then rx_pin="taskset -c 0" tx_pin="taskset -c 1"; else rx_pin= tx_pin=; fi

{
	echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -r) $(nproc) CPUs"
	echo "cd $UG_TOP && UDPGSO_BIN=$UDPGSO_BIN scripts/bench/bench_vs_upstream.sh" \
		"-l $secs -r $reps -f $fams -k $tarball -o $out$([ "$pin" -eq 1 ] || echo ' -n')" \
		"${only:+-M '$only'}${base:+ -B $base}"
	echo "# ours: $OURS ($(git -C "$UG_TOP" describe --always --dirty 2>/dev/null || echo '?'))"
	[ -z "$base" ] || echo "# base: $base"
	echo "# upstream: $src/udpgso_bench_{tx,rx}.c, gcc $UCFLAGS ($(gcc -dumpfullversion))"
	echo "# receiver: upstream's udpgso_bench_rx for both senders${rx_pin:+, pinned CPU 0; sender CPU 1}"
} >"$out/cmdline.txt"
echo "mode,family,tool,rep,tx_MBps,rx_MBps,tx_lines,rx_lines,rc,tx_cpu_s" >"$out/runs.csv"

# mean of the N in "PROTO DIR: N MB/s" lines of a log, and how many
mean_mbps() {	# LOG DIR(tx|rx)
	awk -v d="$2" '$2 == d":" && $4 == "MB/s" { s += $3; n++ }
		END { if (n) printf "%.1f %d\n", s / n, n; else print "- 0" }' "$1"
}

nrun=0
run_one() {	# MODE_INDEX FAMILY TOOL REP
	local spec=${MODES[$1]} fam=$2 tool=$3 rep=$4 name txa rxa tx ns
	local tag rc fa proto tm ts
	IFS='|' read -r name txa rxa _ <<<"$spec"
	[ "$rxa" = - ] && rxa=
	read -r tm ts <<<"$txa"
	txa=$(S=$ts L= B= ug_tx_args "$tm")
	nrun=$((nrun + 1))
	ns=b$nrun
	tag=$(printf '%s-ipv%s-%s-%d' "$name" "$fam" "$tool" "$rep" | tr -c 'A-Za-z0-9.\n-' '_')
	if [ "$fam" = 4 ]; then fa="-4 -D 127.0.0.1"; else fa="-6 -D ::1"; fi
	if [ "$tool" = ours ]; then tx=$OURS; else tx=$UTX; fi
	[ "$tool" = ours ] || tool=$other
	case $txa in *-t*) proto=-t ;; *) proto=-u ;; esac
	ns_add "$ns" || ug_die "cannot create a network namespace"
	# UG_RX_PID is the receiver itself (ip and taskset exec it), so that
	# SIGINT, its way to stop, reaches it
	# shellcheck disable=SC2086
	ug_rx_start "$ns" "$proto" "$port" /dev/stdout "$out/raw/$tag.rx.log" \
		$rx_pin "$URX" -p "$port" $rxa ||
		ug_die "upstream's receiver did not bind port $port ($tag)"
	# (ip netns exec and taskset exec the sender: `time` sees its CPU)
	# shellcheck disable=SC2086
	{ time ns_exec "$ns" $tx_pin "$tx" -p "$port" -l "$secs" $fa $txa \
		>"$out/raw/$tag.tx.out" 2>"$out/raw/$tag.tx.log"; } 2>"$tmp/time"
	rc=$?
	cpu=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/time")
	[ -s "$out/raw/$tag.tx.out" ] || rm -f "$out/raw/$tag.tx.out"
	sleep 0.2	# the receiver's last per-second line
	ug_rx_end INT 2>/dev/null
	ip netns del "$(ns_name "$ns")" 2>/dev/null
	read -r txm txn <<<"$(mean_mbps "$out/raw/$tag.tx.log" tx)"
	read -r rxm rxn <<<"$(mean_mbps "$out/raw/$tag.rx.log" rx)"
	echo "\"$name\",ipv$fam,$tool,$rep,$txm,$rxm,$txn,$rxn,$rc,$cpu" >>"$out/runs.csv"
	printf '%-22s ipv%s %-8s rep %d: tx %8s MB/s  rx %8s MB/s  tx cpu %6ss  rc %d\n' \
		"$name" "$fam" "$tool" "$rep" "$txm" "$rxm" "$cpu" "$rc" >&2
}

families=$(echo "$fams" | grep -o .)
total=0
for m in "${!MODES[@]}"; do
	case ${MODES[$m]} in *"|both") total=$((total + 2)) ;; *) total=$((total + 1)) ;; esac
done
total=$((total * reps * $(echo "$families" | wc -w)))
echo "$total runs of ${secs}s (about $((total * (secs + 1) / 60 + 1)) min)" >&2
for rep in $(seq 1 "$reps"); do
	for m in "${!MODES[@]}"; do
		for fam in $families; do
			# A B, then B A: neither tool always runs first
			case ${MODES[$m]} in
			*"|ours") tools=ours ;;
			*) tools="ours upstream"
			   [ $((rep % 2)) -eq 0 ] && tools="upstream ours" ;;
			esac
			for tool in $tools; do run_one "$m" "$fam" "$tool" "$rep"; done
		done
	done
done

# ---- the table ---------------------------------------------------------------
make_table "$out" "$reps" "$secs"
cat "$out/table.txt"
echo "written: $out/{cmdline.txt,runs.csv,table.txt,raw/}" >&2
