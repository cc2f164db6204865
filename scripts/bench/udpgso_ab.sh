#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_ab.sh: the benchmark matrix across offload settings, with CPU cost
# and counters around every run, written to results/<date>-<host>-<label>/,
# leaving every setting it touched as it found it.
#
# Run `udpgso_ab.sh -h` for the options.  Topology: by default two network
# namespaces of its own joined by a veth pair (nothing outside them is
# touched).  With NETIF set, the kernel's drivers/net selftest conventions:
# NETIF (the local device), LOCAL_V4/LOCAL_V6, REMOTE_V4/REMOTE_V6,
# REMOTE_TYPE=ssh|netns, REMOTE_ARGS (ssh destination and options, or the
# namespace name); the receiver then runs on the peer.  --family 4|6|both.
# shellcheck shell=bash
set -u
. "$(dirname "$0")/../lib.sh"
AB_DIR=$(cd "$(dirname "$0")" && pwd)
SNAP=$AB_DIR/../snapshot.sh
. "$AB_DIR/ab_run.sh"
. "$AB_DIR/ab_rounds.sh"
. "$AB_DIR/ab_dev.sh"
. "$AB_DIR/ab_fam.sh"
. "$AB_DIR/ab_skbc.sh"
. "$AB_DIR/ab_inrun.sh"

TX_MODES="sendto sendmmsg gso-cmsg gso-sockopt sendmmsg-gso zerocopy tcp"
RX_MODES="plain recvmmsg gro"
PRESETS="default uso gso tso csum ufo gro gro-list gro-fwd none"
# user feature names -> the ethtool -k entries that carry their state
FEATURES="tso gso gro tx-checksumming tx-udp-segmentation tx-udp-fragmentation rx-gro-list"
FEATURES+=" rx-udp-gro-forwarding (or any name ethtool -k lists)"

