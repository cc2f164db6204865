// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats (BPF): the module's per-skb GSO/GRO counters (kmod/), from BPF,
 * with the module's rule: each skb once per direction, tx at the device that
 * hands it to a driver or a peer (a pass nested in an upper device's transmit
 * replaces that device's pass), rx at its first receive pass (passes at upper
 * and tunnel devices are repeats); docs/kmod.md and docs/bpf.md.
 *
 *   tp_btf/net_dev_queue            tx skb before software segmentation
 *   tp_btf/net_dev_start_xmit       what the driver gets ...
 *   tp_btf/net_dev_xmit             ... and whether it took it
 *   tp_btf/napi_gro_receive_entry, napi_gro_frags_entry   packets entering GRO
 *   tp_btf/napi_gro_receive_exit, napi_gro_frags_exit     (derived) merged into another
 *   tp_btf/netif_receive_skb        what GRO (or the backlog) hands to the stack
 *   tp_btf/udp_fail_queue_rcv_skb   UDP receive queue failures (with or without skb)
 *   tp_btf/skb_copy_datagram_iovec  a GRO skb a socket reads with its mark still held:
 *                                   no netif_receive_skb run took it (ugs_late.bpf.h)
 *   fexit/__skb_gso_segment         software segmentation (tx_path: for a device or
 *                                   another caller: told by where consume_skb or
 *                                   kfree_skb frees the GSO skb next, 6.3+)
 *   fexit/udp4_gro_complete, fexit/udp6_gro_complete   UDP GRO results
 *
 * Where fexit is refused (EPERM on a kernel without the trampoline or under a
 * policy), the tool loads the "derived" programs instead:
 *   tp_btf/consume_skb, tp_btf/kfree_skb   the GSO skb freed after software
 *       segmentation, told apart by where it is freed (validate_xmit_skb: tx;
 *       udp_queue_rcv_skb/udpv6_queue_rcv_skb, where udp_rcv_segment() is
 *       inlined: rx), its gso_segs taken as the number of segments;
 *   an skb seen at napi_gro_receive_entry without GSO and at netif_receive_skb
 *       as a UDP GSO skb of 2+ segments, matched by address and head: coalesced.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "ugs_shared.h"

char LICENSE[] SEC("license") = "GPL";

#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define IP_OFFSET	0x1fff
#define PROTO_TCP	6
#define PROTO_UDP	17
#define NSEC_PER_SEC	1000000000ULL
#define NETDEV_TX_BUSY	0x10
#define ENOENT		2
#define E2BIG		7
/* transmit nesting followed (the module's UGS_TX_DEPTH) */
#define UGS_TX_DEPTH	8	/* a power of two: indexes are masked */
#define UGS_TX_MASK	(UGS_TX_DEPTH - 1)
/* more than any GSO skb has segments: the walk of a segment list stops here */
#define UGS_MAX_WALK	1024

/* set by the tool before load */
const volatile __u32 ugs_filter_type;
const volatile __u16 ugs_filter_port;
const volatile char ugs_filter_dev[UGS_IFNAMSIZ];
const volatile __u32 ugs_filter_netns;	/* dev filter: the tool's netns (inode) */
const volatile bool ugs_derived_gro;	/* no fexit on udp*_gro_complete */
/* fexit mode with consume_skb's location: segmentation classified where freed */
const volatile bool ugs_seg_by_free;
const volatile __u64 ugs_range[UGS_NR_RANGES][2];
/* the benchmark's floor (UDPGSO_STATS_EMPTY): every program returns at once */
const volatile bool ugs_empty;
/*
 * UDPGSO_STATS_DIAG=skip-netif (tests, issue 25): the counting program on
 * netif_receive_skb returns at once, as if the kernel had not run it
 */
const volatile bool ugs_skip_netif;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ugs_stats);
} ugs_stats SEC(".maps");

/* reset generation: the tool bumps it when it zeroes the counters */
__u32 ugs_gen;
/*
 * set (once) before the first GRO mark is put: until then ugs_marks is
 * empty and netif_receive_skb skips its lookup (a host or namespace without
 * GRO traffic, like lo, never pays for it)
 */
__u32 ugs_marks_used;
/*
 * the GRO marks' own health, printed as a comment beside the counters (not
 * counters of the module's set): marks the map refused to store
 */
