#!/bin/bash
cd /work/main
for k in /boot/vmlinuz-6.12.117+deb12-amd64 /boot/vmlinuz-6.1.0-*-amd64; do
	echo "== $k lock $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
	s=$SECONDS
	UG_VNG_ACCEL=tcg scripts/vm/vng_run.sh --kernel "$k" --timeout 600 -- \
		"UDPGSO_BIN=/work/main /work/main/scripts/vm/wire_guest.sh --out /dev/stdout" 2>&1 | grep -E "UGKMOD|rc=|error|Error" | sort -u
	echo "== rc=${PIPESTATUS[0]} $((SECONDS - s)) s"
done
