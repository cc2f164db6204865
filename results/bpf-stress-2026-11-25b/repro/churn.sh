#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The rep-184 disagreement without a CPU load: udpgro_conf.sh's
# 'ipv4 max_count (gro)' REPS times while another udpgso_stats instance is
# attached and detached in a loop (what bpf_test.sh's reps did beside it in
# make bpf-stress), or with CHURN=0 alone.
#   UDPGSO_BIN=DIR churn.sh REPS LOG
set -u
reps=${1:?REPS} log=${2:?LOG}
: "${UDPGSO_BIN:?UDPGSO_BIN=the build directory}"
top=$(cd "$(dirname "$0")/../../.." && pwd)
pid=
if [ "${CHURN:-1}" = 1 ]; then
	( while :; do "$UDPGSO_BIN/udpgso_stats" run -- sleep 0.2 >/dev/null 2>&1; done ) &
	pid=$!
fi
"$top/udpgro_conf.sh" -k 'ipv4 max_count (gro)' -n "$reps" >"$log" 2>&1
rc=$?
[ -z "$pid" ] || { kill "$pid"; wait "$pid" 2>/dev/null; }
grep -v 'udpgso_wire exit' "$log" | grep '^# rep\|^ok\|^not ok'
exit $rc