usage() {
	cat <<EOF
usage: $ug_prog [options]
  --preset NAME      offload A/B preset: $PRESETS (default: default = uso)
  --ab A B           a named A/B pair instead of a preset; A and B are settings
                     SIDE:FEATURE=on|off[,...], SIDE tx (sending device) or rx
                     (receiving device), FEATURE one of $FEATURES;
                     "" keeps the device as found
  --family F         address family: 4, 6 or both (every tx/rx pair in each;
                     default 4); -4 and -6 are short for --family 4 and 6
  --tx LIST          tx modes, comma-separated: ${TX_MODES// /,}
                     (default: all)
  --rx LIST          rx modes for UDP: ${RX_MODES// /,} (default: plain,gro)
  --ci LEVEL,WIDTH   repeat until the LEVEL% interval of every tx/rx pair's A/B
                     ratio is within +-WIDTH% (LEVEL 50..99.9, WIDTH 0.1..50;
                     default 95,3; "off": exactly -n reps)
  --max-reps N       with --ci: at most N pairs of slices per tx/rx pair (2..200, 200)
  --budget SECS      with --ci: start no new round after SECS of measuring
                     (10..86400, default 260: make run in under 5 minutes)
  --after-target W   slices with --ci, once every pair is decided (within the
                     target, out of reach or at --max-reps): rounds (default:
                     the budget left goes to more rounds of every pair, which
                     make compare's verdicts need) or stop
  -n, --reps N       repetitions per configuration, A and B interleaved (1..50, 3;
                     6 with the default --method auto);
                     with --ci the minimum; -n without --ci means --ci off
  -l, --secs S       seconds per slice (one run of A or B) (0.2..60, at most 3
                     decimals; default 0.25: docs/ab.md, "Slice length")
  --rate RATE|PCT%   fixed-rate mode: the sender paced (a tbf qdisc on the sending
                     device) to RATE of UDP payload, NUMBER[k|M|G] bit/s or with a
                     B suffix bytes/s, up to the device's speed; or to PCT% (1..100)
                     of each tx/rx pair's capacity measured in its warm-up slices;
                     the headline metric becomes the CPU cost per GiB
  --rate-a PCT       A paced at PCT% (55..100) of B's rate: a known-effect check
  --rx-window W      a UDP slice's receive window: kernel (its first and last
                     datagram's kernel receive stamps) or reads (when the
                     receiver read them); default kernel with --rate, else reads
  --metric M         the headline and stop-rule metric: mbps (rx MB/s) or cost
                     (CPU s per GiB); default mbps, with --rate cost
  --method M         auto, inrun or slices (default auto: slices, at least 6
                     pairs each unless -n is given). inrun (the local veth pair):
                     A and B switched (ethtool -K) inside one sender and receiver,
                     in windows after a measured settle time; runs are the unit of
                     the interval (-n: minimum runs per pair, default 6; --max-reps:
                     most)
  --window MS        inrun: window length (100..10000 ms, multiple of 100, 200)
  --window-pairs N   inrun: A/B window pairs per run (1..20, default 2)
  --no-warmup        no warm-up slices (default: one of each setting per tx/rx
                     pair before its first measured pair, not counted)
  --no-pin           do not pin tx and rx (default with 2+ CPUs on the local pair:
                     tx on CPU 0, rx on CPU 1)
  --size BYTES       datagram size (1..1472, default 1472); GSO modes send
                     --segs of them per call
  --segs N           segments per GSO send / messages per sendmmsg (1..64, 44)
  --threads N        tx threads, each with its own socket: N flows (1..64, default 1)
  --sockets N        tx sockets per thread: threads x sockets flows (1..64, default 1)
  --reuseport N      rx: N SO_REUSEPORT sockets, a thread each (1..64, default 1)
  --channels N       N queues on both devices: ethtool -L rx N tx N, or combined N
                     where the device has combined channels (up to its maximum)
  --flow-hash        ethtool -N rx-flow-hash udp4 (udp6 with IPv6) sdfn on the
                     receiving device
  --irq-cpus LIST    IRQ affinity (smp_affinity_list) for NETIF's IRQs (online CPUs)
  --rps MASK         RPS mask on the receiving device's rx queues (online CPUs; 0 off)
  --xps MASK         XPS mask on the sending device's tx queues (online CPUs; 0 off)
  --tx-cpu N         pin tx to CPU N;  --rx-cpu N: pin rx to CPU N
  --rmem BYTES       net.core.rmem_max/rmem_default (and rx --rcvbuf)
  --wmem BYTES       net.core.wmem_max/wmem_default (and UDP tx --sndbuf)
  --label NAME       results directory label (default: the preset name)
  --out DIR          results root (default: results/ in the source tree)
  --no-perf          no perf stat (CPU cost from /proc/stat only)
  --no-plots         no plots
  --dry-run          validate and print the matrix, change nothing
  --baseline DIR     run the matrix of results directory DIR again (options
                     given here as well override DIR's), then compare with
                     ab_compare.py (docs/compare.md): exit 1 on a regression
EOF
}

# --baseline DIR: this script again with DIR's matrix (ab_compare.py
# --matrix-args: preset or --ab, --tx, --rx, -n, -l, --size, --segs) and the
# other options given, then ab_compare.py $UG_COMPARE_ARGS DIR NEW --out
# NEW/compare; exit:
# the run's when it failed, else the comparison's (0 within noise or better,
# 1 a regression, 2 nothing to compare)
for ((bl_i = 1; bl_i <= $#; bl_i++)); do
	[ "${!bl_i}" = --baseline ] || continue
	bl_j=$((bl_i + 1))
	bl=${!bl_j:-}
	[ -n "$bl" ] || ug_die "--baseline: needs a results directory (see -h)"
	bl_args=$("$AB_DIR/ab_compare.py" --matrix-args "$bl" 2>&1) ||
		ug_die "--baseline: ${bl_args#ab_compare.py: }"
	mapfile -t bl_opts <<<"$bl_args"
	bl_rest=("${@:1:bl_i-1}" "${@:bl_j+1}")
	case " ${bl_rest[*]} " in *" --dry-run "*) exec "$0" "${bl_opts[@]}" "${bl_rest[@]}" ;; esac
	bl_log=$(mktemp) || ug_die "--baseline: mktemp failed"
	ug_trap_install
	defer rm -f "$bl_log"
	# its stderr (progress, "results in DIR") also to bl_log, stdout as is
	{ "$0" "${bl_opts[@]}" "${bl_rest[@]}" 2>&1 >&3 3>&- | tee "$bl_log" >&2; } 3>&1
	bl_rc=${PIPESTATUS[0]}
	bl_new=$(sed -n "s/^$ug_prog: results in //p" "$bl_log" | tail -1)
	[ -n "$bl_new" ] || exit "$bl_rc"
	bl_py=python3
	[ -x /usr/bin/python3 ] && bl_py=/usr/bin/python3
	# shellcheck disable=SC2086 # UG_COMPARE_ARGS: ab_compare.py options, e.g. --family
	"$bl_py" "$AB_DIR/ab_compare.py" ${UG_COMPARE_ARGS:-} "$bl" "$bl_new" --out "$bl_new/compare"
	bl_crc=$?
	[ ! -d "$bl_new/compare" ] ||
		echo "$ug_prog: comparison with $bl in $bl_new/compare (exit $bl_crc)" >&2
	[ "$bl_rc" = 0 ] || exit "$bl_rc"
	exit "$bl_crc"
done

# ---- options -------------------------------------------------------------------
reps=3 secs=0.25 size=1472 size_given=0 segs=44 preset= a_spec= b_spec= have_ab=0
tx_list=${TX_MODES// /,} rx_list=plain,gro
tx_threads=1 tx_sockets=1 rx_reuseport=1
channels= flowhash=0 irq_cpus= rps= xps= tx_cpu= rx_cpu= rmem= wmem=
label= out_root=$UG_TOP/results use_perf=1 use_plots=1 dry=0 family=4
idle_ms=2000
rx_window= metric= ci=95,3 ci_given=0 reps_given=0 max_reps=200 budget=260 after_target=rounds rate= rate_a=100 warmup=1 pin=1
cmdline="$0"
for a in "$@"; do cmdline+=" $(printf '%q' "$a")"; done
# one trap scheme (lib.sh): nothing deferred yet, a signal just ends the run
ug_trap_install

need_arg() { [ "$2" -ge 2 ] || ug_die "$1: needs a value (see -h)"; }
int_in() {	# NAME VALUE MIN MAX
	case "$2" in '' | *[!0-9]*) ug_die "$1 '$2': not a number, allowed $3..$4" ;; esac
	[ "${#2}" -le 9 ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
		ug_die "$1 $2: out of range, allowed $3..$4"
}
secs_in() {	# NAME VALUE: seconds 0.2..60, at most 3 decimals (the tx tool's -l)
	local f ms
	[[ $2 =~ ^([0-9]{1,2})(\.([0-9]{1,3}))?$ ]] ||
		ug_die "$1 '$2': not a number of seconds, allowed 0.2..60 with at most 3 decimals"
	f=${BASH_REMATCH[3]}000
	ms=$((10#${BASH_REMATCH[1]} * 1000 + 10#${f:0:3}))
	[ "$ms" -ge 200 ] && [ "$ms" -le 60000 ] || ug_die "$1 $2: out of range, allowed 0.2..60 seconds"
}
. "$AB_DIR/ab_opts.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--preset) need_arg "$1" $#; preset=$2; shift ;;
	--ab) [ $# -ge 3 ] || ug_die "--ab: needs two settings A B (see -h)"
	      a_spec=$2 b_spec=$3 have_ab=1; shift 2 ;;
	--tx) need_arg "$1" $#; tx_list=$2; shift ;;
	--family) need_arg "$1" $#; family=$2; shift
		case "$family" in 4 | 6 | both) ;; *) ug_die "--family '$family': allowed 4, 6, both" ;; esac ;;
	-4 | -6) family=${1#-} ;;
	--rx) need_arg "$1" $#; rx_list=$2; shift ;;
	-n | --reps) need_arg "$1" $#; int_in "$1" "$2" 1 50; reps=$2 reps_given=1; shift ;;
	-l | --secs) need_arg "$1" $#; secs_in "$1" "$2"; secs=$2; shift ;;
	--ci) need_arg "$1" $#; ci=$2 ci_given=1; shift
	      [ "$ci" = off ] || ci_check "$ci" ;;
	--max-reps) need_arg "$1" $#; int_in "$1" "$2" 2 200; max_reps=$2; shift ;;
	--budget) need_arg "$1" $#; int_in "$1" "$2" 10 86400; budget=$2; shift ;;
	--after-target) need_arg "$1" $#; after_target=$2; shift
		case "$after_target" in rounds | stop) ;;
		*) ug_die "--after-target '$after_target': allowed rounds, stop" ;; esac ;;
	--rate) need_arg "$1" $#; rate=$2; shift; rate_check "$rate" ;;
	--rate-a) need_arg "$1" $#; int_in "$1" "$2" 55 100; rate_a=$2; shift ;;
	--rx-window) need_arg "$1" $#; rx_window=$2; shift
		case "$rx_window" in kernel | reads) ;; *) ug_die "--rx-window '$rx_window': allowed kernel, reads" ;; esac ;;
	--metric) need_arg "$1" $#; metric=$2; shift
		case "$metric" in mbps | cost) ;; *) ug_die "--metric '$metric': allowed mbps, cost" ;; esac ;;
	--method) need_arg "$1" $#; method=$2; shift
		case "$method" in auto | inrun | slices) ;; *) ug_die "--method '$method': allowed auto, inrun, slices" ;; esac ;;
	--window) need_arg "$1" $#; int_in "$1" "$2" 100 10000; ir_window=$2; shift
		[ $((ir_window % 100)) = 0 ] || ug_die "--window $ir_window: allowed a multiple of 100 (ms), 100..10000" ;;
	--window-pairs) need_arg "$1" $#; int_in "$1" "$2" 1 20; ir_pairs_per_run=$2; shift ;;
	--no-warmup) warmup=0 ;;
	--no-pin) pin=0 ;;
	# the tools send any payload from 1 byte (a --seq stamp, not used
	# here, would need 16); 1472 fills a 1500-byte MTU
	--size) need_arg "$1" $#; int_in "$1" "$2" 1 1472; size=$2 size_given=1; shift ;;
	--segs) need_arg "$1" $#; int_in "$1" "$2" 1 64; segs=$2; shift ;;
	--threads) need_arg "$1" $#; int_in "$1" "$2" 1 64; tx_threads=$2; shift ;;
	--sockets) need_arg "$1" $#; int_in "$1" "$2" 1 64; tx_sockets=$2; shift ;;
	--reuseport) need_arg "$1" $#; int_in "$1" "$2" 1 64; rx_reuseport=$2; shift ;;
	--channels) need_arg "$1" $#; int_in "$1" "$2" 1 1024; channels=$2; shift ;;
	--flow-hash) flowhash=1 ;;
	--irq-cpus) need_arg "$1" $#; irq_cpus=$2; shift
		[[ "$irq_cpus" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
			ug_die "--irq-cpus '$irq_cpus': allowed a CPU list like 0-1,3" ;;
	--rps | --xps) need_arg "$1" $#
		[[ "$2" =~ ^[0-9a-fA-F,]+$ ]] || ug_die "$1 '$2': allowed a hex CPU mask like 3"
		if [ "$1" = --rps ]; then rps=$2; else xps=$2; fi; shift ;;
	--tx-cpu) need_arg "$1" $#; int_in "$1" "$2" 0 $(($(nproc) - 1)); tx_cpu=$2; shift ;;
	--rx-cpu) need_arg "$1" $#; int_in "$1" "$2" 0 $(($(nproc) - 1)); rx_cpu=$2; shift ;;
	--rmem) need_arg "$1" $#; int_in "$1" "$2" 4096 1073741824; rmem=$2; shift ;;
	--wmem) need_arg "$1" $#; int_in "$1" "$2" 4096 1073741824; wmem=$2; shift ;;
	--label) need_arg "$1" $#; label=$2; shift
		[[ "$label" =~ ^[A-Za-z0-9._-]{1,40}$ ]] ||
			ug_die "--label '$label': allowed 1..40 of A-Z a-z 0-9 . _ -" ;;
	--out) need_arg "$1" $#; out_root=$2; shift ;;
	--no-perf) use_perf=0 ;;
	--no-plots) use_plots=0 ;;
	--dry-run) dry=1 ;;
	*) ug_die "unknown option '$1' (see -h)" ;;
	esac
	shift
