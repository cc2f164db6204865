#!/bin/bash
# the failing case itself (issue 25), sped up: udpgro_conf.sh 'ipv4 max_count
# (gro)' -n REPS with the consume_skb/kfree_skb programs loaded (as when it
# failed: a copy of udpgro_conf.sh without UDPGSO_STATS_NO_FREE=1), beside two
# churners on the same tracepoints (udpgso_stats run in a loop, and ./churn
# attaching/detaching every 1 ms) and stress-ng --cpu 2 at 80%; UNIX_LOAD=1:
# also unix_load.py (consume_skb in process context, where the GRO timer's
# softirq nests in the consume_skb program's runs: H2) on each CPU; BT=1:
# bpf_test.sh's gro case repeated beside instead of the udpgso_stats loop
# (the churn of both reproductions, make bpf-stress's --bt-cases gro).
#   CHURN=./churn UDPGSO_BIN=TREE [UNIX_LOAD=1] [BT=1] real.sh REPS LOG
set -u
reps=$1 log=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cd "$top"
copy=.udpgro_conf_free.$$.sh
sed 's/UDPGSO_STATS_NO_FREE=1 exec/UDPGSO_STATS_NO_FREE=0 exec/' udpgro_conf.sh > "$copy"
chmod +x "$copy"
stress-ng --cpu 2 --cpu-load 80 --timeout ${SECS:-900} >/dev/null 2>&1 & sp=$!
ul=
if [ "${UNIX_LOAD:-0}" = 1 ]; then
	for c in 0 1; do taskset -c $c python3 "$here/unix_load.py" 900 >>"$log.unix" & ul+=" $!"; done
fi
if [ "${BT:-0}" = 1 ]; then
	BPF_TEST_REPS=1000 BPF_TEST_CASES=gro ./bpf_test.sh >"$log.bt" 2>&1 & c1=$!
else
	( while :; do "$UDPGSO_BIN/udpgso_stats" run -- sleep 0.2 >/dev/null 2>&1; done ) & c1=$!
fi
"$CHURN" 900 1000 > "$log.churn" & c2=$!
timeout ${SECS:-900} "./$copy" -k 'ipv4 max_count (gro)' -n "$reps" > "$log" 2>&1
echo "exit $?" >> "$log"
# shellcheck disable=SC2086
kill $sp $c1 $c2 $ul; wait
rm -f "$copy"
