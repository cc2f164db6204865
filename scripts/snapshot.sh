#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: snapshot and restore every setting an A/B run may touch.
#
#   snapshot.sh save [DEV...]          print the snapshot (canonical text)
#   snapshot.sh restore SNAPSHOT [DEV...]  put DEVs and sysctls back as in
#                                      SNAPSHOT (the text, not a file name)
#   snapshot.sh check DEV FEATURE...   exit 1 naming the first FEATURE DEV
#                                      does not list in `ethtool -k`
#   snapshot.sh features DEV           its ethtool -k features, one a line
#   snapshot.sh counters DEV           Udp/UdpLite MIB (Udp6 from snmp6), sysfs, ethtool -S,
#                                      per-queue qstats (netlink) and the device's IRQ counts
#   snapshot.sh agent                  answer requests on stdin (see do_agent)
#
# What is recorded: net.core.{r,w}mem_{max,default}; the network namespaces
# and links that exist; per DEV the ethtool -k features, -l channels, -c
# coalescing, -g rings, the qdiscs, RPS/XPS masks and rps_flow_cnt per
# queue, the udp4/udp6 rx-flow-hash fields and the smp_affinity_list of the
# device's IRQs.  Restore only writes what differs from the snapshot.
#
# It is self-contained on purpose: udpgso_ab.sh pipes it to the peer with
# `bash -s` (ssh or another namespace) as well as running it here.
# shellcheck shell=bash
set -u -o pipefail
export LC_ALL=C

# a part of a snapshot whose process was killed (status 128+N) must not pass
# for a device without that setting: save then fails instead of printing a
# snapshot with lines missing (a restore from it would leave them changed).
# Plain failures (ethtool: not supported) are part of the snapshot.
snap_bad=0
chk() { [ "$1" -lt 128 ] || snap_bad=1; }

# the per-queue netlink stats reader beside this file (absent when this
# file is piped to a peer with bash -s: counters then have no qstat lines)
QSTATS=
case "$0" in */snapshot.sh) QSTATS=$(dirname "$0")/qstats.py ;; esac
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

SYSCTLS="net.core.rmem_max net.core.rmem_default net.core.wmem_max net.core.wmem_default"
# features as "feat NAME on|off" (changeable) and "fixed NAME on|off";
# group headers whose members are listed (tx-checksumming, ...) are left
# out: their members carry the state
snap_features() {
	ethtool -k "$1" 2>/dev/null | awk '
		BEGIN {
			# ethtool -k prints a few legacy labels; these are the
			# names ethtool -K accepts for them
			lg["rx-checksumming"] = "rx"
			lg["generic-segmentation-offload"] = "gso"
			lg["generic-receive-offload"] = "gro"
			lg["large-receive-offload"] = "lro"
			lg["rx-vlan-offload"] = "rxvlan"
			lg["tx-vlan-offload"] = "txvlan"
			lg["ntuple-filters"] = "ntuple"
			lg["receive-hashing"] = "rxhash"
		}
		NR == 1 { next }
		{
			line = $0; ind = (substr(line, 1, 1) == "\t")
			sub(/^\t/, "", line)
			name = line; sub(/:.*/, "", name)
			if (name in lg)
				name = lg[name]
			val = line; sub(/^[^:]*: */, "", val)
			fixed = (val ~ /\[fixed\]/); sub(/ .*/, "", val)
			n++; nm[n] = name; vl[n] = val; fx[n] = fixed; in_[n] = ind
		}
		END {
			for (i = 1; i <= n; i++) {
				if (!in_[i] && i < n && in_[i + 1])
					continue	# a group header
				printf "%s %s %s\n", fx[i] ? "fixed" : "feat", nm[i], vl[i]
			}
		}'
}

snap_channels() {
	ethtool -l "$1" 2>/dev/null | awk '
		/^Current hardware settings/ { cur = 1; next }
		cur && /^(RX|TX|Other|Combined):/ {
			k = tolower($1); sub(/:/, "", k); print "channels", k, $2 }'
}

# udp4/udp6 rx-flow-hash as ethtool -N letters
snap_flowhash() {
	local t out
	for t in udp4 udp6; do
		out=$(ethtool -n "$1" rx-flow-hash "$t" 2>/dev/null) || continue
		echo "$out" | awk -v t="$t" '
			/L2DA/ { s = s "m" } /VLAN tag/ { s = s "v" }
			/L3 proto/ { s = s "t" } /IP SA/ { s = s "s" }
			/IP DA/ { s = s "d" } /L4 bytes 0 & 1/ { s = s "f" }
			/L4 bytes 2 & 3/ { s = s "n" }
			END { print "flowhash", t, (s == "" ? "r" : s) }'
	done
}

# the directory of DEV's MSI vectors: its device's, or for a virtio device
# (net/X/device is virtioN) the PCI function's above it
dev_msi_dir() {
	local d=/sys/class/net/$1/device
	if [ -d "$d/msi_irqs" ]; then
		echo "$d/msi_irqs"
	elif [ -d "$d/../msi_irqs" ]; then
		echo "$d/../msi_irqs"
	fi
}

