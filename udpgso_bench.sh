#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_bench.sh: the bench tools against each other over loopback in a
# network namespace of our own.  Every tx mode x every rx mode, IPv4 and
# IPv6, with exact counts (datagrams, bytes, reads), payload verification of
# every datagram and sequence-number accounting; then the bad-input cases,
# each of which must print one line naming the option and exit 1 without
# opening a socket.
#
#   ./udpgso_bench.sh [-q]        (-q: IPv4 only, fewer rx modes)
set -u
. "$(dirname "$0")/scripts/lib.sh"

TX=$UDPGSO_BIN/udpgso_bench_tx
RX=$UDPGSO_BIN/udpgso_bench_rx
quick=0
case "${1:-}" in
-q) quick=1 ;;
-h | --help) ug_help; exit 0 ;;
"") ;;
*) ug_die "unknown argument '$1', allowed: -q, -h" ;;
esac

ktap_header
if ! why=$(ug_need_root) || ! why=$(ug_need_cmd ip ss python3); then
	ktap_skip "udpgso_bench" "$why"
	ktap_finish
fi
ug_need_built "$TX" "$RX"

ug_trap_install
tmp=$(mktemp -d)
defer rm -rf "$tmp"
ns_add b || { ktap_skip "udpgso_bench" "cannot create a network namespace"; ktap_finish; }
ns=$(ns_name b)
port=8000

