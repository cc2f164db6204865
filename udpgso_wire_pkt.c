// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire: checksums, crafted frames, and the check of one captured
 * frame against what the send should have put on the wire.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_packet.h>

#include "udpgso_wire.h"

static const char *const wire_err_names[WE__MAX] = {
	[WE_OK] = "ok", [WE_L2] = "l2", [WE_IP_VER] = "ip_version", [WE_IP_LEN] = "ip_len",
	[WE_IP_CSUM] = "ip_csum", [WE_IP_ID] = "ip_id", [WE_IP_DF] = "ip_df",
	[WE_IP_ADDR] = "ip_addr", [WE_EXTHDR] = "ipv6_exthdr", [WE_UDP_LEN] = "udp_len",
	[WE_UDP_CSUM] = "udp_csum", [WE_UDP_PORT] = "udp_port", [WE_PAYLOAD] = "payload",
	[WE_SEG_SIZE] = "seg_size", [WE_SEG_COUNT] = "seg_count", [WE_GSO_META] = "gso_meta",
	[WE_OUTER] = "outer", [WE_TTL] = "ttl",
};

const char *wire_err_name(enum wire_err e)
{
	return e < WE__MAX ? wire_err_names[e] : "?";
}

void wire_fill(uint8_t *p, uint32_t len, uint8_t seed, uint32_t off)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = wire_pat(seed, off + i);
}

/* ---- checksums --------------------------------------------------------- */

/* the 32-bit one's complement accumulation of 16-bit big-endian words */
uint32_t wire_sum(const void *p, size_t len, uint32_t sum)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)b[i] << 8 | b[i + 1];
		if (sum > 0xffff0000u)
			sum = (sum & 0xffff) + (sum >> 16);
	}
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

