#!/bin/bash
# the full make-run matrix (udpgso_ab.sh defaults, 260 s budget) at three slice lengths, alternating
set -u
cd /tmp/s10e
for s in 0.25 1 0.5 1 0.25; do
	echo "## secs $s $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
	scripts/bench/udpgso_ab.sh --max-reps 100 --secs "$s" --no-plots --out "/tmp/slen/full$s" 2>&1 |
		grep -E "^Interval half-widths|results in"
done
