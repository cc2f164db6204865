#!/bin/bash
# H1, case "A attached after B": per trial B holds a link, A (serve) attaches, traffic
# starts, B's link goes (2->1, first probe's data changes) and B churns.
set -u
trials=$1 n=$2 hold=${3:-2500} csecs=${4:-2} cus=${5:-0}
ns=lsk$$; ip netns add $ns; ip -n $ns link set lo up
bad=0 in=0
for ((t = 1; t <= trials; t++)); do
	port=$((RANDOM % 9000 + 50000))
	"$CHURN" "$csecs" "$cus" "$hold" > "$CHURN.out" &
	cpid=$!
	sleep 0.1
	coproc A { UDPGSO_STATS_NO_FREE=${NOFREE:-1} exec "$UDPGSO_BIN/udpgso_stats" serve --filter port $port 2>&1; }
	read -r l <&"${A[0]}"
	cmd() { echo "$1" >&"${A[1]}"; while read -r -t 30 l <&"${A[0]}"; do [ "$l" = . ] && return 0; echo "$l"; done; }
	cmd reset >/dev/null
	t0=$(date +%s.%N)
	ip netns exec $ns python3 "$(dirname "$0")/send.py" $n $port >/dev/null
	t1=$(date +%s.%N)
	c=$(cmd counters)
	wait $cpid
	rx=$(awk '$1 == "rx_skbs" { print $2 }' <<<"$c")
	# the held link released while the datagrams were sent?
	rel=$(awk '$1 == "released" { print $2 }' "$CHURN.out")
	awk -v a="$t0" -v r="${rel:-0}" -v b="$t1" 'BEGIN { exit !(a < r && r < b) }' && in=$((in + 1))
	if [ "$rx" != "$n" ]; then bad=$((bad + 1)); echo "# trial $t: rx_skbs=$rx want $n; $(grep '^# skipped' <<<"$c" | tr '\n' ' ') $(tr '\n' ' ' <"$CHURN.out")"; fi
	echo quit >&"${A[1]}"; wait $A_PID 2>/dev/null
done
echo "trials $trials bad $bad, the held link released during the traffic in $in"
ip netns del $ns
