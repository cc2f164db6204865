// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats hooks: net tracepoints (found by name, they are not exported to
 * modules) and kretprobes.  Every probe runs with preemption disabled and only
 * touches this CPU's counters.
 *
 *   net_dev_queue           tx skb before software segmentation (the GSO skb)
 *   net_dev_start_xmit      what the driver gets: segments, or the GSO skb whole
 *   napi_gro_receive_entry  packets entering GRO
 *   netif_receive_skb       what GRO (or the backlog, as on lo) hands to the stack
 *   udp_fail_queue_rcv_skb  UDP socket receive queue failures
 *   __skb_gso_segment       software segmentation; its tx_path argument says
 *                           whether it runs before a driver (validate_xmit_skb)
 *                           or on receive (udp_rcv_segment, for a socket without
 *                           UDP_GRO)
 *   udp4/6_gro_complete     UDP GRO finishing a coalesced skb
 */
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/jiffies.h>
#include <linux/err.h>
#include "ugs.h"

/* ---- tx ---- */

static void ugs_net_dev_queue(void *data, struct sk_buff *skb)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);

	if (!ugs_match(skb, skb_network_offset(skb)))
		return;
	ugs_inc(UGS_TX_SKBS);
	if (!skb_is_gso(skb))
		return;
	ugs_inc(UGS_TX_GSO_SKBS);
	if (sh->gso_type & SKB_GSO_UDP_L4)
		ugs_inc(UGS_TX_GSO_UDP_L4_SKBS);
	if (sh->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6))
		ugs_inc(UGS_TX_GSO_TCP_SKBS);
	if (sh->gso_type & SKB_GSO_FRAGLIST)
		ugs_inc(UGS_TX_GSO_FRAGLIST_SKBS);
	ugs_add(UGS_TX_GSO_SEGS, sh->gso_segs);
	ugs_hist_inc(UGS_HIST_TX, sh->gso_segs);
}

static void ugs_net_dev_start_xmit(void *data, const struct sk_buff *skb,
				   const struct net_device *dev)
{
	if (!ugs_match(skb, skb_network_offset(skb)))
		return;
	ugs_inc(UGS_TX_DEV_SKBS);
	if (skb_is_gso(skb))
		ugs_inc(UGS_TX_DEV_GSO_SKBS);
}

/* ---- rx ---- */

static void ugs_napi_gro_receive_entry(void *data, const struct sk_buff *skb)
{
	/* after eth_type_trans(): skb->data is the network header */
	if (ugs_match(skb, 0))
		ugs_inc(UGS_RX_GRO_IN);
}

/* was this skb built by udp{4,6}_gro_complete() a moment ago on this CPU? */
static bool ugs_take_mark(const struct sk_buff *skb)
{
	struct ugs_pcpu *p = this_cpu_ptr(ugs_stats);
	int i;

	for (i = 0; i < UGS_NR_MARKS; i++) {
		struct ugs_mark *mk = &p->marks[i];

		if (mk->skb == skb && mk->head == skb->head &&
		    time_before_eq(jiffies, mk->when + HZ)) {
			mk->skb = NULL;
			return true;
		}
	}
	return false;
}

static void ugs_put_mark(const struct sk_buff *skb)
{
	struct ugs_pcpu *p = this_cpu_ptr(ugs_stats);
	struct ugs_mark *mk = &p->marks[p->mark_pos++ % UGS_NR_MARKS];

	mk->skb = skb;
	mk->head = skb->head;
	mk->when = jiffies;
}

static void ugs_netif_receive_skb(void *data, struct sk_buff *skb)
{
	if (!ugs_match(skb, 0))
		return;
	ugs_inc(UGS_RX_SKBS);
	if (!skb_is_gso(skb))
		return;
	ugs_inc(UGS_RX_GSO_SKBS);
	if (!ugs_take_mark(skb))
		ugs_inc(UGS_RX_GSO_PASSTHROUGH_SKBS);
}

