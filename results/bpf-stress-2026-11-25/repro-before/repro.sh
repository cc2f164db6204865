#!/bin/bash
# repro loop: N iterations of udpgro_conf cases under stress-ng
bin=$1 n=$2 out=$3
cd /work/wt/bpfexact
stress-ng --cpu 2 --cpu-load 90 --timeout 3000 >/dev/null 2>&1 &
sp=$!
for i in $(seq "$n"); do
	UDPGSO_BIN=$bin ./udpgro_conf.sh -k 'ipv[46] [bm]a[dx]_c*' 2>&1 | grep -E "^(not )?ok|counters:" 
done >"$out"
kill $sp
