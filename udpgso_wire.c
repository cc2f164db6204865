// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire: what a UDP GSO send puts on the wire, checked segment by
 * segment, and a UDP GRO conformance runner (udpgso_wire_gro.c).
 *
 *   udpgso_wire send [options]      one GSO send, captured and checked
 *   udpgso_wire selftest [options]  the checker against crafted bad frames
 *   udpgso_wire gro [options]       one GRO conformance case
 *
 * `udpgso_wire MODE -h` lists a mode's options.  Exit 0 pass, 1 fail or
 * bad input, 4 skip (a kernel feature missing).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/udp.h>

#include "udpgso_wire.h"

#ifndef UDP_NO_CHECK6_TX
#define UDP_NO_CHECK6_TX	101
#endif

static void wire_sockaddr(const struct wire_addr *a, uint16_t port,
			  struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		s->sin_addr = a->v4;
		*len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		s->sin6_addr = a->v6;
		*len = sizeof(*s);
	}
}

/* one capture, checked to the end; the summary or the failure on stdout */
int wire_capture_check(const struct wire_cap *c, const struct wire_expect *e,
		       const char *label, struct wire_state *st_out)
{
	struct wire_state st0, *st = st_out ? st_out : &st0;
	enum wire_err err = WE_OK;
	char why[256];

	if (!wire_capture(c, e, st, &err, why, sizeof(why)))
		wire_check_end(e, st, &err, why, sizeof(why));
	if (err != WE_OK) {
		printf("FAIL %s: %s: %s\n", label, wire_err_name(err), why);
		return -(int)err;
	}
	printf("PASS %s: %d segments in %d frames (%d GSO frames), payload %u B at gso %u; "
	       "UDP csum full %d partial %d zero %d%s\n", label, st->segs, st->frames,
	       st->gso_frames, st->off, e->gso, st->full, st->partial, st->zero,
	       st->ipv4_df < 0 ? "" : st->ipv4_df ? "; IPv4 DF, IDs in sequence" :
	       "; IPv4 no DF, IDs in sequence");
	if (e->tunnel_port)
		printf("# outer headers checked in %d frames, %d outer checksums over the "
		       "completed inner one (local checksum offload)\n", st->frames, st->lco);
	return 0;
}

/* ---- send mode ------------------------------------------------------------- */

static void usage_send(void)
{
	printf("usage: udpgso_wire send -4|-6 -S SRC -D DST -p PORT -s LEN [-M GSO] [options]\n"
	       "  one UDP send of LEN payload bytes (gso_size GSO, 0: none) from SRC to DST:PORT,\n"
	       "  captured on -i DEV and every segment checked (IP and UDP headers, lengths,\n"
	       "  checksums, IPv4 ID sequence and DF, payload bytes, segment sizes)\n"
	       "  -i DEV            capture device        --cap-netns NS  its namespace\n"
	       "  --dir out|in      egress (default) or ingress frames of DEV\n"
	       "  --cmsg            gso_size by UDP_SEGMENT cmsg (default: setsockopt)\n"
	       "  --connect         connect() the socket (IPv4 IDs from the socket's counter)\n"
	       "  --pmtudisc-do     IP_PMTUDISC_DO: IPv4 segments with DF\n"
	       "  --dstopts BYTES   IPv6 destination options header (8..256, multiple of 8)\n"
	       "  --hopopts BYTES   IPv6 hop-by-hop options header (8..256, multiple of 8)\n"
	       "  --no-check        SO_NO_CHECK / UDP_NO_CHECK6_TX (zero checksum allowed)\n"
	       "  --expect-errno E  the send must fail with E (EINVAL, EMSGSIZE, EIO)\n"
	       "  --vxlan PORT --osrc A --odst A [--outer-zero-ok]  segments inside vxlan\n"
	       "  --geneve PORT ...  the same inside geneve\n"
	       "  --seed N          payload pattern seed (0..255)\n"
	       "  --ttl N           TTL / hop limit expected (default 64; 0: any)\n"
	       "  --mtu N           the path MTU, for the IPv4 DF expectation (default 1500)\n"
	       "  --sport PORT      bind this source port (default: any)\n"
	       "  --timeout MS      quiet time that ends a capture (default 500; expect 3000)\n"
	       "two hosts: the receiver's `expect` piped into the sender's stdin\n"
	       "  send --no-capture [--go-stdin]  no capture here; with --go-stdin one send per\n"
	       "                    line 'go' read on stdin ('ready' ignored), until EOF\n"
	       "  expect ... -i DEV --sport PORT [--count N] [--linger MS] [--out FILE]\n"
	       "                    the same expectation options, -S the sender: captures on DEV\n"
	       "                    (--dir in by default), prints 'ready' then one 'go' per send\n"
	       "                    on stdout and checks each send's segments; verdict on\n"
	       "                    stderr or FILE; exit 0 when all N sends passed\n");
}

