#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_ab.sh in NETIF mode on a NIC with queues and IRQs, run INSIDE a
# guest with two multiqueue virtio-net NICs joined on the host
# (scripts/vm/netif_guest.sh boots it and runs this).  Root only.
#
#   scripts/vm/netif_case.sh [--out FILE] [--keep DIR] [--secs S] [--only CASE,...]
#
# The first NIC is NETIF, the second moves into a network namespace of our
# own as the peer (REMOTE_TYPE=netns).  Cases: run (the A/B matrix, several
# flows, with a watcher that samples while it runs: each queue IRQ's
# smp_affinity_list = --irq-cpus, ethtool -l = --channels, rps_cpus/xps_cpus
# = the masks, rx-flow-hash udp4 = what was set; afterwards every setting as
# before), oneflow (one flow: one rx queue carries it), csum (software GSO
# on a NIC without USO, and tx-checksumming off), int, term, kill (the run
# stopped in the middle; after SIGKILL `snapshot.sh restore` from the run's
# saved snapshot), bad (--channels/--irq-cpus/--rps beyond the device or
# machine: one line, exit 1, nothing changed); staircase (only with --only:
# scripts/bench/staircase.sh, UG_STAIR_REPS reps, default 3).
# One result line per check on stdout (and appended to FILE):
#   UGKMOD ok|not ok|skip <kernel>: netif <case>: <what>
# --keep DIR: the results directories of the runs are copied there.
set -u

. "$(dirname "$0")/../lib.sh"

out=/dev/null keep= secs=2 only=
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-}; shift 2 || ug_die "--out: needs a file" ;;
	--keep) keep=${2:-}; shift 2 || ug_die "--keep: needs a directory" ;;
	--secs) secs=${2:-}; shift 2 || ug_die "--secs: needs a number" ;;
	--only) only=${2:-}; shift 2 || ug_die "--only: needs a list" ;;
	-h | --help) ug_help; exit 0 ;;
	*) ug_die "unknown option '$1' (see -h)" ;;
	esac
done
case "$secs" in '' | 0 | *[!0-9]*) ug_die "--secs '$secs': allowed 1..60" ;; esac

AB=$UG_TOP/scripts/bench/udpgso_ab.sh
SNAP=$UG_TOP/scripts/snapshot.sh
kver=$(uname -v | sed -n 's/.*Debian \([0-9][0-9.]*\).*/\1/p')
[ -n "$kver" ] || kver=$(uname -r | sed 's/[-+].*//')

emit() { echo "UGKMOD $1 $kver: netif $2" | tee -a "$out"; }
wanted() {
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}
# staircase is not part of the default set (several minutes of TCG)

# ---- the two NICs ------------------------------------------------------------
# in QEMU's device order (their MAC addresses count up from 52:54:00:12:34:56;
# names such as enp0s9, enp0s10 do not sort so)
mapfile -t nics < <(for d in /sys/class/net/*; do
	[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ] &&
		echo "$(cat "$d/address") ${d##*/}"