done
[ "$ci_given" = 0 ] && [ "$reps_given" = 1 ] && ci=off
[ -z "$rate_pct" ] || [ "$warmup" = 1 ] ||
	ug_die "--rate $rate with --no-warmup: PCT% is of the capacity the warm-up slices measure; allowed with --no-warmup: a rate (NUMBER[k|M|G][B])"
[ "$rate_a" = 100 ] || [ -n "$rate" ] || ug_die "--rate-a $rate_a: allowed only with --rate"
# a paced slice's rate is judged against its pacer's (R T + bucket): its
# window from arrival stamps, not from a reader's wake-ups
# (results/known-quantum-2026-11-28)
[ -n "$rx_window" ] || { [ -n "$rate" ] && rx_window=kernel; } || rx_window=reads
[ "$ci" = off ] || [ "$reps" -ge 2 ] || ug_die "-n $reps with --ci $ci: allowed 2..50 (the minimum pairs)"
[ "$ci" = off ] || [ "$max_reps" -ge "$reps" ] ||
	ug_die "--max-reps $max_reps: below -n $reps, allowed $reps..200"
gso_len=$((size * segs))
[ "$gso_len" -le 65507 ] || ug_die "--size $size x --segs $segs = $gso_len: over 65507 bytes"

# ---- the matrix -------------------------------------------------------------------
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
txm=() rxm=()
IFS=, read -ra txm <<<"$tx_list"
IFS=, read -ra rxm <<<"$rx_list"
[ ${#txm[@]} -gt 0 ] || ug_die "--tx: empty, allowed ${TX_MODES// /,}"
[ ${#rxm[@]} -gt 0 ] || ug_die "--rx: empty, allowed ${RX_MODES// /,}"
for m in "${txm[@]}"; do
	in_list "$m" "$TX_MODES" || ug_die "--tx: unknown mode '$m', allowed ${TX_MODES// /,}"
done
for m in "${rxm[@]}"; do
	in_list "$m" "$RX_MODES" || ug_die "--rx: unknown mode '$m', allowed ${RX_MODES// /,}"
done

if [ "$have_ab" = 1 ] && [ -n "$preset" ]; then
	ug_die "--preset and --ab: give one of them"
fi
if [ "$have_ab" = 0 ]; then
	preset=${preset:-default}
	case "$preset" in
	default | uso) a_spec=tx:tx-udp-segmentation=on b_spec=tx:tx-udp-segmentation=off ;;
	gso) a_spec=tx:gso=on b_spec=tx:gso=off ;;
	tso) a_spec=tx:tso=on b_spec=tx:tso=off ;;
	csum) a_spec=tx:tx-checksumming=on b_spec=tx:tx-checksumming=off ;;
	ufo) a_spec=tx:tx-udp-fragmentation=on b_spec=tx:tx-udp-fragmentation=off ;;
	gro) a_spec=rx:gro=on b_spec=rx:gro=off ;;
	gro-list) a_spec=rx:gro=on,rx:rx-gro-list=on b_spec=rx:gro=on,rx:rx-gro-list=off ;;
	gro-fwd) a_spec=rx:gro=on,rx:rx-udp-gro-forwarding=on
		 b_spec=rx:gro=on,rx:rx-udp-gro-forwarding=off ;;
	none) a_spec= b_spec= ;;
	*) ug_die "--preset: unknown preset '$preset', allowed ${PRESETS// /, }" ;;
	esac
	label=${label:-$preset}
