#!/bin/bash
# trace.sh SECS [m]: one long sendmmsg (m) or sendto send on a veth pair in two
# namespaces it makes (tx on CPU 0, rx on CPU 1), the receiving device sampled every 50 ms
# (O/dev.out); B=REPO.  design_eval.py reads it (README in the directory above).
set -eu
T=${1:-60}; MODE=${2:-m}; B=${B:?the built repo (udpgso_bench_tx, _rx)}; O=${O:-.}
ip netns add pxa; ip netns add pxb
trap 'ip netns del pxa; ip netns del pxb; kill $(jobs -p) 2>/dev/null || true' EXIT
ip -n pxa link add a0 type veth peer name b0 netns pxb
ip -n pxa addr add 10.99.0.1/24 dev a0; ip -n pxb addr add 10.99.0.2/24 dev b0
ip -n pxa link set a0 up; ip -n pxb link set b0 up; ip -n pxa link set lo up; ip -n pxb link set lo up
ip netns exec pxb "$B"/udpgso_bench_rx -4 -p 32511 -C $(( (T+5)*1000 )) -R 100000 --mode recv --cpu 1 >"$O"/rx.out 2>&1 &
RX=$!
sleep 0.5
python3 - "$RX" "$T" > "$O"/dev.out <<'PY' &
import sys,time
pid,T=sys.argv[1],float(sys.argv[2]); t0=time.monotonic()
while time.monotonic()-t0<T+1.5:
    for l in open(f'/proc/{pid}/net/dev'):
        if 'b0:' in l: f=l.split(':')[1].split(); print(f'{time.monotonic():.4f} {f[0]} {f[1]}',flush=True)
    time.sleep(0.05-(time.monotonic()-t0)%0.05)
PY
SAMP=$!
python3 -c 'import time;print(f"{time.monotonic():.4f}")' > "$O"/t0
if [ "$MODE" = m ]; then TXO="-m --batch 44"; else TXO=""; fi
ip netns exec pxa "$B"/udpgso_bench_tx -4 -D 10.99.0.2 -p 32511 -l $T $TXO -s 1472 -C 0 >"$O"/tx.out 2>&1 || true
wait $SAMP
