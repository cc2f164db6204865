#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# modes.sh: the send and receive modes side by side over loopback in a
# fresh network namespace, one run each, and a summary table.
#
#   scripts/bench/modes.sh [-4|-6] [-l SECONDS] [-o DIR]
#
# tx is pinned to CPU 0 and rx to CPU 1 (when there are two).  Each row is
# one tx/rx pair run for SECONDS (default 2); rx stops on SIGINT after tx
# has finished, so loss is what tx sent and rx never read.  CPU is the
# process's own user+sys time (getrusage), not softirq work done on its
# behalf: see scripts/ for the perf/proc-stat accounting.  With -o DIR, the
# command, the JSON summaries and the stderr logs are kept there.
set -eu
. "$(dirname "$0")/../lib.sh"

fam=-4 secs=2 out=
[ "${1:-}" = --help ] && { ug_help; exit 0; }
while getopts ":h46l:o:" o; do
	case "$o" in
	h) ug_help; exit 0 ;;
	4 | 6) fam=-$o ;;
	l) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	:) ug_die "-$OPTARG: needs a value (-h: usage)" ;;
	*) ug_die "-$OPTARG: unknown option, allowed [-4|-6] [-l SECONDS 1..60] [-o DIR]" ;;
	esac
done
case "$secs" in
'' | *[!0-9]*) ug_die "-l '$secs': allowed 1..60 seconds" ;;
esac
[ "$secs" -ge 1 ] && [ "$secs" -le 60 ] || ug_die "-l $secs: out of range, allowed 1..60"
TX=$UDPGSO_BIN/udpgso_bench_tx
RX=$UDPGSO_BIN/udpgso_bench_rx
[ -x "$TX" ] && [ -x "$RX" ] || ug_die "$TX or $RX missing: run make first"
why=$(ug_need_root) || ug_die "$why"
why=$(ug_need_cmd ip ss python3) || ug_die "$why"

ug_trap_install
if [ -n "$out" ]; then
	mkdir -p "$out"
	log=$out
else
	log=$(mktemp -d)
	defer rm -rf "$log"
fi
echo "$0 $*" >"$log/command"
ns_add m
ns=$(ns_name m)
dst=127.0.0.1
[ "$fam" = -6 ] && dst=::1
txcpu=0 rxcpu=0
[ "$(nproc)" -ge 2 ] && rxcpu=1

# name | tx mode of lib.sh's table, its S L B ("-": empty, the tool's
# default; -S 0 is the MSS) | rx arguments
modes=(
	"sendto -> recv|sendto 1472 - -|--mode recv"
	"send -> recvmmsg|send 1472 - -|--mode recvmmsg --batch 64"
	"sendmmsg -> recvmmsg|sendmmsg 1472 - 64|--mode recvmmsg --batch 64"
	"GSO cmsg -> recv|gso-cmsg 0 - -|--mode recv"
	"GSO cmsg -> recvmmsg|gso-cmsg 0 - -|--mode recvmmsg --batch 64"
	"GSO cmsg -> UDP_GRO|gso-cmsg 0 - -|-G"
	"GSO sockopt -> UDP_GRO|gso-sockopt 0 - -|-G"
	"sendmmsg+GSO -> UDP_GRO|sendmmsg-gso 0 - 8|-G --mode recvmmsg --batch 8"
	"zerocopy GSO -> UDP_GRO|zerocopy-gso 0 - -|-G"
	"TCP -> TCP|tcp - - -|-t"
)
# tx_args "MODE S L B": the arguments from lib.sh's table
tx_args() {
	local m s l b
	read -r m s l b <<<"$1"
	S=${s#-} L=${l#-} B=${b#-} ug_tx_args "$m"
}
port=9000 i=0
for m in "${modes[@]}"; do
	IFS='|' read -r name txm rxa <<<"$m"
	txa=$(tx_args "$txm")
	i=$((i + 1)) port=$((port + 1))
	printf '%s [%d/%d] %s\n' "$ug_prog" "$i" "${#modes[@]}" "$name" >&2
	proto=-u
	case " $rxa " in *" -t "*) proto=-t ;; esac
	# shellcheck disable=SC2086
	ug_rx_start m "$proto" "$port" "$log/$i.rx.json" "$log/$i.rx.log" \
		"$RX" $fam -p "$port" --cpu "$rxcpu" --rcvbuf 4194304 $rxa --json ||
		ug_die "$name: rx did not bind port $port"
	rc=0
	# shellcheck disable=SC2086
	ug_tx_run m "$log/$i.tx.json" "$log/$i.tx.log" \
		"$TX" $fam -D "$dst" -p "$port" -C "$txcpu" -l "$secs" $txa --json || rc=$?
	sleep 0.2
	ug_rx_end INT || true
	echo "$name|$rc|$txa|$rxa" >>"$log/index"
done

python3 "$UG_TOP/scripts/bench/modes_table.py" "$log"