dev_irqs() {
	local d
	d=$(dev_msi_dir "$1")
	{
		if [ -n "$d" ]; then ls "$d"; fi
		awk -v dev="$1" '$NF ~ "^" dev "([-_].*)?$" { sub(/:/, "", $1); print $1 }' \
			/proc/interrupts
	} | sort -un
}

snap_dev() {
	local dev=$1 q f irq irqs v
	if [ ! -e "/sys/class/net/$dev" ]; then
		echo "dev $dev missing"
		return
	fi
	echo "dev $dev"
	snap_features "$dev" | sed "s/^/  /" || chk $?
	snap_channels "$dev" | sed "s/^/  /" || chk $?
	ethtool -c "$dev" 2>/dev/null | tail -n +2 | grep . | sed "s/^/  coalesce /" || chk $?
	ethtool -g "$dev" 2>/dev/null | tail -n +2 | grep . | sed "s/^/  ring /" || chk $?
	tc qdisc show dev "$dev" 2>/dev/null | sed "s/^/  qdisc /" || chk $?
	# (read, not $(cat): no process here that a kill could silence)
	for q in /sys/class/net/"$dev"/queues/*; do
		for f in rps_cpus rps_flow_cnt xps_cpus; do
			if [ -r "$q/$f" ]; then
				read -r v 2>/dev/null <"$q/$f" || v=-
				echo "  queue ${q##*/} $f ${v:--}"
			fi
		done
	done
	snap_flowhash "$dev" | sed "s/^/  /" || chk $?
	irqs=$(dev_irqs "$dev") || chk $?
	for irq in $irqs; do
		read -r v 2>/dev/null <"/proc/irq/$irq/smp_affinity_list" || v=-
		echo "  irq $irq ${v:--}"
	done
}

do_save() {
	local s d v
	snap_bad=0
	for s in $SYSCTLS; do
		read -r v 2>/dev/null <"/proc/sys/${s//.//}" || v=-
		echo "sysctl $s ${v:--}"
	done
	ip netns list 2>/dev/null | awk '{ print "netns", $1 }' | sort || chk $?
	ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print "link", $2 }' |
		sort || chk $?
	for d in "$@"; do snap_dev "$d"; done
	if [ "$snap_bad" = 1 ]; then
		echo "snapshot.sh: a part of the snapshot was killed; snapshot incomplete" >&2
		return 1
	fi
}

# restore SNAP DEV...: write back everything in SNAP that differs now
do_restore() {
	local snap=$1 cur dev key a b c rc=0 feats chans
	shift
	# an incomplete picture of now only means more is written back
	cur=$(do_save "$@" 2>/dev/null) || rc=1
	# sysctls
	while read -r key a b; do
		[ "$key" = sysctl ] || continue
		c=$(echo "$cur" | awk -v s="$a" '$1 == "sysctl" && $2 == s { print $3 }')
		if [ "$b" != - ] && [ "$c" != "$b" ]; then
			sysctl -qw "$a=$b" >/dev/null 2>&1 || rc=1
		fi
	done <<<"$snap"
	for dev in "$@"; do
		[ -e "/sys/class/net/$dev" ] || continue
		# the device's section of both snapshots
		local old new
		old=$(echo "$snap" | awk -v d="$dev" '/^dev /{ on = ($2 == d) } on && /^  / { sub(/^  /, ""); print }')
		new=$(echo "$cur" | awk -v d="$dev" '/^dev /{ on = ($2 == d) } on && /^  / { sub(/^  /, ""); print }')
		# a snapshot without this device's section (its reader was
		# killed) restores nothing: say so, so that the caller retries
		[ -n "$old" ] || { rc=1; continue; }
		# channels first (they may reset queue masks), then features in
		# one ethtool -K call so that dependencies resolve together
		chans=$(diff <(echo "$new" | grep '^channels ') <(echo "$old" | grep '^channels ') |
			awk '/^> / && $4 != "n/a" { printf " %s %s", $3, $4 }')
		if [ -n "$chans" ]; then
			# shellcheck disable=SC2086
			ethtool -L "$dev" $chans >/dev/null 2>&1 || rc=1
			new=$(do_save "$dev" 2>/dev/null | sed -n 's/^  //p') || rc=1
		fi
		feats=$(diff <(echo "$new" | grep '^feat ') <(echo "$old" | grep '^feat ') |
			awk '/^> / { printf " %s %s", $3, $4 }')
		if [ -n "$feats" ]; then
			# shellcheck disable=SC2086
			ethtool -K "$dev" $feats >/dev/null 2>&1 || rc=1
		fi
		while read -r key a b c; do
			case "$key" in
			queue)
				if [ "$c" != - ] && ! echo "$new" | grep -qxF "queue $a $b $c"; then
					echo "$c" >"/sys/class/net/$dev/queues/$a/$b" 2>/dev/null || rc=1
				fi ;;
			flowhash)
				if ! echo "$new" | grep -qxF "flowhash $a $b"; then
					ethtool -N "$dev" rx-flow-hash "$a" "$b" >/dev/null 2>&1 || rc=1
				fi ;;
			irq)
				if [ "$b" != - ] && ! echo "$new" | grep -qxF "irq $a $b"; then
					echo "$b" >"/proc/irq/$a/smp_affinity_list" 2>/dev/null || rc=1
				fi ;;
			esac
		done <<<"$old"
	done
	return $rc
}

