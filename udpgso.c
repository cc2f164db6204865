// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso: send-side UDP GSO edge cases with exact expectations.
 *
 * Every case sends once (sendmsg, optionally split by MSG_MORE or UDP_CORK)
 * on a path whose MTU is 1500 (set up by udpgso.sh: device MTU or route MTU
 * on lo), then either receives everything back (number of datagrams, size
 * and payload of each, nothing left in the queue) or, with -R and --sink,
 * reads the egress device's tx packet/byte counters (one GSO skb vs N
 * segments).  Expected failures name the errno expected and got.
 *
 * Kernel behaviour that changed over time, asserted per running kernel:
 *  - segment limit UDP_MAX_SEGMENTS 64 -> 128: mainline commit 1382e3b6a350
 *    ("net: change maximum number of UDP segments to 128", v6.9), backported
 *    to stable (6.8.8; also present in Debian's 6.1.192 source).
 *  - gso_size larger than the path MTU allows: EINVAL -> EMSGSIZE, and a
 *    payload that fits one segment is no longer refused: mainline commit
 *    235174b2bed8 ("udp: gso: do not drop small packets when PMTU
 *    reduces", v6.14), backported to stable (6.1.129, 5.15.179, others).
 *  - GSO through a device without checksum offload: EIO -> software
 *    checksum fallback: mainline commit 10154dbded6d ("udp: Allow GSO
 *    transmit from devices with no checksum offload", v6.11), not in stable.
 *
 * This file runs the cases; udpgso_cases.c has the cases and what the
 * modelled kernel must do with each, udpgso_opts.c the options.
 */
#include <errno.h>
#include <limits.h>
#include <linux/sockios.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "udpgso.h"
#include "udpgso_wire.h"

#ifndef UDP_CORK
#define UDP_CORK	1
#endif
#ifndef UDP_NO_CHECK6_TX
#define UDP_NO_CHECK6_TX	101
#endif

/* the options, read-only after parse_opts (udpgso_opts.c) */
static const struct gso_cfg *cfg;

/*
 * The payload of every send from offset 0: udpgso_wire's pattern (a 16-bit
 * counter of 2-byte slots), so that a datagram or segment at the wrong
 * offset shows wherever it is checked (receive or capture)
 */
static uint8_t tx_pat[UG_MAX_UDP6 + 64];

/* ---- the kernel's documented behaviour ------------------------------ */

static struct model km;

/*
 * The upstream version: distribution kernels hide the sublevel in the
 * release (Debian "6.1.0-56-amd64") and print it in the version string
 * ("... Debian 6.1.192-1 ...") or /proc/version_signature (Ubuntu).
 */
static void model_version(void)
{
	unsigned int a, b, c;
	struct utsname u;
	char sig[256];
	const char *p;
	FILE *f;

	km.ver = ug_kernel_version();
	snprintf(km.ver_str, sizeof(km.ver_str), "%s", ug_kernel_release());
	if (cfg->kver) {
		if (sscanf(cfg->kver, "%u.%u.%u", &a, &b, &c) != 3 || a > 255 ||
		    b > 255)
			ug_die(1, "--kernel-version '%s': allowed X.Y.Z", cfg->kver);
		snprintf(u.release, sizeof(u.release), "assumed by --kernel-version");
		goto found;
	}
	if (uname(&u))
		return;
	p = strstr(u.version, "Debian ");
	if (p && sscanf(p + 7, "%u.%u.%u", &a, &b, &c) == 3)
		goto found;
	f = fopen("/proc/version_signature", "r");
	if (f) {
		if (fgets(sig, sizeof(sig), f)) {
			p = strrchr(sig, ' ');
			if (p && sscanf(p + 1, "%u.%u.%u", &a, &b, &c) == 3) {
				fclose(f);
				goto found;
			}
		}
		fclose(f);
	}
	return;
found:
	km.ver = UG_KVER(a, b, c > 255 ? 255 : c);
	snprintf(km.ver_str, sizeof(km.ver_str), "%u.%u.%u (%s)", a, b, c,
		 u.release);
}

/*
 * A change that went to mainline at @mainline and to stable series: known
 * first sublevels in @known (series, first), series with a backport whose
 * first sublevel is not pinned here in @window (the kernel is probed there,
 * and the probe may only return one of the two documented behaviours).
 * Returns 1 new, 0 old, -1 probe.
 */
struct backport {
	unsigned int series;	/* UG_KVER(a, b, 0) */
	unsigned int first;	/* first sublevel with it, 0: unknown */
	unsigned int seen;	/* a sublevel seen to have it (source read) */
};

static int change_state(unsigned int mainline, const struct backport *bp,
			int nbp)
{
	unsigned int series = km.ver & ~0xffu, sub = km.ver & 0xff;
	int i;

	if (km.ver >= mainline)
		return 1;
	for (i = 0; i < nbp; i++) {
		if (bp[i].series != series)
			continue;
		if (bp[i].first)
			return sub >= bp[i].first;
		if (bp[i].seen && sub >= bp[i].seen)
			return 1;
		return -1;
	}
	return 0;
}

static const struct backport limit_bp[] = {
	{ UG_KVER(6, 8, 0), 8, 0 },
	{ UG_KVER(6, 1, 0), 0, 192 },	/* Debian's 6.1.192 source has it */
	{ UG_KVER(6, 6, 0), 0, 0 },
	{ UG_KVER(5, 15, 0), 0, 0 },
	{ UG_KVER(5, 10, 0), 0, 0 },
	{ UG_KVER(5, 4, 0), 0, 0 },
};

static const struct backport oversize_bp[] = {
	{ UG_KVER(6, 1, 0), 129, 0 },
	{ UG_KVER(5, 15, 0), 179, 0 },
	{ UG_KVER(6, 13, 0), 0, 0 },
	{ UG_KVER(6, 12, 0), 0, 0 },
	{ UG_KVER(6, 6, 0), 0, 0 },
	{ UG_KVER(5, 10, 0), 0, 0 },
	{ UG_KVER(5, 4, 0), 0, 0 },
};

static int family_mss(int family, int extra)
{
	return PATH_MTU - ug_udp_hdrlen(family) - extra;
}

static struct sockaddr_storage dst_addr(int family, socklen_t *len);

/* one GSO send on a scratch socket, for the probes; returns 0 or errno */
static int probe_send(int family, int len, int gso)
{
	char ctrl[CMSG_SPACE(sizeof(uint16_t))];
	struct sockaddr_storage ss;
	struct msghdr msg = {0};
	struct iovec iov;
	socklen_t sl;
	int fd, ret, val = IP_PMTUDISC_DO;

	ss = dst_addr(family, &sl);
	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	if (family == AF_INET)
		setsockopt(fd, SOL_IP, IP_MTU_DISCOVER, &val, sizeof(val));
	else
		setsockopt(fd, SOL_IPV6, IPV6_MTU_DISCOVER, &val, sizeof(val));
	iov.iov_base = tx_pat;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_name = &ss;
	msg.msg_namelen = sl;
	msg.msg_control = ctrl;
	ug_cmsg_add_segment(&msg, sizeof(ctrl), gso);
	ret = sendmsg(fd, &msg, 0) < 0 ? errno : 0;
	close(fd);
	return ret;
}

static void model_init(int probe_family)
{
	int st, err;

	model_version();

	st = change_state(UG_KVER(6, 9, 0), limit_bp, ARRAY_SIZE(limit_bp));
	if (st >= 0) {
		km.limit = st ? NEW_LIMIT : OLD_LIMIT;
		snprintf(km.limit_why, sizeof(km.limit_why),
			 "%d by version (1382e3b6a350 in v6.9, stable 6.8.8, in 6.1.192)",
			 km.limit);
	} else {
		/* 65 one-byte segments: refused only with the old limit */
		err = probe_send(probe_family, OLD_LIMIT + 1, 1);
		km.limit = err == EINVAL ? OLD_LIMIT : NEW_LIMIT;
		snprintf(km.limit_why, sizeof(km.limit_why),
			 "%d probed (%s: 1382e3b6a350 backported, sublevel not pinned)",
			 km.limit, km.ver_str);
	}

	st = change_state(UG_KVER(6, 14, 0), oversize_bp,
			  ARRAY_SIZE(oversize_bp));
	if (st >= 0) {
		km.new_oversize = st;
		snprintf(km.oversize_why, sizeof(km.oversize_why),
			 "%s by version (235174b2bed8 in v6.14, stable 6.1.129, 5.15.179)",
			 st ? "EMSGSIZE" : "EINVAL");
	} else {
		/* 1 byte with gso_size over the MTU: old kernels refuse it */
		err = probe_send(probe_family, 1, family_mss(probe_family, 0) + 1);
		km.new_oversize = err != EINVAL;
		snprintf(km.oversize_why, sizeof(km.oversize_why),
			 "%s probed (%s: 235174b2bed8 backported, sublevel not pinned)",
			 km.new_oversize ? "EMSGSIZE" : "EINVAL", km.ver_str);
	}

	km.csum_fallback = km.ver >= UG_KVER(6, 11, 0);
	snprintf(km.csum_why, sizeof(km.csum_why),
		 "%s by version (10154dbded6d in v6.11)",
		 km.csum_fallback ? "software fallback" : "EIO");
}

/* ---- sockets -------------------------------------------------------- */

static struct sockaddr_storage dst_addr(int family, socklen_t *len)
{
	struct sockaddr_storage ss;

	*len = ug_parse_addr("dst", family == AF_INET ? "10.0.0.1" : "fd00::1",
			     family, cfg->port, &ss);
	return ss;
}

static int tx_socket(int family, bool connected, const struct tcase *tc,
		     char *err, size_t errlen)
{
	static const uint8_t ip_nops[4] = { 1, 1, 1, 0 };	/* NOP NOP NOP EOL */
	uint8_t opt6[EXT_LEN] = { 0 };	/* next hdr, len 0, PadN(4) */
	struct sockaddr_storage ss;
	int fd, one = 1, val;
	socklen_t sl;

	ss = dst_addr(family, &sl);
	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	val = family == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO;
	if (setsockopt(fd, family == AF_INET ? SOL_IP : SOL_IPV6,
		       family == AF_INET ? IP_MTU_DISCOVER : IPV6_MTU_DISCOVER,
		       &val, sizeof(val)))
		ug_die_errno(1, "setsockopt MTU_DISCOVER");
	opt6[2] = 1;	/* PadN */
	opt6[3] = 4;
	if (tc->sp == SP_EXTHDR && family == AF_INET6 &&
	    setsockopt(fd, SOL_IPV6, IPV6_HOPOPTS, opt6, sizeof(opt6)))
		goto fail;
	if (tc->sp == SP_EXTHDR && family == AF_INET &&
	    setsockopt(fd, SOL_IP, IP_OPTIONS, ip_nops, sizeof(ip_nops)))
		goto fail;
	if (tc->sp == SP_DSTOPTS &&
	    setsockopt(fd, SOL_IPV6, IPV6_DSTOPTS, opt6, sizeof(opt6)))
		goto fail;
	if (tc->sp == SP_NOCHECK &&
	    (family == AF_INET ?
	     setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) :
	     setsockopt(fd, SOL_UDP, UDP_NO_CHECK6_TX, &one, sizeof(one))))
		goto fail;
	if (connected && connect(fd, (void *)&ss, sl))
		goto fail;
	return fd;
fail:
	snprintf(err, errlen, "socket setup: %s", strerror(errno));
	close(fd);
	return -1;
}

static int rx_socket(int family)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd;

	ss = dst_addr(family, &sl);
	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	if (bind(fd, (void *)&ss, sl))
		ug_die_errno(1, "bind %s port %u (run from udpgso.sh, which "
			     "sets up the addresses)", family == AF_INET ?
			     "10.0.0.1" : "fd00::1", cfg->port);
	return fd;
}

static int send_part(int fd, int family, const void *buf, int len, int gso,
		     const struct tcase *tc, bool connected, int flags)
{
	char ctrl[CMSG_SPACE(sizeof(uint32_t))] = {0};
	struct sockaddr_storage ss;
	struct msghdr msg = {0};
	struct iovec iov;
	socklen_t sl;
	uint32_t bad = gso;
	ssize_t ret;

	ss = dst_addr(family, &sl);
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (!connected) {
		msg.msg_name = &ss;
		msg.msg_namelen = sl;
	}
	msg.msg_control = ctrl;
	if (tc->sp == SP_BADCMSG)
		ug_cmsg_add(&msg, sizeof(ctrl), SOL_UDP, UDP_SEGMENT, &bad,
			    sizeof(bad));
	else if (gso && !cfg->setsockopt)
		ug_cmsg_add_segment(&msg, sizeof(ctrl), gso);
	if (!msg.msg_controllen)
		msg.msg_control = NULL;
	ret = sendmsg(fd, &msg, flags);
	if (ret < 0)
		return errno;
	if (ret != len)
		return -1;
	return 0;
}

/* ---- one case ------------------------------------------------------- */

static int sink_read(const char *what, uint64_t *v)
{
	char path[256], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s",
		 cfg->sink, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static char rbuf[65536 + 1];

/* receive what @e says; fills @msg on a mismatch */
static bool check_rx(int fdr, const struct expect *e, char *msg, size_t ml)
{
	struct pollfd pfd = { .fd = fdr, .events = POLLIN };
	int i, want, inq = 0;
	ssize_t n;

	for (i = 0; i < e->nseg; i++) {
		want = i == e->nseg - 1 ? e->last : e->seg;
		if (poll(&pfd, 1, 1000) != 1) {
			snprintf(msg, ml, "datagram %d of %d missing", i + 1,
				 e->nseg);
			return false;
		}
		n = recv(fdr, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n != want) {
			snprintf(msg, ml, "datagram %d of %d: %zd bytes, "
				 "expected %d", i + 1, e->nseg, n, want);
			return false;
		}
		if (memcmp(rbuf, tx_pat + (size_t)i * e->seg, n)) {
			snprintf(msg, ml, "datagram %d of %d: payload differs",
				 i + 1, e->nseg);
			return false;
		}
	}
	/* nothing left: the queue is empty now and stays empty briefly */
	if (ioctl(fdr, SIOCINQ, &inq) == 0 && inq) {
		snprintf(msg, ml, "extra datagram of %d bytes queued", inq);
		return false;
	}
	if (poll(&pfd, 1, 20) > 0) {
		n = recv(fdr, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		snprintf(msg, ml, "extra datagram of %zd bytes", n);
		return false;
	}
	return true;
}

/* link-layer header bytes per packet and GSO size limit of the sink */
static int sink_l2, sink_gso_max = 65536;
static uint64_t sink_tot_p, sink_tot_b;	/* what the cases saw, in total */

static void sink_init(void)
{
	uint64_t v;

	if (sink_read("statistics/tx_packets", &v))
		ug_skip("--sink %s: no such device in this namespace", cfg->sink);
	/* ARPHRD_ETHER: the 14 byte Ethernet header is in skb->len */
	if (!sink_read("type", &v) && v == 1)
		sink_l2 = 14;
	if (!sink_read("gso_max_size", &v))
		sink_gso_max = v;
}

/*
 * A GSO skb reaches the sink whole when the sink segments ("hw") unless it
 * is gso_max_size bytes or more with its headers: gso_features_check()
 * in net/core/dev.c (6.1 and later) then segments it in software.
 */
struct sink_model {
	uint64_t wp, wb;	/* packets and bytes on the sink */
	bool gso;		/* one GSO skb */
	const char *how;
};

static struct sink_model sink_model(const struct ctx *c, const struct expect *e)
{
	int per = c->hdr + cfg->sink_encap + sink_l2;
	int len = e->nseg ? (e->nseg - 1) * e->seg + e->last : 0;
	uint64_t wp = 0, wb = 0;
	const char *how = "";
	bool gso = false;

	if (e->nseg && cfg->sink_gso != 2) {
		/*
		 * IPv6 with extension headers: software USO since 30b03f2a0592
		 * ("udp: Fall back to software USO if IPv6 extension headers
		 * are present", v6.11, fixes 10154dbded6d)
		 */
		bool v6ext_sw = c->family == AF_INET6 && c->extra &&
				km.csum_fallback;

		if (e->nseg > 1 && cfg->sink_gso == 0 && !v6ext_sw &&
		    per + len < sink_gso_max) {
			wp = 1;
			wb = per + len;
			gso = true;
			how = " (one GSO skb)";
		} else {
			wp = e->nseg;
			wb = (uint64_t)e->nseg * per + len;
			if (e->nseg > 1)
				how = cfg->sink_gso != 0 ?
				      " (segmented in software)" : v6ext_sw ?
				      " (software USO: IPv6 extension header)" :
				      " (segmented: over gso_max_size)";
		}
	}
	return (struct sink_model){ wp, wb, gso, how };
}

static bool check_sink(const struct sink_model *m, uint64_t dp, uint64_t db, char *msg,
		       size_t ml)
{
	uint64_t wp = m->wp, wb = m->wb;
	const char *how = m->how;

	sink_tot_p += dp;
	sink_tot_b += db;
	if (dp == wp && db == wb) {
		snprintf(msg, ml, "%s: %llu packets %llu bytes%s", cfg->sink,
			 (unsigned long long)dp, (unsigned long long)db, how);
		return true;
	}
	snprintf(msg, ml, "%s: %llu packets %llu bytes, expected %llu "
		 "packets %llu bytes%s", cfg->sink, (unsigned long long)dp,
		 (unsigned long long)db, (unsigned long long)wp,
		 (unsigned long long)wb, how);
	return false;
}

/* after a failed case: empty the queue so the next case starts clean */
static void drain(int fdr)
{
	struct pollfd pfd = { .fd = fdr, .events = POLLIN };

	while (poll(&pfd, 1, 50) > 0)
		if (recv(fdr, rbuf, sizeof(rbuf), MSG_DONTWAIT) < 0)
			break;
}

static const char *errname(int err)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ 0, "success" }, { EMSGSIZE, "EMSGSIZE" }, { EINVAL, "EINVAL" },
		{ EIO, "EIO" }, { ENOMEM, "ENOMEM" }, { ENOBUFS, "ENOBUFS" },
		{ EPERM, "EPERM" }, { ENETUNREACH, "ENETUNREACH" },
	};
	static char buf[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static void run_case(struct ktap *t, int id, int family, bool connected,
		     int fdr, const char *variant)
{
	const struct tcase *tc = &cases[id];
	uint64_t p0 = 0, b0 = 0, p1 = 0, b1 = 0;
	char desc[200], msg[200] = "", err[120];
	int fd, len, gso, got = 0, one = 1, zero = 0;
	struct sockaddr_storage ss = { 0 };
	socklen_t sl = sizeof(ss);
	struct expect e, want;
	struct sink_model sm;
	struct ctx c;
	bool ok;

	ctx_init(&c, family, tc->sp);
	len = eval(&km, &tc->len, &c);
	gso = eval(&km, &tc->gso, &c);
	e = expect_of(&km, cfg, tc, &c, len, gso);
	want = e;	/* the model's, whatever the send does */
	snprintf(desc, sizeof(desc), "%s [%d] %s: len=%d gso=%d", variant, id,
		 tc->name, len, gso);

	fd = tx_socket(family, connected, tc, err, sizeof(err));
	if (fd < 0) {
		ktap_fail(t, "%s: %s", desc, err);
		return;
	}
	if (cfg->sink && (sink_read("statistics/tx_packets", &p0) ||
			 sink_read("statistics/tx_bytes", &b0)))
		ug_die(1, "--sink %s: cannot read its statistics", cfg->sink);

	if (tc->sp == SP_BADOPT || (cfg->setsockopt && gso)) {
		int v = tc->sp == SP_BADOPT ? 65536 : gso;

		if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &v, sizeof(v)))
			got = errno;
	}
	if (!got && cfg->cork && len > 1) {
		setsockopt(fd, SOL_UDP, UDP_CORK, &one, sizeof(one));
		got = send_part(fd, family, tx_pat, 1, gso, tc, connected, 0);
		if (!got)
			got = send_part(fd, family, tx_pat + 1, len - 1, gso, tc,
					connected, 0);
		/* the push at uncork reports nothing: udp_lib_setsockopt */
		setsockopt(fd, SOL_UDP, UDP_CORK, &zero, sizeof(zero));
	} else if (!got && cfg->msgmore && len > 1) {
		got = send_part(fd, family, tx_pat, 1, gso, tc, connected, MSG_MORE);
		if (!got)
			got = send_part(fd, family, tx_pat + 1, len - 1, gso, tc,
					connected, 0);
	} else if (!got) {
		got = send_part(fd, family, tx_pat, len, gso, tc, connected, 0);
	}
	getsockname(fd, (struct sockaddr *)&ss, &sl);	/* the source port */
	close(fd);

	if (e.err && e.err_hidden) {
		/* UDP_CORK: sends succeed, the push fails silently */
		ok = got == 0;
		if (ok) {
			struct expect none = {0};

			ok = cfg->sink ? true : check_rx(fdr, &none, msg, sizeof(msg));
			e.nseg = 0;
		}
		snprintf(err, sizeof(err), "%s at uncork (not reported), "
			 "sends: success expected, %s got, nothing received",
			 errname(e.err), errname(got));
	} else if (e.err || got) {
		ok = got == e.err;
		snprintf(err, sizeof(err), "%s expected, %s got (%s)",
			 errname(e.err), errname(got), e.err ? e.why : "no error");
		if (ok && !cfg->sink)
			ok = check_rx(fdr, &(struct expect){0}, msg, sizeof(msg));
		e.nseg = 0;
	} else {
		if (e.nseg == 1)
			snprintf(err, sizeof(err), "1 datagram of %d", e.last);
		else if (e.last == e.seg)
			snprintf(err, sizeof(err), "%dx%d", e.nseg, e.seg);
		else
			snprintf(err, sizeof(err), "%dx%d + %d", e.nseg - 1,
				 e.seg, e.last);
		ok = cfg->norecv ? true : check_rx(fdr, &e, msg, sizeof(msg));
	}
	if (cfg->sink && (sink_read("statistics/tx_packets", &p1) ||
			  sink_read("statistics/tx_bytes", &b1)))
		ug_die(1, "--sink %s: cannot read its statistics", cfg->sink);
	sm = sink_model(&c, &want);
	if (ok && cfg->sink)
		ok = check_sink(&sm, p1 - p0, b1 - b0, msg, sizeof(msg));
	ktap_result(t, ok, "%s: %s%s%s", desc, err, *msg ? "; " : "", msg);
	if (!ok && fdr >= 0)
		drain(fdr);
	if (cfg->sink_capture) {
		struct sockaddr_storage dst;
		struct sink_send s = {
			.e = &want, .dst = &dst, .sport = ug_get_port(&ss), .payload = tx_pat,
			.extra = c.extra, .nocheck = tc->sp == SP_NOCHECK,
			.frames = (int)sm.wp, .gso_frames = sm.gso, .how = sm.how,
			.dev_packets = p1 - p0,
		};

		dst = dst_addr(family, &s.dl);
		ok = sink_cap_check(&s, msg, sizeof(msg));
		ktap_result(t, ok, "%s: wire[%d]: %s", desc, want.nseg, msg);
	}
}

