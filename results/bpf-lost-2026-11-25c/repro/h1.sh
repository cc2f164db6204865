#!/bin/bash
# H1 reproducer: udpgso_stats serve counts N lo datagrams while CHURN attaches/detaches
# UDPGSO_BIN=... h1.sh TRIALS N CHURN_ARGS...
set -u
trials=$1 n=$2; shift 2
ns=lsk$$; ip netns add $ns; ip -n $ns link set lo up
port=$((RANDOM % 9000 + 50000))
coproc A { UDPGSO_STATS_NO_FREE=${NOFREE:-1} exec "$UDPGSO_BIN/udpgso_stats" serve --filter port $port 2>&1; }
read -r l <&"${A[0]}"; echo "# A: $l"
cmd() { echo "$1" >&"${A[1]}"; while read -r -t 30 l <&"${A[0]}"; do [ "$l" = . ] && return 0; echo "$l"; done; }
cpid=
if [ $# -gt 0 ]; then "$@" & cpid=$!; fi
bad=0
for ((t = 1; t <= trials; t++)); do
	cmd reset >/dev/null
	ip netns exec $ns python3 "$(dirname "$0")/send.py" $n $port >/dev/null
	c=$(cmd counters)
	rx=$(awk '$1 == "rx_skbs" { print $2 }' <<<"$c")
	if [ "$rx" != "$n" ]; then bad=$((bad + 1)); echo "# trial $t: rx_skbs=$rx want $n; $(grep '^# skipped' <<<"$c" | tr '\n' ' ')"; fi
done
[ -z "$cpid" ] || { kill $cpid; wait $cpid; }
echo "trials $trials bad $bad"
kill $A_PID; ip netns del $ns
