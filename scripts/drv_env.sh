# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the device suite's environment (the kernel's NetDrvEpEnv of
# tools/testing/selftests/drivers/net/lib/py/env.py, in shell).  Source it
# after scripts/lib.sh, then call drv_env_init in the case file's own shell.
#
# Variables (from the environment, or KEY=VALUE tokens, shell-lexed, one or
# more a line, '#' comments, in a net.config file that overrides the
# environment: $NET_CONFIG if set, else net.config in the repository's top,
# else device/net.config):
#   NETIF        the local device under test
#   LOCAL_V4/6   its addresses (a family is used when LOCAL_ and REMOTE_ both
#   REMOTE_V4/6  are given); REMOTE_V4/6 name the remote's device
#   REMOTE_TYPE  netns | ssh
#   REMOTE_ARGS  netns: the namespace's name; ssh: destination and options
#                (shell-lexed, e.g. "-p 2222 -i KEY root@10.0.0.2")
# No NETIF: the case file skips as a whole (exit 4) with the reason.  A bad
# value: one line naming it and what is allowed, exit 1, nothing changed.
# DRV_SSH_TIMEOUT (environment only; default 20): seconds the first ssh
# `true` may take (a slow remote, e.g. a TCG guest under load, needs more).
#
# Functions (all drv_*):
#   drv_env_init              load, validate, resolve, warm up, snapshot both
#                             hosts, defer the restore of both (exit, kill)
#   drv_remote CMD...         CMD on the remote; stdin/stdout pass through
#   drv_deploy FILE           FILE's path usable on the remote
#   drv_tool NAME             drv_deploy of $UDPGSO_BIN/NAME
#   drv_feat SIDE DEV FEATURE on|off   ethtool -K, checked (4 + reason: no
#                             such feature or [fixed]; 1 + reason: not taken)
#   drv_feat_get SIDE DEV FEATURE       prints on|off (1: no such feature)
#   drv_counters SIDE DEV     snapshot.sh counters of DEV on SIDE
#   drv_stats_begin SIDE / drv_stats_end SIDE   per-skb counters of the
#                             side's device (kmod where loaded, else BPF);
#                             begin in the case's shell, end also in $(...)
#   drv_stats_keep            from now on one `udpgso_stats serve` per side
#                             for the whole case file (its BPF programs load
#                             once: seconds to a minute each under TCG):
#                             begin resets its counters, end reads them
#   drv_restore_now           both hosts back to the snapshot (between cases)
#   drv_addr local|remote 4|6, drv_dev local|remote, drv_ksft_skip_all REASON
#   drv_ms                    milliseconds now (for a case's elapsed times);
#   drv_secs MS0 [MS1]        MS1 (default now) - MS0 in seconds, "12.3"
# Sets: DRV_LIF (=NETIF), DRV_RIF (remote device), DRV_LMAC, DRV_RMAC,
# DRV_FAMILIES ("4 6", "4" or "6"), DRV_REMOTE_TYPE, DRV_TMP (local temp
# directory, removed at exit), DRV_SAME_KERNEL (1: remote runs on this
# kernel, e.g. a netns).
# shellcheck shell=bash

DRV_SNAP=$UG_TOP/scripts/snapshot.sh
DRV_KEYS="NETIF LOCAL_V4 LOCAL_V6 REMOTE_V4 REMOTE_V6 REMOTE_TYPE REMOTE_ARGS"
# keys of the kernel's net.config that this suite does not use: accepted
DRV_KEYS_IGNORED="LOCAL_PREFIX_V6 LOCAL_PREFIX_V4"
DRV_KMOD_DIR=/sys/kernel/debug/udpgso_stats

_drv_die() { ug_die "$*"; }

drv_ms() { local t=${EPOCHREALTIME/[.,]/}; echo "${t:0:-3}"; }
drv_secs() {
	local d=$(( ${2:-$(drv_ms)} - $1 ))
	printf '%d.%d\n' "$((d / 1000))" "$((d % 1000 / 100))"
}

# drv_ksft_skip_all REASON: the whole case file skips (KTAP), exit 4
drv_ksft_skip_all() {
	if [ -z "${_ktap_planned+x}" ]; then
		echo "TAP version 13"
		echo "1..0 # SKIP $*"
		exit "$KSFT_SKIP"
	fi
	ktap_skip "${ug_prog%.sh}" "$*"
	ktap_finish
}