static int errno_by_name(const char *s)
{
	static const struct { const char *n; int e; } t[] = {
		{ "EINVAL", EINVAL }, { "EMSGSIZE", EMSGSIZE }, { "EIO", EIO },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(s, t[i].n))
			return t[i].e;
	ug_die(1, "--expect-errno '%s': allowed EINVAL, EMSGSIZE, EIO", s);
}

/*
 * expect: the capture on @dev (ingress unless --dir says), a UDP socket on
 * the destination port so that the host answers no ICMP (no UDP_GRO on it:
 * the segments stay segments), then the go/capture loop
 */
static int wire_expect_role(struct wire_expect *e, struct wire_cap *cap, const char *dev,
			    const char *capns, bool dir_set, int count, int timeout, int linger,
			    const char *out)
{
	struct sockaddr_storage ss;
	char label[96];
	socklen_t sl;
	int us;

	if (!dir_set)
		cap->egress = false;
	cap->timeout_ms = timeout > 0 ? timeout : 3000;
	cap->linger_ms = linger >= 0 ? linger : 100;
	if (e->gso >= e->total)
		e->gso = 0;
	wire_netns_enter(capns);
	cap->fd = wire_packet_socket(dev, wire_use_vnet(), NULL);
	us = socket(e->dst.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	wire_sockaddr(&e->dst, e->dport, &ss, &sl);
	if (us < 0 || bind(us, (struct sockaddr *)&ss, sl))
		ug_die_errno(1, "expect: bind UDP port %u on -D (this host's address)", e->dport);
	snprintf(label, sizeof(label), "%s len %u gso %u", e->dst.family == AF_INET ? "ipv4" :
		 "ipv6", e->total, e->gso);
	return wire_expect_run(cap, e, count ? count : 1, label, out);
}

/* a sticky IPv6 options header of @len bytes: one PadN over its body */
static void wire_ip6_opts(int fd, int type, int len)
{
	uint8_t opt[256] = { 0 };

	opt[1] = (uint8_t)(len / 8 - 1);
	opt[2] = 1;		/* PadN */
	opt[3] = (uint8_t)(len - 4);
	if (setsockopt(fd, IPPROTO_IPV6, type, opt, len))
		ug_die_errno(1, "%s", type == IPV6_DSTOPTS ? "IPV6_DSTOPTS" : "IPV6_HOPOPTS");
}

static int wire_send_main(int argc, char **argv, bool expect)
{
	enum { O_CMSG = 256, O_CONNECT, O_DSTOPTS, O_NOCHECK, O_ERRNO, O_VXLAN, O_OSRC,
	       O_ODST, O_OZERO, O_SEED, O_CAPNS, O_DIR, O_PMTU, O_GENEVE, O_TTL, O_HOPOPTS,
	       O_SPORT, O_NOCAP, O_GOSTDIN, O_COUNT, O_TIMEOUT, O_LINGER, O_MTU, O_OUT };
	static const struct option lo[] = {
		{ "cmsg", no_argument, NULL, O_CMSG }, { "connect", no_argument, NULL, O_CONNECT },
		{ "dstopts", required_argument, NULL, O_DSTOPTS },
		{ "hopopts", required_argument, NULL, O_HOPOPTS },
		{ "no-check", no_argument, NULL, O_NOCHECK },
		{ "expect-errno", required_argument, NULL, O_ERRNO },
		{ "vxlan", required_argument, NULL, O_VXLAN },
		{ "geneve", required_argument, NULL, O_GENEVE },
		{ "ttl", required_argument, NULL, O_TTL },
		{ "osrc", required_argument, NULL, O_OSRC },
		{ "odst", required_argument, NULL, O_ODST },
		{ "outer-zero-ok", no_argument, NULL, O_OZERO },
		{ "seed", required_argument, NULL, O_SEED },
		{ "cap-netns", required_argument, NULL, O_CAPNS },
		{ "dir", required_argument, NULL, O_DIR },
		{ "pmtudisc-do", no_argument, NULL, O_PMTU },
		{ "sport", required_argument, NULL, O_SPORT },
		{ "no-capture", no_argument, NULL, O_NOCAP },
		{ "go-stdin", no_argument, NULL, O_GOSTDIN },
		{ "count", required_argument, NULL, O_COUNT },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "linger", required_argument, NULL, O_LINGER },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "out", required_argument, NULL, O_OUT },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const char *const dirs[] = { "out", "in", NULL };
	const char *src = NULL, *dst = NULL, *dev = NULL, *capns = NULL, *osrc = NULL,
		   *odst = NULL, *out = NULL, *mode = expect ? "expect" : "send";
	struct wire_expect e = { .df = -1, .ttl = 64 };
	bool no_cap = false, go_stdin = false;
	int count = 0, mtu = 1500, sport = 0, linger = -1, timeout = -1;
	struct sockaddr_storage ss;
	struct wire_cap cap = { .egress = true, .timeout_ms = 500 };
	bool use_cmsg = false, do_connect = false, nocheck = false, pmtu_do = false;
	bool dir_set = false;
	int family = 0, o, fd, dstopts = 0, hopopts = 0, want_errno = 0, one = 1;
	char ctl[CMSG_SPACE(sizeof(uint16_t))], label[128];
	struct msghdr msg = { 0 };
	struct iovec iov;
	socklen_t sl;
	uint8_t *buf;
	ssize_t n;

	while ((o = getopt_long(argc, argv, "46S:D:p:s:M:i:h", lo, NULL)) != -1) {
		switch (o) {
		case '4':
			family = AF_INET;
			break;
		case '6':
			family = AF_INET6;
			break;
		case 'S':
			src = optarg;
			break;
		case 'D':
			dst = optarg;
			break;
		case 'p':
			e.dport = (uint16_t)ug_parse_ll("-p", optarg, 1, 65535);
			break;
		case 's':
			e.total = (uint32_t)ug_parse_ll("-s", optarg, 1, UG_MAX_UDP6);
			break;
		case 'M':
			e.gso = (uint32_t)ug_parse_ll("-M", optarg, 0, 65535);
			break;
		case 'i':
			dev = optarg;
			break;
		case O_CMSG:
			use_cmsg = true;
			break;
		case O_CONNECT:
			do_connect = true;
			break;
		case O_DSTOPTS:
			dstopts = (int)ug_parse_ll("--dstopts", optarg, 8, 256);
			ug_die_if(dstopts % 8, "--dstopts %d: allowed a multiple of 8", dstopts);
			break;
		case O_HOPOPTS:
			hopopts = (int)ug_parse_ll("--hopopts", optarg, 8, 256);
			ug_die_if(hopopts % 8, "--hopopts %d: allowed a multiple of 8", hopopts);
			break;
		case O_NOCHECK:
			nocheck = true;
			break;
		case O_ERRNO:
			want_errno = errno_by_name(optarg);
			break;
		case O_VXLAN:
			e.tunnel_port = (uint16_t)ug_parse_ll("--vxlan", optarg, 1, 65535);
			break;
		case O_GENEVE:
			e.tunnel_port = (uint16_t)ug_parse_ll("--geneve", optarg, 1, 65535);
			e.geneve = true;
			break;
		case O_TTL:
			e.ttl = (int)ug_parse_ll("--ttl", optarg, 0, 255);
			break;
		case O_OSRC:
			osrc = optarg;
			break;
		case O_ODST:
			odst = optarg;
			break;
		case O_OZERO:
			e.outer_zero_ok = true;
			break;
		case O_SEED:
			e.seed = (uint8_t)ug_parse_ll("--seed", optarg, 0, 255);
			break;
		case O_CAPNS:
			capns = optarg;
			break;
		case O_PMTU:
			pmtu_do = true;
			break;
		case O_DIR:
			cap.egress = ug_parse_choice("--dir", optarg, dirs) == 0;
			dir_set = true;
			break;
		case O_SPORT:
			sport = (int)ug_parse_ll("--sport", optarg, 1, 65535);
			break;
		case O_NOCAP:
			no_cap = true;
			break;
		case O_GOSTDIN:
			go_stdin = true;
			break;
		case O_COUNT:
			count = (int)ug_parse_ll("--count", optarg, 1, 100000);
			break;
		case O_TIMEOUT:
			timeout = (int)ug_parse_ll("--timeout", optarg, 1, 600000);
			break;
		case O_LINGER:
			linger = (int)ug_parse_ll("--linger", optarg, 0, 600000);
			break;
		case O_MTU:
			mtu = (int)ug_parse_ll("--mtu", optarg, 68, 65535);
			break;
		case O_OUT:
			out = optarg;
			break;
		case 'h':
			usage_send();
			exit(0);
		default:
			ug_die(1, "%s: unknown option or missing value: '%s' (-h lists them)",
			       mode, argv[optind - 1]);
		}
	}
	ug_die_if(optind != argc, "%s: unexpected argument '%s'", mode, argv[optind]);
	ug_die_if(!family || !src || !dst || !e.dport || !e.total,
		  "%s: -4|-6, -S, -D, -p and -s are required (-h: usage)", mode);
	ug_die_if(!want_errno && !dev && !no_cap && !expect,
		  "send: -i DEV (the capture device) is required, or --no-capture");
	ug_die_if(no_cap && dev, "send: -i and --no-capture exclude each other");
	ug_die_if(go_stdin && !no_cap, "send: --go-stdin needs --no-capture (expect captures)");
	ug_die_if(!expect && (count || out || linger >= 0),
		  "send: --count, --out and --linger belong to expect");
	ug_die_if(expect && (no_cap || go_stdin || want_errno || do_connect || use_cmsg),
		  "expect: --no-capture, --go-stdin, --expect-errno, --connect, --cmsg belong to send");
	ug_die_if(expect && (!dev || !sport),
		  "expect: -i DEV (the capture device) and --sport PORT (the sender's) are required");
	ug_die_if((dstopts || hopopts) && family != AF_INET6,
		  "--dstopts/--hopopts: IPv6 only (-6)");
	ug_die_if(e.tunnel_port && (!osrc || !odst), "--vxlan/--geneve need --osrc and --odst");
	wire_parse_addr("-S", src, family, &e.src);
	wire_parse_addr("-D", dst, family, &e.dst);
	if (e.tunnel_port) {
		int of = strchr(osrc, ':') ? AF_INET6 : AF_INET;

		wire_parse_addr("--osrc", osrc, of, &e.osrc);
		wire_parse_addr("--odst", odst, of, &e.odst);
	}
	e.exthdr_len = dstopts + hopopts;
	e.zero_csum_ok = nocheck;
	/*
	 * IPv4 DF (net/ipv4/ip_output.c __ip_make_skb): set with
	 * IP_PMTUDISC_DO, else (IP_PMTUDISC_WANT, the default) only when the
	 * whole skb fits the route MTU, so a GSO send's segments go without DF
	 */
	if (family == AF_INET)
		e.df = pmtu_do || e.total + 28 <= (uint32_t)mtu;
	if (timeout > 0)
		cap.timeout_ms = timeout;
	e.sport = (uint16_t)sport;
	if (expect)
		return wire_expect_role(&e, &cap, dev, capns, dir_set, count, timeout, linger,
					out);

	if (dev && !want_errno) {
		wire_netns_enter(capns);
		cap.fd = wire_packet_socket(dev, wire_use_vnet(), NULL);
		wire_netns_enter(NULL);
	}

	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	wire_sockaddr(&e.src, (uint16_t)sport, &ss, &sl);
	if (bind(fd, (struct sockaddr *)&ss, sl))
		ug_die_errno(1, "bind %s port %d", src, sport);
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	e.sport = ug_get_port(&ss);
	if (dstopts)
		wire_ip6_opts(fd, IPV6_DSTOPTS, dstopts);
	if (hopopts)
		wire_ip6_opts(fd, IPV6_HOPOPTS, hopopts);
	if (nocheck) {
		if (family == AF_INET ? setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) :
		    setsockopt(fd, SOL_UDP, UDP_NO_CHECK6_TX, &one, sizeof(one)))
			ug_die_errno(1, "SO_NO_CHECK / UDP_NO_CHECK6_TX");
	}
	if (pmtu_do) {
		int v = IP_PMTUDISC_DO;

		if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v)))
			ug_die_errno(1, "IP_MTU_DISCOVER");
	}
	if (e.gso && !use_cmsg) {
		int g = (int)e.gso;

		if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &g, sizeof(g)))
			ug_skip("setsockopt UDP_SEGMENT: %s", strerror(errno));
	}
	wire_sockaddr(&e.dst, e.dport, &ss, &sl);
	if (do_connect && connect(fd, (struct sockaddr *)&ss, sl))
		ug_die_errno(1, "connect %s", dst);

	buf = malloc(e.total);
	if (!buf)
		ug_die(1, "out of memory");
	wire_fill(buf, e.total, e.seed, 0);
	iov.iov_base = buf;
	iov.iov_len = e.total;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (!do_connect) {
		msg.msg_name = &ss;
		msg.msg_namelen = sl;
	}
	if (e.gso && use_cmsg) {
		msg.msg_control = ctl;
		ug_cmsg_add_segment(&msg, sizeof(ctl), (uint16_t)e.gso);
	}
	snprintf(label, sizeof(label), "%s len %u gso %u%s", family == AF_INET ? "ipv4" : "ipv6",
		 e.total, e.gso, e.gso ? (use_cmsg ? " (cmsg)" : " (setsockopt)") : "");
	if (go_stdin) {
		n = wire_go_stdin(fd, &msg, e.total, want_errno, label);
		free(buf);
		return (int)n;
	}
	n = sendmsg(fd, &msg, 0);
	if (want_errno) {
		free(buf);
		if (n < 0 && errno == want_errno) {
			printf("PASS %s: send failed with %s as expected\n", label,
			       strerror(errno));
			return 0;
		}
		printf("FAIL %s: send returned %zd (%s), expected %s\n", label, n,
		       n < 0 ? strerror(errno) : "no error", strerror(want_errno));
		return 1;
	}
	if (n < 0) {
		if (errno == EINVAL && e.gso && e.gso < 65535)
			ug_die_errno(1, "sendmsg (gso %u, len %u)", e.gso, e.total);
		ug_die_errno(1, "sendmsg");
	}
	free(buf);
	ug_die_if(n != (ssize_t)e.total, "sendmsg: sent %zd of %u", n, e.total);
	if (e.gso >= e.total)
		e.gso = 0;	/* one datagram: no segmentation */
	if (no_cap) {
		printf("sent %s: %u bytes, not captured here\n", label, e.total);
		return 0;
	}
	return wire_capture_check(&cap, &e, label, NULL) ? 1 : 0;
}

