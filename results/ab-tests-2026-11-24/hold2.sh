#!/bin/bash
# second lock hold: the statistics and script tests, the bench tools' test,
# then the TCP receiver comparison (output outside the worktree)
cd /work/wt/ab || exit 1
export UDPGSO_BIN=/work/wt/ab
echo "lock $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) rev $(git describe --always --dirty)"
for t in scripts/tests/ab_stats_test.sh scripts/tests/ab_report_test.sh scripts/tests/scripts_test.sh ./udpgso_bench.sh; do
	s=$(date +%s)
	$t > "/tmp/ab_noise/$(basename "$t").tap" 2>&1
	echo "$t rc=$? $(($(date +%s) - s)) s: $(grep -c '^ok' "/tmp/ab_noise/$(basename "$t").tap") ok, $(grep -c '^not ok' "/tmp/ab_noise/$(basename "$t").tap") not ok"
done
echo "tcp $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
scripts/bench/rx_vs_upstream.sh -M '^tcp$' -l 5 -r 8 -o /tmp/ab_noise/rx-vs-upstream-tcp > /tmp/ab_noise/rx-tcp.console 2>&1
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
