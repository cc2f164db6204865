/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso private declarations: the cases and what this kernel must do with
 * each (udpgso_cases.c), the options (udpgso_opts.c), and the runner
 * (udpgso.c: the kernel model, sockets, one case, the variants, main).
 * Not a library: one program.
 */
#ifndef UDPGSO_H
#define UDPGSO_H

#include "udpgso_common.h"

#define PATH_MTU	1500
#define OLD_LIMIT	64
#define NEW_LIMIT	128
#define EXT_LEN		8	/* IPv6 option header / IPv4 options used */

/* how a case's length or gso_size is computed from the path */
enum base {
	B_ABS,		/* add */
	B_MSS,		/* mul * MSS + add */
	B_MAXSEGS,	/* (IP max / MSS) * MSS, as upstream */
	B_MAXBYTES,	/* largest UDP payload + add */
	B_LIMIT,	/* the kernel's segment limit + add */
	B_OLDLIMIT,	/* 64 + add */
};

struct val {
	enum base base;
	int mul;
	int add;
};

/* special socket setup of a case */
enum special {
	SP_NONE,
	SP_EXTHDR,	/* IPv6 hop-by-hop / IPv4 NOP options: +8 / +4 bytes */
	SP_DSTOPTS,	/* IPv6 destination options header, 8 bytes */
	SP_NOCHECK,	/* SO_NO_CHECK / UDP_NO_CHECK6_TX with GSO: EINVAL */
	SP_BADCMSG,	/* UDP_SEGMENT cmsg of the wrong length: EINVAL */
	SP_BADOPT,	/* setsockopt(UDP_SEGMENT, 65536): EINVAL */
};

struct tcase {
	const char *name;
	int family;		/* 0: both */
	struct val len;
	struct val gso;		/* B_ABS 0: no GSO */
	enum special sp;
};

#define ABS(n)		{ B_ABS, 0, (n) }
#define MSS(m, a)	{ B_MSS, (m), (a) }
#define NOGSO		ABS(0)

extern const struct tcase cases[];
#define NCASES_MAX	28	/* NCASES - 1, for messages */
#define NCASES		(NCASES_MAX + 1)

/* the options: filled once by parse_opts, read-only after (through cfg) */
struct gso_cfg {
	bool v4, v6, connected, unconnected;
	bool msgmore, cork, setsockopt, norecv;
	int case_id;		/* -t, -1: every case */
	uint16_t port;
	const char *sink;
	int sink_gso;		/* 0 hw: GSO skb reaches the device; 1 sw; 2 none */
	int sink_encap;		/* outer header bytes per packet on the sink */
	bool sw_csum;		/* egress device has no checksum offload */
	const char *sink_capture;	/* capture and check every segment here */
	const char *sink_outer;	/* ipip: the outer "SRC,DST" on the sink */
	const char *kver;	/* --kernel-version: model another kernel */
};

void parse_opts(int argc, char **argv, struct gso_cfg *o);

/* the kernel's documented behaviour, as this kernel's version says */
struct model {
	char ver_str[160];
	unsigned int ver;	/* upstream version the kernel is based on */
	int limit;		/* 64 or 128 */
	bool new_oversize;	/* EMSGSIZE, small payloads pass */
	bool csum_fallback;	/* no EIO without checksum offload */
	char limit_why[320];
	char oversize_why[320];
	char csum_why[160];
};

struct ctx {
	int family;
	int extra;		/* option/extension header bytes */
	int hdr;		/* IP + options + UDP header */
	int mss;
	int maxpay;		/* largest UDP payload */
};

struct expect {
	int err;		/* 0: success */
	bool err_hidden;	/* UDP_CORK: the push error is not reported */
	int nseg;		/* datagrams */
	int seg;		/* size of each but the last */
	int last;		/* size of the last */
	const char *why;
};

void ctx_init(struct ctx *c, int family, enum special sp);
int eval(const struct model *km, const struct val *v, const struct ctx *c);
/* what the kernel documented for this version does with one send */
struct expect expect_of(const struct model *km, const struct gso_cfg *cfg,
			const struct tcase *tc, const struct ctx *c, int len, int gso);

/* ---- the segments on the sink (udpgso_sink.c) ------------------------ */
/* what one case must have put on the sink, and the sink's model of it */
struct sink_send {
	const struct expect *e;		/* nseg 0: nothing (the send fails) */
	const struct sockaddr_storage *dst;
	socklen_t dl;
	uint16_t sport;
	const uint8_t *payload;		/* the bytes sent */
	int extra;			/* IPv4 option / IPv6 extension header bytes */
	bool nocheck;			/* SO_NO_CHECK: a zero checksum allowed */
	int frames, gso_frames;		/* the sink's model: packets, GSO skbs */
	const char *how;		/* and why */
	uint64_t dev_packets;		/* the device's tx delta, for the message */
};

void sink_cap_open(const struct gso_cfg *cfg);
/* capture and check one send; one line of facts in @msg either way */
bool sink_cap_check(const struct sink_send *s, char *msg, size_t ml);
/* "# sink wire totals: ..." */
void sink_cap_totals(void);

#endif
