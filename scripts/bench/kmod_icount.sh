#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_stats overhead in guest instructions, not time: a 6.1 or 6.12 guest
# runs under TCG with our instruction-counting plugin (scripts/bench/icount/
# ugcount.c), one vCPU and -icount; a sender of our own (scripts/bench/icount/
# ug_sendloop.c) sends in windows bracketed by the plugin's markers, after
# its socket is set up, so no process start falls in a window.  Each workload
# runs with N and with 2N sends per window (W windows each); what does not
# scale with N (the markers, the pause for the receiver) cancels:
#   cost per send = (median I(2N) - median I(N)) / N
# Rounds alternate module off/on.  A benchmark: it asserts nothing.
#
#   scripts/bench/kmod_icount.sh [--kernel VER] [--rounds R] [--n N] [--windows W] [--out DIR]
#   scripts/bench/kmod_icount.sh --summarize DIR
#
# Workloads (udpgso_bench_rx receivers, module loaded with no filter):
#   gso_lo    14000 bytes with UDP_SEGMENT 1400 (10 segments) over lo to a
#             UDP_GRO receiver: per GSO send
#   gso_veth  the same over veth with software segmentation (sender
#             tx-udp-segmentation and tso off) and GRO on the receiver (gro
#             on, UDP_GRO socket): the GSO->GRO path, every hook fires
#   sendto_lo 1400-byte datagrams over lo to a plain receiver: per datagram
# N sends per window for the GSO workloads (default 200), 5N for sendto_lo.
# DIR (default results/kmod-overhead-DATE) gets command.txt, marks.log (the
# plugin's), windows.log (the guest's list of runs), guest.log, raw.log and
# summary.txt.
set -u

. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog [--kernel VER] [--rounds R] [--n N] [--windows W] [--out DIR]" \
		"| --summarize DIR" >&2
	exit 1
}

kver= rounds=4 n=200 windows=4 out= in_guest= ko= sumdir= tools=
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) (usage) 2>&1; exit 0 ;;
	--kernel) kver=${2:-}; shift 2 || usage ;;
	--rounds) rounds=${2:-}; shift 2 || usage ;;
	--n) n=${2:-}; shift 2 || usage ;;
	--windows) windows=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--in-guest) in_guest=1; ko=${2:-}; tools=${3:-}; shift 3 || usage ;;
	--summarize) sumdir=${2:-}; shift 2 || usage ;;
	*) usage ;;
	esac
done
case "$rounds" in ''|0|*[!0-9]*) ug_die "--rounds '$rounds': allowed a positive integer" ;; esac
case "$n" in ''|0|*[!0-9]*) ug_die "--n '$n': allowed a positive integer" ;; esac
case "$windows" in ''|0|*[!0-9]*) ug_die "--windows '$windows': allowed a positive integer" ;; esac

WORKLOADS="gso_lo gso_veth sendto_lo"

# ---- summary: windows.log + marks.log -> raw.log, summary.txt ---------------------------
summarize() {
	local d=$1
	[ -r "$d/windows.log" ] && [ -r "$d/marks.log" ] ||
		ug_die "--summarize '$d': needs windows.log and marks.log there"
	# windows.log: "run K round R mode M work W n N windows C": marks K..K+C
	# bracket its C windows; marks.log: "mark K TOTAL KERNEL vcpu V"
	awk 'FNR == NR { if ($1 == "mark") { tot[$2] = $3; ker[$2] = $4 } next }
	     $1 == "run" { k = $2
		for (i = 0; i < $12; i++) {
			if (!((k + i + 1) in tot)) { print "# run " k ": no mark " k + i + 1; next }
			printf "round %s mode %s work %s n %s window %d insns %d kernel %d\n",
				$4, $6, $8, $10, i, tot[k + i + 1] - tot[k + i],
				ker[k + i + 1] - ker[k + i]
		} }' "$d/marks.log" "$d/windows.log" > "$d/raw.log"
	python3 "$UG_TOP/scripts/bench/kmod_icount_summary.py" "$d/raw.log" "$d/windows.log" |
		tee "$d/summary.txt"
}

if [ -n "$sumdir" ]; then
	summarize "$sumdir"
	exit 0
fi

