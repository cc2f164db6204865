#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# device/env.sh: the device suite's environment (scripts/drv_env.sh) on the
# device and remote given (NETIF, LOCAL_V4/6, REMOTE_V4/6, REMOTE_TYPE,
# REMOTE_ARGS, or net.config; docs/device.md):
#   - bad input, each in a child that only sets up the environment: NETIF
#     missing (skip), unknown, down (lo of a fresh namespace), REMOTE_*
#     incomplete or wrong, an address on no device here or on the remote, ssh
#     that does not answer (a closed port on LOCAL_V4, a proxy that never
#     speaks: nothing leaves this host), net.config errors and its priority
#     over the environment: one line naming the value, exit 1, both hosts'
#     snapshots unchanged;
#   - a feature the device lacks or has [fixed]: drv_feat returns 4 and the
#     reason;
#   - the helpers: drv_remote (pipes both ways, exit status), drv_deploy,
#     drv_counters and drv_stats_begin/end read on the right host (GSO sends
#     from here count on this side, not on the remote's), drv_stats_keep
#     (one serve per side: counts reset per case, a killed serve replaced);
#   - restore: a child changes features on both hosts, then exits 0, exits 1,
#     or is killed (SIGTERM, SIGINT) mid-case; both hosts' snapshots (scripts/
#     snapshot.sh save) after equal those before.
# DRV_ENV_KILLS=N: how many kill rounds (default 2: TERM and INT).
# DRV_ENV_QUICK=1: of the bad input, only the cases that depend on the
# remote (its type, address, ssh), and no failure round (a second transport
# in scripts/tests/device_test.sh).  DRV_ENV_PARTS="bad features helpers
# restore" (the default) runs those groups only.
#
# A temporary directory left behind (the child's TMPDIR) is a failure too.
#
#   NETIF=... REMOTE_TYPE=... REMOTE_ARGS=... LOCAL_V4=... REMOTE_V4=... device/env.sh
set -u
. "$(dirname "$0")/../scripts/lib.sh"
. "$UG_TOP/scripts/drv_env.sh"
ug_no_args "$@"

KILLS=${DRV_ENV_KILLS:-2}
QUICK=${DRV_ENV_QUICK:-0}
PARTS=${DRV_ENV_PARTS:-bad features helpers restore}
for p in $PARTS; do
	case "$p" in bad | features | helpers | restore) ;;
	*) ug_die "DRV_ENV_PARTS '$PARTS': allowed words bad, features, helpers, restore" ;;
	esac
done
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
case "$QUICK" in 0 | 1) ;; *) ug_die "DRV_ENV_QUICK '$QUICK': allowed 0, 1" ;; esac
case "$KILLS" in '' | *[!0-9]*) ug_die "DRV_ENV_KILLS '$KILLS': allowed 0..100" ;; esac

ktap_header
drv_env_init

# both hosts' settings (the netns list is the machine's, others change it)
snap_both() {
	drv_snap_save local | grep -v '^netns '
	echo "-- remote"
	drv_snap_save remote | grep -v '^netns '
}
base=$(snap_both)
same_as_base() {	# NAME: 0 when both hosts are as before, else the diff
	local now
	now=$(snap_both)
	[ "$now" = "$base" ] && return 0
	echo "# $1: settings changed:"
	diff <(echo "$base") <(echo "$now") | head -n 12 | sed 's/^/#   /'
	return 1
}

# the child: the environment alone, then MODE (init, ok, fail, wait)
# shellcheck disable=SC2016
CHILD='
. "$UG_TOP/scripts/lib.sh"
. "$UG_TOP/scripts/drv_env.sh"
drv_env_init
[ "$1" = init ] && { echo init-ok; exit 0; }
for c in local:$T_LFEATS remote:$T_RFEATS; do
	side=${c%%:*}
	for fv in ${c#*:}; do
		why=$(drv_feat "$side" "$(drv_dev "$side")" "${fv%=*}" "${fv#*=}") ||
			{ echo "drv_feat $side $fv: $why"; exit 2; }
	done
done
echo changed
case "$1" in
ok) exit 0 ;;
fail) exit 1 ;;
wait)	# (wait returns at once on a trapped signal; the sleep is ended at exit)
	sleep 600 &
	defer kill "$!"
	wait "$!"
	echo "not killed"; exit 3 ;;
esac'
# every child reads the values drv_env_init exported, not net.config
child_env=(UG_TOP="$UG_TOP" NET_CONFIG=/dev/null UDPGSO_BIN="$UDPGSO_BIN")
tmp=$DRV_TMP/envtest
mkdir -p "$tmp"

