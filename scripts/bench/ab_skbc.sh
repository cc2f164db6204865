# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the per-skb counters of scripts/bench/udpgso_ab.sh on both
# sides (sourced by it; functions only; they use its settings and state).
# Each side (tx: the sending host, rx: the receiving one) counts with the
# kmod where it is loaded and that side's kernel is its own, else with the
# BPF twin, `udpgso_stats serve --filter dev DEV` run on that side (in its
# namespace, or copied over ssh into the remote's temporary directory the
# way the kernel's drivers/net environment deploys binaries).  BPF hooks see
# the whole machine: the device filter (a name in the tool's namespace) makes
# each side count its own device when both sides share one kernel (the veth
# pair, a netns remote, an ssh remote on the same machine).  When they share
# one kernel and the BPF twin cannot load, a loaded module is read once for
# both (the old unsided 'kmod.after' section).
# Raw log sections: 'kmod.after.SIDE' (name value lines) and 'kmod.source.SIDE'
# ("kmod", or "bpf MODE dev DEV"); run.conf counters_source=tx:SRC,rx:SRC.
# shellcheck shell=bash

kmod_dir=/sys/kernel/debug/udpgso_stats
declare -A skbc_src skbc_in skbc_out skbc_mode
skbc_shared=0

# skbc_run SIDE CMD...: CMD on that side
skbc_run() {
	local side=$1
	shift
	if [ "$side" = tx ]; then L "$@"; else R "$@"; fi
}

# skbc_bpf_start SIDE: udpgso_stats serve on that side, asked through fifos
# (AB_SKBC_WRONG_HOST=1, a test knob of scripts_test.sh: the receiver's
# counters read on the sending host, its device: the cross-check must say so)
skbc_bpf_start() {
	local side=$1 st=$UDPGSO_BIN/udpgso_stats dev line fi fo host=$1
	dev=$dev_tx
	[ "$side" = rx ] && dev=$dev_rx
	[ "$side" = rx ] && [ "${AB_SKBC_WRONG_HOST:-0}" = 1 ] && host=tx dev=$dev_tx
	skbc_why="no $st (make -C bpf)"
	[ -x "$st" ] || return 1
	mkfifo "$tmp/skbc_$side.in" "$tmp/skbc_$side.out" || return 1
	if [ "$host" = rx ] && [ "$rtype" = ssh ]; then
		# deployed like udpgso_bench_rx: into the remote's mktemp dir
		R sh -c "cat > $rdir/udpgso_stats && chmod +x $rdir/udpgso_stats" <"$st" ||
			{ skbc_why="remote: cannot copy udpgso_stats"; return 1; }
		st=$rdir/udpgso_stats
	fi
	skbc_run "$host" "$st" serve --filter dev "$dev" \
		<"$tmp/skbc_$side.in" >"$tmp/skbc_$side.out" 2>"$tmp/skbc_$side.err" &
	exec {fi}>"$tmp/skbc_$side.in" {fo}<"$tmp/skbc_$side.out"
	skbc_in[$side]=$fi skbc_out[$side]=$fo
	if read -r -t 30 -u "$fo" line && [ "${line%% *}" = ready ]; then
		skbc_mode[$side]="${line#ready } dev $dev"
		return 0
	fi
	skbc_why="udpgso_stats: $(head -1 "$tmp/skbc_$side.err")"
	exec {fi}>&- {fo}<&-
	return 1
}

# skbc_bpf_call SIDE REQUEST: the answer on stdout (without its final '.')
skbc_bpf_call() {
	ug_serve_ask "${skbc_in[$1]}" "${skbc_out[$1]}" "$2" 10
}

# skbc_init: choose and start each side's counters; notes say what was chosen
skbc_init() {
	local side one=0 b_tx b_rx have_kmod
	b_tx=$(L cat /proc/sys/kernel/random/boot_id </dev/null 2>/dev/null)
	b_rx=$(R cat /proc/sys/kernel/random/boot_id </dev/null 2>/dev/null)
	[ -n "$b_tx" ] && [ "$b_tx" = "$b_rx" ] && one=1
	for side in tx rx; do
		skbc_src[$side]=none
		have_kmod=0
		skbc_run "$side" test -r "$kmod_dir/counters" </dev/null 2>/dev/null && have_kmod=1
		if [ "$have_kmod" = 1 ] && [ "$one" = 0 ]; then
			skbc_src[$side]=kmod
		elif skbc_bpf_start "$side"; then
			skbc_src[$side]=bpf
		elif [ "$have_kmod" = 1 ]; then
			skbc_shared=1
		else
			notes+=("per-skb counters ($side side): the module not loaded there and no BPF counters ($skbc_why); not read")
		fi
	done
	if [ "$skbc_shared" = 1 ]; then
		skbc_src[tx]=none skbc_src[rx]=none
		notes+=("per-skb counters: the module, read once for both sides (one kernel; the BPF twin did not load: $skbc_why)")
		counters_source=kmod
		return
	fi
	for side in tx rx; do
		case "${skbc_src[$side]}" in
		bpf) notes+=("per-skb counters ($side side): BPF (udpgso_stats ${skbc_mode[$side]})") ;;
		kmod) notes+=("per-skb counters ($side side): the module (its host's kernel)") ;;
		esac
	done
	counters_source=tx:${skbc_src[tx]},rx:${skbc_src[rx]}
}

# skbc_reset: zero every side's counters before a slice
skbc_reset() {
	local side
	if [ "$skbc_shared" = 1 ]; then
		{ echo 1 >"$kmod_dir/reset"; } 2>/dev/null
		return 0
	fi
	for side in tx rx; do
		case "${skbc_src[$side]}" in
		bpf) skbc_bpf_call "$side" reset >/dev/null ;;
		kmod) if [ "$side" = tx ]; then
			{ echo 1 >"$kmod_dir/reset"; } 2>/dev/null
		      else
			R sh -c "echo 1 > $kmod_dir/reset" </dev/null >/dev/null 2>&1
		      fi ;;
		esac
	done
	return 0
}

# skbc_read SIDE: that side's counters now ('name value' lines; nothing when
# the side has none; with one kernel's module read once, the module's for
# either side)
skbc_read() {
	if [ "$skbc_shared" = 1 ]; then
		catf "$kmod_dir/counters"
		return 0
	fi
	case "${skbc_src[$1]}" in
	bpf) skbc_bpf_call "$1" counters ;;
	kmod) if [ "$1" = tx ]; then
		catf "$kmod_dir/counters"
	      else
		R cat "$kmod_dir/counters" </dev/null 2>/dev/null
	      fi ;;
	esac
	return 0
}

# skbc_log: the raw log's sections of the counters after a slice
skbc_log() {
	local side
	if [ "$skbc_shared" = 1 ]; then
		echo "== kmod.after"; skbc_read tx
		return 0
	fi
	for side in tx rx; do
		[ "${skbc_src[$side]}" != none ] || continue
		echo "== kmod.after.$side"; skbc_read "$side"
		echo "== kmod.source.$side"
		if [ "${skbc_src[$side]}" = bpf ]; then echo "bpf ${skbc_mode[$side]}"; else echo kmod; fi
	done
	return 0
}
