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

# name | tx arguments | rx arguments
modes=(
	"sendto -> recv|-u -s 1472|--mode recv"
	"send -> recvmmsg|-s 1472|--mode recvmmsg --batch 64"
	"sendmmsg -> recvmmsg|-m --batch 64 -s 1472|--mode recvmmsg --batch 64"
	"GSO cmsg -> recv|-S 0|--mode recv"
	"GSO cmsg -> recvmmsg|-S 0|--mode recvmmsg --batch 64"
	"GSO cmsg -> UDP_GRO|-S 0|-G"
	"GSO sockopt -> UDP_GRO|-S 0 --gso-mode sockopt|-G"
	"sendmmsg+GSO -> UDP_GRO|-m --batch 8 -S 0|-G --mode recvmmsg --batch 8"
	"zerocopy GSO -> UDP_GRO|-z -S 0|-G"
	"TCP -> TCP|-t|-t"
)
port=9000 i=0
for m in "${modes[@]}"; do
	IFS='|' read -r name txa rxa <<<"$m"
	i=$((i + 1)) port=$((port + 1))
	printf '%s [%d/%d] %s\n' "$ug_prog" "$i" "${#modes[@]}" "$name" >&2
	proto=-u
	case " $rxa " in *" -t "*) proto=-t ;; esac
	# shellcheck disable=SC2086
	ip netns exec "$ns" "$RX" $fam -p "$port" --cpu "$rxcpu" --rcvbuf 4194304 $rxa --json \
		>"$log/$i.rx.json" 2>"$log/$i.rx.log" &
	rxpid=$!
	ns_wait_port "$proto" m "$port" || ug_die "$name: rx did not bind port $port"
	rc=0
	# shellcheck disable=SC2086
	ip netns exec "$ns" "$TX" $fam -D "$dst" -p "$port" -C "$txcpu" -l "$secs" $txa --json \
		>"$log/$i.tx.json" 2>"$log/$i.tx.log" || rc=$?
	sleep 0.2
	kill -INT "$rxpid" 2>/dev/null || true
	wait "$rxpid" || true
	echo "$name|$rc|$txa|$rxa" >>"$log/index"
done

python3 - "$log" <<'PY'
import json, os, sys
d = sys.argv[1]
rows = []
for i, line in enumerate(open(os.path.join(d, "index")), 1):
    name, rc, txa, rxa = line.rstrip("\n").split("|")
    try:
        tx = json.load(open(os.path.join(d, "%d.tx.json" % i)))
        rx = json.load(open(os.path.join(d, "%d.rx.json" % i)))
    except (OSError, ValueError):
        rows.append((name, "failed (exit %s): see %d.tx.log" % (rc, i)))
        continue
    lost = tx["datagrams"] - rx["datagrams"] if tx["proto"] == "udp" else 0
    rows.append((name, "%8.0f %8.0f %7.3f %6.1f %6.2f %6.2f %6.2f%%" % (
        tx["MBps"], rx["MBps"], rx["Mpps"],
        rx.get("datagrams_per_read", 0) if tx["proto"] == "udp" else 0,
        tx["cpu_user_s"] + tx["cpu_sys_s"], rx["cpu_user_s"] + rx["cpu_sys_s"],
        100.0 * lost / tx["datagrams"] if tx["datagrams"] else 0)))
print("%-26s %8s %8s %7s %6s %6s %6s %7s" % ("mode", "tx MB/s", "rx MB/s", "rx Mpps",
      "dg/rd", "txCPU", "rxCPU", "lost"))
for name, s in rows:
    print("%-26s %s" % (name, s))
print("MB/s = 2^20 B/s; dg/rd = datagrams per read (GRO coalescing);"
      " CPU = process user+sys seconds (getrusage); lost = tx - rx datagrams")
PY
