// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats hooks: net tracepoints (found by name, they are not exported to
 * modules) and kretprobes.  Every probe runs with preemption disabled and only
 * touches this CPU's counters.
 *
 *   net_dev_queue           tx skb before software segmentation (the GSO skb)
 *   net_dev_start_xmit      what the driver gets: segments, or the GSO skb whole
 *   net_dev_xmit            ... and whether it took it (not NETDEV_TX_BUSY)
 *   napi_gro_receive_entry  packets entering GRO
 *   napi_gro_frags_entry    the same, for drivers using napi_gro_frags()
 *   netif_receive_skb       what GRO (or the backlog, as on lo) hands to the stack
 *   udp_fail_queue_rcv_skb  UDP socket receive queue failures
 *   __skb_gso_segment       software segmentation, classified by its caller
 *   udp4/6_gro_complete     UDP GRO finishing a coalesced skb
 *
 * Each skb counts once per direction: tx at the device that hands it to a
 * driver or a peer (a pass nested in an upper device's transmit replaces the
 * upper device's pass), rx at its first receive pass (passes at upper and
 * tunnel devices are repeats).  docs/kmod.md has the whole rule.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/tracepoint.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/jiffies.h>
#include <linux/err.h>
#include <linux/spinlock.h>
#include <net/rtnetlink.h>
#include <trace/events/net.h>
#include <trace/events/udp.h>
#include "ugs.h"

/*
 * gso_segs, or computed from the length when the stack left it 0 (DODGY skbs
 * from tap or packet sockets with a vnet header); 0 when unknown
 */
static unsigned int ugs_gso_segs(const struct sk_buff *skb)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int hlen;

	if (sh->gso_segs || !sh->gso_size || !skb_transport_header_was_set(skb))
		return sh->gso_segs;
	hlen = skb_transport_offset(skb);
	if (sh->gso_type & SKB_GSO_UDP_L4) {
		hlen += sizeof(struct udphdr);
	} else if (sh->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
		struct tcphdr _th;
		const struct tcphdr *th;

		th = skb_header_pointer(skb, skb_transport_offset(skb), sizeof(_th), &_th);
		if (!th)
			return 0;
		hlen += th->doff * 4;
	} else {
		return 0;
	}
	if ((int)hlen < 0 || skb->len <= hlen)
		return 0;
	return DIV_ROUND_UP(skb->len - hlen, sh->gso_size);
}

/* ---- tx ---- */

static void ugs_tx_account(struct ugs_pcpu *p, const struct ugs_txq *q, bool undo)
{
	void (*op)(struct ugs_pcpu *p, enum ugs_counter c, unsigned long v);

	op = undo ? ugs_sub : ugs_add;
	op(p, UGS_TX_SKBS, 1);
	if (!q->gso)
		return;
	op(p, UGS_TX_GSO_SKBS, 1);
	if (q->gso_type & SKB_GSO_UDP_L4)
		op(p, UGS_TX_GSO_UDP_L4_SKBS, 1);
	if (q->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6))
		op(p, UGS_TX_GSO_TCP_SKBS, 1);
	if (q->gso_type & SKB_GSO_FRAGLIST)
		op(p, UGS_TX_GSO_FRAGLIST_SKBS, 1);
	if (!q->segs) {
		op(p, UGS_TX_GSO_SEGS_UNKNOWN_SKBS, 1);
		return;
	}
	op(p, UGS_TX_GSO_SEGS, q->segs);
	if (undo)
		ugs_hist_dec(p, UGS_HIST_TX, q->segs);
	else
		ugs_hist_inc(p, UGS_HIST_TX, q->segs);
}

