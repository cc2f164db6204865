# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the address families of scripts/bench/udpgso_ab.sh (sourced by
# it; functions only; they use its settings): --family 4|6|both, the NETIF
# environment's addresses per family as the kernel's NetDrvEpEnv reads them
# (LOCAL_V4/REMOTE_V4, LOCAL_V6/REMOTE_V6: each pair given whole or not at
# all), the peer's address per family, the local veth pair's addresses, and
# the datagram size per family (a 1500-byte MTU holds 1472 bytes of UDP
# payload over IPv4, 1452 over IPv6).
# shellcheck shell=bash

declare -A fam_dst fam_size
FAM_V6_MAX=1452

# fam_sizes SIZE GIVEN(0|1): the datagram size of each family in $families;
# an explicit size above what an IPv6 datagram carries in 1500 bytes dies
# with --family 6 (with both, IPv6 gets 1452: dry-run and run.conf say so)
fam_sizes() {
	local f
	for f in $families; do
		fam_size[$f]=$1
		[ "$f" = 6 ] || continue
		if [ "$1" -gt "$FAM_V6_MAX" ]; then
			# --family both: IPv4 gets SIZE, IPv6 what it can carry
			[ "$2" = 0 ] || [ "$family" = both ] ||
				ug_die "--size $1 with --family $family: allowed 1..$FAM_V6_MAX for IPv6 (a 1500-byte MTU less 48 bytes of IPv6 and UDP headers)"
			fam_size[$f]=$FAM_V6_MAX
		fi
	done
}

fam_is_v4() { [[ "$1" =~ ^[0-9]+(\.[0-9]+){3}$ ]]; }
fam_is_v6() { [[ "$1" =~ ^[0-9A-Fa-f:.]+$ ]] && [[ "$1" == *:* ]]; }

# fam_netif_env: the NETIF environment's addresses for $families, checked
# the way NetDrvEpEnv does (pairs whole), before anything is changed
fam_netif_env() {
	local f lv rv l r
	for f in 4 6; do
		lv=LOCAL_V$f rv=REMOTE_V$f
		l=${!lv:-} r=${!rv:-}
		[ -z "$r" ] || [ -n "$l" ] ||
			ug_die "$rv=$r without $lv: give both addresses of the IPv$f pair (NetDrvEpEnv's rule), or neither"
		[ -z "$l" ] || [ -n "$r" ] ||
			ug_die "$lv=$l without $rv: give both addresses of the IPv$f pair (NetDrvEpEnv's rule), or neither"
		[ -n "$r" ] || continue
		if [ "$f" = 4 ]; then
			fam_is_v4 "$l" || ug_die "$lv '$l': not an IPv4 address"
			fam_is_v4 "$r" || ug_die "$rv '$r': not an IPv4 address"
		else
			fam_is_v6 "$l" || ug_die "$lv '$l': not an IPv6 address"
			fam_is_v6 "$r" || ug_die "$rv '$r': not an IPv6 address"
		fi
	done
	for f in $families; do
		lv=LOCAL_V$f rv=REMOTE_V$f
		[ -n "${!rv:-}" ] ||
			ug_die "NETIF=$NETIF with --family $family needs $lv and $rv (given: $(fam_given))"
		fam_dst[$f]=${!rv}
	done
}

# fam_given: the address variables set, for a message
fam_given() {
	local v out=
	for v in LOCAL_V4 REMOTE_V4 LOCAL_V6 REMOTE_V6; do
		[ -z "${!v:-}" ] || out+="${out:+ }$v"
	done
	echo "${out:-none}"
}

# fam_local_check: LOCAL_Vf is an address of NETIF (for each family run)
fam_local_check() {
	local f lv
	for f in $families; do
		lv=LOCAL_V$f
		ip -o "-$f" addr show dev "$NETIF" 2>/dev/null | grep -qiF " ${!lv}/" ||
			ug_die "$lv=${!lv} is not an address of $NETIF (ip -$f addr show dev $NETIF)"
	done
}

# fam_remote_dev: the peer's device holding REMOTE_Vf, the same one for every
# family run; dies naming the address no device has, or the two devices
fam_remote_dev() {
	local f rv d dev=
	for f in $families; do
		rv=REMOTE_V$f
		d=$(R ip -o "-$f" addr show </dev/null 2>/dev/null |
			awk -v a="${!rv}" '{ split($4, p, "/"); if (tolower(p[1]) == tolower(a)) { print $2; exit } }')
		[ -n "$d" ] || ug_die "$rv=${!rv}: no device on the remote has this address"
		[ -z "$dev" ] || [ "$dev" = "$d" ] ||
			ug_die "REMOTE_V4 is on the remote's $dev, REMOTE_V6 on $d: allowed one device for both"
		dev=$d
	done
	echo "$dev"
}

# fam_local_pair: the veth pair's addresses (IPv6 without duplicate address
# detection, so that they are usable at once)
FAM_PAIR_V4="10.248.0.1 10.248.0.2"
FAM_PAIR_V6="fd00:248::1 fd00:248::2"
fam_local_pair_dst() {
	fam_dst[4]=${FAM_PAIR_V4#* }
	fam_dst[6]=${FAM_PAIR_V6#* }
}
fam_local_pair() {
	ip -n "$ns_tx" addr add "${FAM_PAIR_V4% *}/24" dev "$dev_tx"
	ip -n "$ns_rx" addr add "${FAM_PAIR_V4#* }/24" dev "$dev_rx"
	ip -n "$ns_tx" addr add "${FAM_PAIR_V6% *}/64" dev "$dev_tx" nodad
	ip -n "$ns_rx" addr add "${FAM_PAIR_V6#* }/64" dev "$dev_rx" nodad
}