# ---- inside the guest ---------------------------------------------------------------
guest() {
	local r mode order w k=1 p_lo=31001 p_veth=31002 p_sendto=31003 cnt
	local TX=$UDPGSO_BIN/udpgso_bench_tx RX=$UDPGSO_BIN/udpgso_bench_rx
	ug_trap_install
	defer rmmod udpgso_stats
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	rmmod udpgso_stats 2>/dev/null
	ns_add l && ns_add a && ns_add b && veth_pair a a0 b b0 || ug_die "netns/veth setup failed"
	ns_exec a ip addr add 10.71.0.1/24 dev a0
	ns_exec b ip addr add 10.71.0.2/24 dev b0
	ns_exec a ip neigh replace 10.71.0.2 dev a0 lladdr \
		"$(ns_exec b cat /sys/class/net/b0/address)" nud permanent
	ns_exec a ethtool -K a0 tx-udp-segmentation off tso off >/dev/null || ug_die "ethtool a0"
	ns_exec b ethtool -K b0 gro on >/dev/null || ug_die "ethtool b0"
	# receive buffers that hold a whole window: no drop whatever the
	# scheduling (a drop costs fewer instructions than a delivery)
	sysctl -qw net.core.rmem_default=67108864 net.core.rmem_max=67108864
	# IPv6 off on the veth pair: no neighbour discovery in the windows
	ns_exec a sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ns_exec b sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	sysctl -qw net.ipv4.udp_mem="4000000 4000000 4000000"
	# receivers in SCHED_IDLE: they never preempt the sender, so they run
	# in the pause at the end of each window and drain it in one go (the
	# number of context switches in a window does not depend on wake-up
	# timing)
	ns_exec l chrt -i 0 "$RX" -4 -p "$p_lo" -G --rcvbuf 67108864 >/dev/null 2>&1 &
	defer kill "$!"
	ns_exec b chrt -i 0 "$RX" -4 -p "$p_veth" -G --rcvbuf 67108864 >/dev/null 2>&1 &
	defer kill "$!"
	ns_exec l chrt -i 0 "$RX" -4 -p "$p_sendto" --rcvbuf 67108864 >/dev/null 2>&1 &
	defer kill "$!"
	ns_wait_udp_port l "$p_lo" && ns_wait_udp_port b "$p_veth" &&
		ns_wait_udp_port l "$p_sendto" || ug_die "receivers did not bind"
	echo "# kernel $(uname -r) ($(uname -v)), $(nproc) cpus"
	for ((r = 0; r < rounds; r++)); do
		if ((r % 2)); then order="on off"; else order="off on"; fi
		for mode in $order; do
			[ "$mode" = on ] && { insmod "$ko" || ug_die "insmod $ko failed"; }
			for w in $WORKLOADS; do
				for m in "$n" $((2 * n)); do
					run "$w" "$m" || ug_die "ug_sendloop failed ($w $m)"
					echo "run $k round $r mode $mode work $w n $wn windows $windows"
					echo "# run $k receive buffer drops so far: l $(rcvbuf_errors l), b $(rcvbuf_errors b)"
					k=$((k + windows + 1))
				done
			done
			if [ "$mode" = on ]; then
				cnt=$(awk '$2 != 0 { printf "%s=%s ", $1, $2 }' \
					/sys/kernel/debug/udpgso_stats/counters)
				echo "# round $r counters: $cnt"
				grep -v '^#' /sys/kernel/debug/udpgso_stats/hooks | sed 's/^/# hooks: /'
				rmmod udpgso_stats || ug_die "rmmod failed"
			fi
		done
	done
}

rcvbuf_errors() {	# NS: the UDP RcvbufErrors counter of NS
	ns_exec "$1" awk '$1 == "Udp:" && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		$1 == "Udp:" { print $c["RcvbufErrors"] }' /proc/net/snmp
}

# run WORK N: one ug_sendloop of W windows (W + 1 marks); sets wn to the
# sends per window.  The 300 ms pause lets the receiver drain each window.
run() {
	local w=$1 m=$2
	wn=$m
	case "$w" in
	gso_lo) ns_exec l "$tools/ug_sendloop" 127.0.0.1 31001 14000 1400 "$m" "$windows" 300 ;;
	gso_veth) ns_exec a "$tools/ug_sendloop" 10.71.0.2 31002 14000 1400 "$m" "$windows" 300 ;;
	sendto_lo) wn=$((5 * m))
		ns_exec l "$tools/ug_sendloop" 127.0.0.1 31003 1400 0 "$wn" "$windows" 300 ;;
	esac
}

if [ -n "$in_guest" ]; then
	guest
	exit 0
fi

# ---- on the host ----------------------------------------------------------------
ug_kmod_host_setup
cc=(gcc -O2 -Wall -Wextra -Werror)
"${cc[@]}" -shared -fPIC -fvisibility=hidden -o "$work/ugcount.so" \
	"$UG_TOP/scripts/bench/icount/ugcount.c" || ug_die "building the plugin failed"
"${cc[@]}" -o "$work/ug_sendloop" "$UG_TOP/scripts/bench/icount/ug_sendloop.c" ||
	ug_die "building ug_sendloop failed"

echo "scripts/bench/kmod_icount.sh ${args[*]}" > "$out/command.txt"
: > "$out/marks.log"
{
	echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(uname -r), guest $kver, TCG single thread, plugin ugcount"
	echo "# host load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/guest.log"
t0=$SECONDS
# TCG only: the plugin needs it (vng_run.sh's tcg mode is one host thread,
# -accel tcg,thread=single).  One vCPU: with two, a vCPU waiting for the
# other (an IPI, a lock) spins until the round-robin switch, a number of
# instructions that follows host timing.  -icount shift=0,sleep=off: the
# guest clock is the instruction count, so timer ticks come at the same
# instructions in every run, and idle time costs no host time
UG_VNG_ACCEL=tcg \
UG_VNG_QEMU_OPTS="-icount shift=0,sleep=off -plugin $work/ugcount.so,out=$out/marks.log" \
"$UG_TOP/scripts/vm/vng_run.sh" --kernel "/boot/vmlinuz-$kver" --cpus 1 \
	--timeout $((rounds * 900 + 300)) --rwdir "$work" -- \
	"UDPGSO_BIN=$UDPGSO_BIN $UG_TOP/scripts/bench/kmod_icount.sh --rounds $rounds --n $n --windows $windows" \
	"--in-guest $work/build/udpgso_stats.ko $work > $work/windows.log 2>&1"
rc=$?
cp "$work/windows.log" "$out/windows.log"
{
	echo "# guest exit $rc after $((SECONDS - t0)) s"
	echo "# host load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
	grep '^#' "$out/windows.log"
} >> "$out/guest.log"
grep -q '^run ' "$out/windows.log" || { cat "$out/windows.log" >&2; ug_die "no windows ran"; }
summarize "$out"
