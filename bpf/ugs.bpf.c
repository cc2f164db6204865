// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats (BPF): the module's per-skb GSO/GRO counters (kmod/), from BPF.
 *
 *   tp_btf/net_dev_queue            tx skb before software segmentation
 *   tp_btf/net_dev_start_xmit       what the driver gets
 *   tp_btf/napi_gro_receive_entry   packets entering GRO
 *   tp_btf/netif_receive_skb        what GRO (or the backlog) hands to the stack
 *   tp_btf/udp_fail_queue_rcv_skb   UDP receive queue failures (with or without skb)
 *   fexit/__skb_gso_segment         software segmentation (tx_path: tx or rx)
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
/* more than any GSO skb has segments: the walk of a segment list stops here */
#define UGS_MAX_WALK	1024

/* set by the tool before load */
const volatile __u32 ugs_filter_type;
const volatile __u16 ugs_filter_port;
const volatile char ugs_filter_dev[UGS_IFNAMSIZ];
const volatile bool ugs_derived_gro;	/* no fexit on udp*_gro_complete */
const volatile __u64 ugs_range[UGS_NR_RANGES][2];

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ugs_stats);
} ugs_stats SEC(".maps");

/*
 * skb address -> its head and when: marked by udp*_gro_complete (fexit), or,
 * derived, every non-GSO skb entering GRO; looked up at netif_receive_skb
 */
struct ugs_mark {
	__u64 head;
	__u64 when;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct ugs_mark);
} ugs_marks SEC(".maps");

static __always_inline struct ugs_stats *ugs_this(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ugs_stats, &zero);
}

static __always_inline void ugs_add(enum ugs_counter c, __u64 v)
{
	struct ugs_stats *s = ugs_this();

	if (s && c < UGS_NR_COUNTERS)
		s->cnt[c] += v;
}

static __always_inline void ugs_inc(enum ugs_counter c)
{
	ugs_add(c, 1);
}

static __always_inline void ugs_hist_inc(enum ugs_hist h, __u32 segs)
{
	struct ugs_stats *s = ugs_this();

	if (segs > UGS_HIST_MAX)
		segs = UGS_HIST_MAX;
	if (s && h < UGS_NR_HIST)
		s->hist[h][segs]++;
}

/* ---- skb fields ---- */

struct ugs_gso {
	__u32 type;
	__u16 size;
	__u16 segs;
};

static __always_inline void ugs_gso_of(const struct sk_buff *skb, struct ugs_gso *g)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	__u32 end = BPF_CORE_READ(skb, end);
	struct skb_shared_info *sh = (struct skb_shared_info *)(head + end);

	g->type = BPF_CORE_READ(sh, gso_type);
	g->size = BPF_CORE_READ(sh, gso_size);
	g->segs = BPF_CORE_READ(sh, gso_segs);
}

/* ---- filter ---- */

static __always_inline bool ugs_ports_match(const void *l4)
{
	__be16 ports[2];

	if (bpf_probe_read_kernel(ports, sizeof(ports), l4))
		return false;
	return bpf_ntohs(ports[0]) == ugs_filter_port || bpf_ntohs(ports[1]) == ugs_filter_port;
}

/* nh: the IP header; IPv6 extension headers are not followed (as the module) */
static __always_inline bool ugs_port_of(const struct sk_buff *skb, const unsigned char *nh)
{
	__u16 proto = bpf_ntohs(BPF_CORE_READ(skb, protocol));
	const unsigned char *l4;
	__u8 l4proto;

	if (proto == ETH_P_IP) {
		struct iphdr iph;

		if (bpf_probe_read_kernel(&iph, sizeof(iph), nh))
			return false;
		if (iph.ihl < 5 || (bpf_ntohs(iph.frag_off) & IP_OFFSET))
			return false;
		l4proto = iph.protocol;
		l4 = nh + iph.ihl * 4;
	} else if (proto == ETH_P_IPV6) {
		struct ipv6hdr ip6h;

		if (bpf_probe_read_kernel(&ip6h, sizeof(ip6h), nh))
			return false;
		l4proto = ip6h.nexthdr;
		l4 = nh + sizeof(ip6h);
	} else {
		return false;
	}
	if (l4proto != PROTO_UDP && l4proto != PROTO_TCP)
		return false;
	return ugs_ports_match(l4);
}

static __always_inline bool ugs_dev_match(const struct sk_buff *skb)
{
	struct net_device *dev = BPF_CORE_READ(skb, dev);
	char name[UGS_IFNAMSIZ];
	int i;

	if (!dev || bpf_probe_read_kernel(name, sizeof(name), &dev->name))
		return false;
	for (i = 0; i < UGS_IFNAMSIZ; i++) {
		if (name[i] != ugs_filter_dev[i])
			return false;
		if (!name[i])
			break;
	}
	return true;
}

