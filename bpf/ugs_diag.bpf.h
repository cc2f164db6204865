/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): the lost merged skb's diagnosis (issue 25), loaded only
 * with UDPGSO_STATS_DIAG.  Two observers that share nothing with the counting
 * program's run on netif_receive_skb:
 *   tp_btf/netif_receive_skb, a second program (the kernel runs each program
 *       of a tracepoint apart, with its own recursion check): the filter's
 *       skbs at their first receive pass, as rx_skbs counts them;
 *   tp_btf/skb_copy_datagram_iovec, where a socket copies an skb to the user:
 *       an skb whose GRO mark is still held there reached the socket without
 *       a netif_receive_skb run of ours on it.
 * So a GRO skb not seen at netif_receive_skb is told apart: read by a socket
 * or not (dropped); the tracepoint fired for it with a BPF run (the witness
 * counted it) or not.  Included once, at the end of ugs.bpf.c.
 */
#ifndef UGS_DIAG_BPF_H
#define UGS_DIAG_BPF_H

__u64 ugs_w_skbs;	/* the witness's rx_skbs */
__u64 ugs_w_gso;	/* of which UDP GSO skbs (GRO-built or passed through) */
__u64 ugs_read_unseen;	/* skbs read by a socket with their held mark never taken */
__u64 ugs_read_unseen_w;	/* of which the witness saw at netif_receive_skb */
__u64 ugs_read_unseen_age;	/* the last one's mark: ns from its put to the read */
__u64 ugs_read_unseen_len;	/* the last one's skb->len and gso_segs */
__u64 ugs_read_unseen_segs;
/*
 * a held mark the witness found (the counting program, first in the probe
 * array, takes it before the witness runs)
 */
#define UGS_HELD_WITNESSED	4

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(ugs_netif_witness, struct sk_buff *skb)
{
	struct ugs_gso g;

	if (ugs_empty || ugs_rx_repeat(skb) || !ugs_match(skb, skb->data))
		return 0;
	__sync_fetch_and_add(&ugs_w_skbs, 1);
	if (ugs_marks_used) {
		__u64 key = (__u64)skb;
		struct ugs_mark *mk = bpf_map_lookup_elem(&ugs_marks, &key);

		if (mk && mk->held == 1 && mk->head == (__u64)skb->head)
			mk->held = 1 | UGS_HELD_WITNESSED;
	}
	ugs_gso_of(skb, &g, false);
	if (g.size && (g.type & SKB_GSO_UDP_L4))
		__sync_fetch_and_add(&ugs_w_gso, 1);
	return 0;
}

SEC("tp_btf/skb_copy_datagram_iovec")
int BPF_PROG(ugs_read_datagram, const struct sk_buff *skb, int len)
{
	__u64 key = (__u64)skb;
	struct ugs_mark *mk;
	struct ugs_gso g;

	if (ugs_empty || !ugs_marks_used)
		return 0;
	mk = bpf_map_lookup_elem(&ugs_marks, &key);
	/* held 2: counted here already (a datagram read in parts) */
	if (!mk || !(mk->held & 1) || mk->head != (__u64)skb->head)
		return 0;
	if (mk->held & UGS_HELD_WITNESSED)
		__sync_fetch_and_add(&ugs_read_unseen_w, 1);
	mk->held = 2;
	__sync_fetch_and_add(&ugs_read_unseen, 1);
	ugs_read_unseen_age = bpf_ktime_get_ns() - mk->when;
	ugs_read_unseen_len = skb->len;
	ugs_gso_of(skb, &g, false);
	ugs_read_unseen_segs = g.segs;
	return 0;
}

#endif /* UGS_DIAG_BPF_H */