fi
label=${label:-ab}
settings=(A)
[ "$have_ab" = 1 ] || [ "$preset" != none ] && settings=(A B)
# one setting: no A/B ratio to take an interval of, so exactly -n reps
[ ${#settings[@]} = 2 ] || ci=off
ab_method_pick		# ab_inrun.sh: in-run windows or per-process slices

# parse_spec SPEC: validate, print "side feature value" lines
parse_spec() {
	local item side rest feat val
	[ -z "$1" ] && return 0
	IFS=, read -ra items <<<"$1"
	for item in "${items[@]}"; do
		[[ "$item" =~ ^(tx|rx):([A-Za-z0-9_-]+)=(on|off)$ ]] ||
			ug_die "setting '$item': allowed SIDE:FEATURE=on|off, SIDE tx or rx"
		side=${BASH_REMATCH[1]} feat=${BASH_REMATCH[2]} val=${BASH_REMATCH[3]}
		case "$feat" in
		ufo) feat=tx-udp-fragmentation ;;
		tx) feat=tx-checksumming ;;
		generic-segmentation-offload) feat=gso ;;
		generic-receive-offload) feat=gro ;;
		tcp-segmentation-offload) feat=tso ;;
		esac
		echo "$side $feat $val"
	done
}
spec_a=$(parse_spec "$a_spec") || exit 1
spec_b=$(parse_spec "$b_spec") || exit 1
# a tx/rx pair is "TX RX FAMILY" (4 or 6): with --family both, each twice
families=$family
[ "$family" = both ] && families="4 6"
pairs=()
for f in $families; do
	for t in "${txm[@]}"; do
		if [ "$t" = tcp ]; then
			pairs+=("tcp tcp $f")
		else
			for r in "${rxm[@]}"; do pairs+=("$t $r $f"); done
		fi
	done