/* nh: where the IP header is, or NULL: skb->head + skb->network_header */
static __always_inline bool ugs_match(const struct sk_buff *skb, const unsigned char *nh)
{
	if (ugs_filter_type == UGS_FILTER_PORT) {
		if (!nh)
			nh = BPF_CORE_READ(skb, head) + BPF_CORE_READ(skb, network_header);
		return ugs_port_of(skb, nh);
	}
	if (ugs_filter_type == UGS_FILTER_DEV)
		return ugs_dev_match(skb);
	return true;
}

static __always_inline bool ugs_match_udp_hdr(const struct sk_buff *skb, const void *uh)
{
	if (ugs_filter_type == UGS_FILTER_PORT)
		return ugs_ports_match(uh);
	if (ugs_filter_type == UGS_FILTER_DEV)
		return ugs_dev_match(skb);
	return true;
}

/* ---- tx ---- */

SEC("tp_btf/net_dev_queue")
int BPF_PROG(ugs_net_dev_queue, struct sk_buff *skb)
{
	struct ugs_gso g;

	if (!ugs_match(skb, NULL))
		return 0;
	ugs_inc(UGS_TX_SKBS);
	ugs_gso_of(skb, &g);
	if (!g.size)
		return 0;
	ugs_inc(UGS_TX_GSO_SKBS);
	if (g.type & SKB_GSO_UDP_L4)
		ugs_inc(UGS_TX_GSO_UDP_L4_SKBS);
	if (g.type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6))
		ugs_inc(UGS_TX_GSO_TCP_SKBS);
	if (g.type & SKB_GSO_FRAGLIST)
		ugs_inc(UGS_TX_GSO_FRAGLIST_SKBS);
	ugs_add(UGS_TX_GSO_SEGS, g.segs);
	ugs_hist_inc(UGS_HIST_TX, g.segs);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(ugs_net_dev_start_xmit, const struct sk_buff *skb, const struct net_device *dev)
{
	struct ugs_gso g;

	if (!ugs_match(skb, NULL))
		return 0;
	ugs_inc(UGS_TX_DEV_SKBS);
	ugs_gso_of(skb, &g);
	if (g.size)
		ugs_inc(UGS_TX_DEV_GSO_SKBS);
	return 0;
}

/* ---- rx ---- */

SEC("tp_btf/napi_gro_receive_entry")
int BPF_PROG(ugs_napi_gro_receive_entry, const struct sk_buff *skb)
{
	struct ugs_mark mk;
	struct ugs_gso g;
	__u64 key;

	/* after eth_type_trans(): skb->data is the network header */
	if (!ugs_match(skb, BPF_CORE_READ(skb, data)))
		return 0;
	ugs_inc(UGS_RX_GRO_IN);
	if (!ugs_derived_gro)
		return 0;
	ugs_gso_of(skb, &g);
	if (g.size)
		return 0;
	key = (__u64)skb;
	mk.head = (__u64)BPF_CORE_READ(skb, head);
	mk.when = bpf_ktime_get_ns();
	bpf_map_update_elem(&ugs_marks, &key, &mk, BPF_ANY);
	return 0;
}

/* the mark of this skb, taken (deleted) when it is fresh and of the same head */
static __always_inline bool ugs_take_mark(const struct sk_buff *skb)
{
	__u64 key = (__u64)skb;
	struct ugs_mark *mk;
	bool ok;

	mk = bpf_map_lookup_elem(&ugs_marks, &key);
	if (!mk)
		return false;
	ok = mk->head == (__u64)BPF_CORE_READ(skb, head) &&
	     bpf_ktime_get_ns() - mk->when <= NSEC_PER_SEC;
	bpf_map_delete_elem(&ugs_marks, &key);
	return ok;
}