# xfer NAME FAMILY "TX ARGS" "RX ARGS" CHECK...
# Start rx in the namespace, wait for its port, run tx, wait for rx, then
# check both JSON summaries (lib.sh's case engine): rx.* and tx.* in the
# CHECK expressions are the two summaries.  XFER_DST overrides the
# destination.
xfer() {
	local name=$1 fam=$2 txa=$3 rxa=$4 dst rc_tx rc_rx proto=-u
	shift 4
	port=$((port + 1))
	case "$fam" in
	-4) dst=127.0.0.1 ;;
	*) dst=::1 ;;
	esac
	dst=${XFER_DST:-$dst}
	case " $rxa " in *" -t "*) proto=-t ;; esac
	# shellcheck disable=SC2086
	# as upstream's, rx is IPv6 (dual stack) unless -4
	if ! ug_rx_start b "$proto" "$port" "$tmp/rx.json" "$tmp/rx.err" \
		timeout -k 5 30 "$RX" ${fam#-6} -p "$port" $rxa --json; then
		ktap_fail "$name" "rx did not bind port $port"
		sed 's/^/# rx: /' "$tmp/rx.err"
		return
	fi
	# shellcheck disable=SC2086
	ug_tx_run b "$tmp/tx.json" "$tmp/tx.err" \
		timeout -k 5 30 "$TX" $fam -D "$dst" -p "$port" $txa --json
	rc_tx=$?
	# a sender that failed sent nothing more: do not wait out rx's timeout
	if [ "$rc_tx" -eq 0 ]; then
		ug_rx_end
	else
		sleep 0.2
		ug_rx_end INT
	fi
	rc_rx=$?
	if [ "$rc_tx" -eq 4 ] || [ "$rc_rx" -eq 4 ]; then
		ktap_skip "$name" "$(tail -n1 "$tmp/tx.err" "$tmp/rx.err" | grep SKIP | head -n1)"
		return
	fi
	local ok=1
	if [ "$rc_tx" -ne 0 ] || [ "$rc_rx" -ne 0 ]; then
		ok=0
		echo "# tx exit $rc_tx, rx exit $rc_rx"
		grep -v ' MB/s' "$tmp/tx.err" | tail -n3 | sed 's/^/# tx: /'
		grep -v ' MB/s' "$tmp/rx.err" | tail -n3 | sed 's/^/# rx: /'
	fi
	# merge both summaries into one object {tx: .., rx: ..} for the checks
	if ! ug_jmerge tx="$tmp/tx.json" rx="$tmp/rx.json" >"$tmp/both.json" 2>/dev/null; then
		ktap_fail "$name" "no JSON summary"
		return
	fi
	ug_jcheck "$tmp/both.json" "$@" || ok=0
	if [ "$ok" -eq 1 ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name"
	fi
}

# exact N BYTES: sets EX, the checks every UDP transfer of N datagrams and
# BYTES bytes must pass
exact() {
	EX=("tx.datagrams == $1" "rx.datagrams == $1"
	    "tx.bytes == $2" "rx.bytes == $2" "tx.errors == 0"
	    "rx.verify_errors == 0" "rx.seq.loss == 0" "rx.seq.dup == 0"
	    "rx.seq.reorder == 0")
}

N=240		# datagrams per case: a multiple of the segment counts below
RCVBUF="--rcvbuf 8388608"

if [ "$quick" -eq 1 ]; then
	families="-4"
	rxmodes="recv recvmmsg gro"
else
	families="-4 -6"
	rxmodes="recv recvmsg recvmmsg gro"
fi

for fam in $families; do
	v=ipv${fam#-}
	# tx modes: name | mode (lib.sh's table) | datagrams per call | stamps;
	# datagrams of 1200 bytes, sendmmsg batches of 8
	len=1200
	while IFS='|' read -r tname tmode per seq; do
		[ -n "$tname" ] || continue
		targs=$(S=$len L=$((len * per)) B=8 ug_tx_args "$tmode")
		for rmode in $rxmodes; do
			case "$rmode" in
			gro) rargs="-G" ;;
			recvmmsg) rargs="--mode recvmmsg --batch 16" ;;
			*) rargs="--mode $rmode" ;;
			esac
			exact "$N" $((N * len))
			sq=--seq
			if [ "$seq" = noseq ]; then
				# no stamps: counts and the pattern of every byte
				EX=("${EX[@]:0:6}")
				sq=
			fi
			calls=$((N / per))
			extra=("tx.calls == $calls")
			case "$tname" in
			sendmmsg*) extra=("tx.calls == $((calls / 8))") ;;
			esac
			# as upstream's rx: -n counts reads and -l is the
			# length of each read, the coalesced one with -G
			expect="-n $N -l $len"
			if [ "$rmode" = gro ] && [ "$per" -gt 1 ]; then
				# lo does not run GRO: each GSO skb reaches the
				# UDP_GRO socket whole, one read per send,
				# carrying gso_size in the cmsg
				expect="-n $calls -l $((len * per)) -S $len"
				extra+=("rx.gro_reads == $calls" "rx.reads == $calls")
			elif [ "$rmode" = gro ]; then
				extra+=("rx.gro_reads == 0" "rx.reads == $N")
			else
				extra+=("rx.gro_reads == 0" "rx.reads == $N")
			fi
			# shellcheck disable=SC2086
			xfer "$v $tname -> $rmode" "$fam" \
				"$targs --count $N $sq" \
				"$rargs $expect -v $sq $RCVBUF" \
				"${EX[@]}" "${extra[@]}"
		done
	done <<-EOF
	sendto|sendto|1|seq
	send|send|1|seq
	send no stamp|send|1|noseq
	sendmmsg|sendmmsg|1|seq
	gso-cmsg|gso-cmsg|10|seq
	gso-sockopt|gso-sockopt|10|seq
	sendmmsg-gso|sendmmsg-gso|5|seq
	iov|iov|1|seq
	zerocopy|zerocopy|1|noseq
	zerocopy-gso|zerocopy-gso|10|noseq
	EOF

	# GSO with a short last segment: 2 full + 1 of 400 bytes per call
	exact 300 $((100 * 2800))
	xfer "$v gso short last segment" "$fam" "-s 2800 -S 1200 --count 300 --seq" \
		"-n 300 -v --seq $RCVBUF" "${EX[@]}" "tx.calls == 100"
	# upstream's own default: -S 0 is the MSS of a 1500 byte MTU
	mss=1472
	[ "$fam" = -6 ] && mss=1452
	segs=$(((14600 + mss - 1) / mss))
	xfer "$v gso -S 0 (MSS $mss)" "$fam" "-s 14600 -S 0 -M 20" \
		"-v $RCVBUF -n $((20 * segs))" \
		"tx.calls == 20" "tx.gso.active" "tx.gso.gso_size == $mss" \
		"tx.gso.probe.sends >= 2" "tx.gso.probe.datagrams == tx.gso.probe.reads" \
		"rx.verify_errors == 0" "rx.datagrams == $((20 * segs))" \
		"rx.bytes == 20 * 14600" "tx.bytes == 20 * 14600"
	# mixed sizes: runs of equal size go out as GSO sends
	exact 400 $((100 * 4300))
	xfer "$v mixed sizes gso" "$fam" "--sizes 1200,1200,1200,700 -S 0 --count 400 --seq" \
		"-n 400 -v --seq $RCVBUF" "${EX[@]}" "tx.calls == 100"
	# several flows: two threads, each with its own socket and flow id
	exact 400 400000
	xfer "$v two flows" "$fam" "--threads 2 -s 1000 --count 400 --seq" \
		"-n 400 -l 1000 -v --seq --flows 2 $RCVBUF" "${EX[@]}" \
		"len(tx.flows) == 2" "rx.seq.flows == 2"
	# reuseport: four sockets, four source ports spread the load
	exact 400 400000
	xfer "$v reuseport 4 sockets" "$fam" "--sockets 4 -s 1000 --count 400 --seq" \
		"-n 400 -l 1000 -v --seq --flows 4 --reuseport 4 $RCVBUF" "${EX[@]}" \
		"len(rx.sockets) == 4" "sum(s.datagrams for s in rx.sockets) == 400"
	# TCP, as upstream: -t on both sides, byte stream
	xfer "$v tcp" "$fam" "-t -s 10000 -M 100" "-t" \
		"tx.bytes == 1000000" "rx.bytes == 1000000" "tx.calls == 100" "tx.gso.probe is None"