__u64 ugs_mark_put_errors;
__u64 ugs_mark_full;		/* of which: the map was full (E2BIG) */
/* marks refused and GRO-built skbs left out, by reason (enum ugs_rej) */
__u64 ugs_rej[UGS_NR_REJ];
/* marks deleted because GRO merged (or consumed) their skb: never counted */
__u64 ugs_mark_merged;
/*
 * mark deletes the map refused (not -ENOENT: its bucket lock, an rqspinlock
 * since 6.15, can give up): the mark stays, and a held one then reads as a
 * GRO skb not seen at netif_receive_skb although it was counted
 */
__u64 ugs_mark_del_errors;
/*
 * issue 25: the filter's skbs that entered GRO (rx_gro_in) and were neither
 * merged away nor seen at netif_receive_skb.  Every mark of such an skb is
 * "held" (ugs_mark.held): ugs_held_in counts them put, ugs_held_out taken
 * (netif_receive_skb), deleted (merged at the _exit) or replaced; a mark
 * replaced while still held (its skb was freed without a netif_receive_skb
 * run of ours: GRO dropped it, or the kernel never ran the program on it)
 * is also counted in ugs_held_lost.  The tool reports in - out (since the
 * reset) + lost as skbs not seen at netif_receive_skb: 0 once the traffic is
 * through, else the counters are incomplete, never silently short.
 */
__u64 ugs_held_in;
__u64 ugs_held_out;
__u64 ugs_held_lost;
/*
 * held marks put before the last reset (ugs_mark.gen), accounted for since:
 * not this run's skbs (a held mark left by an skb no program of ours saw,
 * reported as not seen in the run that sent it, met again when its address
 * comes back, maybe many runs later), so kept out of ugs_held_out/_lost and
 * named apart, of which lost
 */
__u64 ugs_held_old_out;
__u64 ugs_held_old_lost;
/*
 * the last lost held mark (diag line): its age (ns), held flags (UGS_LOST_*
 * added), when it was found (bpf_ktime_get_ns), the address, and the finding
 * skb's len and ugs_match_why() (-2: a GRO entry's mark replaced it)
 */
__u64 ugs_lost_age;
__u64 ugs_lost_held;
__u64 ugs_lost_at;
__u64 ugs_lost_skb;
__u64 ugs_lost_len;
__s64 ugs_lost_why;

/* a tx queue pass at one depth, until a nested pass replaces it */
struct ugs_txq {
	__u32 gso_type;
	__u32 segs;
	__u32 gen;
	__u8 counted;
	__u8 gso;
	__u8 pending;
};

/* a transmit at one depth, from net_dev_start_xmit to net_dev_xmit */
struct ugs_txx {
	__u64 skb;
	__u8 matched;
	__u8 gso;
	__u8 nested;
};

struct ugs_state {
	struct ugs_txq txq[UGS_TX_DEPTH];
	struct ugs_txx txx[UGS_TX_DEPTH];
	__u64 seg_skb;		/* fexit mode: segmented (tx_path), not yet freed */
	__u32 seg_n;
	__u8 seg_err;
	__u32 depth;		/* transmits open on this CPU (start_xmit, not yet xmit) */
	__u64 kind_ops;		/* the last rtnl_link_ops looked at, and */
	__u8 kind_tunnel;	/* whether its kind is a tunnel */
	__u64 gro_skb;		/* derived: the skb inside napi_gro_receive/frags, */
	__u64 gro_head;		/* its head, until the _exit tracepoint */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ugs_state);
} ugs_state SEC(".maps");

/*
 * skb address -> its head and when: marked by udp*_gro_complete (fexit), or,
 * derived, every non-GSO skb entering GRO;
 * looked up at netif_receive_skb.  Derived, the packets GRO merged into
 * another skb never reach netif_receive_skb: napi_gro_receive_exit (or
 * napi_gro_frags_exit) says GRO_MERGED/GRO_MERGED_FREE/GRO_CONSUMED and their
 * mark is deleted there, so the map holds only the skbs GRO holds or is about
 * to deliver.  A plain hash, not an LRU: an LRU evicted fresh marks silently
 * (its per-CPU free lists evict before the map is full: a merged skb then
 * counted as passthrough); a full hash refuses the update, and that is
 * counted (ugs_mark_full) and reported, never silent.
 */