static __always_inline void ugs_coalesced(const struct ugs_gso *g)
{
	ugs_inc(UGS_RX_GRO_COALESCED_SKBS);
	ugs_add(UGS_RX_GRO_COALESCED_SEGS, g->segs);
	if (g->type & SKB_GSO_FRAGLIST)
		ugs_inc(UGS_RX_GRO_FRAGLIST_SKBS);
	ugs_hist_inc(UGS_HIST_RX, g->segs);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(ugs_netif_receive_skb, struct sk_buff *skb)
{
	struct ugs_gso g;
	bool marked;

	if (!ugs_match(skb, BPF_CORE_READ(skb, data)))
		return 0;
	ugs_inc(UGS_RX_SKBS);
	ugs_gso_of(skb, &g);
	if (!g.size) {
		if (ugs_derived_gro)
			ugs_take_mark(skb);	/* entered GRO, left alone */
		return 0;
	}
	ugs_inc(UGS_RX_GSO_SKBS);
	marked = ugs_take_mark(skb);
	/* derived: it entered GRO without GSO and leaves as a UDP GSO skb */
	if (ugs_derived_gro && marked && (g.type & SKB_GSO_UDP_L4) && g.segs >= 2) {
		ugs_coalesced(&g);
		return 0;
	}
	if (!ugs_derived_gro && marked)
		return 0;	/* counted by udp*_gro_complete */
	ugs_inc(UGS_RX_GSO_PASSTHROUGH_SKBS);
	return 0;
}

/* since 6.10 the tracepoint has the skb */
SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(ugs_udp_fail_skb, int rc, struct sock *sk, struct sk_buff *skb)
{
	if (ugs_match(skb, NULL))
		ugs_inc(UGS_RX_UDP_QUEUE_FAILS);
	return 0;
}

/* before: filter on the socket's local port, a dev filter never matches */
SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(ugs_udp_fail_sk, int rc, struct sock *sk)
{
	if (ugs_filter_type == UGS_FILTER_DEV)
		return 0;
	if (ugs_filter_type == UGS_FILTER_PORT &&
	    BPF_CORE_READ(sk, __sk_common.skc_num) != ugs_filter_port)
		return 0;
	ugs_inc(UGS_RX_UDP_QUEUE_FAILS);
	return 0;
}

/* ---- fexit ---- */

SEC("fexit/__skb_gso_segment")
int BPF_PROG(ugs_gso_segment, struct sk_buff *skb, netdev_features_t features, bool tx_path,
	     struct sk_buff *segs)
{
	struct ugs_gso g;
	__u64 n = 0;
	int i;

	ugs_gso_of(skb, &g);
	if (!g.size || !ugs_match(skb, NULL))
		return 0;
	if ((unsigned long)segs >= (unsigned long)-4095) {	/* IS_ERR */
		ugs_inc(tx_path ? UGS_TX_SW_SEGMENT_ERRORS : UGS_RX_SW_SEGMENT_ERRORS);
		return 0;
	}
	/* NULL: headers verified only, nothing segmented */
	for (i = 0; i < UGS_MAX_WALK && segs; i++) {
		n++;
		segs = BPF_CORE_READ(segs, next);
	}
	if (!n)
		return 0;
	if (tx_path) {
		ugs_inc(UGS_TX_SW_SEGMENTED_SKBS);
		ugs_add(UGS_TX_SW_SEGMENTS, n);
	} else {
		ugs_inc(UGS_RX_SW_SEGMENTED_SKBS);
		ugs_add(UGS_RX_SW_SEGMENTS, n);
	}
	return 0;
}

static __always_inline int ugs_gro_complete(struct sk_buff *skb, int nhoff, int ret)
{
	struct ugs_mark mk;
	struct ugs_gso g;
	__u64 key;

	/* udp4/6_gro_complete() itself finds the UDP header at skb->data + nhoff */
	if (ret || !ugs_match_udp_hdr(skb, BPF_CORE_READ(skb, data) + nhoff))
		return 0;
	ugs_gso_of(skb, &g);
	if (!(g.type & SKB_GSO_UDP_L4) || g.segs < 2)
		return 0;
	ugs_coalesced(&g);
	key = (__u64)skb;
	mk.head = (__u64)BPF_CORE_READ(skb, head);
	mk.when = bpf_ktime_get_ns();
	bpf_map_update_elem(&ugs_marks, &key, &mk, BPF_ANY);
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

/* ---- derived from where the GSO skb is freed ---- */

static __always_inline int ugs_where(__u64 loc)
{
	int i;

	for (i = 0; i < UGS_NR_RANGES; i++)
		if (loc >= ugs_range[i][0] && loc < ugs_range[i][1])
			return i;
	return -1;
}

SEC("tp_btf/consume_skb")
int BPF_PROG(ugs_consume_skb, struct sk_buff *skb, void *location)
{
	int where = ugs_where((__u64)location);
	struct ugs_gso g;

	if (where < 0)
		return 0;
	ugs_gso_of(skb, &g);
	if (!g.size || !g.segs || !ugs_match(skb, NULL))
		return 0;
	if (where == UGS_R_VALIDATE_XMIT) {
		ugs_inc(UGS_TX_SW_SEGMENTED_SKBS);
		ugs_add(UGS_TX_SW_SEGMENTS, g.segs);
	} else {
		ugs_inc(UGS_RX_SW_SEGMENTED_SKBS);
		ugs_add(UGS_RX_SW_SEGMENTS, g.segs);
	}
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(ugs_kfree_skb, struct sk_buff *skb, void *location)
{
	int where = ugs_where((__u64)location);
	struct ugs_gso g;

	if (where < 0)
		return 0;
	ugs_gso_of(skb, &g);
	if (!g.size || !ugs_match(skb, NULL))
		return 0;
	ugs_inc(where == UGS_R_VALIDATE_XMIT ? UGS_TX_SW_SEGMENT_ERRORS :
		UGS_RX_SW_SEGMENT_ERRORS);
	return 0;
}
