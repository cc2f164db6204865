#!/bin/bash
# Run in the guest by device_guest.sh (environment from device_setup.sh,
# REMOTE_TYPE=netns): does a train leave the remote on more than one tx queue
# and reach NETIF out of order?  N trains of one case (default ipv4 max_count,
# UDP_GRO socket, rx-gro-hw on as in the failing case), each alone (--tries 1);
# per train: the checker's verdict and skbs, the remote's tx queue and CPU of
# each frame (tracepoint net:net_dev_start_xmit on the remote device, in send
# order) and the order of the IPv4 IDs NETIF's driver handed to GRO (a kprobe
# event at napi_gro_receive fetching the IP ID at skb->data + 4, offsets of
# struct sk_buff from the kernel's BTF).
# Also (since probe2): NETIF's napi:napi_poll, a kprobe event at napi_gro_flush and a
# kretprobe at napi_gro_receive (its gro_result_t: 0 merged, 1 merged-free, 2 held,
# 3 normal: sent up alone at once); for a train that is not PASS or SKIP, the
# sequence of packets (IP ID - 100, then h held / n normal / m1 merged-free, merged
# unmarked), polls (|P<work>) and flushes (|F<old>) as they came.
# usage: reorder_probe.sh [N [CASE [PIN]]]  (PIN=1: tx role under taskset -c of one CPU)
set -u
N=${1:-100} C=${2:-max_count} PIN=${3:-0}
BIN=$UDPGSO_BIN/udpgso_wire RNS=$REMOTE_ARGS
RIF=$(ip -n "$RNS" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
LMAC=$(cat "/sys/class/net/$NETIF/address")
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T
btfoff() { bpftool btf dump file /sys/kernel/btf/vmlinux format raw |
	awk -v m="'$1'" '/STRUCT .sk_buff. /{f=1;next} f&&/^\[/{exit} f && $1 == m { sub("bits_offset=", "", $3); print $3 / 8 }'; }
OD=$(btfoff data) OL=$(btfoff len)
echo "# kernel $(uname -r) NETIF $NETIF remote $RIF in $RNS; sk_buff data at $OD, len at $OL; case $C, $N trains, tx pinned: $PIN"
ethtool -l "$RIF" 2>/dev/null | sed -n '/Current/,$p' | tr -s ' \t' ' ' | tr '\n' ';'; echo
ip netns exec "$RNS" ethtool -l "$RIF" | sed -n '/Current/,$p' | tr -s ' \t' ' ' | tr '\n' ';'; echo
ip netns exec "$RNS" sh -c "grep . /sys/class/net/$RIF/queues/tx-*/xps_cpus"
ethtool -L "$NETIF" combined 1; ethtool -K "$NETIF" gro on rx-gro-hw on
ip netns exec "$RNS" ethtool -K "$RIF" tso off
echo 20000000 > /sys/class/net/$NETIF/gro_flush_timeout
I=$T/instances/ugreord
mkdir $I
echo global > $I/trace_clock
echo "name == \"$RIF\" && len > 400" > $I/events/net/net_dev_start_xmit/filter
echo 1 > $I/events/net/net_dev_start_xmit/enable
echo "p:ugreord/rxid napi_gro_receive id=+4(+$OD(\$arg2)):u16 len=+$OL(\$arg2):u32" >> $T/kprobe_events
echo 'len > 400' > $I/events/ugreord/rxid/filter
echo 'r:ugreord/rxret napi_gro_receive ret=$retval:s32' >> $T/kprobe_events
echo 'p:ugreord/flush napi_gro_flush napi=$arg1:x64 old=$arg2:u8 j=@jiffies_64:u64' >> $T/kprobe_events
echo 1 > $I/events/ugreord/enable
echo "dev_name == \"$NETIF\"" > $I/events/napi/napi_poll/filter
echo 1 > $I/events/napi/napi_poll/enable
mkfifo /tmp/ugreord.fifo
pin=()
[ "$PIN" = 0 ] || pin=(taskset -c 1)
fail=0 multi=0 ooo=0
for i in $(seq "$N"); do
	echo > $I/trace
	"$BIN" gro --role rx -4 -S "$REMOTE_V4" -D "$LOCAL_V4" -p 9417 --rx-dev "$NETIF" -c "$C" \
		--rx gro --tx-reply --tries 1 </tmp/ugreord.fifo 2>/tmp/ugreord.err |
		ip netns exec "$RNS" "${pin[@]}" "$BIN" gro --role tx -4 -S "$REMOTE_V4" -D "$LOCAL_V4" -p 9417 \
			--tx-dev "$RIF" --dst-mac "$LMAC" -c "$C" >/tmp/ugreord.fifo 2>/dev/null
	out=$(cat /tmp/ugreord.err)
	res=$(echo "$out" | grep -m1 '^PASS\|^FAIL\|^SKIP' | sed 's/ reads.*//')
	tr=$(cat $I/trace)
	# tx: runs of (cpu,queue) in send order; rx: IP IDs - 100 in GRO order, as runs
	txq=$(echo "$tr" | awk '/net_dev_start_xmit:/ { c = $2; q = ""; for (i = 1; i <= NF; i++) if ($i ~ /^queue_mapping=/) q = substr($i, 15)
		k = c "q" q; if (k != last) { if (last != "") printf "%s:%d ", last, n; last = k; n = 0 } n++ }
		END { if (last != "") printf "%s:%d", last, n }')
	rxo=$(echo "$tr" | awk '/rxid:/ { for (i = 1; i <= NF; i++) if ($i ~ /^id=/) { v = substr($i, 4) + 0; v = int(v / 256) + (v % 256) * 256 - 100
		if (v != prev + 1) { if (s != "") printf "%s ", (s == prev ? s : s "-" prev); s = v } prev = v } }
		END { printf "%s", (s == prev ? s : s "-" prev) }' prev=-2 s=)
	nq=$(echo "$txq" | tr ' ' '\n' | sed 's/.*q\([0-9]*\):.*/\1/' | sort -u | grep -c .)
	case "$rxo" in *' '*) o=1 ;; *) o=0 ;; esac
	case "$res" in PASS*) ;; *) fail=$((fail + 1)) ;; esac
	[ "$nq" -le 1 ] || multi=$((multi + 1))
	ooo=$((ooo + o))
	echo "train $i: $res | tx cpu,queue runs: $txq | rx id order: $rxo"
	case "$res" in PASS* | SKIP*) continue ;; esac
	echo "$tr" | awk '
		/rxid:/ { for (i = 1; i <= NF; i++) if ($i ~ /^id=/) { v = substr($i, 4) + 0; v = int(v / 256) + (v % 256) * 256 - 100 }
			  pend[$2] = v; next }
		/rxret:/ { if (!($2 in pend)) next; r = ""; for (i = 1; i <= NF; i++) if ($i ~ /^ret=/) r = substr($i, 5) + 0
			  printf " %d%s", pend[$2], r == 0 ? "" : r == 2 ? "h" : r == 3 ? "n" : "m" r; delete pend[$2]; next }
		/napi_poll:/ { for (i = 1; i <= NF; i++) if ($i == "work") w = $(i + 1); printf " |P%s", w; next }
		/flush:/ { for (i = 1; i <= NF; i++) if ($i ~ /^old=/) o = substr($i, 5); printf " |F%s", o; next }
		END { print "" }' | sed 's/^/#   /'
	echo "$tr" | grep -c . | sed 's/^/#   trace lines: /'

done
echo "# summary: $N trains of $C, tx pinned $PIN: $fail not PASS, $multi left on >1 tx queue, $ooo arrived out of order"
echo 0 > $I/events/ugreord/enable
echo 0 > $I/events/napi/napi_poll/enable
for e in rxid rxret flush; do echo "-:ugreord/$e" >> $T/kprobe_events; done
rmdir $I; rm -f /tmp/ugreord.fifo