done
n_configs=$((${#pairs[@]} * ${#settings[@]}))
n_fixed=$((n_configs * reps))

# the tools' arguments per mode
# the tx modes' arguments from lib.sh's table (our zerocopy is its
# zerocopy-gso; sendmmsg batches: SEGS datagrams, or 8 GSO sends)
# (per family: TXA[MODE/4], TXA[MODE/6], each with its family's size)
fam_sizes "$size" "$size_given"
declare -A TXA
for f in $families; do
	size=${fam_size[$f]} gso_len=$((fam_size[$f] * segs))
	TXA+=(
	[sendto/$f]="$(S=$size ug_tx_args sendto)"
	[sendmmsg/$f]="$(S=$size B=$segs ug_tx_args sendmmsg)"
	[gso-cmsg/$f]="$(S=$size L=$gso_len ug_tx_args gso-cmsg)"
	[gso-sockopt/$f]="$(S=$size L=$gso_len ug_tx_args gso-sockopt)"
	[sendmmsg-gso/$f]="$(S=$size L=$gso_len B=8 ug_tx_args sendmmsg-gso)"
	[zerocopy/$f]="$(S=$size L=$gso_len ug_tx_args zerocopy-gso)"
	[tcp/$f]="$(L=$gso_len ug_tx_args tcp)"
	)
done
size=${fam_size[${families%% *}]} gso_len=$((size * segs))
# (the first family's under the mode's own name, as before --family)
for m in $TX_MODES; do TXA[$m]=${TXA[$m/${families%% *}]}; done
declare -A RXA=(
	[plain]="--mode recv"
	[recvmmsg]="--mode recvmmsg --batch 64"
	[gro]="-G"
	[tcp]="-t"
)

# ---- topology and validation (nothing is changed in this part) ------------------
TX=$UDPGSO_BIN/udpgso_bench_tx
RX=$UDPGSO_BIN/udpgso_bench_rx
why=$(ug_need_root) || ug_die "$why"
why=$(ug_need_cmd ip ss ethtool python3 sysctl tc) || ug_die "$why"
[ -x "$TX" ] && [ -x "$RX" ] || ug_die "$TX or $RX missing: run make first"
if [ "$use_perf" = 1 ] && ! command -v perf >/dev/null 2>&1; then
	ug_die "perf not found: install linux-perf, or pass --no-perf"
fi
# perf's control fifo (5.9+) is what keeps its start-up out of the window
if [ "$use_perf" = 1 ] && ! perf stat -h 2>&1 | grep -q -- '--control'; then
	ug_die "$(perf --version 2>/dev/null) has no stat --control: pass --no-perf"
fi

remote=0
ssh_opts=() rargs=()
if [ -n "${NETIF:-}" ]; then
	remote=1
	[ -e "/sys/class/net/$NETIF" ] || ug_die "NETIF=$NETIF: no such device here"
	fam_netif_env
	rtype=${REMOTE_TYPE:-ssh}
	[ -n "${REMOTE_ARGS:-}" ] || ug_die "NETIF=$NETIF needs REMOTE_ARGS (ssh destination or netns name)"
	case "$rtype" in
	ssh) read -ra rargs <<<"$REMOTE_ARGS" ;;
	netns) ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qxF "$REMOTE_ARGS" ||
		ug_die "REMOTE_ARGS=$REMOTE_ARGS: no such network namespace" ;;
	*) ug_die "REMOTE_TYPE=$rtype: allowed ssh, netns" ;;
	esac
	fam_local_check
	ns_tx= ns_rx=
	[ -z "$rate" ] || ug_die "--rate $rate: only on the local veth pair for now (tbf restore on NETIF is not done)"
else
	[ -n "${REMOTE_TYPE:-}${REMOTE_ARGS:-}${REMOTE_V4:-}${REMOTE_V6:-}" ] &&
		ug_die "REMOTE_* given without NETIF: set NETIF to the local device"
	rtype=netns
	ns_tx=$(ns_name tx) ns_rx=$(ns_name rx)
	fam_local_pair_dst
fi
# the first family's peer address (fam_dst[4|6] per family)
dst=${fam_dst[${families%% *}]}
tmp=
# L CMD...: on the sending side; R CMD...: on the receiving side
L() { if [ -n "$ns_tx" ]; then ip netns exec "$ns_tx" "$@"; else "$@"; fi; }
R() {
	case "$rtype" in
	netns) ip netns exec "${ns_rx:-$REMOTE_ARGS}" "$@" ;;
	ssh) ssh "${ssh_opts[@]}" "${rargs[@]}" -- "$(printf '%q ' "$@")" ;;
	esac
}
# RS VERB ARGS: snapshot.sh on the receiving side (piped to bash over ssh)
RS() {
	case "$rtype" in
	netns) R bash "$SNAP" "$@" ;;
	ssh) ssh "${ssh_opts[@]}" "${rargs[@]}" -- "bash -s -- $(printf '%q ' "$@")" <"$SNAP" ;;
	esac
}
LS() { L bash "$SNAP" "$@"; }

tmp=$(mktemp -d)
# the ssh control master (if any) and the temporary directory
rm_tmp() {
	if [ "$rtype" = ssh ]; then
		ssh "${ssh_opts[@]}" -O exit "${rargs[@]}" >/dev/null 2>&1
	fi
	rm -rf "$tmp"
}
defer rm_tmp
if [ "$rtype" = ssh ]; then
	ssh_opts=(-o BatchMode=yes -o ConnectTimeout=5 -o ServerAliveInterval=5
		  -o ControlMaster=auto -o "ControlPath=$tmp/cm-%C" -o ControlPersist=300)
	if ! R true </dev/null >/dev/null 2>&1; then
		ug_die "remote '$REMOTE_ARGS' does not answer over ssh (BatchMode, 5 s timeout)"
	fi
fi

# the devices and their feature lists
if [ "$remote" = 1 ]; then
	dev_tx=$NETIF
	dev_rx=$(fam_remote_dev) || exit 1
	feats_tx=$(LS features "$dev_tx")
	feats_rx=$(RS features "$dev_rx" </dev/null)