done | sort | awk '{ print $2 }')
if [ ${#nics[@]} -lt 2 ]; then
	emit skip "setup: needs two virtio-net NICs, found ${#nics[@]} (${nics[*]:-none})"
	exit 4
fi
NETIF=${nics[0]} PEER=${nics[1]}
PNS=ugnif-peer
ug_trap_install
ip netns add "$PNS" || ug_die "cannot create namespace $PNS"
# the peer NIC goes back to the root namespace with the namespace
defer ip netns del "$PNS"
ip link set "$PEER" netns "$PNS"
ip -n "$PNS" link set lo up
ip -n "$PNS" addr add 10.249.0.2/24 dev "$PEER"
ip -n "$PNS" link set "$PEER" up
ip addr add 10.249.0.1/24 dev "$NETIF"
defer ip addr del 10.249.0.1/24 dev "$NETIF"
ip link set "$NETIF" up
# the peer is reached (through the host's bridge): a datagram a second to
# a receiver there that stops after the first (no ping on this root fs)
reach() {
	local r i
	ip netns exec "$PNS" timeout 30 "$UDPGSO_BIN/udpgso_bench_rx" -4 -p 9999 -n 1 -C 25000 \
		>/dev/null 2>&1 &
	r=$!
	for ((i = 0; i < 25; i++)); do
		sleep 1
		kill -0 "$r" 2>/dev/null || break
		"$UDPGSO_BIN/udpgso_bench_tx" -4 -D 10.249.0.2 -p 9999 -u -s 16 --count 1 \
			>/dev/null 2>&1
	done
	wait "$r"
}
reach || { emit "not ok" "setup: $NETIF -> $PNS/$PEER 10.249.0.2: no datagram arrived in 25 s"; exit 1; }

# the driver's queue IRQs of NETIF (virtioN-input.Q / -output.Q)
vdev=$(basename "$(readlink -f "/sys/class/net/$NETIF/device")")
qirqs=$(awk -v v="$vdev" '$NF ~ "^" v "-(input|output)\\." { sub(/:/, "", $1); print $1 }' \
	/proc/interrupts)
max_comb=$(ethtool -l "$NETIF" | awk '/^Combined:/ { print $2; exit }')
ncpu=$(nproc)
emit ok "setup: $NETIF ($vdev) and $PNS/$PEER, combined max $max_comb, queue IRQs $(echo $qirqs), $ncpu CPUs, $(ethtool -k "$NETIF" | grep -E '^tx-(checksumming|udp-segmentation):' | tr -s ' \n' ' ')"

# the state "as found": one queue pair each, RPS/XPS off, the peer's udp4
# hash on addresses only, NETIF's IRQs on CPU 0: a run must change all of it
ethtool -L "$NETIF" combined 1 >/dev/null 2>&1
ip netns exec "$PNS" ethtool -L "$PEER" combined 1 >/dev/null 2>&1
# the udp4 hash: only where the device takes it and reads it back (virtio-net
# without RSS, 6.12: `ethtool -N ... sdfn` exits 0 and `-n` then lists no
# field, so a check of it could never pass)
peer_hash() {
	ip netns exec "$PNS" ethtool -n "$PEER" rx-flow-hash udp4 2>/dev/null | awk '
		/IP SA/ { s = s "s" } /IP DA/ { s = s "d" }
		/L4 bytes 0 & 1/ { s = s "f" } /L4 bytes 2 & 3/ { s = s "n" } END { print s }'
}
hash_ok=0
if ip netns exec "$PNS" ethtool -N "$PEER" rx-flow-hash udp4 sdfn >/dev/null 2>&1 &&
   [ "$(peer_hash)" = sdfn ]; then
	hash_ok=1
fi
ip netns exec "$PNS" ethtool -N "$PEER" rx-flow-hash udp4 sd >/dev/null 2>&1 || hash_ok=0
[ "$hash_ok" = 1 ] || emit skip "setup: --flow-hash not asked or checked: $PEER's udp4 rx-flow-hash reads back '$(peer_hash)' after ethtool -N sdfn (no RSS on this device)"
for q in /sys/class/net/"$NETIF"/queues/tx-*/xps_cpus; do echo 0 >"$q"; done
ip netns exec "$PNS" sh -c "for q in /sys/class/net/$PEER/queues/rx-*/rps_cpus; do echo 0 >\$q; done"
for i in $qirqs; do echo 0 >"/proc/irq/$i/smp_affinity_list"; done

# dump: the whole snapshot of both sides (netns lines aside: the run adds none)
dump() {
	bash "$SNAP" save "$NETIF" | grep -v '^netns '
	ip netns exec "$PNS" bash "$SNAP" save "$PEER" | grep -v '^netns '
}
same_as() {	# NAME BEFORE-FILE: a fresh dump equals it
	dump >"$work/after.$1"
	if cmp -s "$2" "$work/after.$1"; then
		emit ok "$1: every setting as before ($(wc -l <"$2") lines of snapshot.sh save, both NICs)"
	else
		emit "not ok" "$1: differs from before: $(diff "$2" "$work/after.$1" | grep '^[<>]' | head -4 | tr '\n' ';')"
	fi
}
work=$(mktemp -d)
defer rm -rf "$work"
[ -z "$keep" ] || mkdir -p "$keep"
dump >"$work/before"

# the asked values: all different from the state as found
CH=$max_comb IRQ_CPUS=$((ncpu - 1)) RPS=$(printf '%x' $((1 << (ncpu - 1)))) XPS=1 FH=sdfn
DEVOPTS=(--channels "$CH" --irq-cpus "$IRQ_CPUS" --rps "$RPS" --xps "$XPS")
[ "$hash_ok" = 1 ] && DEVOPTS+=(--flow-hash)
export NETIF REMOTE_V4=10.249.0.2 LOCAL_V4=10.249.0.1 REMOTE_TYPE=netns REMOTE_ARGS=$PNS

hexeq() { [ "$(printf '%x' $((0x${1//,/})))" = "$(printf '%x' $((0x${2//,/})))" ]; }
# one sample: "ok" or what differs from the asked values
sample() {
	local bad= i v f
	for i in $qirqs; do
		read -r v <"/proc/irq/$i/smp_affinity_list"
		[ "$v" = "$IRQ_CPUS" ] || bad+=" irq$i=$v"
	done
	v=$(ethtool -l "$NETIF" | awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2 }')
	[ "$v" = "$CH" ] || bad+=" $NETIF-combined=$v"
	v=$(ip netns exec "$PNS" ethtool -l "$PEER" | awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2 }')
	[ "$v" = "$CH" ] || bad+=" $PEER-combined=$v"
	for f in /sys/class/net/"$NETIF"/queues/tx-*/xps_cpus; do
		read -r v <"$f"
		hexeq "$v" "$XPS" || bad+=" ${f#/sys/class/net/}=$v"
	done
	v=$(ip netns exec "$PNS" sh -c "cat /sys/class/net/$PEER/queues/rx-*/rps_cpus" | tr '\n' ' ')
	for f in $v; do hexeq "$f" "$RPS" || bad+=" $PEER-rps=$f"; done
	[ "$(echo "$v" | wc -w)" = "$CH" ] || bad+=" $PEER-rx-queues=$(echo "$v" | wc -w)"
	if [ "$hash_ok" = 1 ]; then
		v=$(peer_hash)
		[ "$v" = "$FH" ] || bad+=" $PEER-udp4-hash=$v"
	fi
	echo "${bad:-ok}"
}
# watch PID FILE: while PID lives, samples taken while a sender runs (one
# before and after the sample: the settings hold from before the first
# sender to after the last, so a sample between two is inside the run)
watch_run() {
	local v
	while kill -0 "$1" 2>/dev/null; do
		if pgrep -x udpgso_bench_tx >/dev/null; then
			v="$(date +%s.%N) $(sample)"
			! pgrep -x udpgso_bench_tx >/dev/null || echo "$v" >>"$2"
		fi
		# (every process costs under TCG, where one host thread runs
		# both vCPUs: a sample a second at most)
		sleep 1
	done
}
# the run's results directory (--out ROOT: the one directory in it)
resdir_of() { ls -d "$1"/*/ 2>/dev/null | head -1; }

# ab NAME ARGS...: udpgso_ab.sh in NETIF mode with the watcher; sets rc
ab() {
	local name=$1 root=$work/res-$1 pid
	shift
	mkdir -p "$root"
	# (the log in --keep DIR as it is written: a host can follow a long run)
	setsid "$AB" --no-perf --no-warmup -l "$secs" --out "$root" "$@" \
		>"${keep:-$work}/$name.log" 2>&1 &
	pid=$!
	watch_run "$pid" "$work/$name.watch" &
	wpid=$!
	# ahead of the traffic it watches: under TCG the tools keep both vCPUs
	# busy and a sample at normal priority took longer than an 8 s run
	renice -n -10 -p "$wpid" >/dev/null 2>&1
	wait "$pid"
	rc=$?
	wait "$wpid"
	[ -z "$keep" ] || { mkdir -p "$keep"; cp -a "$(resdir_of "$root")" "$keep/" 2>/dev/null
		cp "$work/$name.watch" "$keep/" 2>/dev/null; }
}
watch_verdict() {	# NAME
	local n good
	n=$(wc -l <"$work/$1.watch" 2>/dev/null || echo 0)
	good=$(grep -c ' ok$' "$work/$1.watch" 2>/dev/null)
	if [ "$n" -gt 0 ] && [ "$good" = "$n" ]; then
		emit ok "$1: during the run ($n samples while a sender ran): queue IRQs' smp_affinity_list $IRQ_CPUS, combined $CH on both NICs, xps_cpus $XPS, rps_cpus $RPS$([ "$hash_ok" = 1 ] && echo ", udp4 rx-flow-hash $FH")"
	else
		emit "not ok" "$1: during the run: $good of $n samples as asked; first other: $(grep -v ' ok$' "$work/$1.watch" | head -1)"
	fi
}
# rj WHAT RES: netif_summary.py's figures of a run's results.json
rj() { /usr/bin/python3 "$(dirname "$0")/netif_summary.py" "$1" "$(resdir_of "$2")results.json"; }

# ---- run: several flows --------------------------------------------------------
if wanted run; then
	# 12 s at least: one sample of the watcher takes seconds under TCG, and
	# only a sample with a sender running before and after it counts
	ab run --preset none --tx sendto --rx plain -n 1 --threads 2 --sockets 4 "${DEVOPTS[@]}" \
		-l $((secs > 12 ? secs : 12))
	if [ "$rc" = 0 ]; then emit ok "run: udpgso_ab.sh exit 0"; else
		emit "not ok" "run: udpgso_ab.sh exit $rc: $(tail -2 "${keep:-$work}/run.log" | tr '\n' ' ')"; fi
	watch_verdict run
	same_as run "$work/before"
	v=$(rj run "$work/res-run" 2>&1)
	read -r carry nq pk irqn <<<"$v"
	if [ "${carry:-0}" -ge 2 ] 2>/dev/null; then
		emit ok "run: 8 flows: $carry of $nq rx queues carry traffic (packets ${pk}); rx input IRQs fired ${irqn##* } times"
	else
		emit "not ok" "run: 8 flows: rx queues carrying traffic: $v (expected >= 2)"
	fi
fi

# ---- oneflow: one flow, one rx queue -----------------------------------------
if wanted oneflow; then
	ab oneflow --preset none --tx sendto --rx plain -n 1 "${DEVOPTS[@]}"
	[ "$rc" = 0 ] || emit "not ok" "oneflow: udpgso_ab.sh exit $rc"
	v=$(rj oneflow "$work/res-oneflow" 2>&1)
	read -r carry pk <<<"$v"
	if [ "${carry:-0}" = 1 ]; then
		emit ok "oneflow: 1 flow: 1 rx queue carries it (packets $pk)"
	else
		emit "not ok" "oneflow: 1 flow: rx queues carrying traffic: $v (expected 1)"
	fi
	same_as oneflow "$work/before"
fi

# ---- csum: software GSO on a NIC without USO; tx-checksumming off -------------
# B, tx-checksumming off: before 6.11 udp_send_skb refuses a GSO skb that is
# not CHECKSUM_PARTIAL (EIO) and the tool falls back to plain sends; from
# 6.11 (10154dbded6d, "udp: Allow GSO transmit from devices with no checksum
# offload") the GSO skb goes out and is segmented and checksummed in software
csum_eio() {	# this kernel refuses GSO without checksum offload
	local maj min
	IFS=. read -r maj min _ <<<"$(uname -r)"
	[ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 11 ]; }
}
if wanted csum; then
	ab csum --preset csum --tx gso-cmsg --rx plain -n 1 --size 1400 --segs 10
	[ "$rc" = 0 ] || emit "not ok" "csum: udpgso_ab.sh exit $rc: $(tail -2 "${keep:-$work}/csum.log" | tr '\n' ' ')"
	# A (checksumming on): GSO active, the driver's tx queues see every
	# segment (software segmentation before it: no tx-udp-segmentation)
	v=$(rj csum "$work/res-csum" 2>&1)
	read -r a_gso a_calls a_dg a_txq b_fb b_calls b_dg b_gso <<<"$v"
	if [ "${a_gso:-0}" = 1 ] && [ "${a_txq:-0}" -ge "${a_dg:-1}" ] 2>/dev/null &&
	   [ "$a_dg" -ge $((a_calls * 10)) ]; then
		emit ok "csum: A (tx-checksumming on, tx-udp-segmentation off [fixed]): $a_calls GSO sends of 10 -> $a_dg datagrams, $a_txq packets on $NETIF's tx queues: segmented in software before the driver"
	else
		emit "not ok" "csum: A: gso_active calls datagrams txq-packets = $v"
	fi
	reason=$(grep -oh '"fallback_reason":"[^"]*"' "$(resdir_of "$work/res-csum")"raw/*.log | sort -u | head -1)
	if csum_eio; then
		if [ "${b_fb:-0}" = 1 ] && [ "${b_calls:-0}" = "${b_dg:-x}" ]; then
			emit ok "csum: B (tx-checksumming off, $(uname -r): before 6.11): GSO refused, the tool fell back to $b_calls plain sends (${reason:-no fallback_reason})"
		else
			emit "not ok" "csum: B (before 6.11, EIO expected): fallback calls datagrams gso_active = $b_fb $b_calls $b_dg $b_gso"
		fi
	elif [ "${b_gso:-0}" = 1 ] && [ "${b_fb:-1}" = 0 ] && [ "${b_dg:-0}" -ge $((b_calls * 10)) ] 2>/dev/null; then
		emit ok "csum: B (tx-checksumming off, $(uname -r): 6.11+, no EIO): GSO still active, $b_calls sends of 10 -> $b_dg datagrams (segmented and checksummed in software)"
	else
		emit "not ok" "csum: B (6.11+: GSO without checksum offload expected): fallback calls datagrams gso_active = $b_fb $b_calls $b_dg $b_gso ${reason}"
	fi
	# the per-skb counters (the module, else its BPF twin) where loaded: A's
	# GSO skbs segmented in software before the driver; B's too from 6.11;
	# before, B's only GSO skbs are its probe's (refused at the NIC: EIO)
	v=$(rj csum_kmod "$work/res-csum" 2>&1)
	read -r src a_l4 a_seg a_segs b_l4 b_seg b_segs b_probe <<<"$v"
	# (B's tool sends its GSO probe to itself before falling back: those
	# skbs are counted machine-wide, none reaches NETIF)
	if csum_eio; then b_want="$b_probe (the probe's sends) 0"
		b_ok() { [ "$b_l4" = "$b_probe" ] && [ "$b_seg" = 0 ]; }
	else b_want=">= $b_calls, >= $b_calls"
		b_ok() { [ "$b_l4" -ge "$b_calls" ] && [ "$b_seg" -ge "$b_calls" ] && [ "$b_segs" -ge "$b_dg" ]; } 2>/dev/null
	fi
	if [ "$src" = none ]; then
		emit skip "csum: per-skb counters: none read ($(grep -o 'kmod counters: [^"]*' "$(resdir_of "$work/res-csum")"results.json | head -1))"
	elif [ "${a_seg:-0}" -ge "${a_calls:-1}" ] 2>/dev/null && [ "${a_segs:-0}" -ge "${a_dg:-1}" ] &&
	     [ "${a_l4:-0}" -ge "$a_calls" ] && b_ok; then
		emit ok "csum: $src counters: A tx_gso_udp_l4_skbs $a_l4, tx_sw_segmented_skbs $a_seg -> tx_sw_segments $a_segs ($a_calls sends, $a_dg datagrams: software GSO before the driver); B $b_l4, $b_seg -> $b_segs"
	else
		emit "not ok" "csum: $src counters: A tx_gso_udp_l4_skbs tx_sw_segmented_skbs tx_sw_segments, B the same = $v (A: >= $a_calls, >= $a_calls, >= $a_dg; B: $b_want)"
	fi
	same_as csum "$work/before"
fi

# ---- int, term, kill: the run stopped in the middle -----------------------------
# stop SIG WHO NAME: start a long run, wait until the watcher saw its settings
# applied, send SIG to WHO (group: the whole process group, as a terminal's
# Ctrl-C; script: the script only, as `kill PID`)
stop_run() {
	local sig=$1 who=$2 name=$3 root=$work/res-$3 pid i v
	mkdir -p "$root"
	# (a job of a non-interactive shell starts with SIGINT ignored, and bash
	# cannot trap a signal ignored on entry: without --default-signal the
	# script and its tools ignored the Ctrl-C and the run went on, exit 0)
	setsid env --default-signal=INT "$AB" --no-perf --no-warmup -l 30 -n 1 --preset none --tx sendto --rx plain \
		--threads 2 --out "$root" "${DEVOPTS[@]}" >"$work/$name.log" 2>&1 &
	pid=$!
	# (until the settings are seen while a sender runs, or the run ends)
	: >"$work/$name.watch"
	for ((i = 0; i < 240; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		if pgrep -x udpgso_bench_tx >/dev/null; then
			v="$(date +%s.%N) $(sample)"
			echo "$v" >>"$work/$name.watch"
			[ "${v#* }" = ok ] && break
		fi
		sleep 1
	done
	if [ "$who" = group ]; then kill -"$sig" -- -"$pid"; else kill -"$sig" "$pid"; fi
	for ((i = 0; i < 120; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	wait "$pid" 2>/dev/null
	rc=$?
	[ -z "$keep" ] || cp "$work/$name.log" "$work/$name.watch" "$keep/" 2>/dev/null
}
for s in int:INT:group term:TERM:script kill:KILL:group; do
	IFS=: read -r name sig who <<<"$s"
	wanted "$name" || continue
	stop_run "$sig" "$who" "$name"
	if [ "$(tail -1 "$work/$name.watch" | cut -d' ' -f2-)" = ok ]; then
		emit ok "$name: settings seen applied while a sender ran, then SIG$sig sent ($(grep -c . "$work/$name.watch") samples)"
	else
		emit "not ok" "$name: the run never showed its settings while a sender ran: $(wc -l <"$work/$name.watch") samples, the last: $(tail -1 "$work/$name.watch")"
	fi
	if [ "$sig" = KILL ]; then
		# the whole group died (tools, agents); the restore a user would do
		rd=$(resdir_of "$work/res-$name")
		dump >"$work/killed.$name"
		if cmp -s "$work/before" "$work/killed.$name"; then
			emit "not ok" "$name: after SIGKILL nothing differed (the run had changed nothing?)"
		else
			emit ok "$name: after SIGKILL the settings stay changed ($(diff "$work/before" "$work/killed.$name" | grep -c '^>') lines differ), as expected"
		fi
		bash "$SNAP" restore "$(cat "$rd/snapshot.before.tx")" "$NETIF" &&
			ip netns exec "$PNS" bash "$SNAP" restore "$(cat "$rd/snapshot.before.rx")" "$PEER"
		emit "$([ $? = 0 ] && echo ok || echo "not ok")" "$name: snapshot.sh restore from $(basename "$rd")/snapshot.before.{tx,rx} exit $?"
	else
		case "$rc" in 130 | 143) emit ok "$name: udpgso_ab.sh ended with $rc on SIG$sig" ;;
		*) emit "not ok" "$name: udpgso_ab.sh exit $rc on SIG$sig: $(tail -2 "$work/$name.log" | tr '\n' ' ')" ;; esac
	fi
	pgrep -x udpgso_bench_tx >/dev/null || pgrep -x udpgso_bench_rx >/dev/null &&
		emit "not ok" "$name: a bench tool outlived the run: $(pgrep -a -x 'udpgso_bench_(tx|rx)' | tr '\n' ';')"
	same_as "$name" "$work/before"
done

# ---- bad: values beyond the device or the machine --------------------------------
if wanted bad; then
	for b in "--channels $((max_comb * 4))" "--irq-cpus $((ncpu + 3))" \
		 "--rps $(printf '%x' $(((1 << (ncpu + 2)) - 1)))"; do
		# shellcheck disable=SC2086
		"$AB" --no-perf --preset none --tx sendto --rx plain -n 1 --out "$work/bad" $b \
			>"$work/bad.out" 2>&1
		rc=$?
		n=$(grep -c . "$work/bad.out")
		line=$(head -1 "$work/bad.out")
		if [ "$rc" = 1 ] && [ "$n" = 1 ] && [[ "$line" == *"${b#* }"* ]] && [[ "$line" == *allow* ]]; then
			emit ok "bad $b: exit 1, one line: $line"
		else
			emit "not ok" "bad $b: exit $rc, $n lines: $(tr '\n' ';' <"$work/bad.out")"
		fi
		[ ! -d "$work/bad" ] || emit "not ok" "bad $b: a results directory was made"
		same_as "bad $b" "$work/before"
	done
fi
# ---- staircase: seed 001's scenario (only when asked: --only staircase) ----------
if [ -n "$only" ] && case ",$only," in *,staircase,*) true ;; *) false ;; esac; then
	for i in 3 4 5 6 7 8 9; do ip -n "$PNS" addr add "10.249.0.$i/24" dev "$PEER"; done
	# every queue of both NICs (the state as found has one), put back after
	ethtool -L "$NETIF" combined "$max_comb"
	ip netns exec "$PNS" ethtool -L "$PEER" combined "$max_comb"
	sroot=${keep:-$work/stair}
	mkdir -p "$sroot"
	"$UG_TOP/scripts/bench/staircase.sh" -l "$secs" -n "${UG_STAIR_REPS:-3}" \
		--extra-v4 10.249.0.3,10.249.0.4,10.249.0.5,10.249.0.6,10.249.0.7,10.249.0.8,10.249.0.9 \
		--out "$sroot" >"$work/staircase.log" 2>&1
	rc=$?
	[ -z "$keep" ] || cp "$work/staircase.log" "$keep/"
	sd=$(ls -d "$sroot"/*-staircase/ 2>/dev/null | tail -1)
	v=$(/usr/bin/python3 "$(dirname "$0")/netif_summary.py" staircase "${sd}results.json" 2>&1)
	if [ "$rc" = 0 ] && [[ "$v" != *failed* ]] && [ -n "$sd" ]; then
		emit ok "staircase: every step ran (rx Mpps: $v)"
	else
		emit "not ok" "staircase: exit $rc: $v $(tail -2 "$work/staircase.log" | tr '\n' ' ')"
	fi
	for i in 3 4 5 6 7 8 9; do ip -n "$PNS" addr del "10.249.0.$i/24" dev "$PEER"; done
	# (the dump holds both NICs' sections: restore picks its device's)
	bash "$SNAP" restore "$(cat "$work/before")" "$NETIF"
	ip netns exec "$PNS" bash "$SNAP" restore "$(cat "$work/before")" "$PEER"
	same_as staircase "$work/before"
fi
emit ok "done: $(grep -c ' ok ' "$out" 2>/dev/null) result lines"
exit 0
