#!/bin/bash
# probe experiment (README here): a sendmmsg -> plain path on a veth pair in two
# namespaces it makes (tx pinned to CPU 0, rx to CPU 1) beside a SCHED_IDLE copy
# probe on CPU 1; the receiving device sampled every STEP s (0.1).
#   B=REPO O=OUTDIR [STEP=S] [PROBE=0] exp.sh SECS [m|s]   (m: sendmmsg, s: sendto)
# PROBE=0: no probe (ab-slicelen-2026-11-27's trace: STEP=0.05 PROBE=0)
set -eu
T=${1:-60}; MODE=${2:-m}; B=${B:?the built repo (udpgso_bench_tx, _rx)}; O=${O:-.}
STEP=${STEP:-0.1}; PROBE=${PROBE:-1}
ip netns add pxa; ip netns add pxb
trap 'ip netns del pxa; ip netns del pxb; kill $(jobs -p) 2>/dev/null || true' EXIT
ip -n pxa link add a0 type veth peer name b0 netns pxb
ip -n pxa addr add 10.99.0.1/24 dev a0; ip -n pxb addr add 10.99.0.2/24 dev b0
ip -n pxa link set a0 up; ip -n pxb link set b0 up; ip -n pxa link set lo up; ip -n pxb link set lo up
ip netns exec pxb "$B"/udpgso_bench_rx -4 -p 32511 -C $(( (T+5)*1000 )) -R 100000 --mode recv --cpu 1 >"$O"/rx.out 2>&1 &
RX=$!
sleep 0.5
python3 "$(dirname "$0")"/sample_dev.py "$RX" "$T" "$STEP" > "$O"/dev.out &
SAMP=$!
PR=
if [ "$PROBE" = 1 ]; then
	"$O"/idleprobe 1 $((T+1)) 65536 1 > "$O"/probe.out &
	PR=$!
fi
python3 "$(dirname "$0")"/sample_dev.py now > "$O"/t0
if [ "$MODE" = m ]; then TXO="-m --batch 44"; else TXO=""; fi
ip netns exec pxa "$B"/udpgso_bench_tx -4 -D 10.99.0.2 -p 32511 -l $T $TXO -s 1472 -C 0 >"$O"/tx.out 2>&1 || true
wait $PR $SAMP  # PR unquoted: empty without the probe
