#!/bin/bash
# The BPF programs' own run time (BPF_STATS_RUN_TIME, via udpgso_stats run
# --prog-stats) of two builds of udpgso_stats, alternating build by build on
# the same traffic: OLD = main at 55226c3 (BPF_CORE_READ: a
# bpf_probe_read_kernel call per field), NEW = bpfcost d23dc98 (direct BTF
# loads, one read of the shared info, one of the IP header and ports).
#   run.sh OLD_TOOL NEW_TOOL ROUNDS > raw.log     (in a checkout with the tools built)
set -eu
old=$1 new=$2 rounds=$3
ns=ugbc$$
ip netns add "$ns"
trap 'ip netns del "$ns"' EXIT
ip -n "$ns" link set lo up
echo "# $(date -u '+%F %T UTC') kernel $(uname -r), load before $(cut -d' ' -f1-3 /proc/loadavg)"
for w in gso-gro sendto; do
	port=$((RANDOM % 20000 + 20000))
	rxf=; txf=(-s 1400)
	[ "$w" = gso-gro ] && { rxf=-G; txf=(-s 14000 -S 1400); }
	timeout 600 ip netns exec "$ns" ./udpgso_bench_rx -4 -p "$port" $rxf >/dev/null 2>&1 &
	sleep 1
	for ((r = 0; r < rounds; r++)); do
		if ((r % 2)); then order="new old"; else order="old new"; fi
		for b in $order; do
			tool=$old; [ "$b" = new ] && tool=$new
			for f in none port; do
				fa=(); [ "$f" = port ] && fa=(--filter port "$port")
				echo "## round $r workload $w build $b filter $f"
				"$tool" run "${fa[@]}" --prog-stats -- ip netns exec "$ns" \
					./udpgso_bench_tx -4 -D 127.0.0.1 -p "$port" -l 2 "${txf[@]}" 2>&1 |
					grep -E '^(tx_skbs|rx_skbs|# prog|udp tx)'
			done
		done
	done
	kill %1 2>/dev/null; wait 2>/dev/null || true
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