# the config file: the first of $NET_CONFIG, TOP/net.config, TOP/device/net.config
drv_config_file() {
	if [ -n "${NET_CONFIG:-}" ]; then
		echo "$NET_CONFIG"
	elif [ -f "$UG_TOP/net.config" ]; then
		echo "$UG_TOP/net.config"
	elif [ -f "$UG_TOP/device/net.config" ]; then
		echo "$UG_TOP/device/net.config"
	fi
}

# shell-lexed words on stdout, NUL-terminated; 1 with one line on stderr
# when the text does not lex (an unterminated quote)
_drv_lex() {
	python3 "$UG_TOP/scripts/drv_config.py" lex "$1"
}

# load net.config into the environment (it overrides it)
_drv_load_config() {
	local f tok key val err lineno=0 line
	f=$(drv_config_file)
	[ -n "$f" ] || return 0
	[ -r "$f" ] || _drv_die "NET_CONFIG=$f: no such readable file"
	DRV_CONFIG=$f
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		local words=()
		err=$(_drv_lex "$line" 2>&1 >/dev/null) ||
			_drv_die "$f:$lineno: $err (allowed: KEY=VALUE, shell quoting)"
		mapfile -d '' words < <(_drv_lex "$line")
		for tok in "${words[@]}"; do
			case "$tok" in
			*=*) key=${tok%%=*} val=${tok#*=} ;;
			*) _drv_die "$f:$lineno: '$tok' is not KEY=VALUE (keys: ${DRV_KEYS// /, })" ;;
			esac
			case " $DRV_KEYS " in
			*" $key "*) export "$key=$val" ;;
			*)
				case " $DRV_KEYS_IGNORED " in
				*" $key "*) ;;
				*) _drv_die "$f:$lineno: unknown key '$key' (allowed: ${DRV_KEYS// /, })" ;;
				esac ;;
			esac
		done
	done <"$f"
}

_drv_is_v4() {
	[[ "$1" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || return 1
	local o
	for o in ${1//./ }; do [ "$((10#$o))" -le 255 ] || return 1; done
}
_drv_is_v6() {
	python3 "$UG_TOP/scripts/drv_config.py" v6 "$1" 2>/dev/null
}

# the device (in the current namespace) holding address $1 of family $2
_drv_dev_of_addr() {
	ip -o "-$2" addr show 2>/dev/null |
		awk -v a="$1" '{ split($4, p, "/"); if (p[1] == a) { print $2; exit } }'
}

# 0 when the device is administratively up and has a carrier
_drv_dev_up() {
	local fl
	fl=$(ip -o link show dev "$1" 2>/dev/null) || return 1
	[[ "$fl" =~ [\<,]UP[,\>] ]] || return 1
	case "$fl" in *NO-CARRIER*) return 1 ;; esac
	return 0
}

# ---- the remote ---------------------------------------------------------------
_drv_rargs=() _drv_ssh_opts=()
# drv_remote CMD...: run CMD on the remote, stdin and stdout passed through
drv_remote() {
	case "$DRV_REMOTE_TYPE" in
	netns) ip netns exec "$REMOTE_ARGS" "$@" ;;
	ssh) ssh "${_drv_ssh_opts[@]}" "${_drv_rargs[@]}" -- "$(printf '%q ' "$@")" ;;
	esac
}
# _drv_rsnap VERB ARGS...: snapshot.sh on the remote (piped with bash -s
# over ssh, as udpgso_ab.sh does)
_drv_rsnap() {
	case "$DRV_REMOTE_TYPE" in
	netns) ip netns exec "$REMOTE_ARGS" bash "$DRV_SNAP" "$@" ;;
	ssh) ssh "${_drv_ssh_opts[@]}" "${_drv_rargs[@]}" -- "bash -s -- $(printf '%q ' "$@")" <"$DRV_SNAP" ;;
	esac
}
# _drv_side SIDE CMD...: CMD here (local) or on the remote
_drv_side() {
	local side=$1
	shift
	case "$side" in
	local) "$@" ;;
	remote) drv_remote "$@" ;;
	*) echo "side '$side': allowed local, remote"; return 1 ;;
	esac
}

# _drv_side_exec SIDE CMD...: _drv_side, replacing the shell (in a subshell
# of a background job: its pid is then CMD's, or ssh's)
_drv_side_exec() {
	local side=$1
	shift
	case "$side:$DRV_REMOTE_TYPE" in
	local:*) exec "$@" ;;
	remote:netns) exec ip netns exec "$REMOTE_ARGS" "$@" ;;
	remote:ssh) exec ssh "${_drv_ssh_opts[@]}" "${_drv_rargs[@]}" -- "$(printf '%q ' "$@")" ;;
	esac
}