/* ---- selftest: the checker must fail on bad segments --------------------- */

enum mut {
	M_NONE, M_UDP_LEN, M_UDP_CSUM, M_SHIFT, M_IP_CSUM, M_IP_LEN, M_IP_ID, M_SHORT_MID,
	M_DROP_LAST, M_ZERO_CSUM, M_PARTIAL_BAD, M_PARTIAL_OK, M_EXTHDR, M_DF, M_TTL,
	M_IPIP_OK, M_IPIP_CSUM, M_IPIP_PAYLOAD, M_IP4_OPTS_OK, M_IP4_OPTS, M__MAX
};

static const struct { const char *name; enum wire_err want; bool v6; } muts[M__MAX] = {
	[M_NONE] = { "good segments", WE_OK, false },
	[M_UDP_LEN] = { "UDP length +1", WE_UDP_LEN, false },
	[M_UDP_CSUM] = { "UDP checksum +1", WE_UDP_CSUM, false },
	[M_SHIFT] = { "payload shifted by 2 bytes", WE_PAYLOAD, false },
	[M_IP_CSUM] = { "IPv4 header checksum +1", WE_IP_CSUM, false },
	[M_IP_LEN] = { "IPv4 total length +4", WE_IP_LEN, false },
	[M_IP_ID] = { "IPv4 ID out of sequence", WE_IP_ID, false },
	[M_SHORT_MID] = { "short segment before the tail", WE_SEG_SIZE, false },
	[M_DROP_LAST] = { "last segment missing", WE_SEG_COUNT, false },
	[M_ZERO_CSUM] = { "zero UDP checksum", WE_UDP_CSUM, false },
	[M_PARTIAL_BAD] = { "partial checksum with a wrong pseudo-header sum", WE_UDP_CSUM, false },
	[M_PARTIAL_OK] = { "partial checksum (CHECKSUM_PARTIAL) right", WE_OK, false },
	[M_EXTHDR] = { "IPv6 segment without its destination options header", WE_EXTHDR, true },
	[M_DF] = { "IPv4 DF clear", WE_IP_DF, false },
	[M_TTL] = { "IPv6 hop limit 63 in one segment", WE_TTL, true },
	[M_IPIP_OK] = { "ipip: good segments under an outer IPv4 header", WE_OK, false },
	[M_IPIP_CSUM] = { "ipip: outer IPv4 header checksum +1", WE_OUTER, false },
	[M_IPIP_PAYLOAD] = { "ipip: inner payload shifted by 2 bytes", WE_PAYLOAD, false },
	[M_IP4_OPTS_OK] = { "IPv4 options (4 B) in every segment", WE_OK, false },
	[M_IP4_OPTS] = { "IPv4 segment without its options", WE_IP_LEN, false },
};