static void ugs_net_dev_queue(void *data, struct sk_buff *skb)
{
	int d = dev_recursion_level(), j;
	struct ugs_txq q = {}, *slot;
	unsigned long flags;
	struct ugs_pcpu *p;

	q.counted = ugs_match(skb, skb_network_offset(skb));
	q.gso = skb_is_gso(skb);
	if (q.gso) {
		q.gso_type = skb_shinfo(skb)->gso_type;
		q.segs = ugs_gso_segs(skb);
	}
	p = ugs_begin(&flags);
	q.gen = p->gen;
	q.pending = true;
	/*
	 * Inside the transmit of a device (a vlan, bridge, bond, macvlan,
	 * tunnel...) queued at depth j - 1, running at depth j: this pass
	 * replaces that one.  Usually j == d; a tunnel's underlay may raise
	 * the level once more (iptunnel_xmit() on some kernels): the innermost
	 * transmit in progress on this CPU is the enclosing one.
	 */
	for (j = min(d, UGS_TX_DEPTH - 1); j > 0 && !p->txx[j].skb; j--)
		;
	if (j > 0) {
		p->txx[j].nested = true;
		slot = &p->txq[j - 1];
		if (slot->pending) {
			slot->pending = false;
			/* not when a reset came in between: it was zeroed */
			if (slot->counted && slot->gen == p->gen)
				ugs_tx_account(p, slot, true);
		}
	}
	if (q.counted)
		ugs_tx_account(p, &q, false);
	if (d < UGS_TX_DEPTH)
		p->txq[d] = q;
	ugs_end(p, flags);
}

static void ugs_net_dev_start_xmit(void *data, const struct sk_buff *skb,
				   const struct net_device *dev)
{
	int d = dev_recursion_level();
	struct ugs_txx *x;
	unsigned long flags;
	struct ugs_pcpu *p;

	if (d < UGS_TX_DEPTH) {
		x = this_cpu_ptr(&ugs_stats->txx[d]);
		x->skb = skb;
		x->matched = ugs_match(skb, skb_network_offset(skb));
		x->gso = skb_is_gso(skb);
		x->nested = false;
		return;
	}
	/* deeper than followed: counted here, even if the driver says busy */
	if (!ugs_match(skb, skb_network_offset(skb)))
		return;
	p = ugs_begin(&flags);
	ugs_inc(p, UGS_TX_DEV_SKBS);
	if (skb_is_gso(skb))
		ugs_inc(p, UGS_TX_DEV_GSO_SKBS);
	ugs_end(p, flags);
}

/* after ndo_start_xmit: the skb may be freed, only its address is compared */
static void ugs_net_dev_xmit(void *data, struct sk_buff *skb, int rc,
			     struct net_device *dev, unsigned int skb_len)
{
	int d = dev_recursion_level();
	struct ugs_txx *x;
	unsigned long flags;
	struct ugs_pcpu *p;

	if (d >= UGS_TX_DEPTH)
		return;
	x = this_cpu_ptr(&ugs_stats->txx[d]);
	if (x->skb != skb)
		return;
	x->skb = NULL;
	/* busy: requeued, counted when taken; nested: a lower device counts it */
	if (rc == NETDEV_TX_BUSY || x->nested || !x->matched)
		return;
	p = ugs_begin(&flags);
	ugs_inc(p, UGS_TX_DEV_SKBS);
	if (x->gso)
		ugs_inc(p, UGS_TX_DEV_GSO_SKBS);
	ugs_end(p, flags);
}

/* ---- rx ---- */

/* devices that only receive skbs already received on another device */
static const char * const ugs_tunnel_kinds[] = {
	"vxlan", "geneve", "bareudp", "gre", "gretap", "erspan", "ip6gre", "ip6gretap",
	"ip6erspan", "ipip", "ip6tnl", "sit", "vti", "vti6", "xfrm", "wireguard",
};

static bool ugs_rx_repeat(const struct net_device *dev)
{
	const struct rtnl_link_ops *ops;
	struct ugs_pcpu *p;
	bool tunnel = false;
	int i;

	/* an upper device: bridge, bond, team, vlan, macvlan, ipvlan, vrf... */
	if (!list_empty(&dev->adj_list.lower))
		return true;
	ops = READ_ONCE(dev->rtnl_link_ops);
	if (!ops || !ops->kind)
		return false;
	p = this_cpu_ptr(ugs_stats);
	if (READ_ONCE(p->kind_ops) == ops)
		return READ_ONCE(p->kind_tunnel);
	for (i = 0; i < ARRAY_SIZE(ugs_tunnel_kinds); i++)
		if (!strcmp(ops->kind, ugs_tunnel_kinds[i]))
			tunnel = true;
	WRITE_ONCE(p->kind_ops, NULL);
	WRITE_ONCE(p->kind_tunnel, tunnel);
	WRITE_ONCE(p->kind_ops, ops);
	return tunnel;
}

