# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the interval and fixed-rate options of scripts/bench/udpgso_ab.sh
# (sourced by it; functions only): checking --ci and --rate, the device's
# speed, pacing with a tbf qdisc, and a pair's capacity from its warm-up;
# and the options and log of the sessions of many udpgso_ab.sh runs
# (sourced by ab_campaign.sh and ab_tune.sh): a count, a list of words, the
# output directory, the log's head and one logged run.
# shellcheck shell=bash

CI_ALLOWED="allowed LEVEL,WIDTH with LEVEL 50..99.9 (%) and WIDTH 0.1..50 (+-%), e.g. 95,3, or off"

# ci_check VALUE: LEVEL,WIDTH in range, else one line and exit 1
ci_check() {
	[[ "$1" =~ ^[0-9]+(\.[0-9]+)?,[0-9]+(\.[0-9]+)?$ ]] || ug_die "--ci '$1': $CI_ALLOWED"
	awk -v l="${1%,*}" -v w="${1#*,}" 'BEGIN { exit !(l >= 50 && l <= 99.9 && w >= 0.1 && w <= 50) }' ||
		ug_die "--ci $1: out of range, $CI_ALLOWED"
}

# rate_check VALUE: sets rate_pct (PCT%) or rate_Bps (bytes/s of UDP payload)
rate_pct= rate_Bps=
rate_check() {
	local allowed="allowed PCT% (1..100) or NUMBER[k|M|G] bit/s, with a B suffix bytes/s (e.g. 800M, 50MB)"
	if [[ "$1" =~ ^([0-9]+)%$ ]]; then
		rate_pct=${BASH_REMATCH[1]}
		[ "${#rate_pct}" -le 3 ] && [ "$rate_pct" -ge 1 ] && [ "$rate_pct" -le 100 ] ||
			ug_die "--rate $1: out of range, $allowed"
		return
	fi
	[[ "$1" =~ ^([0-9]+(\.[0-9]+)?)([kMG]?)(B?)$ ]] || ug_die "--rate '$1': $allowed"
	rate_Bps=$(awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" -v b="${BASH_REMATCH[4]}" \
		'BEGIN { m = (u == "k") ? 1e3 : (u == "M") ? 1e6 : (u == "G") ? 1e9 : 1
			 v = n * m; if (b != "B") v /= 8; printf "%.0f", v }')
	[ "$rate_Bps" -ge 125000 ] || ug_die "--rate $1: below 1M (125000 bytes/s), $allowed"
}

# rate_speed_check DEV SPEED_MBIT: a fixed rate must fit the device ("" or
# -1: the device reports no speed, nothing to check against)
rate_speed_check() {
	[ -n "$rate_Bps" ] || return 0
	case "$2" in '' | -1 | *[!0-9]*) return 0 ;; esac
	[ "$rate_Bps" -le $(($2 * 125000)) ] ||
		ug_die "--rate $rate: above what $1 can take ($2Mb/s), allowed up to ${2}M or PCT% 1..100"
}

# wire_bps PAYLOAD_Bps PROTO FAM: the tbf rate (bit/s, as tbf counts the
# frame: Ethernet 14 + IPv4 20 or IPv6 40 + UDP 8 after each datagram of the
# family's size; TCP 32 with timestamps after an MSS of 1448 or 1428)
wire_bps() {
	local hdr=42 pl=${fam_size[${3:-4}]:-$size}
	case $2/${3:-4} in
	udp/6) hdr=62 ;;
	tcp/4) hdr=66 pl=1448 ;;
	tcp/6) hdr=86 pl=1428 ;;
	esac
	awk -v r="$1" -v h="$hdr" -v p="$pl" 'BEGIN { printf "%.0f", r * 8 * (p + h) / p }'
}

# pace_set PAYLOAD_Bps PROTO PCT FAM: a tbf qdisc on the sending device at
# that rate of payload of FAM's packets; its bucket holds two 64 KiB GSO/TSO
# packets (so tbf never segments one; at PCT% of that, at least 55: still
# more than one such packet) and its queue 16 MiB (so the socket's send
# buffer fills first: the sender blocks, nothing is dropped at the qdisc).
# --rate-a scales the bucket with the rate: a slice starts with a full
# bucket, which adds the bucket's bytes to its rx bytes, and a bucket kept
# whole would move A/B of rx MB/s from PCT% toward 1 (0.971 for 97% in 1 s
# slices)
pace_set() {
	local bps burst=$((131072 * ${3:-100} / 100))
	bps=$(wire_bps "$1" "$2" "${4:-4}")
	pace_line="rate_Bps=$1 tbf_bit_s=$bps burst=$burst"
	L tc qdisc replace dev "$dev_tx" root tbf rate "${bps}bit" burst "$burst" limit 16777216 \
		</dev/null >/dev/null 2>&1
}