# drv_deploy FILE: a path of FILE on the remote (netns: FILE itself; ssh:
# copied into the remote temporary directory drv_env_init made, removed at
# exit; once: the copies are listed in $DRV_TMP/deployed, so that a call in
# $(...) counts too)
drv_deploy() {
	local f=$1 abs dst
	[ -r "$f" ] || { echo "drv_deploy: no file $f" >&2; return 1; }
	abs=$(readlink -f "$f")
	if [ "$DRV_REMOTE_TYPE" = netns ]; then
		echo "$abs"
		return 0
	fi
	dst=$(awk -F '\t' -v f="$abs" '$1 == f { print $2; exit }' "$DRV_TMP/deployed" 2>/dev/null)
	if [ -z "$dst" ]; then
		dst=$DRV_RDIR/${abs##*/}
		drv_remote sh -c 'cat >"$1" && chmod "$2" "$1"' _ "$dst" "$(stat -c %a "$abs")" \
			<"$abs" || { echo "drv_deploy: copy of $abs to the remote failed" >&2; return 1; }
		printf '%s\t%s\n' "$abs" "$dst" >>"$DRV_TMP/deployed"
	fi
	echo "$dst"
}
# drv_tool NAME: one of the project's built tools, usable on the remote
drv_tool() { drv_deploy "$UDPGSO_BIN/$1"; }

# drv_addr local|remote 4|6, drv_dev local|remote
drv_addr() {
	local v
	case "$1:$2" in
	local:4) v=${LOCAL_V4:-} ;; local:6) v=${LOCAL_V6:-} ;;
	remote:4) v=${REMOTE_V4:-} ;; remote:6) v=${REMOTE_V6:-} ;;
	*) echo "drv_addr '$1' '$2': allowed local|remote 4|6" >&2; return 1 ;;
	esac
	[ -n "$v" ] || return 1
	echo "$v"
}
drv_dev() {
	case "$1" in
	local) echo "$DRV_LIF" ;; remote) echo "$DRV_RIF" ;;
	*) echo "drv_dev '$1': allowed local, remote" >&2; return 1 ;;
	esac
}

# ---- features -------------------------------------------------------------------
# ethtool -k labels and the names ethtool -K takes for them
_drv_feat_name() {
	case "$1" in
	rx-checksumming) echo rx ;; tx-checksumming) echo tx ;;
	scatter-gather) echo sg ;; tcp-segmentation-offload) echo tso ;;
	generic-segmentation-offload) echo gso ;; generic-receive-offload) echo gro ;;
	large-receive-offload) echo lro ;; rx-vlan-offload) echo rxvlan ;;
	tx-vlan-offload) echo txvlan ;; ntuple-filters) echo ntuple ;;
	receive-hashing) echo rxhash ;; *) echo "$1" ;;
	esac
}
# _drv_feat_state SIDE DEV FEATURE: "on|off fixed|free", 1 when the device
# does not list it (label or ethtool -K name)
_drv_feat_state() {
	local side=$1 dev=$2 want
	want=$(_drv_feat_name "$3")
	_drv_side "$side" ethtool -k "$dev" </dev/null 2>/dev/null | awk -v w="$want" '
		BEGIN {
			lg["rx-checksumming"] = "rx"; lg["tx-checksumming"] = "tx"
			lg["scatter-gather"] = "sg"; lg["tcp-segmentation-offload"] = "tso"
			lg["generic-segmentation-offload"] = "gso"
			lg["generic-receive-offload"] = "gro"
			lg["large-receive-offload"] = "lro"; lg["rx-vlan-offload"] = "rxvlan"
			lg["tx-vlan-offload"] = "txvlan"; lg["ntuple-filters"] = "ntuple"
			lg["receive-hashing"] = "rxhash"
		}
		NR == 1 { next }
		{
			line = $0; sub(/^\t/, "", line)
			name = line; sub(/:.*/, "", name)
			if (name in lg)
				name = lg[name]
			if (name != w)
				next
			val = line; sub(/^[^:]*: */, "", val)
			fixed = (val ~ /\[fixed\]/); sub(/ .*/, "", val)
			print val, (fixed ? "fixed" : "free"); found = 1; exit
		}
		END { exit !found }'
}
drv_feat_get() {
	local st
	st=$(_drv_feat_state "$@") || return 1
	echo "${st%% *}"
}
# drv_feat SIDE DEV FEATURE on|off: set and check; the reason on stdout when
# it returns 4 (the device has no such feature, or it is [fixed] the other
# way) or 1 (ethtool -K failed or the value did not take)
drv_feat() {
	local side=$1 dev=$2 feat=$3 val=$4 st now
	case "$val" in on | off) ;; *) echo "drv_feat $feat '$val': allowed on, off"; return 1 ;; esac
	st=$(_drv_feat_state "$side" "$dev" "$feat") ||
		{ echo "$side $dev has no feature $feat (ethtool -k $dev)"; return 4; }
	now=${st%% *}
	if [ "$now" = "$val" ]; then return 0; fi
	if [ "${st#* }" = fixed ]; then
		echo "$side $dev: $feat is $now [fixed], cannot be $val"
		return 4
	fi
	_drv_side "$side" ethtool -K "$dev" "$(_drv_feat_name "$feat")" "$val" </dev/null >/dev/null 2>&1
	now=$(drv_feat_get "$side" "$dev" "$feat")
	if [ "$now" != "$val" ]; then
		echo "$side $dev: ethtool -K $feat $val did not take (now $now)"
		return 1
	fi
}