done

# dual stack: -6 with a dotted quad sends from the IPv6 socket to the
# v4-mapped address; the datagrams go out as IPv4, GSO sends too
exact 120 144000
XFER_DST=127.0.0.1 xfer "ipv6 socket to v4-mapped 127.0.0.1, gso" -6 \
	"-s 12000 -S 1200 --count 120 --seq" "-n 120 -l 1200 -v --seq $RCVBUF" \
	"${EX[@]}" "tx.calls == 12" "tx.gso.active"

# -l with decimals (udpgso_ab.sh's sub-second slices): the sender stops at
# 300 ms, as its own clock and the JSON say; the receiver got every datagram
xfer "ipv4 -l 0.3 (a run time in ms)" -4 "-l 0.3 -s 1000 --seq" \
	"-l 1000 -v --seq -R 500 $RCVBUF" "tx.options.runtime_s == 0.3" \
	"0.3 <= tx.duration_s < 0.5" "tx.datagrams > 0" "rx.datagrams == tx.datagrams" \
	"rx.seq.loss == 0" "tx.errors == 0"

# --sndbuf: SO_SNDBUFFORCE past net.core.wmem_max (root in the test's netns);
# the kernel doubles the request, and the JSON says what it set, per flow
exact 200 200000
xfer "ipv4 --sndbuf 4M (set past wmem_max)" -4 "--sndbuf 4M --sockets 2 -s 1000 --count 200 --seq" \
	"-n 200 -l 1000 -v --seq --flows 2 $RCVBUF" "${EX[@]}" "tx.options.sndbuf == 4000000" \
	"[f.sndbuf for f in tx.flows] == [8000000, 8000000]"

# --kstamp: the receiver's window from its first and last datagram's kernel
# receive stamps (a paced A/B slice's, udpgso_ab.sh --rx-window kernel); the
# reads' window beside it
exact 200 200000
xfer "ipv4 --kstamp (the window by the kernel's receive stamps)" -4 "-s 1000 --count 200 --seq" \
	"-n 200 -l 1000 -v --seq --kstamp $RCVBUF" "${EX[@]}" "rx.options.kstamp" \
	"rx.window == 'kernel'" "rx.window_kernel_s > 0" "rx.duration_s == rx.window_kernel_s" \
	"rx.window_reads_s > 0" "abs(rx.window_kernel_s - rx.window_reads_s) < 0.5"

# pacing: SO_TXTIME needs the fq qdisc; 100 x 1000 B at 8 Mbit/s is 99 ms
# between the first and last departure, which a correct pacer cannot beat
if ip -n "$ns" link set lo up && tc -n "$ns" qdisc replace dev lo root fq 2>/dev/null; then
	exact 100 100000
	xfer "ipv4 SO_TXTIME pacing" -4 "--txtime-rate 8M -s 1000 --count 100 --seq" \
		"-n 100 -l 1000 -v --seq $RCVBUF" "${EX[@]}" \
		"rx.duration_s >= 0.09"
	exact 100 100000
	xfer "ipv4 SO_MAX_PACING_RATE" -4 "--max-pacing-rate 8M -s 1000 --count 100 --seq" \
		"-n 100 -l 1000 -v --seq $RCVBUF" "${EX[@]}" \
		"rx.duration_s >= 0.09"
else
	ktap_skip "ipv4 SO_TXTIME pacing" "no fq qdisc (tc)"
	ktap_skip "ipv4 SO_MAX_PACING_RATE" "no fq qdisc (tc)"
fi