struct ugs_mark {
	__u64 head;
	__u64 when;
	__u64 held;	/* 1: an skb of the filter's, in ugs_held_in */
	__u64 gen;	/* ugs_gen when put: before the last reset or since */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct ugs_mark);
} ugs_marks SEC(".maps");

static __always_inline struct ugs_stats *ugs_this(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ugs_stats, &zero);
}

/*
 * the counters: S is this CPU's (ugs_this(), looked up once per program run);
 * a NULL S (never, for a one-element array) counts nothing
 */
static __always_inline void ugs_add(struct ugs_stats *s, enum ugs_counter c, __u64 v)
{
	if (s && c < UGS_NR_COUNTERS)
		s->cnt[c] += v;
}

static __always_inline void ugs_inc(struct ugs_stats *s, enum ugs_counter c)
{
	ugs_add(s, c, 1);
}

static __always_inline void ugs_hist_add(struct ugs_stats *s, enum ugs_hist h, __u32 segs,
					 __u64 v)
{
	if (segs > UGS_HIST_MAX)
		segs = UGS_HIST_MAX;
	if (s && h < UGS_NR_HIST)
		s->hist[h][segs] += v;
}

/*
 * the same, ATOMIC for a program run in process context with BHs on, where
 * a softirq on this CPU can run a counting program between a plain load and
 * its store (every other writer runs in softirq or with BHs off, where
 * nothing of ours interrupts it: plain adds); ATOMIC is a constant at each
 * call, so the plain path compiles as before
 */
static __always_inline void ugs_add_x(struct ugs_stats *s, enum ugs_counter c, __u64 v,
				      bool atomic)
{
	if (!atomic)
		ugs_add(s, c, v);
	else if (s && c < UGS_NR_COUNTERS)
		__sync_fetch_and_add(&s->cnt[c], v);
}

static __always_inline void ugs_hist_add_x(struct ugs_stats *s, enum ugs_hist h, __u32 segs,
					   __u64 v, bool atomic)
{
	if (!atomic) {
		ugs_hist_add(s, h, segs, v);
		return;
	}
	if (segs > UGS_HIST_MAX)
		segs = UGS_HIST_MAX;
	/* checked again after the barrier, on the register the verifier sees used */
	asm volatile("" : "+r"(segs));
	if (s && h < UGS_NR_HIST && segs <= UGS_HIST_MAX)
		__sync_fetch_and_add(&s->hist[h][segs], v);
}

static __always_inline struct ugs_state *ugs_st(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ugs_state, &zero);
}

/* an index into txq/txx the verifier sees bounded (the mask kept after the range check) */
static __always_inline __u32 ugs_idx(__u32 d)
{
	asm volatile("" : "+r"(d));
	return d & UGS_TX_MASK;
}

/*
 * dev_recursion_level(), followed from the net_dev_start_xmit/net_dev_xmit
 * pairs (xmit_one() always emits both): the per-CPU variable itself needs
 * CONFIG_KALLSYMS_ALL to be read from BPF, which this host's kernel lacks.
 * Unlike the kernel's counter it also counts a transmit from a qdisc.
 */
static __always_inline __u32 ugs_depth(const struct ugs_state *st)
{
	return st ? st->depth : 0;
}

#include "ugs_skb.bpf.h"

static __always_inline void ugs_reject(int why)
{
	if (why >= 0 && why < UGS_NR_REJ)
		__sync_fetch_and_add(&ugs_rej[why], 1);
}

/* ---- tx ---- */

static __always_inline void ugs_tx_account(struct ugs_stats *s, const struct ugs_txq *q,
					   bool undo)
{
	__u64 one = undo ? (__u64)-1 : 1;

	ugs_add(s, UGS_TX_SKBS, one);
	if (!q->gso)
		return;
	ugs_add(s, UGS_TX_GSO_SKBS, one);
	if (q->gso_type & SKB_GSO_UDP_L4)
		ugs_add(s, UGS_TX_GSO_UDP_L4_SKBS, one);
	if (q->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6))
		ugs_add(s, UGS_TX_GSO_TCP_SKBS, one);
	if (q->gso_type & SKB_GSO_FRAGLIST)
		ugs_add(s, UGS_TX_GSO_FRAGLIST_SKBS, one);
	if (!q->segs) {
		ugs_add(s, UGS_TX_GSO_SEGS_UNKNOWN_SKBS, one);
		return;
	}
	ugs_add(s, UGS_TX_GSO_SEGS, undo ? -(__u64)q->segs : q->segs);
	ugs_hist_add(s, UGS_HIST_TX, q->segs, one);
}