/* ---- variants ------------------------------------------------------- */

static void check_path_mtu(struct ktap *t, int family, const char *variant)
{
	static const struct tcase plain = { "path mtu", 0, ABS(1), NOGSO, 0 };
	socklen_t sl = sizeof(int);
	char err[120];
	int fd, mtu = 0;

	fd = tx_socket(family, true, &plain, err, sizeof(err));
	if (fd < 0) {
		ktap_fail(t, "%s path mtu: %s", variant, err);
		return;
	}
	if (getsockopt(fd, family == AF_INET ? SOL_IP : SOL_IPV6,
		       family == AF_INET ? IP_MTU : IPV6_MTU, &mtu, &sl))
		mtu = -errno;
	close(fd);
	ktap_result(t, mtu == PATH_MTU, "%s path mtu: %d expected, %d got",
		    variant, PATH_MTU, mtu);
}

static void run_family(struct ktap *t, int family)
{
	static const char *const conn_name[] = { "unconnected", "connected" };
	char variant[96];
	int pass, id, fdr = -1;

	if (!cfg->norecv)
		fdr = rx_socket(family);
	for (pass = 0; pass < 2; pass++) {
		bool connected = pass == 1;

		if ((connected && !cfg->connected) ||
		    (!connected && !cfg->unconnected))
			continue;
		snprintf(variant, sizeof(variant), "ipv%d %s %s%s",
			 family == AF_INET ? 4 : 6, conn_name[pass],
			 cfg->setsockopt ? "setsockopt" : "cmsg",
			 cfg->cork ? " cork" : cfg->msgmore ? " msg_more" : "");
		if (connected)
			check_path_mtu(t, family, variant);
		for (id = 0; id < NCASES; id++) {
			if (cfg->case_id >= 0 && id != cfg->case_id)
				continue;
			if (cases[id].family && cases[id].family != family)
				continue;
			run_case(t, id, family, connected, fdr, variant);
		}
	}
	if (fdr >= 0)
		close(fdr);
}

