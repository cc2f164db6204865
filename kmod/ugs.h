/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats: per-skb GSO/GRO counters in debugfs.
 * Shared declarations of the debugfs side (ugs_main.c) and the hooks (ugs_hooks.c).
 */
#ifndef _UGS_H
#define _UGS_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>

enum ugs_counter {
	UGS_TX_SKBS,
	UGS_TX_GSO_SKBS,
	UGS_TX_GSO_UDP_L4_SKBS,
	UGS_TX_GSO_TCP_SKBS,
	UGS_TX_GSO_FRAGLIST_SKBS,
	UGS_TX_GSO_SEGS,
	UGS_TX_DEV_SKBS,
	UGS_TX_DEV_GSO_SKBS,
	UGS_TX_SW_SEGMENTED_SKBS,
	UGS_TX_SW_SEGMENTS,
	UGS_TX_SW_SEGMENT_ERRORS,
	UGS_RX_GRO_IN,
	UGS_RX_SKBS,
	UGS_RX_GSO_SKBS,
	UGS_RX_GRO_COALESCED_SKBS,
	UGS_RX_GRO_COALESCED_SEGS,
	UGS_RX_GRO_FRAGLIST_SKBS,
	UGS_RX_GSO_PASSTHROUGH_SKBS,
	UGS_RX_SW_SEGMENTED_SKBS,
	UGS_RX_SW_SEGMENTS,
	UGS_RX_SW_SEGMENT_ERRORS,
	UGS_RX_UDP_QUEUE_FAILS,
	UGS_NR_COUNTERS
};

/* histogram of gso_segs: bucket i counts skbs of i segments, the last one "or more" */
#define UGS_HIST_MAX	256
enum ugs_hist {
	UGS_HIST_TX,
	UGS_HIST_RX,
	UGS_NR_HIST
};

/* skbs that udp{4,6}_gro_complete() built, remembered until netif_receive_skb sees them */
#define UGS_NR_MARKS	32
struct ugs_mark {
	const void *skb;
	const void *head;
	unsigned long when;
};

struct ugs_pcpu {
	u64 cnt[UGS_NR_COUNTERS];
	u64 hist[UGS_NR_HIST][UGS_HIST_MAX + 1];
	struct ugs_mark marks[UGS_NR_MARKS];
	unsigned int mark_pos;
};

enum ugs_filter_type {
	UGS_FILTER_PORT = 1,
	UGS_FILTER_DEV,
};

struct ugs_filter {
	enum ugs_filter_type type;
	u16 port;
	char dev[IFNAMSIZ];
	struct rcu_head rcu;
};

extern struct ugs_pcpu __percpu *ugs_stats;
extern struct ugs_filter __rcu *ugs_active_filter;

static inline void ugs_inc(enum ugs_counter c)
{
	this_cpu_inc(ugs_stats->cnt[c]);
}

static inline void ugs_add(enum ugs_counter c, u64 v)
{
	this_cpu_add(ugs_stats->cnt[c], v);
}

static inline void ugs_hist_inc(enum ugs_hist h, unsigned int segs)
{
	this_cpu_inc(ugs_stats->hist[h][min_t(unsigned int, segs, UGS_HIST_MAX)]);
}

/* nh_off: where the IP header is, relative to skb->data */
bool ugs_match(const struct sk_buff *skb, int nh_off);
bool ugs_match_udp_hdr(const struct sk_buff *skb, const void *uh);

int ugs_hooks_attach(void);
void ugs_hooks_detach(void);
void ugs_hooks_show(struct seq_file *m);

#endif /* _UGS_H */