static bool mut_ipip(enum mut m)
{
	return m == M_IPIP_OK || m == M_IPIP_CSUM || m == M_IPIP_PAYLOAD;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* an outer IPv4 header (protocol 4, IPIP) put under @fr's Ethernet header */
static size_t wrap_ipip(uint8_t *fr, size_t len, const struct wire_expect *e, bool bad_csum)
{
	uint8_t *o = fr + WIRE_ETH_HLEN;
	uint16_t ck;

	memmove(o + 20, o, len - WIRE_ETH_HLEN);
	memset(o, 0, 20);
	o[0] = 0x45;
	put16(o + 2, (uint16_t)(len - WIRE_ETH_HLEN + 20));
	o[6] = 0x40;		/* DF */
	o[8] = 64;
	o[9] = IPPROTO_IPIP;
	memcpy(o + 12, &e->osrc.v4, 4);
	memcpy(o + 16, &e->odst.v4, 4);
	ck = (uint16_t)~wire_fold(wire_sum(o, 20, 0));
	put16(o + 10, (uint16_t)(bad_csum ? ck + 1 : ck));
	return len + 20;
}

/* the frames of a GSO send of 3 x gso + 100, crafted and mangled by @m */
static int craft_train(enum mut m, const struct wire_expect *e, uint8_t (*fr)[2048],
		       size_t *flen, struct wire_frame *f)
{
	int n = (int)((e->total + e->gso - 1) / e->gso), k, out = 0;
	uint8_t pay[2048];

	for (k = 0; k < n; k++) {
		uint32_t off = k * e->gso, len = e->total - off < e->gso ? e->total - off : e->gso;
		struct wire_craft c = {
			.src = e->src, .dst = e->dst, .sport = e->sport, .dport = e->dport,
			.df = m != M_DF, .ip_id = (uint16_t)(1000 + k + (m == M_IP_ID && k == 2)),
			.ip6_dstopts = (m == M_EXTHDR && k == 1) ? 0 : e->exthdr_len,
			.ip4_opts = (m == M_IP4_OPTS && k == 1) ? 0 : e->ip4_opts,
			.payload = pay, .plen = len, .ttl = (m == M_TTL && k == 2) ? 63 : 64,
			.csum = k != 1 ? 0 : m == M_UDP_CSUM ? 1 : m == M_ZERO_CSUM ? 2 : 0,
		};
		uint8_t *ip, *uh;

		if (m == M_DROP_LAST && k == n - 1)
			break;
		if (m == M_SHORT_MID && k == 1)
			c.plen = len - 1;
		wire_fill(pay, c.plen, e->seed, off + (((m == M_SHIFT || m == M_IPIP_PAYLOAD) &&
							   k == 1) ? 2 : 0));
		if (m == M_SHORT_MID && k == 2)
			wire_fill(pay, c.plen, e->seed, off - 1);
		flen[out] = wire_craft(fr[out], sizeof(fr[out]), &c);
		if (mut_ipip(m))
			flen[out] = wrap_ipip(fr[out], flen[out], e, m == M_IPIP_CSUM && k == 1);
		memset(&f[out], 0, sizeof(f[out]));
		f[out].buf = fr[out];
		f[out].len = flen[out];
		ip = fr[out] + WIRE_ETH_HLEN + (mut_ipip(m) ? 20 : 0);
		uh = fr[out] + flen[out] - 8 - c.plen;
		if (k == 1 && m == M_UDP_LEN)
			put16(uh + 4, (uint16_t)(c.plen + 9));
		if (k == 1 && m == M_IP_CSUM)
			put16(ip + 10, (uint16_t)((ip[10] << 8 | ip[11]) + 1));
		if (k == 1 && m == M_IP_LEN) {
			put16(ip + 2, (uint16_t)((ip[2] << 8 | ip[3]) + 4));
			put16(ip + 10, 0);
			put16(ip + 10, (uint16_t)~wire_fold(wire_sum(ip, 20, 0)));
		}
		if (k == 1 && (m == M_PARTIAL_OK || m == M_PARTIAL_BAD)) {
			uint16_t ps = wire_fold(wire_pseudo(&e->src, &e->dst, c.plen + 8));

			put16(uh + 6, (uint16_t)(m == M_PARTIAL_OK ? ps : ps + 1));
			f[out].has_vnet = true;
			f[out].vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
			f[out].vnet.csum_start = (uint16_t)(uh - fr[out]);
			f[out].vnet.csum_offset = 6;
			f[out].tp_status = TP_STATUS_CSUMNOTREADY;
		}
		out++;
	}
	return out;
}

static void usage_selftest(void)
{
	printf("usage: udpgso_wire selftest [--inject DEV --cap DEV --cap-netns NS]\n"
	       "  the checker against crafted segments of a 3 x 1000 + 100 byte send: the good\n"
	       "  ones must pass, each mangled one must fail with its reason.  Without options\n"
	       "  the frames go to the checker from memory; with them they are written with\n"
	       "  AF_PACKET on DEV (this namespace) and captured on the peer (ingress)\n");
}

static int wire_selftest_main(int argc, char **argv)
{
	enum { O_INJECT = 256, O_CAP, O_CAPNS };
	static const struct option lo[] = {
		{ "inject", required_argument, NULL, O_INJECT },
		{ "cap", required_argument, NULL, O_CAP },
		{ "cap-netns", required_argument, NULL, O_CAPNS },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static uint8_t fr[8][2048];
	const char *inj = NULL, *capdev = NULL, *capns = NULL;
	int o, m, ifx = 0, ifd = -1, fails = 0, tests = 0;
	struct wire_cap cap = { .fd = -1, .egress = false, .timeout_ms = 300 };

	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case O_INJECT:
			inj = optarg;
			break;
		case O_CAP:
			capdev = optarg;
			break;
		case O_CAPNS:
			capns = optarg;
			break;
		case 'h':
			usage_selftest();
			exit(0);
		default:
			ug_die(1, "selftest: unknown option or missing value: '%s' (-h lists them)",
			       argv[optind - 1]);
		}
	}
	ug_die_if(!inj != !capdev, "selftest: --inject and --cap go together");
	if (inj) {
		wire_netns_enter(capns);
		cap.fd = wire_packet_socket(capdev, wire_use_vnet(), NULL);
		wire_netns_enter(NULL);
		ifd = wire_packet_socket(inj, false, &ifx);
	}
	for (m = 0; m < M__MAX; m++) {
		struct wire_expect e = { .sport = (uint16_t)(40000 + m), .dport = 9000,
					 .total = 3100, .gso = 1000, .seed = (uint8_t)m, .df = 1,
					 .ttl = 64 };
		struct wire_frame f[8];
		struct wire_state st;
		enum wire_err err = WE_OK;
		size_t flen[8];
		char why[256] = "";
		int n, i, r = 0;

		wire_parse_addr("-S", muts[m].v6 ? "2001:db8::2" : "192.168.1.2",
				muts[m].v6 ? AF_INET6 : AF_INET, &e.src);
		wire_parse_addr("-D", muts[m].v6 ? "2001:db8::1" : "192.168.1.1",
				muts[m].v6 ? AF_INET6 : AF_INET, &e.dst);
		if (muts[m].v6)
			e.exthdr_len = 8;
		if (m == M_IP4_OPTS_OK || m == M_IP4_OPTS)
			e.ip4_opts = 4;
		if (mut_ipip(m)) {
			e.ipip = true;
			wire_parse_addr("--osrc", "192.168.9.2", AF_INET, &e.osrc);
			wire_parse_addr("--odst", "192.168.9.1", AF_INET, &e.odst);
		}
		n = craft_train(m, &e, fr, flen, f);
		/* the wire cannot carry a vnet header: in-memory only */
		if (inj && (m == M_PARTIAL_OK || m == M_PARTIAL_BAD))
			continue;
		tests++;
		wire_state_init(&st);
		if (inj) {
			for (i = 0; i < n; i++)
				if (send(ifd, fr[i], flen[i], 0) != (ssize_t)flen[i])
					ug_die_errno(1, "send on %s", inj);
			r = wire_capture_check(&cap, &e, muts[m].name, NULL);
			err = r ? (enum wire_err)-r : WE_OK;
		} else {
			for (i = 0; i < n && r >= 0; i++)
				r = wire_check_frame(&e, &st, &f[i], &err, why, sizeof(why));
			if (r >= 0)
				wire_check_end(&e, &st, &err, why, sizeof(why));
		}
		if (err == muts[m].want) {
			printf("ok %s: %s%s%s%s\n", muts[m].name, err ? "failed as " : "passed",
			       err ? wire_err_name(err) : "", why[0] ? ": " : "", why);
		} else {
			fails++;
			printf("not ok %s: got %s, expected %s%s%s\n", muts[m].name,
			       wire_err_name(err), wire_err_name(muts[m].want),
			       why[0] ? ": " : "", why);
		}
	}
	printf("# selftest: %d variants, %d wrong\n", tests, fails);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	ug_set_prog("udpgso_wire");
	opterr = 0;	/* one line of our own on bad options */
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		printf("usage: udpgso_wire send|expect|selftest|gro [-h] [options]\n"
		       "  send      one UDP (GSO) send, every segment captured and checked\n"
		       "  expect    the receiving host's half: capture and check sends asked\n"
		       "            on stdout ('go') of a `send --no-capture --go-stdin`\n"
		       "  selftest  the checker against crafted bad segments\n"
		       "  gro       one UDP GRO conformance case\n");
		return argc < 2 ? 1 : 0;
	}
	if (!strcmp(argv[1], "send"))
		return wire_send_main(argc - 1, argv + 1, false);
	if (!strcmp(argv[1], "expect"))
		return wire_send_main(argc - 1, argv + 1, true);
	if (!strcmp(argv[1], "selftest"))
		return wire_selftest_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "gro"))
		return wire_gro_main(argc - 1, argv + 1);
	ug_die(1, "mode '%s': allowed send, expect, selftest, gro", argv[1]);
}