int main(int argc, char **argv)
{
	uint64_t p0 = 0, b0 = 0, p1 = 0, b1 = 0;
	struct gso_cfg opts;
	struct ktap t;

	ug_set_prog(argv[0]);
	wire_fill(tx_pat, sizeof(tx_pat), 0, 0);
	parse_opts(argc, argv, &opts);
	cfg = &opts;
	if (cfg->sink) {
		sink_init();
		if (sink_read("statistics/tx_packets", &p0) ||
		    sink_read("statistics/tx_bytes", &b0))
			ug_die(1, "--sink %s: cannot read its statistics", cfg->sink);
	}
	/* before the probes: a bad capture device stops here; their frames
	 * are not of any case (source ports differ) and are passed over
	 */
	if (cfg->sink_capture)
		sink_cap_open(cfg);
	model_init(cfg->v4 ? AF_INET : AF_INET6);
	if (cfg->sink) {
		/* the probes' datagrams leave through the sink too */
		if (sink_read("statistics/tx_packets", &p1) ||
		    sink_read("statistics/tx_bytes", &b1))
			ug_die(1, "--sink %s: cannot read its statistics", cfg->sink);
		sink_tot_p += p1 - p0;
		sink_tot_b += b1 - b0;
	}

	ktap_header(&t, 0);
	ktap_info("kernel %s", km.ver_str);
	ktap_info("segment limit: %s", km.limit_why);
	ktap_info("gso_size over the path MTU: %s", km.oversize_why);
	ktap_info("GSO without checksum offload: %s", km.csum_why);
	if (cfg->v4)
		run_family(&t, AF_INET);
	if (cfg->v6)
		run_family(&t, AF_INET6);
	if (cfg->sink)
		ktap_info("sink totals (cases and probes): %s packets=%llu bytes=%llu",
			  cfg->sink,
			  (unsigned long long)sink_tot_p, (unsigned long long)sink_tot_b);
	if (cfg->sink_capture)
		sink_cap_totals();
	return ktap_finish(&t);
}