# ---- counters -----------------------------------------------------------------
# drv_counters SIDE DEV: Udp MIB, sysfs, ethtool -S, qstats and IRQ lines of
# DEV (scripts/snapshot.sh counters), on SIDE
drv_counters() {
	local snap
	case "$1" in
	local) bash "$DRV_SNAP" counters "$2" </dev/null ;;
	remote)
		# snapshot.sh finds qstats.py beside itself: deploy both
		snap=$(drv_deploy "$DRV_SNAP") && drv_deploy "$UG_TOP/scripts/qstats.py" >/dev/null &&
			drv_remote bash "$snap" counters "$2" </dev/null ;;
	*) echo "drv_counters side '$1': allowed local, remote" >&2; return 1 ;;
	esac
}

# per-skb counters: the module's debugfs where it is loaded (on one side of
# a kernel: two sides on one kernel share it, the remote then uses BPF), else
# `udpgso_stats serve --filter dev DEV` on that side, from begin to end.
declare -A _drv_st_kind=() _drv_st_base=() _drv_st_in=() _drv_st_out=() _drv_st_pid=()
declare -A _drv_st_filter=() _drv_st_mode=()
_drv_st_keep=0
drv_stats_keep() { _drv_st_keep=1; }
# _drv_st_ask SIDE WORD: one request to SIDE's running serve, its answer's
# lines (up to the '.') on stdout; 1 when no answer came within 20 s
_drv_st_ask() {
	ug_serve_ask "${_drv_st_in[$1]}" "${_drv_st_out[$1]}" "$2" 20
}
# _drv_st_reuse SIDE: a kept serve of SIDE runs; 0 when it answered a
# reset, else it is ended (killed when it runs but does not answer)
_drv_st_reuse() {
	local ans
	[ "$_drv_st_keep" = 1 ] && [ -n "${_drv_st_pid[$1]:-}" ] && [ -n "${_drv_st_in[$1]:-}" ] ||
		return 1
	if kill -0 "${_drv_st_pid[$1]}" 2>/dev/null; then
		if ans=$(_drv_st_ask "$1" reset) && [[ "$ans" != *'# error'* ]]; then
			return 0
		fi
		_drv_st_close "$1" kill
	else
		_drv_st_close "$1"
	fi
	return 1
}
# _drv_st_close SIDE [kill]: the serve of SIDE ended: its pipes closed (its
# EOF), with kill a TERM too (a process started since may hold the pipe: a
# reader that stops reading must not leave the tool running), reaped
_drv_st_close() {
	local fin=${_drv_st_in[$1]:-} fout=${_drv_st_out[$1]:-}
	[ -z "$fin" ] || exec {fin}>&-
	[ -z "$fout" ] || exec {fout}<&-
	if [ -n "${_drv_st_pid[$1]:-}" ]; then
		# (CONT: a stopped one would hold its TERM, and the wait, for ever)
		[ "${2:-}" != kill ] || kill -TERM "${_drv_st_pid[$1]}" 2>/dev/null
		[ "${2:-}" != kill ] || kill -CONT "${_drv_st_pid[$1]}" 2>/dev/null
		wait "${_drv_st_pid[$1]}" 2>/dev/null
	fi
	unset "_drv_st_in[$1]" "_drv_st_out[$1]" "_drv_st_pid[$1]"
}
_drv_st_why() { DRV_STATS_WHY=$1; echo "$1"; }
_drv_kmod_read() { _drv_side "$1" cat "$DRV_KMOD_DIR/counters" </dev/null; }
# _drv_kmod_here SIDE: the module is loaded on that side (debugfs seen)
_drv_kmod_here() {
	[ "$1" = remote ] && [ "$DRV_SAME_KERNEL" = 1 ] && return 1
	_drv_side "$1" test -r "$DRV_KMOD_DIR/counters" </dev/null 2>/dev/null
}
# drv_stats_begin SIDE: start counting on SIDE's device; 4 and the reason
# on stdout when neither the module nor udpgso_stats can count there.  Call
# it in the case's shell, not in $(...) (it keeps the tool's pipes); the
# reason is also in DRV_STATS_WHY
drv_stats_begin() {
	local side=$1 dev st line
	dev=$(drv_dev "$side") || return 1
	if _drv_kmod_here "$side"; then
		_drv_st_kind[$side]=kmod
		_drv_st_filter[$side]=$(_drv_side "$side" cat "$DRV_KMOD_DIR/filter" </dev/null 2>/dev/null)
		_drv_side "$side" sh -c 'echo "dev $2" >"$1/filter"' _ "$DRV_KMOD_DIR" "$dev" </dev/null
		_drv_st_base[$side]=$(_drv_kmod_read "$side")
		return 0
	fi
	DRV_STATS_WHY=
	# drv_stats_keep: the serve of an earlier case, its counters reset
	if _drv_st_reuse "$side"; then
		_drv_st_kind[$side]=${_drv_st_mode[$side]}
		return 0
	fi
	# the pipes of a serve an end in $(...) stopped (the subshell could not
	# forget them): closed here
	[ -z "${_drv_st_pid[$side]:-}" ] || _drv_st_close "$side"
	[ -x "$UDPGSO_BIN/udpgso_stats" ] ||
		{ _drv_st_why "no $UDPGSO_BIN/udpgso_stats (make -C bpf)"; return 4; }
	if [ "$side" = local ]; then
		st=$UDPGSO_BIN/udpgso_stats
	else
		st=$(drv_tool udpgso_stats) ||
			{ _drv_st_why "cannot deploy udpgso_stats to the remote"; return 1; }
	fi
	rm -f "$DRV_TMP/st-$side.in" "$DRV_TMP/st-$side.out"
	mkfifo "$DRV_TMP/st-$side.in" "$DRV_TMP/st-$side.out" || return 1
	# (without the other side's pipe ends: its tool must see EOF; exec, so
	# that the pid is the tool itself, or ssh, whose end is the remote's EOF)
	(
		for fd in "${_drv_st_in[@]}" "${_drv_st_out[@]}"; do exec {fd}>&-; done
		_drv_side_exec "$side" "$st" serve --filter dev "$dev"
	) <"$DRV_TMP/st-$side.in" >"$DRV_TMP/st-$side.out" 2>"$DRV_TMP/st-$side.err" &
	_drv_st_pid[$side]=$!
	defer kill "${_drv_st_pid[$side]}"
	local fin fout
	exec {fin}>"$DRV_TMP/st-$side.in" {fout}<"$DRV_TMP/st-$side.out"
	_drv_st_in[$side]=$fin _drv_st_out[$side]=$fout
	if read -r -t 60 -u "$fout" line && [ "${line%% *}" = ready ]; then
		_drv_st_kind[$side]="bpf ${line#ready }"
		_drv_st_mode[$side]=${_drv_st_kind[$side]}
		return 0
	fi
	exec {fin}>&- {fout}<&-
	unset "_drv_st_in[$side]" "_drv_st_out[$side]"
	wait "${_drv_st_pid[$side]}"
	st=$?
	_drv_st_kind[$side]=
	_drv_st_why "$side udpgso_stats serve: $(head -n1 "$DRV_TMP/st-$side.err")"
	[ "$st" = 4 ] && return 4
	return 1
}
# drv_stats_end SIDE: "SIDE.NAME VALUE" lines (the counts since begin), a
# "# SIDE per-skb counters: SOURCE" line first; ends the counting
drv_stats_end() {
	local side=$1 kind=${_drv_st_kind[$1]:-} line fin fout
	case "$kind" in
	kmod)
		echo "# $side per-skb counters: kmod"
		awk -v s="$side" 'NR == FNR { if (NF == 2) b[$1] = $2; next }
			NF == 2 && $2 ~ /^[0-9]+$/ { print s "." $1, $2 - b[$1] }' \
			<(echo "${_drv_st_base[$side]}") <(_drv_kmod_read "$side")
		_drv_side "$side" sh -c 'echo "${2:-clear}" >"$1/filter"' _ "$DRV_KMOD_DIR" \
			"${_drv_st_filter[$side]}" </dev/null
		;;
	bpf*)
		local ans=()
		mapfile -t ans < <(_drv_st_ask "$side" counters)
		# kept (drv_stats_keep): the serve stays for the next case;
		# else ended before anything is printed
		local one=
		if [ "$_drv_st_keep" = 1 ]; then
			one=" (one serve for the case file, reset per case)"
		else
			_drv_st_close "$side" kill
		fi
		echo "# $side per-skb counters: $kind$one"
		for line in "${ans[@]}"; do
			case "$line" in
			'#'*) echo "# $side $line" ;;
			*) echo "$side.$line" ;;
			esac
		done
		;;
	*) echo "drv_stats_end $side: no drv_stats_begin" >&2; return 1 ;;
	esac
	_drv_st_kind[$side]=
}

