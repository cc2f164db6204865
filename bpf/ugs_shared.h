/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): what the BPF programs and the userspace tool share.
 * The counters are the module's, in the same order, with the same names
 * and meanings: kmod/ugs_counters.h, the one list of both.
 * Included after vmlinux.h in BPF, after <linux/types.h> in userspace.
 */
#ifndef _UGS_SHARED_H
#define _UGS_SHARED_H

#include "../kmod/ugs_counters.h"

/* one per CPU (a BPF_MAP_TYPE_PERCPU_ARRAY of one element) */
struct ugs_stats {
	__u64 cnt[UGS_NR_COUNTERS];
	__u64 hist[UGS_NR_HIST][UGS_HIST_MAX + 1];
};

/*
 * Why the programs did not count what GRO built (issue 25): each reason a
 * GRO mark was refused, or a GRO-built skb (a UDP GSO skb at
 * netif_receive_skb whose mark was found) was left out, so that a counter
 * disagreement names its path.  Counted for every such skb on the machine,
 * the filter's reasons included (another port: another run's GRO traffic).
 */
enum ugs_rej {
	UGS_REJ_MARK_STALE,	/* a UDP GSO skb's mark older than 1 s */
	UGS_REJ_MARK_HEAD,	/* a UDP GSO skb's mark of another head */
	UGS_REJ_MARK_LEFTOVER,	/* another skb's mark of another head: a freed skb's */
	UGS_REJ_FEW_SEGS,	/* mark taken, fewer than 2 segments: not coalesced */
	UGS_REJ_REPEAT,		/* marked, at a repeat pass (upper or tunnel device) */
	UGS_REJ_F_DEV,		/* marked, the dev filter: another device */
	UGS_REJ_F_READ,		/* marked, its IP header unreadable */
	UGS_REJ_F_PROTO,	/* marked, neither IPv4 nor IPv6 */
	UGS_REJ_F_FRAG,		/* marked, an IPv4 fragment or ihl < 5 */
	UGS_REJ_F_L4,		/* marked, neither UDP nor TCP after the IP header */
	UGS_REJ_F_PORT,		/* marked, another port */
	UGS_NR_REJ
};

enum ugs_filter_type {
	UGS_FILTER_NONE,
	UGS_FILTER_PORT,
	UGS_FILTER_DEV,
};

#define UGS_IFNAMSIZ	16

/* UDPGSO_STATS_DIAG (issue 25): one run of the witness (bpf/ugs_diag.bpf.h) */
#define UGS_WRING	4096	/* runs kept; a power of two */
struct ugs_wrun {
	__u64 skb;
	__u64 ts;	/* bpf_ktime_get_ns() */
	__u32 cpu;
	__u32 len;
};

/*
 * Where consume_skb()/kfree_skb() were called from, for the counters derived
 * from those tracepoints when fexit is refused: [lo, hi) text ranges found in
 * /proc/kallsyms by the tool.
 */
enum ugs_range {
	UGS_R_VALIDATE_XMIT,	/* validate_xmit_skb: tx software segmentation */
	UGS_R_UDP4_RCV,		/* udp_queue_rcv_skb: udp_rcv_segment() inlined */
	UGS_R_UDP6_RCV,		/* udpv6_queue_rcv_skb: the same for IPv6 */
	UGS_R_XMIT_LIST,	/* validate_xmit_skb_list, __dev_queue_xmit: where */
	UGS_R_DEV_QUEUE_XMIT,	/* validate_xmit_skb may be inlined (fexit callers) */
	UGS_R_KERNEL_TEXT,	/* _stext.._etext: the first caller outside BPF */
	UGS_NR_RANGES
};

#endif /* _UGS_SHARED_H */