static void ugs_napi_gro_entry(void *data, const struct sk_buff *skb)
{
	/* after eth_type_trans(): skb->data is the network header */
	if (skb->dev && !ugs_rx_repeat(skb->dev) && ugs_match(skb, 0))
		ugs_count(UGS_RX_GRO_IN, 1);
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
	const struct skb_shared_info *sh = skb_shinfo(skb);
	bool gso = skb_is_gso(skb), built = false;
	unsigned long flags;
	struct ugs_pcpu *p;

	/* the mark is used up at any pass, counted or not */
	if (gso && (sh->gso_type & SKB_GSO_UDP_L4))
		built = ugs_take_mark(skb);
	if (!skb->dev || ugs_rx_repeat(skb->dev) || !ugs_match(skb, 0))
		return;
	p = ugs_begin(&flags);
	ugs_inc(p, UGS_RX_SKBS);
	if (gso) {
		ugs_inc(p, UGS_RX_GSO_SKBS);
		if ((sh->gso_type & SKB_GSO_UDP_L4) && !built)
			ugs_inc(p, UGS_RX_GSO_PASSTHROUGH_SKBS);
		if (sh->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
			ugs_inc(p, UGS_RX_GSO_TCP_SKBS);
			ugs_add(p, UGS_RX_GSO_TCP_SEGS, ugs_gso_segs(skb));
		}
	}
	ugs_end(p, flags);
}

/*
 * UGS_UDP_FAIL_TP_HAS_SKB: set by Kbuild when the kernel's
 * include/trace/events/udp.h passes the skb (6.10 and later)
 */
#ifdef UGS_UDP_FAIL_TP_HAS_SKB
static void ugs_udp_fail_queue_rcv_skb(void *data, int rc, struct sock *sk,
				       struct sk_buff *skb)
{
	if (ugs_match(skb, skb_network_offset(skb)))
		ugs_count(UGS_RX_UDP_QUEUE_FAILS, 1);
}
#else
/* no skb: the port filter looks at the socket's local port */
static void ugs_udp_fail_queue_rcv_skb(void *data, int rc, struct sock *sk)
{
	if (ugs_match_sock_port(sk->sk_num))
		ugs_count(UGS_RX_UDP_QUEUE_FAILS, 1);
}
#endif

/*
 * Never called: the kernel's own declarations type-check every probe, so a
 * prototype that differs on the kernel built against fails the build
 * (-Werror=incompatible-pointer-types) instead of crashing it.
 */
static void __maybe_unused ugs_check_prototypes(void)
{
	if (IS_ENABLED(CONFIG_UGS_NEVER)) {
		register_trace_net_dev_queue(ugs_net_dev_queue, NULL);
		register_trace_net_dev_start_xmit(ugs_net_dev_start_xmit, NULL);
		register_trace_net_dev_xmit(ugs_net_dev_xmit, NULL);
		register_trace_napi_gro_receive_entry(ugs_napi_gro_entry, NULL);
		register_trace_napi_gro_frags_entry(ugs_napi_gro_entry, NULL);
		register_trace_netif_receive_skb(ugs_netif_receive_skb, NULL);
		register_trace_udp_fail_queue_rcv_skb(ugs_udp_fail_queue_rcv_skb, NULL);
	}
}

/* ---- kretprobes ---- */

/* callers of __skb_gso_segment, by return address: segmenting for a device? */
#define UGS_NR_SITES	16
static struct {
	unsigned long addr;
	bool xmit;
} ugs_sites[UGS_NR_SITES];
static unsigned int ugs_nr_sites;
static DEFINE_SPINLOCK(ugs_sites_lock);
static char ugs_sym[KSYM_SYMBOL_LEN];	/* under ugs_sites_lock */