/* UGS_UDP_FAIL_TP_HAS_SKB: set by Kbuild for kernels >= 6.10 */
#ifdef UGS_UDP_FAIL_TP_HAS_SKB
static void ugs_udp_fail_queue_rcv_skb(void *data, int rc, struct sock *sk,
				       struct sk_buff *skb)
{
	if (ugs_match(skb, skb_network_offset(skb)))
		ugs_inc(UGS_RX_UDP_QUEUE_FAILS);
}
#else
/* before 6.10 the tracepoint has no skb: filter on the socket's local port */
static void ugs_udp_fail_queue_rcv_skb(void *data, int rc, struct sock *sk)
{
	const struct ugs_filter *f;
	bool ok = true;

	rcu_read_lock();
	f = rcu_dereference(ugs_active_filter);
	if (f && f->type == UGS_FILTER_PORT)
		ok = sk->sk_num == f->port;
	else if (f)
		ok = false;
	rcu_read_unlock();
	if (ok)
		ugs_inc(UGS_RX_UDP_QUEUE_FAILS);
}
#endif

/* ---- kretprobes ---- */

struct ugs_seg_data {
	bool tx_path;
};

static int ugs_gso_segment_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sk_buff *skb = (struct sk_buff *)regs_get_kernel_argument(regs, 0);
	struct ugs_seg_data *d = (struct ugs_seg_data *)ri->data;

	if (!skb_is_gso(skb) || !ugs_match(skb, skb_network_offset(skb)))
		return 1;	/* no return probe for this call */
	d->tx_path = !!regs_get_kernel_argument(regs, 2);
	return 0;
}

static int ugs_gso_segment_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct sk_buff *segs = (const struct sk_buff *)regs_return_value(regs);
	struct ugs_seg_data *d = (struct ugs_seg_data *)ri->data;
	u64 n = 0;

	if (IS_ERR(segs)) {
		ugs_inc(d->tx_path ? UGS_TX_SW_SEGMENT_ERRORS : UGS_RX_SW_SEGMENT_ERRORS);
		return 0;
	}
	/* NULL: headers verified only, nothing segmented */
	for (; segs; segs = segs->next)
		n++;
	if (!n)
		return 0;
	if (d->tx_path) {
		ugs_inc(UGS_TX_SW_SEGMENTED_SKBS);
		ugs_add(UGS_TX_SW_SEGMENTS, n);
	} else {
		ugs_inc(UGS_RX_SW_SEGMENTED_SKBS);
		ugs_add(UGS_RX_SW_SEGMENTS, n);
	}
	return 0;
}

struct ugs_gro_data {
	struct sk_buff *skb;
};

static int ugs_gro_complete_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sk_buff *skb = (struct sk_buff *)regs_get_kernel_argument(regs, 0);
	int nhoff = (int)regs_get_kernel_argument(regs, 1);
	struct ugs_gro_data *d = (struct ugs_gro_data *)ri->data;

	/* udp4/6_gro_complete() itself finds the UDP header at skb->data + nhoff */
	if (!ugs_match_udp_hdr(skb, skb->data + nhoff))
		return 1;
	d->skb = skb;
	return 0;
}

static int ugs_gro_complete_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ugs_gro_data *d = (struct ugs_gro_data *)ri->data;
	const struct skb_shared_info *sh = skb_shinfo(d->skb);

	if (regs_return_value(regs) || !(sh->gso_type & SKB_GSO_UDP_L4) || sh->gso_segs < 2)
		return 0;
	ugs_inc(UGS_RX_GRO_COALESCED_SKBS);
	ugs_add(UGS_RX_GRO_COALESCED_SEGS, sh->gso_segs);
	if (sh->gso_type & SKB_GSO_FRAGLIST)
		ugs_inc(UGS_RX_GRO_FRAGLIST_SKBS);
	ugs_hist_inc(UGS_HIST_RX, sh->gso_segs);
	ugs_put_mark(d->skb);
	return 0;
}

