/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): what the programs read from an skb (its gso fields,
 * its segment count) and the filter (port, or device in the tool's netns).
 * Included once, by ugs.bpf.c, after the configuration it reads
 * (ugs_filter_type, ugs_filter_port, ugs_filter_dev, ugs_filter_netns).
 */
#ifndef UGS_SKB_BPF_H
#define UGS_SKB_BPF_H

/* ---- skb fields ---- */

struct ugs_gso {
	__u32 type;
	__u16 size;
	__u16 segs;
};

/*
 * The skb itself is read directly (the tracepoints' and fexit's arguments
 * are BTF pointers: a load, no helper call).  No BTF pointer leads to its
 * shared info: RC (a constant, the program's twin) reads it through
 * bpf_rdonly_cast() (6.2+: plain loads the kernel guards, about 30 ns less
 * per program run than the helper on this host), else with one
 * bpf_probe_read_kernel() from gso_size to the end of gso_type (one helper
 * call instead of three), each field at its CO-RE offset.  The tool loads
 * the twins only where the kernel's BTF has the kfunc; elsewhere the weak
 * extern stays unresolved in programs that are never loaded.
 */
#define UGS_SH_SPAN	32

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

static __always_inline void ugs_gso_of(const struct sk_buff *skb, struct ugs_gso *g, bool rc)
{
	const unsigned char *sh = skb->head + skb->end;
	__u32 o_size = bpf_core_field_offset(struct skb_shared_info, gso_size);
	__u32 o_segs = bpf_core_field_offset(struct skb_shared_info, gso_segs);
	__u32 o_type = bpf_core_field_offset(struct skb_shared_info, gso_type);
	__u8 b[UGS_SH_SPAN];

	if (rc) {
		const struct skb_shared_info *si;

		si = bpf_rdonly_cast(sh, bpf_core_type_id_kernel(struct skb_shared_info));
		g->size = si->gso_size;
		g->segs = si->gso_segs;
		g->type = si->gso_type;
		return;
	}
	g->type = 0;
	g->size = 0;
	g->segs = 0;
	if (o_segs < o_size || o_type < o_size || o_segs - o_size > UGS_SH_SPAN - 2 ||
	    o_type - o_size > UGS_SH_SPAN - 4) {
		/* another layout: field by field */
		struct skb_shared_info *s = (struct skb_shared_info *)sh;

		g->type = BPF_CORE_READ(s, gso_type);
		g->size = BPF_CORE_READ(s, gso_size);
		g->segs = BPF_CORE_READ(s, gso_segs);
		return;
	}
	if (bpf_probe_read_kernel(b, UGS_SH_SPAN, sh + o_size))
		return;
	g->size = *(__u16 *)&b[0];
	g->segs = *(__u16 *)&b[o_segs - o_size];
	g->type = *(__u32 *)&b[o_type - o_size];
}

/*
 * gso_segs, or computed from the length when the stack left it 0 (DODGY skbs
 * from tap or packet sockets with a vnet header); 0 when unknown
 */
static __always_inline __u32 ugs_segs(const struct sk_buff *skb, const struct ugs_gso *g)
{
	unsigned char *head = skb->head, *data = skb->data;
	__u16 th = skb->transport_header;
	__u32 len = skb->len;
	long hlen;

	if (g->segs || !g->size || th == (__u16)~0U)
		return g->segs;
	hlen = (long)(head + th - data);
	if (g->type & SKB_GSO_UDP_L4) {
		hlen += 8;
	} else if (g->type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
		__u8 doff;

		/* the data offset: the high nibble of byte 12 of the TCP header */
		if (bpf_probe_read_kernel(&doff, 1, head + th + 12))
			return 0;
		hlen += (doff >> 4) * 4;
	} else {
		return 0;
	}
	if (hlen < 0 || len <= hlen)
		return 0;
	return ((__u32)(len - hlen) + g->size - 1) / (__u32)g->size;
}

/* ---- filter ---- */

/* the reasons of enum ugs_rej a filter gives; UGS_MATCH: it matches */
#define UGS_MATCH	(-1)

static __always_inline int ugs_ports_why(const void *l4)
{
	__be16 ports[2];

	if (bpf_probe_read_kernel(ports, sizeof(ports), l4))
		return UGS_REJ_F_READ;
	return bpf_ntohs(ports[0]) == ugs_filter_port || bpf_ntohs(ports[1]) == ugs_filter_port ?
	       UGS_MATCH : UGS_REJ_F_PORT;
}

static __always_inline bool ugs_ports_match(const void *l4)
{
	return ugs_ports_why(l4) == UGS_MATCH;
}

static __always_inline int ugs_two_ports(__be16 a, __be16 b)
{
	return bpf_ntohs(a) == ugs_filter_port || bpf_ntohs(b) == ugs_filter_port ?
	       UGS_MATCH : UGS_REJ_F_PORT;
}

/*
 * nh: the IP header; IPv6 extension headers are not followed (as the module).
 * The IP header and the ports are read in one helper call (IPv4 options: a
 * second one); a short packet's bytes past its end are the head buffer's own.
 * UGS_MATCH, or why not (enum ugs_rej).
 */
static __always_inline int ugs_port_why(const struct sk_buff *skb, const unsigned char *nh)
{
	__u16 proto = bpf_ntohs(skb->protocol);
	union {
		struct {
			struct iphdr ip;
			__be16 ports[2];
		} v4;
		struct {
			struct ipv6hdr ip;
			__be16 ports[2];
		} v6;
	} h;
	__u8 l4proto;

	if (proto == ETH_P_IP) {
		if (bpf_probe_read_kernel(&h.v4, sizeof(h.v4), nh))
			return UGS_REJ_F_READ;
		if (h.v4.ip.ihl < 5 || (bpf_ntohs(h.v4.ip.frag_off) & IP_OFFSET))
			return UGS_REJ_F_FRAG;
		l4proto = h.v4.ip.protocol;
		if (l4proto != PROTO_UDP && l4proto != PROTO_TCP)
			return UGS_REJ_F_L4;
		if (h.v4.ip.ihl > 5)
			return ugs_ports_why(nh + h.v4.ip.ihl * 4);
		return ugs_two_ports(h.v4.ports[0], h.v4.ports[1]);
	}
	if (proto != ETH_P_IPV6)
		return UGS_REJ_F_PROTO;
	if (bpf_probe_read_kernel(&h.v6, sizeof(h.v6), nh))
		return UGS_REJ_F_READ;
	l4proto = h.v6.ip.nexthdr;
	if (l4proto != PROTO_UDP && l4proto != PROTO_TCP)
		return UGS_REJ_F_L4;
	return ugs_two_ports(h.v6.ports[0], h.v6.ports[1]);
}

static __always_inline bool ugs_dev_match(const struct sk_buff *skb)
{
	const struct net_device *dev = skb->dev;
	int i;

	if (!dev)
		return false;
	/* the name in the tool's network namespace */
	if (dev->nd_net.net->ns.inum != ugs_filter_netns)
		return false;
	for (i = 0; i < UGS_IFNAMSIZ; i++) {
		char c = dev->name[i];

		if (c != ugs_filter_dev[i])
			return false;
		if (!c)
			break;
	}
	return true;
}

/* nh: where the IP header is, or NULL: skb->head + skb->network_header */
static __always_inline int ugs_match_why(const struct sk_buff *skb, const unsigned char *nh)
{
	if (ugs_filter_type == UGS_FILTER_PORT) {
		if (!nh)
			nh = skb->head + skb->network_header;
		return ugs_port_why(skb, nh);
	}
	if (ugs_filter_type == UGS_FILTER_DEV)
		return ugs_dev_match(skb) ? UGS_MATCH : UGS_REJ_F_DEV;
	return UGS_MATCH;
}

static __always_inline bool ugs_match(const struct sk_buff *skb, const unsigned char *nh)
{
	return ugs_match_why(skb, nh) == UGS_MATCH;
}

static __always_inline bool ugs_match_udp_hdr(const struct sk_buff *skb, const void *uh)
{
	if (ugs_filter_type == UGS_FILTER_PORT)
		return ugs_ports_match(uh);
	if (ugs_filter_type == UGS_FILTER_DEV)
		return ugs_dev_match(skb);
	return true;
}

#endif /* UGS_SKB_BPF_H */