else
	dev_tx=ugab0 dev_rx=ugab1
	# a throwaway veth in a private namespace that dies with the process
	feats_tx=$(unshare -n bash -c 'ip link add ugab0 type veth peer name ugab1 &&
		bash "$1" features ugab0 && ethtool ugab0 | sed -n "s/^[[:space:]]*Speed: /speed /p"' \
		_ "$SNAP") || ug_die "cannot create a veth pair in a network namespace"
	feats_rx=$feats_tx
fi
# the sending device's speed in Mb/s (-1 or empty: unknown)
if [ "$remote" = 1 ]; then
	dev_speed=$(cat "/sys/class/net/$dev_tx/speed" 2>/dev/null)
else
	dev_speed=$(echo "$feats_tx" | sed -n 's/^speed \([0-9]*\)Mb\/s$/\1/p')
	feats_tx=$(echo "$feats_tx" | grep -v '^speed ')
	feats_rx=$feats_tx
fi
rate_speed_check "$dev_tx" "$dev_speed"
# --channels, --irq-cpus, --rps, --xps against the devices and machines
if [ "$remote" = 1 ]; then
	dev_check L R
else
	dev_check VL VL
fi
# tx and rx on CPUs of their own, where there are two
if [ "$pin" = 1 ] && [ "$remote" = 0 ] && [ "$(nproc)" -ge 2 ] &&
   [ -z "$tx_cpu" ] && [ -z "$rx_cpu" ]; then
	tx_cpu=0 rx_cpu=1
fi

notes=()
# check every named feature on its device; [fixed] ones and absent UFO are
# noted and left alone
skip_feats=" "
check_feats() {
	local side feat val list m st fixed_all any dn
	while read -r side feat val; do
		[ -n "$side" ] || continue
		if [ "$side" = tx ]; then
			list=$feats_tx dn=$dev_tx
		else
			list=$feats_rx dn=$dev_rx
		fi
		fixed_all=1 any=0
		for m in $(feat_members "$feat"); do
			st=$(echo "$list" | awk -v f="$m" '$2 == f { print $1 }')
			[ -n "$st" ] || continue
			any=1
			[ "$st" = feat ] && fixed_all=0
		done
		case "$skip_feats" in *" $side:$feat "*) continue ;; esac
		if [ "$any" = 0 ]; then
			if [ "$feat" = tx-udp-fragmentation ]; then
				notes+=("$side:$feat: not offered by this kernel (UFO is gone since 4.14); left alone")
				skip_feats+="$side:$feat "
				continue
			fi
			ug_die "device $dn: no feature '$feat' (see ethtool -k $dn; allowed $FEATURES)"
		fi
		if [ "$fixed_all" = 1 ]; then
			notes+=("$side:$feat: [fixed] on $dn; left alone, A and B do not differ in it")
			skip_feats+="$side:$feat "
		fi
	done
}
check_feats <<<"$spec_a"
check_feats <<<"$spec_b"

# everything that will be touched on each side
touched=$(printf '%s\n%s\n' "$spec_a" "$spec_b" | awk 'NF { print $1, $2 }' | sort -u)
touched_sides=$(awk '!s[$1]++ { printf "%s ", $1 }' <<<"$touched")

host=$(hostname -s 2>/dev/null || hostname)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
resdir=$out_root/$stamp-$host-$label

if [ "$dry" = 1 ]; then
	echo "results: $resdir"
	echo "topology: $([ "$remote" = 1 ] && echo "NETIF=$dev_tx -> $rtype:$REMOTE_ARGS $dev_rx" ||
		echo "local veth pair $dev_tx -> $dev_rx in two namespaces")"
	echo "settings: A='${a_spec}'$([ ${#settings[@]} = 2 ] && echo " B='${b_spec}'")"
	echo "configurations: $n_configs ($((${#pairs[@]})) tx/rx pairs x ${#settings[@]} settings)," \
		"$([ "$ci" = off ] && echo "$reps reps, $n_fixed runs of ${secs}s" ||
		   echo "interval ${ci%,*}% within ±${ci#*,}%: $reps..$max_reps reps of ${secs}s slices, budget ${budget}s")"
	echo "method: $method$([ "$method" = inrun ] && echo " (windows of ${ir_window} ms, $ir_pairs_per_run A/B pairs per run, $reps..$max_reps runs per pair)")"
	[ "$ci" = off ] || [ "$method" = inrun ] ||
		echo "after the target: $after_target$([ "$after_target" = rounds ] && echo " (the budget left goes to rounds of every pair)")"
	echo "warm-up: $([ "$warmup" = 1 ] && echo "one slice per setting per pair" || echo none);" \
		"pinned: tx ${tx_cpu:--} rx ${rx_cpu:--}$([ -n "$rate" ] && echo "; rate $rate (A at $rate_a%)")"
	echo "families: $families$([ -z "${fam_size[6]:-}" ] || echo " (IPv6 datagrams of ${fam_size[6]} bytes)")"
	for p in "${pairs[@]}"; do echo "  $p"; done
	for n in "${notes[@]}"; do echo "note: $n"; done
	exit 0
fi