# warm_capacity TX RX: the lower of the pair's warm-up rx MB/s (bytes/s),
# from the rx JSON lines of its warm-up logs
warm_capacity() {
	local f v min=
	for f in "$resdir"/raw/warmup/*.log; do
		grep -q "^run .* tx_mode=$1 rx_mode=$2 " "$f" 2>/dev/null || continue
		v=$(sed -n '/^== rx.json/{n;p}' "$f" |
			sed -n 's/.*"duration_s":\([0-9.e-]*\),"bytes":\([0-9]*\),.*/\2 \1/p' |
			awk 'NR == 1 && $2 > 0 { printf "%.0f", $1 / $2 }')
		[ -n "$v" ] || continue
		if [ -z "$min" ] || [ "$v" -lt "$min" ]; then min=$v; fi
	done
	echo "${min:-0}"
}

# ---- the sessions of many udpgso_ab.sh runs (ab_campaign.sh, ab_tune.sh) -------------

# ab_count_check OPT VALUE MAX: VALUE an integer 1..MAX, else one line and exit 1
ab_count_check() {
	case "$2" in '' | 0 | *[!0-9]*) ug_die "$1 '$2': allowed 1..$3" ;; esac
	[ "$2" -le "$3" ] || ug_die "$1 $2: allowed 1..$3"
}

# ab_list_check OPT LIST WORD...: LIST comma-separated, not empty, each of
# its items one of the WORDs, else one line and exit 1; sets ab_list (array)
ab_list_check() {
	local opt=$1 list=$2 w ok allowed
	shift 2
	allowed=$(IFS=,; echo "$*")
	allowed=${allowed//,/, }
	ab_list=()
	IFS=, read -r -a ab_list <<<"$list"
	[ ${#ab_list[@]} -gt 0 ] || ug_die "$opt '$list': allowed a list of $allowed"
	for w in "${ab_list[@]}"; do
		ok=
		case " $* " in *" $w "*) ok=1 ;; esac
		[ -n "$ok" ] || ug_die "$opt: '$w' unknown, allowed $allowed"
	done
}

# ab_out_dir NAME: out (the --out DIR) or results/NAME-DATE, created
ab_out_dir() {
	[ -n "$out" ] || out=$UG_TOP/results/$1-$(date -u +%Y-%m-%d)
	mkdir -p "$out" || ug_die "--out '$out': cannot create"
}

# ab_log_head LOG ARGV WHAT: the session's first line in LOG: when, the
# command line, WHAT (its settings) and the tree
ab_log_head() {
	local tree
	tree=$(git -C "$UG_TOP" rev-parse --short HEAD 2>/dev/null)
	echo "# $(date -u '+%F %T') UTC: $ug_prog $2 ($3) tree $tree" >>"$1"
}

# ab_logged_run LOG WHAT CMD...: CMD with its stdout and stderr appended to
# LOG, between a line with WHAT, the time and the load, and its command
# line, and a line with its exit status, the time and the load
ab_logged_run() {
	local log=$1 what=$2
	shift 2
	{
		echo "## $what $(date -u '+%F %T') UTC load $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "## command: $*"
	} >>"$log"
	"$@" >>"$log" 2>&1
	echo "## exit $? at $(date -u '+%F %T') UTC load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
}

# code_version: code_commit and code_tools, the code that made the run: its
# git commit (-dirty with changes to tracked files; empty outside a
# checkout) and a hash of the tools' sources (run.conf commit=, tools=;
# ab_across counts the other runs made by the same tools)
code_version() {
	code_commit=$(git -C "$UG_TOP" rev-parse --short=12 HEAD 2>/dev/null) &&
		{ git -C "$UG_TOP" diff --quiet HEAD -- 2>/dev/null || code_commit+=-dirty; } ||
		code_commit=
	code_tools=$(cd "$UG_TOP" && cat udpgso_bench_[tr]x*.[ch] udpgso_common.[ch] | sha256sum)
	code_tools=${code_tools:0:12}
}