do_check() {
	local dev=$1 f have
	shift
	if [ ! -e "/sys/class/net/$dev" ]; then
		echo "device $dev: no such device"
		return 1
	fi
	have=$(snap_features "$dev" | awk '{ print $2 }')
	for f in "$@"; do
		if ! echo "$have" | grep -qxF "$f"; then
			echo "device $dev has no feature $f (see ethtool -k $dev)"
			return 1
		fi
	done
}

# counters DEV: what an A/B run reads around each measurement: the Udp,
# UdpLite and Tcp lines of /proc/net/snmp (what nstat shows; Tcp counts both
# families), the Udp ones' IPv6 twins from
# /proc/net/snmp6, the device's
# statistics from sysfs and its ethtool -S counters
# (shell builtins but for one ethtool: it runs around every measurement)
do_counters() {
	local f l v k
	while read -r l; do
		case "$l" in Udp:* | UdpLite:* | Tcp:*) echo "$l" ;; esac
	done </proc/net/snmp
	# IPv6's Udp6 and UdpLite6 counters, one "NAME VALUE" a line
	while read -r l; do
		case "$l" in Udp6* | UdpLite6*) echo "$l" ;; esac
	done </proc/net/snmp6 2>/dev/null
	for f in rx_packets tx_packets rx_bytes tx_bytes rx_dropped tx_dropped rx_errors tx_errors; do
		v=0
		read -r v 2>/dev/null <"/sys/class/net/$1/statistics/$f"
		echo "sysfs $f $v"
	done
	ethtool -S "$1" 2>/dev/null | {
		read -r l
		while IFS=: read -r k v; do
			k=${k// /} v=${v// /}
			echo "ethtool $k $v"
		done
	}
	# a device with a driver: per-queue packets and bytes from netlink
	# qstats (6.10+ drivers report them there, not in ethtool -S) and its
	# IRQs' counts per CPU from /proc/interrupts
	[ -e "/sys/class/net/$1/device" ] || return 0
	if [ -n "$QSTATS" ] && [ -r "$QSTATS" ]; then
		python3 "$QSTATS" "$1" 2>/dev/null
	fi
	local d irq n name w
	local -A mine=()
	d=$(dev_msi_dir "$1")
	if [ -n "$d" ]; then
		for irq in "$d"/*; do mine[${irq##*/}]=1; done
	fi
	while read -r irq l; do
		irq=${irq%:}
		[ -n "${mine[$irq]:-}" ] || continue
		# "N: c0 c1 ... chip hwirq-type name": the counts, then the name
		read -ra w <<<"$l"
		name=${w[${#w[@]} - 1]}
		n=$NCPU
		echo "irq $irq $name ${w[*]:0:n}"
	done </proc/interrupts
}

# agent: read requests on stdin, answer each followed by a line @@END;
# an A/B run keeps one per side so that reading counters costs no process
# start (and no ssh connection) per run.  Requests: counters DEV,
# features DEV, ethtool ARGS... (prints "rc N"), waitport -u|-t PORT
# (prints ok once a socket is bound/listening there, within 5 s), pkill-int
# PATTERN (SIGINT to the processes whose command line matches PATTERN)
do_agent() {
	local cmd args i a b
	while read -r cmd args; do
		case "$cmd" in
		waitport)
			read -r a b <<<"$args"
			for ((i = 0; i < 250; i++)); do
				if ss -Hln "$a" "sport = :$b" 2>/dev/null | grep -q .; then
					echo ok
					break
				fi
				sleep 0.02
			done ;;
		pkill-int) pkill -INT -f "$args"; echo "rc $?" ;;
		counters) do_counters "$args" ;;
		features) snap_features "$args" ;;
		# shellcheck disable=SC2086
		ethtool) ethtool $args >/dev/null 2>&1; echo "rc $?" ;;
		*) echo "unknown request $cmd" ;;
		esac
		echo "@@END"
	done
}

case "${1:-}" in
save) shift; do_save "$@" ;;
restore) shift; do_restore "$@" ;;
check) shift; do_check "$@" ;;
features) shift; snap_features "$1" ;;
counters) shift; do_counters "$1" ;;
agent) do_agent ;;
-h | --help) awk 'NR > 2 && /^#/ && !/shellcheck/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; exit 0 ;;
*) echo "usage: snapshot.sh save [DEV...] | restore SNAPSHOT [DEV...] | check DEV FEATURE... | features DEV" >&2
   exit 1 ;;
esac
