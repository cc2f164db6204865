#!/bin/bash
# the results run of results/wire-sink-2026-11-24 (both passes of make check, for the two tests)
set -u
cd /tmp/wire-run
out=${OUT:-/tmp/wire-run-out}
mkdir -p "$out"
echo "start (no lock: each script under 1 min, mostly sleeping) $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/timing.txt"
uname -r >> "$out/timing.txt"
git log --oneline -1 >> "$out/timing.txt"
make -s >/dev/null 2>&1 && make -s SANITIZE=1 >/dev/null 2>&1 || { echo build failed >> "$out/timing.txt"; exit 1; }
s=$(date +%s)
make --no-print-directory UG_SETUP=0 TEST_PROGS="udpgso.sh udpgso_wire.sh" run_tests > "$out/ksft.log" 2>&1
echo "normal pass rc=$? $(( $(date +%s) - s )) s" >> "$out/timing.txt"
s=$(date +%s)
ASAN_OPTIONS=detect_leaks=0 make --no-print-directory UG_SETUP=0 SANITIZE=1 TEST_PROGS="udpgso.sh udpgso_wire.sh" run_tests > "$out/ksft-asan.log" 2>&1
echo "SANITIZE=1 pass rc=$? $(( $(date +%s) - s )) s" >> "$out/timing.txt"
echo "done $(date -u +%T)" >> "$out/timing.txt"
