/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats: per-skb GSO/GRO counters in debugfs.
 * Shared declarations of the debugfs side (ugs_main.c), the per-CPU counters
 * (ugs_stats.c) and the hooks (ugs_hooks.c).
 */
#ifndef _UGS_H
#define _UGS_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include "ugs_counters.h"

/* what a reset zeroes: counters and histograms together */
struct ugs_block {
	u64_stats_t cnt[UGS_NR_COUNTERS];
	u64_stats_t hist[UGS_NR_HIST][UGS_HIST_MAX + 1];
};

/* skbs that udp{4,6}_gro_complete() built, remembered until netif_receive_skb sees them */
#define UGS_NR_MARKS	32
struct ugs_mark {
	const void *skb;
	const void *head;
	unsigned long when;
};

/* transmit nesting (dev_recursion_level()) followed this deep */
#define UGS_TX_DEPTH	8

/* a net_dev_queue pass that a nested pass may replace */
struct ugs_txq {
	unsigned long gen;	/* reset generation it was counted in */
	unsigned int segs;	/* gso_segs counted, 0: none (not GSO, or unknown) */
	u32 gso_type;
	bool pending;		/* no nested pass replaced it yet */
	bool counted;		/* it matched the filter and was counted */
	bool gso;
};

/* a net_dev_start_xmit waiting for its net_dev_xmit */
struct ugs_txx {
	const void *skb;	/* compared only, never dereferenced */
	bool matched;
	bool gso;
	bool nested;		/* a net_dev_queue ran inside this transmit */
};

/* nested udp{4,6}_gro_complete calls (tunnels) followed this deep */
#define UGS_GRO_DEPTH	4

struct ugs_pcpu {
	struct u64_stats_sync syncp;
	unsigned long gen;	/* reset generation of blk */
	struct ugs_block blk;
	struct ugs_txq txq[UGS_TX_DEPTH];
	struct ugs_txx txx[UGS_TX_DEPTH];
	struct ugs_mark marks[UGS_NR_MARKS];
	unsigned int mark_pos;
	unsigned int gro_depth;
	const void *gro_done[UGS_GRO_DEPTH];
	const void *kind_ops;	/* last rtnl_link_ops looked at, and its verdict */
	bool kind_tunnel;
};

enum ugs_filter_type {
	UGS_FILTER_PORT = 1,
	UGS_FILTER_DEV,
};

struct ugs_filter {
	enum ugs_filter_type type;
	u16 port;
	char dev[IFNAMSIZ];
	u64 net_cookie;		/* dev: the writer's network namespace */
	struct rcu_head rcu;
};

extern struct ugs_pcpu __percpu *ugs_stats;
extern struct ugs_filter __rcu *ugs_active_filter;
extern unsigned long ugs_gen;

void ugs_renew(struct ugs_pcpu *p, unsigned long gen);

/*
 * Start an update of this CPU's counters (preemption is off in every probe).
 * The first update after a reset zeroes this CPU's block.
 */
static inline struct ugs_pcpu *ugs_begin(unsigned long *flags)
{
	struct ugs_pcpu *p = this_cpu_ptr(ugs_stats);
	unsigned long gen = READ_ONCE(ugs_gen);

	if (unlikely(READ_ONCE(p->gen) != gen))
		ugs_renew(p, gen);
	*flags = u64_stats_update_begin_irqsave(&p->syncp);
	return p;
}

static inline void ugs_end(struct ugs_pcpu *p, unsigned long flags)
{
	u64_stats_update_end_irqrestore(&p->syncp, flags);
}

/* between ugs_begin() and ugs_end() */
static inline void ugs_add(struct ugs_pcpu *p, enum ugs_counter c, unsigned long v)
{
	u64_stats_add(&p->blk.cnt[c], v);
}

static inline void ugs_sub(struct ugs_pcpu *p, enum ugs_counter c, unsigned long v)
{
	u64_stats_sub(&p->blk.cnt[c], v);
}

static inline void ugs_inc(struct ugs_pcpu *p, enum ugs_counter c)
{
	u64_stats_inc(&p->blk.cnt[c]);
}

static inline void ugs_hist_inc(struct ugs_pcpu *p, enum ugs_hist h, unsigned int segs)
{
	u64_stats_inc(&p->blk.hist[h][min_t(unsigned int, segs, UGS_HIST_MAX)]);
}

static inline void ugs_hist_dec(struct ugs_pcpu *p, enum ugs_hist h, unsigned int segs)
{
	u64_stats_sub(&p->blk.hist[h][min_t(unsigned int, segs, UGS_HIST_MAX)], 1);
}

/* one-counter update */
static inline void ugs_count(enum ugs_counter c, unsigned long v)
{
	unsigned long flags;
	struct ugs_pcpu *p = ugs_begin(&flags);

	ugs_add(p, c, v);
	ugs_end(p, flags);
}

void ugs_reset(void);
/* sums over CPUs of the current generation; cnt[UGS_NR_COUNTERS], hist may be NULL */
typedef u64 ugs_hist_row[UGS_HIST_MAX + 1];
void ugs_read(u64 *cnt, ugs_hist_row *hist);

/* nh_off: where the IP header is, relative to skb->data */
bool ugs_match(const struct sk_buff *skb, int nh_off);
bool ugs_match_udp_hdr(const struct sk_buff *skb, const void *uh);
bool ugs_match_sock_port(u16 port);

int ugs_hooks_attach(void);
void ugs_hooks_detach(void);
void ugs_hooks_show(struct seq_file *m);

#endif /* _UGS_H */