/* validate_xmit_skb(), or where it may be inlined */
static const char * const ugs_xmit_callers[] = {
	"validate_xmit_skb", "validate_xmit_skb_list", "__dev_queue_xmit",
};

static bool ugs_is_xmit_caller(const char *sym)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ugs_xmit_callers); i++) {
		size_t n = strlen(ugs_xmit_callers[i]);

		/* "name", "name.isra.0", "name [module]" */
		if (!strncmp(sym, ugs_xmit_callers[i], n) &&
		    (!sym[n] || sym[n] == '.' || sym[n] == ' '))
			return true;
	}
	return false;
}

static bool ugs_site_is_xmit(unsigned long addr)
{
	unsigned long flags;
	unsigned int i, n;
	bool xmit;

	/* pairs with the release below: entries below n are complete */
	n = smp_load_acquire(&ugs_nr_sites);

	for (i = 0; i < n; i++)
		if (ugs_sites[i].addr == addr)
			return ugs_sites[i].xmit;
	spin_lock_irqsave(&ugs_sites_lock, flags);
	sprint_symbol_no_offset(ugs_sym, addr);
	xmit = ugs_is_xmit_caller(ugs_sym);
	n = ugs_nr_sites;
	for (i = 0; i < n && ugs_sites[i].addr != addr; i++)
		;
	if (i == n && n < UGS_NR_SITES) {
		ugs_sites[n].addr = addr;
		ugs_sites[n].xmit = xmit;
		/* publish the entry before the count that covers it */
		smp_store_release(&ugs_nr_sites, n + 1);
	}
	spin_unlock_irqrestore(&ugs_sites_lock, flags);
	return xmit;
}

struct ugs_seg_data {
	bool tx_path;
};

static int ugs_gso_segment_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sk_buff *skb = (struct sk_buff *)regs_get_kernel_argument(regs, 0);
	struct ugs_seg_data *d = (struct ugs_seg_data *)ri->data;

	if (!skb_is_gso(skb) || !ugs_match(skb, skb_network_offset(skb)))
		return 1;	/* no return probe for this call */
	/* a bool: only the low byte of the register is defined */
	d->tx_path = (u8)regs_get_kernel_argument(regs, 2);
	return 0;
}

static const enum ugs_counter ugs_seg_ctr[3][3] = {
	{ UGS_TX_SW_SEGMENTED_SKBS, UGS_TX_SW_SEGMENTS, UGS_TX_SW_SEGMENT_ERRORS },
	{ UGS_RX_SW_SEGMENTED_SKBS, UGS_RX_SW_SEGMENTS, UGS_RX_SW_SEGMENT_ERRORS },
	{ UGS_OTHER_SW_SEGMENTED_SKBS, UGS_OTHER_SW_SEGMENTS, UGS_OTHER_SW_SEGMENT_ERRORS },
};

static int ugs_gso_segment_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct sk_buff *segs = (const struct sk_buff *)regs_return_value(regs);
	struct ugs_seg_data *d = (struct ugs_seg_data *)ri->data;
	const enum ugs_counter *ctr;
	unsigned long n = 0;

	/* tx_path false: udp_rcv_segment(); true: for a device, or another caller */
	if (!d->tx_path)
		ctr = ugs_seg_ctr[1];
	else if (ugs_site_is_xmit(get_kretprobe_retaddr(ri)))
		ctr = ugs_seg_ctr[0];
	else
		ctr = ugs_seg_ctr[2];
	if (IS_ERR(segs)) {
		ugs_count(ctr[2], 1);
		return 0;
	}
	/* NULL: headers verified only, nothing segmented */
	for (; segs; segs = segs->next)
		n++;
	if (n) {
		unsigned long flags;
		struct ugs_pcpu *p = ugs_begin(&flags);

		ugs_inc(p, ctr[0]);
		ugs_add(p, ctr[1], n);
		ugs_end(p, flags);
	}
	return 0;
}

struct ugs_gro_data {
	struct sk_buff *skb;
	unsigned int depth;
	bool matched;
};