static __always_inline int ugs_dev_queue(const struct sk_buff *skb, bool rc)
{
	struct ugs_stats *s = ugs_this();
	struct ugs_state *st = ugs_st();
	struct ugs_txq q = {};
	struct ugs_gso g;
	__u32 d;

	if (ugs_empty || !st)
		return 0;
	d = st->depth;
	q.counted = ugs_match(skb, NULL);
	ugs_gso_of(skb, &g, rc);
	q.gso = !!g.size;
	if (q.gso) {
		q.gso_type = g.type;
		q.segs = ugs_segs(skb, &g);
	}
	q.gen = ugs_gen;
	q.pending = 1;
	/* inside the transmit of the device queued at depth d - 1: replace it */
	if (d > 0 && d < UGS_TX_DEPTH && st->txx[ugs_idx(d)].skb) {
		struct ugs_txq *slot = &st->txq[ugs_idx(d - 1)];

		st->txx[ugs_idx(d)].nested = 1;
		if (slot->pending) {
			slot->pending = 0;
			/* not when a reset came in between: it was zeroed */
			if (slot->counted && slot->gen == q.gen)
				ugs_tx_account(s, slot, true);
		}
	}
	if (q.counted)
		ugs_tx_account(s, &q, false);
	if (d < UGS_TX_DEPTH)
		st->txq[ugs_idx(d)] = q;
	return 0;
}

SEC("tp_btf/net_dev_queue")
int BPF_PROG(ugs_net_dev_queue, struct sk_buff *skb)
{
	return ugs_dev_queue(skb, false);
}

SEC("tp_btf/net_dev_queue")
int BPF_PROG(ugs_net_dev_queue_rc, struct sk_buff *skb)
{
	return ugs_dev_queue(skb, true);
}