# ---- snapshot and restore of both hosts -------------------------------------------
# drv_restore_now: both hosts' settings back to the snapshot of drv_env_init
drv_restore_now() {
	local rc=0
	bash "$DRV_SNAP" restore "$(cat "$DRV_TMP/snap.local")" "$DRV_LIF" </dev/null || rc=1
	_drv_rsnap restore "$(cat "$DRV_TMP/snap.remote")" "$DRV_RIF" </dev/null || rc=1
	return $rc
}
# the deferred restore: tried twice (a restore cut short by a signal says so)
# (DRV_NO_RESTORE=1: none, a knob for scripts/tests/device_test.sh to show
# that device/env.sh's restore cases fail then)
_drv_restore_at_exit() {
	[ "${DRV_NO_RESTORE:-0}" = 1 ] && return 0
	drv_restore_now || drv_restore_now
}

# drv_snap_save local|remote: the snapshot text of that host's device
drv_snap_save() {
	case "$1" in
	local) bash "$DRV_SNAP" save "$DRV_LIF" </dev/null ;;
	remote) _drv_rsnap save "$DRV_RIF" </dev/null ;;
	esac
}

# ---- validation and set-up ---------------------------------------------------------
_drv_validate() {
	local v f why dev
	if [ -z "${NETIF:-}" ]; then
		if [ -n "${REMOTE_TYPE:-}${REMOTE_ARGS:-}${REMOTE_V4:-}${REMOTE_V6:-}" ]; then
			_drv_die "REMOTE_* given without NETIF: set NETIF to the local device under test"
		fi
		drv_ksft_skip_all "NETIF is not set: the device suite needs NETIF, LOCAL_V4/LOCAL_V6," \
			"REMOTE_V4/REMOTE_V6, REMOTE_TYPE, REMOTE_ARGS (environment or net.config;" \
			"docs/device.md)"
	fi
	why=$(ug_need_root) || drv_ksft_skip_all "$why"
	why=$(ug_need_cmd ip ethtool python3 awk) || drv_ksft_skip_all "$why"
	[[ "$NETIF" =~ ^[^/:[:space:]]{1,15}$ ]] ||
		_drv_die "NETIF='$NETIF': not a device name (1..15 characters, no '/', ':' or blanks)"
	[ -e "/sys/class/net/$NETIF" ] ||
		_drv_die "NETIF=$NETIF: no such device here (devices: $(ls /sys/class/net | tr '\n' ' '))"
	_drv_dev_up "$NETIF" ||
		_drv_die "NETIF=$NETIF is down or has no carrier: allowed a device that is up (ip link set $NETIF up)"
	case "${REMOTE_TYPE:-}" in
	netns | ssh) DRV_REMOTE_TYPE=$REMOTE_TYPE ;;
	'') _drv_die "REMOTE_TYPE is not set: allowed netns, ssh" ;;
	*) _drv_die "REMOTE_TYPE=$REMOTE_TYPE: allowed netns, ssh" ;;
	esac
	[ -n "${REMOTE_ARGS:-}" ] ||
		_drv_die "REMOTE_ARGS is not set: allowed a namespace name (netns) or an ssh destination (ssh)"
	DRV_FAMILIES=
	for f in 4 6; do
		local lv=LOCAL_V$f rv=REMOTE_V$f
		if [ -n "${!lv:-}" ] && [ -z "${!rv:-}" ]; then
			_drv_die "$lv=${!lv} given without $rv: allowed both or neither"
		fi
		if [ -z "${!lv:-}" ] && [ -n "${!rv:-}" ]; then
			_drv_die "$rv=${!rv} given without $lv: allowed both or neither"
		fi
		[ -n "${!lv:-}" ] || continue
		for v in "$lv" "$rv"; do
			if [ "$f" = 4 ]; then
				_drv_is_v4 "${!v}" || _drv_die "$v='${!v}': not an IPv4 address"
			else
				_drv_is_v6 "${!v}" || _drv_die "$v='${!v}': not an IPv6 address"
			fi
		done
		dev=$(_drv_dev_of_addr "${!lv}" "$f")
		[ "$dev" = "$NETIF" ] || _drv_die "$lv=${!lv} is ${dev:+on $dev, }not an address of NETIF=$NETIF"
		DRV_FAMILIES+="${DRV_FAMILIES:+ }$f"
	done
	[ -n "$DRV_FAMILIES" ] ||
		_drv_die "no addresses: allowed LOCAL_V4+REMOTE_V4 and/or LOCAL_V6+REMOTE_V6"
	if [ "$DRV_REMOTE_TYPE" = netns ]; then
		ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qxF -- "$REMOTE_ARGS" ||
			_drv_die "REMOTE_ARGS=$REMOTE_ARGS: no such network namespace (REMOTE_TYPE=netns; ip netns list)"
	else
		why=$(ug_need_cmd ssh) || drv_ksft_skip_all "REMOTE_TYPE=ssh $why"
		local err
		err=$(_drv_lex "$REMOTE_ARGS" 2>&1 >/dev/null) ||
			_drv_die "REMOTE_ARGS='$REMOTE_ARGS': $err (allowed: ssh destination and options)"
		mapfile -d '' _drv_rargs < <(_drv_lex "$REMOTE_ARGS")
	fi
}