/*
 * Entry and return always pair (the entry never refuses), so gro_depth follows
 * the nesting of a tunnel's outer udp4_gro_complete() calling the inner one
 * on the same skb.
 */
static int ugs_gro_complete_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sk_buff *skb = (struct sk_buff *)regs_get_kernel_argument(regs, 0);
	int nhoff = (int)regs_get_kernel_argument(regs, 1);
	struct ugs_gro_data *d = (struct ugs_gro_data *)ri->data;
	struct ugs_pcpu *p = this_cpu_ptr(ugs_stats);

	d->skb = skb;
	d->depth = p->gro_depth++;
	/* udp4/6_gro_complete() itself finds the UDP header at skb->data + nhoff */
	d->matched = ugs_match_udp_hdr(skb, skb->data + nhoff);
	if (d->depth < UGS_GRO_DEPTH)
		p->gro_done[d->depth] = NULL;
	return 0;
}

static int ugs_gro_complete_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ugs_gro_data *d = (struct ugs_gro_data *)ri->data;
	const struct skb_shared_info *sh = skb_shinfo(d->skb);
	struct ugs_pcpu *p = this_cpu_ptr(ugs_stats);
	unsigned int depth = d->depth;
	unsigned long flags;

	p->gro_depth = depth;
	/* an inner call on this skb counted the merge already */
	if (depth < UGS_GRO_DEPTH && p->gro_done[depth] == d->skb)
		goto done;
	if (regs_return_value(regs) || !(sh->gso_type & SKB_GSO_UDP_L4) ||
	    sh->gso_segs < 2 || !d->matched)
		return 0;
	p = ugs_begin(&flags);
	ugs_inc(p, UGS_RX_GRO_COALESCED_SKBS);
	ugs_add(p, UGS_RX_GRO_COALESCED_SEGS, sh->gso_segs);
	if (sh->gso_type & SKB_GSO_FRAGLIST)
		ugs_inc(p, UGS_RX_GRO_FRAGLIST_SKBS);
	ugs_hist_inc(p, UGS_HIST_RX, sh->gso_segs);
	ugs_end(p, flags);
	ugs_put_mark(d->skb);
done:
	if (depth > 0 && depth <= UGS_GRO_DEPTH)
		p->gro_done[depth - 1] = d->skb;
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
	{ .name = "net_dev_xmit",		.probe = ugs_net_dev_xmit },
	{ .name = "napi_gro_receive_entry",	.probe = ugs_napi_gro_entry },
	{ .name = "napi_gro_frags_entry",	.probe = ugs_napi_gro_entry },
	{ .name = "netif_receive_skb",		.probe = ugs_netif_receive_skb },
	{ .name = "udp_fail_queue_rcv_skb",	.probe = ugs_udp_fail_queue_rcv_skb },
};

struct ugs_krp {
	struct kretprobe krp;
	int err;
};

#define UGS_KRP(sym, entry, ret, type)					\
	{ .krp = { .kp.symbol_name = sym, .entry_handler = entry,	\
		   .handler = ret, .data_size = sizeof(type) } }

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
	/* the kernel's default is max(10, 2 * CPUs): at least that, and 64 */
	int i, n = 0, maxactive = max_t(int, 64, 2 * num_possible_cpus());

	for_each_kernel_tracepoint(ugs_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(ugs_tps); i++) {
		struct ugs_tp *t = &ugs_tps[i];

		t->err = t->tp ? tracepoint_probe_register(t->tp, t->probe, NULL) : -ENOENT;
		if (!t->err)
			n++;
	}
	for (i = 0; i < ARRAY_SIZE(ugs_krps); i++) {
		ugs_krps[i].krp.maxactive = maxactive;
		ugs_krps[i].err = register_kretprobe(&ugs_krps[i].krp);
		if (!ugs_krps[i].err)
			n++;
	}
	if (n)
		return 0;
	pr_err("no hook could be attached\n");
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

		seq_printf(m, "kretprobe %s %s err=%d missed=%d maxactive=%d\n",
			   k->krp.kp.symbol_name, ugs_state(k->err), k->err,
			   k->err ? 0 : k->krp.nmissed, k->krp.maxactive);
	}
}
