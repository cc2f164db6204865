#!/bin/bash
# experiment: A/B of tx-udp-segmentation on the sending veth, toggled inside one long tx run
# A (detached windows, "off" events) = tx-udp-segmentation on; B ("on" windows) = off
# usage: abtoggle.sh OUTDIR WINDOWS W TXARGS...
set -u
out=$1 N=$2 W=$3; shift 3
mkdir -p "$out"; raw=$out/raw.log
B=/work/main
ip netns add abta; ip netns add abtb
ip link add abtA netns abta type veth peer name abtB netns abtb
ip -n abta addr add 10.77.0.1/24 dev abtA; ip -n abtb addr add 10.77.0.2/24 dev abtB
ip -n abta link set abtA up; ip -n abtb link set abtB up; ip -n abta link set lo up; ip -n abtb link set lo up
ip netns exec abtb $B/udpgso_bench_rx -4 -p 9200 --cpu 1 >/dev/null 2>&1 &
sleep 1
{ echo "# abtoggle: A tx-udp-segmentation on (detached windows), B off (attached windows); $(date -u)"; echo "# command: $0 $out $N $W $*"; echo "# load $(cat /proc/loadavg)"; echo "workload ab tx $*"; } > "$raw"
ip netns exec abta $B/udpgso_bench_tx -4 -D 10.77.0.2 -p 9200 -l 100000 -C 0 "$@" 2>&1 | while IFS= read -r l; do echo "tx $EPOCHREALTIME $l"; done >> "$raw" &
sleep 2
for ((i=0;i<N;i++)); do
	echo "event $EPOCHREALTIME off" >> "$raw"; sleep "$W"
	echo "event $EPOCHREALTIME load B" >> "$raw"
	ip netns exec abta ethtool -K abtA tx-udp-segmentation off >/dev/null
	echo "event $EPOCHREALTIME on_from B" >> "$raw"; sleep "$W"
	echo "event $EPOCHREALTIME on_to B" >> "$raw"
	ip netns exec abta ethtool -K abtA tx-udp-segmentation on >/dev/null
done
echo "event $EPOCHREALTIME off" >> "$raw"; sleep "$W"; echo "event $EPOCHREALTIME end" >> "$raw"
echo "# load after $(cat /proc/loadavg)" >> "$raw"
ip netns pids abta | xargs -r kill -9; ip netns pids abtb | xargs -r kill -9
sleep 0.5; ip netns del abta; ip netns del abtb
python3 /work/main/scripts/bench/bpf_toggle_summary.py "$raw"
