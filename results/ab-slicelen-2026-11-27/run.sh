#!/bin/bash
# slice length experiment: 1 s, 0.5 s, 0.25 s slices, rotating order, equal budget
set -u
cd /tmp/s10e
R=${1:-4}
for r in $(seq 1 "$R"); do
	case $((r % 3)) in 1) o="1 0.5 0.25" ;; 2) o="0.5 0.25 1" ;; 0) o="0.25 1 0.5" ;; esac
	for s in $o; do
		echo "## round $r secs $s $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
		scripts/bench/udpgso_ab.sh --tx sendto,sendmmsg --rx plain,gro --budget 80 --ci 95,0.1 \
			--max-reps 200 --secs "$s" --no-plots --out "/tmp/slen/s$s" 2>&1 | grep -E "^Interval half-widths|results in"
	done
done
