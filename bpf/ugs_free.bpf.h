/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): the programs on consume_skb and kfree_skb (derived
 * counters: where the GSO skb is freed; fexit mode: where the skb
 * __skb_gso_segment segmented is freed).  Included once, at the end of
 * ugs.bpf.c, after everything they use.  They are the only programs that run
 * in process context with BHs enabled, where a softirq on that CPU makes the
 * kernel skip their nested runs (docs/bpf.md); UDPGSO_STATS_NO_FREE leaves
 * them out.
 */
#ifndef UGS_FREE_BPF_H
#define UGS_FREE_BPF_H

static __always_inline int ugs_where(__u64 loc)
{
	int i;

	for (i = 0; i <= UGS_R_UDP6_RCV; i++)
		if (loc >= ugs_range[i][0] && loc < ugs_range[i][1])
			return i;
	return -1;
}

SEC("tp_btf/consume_skb")
int BPF_PROG(ugs_consume_skb, struct sk_buff *skb, void *location)
{
	struct ugs_stats *s;
	struct ugs_gso g;
	int where;

	if (ugs_empty)
		return 0;
	if (ugs_seg_by_free) {
		ugs_seg_freed(skb, (__u64)location);
		return 0;
	}
	where = ugs_where((__u64)location);
	if (where < 0)
		return 0;
	ugs_gso_of(skb, &g, false);
	if (!g.size || !g.segs || !ugs_match(skb, NULL))
		return 0;
	s = ugs_this();
	if (where == UGS_R_VALIDATE_XMIT) {
		ugs_inc(s, UGS_TX_SW_SEGMENTED_SKBS);
		ugs_add(s, UGS_TX_SW_SEGMENTS, g.segs);
	} else {
		ugs_inc(s, UGS_RX_SW_SEGMENTED_SKBS);
		ugs_add(s, UGS_RX_SW_SEGMENTS, g.segs);
	}
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(ugs_kfree_skb, struct sk_buff *skb, void *location)
{
	struct ugs_stats *s;
	struct ugs_gso g;
	int where;

	if (ugs_empty)
		return 0;
	if (ugs_seg_by_free) {
		ugs_seg_freed(skb, (__u64)location);
		return 0;
	}
	where = ugs_where((__u64)location);
	if (where < 0)
		return 0;
	ugs_gso_of(skb, &g, false);
	if (!g.size || !ugs_match(skb, NULL))
		return 0;
	s = ugs_this();
	ugs_inc(s, where == UGS_R_VALIDATE_XMIT ? UGS_TX_SW_SEGMENT_ERRORS :
		UGS_RX_SW_SEGMENT_ERRORS);
	return 0;
}

#endif /* UGS_FREE_BPF_H */