# ---- bad input -----------------------------------------------------------------
# bad NAME RC PATTERN [WRAPPER... --] ENV...: the child (mode init) under
# env ENV exits RC; RC 1: one stderr line matching PATTERN, no stdout; RC 4:
# a KTAP skip line matching PATTERN on stdout.  Nothing changed, no
# temporary directory left.
bad() {
	local name=$1 want=$2 pat=$3 rc lines wrap=()
	shift 3
	if [ "${1:-}" = unshare ]; then
		while [ "$1" != -- ]; do wrap+=("$1"); shift; done
		shift
	fi
	# env: the -u options first, then our variables, then the case's
	local unset=() set=()
	while [ $# -gt 0 ]; do
		if [ "$1" = -u ]; then unset+=(-u "$2"); shift 2; else set+=("$1"); shift; fi
	done
	rm -rf "$tmp/t" && mkdir "$tmp/t"
	"${wrap[@]}" env "${unset[@]}" "${child_env[@]}" TMPDIR="$tmp/t" "${set[@]}" \
		bash -c "$CHILD" env.sh init \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" != "$want" ]; then
		ktap_fail "bad input: $name" "exit $rc, want $want: $(head -n1 "$tmp/err")"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 6
		return
	fi
	if [ "$want" = 1 ] && { [ "$lines" != 1 ] || [ -s "$tmp/out" ] ||
				! grep -qE -- "$pat" "$tmp/err"; }; then
		ktap_fail "bad input: $name" "want one line matching '$pat'"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 6
		return
	fi
	if [ "$want" = 4 ] && ! grep -qE -- "$pat" "$tmp/out"; then
		ktap_fail "bad input: $name" "no skip line matching '$pat'"
		return
	fi
	if [ -n "$(ls -A "$tmp/t")" ]; then
		ktap_fail "bad input: $name" "a temporary file was left: $(ls -A "$tmp/t" | head -n1)"
		return
	fi
	ktap_ok "bad input: $name: $(cat "$tmp/err" "$tmp/out" | head -n1)"
}

f=${DRV_FAMILIES%% *}
lv=LOCAL_V$f rv=REMOTE_V$f
if [ "$f" = 4 ]; then nowhere=192.0.2.77 notaddr=300.1.2.3; else nowhere=2001:db8::77 notaddr=fd00::zz; fi
U=(-u NETIF -u REMOTE_TYPE -u REMOTE_ARGS -u LOCAL_V4 -u LOCAL_V6 -u REMOTE_V4 -u REMOTE_V6)

# (both hosts' snapshots are compared once after all of them: below)
if part bad; then
	bad "NETIF missing" 4 'SKIP NETIF is not set' "${U[@]}"
	if [ "$QUICK" = 0 ]; then
		bad "REMOTE_* without NETIF" 1 'REMOTE_\* given without NETIF' -u NETIF
		bad "NETIF no such device" 1 'NETIF=ugnosuch0: no such device' NETIF=ugnosuch0
		bad "NETIF not a name" 1 "NETIF='a/b': not a device name" NETIF=a/b
		bad "NETIF down" 1 'NETIF=lo is down' unshare -n -- NETIF=lo
		bad "REMOTE_TYPE missing" 1 'REMOTE_TYPE is not set: allowed netns, ssh' -u REMOTE_TYPE
		bad "REMOTE_TYPE bad" 1 'REMOTE_TYPE=telnet: allowed netns, ssh' REMOTE_TYPE=telnet
		bad "REMOTE_ARGS missing" 1 'REMOTE_ARGS is not set' -u REMOTE_ARGS
		bad "$rv missing" 1 "$lv=.* given without $rv" -u "$rv"
		bad "$lv missing" 1 "$rv=.* given without $lv" -u "$lv"
		bad "$rv not an address" 1 "$rv='$notaddr': not an IPv$f address" "$rv=$notaddr"
		bad "$lv on no device" 1 "$lv=$nowhere is not an address of NETIF" "$lv=$nowhere"
		if [ "$f" = 4 ]; then
			bad "$lv on another device" 1 "$lv=127.0.0.1 is on lo, not an address of NETIF" "$lv=127.0.0.1"
		fi
	fi
	bad "$rv on no remote device" 1 "$rv=$nowhere: no device on the remote" "$rv=$nowhere"
	bad "netns remote missing" 1 'REMOTE_ARGS=ugnosuchns: no such network namespace' \
		REMOTE_TYPE=netns REMOTE_ARGS=ugnosuchns
	if command -v ssh >/dev/null 2>&1; then
		# a closed port on our own address, a proxy that never speaks: no
		# packet leaves this host
		bad "ssh refused" 1 "ssh does not answer" REMOTE_TYPE=ssh \
			REMOTE_ARGS="-F /dev/null -o UserKnownHostsFile=/dev/null -p 1 root@$(drv_addr local "$f")"
		bad "ssh silent" 1 "ssh does not answer" REMOTE_TYPE=ssh \
			REMOTE_ARGS="-F /dev/null -o 'ProxyCommand=sleep 30' root@ugdrv.invalid"
	else
		ktap_skip "bad input: ssh that does not answer" "no ssh (openssh-client)"
	fi
	if [ "$QUICK" = 0 ]; then
		printf 'NETIF=ugcfg0  # from the file\n' >"$tmp/prio.config"
		bad "net.config over the environment" 1 'NETIF=ugcfg0: no such device' NET_CONFIG="$tmp/prio.config"
		printf 'NETIF=%s BOGUS=1\n' "$NETIF" >"$tmp/key.config"
		bad "net.config unknown key" 1 "unknown key 'BOGUS'" NET_CONFIG="$tmp/key.config"
		printf 'REMOTE_ARGS="unterminated\n' >"$tmp/quote.config"
		bad "net.config quoting" 1 'quote.config:1: No closing quotation' NET_CONFIG="$tmp/quote.config"
		printf 'NETIF\n' >"$tmp/word.config"
		bad "net.config not KEY=VALUE" 1 "'NETIF' is not KEY=VALUE" NET_CONFIG="$tmp/word.config"
		bad "net.config missing" 1 'NET_CONFIG=/nonexistent/net.config: no such readable file' \
			NET_CONFIG=/nonexistent/net.config
	fi
	if same_as_base "bad input"; then
		ktap_ok "bad input: both hosts' settings as before"
	else
		ktap_fail "bad input: both hosts' settings as before"
	fi
fi

# ---- features the device lacks ---------------------------------------------------
feat_lacks() {	# SIDE
	local side=$1 dev why rc fx
	dev=$(drv_dev "$side")
	why=$(drv_feat "$side" "$dev" ug-no-such-feature on)
	rc=$?
	if [ "$rc" = 4 ] && [[ "$why" == *"has no feature ug-no-such-feature"* ]]; then
		ktap_ok "feature lacking: $side $dev: skip 4: $why"
	else
		ktap_fail "feature lacking: $side $dev" "rc $rc, '$why'"
	fi
	# a [fixed] feature asked the other way
	fx=$(_drv_side "$side" ethtool -k "$dev" </dev/null |
		awk -F': ' '/\[fixed\]/ { sub(/^\t/, "", $1); split($2, v, " "); print $1, v[1]; exit }')
	if [ -z "$fx" ]; then
		ktap_skip "feature fixed: $side $dev" "$dev has no [fixed] feature"
		return
	fi
	set -- $fx
	why=$(drv_feat "$side" "$dev" "$1" "$([ "$2" = on ] && echo off || echo on)")
	rc=$?
	if [ "$rc" = 4 ] && [[ "$why" == *"[fixed]"* ]]; then
		ktap_ok "feature fixed: $side $dev: skip 4: $why"
	else
		ktap_fail "feature fixed: $side $dev $1" "rc $rc, '$why'"
	fi
}
if part features; then
	feat_lacks local
	feat_lacks remote
	why=$(drv_feat local "$DRV_LIF" gro maybe)
	rc=$?
	if [ "$rc" = 1 ] && [[ "$why" == *"allowed on, off"* ]]; then
		ktap_ok "feature value bad: $why"
	else
		ktap_fail "feature value bad" "rc $rc, '$why'"
	fi
	if same_as_base features; then ktap_ok "features: nothing changed"; else ktap_fail "features: nothing changed"; fi
fi

# ---- the helpers -----------------------------------------------------------------
if part helpers; then
	out=$(printf 'one\ntwo\n' | drv_remote cat)
	if [ "$out" = "$(printf 'one\ntwo')" ]; then
		ktap_ok "drv_remote: stdin and stdout pass through"
	else
		ktap_fail "drv_remote: stdin and stdout pass through" "got '$out'"
	fi
	drv_remote sh -c 'exit 3' </dev/null
	rc=$?
	if [ "$rc" = 3 ]; then ktap_ok "drv_remote: exit status"; else ktap_fail "drv_remote: exit status" "3 came back as $rc"; fi
	if [ "$(drv_remote cat "/sys/class/net/$DRV_RIF/address" </dev/null)" = "$DRV_RMAC" ] &&
	   [ "$DRV_RMAC" != "$DRV_LMAC" ]; then
		ktap_ok "remote device $DRV_RIF ($DRV_RMAC), local $DRV_LIF ($DRV_LMAC), families $DRV_FAMILIES"
	else
		ktap_fail "remote device $DRV_RIF" "MAC '$DRV_RMAC' not the remote's, or the local one"
	fi
	if p=$(drv_deploy "$DRV_SNAP") && drv_remote cat "$p" </dev/null | cmp -s - "$DRV_SNAP"; then
		ktap_ok "drv_deploy: $DRV_REMOTE_TYPE: $p"
	else
		ktap_fail "drv_deploy: $DRV_REMOTE_TYPE" "the remote's copy differs"
	fi

	# K GSO sends of 4 segments from here to the remote's discard port (no
	# receiver: port unreachable at most), per family
	gso_sends() {
		local f
		for f in $DRV_FAMILIES; do
			for _ in $(seq "$1"); do
				"$UDPGSO_BIN/udpgso_wire" send -"$f" -S "$(drv_addr local "$f")" \
					-D "$(drv_addr remote "$f")" -p 9 -s 4000 -M 1000 \
					--no-capture >/dev/null || return 1
			done
		done
	}
	# sysfs VAR FILE: a counter's value from drv_counters output
	sysfs() { awk -v k="$1" '$1 == "sysfs" && $2 == k { print $3 }' "$2"; }
	K=5
	drv_counters local "$DRV_LIF" >"$tmp/cl0"
	drv_counters remote "$DRV_RIF" >"$tmp/cr0"
	stats=1
	for side in local remote; do
		drv_stats_begin "$side" >/dev/null || { stats=0; why_stats=$DRV_STATS_WHY; }
	done
	if ! gso_sends "$K"; then
		ktap_fail "GSO sends" "udpgso_wire UDP_SEGMENT send failed"
	fi
	sleep 0.5
	drv_counters local "$DRV_LIF" >"$tmp/cl1"
	drv_counters remote "$DRV_RIF" >"$tmp/cr1"
	# (a device that segments counts segments, one that does not (veth) sends)
	n=$((K * $(echo "$DRV_FAMILIES" | wc -w)))
	dl=$(( $(sysfs tx_packets "$tmp/cl1") - $(sysfs tx_packets "$tmp/cl0") ))
	dr=$(( $(sysfs rx_packets "$tmp/cr1") - $(sysfs rx_packets "$tmp/cr0") ))
	if [ "$dl" -ge "$n" ] && [ "$dr" -ge "$n" ]; then
		ktap_ok "drv_counters: $n GSO sends: local $DRV_LIF tx_packets +$dl, remote $DRV_RIF rx_packets +$dr"
	else
		ktap_fail "drv_counters" "$n GSO sends: local tx_packets +$dl, remote rx_packets +$dr"
	fi
	if [ "$stats" = 1 ]; then
		{ drv_stats_end local; drv_stats_end remote; } >"$tmp/stats"
		sed 's/^/# /' "$tmp/stats" | grep -E 'counters|gso_udp_l4|rx_skbs|tx_skbs'
		lt=$(awk '$1 == "local.tx_gso_udp_l4_skbs" { print $2 }' "$tmp/stats")
		rt=$(awk '$1 == "remote.tx_gso_udp_l4_skbs" { print $2 }' "$tmp/stats")
		if [ -n "$lt" ] && [ -n "$rt" ] && [ "$lt" -ge "$n" ] && [ "$rt" -lt "$n" ]; then
			ktap_ok "drv_stats: $n GSO sends counted on the local side ($lt), not the remote ($rt)"
		else
			ktap_fail "drv_stats: $n GSO sends" "local.tx_gso_udp_l4_skbs '$lt', remote '$rt'"
		fi
	else
		for side in local remote; do drv_stats_end "$side" >/dev/null 2>&1; done
		ktap_skip "drv_stats: per-skb counters on both sides" "$why_stats"
	fi
	# drv_stats_keep: one serve for several cases, its counts reset per case
	# (the sends of one case not counted in the next), one killed replaced
	if [ "$stats" = 1 ]; then
		drv_stats_keep
		kept() {	# SENDS VAR: VAR="PID COUNT" of the local side over SENDS sends
			# per family (begin in this shell, as a case does)
			drv_stats_begin local >/dev/null || return 1
			[ "$1" = 0 ] || gso_sends "$1" || return 1
			drv_stats_end local >"$tmp/kept"
			printf -v "$2" '%s %s' "${_drv_st_pid[local]}" \
				"$(awk '$1 == "local.tx_gso_udp_l4_skbs" { print $2 }' "$tmp/kept")"
		}
		r1= r2= r3=
		kept 3 r1 && kept 0 r2 && p2=${r2% *} && kill "$p2" && sleep 0.5 && kept 1 r3
		nf=$(echo "$DRV_FAMILIES" | wc -w)
		if [ -n "${r3:-}" ] && [ "${r1% *}" = "$p2" ] && [ "${r1#* }" -ge $((3 * nf)) ] &&
		   [ "${r2#* }" = 0 ] && [ "${r3% *}" != "$p2" ] && [ "${r3#* }" -ge "$nf" ]; then
			ktap_ok "drv_stats_keep: one serve for two cases (${r1#* } GSO skbs, then ${r2#* }), a killed one replaced (${r3#* })"
		else
			ktap_fail "drv_stats_keep" "pid and count per case: '${r1:-}', '${r2:-}', then after the kill '${r3:-}'"
		fi
		_drv_st_close local kill
		_drv_st_keep=0
	fi
fi

# ---- restore after success, failure, kill --------------------------------------------
# a free feature of each side's device, to flip: "NAME=VALUE" (the other value)
flip_of() {	# SIDE
	local dev st c
	dev=$(drv_dev "$1")
	for c in rx-gro-list rx-udp-gro-forwarding gro tx-udp-segmentation gso tso; do
		st=$(_drv_feat_state "$1" "$dev" "$c") || continue
		[ "${st#* }" = free ] || continue
		if [ "${st%% *}" = on ]; then echo "$c=off"; else echo "$c=on"; fi
		return 0
	done
	return 1
}
T_LFEATS=$(flip_of local) T_RFEATS=$(flip_of remote)
export T_LFEATS T_RFEATS
# run_child NAME MODE SIG WANT: the child changes T_LFEATS/T_RFEATS, then ends
# as MODE says (or is sent SIG once it said "changed"), with status WANT; both hosts after it
# must be as before, and they must have differed while it ran
run_child() {
	local name=$1 mode=$2 sig=${3:-} want=$4 pid rc i mid=
	# (a background job ignores SIGINT unless told otherwise)
	env --default-signal=INT "${child_env[@]}" bash -c "$CHILD" env.sh "$mode" \
		>"$tmp/out" 2>"$tmp/err" </dev/null &
	pid=$!
	# (its set-up may take a minute over ssh on a loaded machine)
	for ((i = 0; i < 3000; i++)); do
		grep -q '^changed$' "$tmp/out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -n "$sig" ] && grep -q '^changed$' "$tmp/out"; then
		[ "$(snap_both)" != "$base" ] && mid=changed
		kill -"$sig" "$pid"
	fi
	wait "$pid"
	rc=$?
	if ! grep -q '^changed$' "$tmp/out"; then
		ktap_fail "restore after $name" "the child changed nothing (exit $rc)"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 5
	elif [ -n "$sig" ] && [ "$rc" != "$want" ]; then
		ktap_fail "restore after $name" "exit $rc, want $want (killed by SIG$sig)"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 5
	elif [ -z "$sig" ] && [ "$rc" != "$want" ]; then
		ktap_fail "restore after $name" "exit $rc, want $want"
	elif [ -n "$sig" ] && [ -z "$mid" ]; then
		ktap_fail "restore after $name" "the snapshot while it ran showed no change"
	elif ! same_as_base "$name"; then
		ktap_fail "restore after $name" "exit $rc, settings left changed"
	else
		ktap_ok "restore after $name (exit $rc; $T_LFEATS here, $T_RFEATS on the remote)"
	fi
}
if part restore; then
	if [ -z "$T_LFEATS" ] || [ -z "$T_RFEATS" ]; then
		ktap_skip "restore after success, failure, kill" "no settable feature on $DRV_LIF or $DRV_RIF"
	else
		run_child success ok "" 0
		[ "$QUICK" = 1 ] || run_child failure fail "" 1
		for ((i = 0; i < KILLS; i++)); do
			if ((i % 2)); then
				run_child "SIGINT mid-case" wait INT 130
			else
				run_child "SIGTERM mid-case" wait TERM 143
			fi
		done
	fi
fi
ktap_finish
