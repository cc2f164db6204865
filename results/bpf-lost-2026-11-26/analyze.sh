#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# analyze.sh OUTDIR: the netif_receive_skb events on vb run with a thread of
# tgid 1 current, the reps that counted a skb at a socket read, and for each
# skb a serve found read unseen (the first since its ring ran: the header of
# OUTDIR/ring-*.txt, "# skb 0xADDR read unseen at T"), every tracefs line
# of OUTDIR/trace.txt naming that address from 60 ms before the read to 5 ms
# after, with the NAPI polls of vb without work, timer expiries, netif_receive_skb events
# and socket reads of the 3 ms before the read (the clock of both:
# CLOCK_MONOTONIC), and what the witness's ring (OUTDIR/ring-*.txt) has
# before the read: its last runs, and any at that address.  A line whose
# current task is a thread of tgid 1 (OUTDIR/tgid1-threads.txt) is marked
# [tgid 1]: no BPF tracing program runs there on this host (kcheck/).
set -eu
out=${1:?usage: analyze.sh OUTDIR}
t1=$(awk '{ print $1 }' "$out/tgid1-threads.txt" 2>/dev/null | sort -u | paste -sd'|')
# every netif_receive_skb event on vb whose current task is a thread of tgid 1
# (each one of the loops' 2028- or 64028-byte skbs among them is a skb no BPF
# program of ours saw), beside the reps that counted one at a socket read
echo "=== netif_receive_skb events on vb with a tgid-1 task current:"
awk -v t1="^(${t1:-none})$" '/ netif_receive_skb: dev=vb / && match($1, /-[0-9]+$/) &&
	substr($1, RSTART + 1) ~ t1 { print "  " $0 }' "$out/trace.txt"
echo "=== reps that counted a skb at a socket read:"
grep -h "counted at a socket read instead [1-9]" "$out"/conf-*.log | cut -c1-160 | sed 's/^/  /'
# each skb read unseen (first since its serve's ring ran): the rings' headers
cat "$out"/ring-*.txt 2>/dev/null | grep '^# skb ' | sort -k7n |
while read -r _ _ addr _ _ _ t _; do
	a=${addr#0x}
	echo "=== skb $addr read at $t ns"
	awk -v a="$a" -v t="$t" -v t1="^(${t1:-none})$" '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1); break } }
		ts * 1e9 < t - 60e6 || ts * 1e9 > t + 5e6 { next }
		{ m = ""; if (match($1, /-[0-9]+$/) && substr($1, RSTART + 1) ~ t1) m = "[tgid 1] " }
		index($0, a) { print "  [addr] " m $0; next }
		ts * 1e9 < t - 3e6 { next }
		/napi_poll:.* work 0 |hrtimer_expire_entry:|netif_receive_skb:|skb_copy_datagram_iovec:/ { print "  " m $0 }
	' "$out/trace.txt"
	for r in "$out"/ring-*.txt; do
		grep -q "^# skb $addr read unseen at $t " "$r" || continue
		echo "  --- the witness's last 5 runs before the read ($r), and its runs at the"
		echo "      address in the 60 ms before it (ts cpu skb len)"
		awk -v a="$addr" -v t="$t" '/^# skb / { on = ($3 == a && $7 == t); next }
			on' "$r" | tail -5 | sed 's/^/  /'
		awk -v a="$addr" -v t="$t" '/^# skb / { on = ($3 == a && $7 == t); next }
			on && $3 == a && $1 >= t - 60e6' "$r" | sed 's/^/  /'
	done
done
