// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso cases: the send-side GSO edge cases (upstream's, then ours) and
 * what a kernel of the modelled version must do with each send: an errno,
 * or the datagrams that arrive (count, size of each).
 */
#include <errno.h>

#include "udpgso.h"

const struct tcase cases[] = {
	{ "no gso: 1 byte", 0, ABS(1), NOGSO, SP_NONE },
	{ "no gso: MSS", 0, MSS(1, 0), NOGSO, SP_NONE },
	{ "no gso: MSS+1 (DF path, fails)", 0, MSS(1, 1), NOGSO, SP_NONE },
	{ "gso=MSS: 1 MSS (no segmentation)", 0, MSS(1, 0), MSS(1, 0), SP_NONE },
	{ "gso=MSS+1: len MSS (fits one segment)", 0, MSS(1, 0), MSS(1, 1),
	  SP_NONE },
	{ "gso=MSS+2: len MSS+1 (gso_size over MTU)", 0, MSS(1, 1),
	  MSS(1, 2), SP_NONE },
	{ "gso=MSS: MSS+1 -> MSS + 1", 0, MSS(1, 1), MSS(1, 0), SP_NONE },
	{ "gso=MSS: 2xMSS", 0, MSS(2, 0), MSS(1, 0), SP_NONE },
	{ "gso=MSS: 2xMSS+1", 0, MSS(2, 1), MSS(1, 0), SP_NONE },
	{ "gso=MSS: max segments of MSS", 0, { B_MAXSEGS, 1, 0 }, MSS(1, 0),
	  SP_NONE },
	{ "gso=MSS: max bytes", 0, { B_MAXBYTES, 1, 0 }, MSS(1, 0),
	  SP_NONE },
	{ "gso=MSS: max bytes+1 (fails)", 0, { B_MAXBYTES, 1, 1 }, MSS(1, 0),
	  SP_NONE },
	{ "gso=1: 1 byte (no segmentation)", 0, ABS(1), ABS(1), SP_NONE },
	{ "gso=1: 2 bytes", 0, ABS(2), ABS(1), SP_NONE },
	{ "gso=1: 2 bytes, extension header", AF_INET6, ABS(2), ABS(1),
	  SP_EXTHDR },
	{ "gso=2: 5 bytes -> 2+2+1", 0, ABS(5), ABS(2), SP_NONE },
	{ "gso=1: segment limit", 0, { B_LIMIT, 1, 0 }, ABS(1), SP_NONE },
	{ "gso=1: segment limit+1 (fails)", 0, { B_LIMIT, 1, 1 }, ABS(1),
	  SP_NONE },
	/* beyond upstream */
	{ "gso=1: 64 segments (old limit)", 0, { B_OLDLIMIT, 1, 0 }, ABS(1),
	  SP_NONE },
	{ "gso=1: 65 segments (old limit+1)", 0, { B_OLDLIMIT, 1, 1 }, ABS(1),
	  SP_NONE },
	{ "gso=2: 2xlimit bytes (limit segments)", 0, { B_LIMIT, 2, 0 },
	  ABS(2), SP_NONE },
	{ "ext hdr: no gso, MSS", 0, MSS(1, 0), NOGSO, SP_EXTHDR },
	{ "ext hdr: no gso, MSS+1 (fails)", 0, MSS(1, 1), NOGSO, SP_EXTHDR },
	{ "ext hdr: gso=MSS, 2xMSS+1", 0, MSS(2, 1), MSS(1, 0), SP_EXTHDR },
	{ "ext hdr: gso=MSS+1, 2xMSS (gso_size over MTU)", 0, MSS(2, 0),
	  MSS(1, 1), SP_EXTHDR },
	{ "dstopts hdr: gso=MSS, 3xMSS", AF_INET6, MSS(3, 0), MSS(1, 0),
	  SP_DSTOPTS },
	{ "no checksum: gso=MSS, 2xMSS (fails)", 0, MSS(2, 0), MSS(1, 0),
	  SP_NOCHECK },
	{ "bad UDP_SEGMENT cmsg length (fails)", 0, MSS(2, 0), MSS(1, 0),
	  SP_BADCMSG },
	{ "setsockopt UDP_SEGMENT 65536 (fails)", 0, MSS(2, 0), MSS(1, 0),
	  SP_BADOPT },
};

