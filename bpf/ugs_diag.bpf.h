/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): the lost merged skb's diagnosis (issue 25), the witness
 * loaded only with UDPGSO_STATS_DIAG.  Two observers that share nothing with
 * the counting program's run on netif_receive_skb:
 *   tp_btf/netif_receive_skb, a second program (the kernel runs each program
 *       of a tracepoint apart, with its own recursion check): the filter's
 *       skbs at their first receive pass, as rx_skbs counts them;
 *   tp_btf/skb_copy_datagram_iovec (bpf/ugs_late.bpf.h, always loaded: it
 *       counts such an skb), where a socket copies an skb to the user: an
 *       skb whose GRO mark is still held there reached the socket without a
 *       netif_receive_skb run of ours on it (ugs_diag_read).
 * So a GRO skb not seen at netif_receive_skb is told apart: read by a socket
 * or not (dropped); the tracepoint fired for it with a BPF run (the witness
 * counted it) or not.  Included once, near the end of ugs.bpf.c.
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
__u64 ugs_read_unseen_skb;	/* the first one since the ring ran: its address, */
__u64 ugs_read_unseen_at;	/* when it was read (bpf_ktime_get_ns: CLOCK_MONOTONIC) */
__u64 ugs_read_unseen_cpu;	/* and on which CPU */
/*
 * the witness's last runs, every skb (the filter's or not), frozen at the
 * first skb read unseen until the tool prints them: what the tracepoint's BPF
 * probes did run on around the lost skb (compared with a tracefs event of
 * the same tracepoint, issue 25)
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UGS_WRING);
	__type(key, __u32);
	__type(value, struct ugs_wrun);
} ugs_wring SEC(".maps");

__u64 ugs_wring_pos;
__u32 ugs_wring_frozen;
/*
 * a held mark the witness found (the counting program, first in the probe
 * array, takes it before the witness runs)
 */
#define UGS_HELD_WITNESSED	4

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(ugs_netif_witness, struct sk_buff *skb)
{
	struct ugs_wrun *r;
	struct ugs_gso g;
	__u32 i;

	if (ugs_empty)
		return 0;
	if (!ugs_wring_frozen) {
		i = __sync_fetch_and_add(&ugs_wring_pos, 1) & (UGS_WRING - 1);
		r = bpf_map_lookup_elem(&ugs_wring, &i);
		if (r) {
			r->skb = (__u64)skb;
			r->ts = bpf_ktime_get_ns();
			r->cpu = bpf_get_smp_processor_id();
			r->len = skb->len;
		}
	}
	if (ugs_rx_repeat(skb) || !ugs_match(skb, skb->data))
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

/*
 * a socket reads SKB whose GRO mark MK is still held (no netif_receive_skb
 * run of ours took it): the observers' figures; called by ugs_read_datagram
 * (bpf/ugs_late.bpf.h), which counts it there when it can
 */
static __always_inline void ugs_diag_read(const struct sk_buff *skb, const struct ugs_mark *mk,
					  const struct ugs_gso *g, __u64 now)
{
	if (mk->held & UGS_HELD_WITNESSED)
		__sync_fetch_and_add(&ugs_read_unseen_w, 1);
	__sync_fetch_and_add(&ugs_read_unseen, 1);
	ugs_read_unseen_age = now - mk->when;
	/* the one that freezes the witness's ring: its address, time and CPU */
	if (!ugs_wring_frozen) {
		ugs_wring_frozen = 1;
		ugs_read_unseen_at = now;
		ugs_read_unseen_skb = (__u64)skb;
		ugs_read_unseen_cpu = bpf_get_smp_processor_id();
	}
	ugs_read_unseen_len = skb->len;
	ugs_read_unseen_segs = g->segs;
}

#endif /* UGS_DIAG_BPF_H */