# ---- bad input: one line naming the option, exit 1, no socket opened -------
have_strace=0
command -v strace >/dev/null 2>&1 && have_strace=1
bad() {		# TOOL PATTERN ARGS...
	local tool=$1 pat=$2 rc lines
	shift 2
	if [ "$have_strace" -eq 1 ]; then
		# LeakSanitizer cannot run under ptrace (sanitizer builds)
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -e trace=socket -o "$tmp/strace" \
			"$UDPGSO_BIN/$tool" "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
	else
		"$UDPGSO_BIN/$tool" "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
	fi
	lines=$(wc -l <"$tmp/err")
	local name="bad input: ${tool#udpgso_bench_} $*"
	if [ "$rc" -ne 1 ]; then
		ktap_fail "$name" "exit $rc, expected 1"
	elif [ "$lines" -ne 1 ] || ! grep -q -- "$pat" "$tmp/err"; then
		ktap_fail "$name" "expected one line matching '$pat', got $lines"
		sed 's/^/# /' "$tmp/err"
	elif [ "$have_strace" -eq 1 ] && grep -q 'socket(' "$tmp/strace"; then
		ktap_fail "$name" "a socket was opened before the error"
	elif [ -s "$tmp/out" ]; then
		ktap_fail "$name" "printed to stdout"
	else
		ktap_ok "$name: $(cat "$tmp/err")"
	fi
}
bad udpgso_bench_tx '-s .*allowed' -4 -D 127.0.0.1 -s 70000
bad udpgso_bench_tx '-s .*allowed' -4 -D 127.0.0.1 -s 0
bad udpgso_bench_tx '-S .*allowed' -4 -D 127.0.0.1 -S 70000
bad udpgso_bench_tx '-p .*allowed' -4 -D 127.0.0.1 -p 0
bad udpgso_bench_tx '-p .*allowed' -4 -D 127.0.0.1 -p 65536
bad udpgso_bench_tx '-l .*allowed' -4 -D 127.0.0.1 -l -1
bad udpgso_bench_tx '-l .*at most 3 decimals' -4 -D 127.0.0.1 -l 0.1234
bad udpgso_bench_tx '-l .*at most 3 decimals' -4 -D 127.0.0.1 -l 1.
bad udpgso_bench_tx '-l .*allowed' -4 -D 127.0.0.1 -l 1e3
bad udpgso_bench_tx '-M .*allowed' -4 -D 127.0.0.1 -M x
bad udpgso_bench_tx '-D' -4 -D 300.1.1.1
bad udpgso_bench_tx '-D' -6 -D not-an-address
bad udpgso_bench_tx '--batch .*allowed' -4 -D 127.0.0.1 -m --batch 0
bad udpgso_bench_tx '--batch .*allowed' -4 -D 127.0.0.1 -m --batch 1025
bad udpgso_bench_tx '--iov .*allowed' -4 -D 127.0.0.1 --iov 0
bad udpgso_bench_tx '--threads .*allowed' -4 -D 127.0.0.1 --threads 0
bad udpgso_bench_tx '--threads .*allowed' -4 -D 127.0.0.1 --threads 100000
bad udpgso_bench_tx '--count .*allowed' -4 -D 127.0.0.1 --count -5
bad udpgso_bench_tx '--gso-mode .*cmsg' -4 -D 127.0.0.1 -S 1000 --gso-mode bogus
bad udpgso_bench_tx '--txtime-rate' -4 -D 127.0.0.1 --txtime-rate 12xyz
bad udpgso_bench_tx '--max-pacing-rate' -4 -D 127.0.0.1 --max-pacing-rate -3
bad udpgso_bench_tx '--sizes .*allowed' -4 -D 127.0.0.1 --sizes 1200,0
bad udpgso_bench_tx '--port-count .*allowed' -4 -D 127.0.0.1 --port-count 0
bad udpgso_bench_tx '--sndbuf .*allowed 4096' -4 -D 127.0.0.1 --sndbuf 100
bad udpgso_bench_tx '--sndbuf .*allowed 4096' -4 -D 127.0.0.1 --sndbuf 2G
bad udpgso_bench_tx '--bogus' -4 -D 127.0.0.1 --bogus
bad udpgso_bench_rx '-p .*allowed' -4 -p 0
bad udpgso_bench_rx '-l .*allowed' -4 -l 70000
bad udpgso_bench_rx '-n .*allowed' -4 -n -1
bad udpgso_bench_rx '--mode .*recvmmsg' -4 --mode bogus
bad udpgso_bench_rx '--batch .*allowed' -4 --mode recvmmsg --batch 0
bad udpgso_bench_rx '--reuseport .*allowed' -4 --reuseport 0
bad udpgso_bench_rx '--flows .*allowed' -4 --seq --flows 0
bad udpgso_bench_rx '--rcvbuf .*allowed' -4 --rcvbuf -1
bad udpgso_bench_rx '-b' -4 -b 1.2.3.999
bad udpgso_bench_rx '-t conflicts with --kstamp' -4 -t --kstamp
bad udpgso_bench_rx '--kstamp conflicts with --threads' -4 --threads 2 --kstamp
bad udpgso_bench_rx '--bogus' -4 --bogus

ktap_finish