_Static_assert(ARRAY_SIZE(cases) == NCASES, "NCASES_MAX in udpgso.h");

/* ---- expectations --------------------------------------------------- */

static int special_extra(int family, enum special sp)
{
	if (sp == SP_DSTOPTS)
		return EXT_LEN;
	if (sp == SP_EXTHDR)
		return family == AF_INET6 ? EXT_LEN : 4;
	return 0;
}

void ctx_init(struct ctx *c, int family, enum special sp)
{
	c->family = family;
	c->extra = special_extra(family, sp);
	c->hdr = ug_udp_hdrlen(family) + c->extra;
	c->mss = PATH_MTU - c->hdr;
	if (family == AF_INET)
		c->maxpay = 65535 - c->hdr;
	else
		c->maxpay = 65535 - UG_UDP_HDR - c->extra;
}

int eval(const struct model *km, const struct val *v, const struct ctx *c)
{
	int ipmax = c->family == AF_INET ? 65535 : 65535 + UG_IP6_HDR;

	switch (v->base) {
	case B_ABS:
		return v->add;
	case B_MSS:
		return v->mul * c->mss + v->add;
	case B_MAXSEGS:
		return (ipmax / c->mss) * c->mss + v->add;
	case B_MAXBYTES:
		return c->maxpay + v->add;
	case B_LIMIT:
		return v->mul * km->limit + v->add;
	case B_OLDLIMIT:
		return v->mul * OLD_LIMIT + v->add;
	}
	return 0;
}

struct expect expect_of(const struct model *km, const struct gso_cfg *cfg,
			const struct tcase *tc, const struct ctx *c, int len, int gso)
{
	struct expect e = {0};

	/* append-time checks (returned even under UDP_CORK) */
	if (len > c->maxpay) {
		e.err = EMSGSIZE;
		e.why = "larger than an IP packet";
		return e;
	}
	if (!gso && len > c->mss) {
		e.err = EMSGSIZE;
		e.why = "DF and over the path MTU";
		return e;
	}
	if (tc->sp == SP_BADOPT || tc->sp == SP_BADCMSG) {
		e.err = EINVAL;
		e.why = tc->sp == SP_BADOPT ? "gso_size > 65535" :
			"cmsg_len != CMSG_LEN(2)";
		return e;
	}
	/* udp_send_skb() checks, in the kernel's order */
	if (gso && km->new_oversize && c->hdr + (len < gso ? len : gso) > PATH_MTU) {
		e.err = EMSGSIZE;
		e.why = "segment over the path MTU";
	} else if (gso && !km->new_oversize && c->hdr + gso > PATH_MTU) {
		e.err = EINVAL;
		e.why = "gso_size over the path MTU (pre-235174b2bed8)";
	} else if (gso && len > gso * km->limit) {
		e.err = EINVAL;
		e.why = "more segments than the limit";
	} else if (gso && tc->sp == SP_NOCHECK) {
		e.err = EINVAL;
		e.why = "GSO needs UDP checksums";
	} else if (gso && cfg->sw_csum && !km->csum_fallback) {
		e.err = EIO;
		e.why = "no checksum offload (pre-10154dbded6d)";
	} else if (gso && c->family == AF_INET6 && c->extra &&
		   !km->csum_fallback) {
		/* __ip6_append_data() leaves CHECKSUM_PARTIAL off with
		 * extension headers, udp_v6_send_skb() then says EIO
		 */
		e.err = EIO;
		e.why = "IPv6 extension header, no CHECKSUM_PARTIAL (pre-10154dbded6d)";
	}
	if (e.err) {
		e.err_hidden = cfg->cork && len > 1;
		return e;
	}
	if (gso && len > gso) {
		e.nseg = (len + gso - 1) / gso;
		e.seg = gso;
		e.last = len - (e.nseg - 1) * gso;
	} else {
		e.nseg = 1;
		e.seg = len;
		e.last = len;
	}
	return e;
}
