/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): the GRO marks (ugs_marks, struct ugs_mark): put when
 * an skb enters GRO (derived) or UDP GRO completes (fexit), deleted at
 * napi_gro_*_exit when GRO merged the skb away, taken at netif_receive_skb;
 * and the held skbs' accounting (ugs_held_*, issue 25).  Included once, by
 * ugs.bpf.c, after ugs_rx_repeat() and before the netif_receive_skb program.
 */
#ifndef UGS_MARKS_BPF_H
#define UGS_MARKS_BPF_H

static __always_inline void ugs_put_mark(const struct sk_buff *skb, bool held)
{
	struct ugs_mark mk, *old;
	__u64 key = (__u64)skb;
	long err;

	mk.head = (__u64)skb->head;
	mk.when = bpf_ktime_get_ns();
	mk.held = held;
	if (!ugs_marks_used)
		ugs_marks_used = 1;
	/* this address's mark still held: that skb never reached netif_receive_skb */
	old = bpf_map_lookup_elem(&ugs_marks, &key);
	if (old && old->held) {
		__sync_fetch_and_add(&ugs_held_out, 1);
		__sync_fetch_and_add(&ugs_held_lost, 1);
		ugs_lost_age = mk.when - old->when;
		ugs_lost_held = old->held | (old->head == mk.head ? 8 : 0);
	}
	err = bpf_map_update_elem(&ugs_marks, &key, &mk, BPF_ANY);
	if (err) {
		__sync_fetch_and_add(&ugs_mark_put_errors, 1);
		if (err == -E2BIG)
			__sync_fetch_and_add(&ugs_mark_full, 1);
		return;
	}
	if (held)
		__sync_fetch_and_add(&ugs_held_in, 1);
}

static __always_inline int ugs_gro_entry(const struct sk_buff *skb, bool rc)
{
	struct ugs_gso g;
	bool in;

	if (ugs_empty)
		return 0;
	/* after eth_type_trans(): skb->data is the network header */
	in = !ugs_rx_repeat(skb) && ugs_match(skb, skb->data);
	/* derived: GRO merges count wherever they happen, so any entry is marked */
	if (ugs_derived_gro) {
		struct ugs_state *st = ugs_st();

		ugs_gso_of(skb, &g, rc);
		if (!g.size)
			ugs_put_mark(skb, in);
		if (st) {
			st->gro_skb = g.size ? 0 : (__u64)skb;
			st->gro_head = (__u64)skb->head;
		}
	}
	if (in)
		ugs_inc(ugs_this(), UGS_RX_GRO_IN);
	return 0;
}

SEC("tp_btf/napi_gro_receive_entry")
int BPF_PROG(ugs_napi_gro_receive_entry, const struct sk_buff *skb)
{
	return ugs_gro_entry(skb, false);
}

SEC("tp_btf/napi_gro_receive_entry")
int BPF_PROG(ugs_napi_gro_receive_entry_rc, const struct sk_buff *skb)
{
	return ugs_gro_entry(skb, true);
}

SEC("tp_btf/napi_gro_frags_entry")
int BPF_PROG(ugs_napi_gro_frags_entry, const struct sk_buff *skb)
{
	return ugs_gro_entry(skb, false);
}

SEC("tp_btf/napi_gro_frags_entry")
int BPF_PROG(ugs_napi_gro_frags_entry_rc, const struct sk_buff *skb)
{
	return ugs_gro_entry(skb, true);
}

/*
 * derived: GRO is done with the skb of the _entry tracepoint.  Merged into
 * another (GRO_MERGED, GRO_MERGED_FREE) or consumed (GRO_CONSUMED), it never
 * reaches netif_receive_skb: its mark goes now (a freed skb's address may be
 * marked again by another CPU meanwhile: only a mark of the same head)
 */
static __always_inline int ugs_gro_exit(int ret)
{
	struct ugs_state *st;
	struct ugs_mark *mk;
	__u64 key;
	long err;

	if (ugs_empty || !ugs_derived_gro)
		return 0;
	st = ugs_st();
	if (!st || !st->gro_skb)
		return 0;
	key = st->gro_skb;
	st->gro_skb = 0;
	if (ret != GRO_MERGED && ret != GRO_MERGED_FREE && ret != GRO_CONSUMED)
		return 0;
	mk = bpf_map_lookup_elem(&ugs_marks, &key);
	if (mk && mk->head == st->gro_head) {
		__u64 held = mk->held;

		err = bpf_map_delete_elem(&ugs_marks, &key);
		if (!err) {
			__sync_fetch_and_add(&ugs_mark_merged, 1);
			if (held)
				__sync_fetch_and_add(&ugs_held_out, 1);
		} else if (err != -ENOENT) {
			__sync_fetch_and_add(&ugs_mark_del_errors, 1);
		}
	}
	return 0;
}

SEC("tp_btf/napi_gro_receive_exit")
int BPF_PROG(ugs_napi_gro_receive_exit, int ret)
{
	return ugs_gro_exit(ret);
}

SEC("tp_btf/napi_gro_frags_exit")
int BPF_PROG(ugs_napi_gro_frags_exit, int ret)
{
	return ugs_gro_exit(ret);
}

/*
 * the mark of this skb (a UDP GSO one: GSO), deleted: 1 when it is fresh and
 * of the same head, -1 when refused (counted by reason), 0 when none
 */
static __always_inline int ugs_take_mark(const struct sk_buff *skb, bool gso)
{
	__u64 key = (__u64)skb, held;
	struct ugs_mark *mk;
	bool lost;
	int ok = 1;
	long err;

	/* no mark was ever put: nothing to look up */
	if (!ugs_marks_used)
		return 0;
	mk = bpf_map_lookup_elem(&ugs_marks, &key);
	if (!mk)
		return 0;
	if (mk->head != (__u64)skb->head) {
		ok = -1;
		ugs_reject(gso ? UGS_REJ_MARK_HEAD : UGS_REJ_MARK_LEFTOVER);
	} else if (bpf_ktime_get_ns() - mk->when > NSEC_PER_SEC) {
		ok = -1;
		if (gso)
			ugs_reject(UGS_REJ_MARK_STALE);
	}
	/*
	 * a held mark's skb is accounted for: seen here (counted, or refused
	 * as stale), or, of another head, a freed skb's that never came here
	 */
	held = mk->held;
	lost = held && mk->head != (__u64)skb->head;
	err = bpf_map_delete_elem(&ugs_marks, &key);
	if (!err && held) {
		__sync_fetch_and_add(&ugs_held_out, 1);
		if (lost) {
			__sync_fetch_and_add(&ugs_held_lost, 1);
			ugs_lost_age = bpf_ktime_get_ns() - mk->when;
			ugs_lost_held = held | 16;
		}
	} else if (err && err != -ENOENT) {
		__sync_fetch_and_add(&ugs_mark_del_errors, 1);
	}
	return ok;
}

#endif /* UGS_MARKS_BPF_H */