# the remote answers, and holds REMOTE_V4/6 on one device that is up
_drv_resolve_remote() {
	local f rv dev
	if [ "$DRV_REMOTE_TYPE" = ssh ]; then
		_drv_ssh_opts=(-o BatchMode=yes -o ConnectTimeout=5 -o ServerAliveInterval=5
			-o ServerAliveCountMax=3 -o ControlMaster=auto -o "ControlPath=$DRV_TMP/cm-%C"
			-o ControlPersist=yes)
		local err= rc tmo=${DRV_SSH_TIMEOUT:-20}
		case "$tmo" in '' | 0 | *[!0-9]*)
			_drv_die "DRV_SSH_TIMEOUT='$tmo': allowed a positive number of seconds" ;;
		esac
		# (stderr to a file: the control master that ssh leaves behind keeps
		# what it inherited open, a pipe would never end)
		timeout "$tmo" ssh "${_drv_ssh_opts[@]}" "${_drv_rargs[@]}" -- true </dev/null \
			>/dev/null 2>"$DRV_TMP/ssh.err"
		rc=$?
		if [ "$rc" != 0 ]; then
			# what ssh said, or that `true` took over DRV_SSH_TIMEOUT s (a slow remote shell
			# start counts: every remote command pays it)
			if [ "$rc" = 124 ]; then
				err="no answer to 'true' in $tmo s (DRV_SSH_TIMEOUT)"
			else
				err=$(grep -v '^Warning: Permanently added' "$DRV_TMP/ssh.err" | tail -n 1)
			fi
			_drv_die "REMOTE_ARGS='$REMOTE_ARGS': ssh does not answer (BatchMode, ConnectTimeout 5; ${err:-exit $rc}): allowed a host reachable with keys"
		fi
		defer ssh "${_drv_ssh_opts[@]}" -O exit "${_drv_rargs[@]}"
		DRV_RDIR=$(drv_remote mktemp -d /tmp/ugdrv.XXXXXX </dev/null) ||
			_drv_die "REMOTE_ARGS='$REMOTE_ARGS': no temporary directory on the remote (mktemp -d)"
		defer drv_remote rm -rf "$DRV_RDIR"
	fi
	DRV_RIF=
	for f in $DRV_FAMILIES; do
		rv=REMOTE_V$f
		dev=$(drv_remote ip -o "-$f" addr show </dev/null 2>/dev/null |
			awk -v a="${!rv}" '{ split($4, p, "/"); if (p[1] == a) { print $2; exit } }')
		[ -n "$dev" ] || _drv_die "$rv=${!rv}: no device on the remote ($DRV_REMOTE_TYPE $REMOTE_ARGS) has this address"
		if [ -n "$DRV_RIF" ] && [ "$dev" != "$DRV_RIF" ]; then
			_drv_die "$rv=${!rv} is on the remote's $dev, REMOTE_V4 on $DRV_RIF: allowed one device"
		fi
		DRV_RIF=$dev
	done
	drv_remote ip -o link show dev "$DRV_RIF" </dev/null 2>/dev/null | grep -qE '[<,]UP[,>]' ||
		_drv_die "remote device $DRV_RIF is down: allowed a device that is up"
	DRV_LIF=$NETIF
	read -r DRV_LMAC <"/sys/class/net/$DRV_LIF/address"
	DRV_RMAC=$(drv_remote cat "/sys/class/net/$DRV_RIF/address" </dev/null)
	local lb rb
	lb=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	rb=$(drv_remote cat /proc/sys/kernel/random/boot_id </dev/null 2>/dev/null)
	DRV_SAME_KERNEL=0
	[ -n "$lb" ] && [ "$lb" = "$rb" ] && DRV_SAME_KERNEL=1
	# the routes: traffic to the remote's address leaves through NETIF
	for f in $DRV_FAMILIES; do
		rv=REMOTE_V$f
		dev=$(ip -o "-$f" route get "${!rv}" 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p')
		[ "$dev" = "$DRV_LIF" ] ||
			_drv_die "$rv=${!rv} is routed via ${dev:-nothing}, not NETIF=$DRV_LIF: allowed an address on NETIF's link"
	done
}