/* ---- attach / detach ---- */

struct ugs_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	int err;	/* 0 attached, -ENOENT not found, else the register error */
};

static struct ugs_tp ugs_tps[] = {
	{ .name = "net_dev_queue",		.probe = ugs_net_dev_queue },
	{ .name = "net_dev_start_xmit",		.probe = ugs_net_dev_start_xmit },
	{ .name = "napi_gro_receive_entry",	.probe = ugs_napi_gro_receive_entry },
	{ .name = "netif_receive_skb",		.probe = ugs_netif_receive_skb },
	{ .name = "udp_fail_queue_rcv_skb",	.probe = ugs_udp_fail_queue_rcv_skb },
};

struct ugs_krp {
	struct kretprobe krp;
	int err;
};

#define UGS_KRP(sym, entry, ret, type)					\
	{ .krp = { .kp.symbol_name = sym, .entry_handler = entry,	\
		   .handler = ret, .data_size = sizeof(type),		\
		   .maxactive = 64 } }

static struct ugs_krp ugs_krps[] = {
	UGS_KRP("__skb_gso_segment", ugs_gso_segment_entry, ugs_gso_segment_ret,
		struct ugs_seg_data),
	UGS_KRP("udp4_gro_complete", ugs_gro_complete_entry, ugs_gro_complete_ret,
		struct ugs_gro_data),
	UGS_KRP("udp6_gro_complete", ugs_gro_complete_entry, ugs_gro_complete_ret,
		struct ugs_gro_data),
};

static void ugs_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ugs_tps); i++)
		if (!strcmp(tp->name, ugs_tps[i].name))
			ugs_tps[i].tp = tp;
}

int ugs_hooks_attach(void)
{
	int i, n = 0;

	for_each_kernel_tracepoint(ugs_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(ugs_tps); i++) {
		struct ugs_tp *t = &ugs_tps[i];

		t->err = t->tp ? tracepoint_probe_register(t->tp, t->probe, NULL) : -ENOENT;
		if (!t->err)
			n++;
	}
	for (i = 0; i < ARRAY_SIZE(ugs_krps); i++) {
		ugs_krps[i].err = register_kretprobe(&ugs_krps[i].krp);
		if (!ugs_krps[i].err)
			n++;
	}
	if (n)
		return 0;
	pr_err("udpgso_stats: no hook could be attached\n");
	return -ENOENT;
}

void ugs_hooks_detach(void)
{
	struct kretprobe *rps[ARRAY_SIZE(ugs_krps)];
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(ugs_tps); i++)
		if (!ugs_tps[i].err)
			tracepoint_probe_unregister(ugs_tps[i].tp, ugs_tps[i].probe, NULL);
	/* no tracepoint probe of ours runs after this */
	tracepoint_synchronize_unregister();
	for (i = 0; i < ARRAY_SIZE(ugs_krps); i++)
		if (!ugs_krps[i].err)
			rps[n++] = &ugs_krps[i].krp;
	/* one grace period for all of them; returns when no handler runs */
	if (n)
		unregister_kretprobes(rps, n);
}

static const char *ugs_state(int err)
{
	if (!err)
		return "attached";
	if (err == -ENOENT)
		return "not-found";
	return "failed";
}

void ugs_hooks_show(struct seq_file *m)
{
	int i;

	seq_puts(m, "# kind name state [detail]\n");
	for (i = 0; i < ARRAY_SIZE(ugs_tps); i++)
		seq_printf(m, "tracepoint %s %s err=%d\n", ugs_tps[i].name,
			   ugs_state(ugs_tps[i].err), ugs_tps[i].err);
	for (i = 0; i < ARRAY_SIZE(ugs_krps); i++) {
		const struct ugs_krp *k = &ugs_krps[i];

		seq_printf(m, "kretprobe %s %s err=%d missed=%d\n", k->krp.kp.symbol_name,
			   ugs_state(k->err), k->err, k->err ? 0 : k->krp.nmissed);
	}
}
