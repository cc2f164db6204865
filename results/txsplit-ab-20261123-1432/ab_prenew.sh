#!/bin/bash
# ab_prenew.sh PRE_BIN NEW_BIN OUTDIR [REPS] [SECS]: the pre-step tx against
# the new tx on loopback, alternating (odd reps pre then new, even reps new
# then pre), a fresh netns per run, the same receiver (NEW_BIN's rx, CPU 0),
# the sender on CPU 1.  Modes: plain (-s default, split at the MSS) and
# -S 0 (GSO).  Raw: OUTDIR/runs.csv and each run's JSON; OUTDIR/table.txt:
# medians and the median of the per-repetition new/pre ratios.
set -u
pre=$1 new=$2 out=$3 reps=${4:-7} secs=${5:-2}
mkdir -p "$out"
echo "rep,mode,bin,MBps,cpu_s,MB_per_cpu_s" >"$out/runs.csv"
one() {		# REP MODE BINNAME BINDIR ARGS
	local rep=$1 mode=$2 name=$3 dir=$4 args=$5 f
	f="$out/r$rep-$mode-$name.json"
	unshare -n bash -c '
		ip link set lo up
		taskset -c 0 "$1"/udpgso_bench_rx -4 >/dev/null 2>&1 & rp=$!
		for i in $(seq 100); do ss -Hlnu | grep -q ":8000 " && break; sleep 0.02; done
		taskset -c 1 "$2"/udpgso_bench_tx -4 -D 127.0.0.1 -l "$3" $4 --json 2>/dev/null
		kill -INT $rp; wait $rp' _ "$new" "$dir" "$secs" "$args" >"$f"
	python3 - "$f" "$rep" "$mode" "$name" >>"$out/runs.csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
cpu = j["cpu_user_s"] + j["cpu_sys_s"]
mb = j["bytes"] / 2**20
print(f'{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{j["MBps"]:.1f},{cpu:.3f},{mb / cpu if cpu else 0:.1f}')
PY
}
for rep in $(seq "$reps"); do
	for m in "plain|" "gso|-S 0"; do
		mode=${m%%|*} args=${m#*|}
		if [ $((rep % 2)) = 1 ]; then
			one "$rep" "$mode" pre "$pre" "$args"; one "$rep" "$mode" new "$new" "$args"
		else
			one "$rep" "$mode" new "$new" "$args"; one "$rep" "$mode" pre "$pre" "$args"
		fi
	done
done
python3 - "$out/runs.csv" >"$out/table.txt" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f'{"mode":6} {"metric":14} {"pre med":>9} {"new med":>9} {"new/pre":>8} {"med ratio":>9} {"min..max ratio":>15}')
for mode in ("plain", "gso"):
    for key in ("MBps", "MB_per_cpu_s"):
        v = {b: {r["rep"]: float(r[key]) for r in rows if r["mode"] == mode and r["bin"] == b}
             for b in ("pre", "new")}
        ratios = [v["new"][k] / v["pre"][k] for k in v["pre"] if v["pre"][k]]
        mp, mn = st.median(v["pre"].values()), st.median(v["new"].values())
        print(f'{mode:6} {key:14} {mp:9.1f} {mn:9.1f} {mn / mp:8.3f} {st.median(ratios):9.3f} '
              f'{min(ratios):7.3f}..{max(ratios):.3f}')
PY
cat "$out/table.txt"