# _drv_neigh_ok SIDE DEV ADDR: the neighbour entry of ADDR is resolved
_drv_neigh_ok() {
	_drv_side "$1" ip neigh show to "$3" dev "$2" </dev/null 2>/dev/null |
		grep -qE 'REACHABLE|STALE|DELAY|PROBE|PERMANENT|NOARP'
}
# _drv_poke SIDE ADDR: one UDP datagram to the discard port (bash's
# /dev/udp: no ping needed), which resolves the neighbour
_drv_poke() {
	_drv_side "$1" bash -c 'echo ugdrv >"/dev/udp/$1/9"' _ "$2" </dev/null >/dev/null 2>&1
}
# IPv6 addresses past DAD, then the neighbours resolved both ways per family
# (a datagram each way, the entries checked): no first send of a case meets
# an unresolved neighbour, and the two addresses are proven to reach each other
_drv_warm_up() {
	local f i lv rv ok
	for ((i = 0; i < 30; i++)); do
		[ -z "$(ip -6 addr show dev "$DRV_LIF" tentative 2>/dev/null)" ] &&
			[ -z "$(drv_remote ip -6 addr show dev "$DRV_RIF" tentative </dev/null 2>/dev/null)" ] &&
			break
		sleep 0.1
	done
	for f in $DRV_FAMILIES; do
		lv=LOCAL_V$f rv=REMOTE_V$f ok=0
		for ((i = 0; i < 30; i++)); do
			if ((i % 10 == 0)); then
				_drv_poke local "${!rv}"
				_drv_poke remote "${!lv}"
			fi
			if _drv_neigh_ok local "$DRV_LIF" "${!rv}" &&
			   _drv_neigh_ok remote "$DRV_RIF" "${!lv}"; then
				ok=1
				break
			fi
			sleep 0.1
		done
		[ "$ok" = 1 ] || _drv_die "$rv=${!rv} and $lv=${!lv} do not resolve each other (neighbours of NETIF=$DRV_LIF and the remote's $DRV_RIF): allowed addresses on one link"
	done
}

# drv_env_init: everything above, then the snapshots of both hosts and
# their restore deferred (exit, failure, SIGINT/SIGTERM/SIGHUP)
drv_env_init() {
	_drv_load_config
	_drv_validate
	why=$(ug_need_cmd mktemp timeout) || drv_ksft_skip_all "$why"
	ug_trap_install
	DRV_TMP=$(mktemp -d -t ugdrv.XXXXXX)
	defer rm -rf "$DRV_TMP"
	_drv_resolve_remote
	drv_snap_save local >"$DRV_TMP/snap.local" ||
		_drv_die "snapshot of NETIF=$DRV_LIF failed"
	drv_snap_save remote >"$DRV_TMP/snap.remote" ||
		_drv_die "snapshot of the remote's $DRV_RIF failed"
	defer _drv_restore_at_exit
	_drv_warm_up
	export DRV_LIF DRV_RIF DRV_LMAC DRV_RMAC DRV_FAMILIES DRV_REMOTE_TYPE
}