# ---- from here on things change: snapshot first, restore on any exit -----------
t_start=$EPOCHREALTIME
loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)
# what is deferred from here on is undone before the results are written
defer_scope_begin
mkdir -p "$resdir/raw" || ug_die "cannot create $resdir"
echo "$cmdline" >"$resdir/command"
# the environment a reader needs
{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $host"
	echo "kernel: $(uname -r) ($(uname -v))"
	echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) x $(nproc)"
	echo "topology: $([ "$remote" = 1 ] && echo "NETIF=$dev_tx, $rtype peer $REMOTE_ARGS, $dev_rx" ||
		echo "local veth pair $dev_tx ($ns_tx) -> $dev_rx ($ns_rx)")"
	echo "tools: $TX $RX"
	echo "perf: $(perf --version 2>/dev/null || echo none)"
	echo "ethtool: $(ethtool --version 2>/dev/null)"
	echo "USER_HZ: $(getconf CLK_TCK)"
	echo "loadavg: $(cat /proc/loadavg)"
} >"$resdir/environment"

# restore even if we die half way through a change
# (twice if need be: a restore killed half way is done again)
restore_side() {	# LS|RS SNAPSHOT DEV
	"$1" restore "$(cat "$2")" "$3" </dev/null ||
		"$1" restore "$(cat "$2")" "$3" </dev/null
}
# a death without traps (SIGKILL, bash aborting) is undone by a watcher
# (lib.sh), a copy of this shell: what it may run is defined above
ug_guard || ug_die "cannot start the restore guard (mktemp)"
# snapshot both sides before anything
if [ "$remote" = 1 ]; then
	LS save "$dev_tx" >"$resdir/snapshot.before.tx" || ug_die "snapshot of $dev_tx failed"
	RS save "$dev_rx" </dev/null >"$resdir/snapshot.before.rx" ||
		ug_die "snapshot of the remote $dev_rx failed"
	defer restore_side LS "$resdir/snapshot.before.tx" "$dev_tx"
	defer restore_side RS "$resdir/snapshot.before.rx" "$dev_rx"
else
	bash "$SNAP" save >"$resdir/snapshot.before.host"
	ns_add tx || ug_die "cannot create namespace $ns_tx"
	# processes left in our namespaces die before the namespaces go
	defer ns_kill_pids "$ns_tx"
	ns_add rx || ug_die "cannot create namespace $ns_rx"
	defer ns_kill_pids "$ns_rx"
	veth_pair tx "$dev_tx" rx "$dev_rx" || ug_die "cannot create the veth pair"
	fam_local_pair
	LS save "$dev_tx" >"$resdir/snapshot.before.tx"
	RS save "$dev_rx" >"$resdir/snapshot.before.rx"
fi
# kill our background children (and, when killed, theirs) first
kill_jobs() {
	local p
	for p in $(jobs -p); do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	# and any direct child the job table no longer lists
	pkill -KILL -P $$ 2>/dev/null
}
defer kill_jobs
{
	echo "== ethtool -k $dev_tx (before)"; L ethtool -k "$dev_tx"
	echo "== ethtool -l $dev_tx (before)"; L ethtool -l "$dev_tx"
	echo "== ethtool -i $dev_tx"; L ethtool -i "$dev_tx"
	echo "== ethtool -k $dev_rx (before)"; R ethtool -k "$dev_rx"
	echo "== ethtool -l $dev_rx (before)"; R ethtool -l "$dev_rx"
	echo "== ethtool -i $dev_rx"; R ethtool -i "$dev_rx"
} >>"$resdir/environment" 2>&1 </dev/null

# ---- fixed settings for the whole run (ab_dev.sh) ---------------------------------
dev_apply

# ---- one agent per side (snapshot.sh agent) reads counters and runs ethtool
# without a process start or an ssh connection per request
trap '' PIPE
ag_in_tx= ag_out_tx= ag_in_rx= ag_out_rx=
agent_start tx || ug_die "cannot start the counter agent"
agent_start rx || ug_die "cannot start the counter agent on the receiving side"

declare -A set_args
for s_ in "${settings[@]}"; do
	set_args[$s_.tx]=$(setting_args "$s_" tx)
	set_args[$s_.rx]=$(setting_args "$s_" rx)
done

# ---- per-run helpers ---------------------------------------------------------------
# nap SECONDS: sleep without starting a process (a read that times out)
mkfifo "$tmp/nap" && exec {napfd}<>"$tmp/nap"
counters_source=none

perf_events=cpu-clock,task-clock
cost_unit="cpu_s"
if [ "$use_perf" = 1 ]; then
	if perf stat -x, -e cycles -- true 2>&1 >/dev/null | grep -q '^[0-9]'; then
		perf_events=cycles,instructions,cpu-clock
		cost_unit=cycles
	else
		notes+=("perf: no cycles event on this machine (<not supported>); perf stat -a records cpu-clock and task-clock, which count idle time system-wide, so the CPU cost is busy time from /proc/stat (all CPUs, user+nice+system+irq+softirq)")
	fi
else
	notes+=("perf: not used (--no-perf); CPU cost is busy time from /proc/stat")
fi

port_base=$((20000 + ($$ % 200) * 100))
declare -a perf_pid rx_pid rx_cmd

# the receiving side's binary: ours here, a copy on an ssh peer
RXR=$RX
LTX=""
[ -n "$ns_tx" ] && LTX="ip netns exec $ns_tx"

if [ "$rtype" = ssh ]; then
	rdir=$(R mktemp -d </dev/null) || ug_die "remote: mktemp failed"
	defer R rm -rf "$rdir"
	R sh -c "cat > $rdir/udpgso_bench_rx && chmod +x $rdir/udpgso_bench_rx" <"$RX" ||
		ug_die "remote: cannot copy udpgso_bench_rx"
	RXR=$rdir/udpgso_bench_rx
fi
# the per-skb counters on each side (ab_skbc.sh)
skbc_init