/* folded to 16 bits, not complemented: 0xffff over data with a valid csum */
uint16_t wire_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint32_t wire_pseudo(const struct wire_addr *s, const struct wire_addr *d, uint32_t ulen)
{
	uint32_t sum = 0;

	if (s->family == AF_INET) {
		sum = wire_sum(&s->v4, 4, sum);
		sum = wire_sum(&d->v4, 4, sum);
	} else {
		sum = wire_sum(&s->v6, 16, sum);
		sum = wire_sum(&d->v6, 16, sum);
		sum += ulen >> 16;
	}
	return sum + (ulen & 0xffff) + IPPROTO_UDP;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* ---- crafting --------------------------------------------------------- */

size_t wire_craft(uint8_t *buf, size_t size, const struct wire_craft *c)
{
	bool v4 = c->dst.family == AF_INET;
	size_t l3 = WIRE_ETH_HLEN, l3h, l4, ulen = 8 + c->plen, len;
	uint8_t *ip, *uh;
	uint16_t ck;

	l3h = v4 ? 20 + c->ip4_opts : 40 + c->ip6_dstopts;
	l4 = l3 + l3h;
	len = l4 + ulen;
	if (len > size || ulen > 0xffff)
		return 0;
	memset(buf, 0, l4 + 8);
	memcpy(buf, c->dmac, 6);
	memcpy(buf + 6, c->smac, 6);
	put16(buf + 12, v4 ? 0x0800 : 0x86dd);
	ip = buf + l3;
	if (v4) {
		ip[0] = 0x40 | (uint8_t)(l3h / 4);
		ip[1] = c->tos;
		put16(ip + 2, (uint16_t)(l3h + ulen));
		put16(ip + 4, c->ip_id);
		put16(ip + 6, c->df ? 0x4000 : 0);
		ip[8] = c->ttl ? c->ttl : 64;
		ip[9] = IPPROTO_UDP;
		memcpy(ip + 12, &c->src.v4, 4);
		memcpy(ip + 16, &c->dst.v4, 4);
		memset(ip + 20, 1, c->ip4_opts);	/* IPOPT_NOOP */
		put16(ip + 10, (uint16_t)~wire_fold(wire_sum(ip, l3h, 0)));
	} else {
		uint32_t w = 6u << 28 | (uint32_t)c->tos << 20;

		ip[0] = w >> 24;
		ip[1] = (w >> 16) & 0xff;
		put16(ip + 4, (uint16_t)(c->ip6_dstopts + ulen));
		ip[6] = c->ip6_dstopts ? 60 : IPPROTO_UDP;	/* NEXTHDR_DEST */
		ip[7] = c->ttl ? c->ttl : 64;
		memcpy(ip + 8, &c->src.v6, 16);
		memcpy(ip + 24, &c->dst.v6, 16);
		if (c->ip6_dstopts) {
			uint8_t *x = ip + 40;

			x[0] = IPPROTO_UDP;
			x[1] = (uint8_t)(c->ip6_dstopts / 8 - 1);
			/*
			 * an option of experimental type 0x1e (RFC 4727; the
			 * top bits 00: skip when unknown) over the rest, its
			 * first data byte varied (PadN must be all zeros:
			 * net/ipv6/exthdrs.c ip6_parse_tlv drops it otherwise)
			 */
			x[2] = 0x1e;
			x[3] = (uint8_t)(c->ip6_dstopts - 4);
			memset(x + 4, 0, c->ip6_dstopts - 4);
			x[4] = c->dstopt_val;
		}
	}
	uh = buf + l4;
	put16(uh, c->sport);
	put16(uh + 2, c->dport);
	put16(uh + 4, (uint16_t)ulen);
	memcpy(uh + 8, c->payload, c->plen);
	ck = (uint16_t)~wire_fold(wire_sum(uh, ulen, wire_pseudo(&c->src, &c->dst, ulen)));
	if (!ck)
		ck = 0xffff;
	if (c->csum == 1)
		ck = (uint16_t)(ck + 1 ? ck + 1 : 1);
	else if (c->csum == 2)
		ck = 0;
	put16(uh + 6, ck);
	return len;
}

/* ---- parsing ------------------------------------------------------------ */

struct wire_l34 {
	struct wire_addr s, d;
	size_t l3, l4;		/* offsets in the frame */
	size_t ip_end;		/* where the IP packet ends by its length field */
	size_t avail;		/* frame bytes from l3 */
	int exthdr;		/* IPv6 extension header bytes */
	bool df;
	uint16_t id;
	const uint8_t *ip;
};

/*
 * An IP + UDP packet at @off (@proto IPPROTO_UDP), or an IPv4 header
 * carrying @proto (IPPROTO_IPIP: l4 is then the inner IP header); 0 when it
 * is neither
 */
static int wire_parse(const uint8_t *b, size_t len, size_t off, uint8_t proto,
		      struct wire_l34 *p)
{
	const uint8_t *ip = b + off;
	uint8_t nh;
	size_t x;

	memset(p, 0, sizeof(*p));
	if (len < off + 20)
		return 0;
	p->l3 = off;
	p->ip = ip;
	p->avail = len - off;
	if ((ip[0] >> 4) == 4) {
		size_t ihl = (ip[0] & 15) * 4u;

		if (ihl < 20 || p->avail < ihl + 8 || ip[9] != proto)
			return 0;
		p->s.family = p->d.family = AF_INET;
		memcpy(&p->s.v4, ip + 12, 4);
		memcpy(&p->d.v4, ip + 16, 4);
		p->l4 = off + ihl;
		p->ip_end = off + get16(ip + 2);
		p->df = ip[6] & 0x40;
		p->id = get16(ip + 4);
		return 1;
	}
	if ((ip[0] >> 4) != 6 || p->avail < 48 || proto != IPPROTO_UDP)
		return 0;
	p->s.family = p->d.family = AF_INET6;
	memcpy(&p->s.v6, ip + 8, 16);
	memcpy(&p->d.v6, ip + 24, 16);
	p->ip_end = off + 40 + get16(ip + 4);
	nh = ip[6];
	x = off + 40;
	/* hop-by-hop, routing, destination options */
	while (nh == 0 || nh == 43 || nh == 60) {
		if (len < x + 8)
			return 0;
		nh = b[x];
		x += (b[x + 1] + 1u) * 8;
	}
	if (nh != IPPROTO_UDP || len < x + 8)
		return 0;
	p->exthdr = (int)(x - off - 40);
	p->l4 = x;
	return 1;
}

static bool addr_eq(const struct wire_addr *a, const struct wire_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4.s_addr == b->v4.s_addr;
	return !memcmp(&a->v6, &b->v6, 16);
}

/* the IP packet's length field against the frame (Ethernet pads to 60) */
static bool ip_len_ok(const struct wire_l34 *p, size_t flen)
{
	return p->ip_end == flen || (flen == 60 && p->ip_end < 60);
}

/*
 * The UDP checksum at @l4 of @ulen bytes.  The field holds the folded
 * pseudo-header sum when the skb was CHECKSUM_PARTIAL with csum_start here
 * (virtio_net_hdr NEEDS_CSUM; auxdata TP_STATUS_CSUMNOTREADY), else the
 * full checksum, or 0 (none, where allowed).  Returns 'p', 'f', 'z' or 0.
 */
/*
 * Is the UDP checksum at @l4 left partial (CHECKSUM_PARTIAL)?  With a
 * virtio_net header: NEEDS_CSUM with csum_start there.  Without one (kernels
 * before 6.2 drop GSO UDP_L4 skbs from a PACKET_VNET_HDR socket), auxdata
 * TP_STATUS_CSUMNOTREADY, taken to mean the innermost UDP header (@inner).
 */
static bool partial_at(const struct wire_frame *f, size_t l4, bool inner)
{
	if (f->has_vnet)
		return (f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		       f->vnet.csum_start == l4 && f->vnet.csum_offset == 6;
	return inner && (f->tp_status & TP_STATUS_CSUMNOTREADY);
}

static int udp_csum_kind(const struct wire_frame *f, const struct wire_l34 *p, size_t ulen,
			 bool inner)
{
	const uint8_t *uh = f->buf + p->l4;
	uint16_t field = get16(uh + 6);
	uint32_t ps = wire_pseudo(&p->s, &p->d, (uint32_t)ulen);

	if (partial_at(f, p->l4, inner))
		return field == wire_fold(ps) ? 'p' : 0;
	if (!field)
		return 'z';
	return wire_fold(wire_sum(uh, ulen, ps)) == 0xffff ? 'f' : 0;
}

#define FAIL(e, ...) do { *err = (e); snprintf(why, wlen, __VA_ARGS__); return -1; } while (0)

void wire_state_init(struct wire_state *st)
{
	memset(st, 0, sizeof(*st));
	st->ip_id0 = -1;
	st->ipv4_df = -1;
}

static int check_outer(const struct wire_expect *e, const struct wire_frame *f,
		       const struct wire_l34 *o, int seg, enum wire_err *err, char *why,
		       size_t wlen)
{
	const uint8_t *uh = f->buf + o->l4;
	size_t ulen = o->ip_end - o->l4;
	int k;

	if (!addr_eq(&o->s, &e->osrc) || !addr_eq(&o->d, &e->odst))
		FAIL(WE_OUTER, "segment %d: outer addresses are not the tunnel's", seg);
	if (!ip_len_ok(o, f->len))
		FAIL(WE_OUTER, "segment %d: outer IP length says %zu bytes, frame has %zu",
		     seg, o->ip_end - o->l3, f->len - o->l3);
	if (o->s.family == AF_INET && wire_fold(wire_sum(o->ip, o->l4 - o->l3, 0)) != 0xffff)
		FAIL(WE_OUTER, "segment %d: outer IPv4 header checksum 0x%04x wrong", seg,
		     get16(o->ip + 10));
	if (e->ipip)
		return 0;
	if (get16(uh + 4) != ulen)
		FAIL(WE_OUTER, "segment %d: outer UDP length %u, expected %zu (IP payload)",
		     seg, get16(uh + 4), ulen);
	k = udp_csum_kind(f, o, ulen, false);
	if (!k || (k == 'z' && !e->outer_zero_ok))
		FAIL(WE_OUTER, "segment %d: outer UDP checksum 0x%04x wrong (%s)", seg,
		     get16(uh + 6), k == 'z' ? "zero not allowed" : "does not sum");
	return 0;
}

int wire_check_frame(const struct wire_expect *e, struct wire_state *st,
		     const struct wire_frame *f, enum wire_err *err, char *why, size_t wlen)
{
	const uint8_t *b = f->buf, *uh;
	struct wire_l34 o, p;
	size_t off = WIRE_ETH_HLEN, ulen, plen, i;
	bool gso_frame;
	int seg = st->segs, k;

	*err = WE_OK;
	why[0] = 0;
	if (f->len < WIRE_ETH_HLEN || get16(b + 12) == 0x8100)
		return 0;
	if (e->tunnel_port) {
		if (!wire_parse(b, f->len, off, IPPROTO_UDP, &o) ||
		    get16(b + o.l4 + 2) != e->tunnel_port)
			return 0;
		/* vxlan: 8 bytes; geneve: 8 + its options (RFC 8926) */
		off = o.l4 + 8 + WIRE_VXLAN_HLEN + WIRE_ETH_HLEN;
		if (e->geneve && f->len > o.l4 + 8)
			off += (b[o.l4 + 8] & 0x3f) * 4u;
	}
	if (e->ipip) {
		if (!wire_parse(b, f->len, off, IPPROTO_IPIP, &o))
			return 0;
		off = o.l4;
	}
	if (!wire_parse(b, f->len, off, IPPROTO_UDP, &p))
		return 0;
	uh = b + p.l4;
	if (get16(uh) != e->sport || get16(uh + 2) != e->dport ||
	    !addr_eq(&p.d, &e->dst) || !addr_eq(&p.s, &e->src))
		return 0;

	/* ours from here on */
	st->frames++;
	/* without a virtio_net header, a frame longer than one segment */
	if (f->has_vnet)
		gso_frame = f->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE;
	else
		gso_frame = e->gso && p.ip_end > p.l4 + 8 + e->gso;
	if (e->ipip && check_outer(e, f, &o, seg, err, why, wlen))
		return -1;
	if (e->tunnel_port) {
		static uint8_t lco[WIRE_FRAME_MAX];
		struct wire_frame g = *f;

		/*
		 * Local checksum offload (Documentation/networking/
		 * checksum-offloads.rst): with the inner checksum left partial
		 * the outer one is computed as if the inner were complete, so
		 * complete it in a copy before summing the outer
		 */
		if (partial_at(f, p.l4, true) && f->len <= sizeof(lco) && p.ip_end <= f->len) {
			size_t ul = p.ip_end - p.l4;
			uint16_t ck;

			memcpy(lco, f->buf, f->len);
			put16(lco + p.l4 + 6, 0);
			ck = (uint16_t)~wire_fold(wire_sum(lco + p.l4, ul,
							   wire_pseudo(&p.s, &p.d, (uint32_t)ul)));
			put16(lco + p.l4 + 6, ck ? ck : 0xffff);
			g.buf = lco;
			g.vnet.flags = 0;
			g.tp_status &= ~TP_STATUS_CSUMNOTREADY;
			st->lco++;
		}
		if (check_outer(e, &g, &o, seg, err, why, wlen))
			return -1;
	}
	if (gso_frame) {
		st->gso_frames++;
		if (f->has_vnet &&
		    ((f->vnet.gso_type & ~VIRTIO_NET_HDR_GSO_ECN) != VIRTIO_NET_HDR_GSO_UDP_L4 ||
		     f->vnet.gso_size != e->gso))
			FAIL(WE_GSO_META,
			     "frame %d: GSO type %u size %u, expected UDP_L4 (%u) size %u",
			     st->frames, f->vnet.gso_type, f->vnet.gso_size,
			     VIRTIO_NET_HDR_GSO_UDP_L4, e->gso);
	}
	if (!ip_len_ok(&p, f->len))
		FAIL(WE_IP_LEN, "segment %d: IP length field says %zu bytes, frame has %zu", seg,
		     p.ip_end - p.l3, f->len - p.l3);
	if (e->ttl && p.ip[p.s.family == AF_INET ? 8 : 7] != e->ttl)
		FAIL(WE_TTL, "segment %d: TTL/hop limit %u, expected %d", seg,
		     p.ip[p.s.family == AF_INET ? 8 : 7], e->ttl);
	if (p.s.family == AF_INET) {
		if (p.l4 - p.l3 != 20u + e->ip4_opts)
			FAIL(WE_IP_LEN, "segment %d: IPv4 header of %zu bytes, expected %d", seg,
			     p.l4 - p.l3, 20 + e->ip4_opts);
		if (wire_fold(wire_sum(p.ip, p.l4 - p.l3, 0)) != 0xffff)
			FAIL(WE_IP_CSUM, "segment %d: IPv4 header checksum 0x%04x does not sum",
			     seg, get16(p.ip + 10));
		if (e->df >= 0 && p.df != e->df)
			FAIL(WE_IP_DF, "segment %d: DF %d, expected %d", seg, p.df, e->df);
		if (st->ipv4_df < 0)
			st->ipv4_df = p.df;
		if (st->ip_id0 < 0)
			st->ip_id0 = p.id;
		else if (p.id != (uint16_t)(st->ip_id0 + seg))
			FAIL(WE_IP_ID, "segment %d: IP ID %u, expected %u (first %u + %d)", seg,
			     p.id, (uint16_t)(st->ip_id0 + seg), st->ip_id0, seg);
	} else if (p.exthdr != e->exthdr_len) {
		FAIL(WE_EXTHDR, "segment %d: %d bytes of IPv6 extension headers, expected %d",
		     seg, p.exthdr, e->exthdr_len);
	}
	ulen = p.ip_end - p.l4;
	if (get16(uh + 4) != ulen)
		FAIL(WE_UDP_LEN, "segment %d: UDP length %u, expected %zu (IP payload)%s", seg,
		     get16(uh + 4), ulen, gso_frame ? " of the GSO frame" : "");
	plen = ulen - 8;
	k = udp_csum_kind(f, &p, ulen, true);
	if (!k || (k == 'z' && !e->zero_csum_ok))
		FAIL(WE_UDP_CSUM, "segment %d: UDP checksum 0x%04x %s (len %zu, %s)", seg,
		     get16(uh + 6), k == 'z' ? "zero, not allowed here" : "does not sum",
		     ulen, partial_at(f, p.l4, true) ?
		     "partial expected" : "full expected");
	st->partial += k == 'p';
	st->full += k == 'f';
	st->zero += k == 'z';
	if (st->off + plen > e->total)
		FAIL(WE_SEG_SIZE, "segment %d: %zu payload bytes at offset %u, beyond the %u sent",
		     seg, plen, st->off, e->total);
	if (!gso_frame && e->gso &&
	    (plen > e->gso || (plen < e->gso && st->off + plen != e->total)))
		FAIL(WE_SEG_SIZE, "segment %d: %zu payload bytes at offset %u, expected %u%s",
		     seg, plen, st->off, e->total - st->off < e->gso ? e->total - st->off : e->gso,
		     plen < e->gso ? " (a short segment before the tail)" : "");
	for (i = 0; i < plen; i++) {
		uint8_t want = e->payload ? e->payload[st->off + i] :
			       wire_pat(e->seed, st->off + (uint32_t)i);

		if (uh[8 + i] != want)
			FAIL(WE_PAYLOAD,
			     "segment %d: payload byte %zu (send offset %zu) is 0x%02x, expected 0x%02x",
			     seg, i, st->off + i, uh[8 + i], want);
	}
	st->off += (uint32_t)plen;
	st->segs += gso_frame ? (int)((plen + e->gso - 1) / e->gso) : 1;
	return 1;
}

int wire_check_end(const struct wire_expect *e, const struct wire_state *st,
		   enum wire_err *err, char *why, size_t wlen)
{
	uint32_t n = e->gso ? (e->total + e->gso - 1) / e->gso : 1;

	*err = WE_OK;
	if (st->off != e->total || st->segs != (int)n)
		FAIL(WE_SEG_COUNT, "%d segments with %u payload bytes seen, expected %u with %u",
		     st->segs, st->off, n, e->total);
	return 0;
}
