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

/* held flags of a lost mark, beside its own (1 held, 2 read unseen, 4 witnessed) */
#define UGS_LOST_SAME_HEAD	8	/* replaced by a mark of the same head */
#define UGS_LOST_TAKEN		16	/* found at netif_receive_skb under another head */
#define UGS_LOST_OTHER		32	/* by an skb not of the filter's */
#define UGS_LOST_OLD		64	/* put before the last reset */
/* ugs_lost_why of a mark a GRO entry's replaced (UGS_MATCH, -1: the filter's skb) */
#define UGS_LOST_AT_ENTRY	(-2)

/*
 * a held mark MK accounted for (taken, merged away, counted at a socket read,
 * or LOST: its skb gone unseen), in this run's figures when put since the
 * last reset, else apart (ugs_held_old_*: the earlier run reported it as not
 * seen); a lost one's last values for the diag line (WHY: the finding skb's
 * ugs_match_why(), UGS_LOST_AT_ENTRY for a GRO entry's mark)
 */
static __always_inline void ugs_held_done(const struct ugs_mark *mk, bool lost, __u64 flags,
					  const struct sk_buff *skb, int why, __u64 now)
{
	bool old = mk->gen != ugs_gen;

	__sync_fetch_and_add(old ? &ugs_held_old_out : &ugs_held_out, 1);
	if (!lost)
		return;
	__sync_fetch_and_add(old ? &ugs_held_old_lost : &ugs_held_lost, 1);
	ugs_lost_age = now - mk->when;
	ugs_lost_held = mk->held | flags | (old ? UGS_LOST_OLD : 0);
	ugs_lost_at = now;
	ugs_lost_skb = (__u64)skb;
	ugs_lost_len = skb->len;
	ugs_lost_why = why;
}

/* SKB's mark, HEAD its head as GRO found it (held: an skb of the filter's) */
static __always_inline void ugs_put_mark(const struct sk_buff *skb, bool held, __u64 head)
{
	struct ugs_mark mk, *old;
	__u64 key = (__u64)skb;
	long err;

	mk.head = head;
	mk.when = bpf_ktime_get_ns();
	mk.held = held;
	mk.gen = ugs_gen;
	if (!ugs_marks_used)
		ugs_marks_used = 1;
	/* this address's mark still held: that skb never reached netif_receive_skb */
	old = bpf_map_lookup_elem(&ugs_marks, &key);
	if (old && old->held)
		ugs_held_done(old, true, (old->head == mk.head ? UGS_LOST_SAME_HEAD : 0) |
			      (held ? 0 : UGS_LOST_OTHER), skb, UGS_LOST_AT_ENTRY, mk.when);
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
			ugs_put_mark(skb, in, (__u64)skb->head);
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
		struct ugs_mark m = *mk;

		err = bpf_map_delete_elem(&ugs_marks, &key);
		if (!err) {
			__sync_fetch_and_add(&ugs_mark_merged, 1);
			if (m.held)
				ugs_held_done(&m, false, 0, NULL, 0, 0);
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
 * the mark of this skb (a UDP GSO one: GSO; WHY: ugs_match_why()), deleted: 1
 * when it is fresh and of the same head, -1 when refused (counted by reason),
 * 0 when none
 */
static __always_inline int ugs_take_mark(const struct sk_buff *skb, bool gso, int why)
{
	__u64 key = (__u64)skb, now;
	struct ugs_mark *mk;
	struct ugs_mark m;
	bool lost;
	int ok = 1;
	long err;

	/* no mark was ever put: nothing to look up */
	if (!ugs_marks_used)
		return 0;
	mk = bpf_map_lookup_elem(&ugs_marks, &key);
	if (!mk)
		return 0;
	now = bpf_ktime_get_ns();
	if (mk->head != (__u64)skb->head) {
		ok = -1;
		ugs_reject(gso ? UGS_REJ_MARK_HEAD : UGS_REJ_MARK_LEFTOVER);
	} else if (now - mk->when > NSEC_PER_SEC) {
		ok = -1;
		if (gso)
			ugs_reject(UGS_REJ_MARK_STALE);
	}
	/*
	 * a held mark's skb is accounted for: seen here (counted, or refused
	 * as stale), or, of another head, a freed skb's that never came here
	 */
	m = *mk;
	lost = m.held && m.head != (__u64)skb->head;
	err = bpf_map_delete_elem(&ugs_marks, &key);
	if (!err && m.held)
		ugs_held_done(&m, lost, UGS_LOST_TAKEN | (why == UGS_MATCH ? 0 : UGS_LOST_OTHER),
			      skb, why, now);
	else if (err && err != -ENOENT)
		__sync_fetch_and_add(&ugs_mark_del_errors, 1);
	return ok;
}

#endif /* UGS_MARKS_BPF_H */
