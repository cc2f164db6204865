/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): a GRO-built skb counted where a socket reads it, when
 * no netif_receive_skb run of ours took its mark (issue 25).  A kernel can
 * deliver such skbs: this host's (6.18.44-fc) runs no BPF tracing program
 * while the current task's tgid is 1 and counts no miss, so a held skb the
 * gro_flush_timeout timer's softirq flushes on top of such a task reaches
 * the socket unseen (docs/bpf.md, results/bpf-lost-2026-11-26).
 * tp_btf/skb_copy_datagram_iovec runs where UDP (and TCP) copy an skb to the
 * user; a mark still held there is an skb of the filter's, at its first
 * pass, that entered GRO whole, was neither merged away nor taken at
 * netif_receive_skb.  It is counted there as
 * ugs_receive_skb would have counted it, when what it is can still be read:
 * a UDP GSO skb of 2+ segments read whole (a UDP_GRO socket), its mark fresh
 * and of the same head.  Anything else (a single packet, a fraglist skb a
 * socket segmented: skb_segment_list() resets the head's gso fields; TCP)
 * keeps its mark held and is reported as a GRO skb not seen (INCOMPLETE).
 * Included once, at the end of ugs.bpf.c, after ugs_diag.bpf.h.
 */
#ifndef UGS_LATE_BPF_H
#define UGS_LATE_BPF_H

__u64 ugs_late;		/* GRO skbs counted at a socket read instead */

/*
 * what ugs_receive_skb counts for a GRO-built UDP skb G of the filter's,
 * atomically: this program runs in process context with BHs on
 */
static __always_inline void ugs_count_late(const struct ugs_gso *g)
{
	struct ugs_stats *s = ugs_this();

	ugs_add_x(s, UGS_RX_SKBS, 1, true);
	ugs_add_x(s, UGS_RX_GSO_SKBS, 1, true);
	/* fexit: counted as coalesced at udp*_gro_complete, which marked it */
	if (ugs_derived_gro)
		ugs_coalesced(s, g, true);
}

SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(ugs_read_datagram, const struct sk_buff *skb, int len)
{
	__u64 key = (__u64)skb, now;
	struct ugs_mark *mk;
	struct ugs_gso g;
	long err;

	if (ugs_empty || !ugs_marks_used)
		return 0;
	mk = bpf_map_lookup_elem(&ugs_marks, &key);
	/* held 2: read before and left held (a datagram read in parts) */
	if (!mk || !(mk->held & 1) || mk->head != (__u64)skb->head)
		return 0;
	now = bpf_ktime_get_ns();
	ugs_gso_of(skb, &g, false);
	ugs_diag_read(skb, mk, &g, now);
	if (now - mk->when > NSEC_PER_SEC || !g.size || !(g.type & SKB_GSO_UDP_L4) ||
	    g.segs < 2) {
		mk->held = 2;	/* still held: reported as not seen */
		return 0;
	}
	ugs_count_late(&g);
	__sync_fetch_and_add(&ugs_late, 1);
	/* accounted for: never counted again, never lost, even if the delete fails */
	ugs_held_done(mk, false, 0, skb, 0, now);
	mk->held = 0;
	err = bpf_map_delete_elem(&ugs_marks, &key);
	if (err && err != -ENOENT)
		__sync_fetch_and_add(&ugs_mark_del_errors, 1);
	return 0;
}

#endif /* UGS_LATE_BPF_H */