code_version
# run.conf: what the report needs (written before the matrix for
# ab_report.py --pending, and again at the end)
write_conf() {
	echo "label=$label"
	echo "preset=${preset:-}"
	echo "spec_A=$a_spec"
	echo "spec_B=$b_spec"
	echo "settings=${settings[*]}"
	echo "reps=$reps"
	echo "secs=$secs"
	echo "size=$size"
	echo "families=$families"
	[ -z "${fam_size[6]:-}" ] || echo "size_v6=${fam_size[6]}"
	echo "segs=$segs"
	echo "flows=$((tx_threads * tx_sockets))"
	echo "tx_threads=$tx_threads"
	echo "tx_sockets=$tx_sockets"
	echo "rx_reuseport=$rx_reuseport"
	echo "channels=$channels"
	echo "irq_cpus=$irq_cpus"
	echo "rps=$rps"
	echo "xps=$xps"
	echo "flow_hash=$([ "$flowhash" = 1 ] && echo sdfn)"
	echo "topology=$([ "$remote" = 1 ] && echo "remote-$rtype" || echo local-veth)"
	echo "dev_tx=$dev_tx"
	echo "dev_rx=$dev_rx"
	echo "cost_unit=$cost_unit"
	echo "perf_events=$([ "$use_perf" = 1 ] && echo "$perf_events")"
	echo "user_hz=$(getconf CLK_TCK)"
	echo "ncpus=$(nproc)"
	echo "kernel=$(uname -r)"
	echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "host=$host"
	echo "commit=$code_commit"
	echo "tools=$code_tools"
	echo "t_start=$t_start"
	echo "plots=$use_plots"
	echo "ci=$ci"
	echo "max_reps=$([ "$ci" = off ] && echo "$reps" || echo "$max_reps")"
	echo "budget=$([ "$ci" = off ] || echo "$budget")"
	echo "stop=$stop_why"
	echo "after_target=$([ "$ci" = off ] || [ "$method" = inrun ] || echo "$after_target")"
	echo "target_at=$target_at"
	echo "warmup=$warmup"
	echo "tx_cpu=$tx_cpu"
	echo "rx_cpu=$rx_cpu"
	echo "rate=$rate"
	echo "rate_a=$rate_a"
	echo "metric=$metric"
	echo "rx_window=$rx_window"
	echo "method=$method"
	echo "t_end=$EPOCHREALTIME"
	echo "counters_source=$counters_source"
	echo "loadavg_start=$loadavg_start"
	echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)"
	[ -z "$rate" ] || echo "pacer=tbf qdisc on $dev_tx (rate counts IP/UDP/Ethernet headers; set so that the UDP payload gets the rate)"
	for k in "${!pair_rate[@]}"; do echo "rate_pair.$k=${pair_rate[$k]}"; done
	for n in "${notes[@]}"; do echo "note=$n"; done
} >"$resdir/run.conf"

# ---- the matrix --------------------------------------------------------------------
[ "$warmup" = 1 ] && mkdir -p "$resdir/raw/warmup"
py_stats=python3
write_conf
t_mat=${EPOCHREALTIME%.*}
if [ "$method" = inrun ]; then ir_rounds; else run_rounds; fi
restore_bad=0

# ---- restore, then write the results ---------------------------------------------
if [ "$remote" = 1 ]; then
	LS save "$dev_tx" >"$resdir/snapshot.during.tx"
fi
defer_scope_end
# a fresh temporary directory (and ssh master) for the snapshots after (the
# rm_tmp deferred above removes it at exit)
rm_tmp
tmp=$(mktemp -d)
ssh_opts=("${ssh_opts[@]/ControlPath=*/ControlPath=$tmp/cm-%C}")
if [ "$remote" = 1 ]; then
	rm -f "$resdir/snapshot.during.tx"
	# verify: a fresh snapshot of each side must equal the one from before
	# (other programs may add or remove namespaces meanwhile); a restore
	# whose helper was killed is done once more, then it is an error
	same_as_before() {	# SIDE
		cmp -s <(grep -v '^netns ' "$resdir/snapshot.before.$1") \
		       <(grep -v '^netns ' "$resdir/snapshot.after.$1")
	}
	for s in tx rx; do
		if [ "$s" = tx ]; then r=LS d=$dev_tx; else r=RS d=$dev_rx; fi
		$r save "$d" </dev/null >"$resdir/snapshot.after.$s" 2>/dev/null
		same_as_before "$s" && continue
		$r restore "$(cat "$resdir/snapshot.before.$s")" "$d" </dev/null >/dev/null 2>&1
		$r save "$d" </dev/null >"$resdir/snapshot.after.$s" 2>/dev/null
		same_as_before "$s" && continue
		ug_err "restore: the $s side ($d) differs from its snapshot before the run" \
			"(see $resdir/snapshot.*.$s)"
		notes+=("restore: the $s side differs from its snapshot (see snapshot.*.$s)")
		restore_bad=1
	done
else
	bash "$SNAP" save >"$resdir/snapshot.after.host"
fi
rm_tmp

write_conf

# Debian's python3-matplotlib belongs to /usr/bin/python3 (the report
# says so when it cannot import it)
py=python3
[ "$use_plots" = 1 ] && [ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" "$AB_DIR/ab_report.py" "$resdir" || ug_die "writing the results failed"
# the summary on stdout too, less its plot links
grep -v '^!\[' "$resdir/summary.md"
echo "$ug_prog: results in $resdir" >&2
[ "$failed" -eq 0 ] || { ug_err "$failed of $n_runs runs failed (see raw/)"; exit 1; }
[ "$restore_bad" = 0 ] || exit 1
exit 0
