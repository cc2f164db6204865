#!/bin/bash
# one lock hold: the receiver against upstream (ours with naps, ours with
# poll, upstream), the sender's wake-up profile, then the noise experiment
cd /work/wt/ab || exit 1
export UDPGSO_BIN=/work/wt/ab
echo "lock $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) rev $(git describe --always --dirty)"
scripts/bench/rx_vs_upstream.sh -l 5 -r 3 -o results/rx-vs-upstream-2026-11-24b -x poll-wait=/tmp/ab_noise/ours_poll
echo "profile $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
results/rx-wake-profile-2026-11-24/profile.sh /tmp/ab_up/up_tx /tmp/ab_up/up_rx results/rx-wake-profile-2026-11-24 | tee results/rx-wake-profile-2026-11-24/summary.txt
echo "noise $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
./scripts/bench/udpgso_ab.sh --tx sendto,sendmmsg,gso-cmsg,tcp --ci off -n 12 -l 1 --label noise-1s --no-plots
echo "between $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
./scripts/bench/udpgso_ab.sh --tx sendto,sendmmsg,gso-cmsg,tcp --ci off -n 6 -l 3 --label noise-3s --no-plots
echo "between $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
./scripts/bench/udpgso_ab.sh --tx sendto,sendmmsg,gso-cmsg,tcp --ci off -n 12 -l 1 --rate 50% --label noise-rate50-1s --no-plots
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "make run $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) rev $(git describe --always --dirty)"
s=$(date +%s)
make run > /tmp/ab_noise/makerun.console 2>&1
echo "make run rc=$? $(($(date +%s) - s)) s; end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
