# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: the device options of scripts/bench/udpgso_ab.sh (sourced by it;
# functions only): --channels, --irq-cpus, --rps and --xps checked against
# what the device and the machine allow, before anything is changed, the
# ethtool -L arguments a device takes (rx/tx, or combined as virtio_net,
# mlx5, ice ... have), and dev_apply: the settings fixed for the whole run.
# shellcheck shell=bash

# cpu_list_mask LIST: the hex mask of a CPU list (0-1,3), up to CPU 63
cpu_list_mask() {
	local r a b m=0 i
	IFS=, read -ra r <<<"$1"
	for a in "${r[@]}"; do
		b=${a#*-} a=${a%-*}
		for ((i = a; i <= b && i < 64; i++)); do m=$((m | (1 << i))); done
	done
	printf '%x\n' "$m"
}

# mask_cpus HEXMASK: the CPU list of a mask (commas between 32-bit words
# allowed, as sysfs prints them), e.g. 5 -> 0,2
mask_cpus() {
	local h=${1//,/} i out=
	h=$(echo "$h" | sed 's/^0*//')
	[ -n "$h" ] || { echo "none"; return; }
	[ ${#h} -le 16 ] || { echo "beyond CPU 63"; return; }
	for ((i = 0; i < 64; i++)); do
		(((0x$h >> i) & 1)) && out+="${out:+,}$i"
	done
	echo "$out"
}

# online_cpus RUNNER: the runner's online CPU list (/sys), e.g. 0-1
online_cpus() { $1 cat /sys/devices/system/cpu/online </dev/null 2>/dev/null; }

# chan_max RUNNER DEV: "rx tx combined" pre-set maximums (0 for n/a)
chan_max() {
	$1 ethtool -l "$2" </dev/null 2>/dev/null | awk '
		/^Pre-set maximums/ { on = 1; next } /^Current/ { on = 0 }
		on && /^(RX|TX|Combined):/ { v[$1] = ($2 ~ /^[0-9]+$/) ? $2 : 0 }
		END { printf "%d %d %d\n", v["RX:"], v["TX:"], v["Combined:"] }'
}

# chan_args RUNNER DEV N: the ethtool -L arguments for N queues on DEV:
# "rx N tx N" where the device has separate rx/tx channels, else
# "combined N"; dies naming DEV's maximum when N is above it or DEV has no
# channels to set
chan_args() {
	local rx tx comb
	read -r rx tx comb <<<"$(chan_max "$1" "$2")"
	if [ "$rx" -gt 0 ] && [ "$tx" -gt 0 ]; then
		[ "$3" -le "$rx" ] && [ "$3" -le "$tx" ] ||
			ug_die "--channels $3: $2 allows rx 1..$rx, tx 1..$tx (ethtool -l $2)"
		echo "rx $3 tx $3"
	elif [ "$comb" -gt 0 ]; then
		[ "$3" -le "$comb" ] ||
			ug_die "--channels $3: $2 allows combined 1..$comb (ethtool -l $2)"
		echo "combined $3"
	else
		ug_die "--channels $3: $2 has no channels to set (ethtool -l $2 lists no maximum)"
	fi
}

# cpus_check OPTION LIST RUNNER WHERE: every CPU of LIST is online there
cpus_check() {
	local on bad= c a b r
	on=$(online_cpus "$3")
	[ -n "$on" ] || return 0
	IFS=, read -ra r <<<"$2"
	for a in "${r[@]}"; do
		b=${a#*-} a=${a%-*}
		[ "$a" -le "$b" ] || ug_die "$1 '$2': range $a-$b is backwards"
		for ((c = a; c <= b; c++)); do
			case ",$(mask_cpus "$(cpu_list_mask "$on")")," in *",$c,"*) ;; *) bad+="${bad:+,}$c" ;; esac
		done
	done
	[ -z "$bad" ] || ug_die "$1 $2: CPU $bad not online on $4, allowed CPUs $on"
}

# mask_check OPTION MASK RUNNER WHERE: MASK names only online CPUs there
mask_check() {
	local on onm h
	on=$(online_cpus "$3")
	[ -n "$on" ] || return 0
	onm=$(cpu_list_mask "$on")
	h=${2//,/}
	h=$(echo "$h" | sed 's/^0*//')
	[ ${#h} -le 16 ] || ug_die "$1 $2: CPUs beyond 63 not online on $4, allowed a mask within $onm (CPUs $on)"
	[ -n "$h" ] || return 0	# 0: RPS/XPS off, always allowed
	(((0x$h & ~0x$onm) == 0)) ||
		ug_die "$1 $2: CPU $(mask_cpus "$(printf '%x' $((0x$h & ~0x$onm)))") not online on $4, allowed a mask within $onm (CPUs $on)"
}

# a throwaway veth pair in a private namespace (the local topology's
# devices before they exist): VL CMD... runs CMD beside it
VL() { unshare -n bash -c 'ip link add ugab0 type veth peer name ugab1 && "$@"' _ "$@"; }

# dev_check TX-RUNNER RX-RUNNER: all device options against the devices
# (dev_tx, dev_rx) and the machines; sets chan_tx and chan_rx (ethtool -L
# arguments).  Only reads.
chan_tx= chan_rx=
dev_check() {
	if [ -n "$channels" ]; then
		chan_tx=$(chan_args "$1" "$dev_tx" "$channels") || exit 1
		chan_rx=$(chan_args "$2" "$dev_rx" "$channels") || exit 1
	fi
	[ -z "$irq_cpus" ] || cpus_check --irq-cpus "$irq_cpus" "$1" "the sending machine"
	[ -z "$rps" ] || mask_check --rps "$rps" "$2" "the receiving machine"
	[ -z "$xps" ] || mask_check --xps "$xps" "$1" "the sending machine"
}

# set_sysctls SIDE-RUNNER: --rmem/--wmem as net.core.{r,w}mem_{max,default}
# (a note when the side cannot write them)
set_sysctls() {
	local r=$1 s v
	for s in rmem wmem; do
		v=${!s}
		[ -n "$v" ] || continue
		if ! $r sysctl -qw "net.core.${s}_max=$v" "net.core.${s}_default=$v" \
			</dev/null >/dev/null 2>&1; then
			notes+=("net.core.${s}_{max,default}: not writable on the $([ "$r" = L ] &&
				echo sending || echo receiving) side (read-only in a child netns on this kernel); left alone")
		fi
	done
}

set_queue_masks() {	# RUNNER DEV KIND(rx|tx) FILE MASK
	local out
	out=$($1 sh -c 'for f in /sys/class/net/$1/queues/$2-*/$3; do echo "$4" >"$f" || exit 1; done' \
		_ "$2" "$3" "$4" "$5" </dev/null 2>&1) ||
		notes+=("$4 $5 on $2: refused ($out)")
}

# dev_apply: the settings fixed for the whole run (after the snapshot, which
# restores them): socket buffer sysctls, channels, the receiver's UDP flow
# hash, RPS/XPS masks, the sender's IRQ affinity; what a device refuses
# becomes a note in run.conf, not an error
dev_apply() {
	local f fh_n irqs q
	set_sysctls L
	set_sysctls R
	if [ -n "$channels" ]; then
		# shellcheck disable=SC2086 # chan_*: ethtool -L arguments (chan_args)
		L ethtool -L "$dev_tx" $chan_tx </dev/null >/dev/null 2>&1 ||
			notes+=("ethtool -L $dev_tx $chan_tx: refused by the device")
		# shellcheck disable=SC2086
		R ethtool -L "$dev_rx" $chan_rx </dev/null >/dev/null 2>&1 ||
			notes+=("ethtool -L $dev_rx $chan_rx: refused by the device")
	fi
	# (udp4, and udp6 for an IPv6 run)
	for f in $families; do
		[ "$flowhash" = 1 ] || break
		if ! R ethtool -N "$dev_rx" rx-flow-hash "udp$f" sdfn </dev/null >/dev/null 2>&1; then
			notes+=("ethtool -N $dev_rx rx-flow-hash udp$f sdfn: not supported by the device")
		else
			# (virtio-net without RSS takes it and then lists no field)
			fh_n=$(R ethtool -n "$dev_rx" rx-flow-hash "udp$f" </dev/null 2>/dev/null |
				grep -c -E 'IP SA|IP DA|L4 bytes [02] & [13]')
			[ "$fh_n" = 4 ] ||
				notes+=("ethtool -N $dev_rx rx-flow-hash udp$f sdfn: accepted, but ethtool -n lists ${fh_n:-0} of its 4 fields (no RSS on the device?)")
		fi
	done
	[ -z "$rps" ] || set_queue_masks R "$dev_rx" rx rps_cpus "$rps"
	[ -z "$xps" ] || set_queue_masks L "$dev_tx" tx xps_cpus "$xps"
	[ -n "$irq_cpus" ] || return 0
	irqs=$(LS save "$dev_tx" | awk '$1 == "irq" { print $2 }')
	if [ -z "$irqs" ]; then
		notes+=("--irq-cpus: $dev_tx has no IRQs of its own (a virtual device); left alone")
		return 0
	fi
	for q in $irqs; do
		echo "$irq_cpus" 2>/dev/null >"/proc/irq/$q/smp_affinity_list" ||
			notes+=("IRQ $q: smp_affinity_list $irq_cpus refused")
	done
	return 0
}