static __always_inline int ugs_start_xmit(const struct sk_buff *skb, bool rc)
{
	struct ugs_state *st;
	struct ugs_stats *s;
	struct ugs_gso g;
	__u32 d;

	if (ugs_empty)
		return 0;
	st = ugs_st();
	if (st)
		st->depth++;
	d = ugs_depth(st);
	ugs_gso_of(skb, &g, rc);
	if (st && d < UGS_TX_DEPTH) {
		struct ugs_txx *x = &st->txx[ugs_idx(d)];

		x->skb = (__u64)skb;
		x->matched = ugs_match(skb, NULL);
		x->gso = !!g.size;
		x->nested = 0;
		return 0;
	}
	/* deeper than followed: counted here, even if the driver says busy */
	if (!ugs_match(skb, NULL))
		return 0;
	s = ugs_this();
	ugs_inc(s, UGS_TX_DEV_SKBS);
	if (g.size)
		ugs_inc(s, UGS_TX_DEV_GSO_SKBS);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(ugs_net_dev_start_xmit, const struct sk_buff *skb, const struct net_device *dev)
{
	return ugs_start_xmit(skb, false);
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(ugs_net_dev_start_xmit_rc, const struct sk_buff *skb, const struct net_device *dev)
{
	return ugs_start_xmit(skb, true);
}

/* after ndo_start_xmit: the skb may be freed, only its address is compared */
SEC("tp_btf/net_dev_xmit")
int BPF_PROG(ugs_net_dev_xmit, struct sk_buff *skb, int rc)
{
	struct ugs_state *st;
	struct ugs_stats *s;
	struct ugs_txx *x;
	__u32 d;

	if (ugs_empty)
		return 0;
	st = ugs_st();
	if (!st)
		return 0;
	d = st->depth;
	/* attached in the middle of a transmit: no start_xmit, nothing open */
	if (st->depth > 0)
		st->depth--;
	if (d >= UGS_TX_DEPTH)
		return 0;
	x = &st->txx[ugs_idx(d)];
	if (x->skb != (__u64)skb)
		return 0;
	x->skb = 0;
	/* busy: requeued, counted when taken; nested: a lower device counts it */
	if (rc == NETDEV_TX_BUSY || x->nested || !x->matched)
		return 0;
	s = ugs_this();
	ugs_inc(s, UGS_TX_DEV_SKBS);
	if (x->gso)
		ugs_inc(s, UGS_TX_DEV_GSO_SKBS);
	return 0;
}

/* ---- rx ---- */

/* devices that only receive skbs already received on another device */
#define UGS_NR_KINDS	16
#define UGS_KIND_LEN	12
static const char ugs_tunnel_kinds[UGS_NR_KINDS][UGS_KIND_LEN] = {
	"vxlan", "geneve", "bareudp", "gre", "gretap", "erspan", "ip6gre", "ip6gretap",
	"ip6erspan", "ipip", "ip6tnl", "sit", "vti", "vti6", "xfrm", "wireguard",
};

static __always_inline bool ugs_kind_is_tunnel(const char *kind)
{
	int i, j;

	for (i = 0; i < UGS_NR_KINDS; i++) {
		for (j = 0; j < UGS_KIND_LEN; j++) {
			if (kind[j] != ugs_tunnel_kinds[i][j])
				break;
			if (!kind[j])
				return true;
		}
	}
	return false;
}

/* a repeat pass: an upper device (it has lower ones) or a tunnel */
static __always_inline bool ugs_rx_repeat(const struct sk_buff *skb)
{
	const struct net_device *dev = skb->dev;
	const struct rtnl_link_ops *ops;
	char kind[UGS_KIND_LEN] = {};
	struct ugs_state *st;
	const char *kp;
	bool tunnel;

	if (!dev)
		return true;
	/* bridge, bond, team, vlan, macvlan, ipvlan, vrf... */
	if ((void *)dev->adj_list.lower.next != (void *)&dev->adj_list.lower)
		return true;
	ops = dev->rtnl_link_ops;
	if (!ops)
		return false;
	st = ugs_st();
	if (st && st->kind_ops == (__u64)ops)
		return st->kind_tunnel;
	kp = ops->kind;
	if (!kp || bpf_probe_read_kernel_str(kind, sizeof(kind), kp) < 0)
		return false;
	tunnel = ugs_kind_is_tunnel(kind);
	if (st) {
		st->kind_ops = (__u64)ops;
		st->kind_tunnel = tunnel;
	}
	return tunnel;
}

#include "ugs_marks.bpf.h"	/* the GRO marks: put, merged away, taken */

/* a GRO-built skb G counted as coalesced (ATOMIC: see ugs_add_x) */
static __always_inline void ugs_coalesced(struct ugs_stats *s, const struct ugs_gso *g,
					  bool atomic)
{
	ugs_add_x(s, UGS_RX_GRO_COALESCED_SKBS, 1, atomic);
	ugs_add_x(s, UGS_RX_GRO_COALESCED_SEGS, g->segs, atomic);
	if (g->type & SKB_GSO_FRAGLIST)
		ugs_add_x(s, UGS_RX_GRO_FRAGLIST_SKBS, 1, atomic);
	ugs_hist_add_x(s, UGS_HIST_RX, g->segs, 1, atomic);
}

static __always_inline int ugs_receive_skb(const struct sk_buff *skb, bool rc)
{
	const unsigned char *nh = skb->data;
	struct ugs_stats *s;
	bool built = false;
	struct ugs_gso g;
	int mk = 0, why;

	if (ugs_empty || ugs_skip_netif)
		return 0;
	s = ugs_this();
	ugs_gso_of(skb, &g, rc);
	why = ugs_match_why(skb, nh);
	/* the mark is used up at any pass, counted or not */
	if (g.size && (g.type & SKB_GSO_UDP_L4)) {
		mk = ugs_take_mark(skb, true, why);
		built = mk > 0;
		/* derived: it entered GRO without GSO and leaves as a UDP GSO skb */
		if (ugs_derived_gro && built) {
			built = g.segs >= 2;
			if (!built)
				ugs_reject(UGS_REJ_FEW_SEGS);
			else if (why == UGS_MATCH)
				ugs_coalesced(s, &g, false);
		}
	} else if (ugs_derived_gro) {
		ugs_take_mark(skb, false, why);	/* entered GRO, left alone */
	}
	if (ugs_rx_repeat(skb)) {
		/* a GRO-built or UDP GSO skb of the filter's at a repeat pass */
		if (mk || (why == UGS_MATCH && (g.type & SKB_GSO_UDP_L4)))
			ugs_reject(UGS_REJ_REPEAT);
		return 0;
	}
	if (why != UGS_MATCH) {
		/*
		 * a GRO-built skb of another port or device, or any UDP GSO skb
		 * the filter could not read (not IP, a fragment, ...): named
		 */
		if (mk || ((g.type & SKB_GSO_UDP_L4) && why != UGS_REJ_F_PORT &&
			   why != UGS_REJ_F_DEV))
			ugs_reject(why);
		return 0;
	}
	ugs_inc(s, UGS_RX_SKBS);
	if (!g.size)
		return 0;
	ugs_inc(s, UGS_RX_GSO_SKBS);
	if ((g.type & SKB_GSO_UDP_L4) && !built)
		ugs_inc(s, UGS_RX_GSO_PASSTHROUGH_SKBS);
	if (g.type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
		ugs_inc(s, UGS_RX_GSO_TCP_SKBS);
		ugs_add(s, UGS_RX_GSO_TCP_SEGS, ugs_segs(skb, &g));
	}
	return 0;
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(ugs_netif_receive_skb, struct sk_buff *skb)
{
	return ugs_receive_skb(skb, false);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(ugs_netif_receive_skb_rc, struct sk_buff *skb)
{
	return ugs_receive_skb(skb, true);
}

/* since 6.10 the tracepoint has the skb */
SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(ugs_udp_fail_skb, int rc, struct sock *sk, struct sk_buff *skb)
{
	if (!ugs_empty && ugs_match(skb, NULL))
		ugs_inc(ugs_this(), UGS_RX_UDP_QUEUE_FAILS);
	return 0;
}

/* before: filter on the socket's local port, a dev filter never matches */
SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(ugs_udp_fail_sk, int rc, struct sock *sk)
{
	if (ugs_empty || ugs_filter_type == UGS_FILTER_DEV)
		return 0;
	if (ugs_filter_type == UGS_FILTER_PORT &&
	    sk->__sk_common.skc_num != ugs_filter_port)
		return 0;
	ugs_inc(ugs_this(), UGS_RX_UDP_QUEUE_FAILS);
	return 0;
}

/* ---- fexit ---- */

/* a tx_path segmentation whose skb was not seen freed: another caller's */
static __always_inline void ugs_seg_other(struct ugs_state *st)
{
	struct ugs_stats *s;

	if (!st->seg_skb)
		return;
	s = ugs_this();
	if (st->seg_err) {
		ugs_inc(s, UGS_OTHER_SW_SEGMENT_ERRORS);
	} else {
		ugs_inc(s, UGS_OTHER_SW_SEGMENTED_SKBS);
		ugs_add(s, UGS_OTHER_SW_SEGMENTS, st->seg_n);
	}
	st->seg_skb = 0;
}

/* fexit mode: the skb __skb_gso_segment just segmented (tx_path), freed at LOC */
static __always_inline void ugs_seg_freed(const struct sk_buff *skb, __u64 loc)
{
	struct ugs_state *st = ugs_st();
	struct ugs_stats *s;
	bool xmit;

	if (!st || !st->seg_skb || st->seg_skb != (__u64)skb)
		return;
	xmit = (loc >= ugs_range[UGS_R_VALIDATE_XMIT][0] &&
		loc < ugs_range[UGS_R_VALIDATE_XMIT][1]) ||
	       (loc >= ugs_range[UGS_R_XMIT_LIST][0] && loc < ugs_range[UGS_R_XMIT_LIST][1]) ||
	       (loc >= ugs_range[UGS_R_DEV_QUEUE_XMIT][0] &&
		loc < ugs_range[UGS_R_DEV_QUEUE_XMIT][1]);
	if (!xmit) {
		ugs_seg_other(st);
		return;
	}
	s = ugs_this();
	if (st->seg_err) {
		ugs_inc(s, UGS_TX_SW_SEGMENT_ERRORS);
	} else {
		ugs_inc(s, UGS_TX_SW_SEGMENTED_SKBS);
		ugs_add(s, UGS_TX_SW_SEGMENTS, st->seg_n);
	}
	st->seg_skb = 0;
}

SEC("fexit/__skb_gso_segment")
int BPF_PROG(ugs_gso_segment, struct sk_buff *skb, netdev_features_t features, bool tx_path,
	     struct sk_buff *segs)
{
	enum ugs_counter c_skbs, c_segs, c_err;
	struct ugs_stats *s;
	struct ugs_gso g;
	__u64 n = 0;
	int i;

	if (ugs_empty)
		return 0;
	ugs_gso_of(skb, &g, false);
	if (!g.size || !ugs_match(skb, NULL))
		return 0;
	bool err = (unsigned long)segs >= (unsigned long)-4095;	/* IS_ERR */
	struct ugs_state *st;

	/* NULL: headers verified only, nothing segmented */
	for (i = 0; !err && i < UGS_MAX_WALK && segs; i++) {
		n++;
		segs = BPF_CORE_READ(segs, next);
	}
	if (!err && !n)
		return 0;
	/* tx_path false: udp_rcv_segment(); true: for a device, or another caller */
	if (!(__u8)tx_path) {
		c_skbs = UGS_RX_SW_SEGMENTED_SKBS;
		c_segs = UGS_RX_SW_SEGMENTS;
		c_err = UGS_RX_SW_SEGMENT_ERRORS;
	} else if (ugs_seg_by_free && (st = ugs_st())) {
		/*
		 * the caller frees the GSO skb next, on this CPU: consume_skb or
		 * kfree_skb tell where (validate_xmit_skb: for a device, else another)
		 */
		ugs_seg_other(st);
		st->seg_skb = (__u64)skb;
		st->seg_n = n;
		st->seg_err = err;
		return 0;
	} else {
		/* no call site (consume_skb without location): every tx_path call */
		c_skbs = UGS_TX_SW_SEGMENTED_SKBS;
		c_segs = UGS_TX_SW_SEGMENTS;
		c_err = UGS_TX_SW_SEGMENT_ERRORS;
	}
	s = ugs_this();
	if (err) {
		ugs_inc(s, c_err);
		return 0;
	}
	ugs_inc(s, c_skbs);
	ugs_add(s, c_segs, n);
	return 0;
}

static __always_inline int ugs_gro_complete(struct sk_buff *skb, int nhoff, int ret)
{
	struct ugs_mark *mk;
	struct ugs_gso g;
	__u64 key;

	/* udp4/6_gro_complete() itself finds the UDP header at skb->data + nhoff */
	if (ugs_empty || ret || !ugs_match_udp_hdr(skb, skb->data + nhoff))
		return 0;
	ugs_gso_of(skb, &g, false);
	if (!(g.type & SKB_GSO_UDP_L4) || g.segs < 2)
		return 0;
	/* a tunnel's outer call returns after the inner one marked this skb */
	key = (__u64)skb;
	mk = bpf_map_lookup_elem(&ugs_marks, &key);
	if (mk && mk->head == (__u64)skb->head &&
	    bpf_ktime_get_ns() - mk->when <= NSEC_PER_SEC)
		return 0;
	ugs_coalesced(ugs_this(), &g, false);
	ugs_put_mark(skb, true, (__u64)skb->head);
	return 0;
}

SEC("fexit/udp4_gro_complete")
int BPF_PROG(ugs_udp4_gro_complete, struct sk_buff *skb, int nhoff, int ret)
{
	return ugs_gro_complete(skb, nhoff, ret);
}

SEC("fexit/udp6_gro_complete")
int BPF_PROG(ugs_udp6_gro_complete, struct sk_buff *skb, int nhoff, int ret)
{
	return ugs_gro_complete(skb, nhoff, ret);
}

#include "ugs_free.bpf.h"	/* derived from where the GSO skb is freed */
#include "ugs_diag.bpf.h"	/* UDPGSO_STATS_DIAG: the lost skb's observers */
#include "ugs_late.bpf.h"	/* held GRO skbs counted at the socket read */
