// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire gro: one UDP GRO conformance case.  A train of crafted UDP
 * packets is written with AF_PACKET on a veth; on the peer (another
 * namespace, GRO on, gro_flush_timeout set) an AF_PACKET tap sees the skbs
 * GRO built (length, gso_size from the virtio_net header) and a UDP socket
 * (UDP_GRO or plain) sees the reads (length, UDP_GRO cmsg).  Both must be
 * what the kernel's GRO rules make of the train, flow by flow (source port).
 *
 * The rules (6.1: net/ipv4/udp_offload.c udp_gro_receive_segment,
 * udp_gro_receive, udp4_gro_receive; net/ipv4/af_inet.c inet_gro_receive;
 * net/ipv6/ip6_offload.c ipv6_gro_receive; net/core/gro.c skb_gro_receive,
 * dev_gro_receive; 6.10+: include/net/gro.h inet_gro_flush, ipv6_gro_flush):
 *  - a packet joins the held skb of its flow (same addresses, ports, and for
 *    IPv6 the same extension headers: ipv6_gro_receive's memcmp) when its
 *    UDP length is <= the held one's; a shorter one is merged and ends the
 *    train; a longer one flushes the held skb and starts a new one
 *    (udp_gro_receive_segment "ulen > ntohs(uh2->len)")
 *  - TTL/hop limit, TOS/traffic class (ECN included) or DF differing
 *    flushes the held skb (inet_gro_receive "All fields must match except
 *    length and checksum"; 6.10+ inet_gro_flush / ipv6_gro_flush)
 *  - IPv4 ID: incrementing (mod 2^16) always merges; fixed merges only with
 *    DF (the "atomic" / ip_fixedid case) up to 6.12, with or without DF on
 *    6.18 (measured; keyed at 6.18.0); anything else flushes.  The crafted
 *    IDs increment per flow, as a connected socket's do: a gap (a packet of
 *    the flow that went up alone) flushes the held skb
 *  - IPv4 options (header != 0x45) and a zero UDP checksum ("requires non
 *    zero csum, for symmetry with GSO") are never merged: the packet goes
 *    up alone at once, the held skb stays
 *  - a bad UDP checksum: skb_gro_checksum_validate_zero_check fails, the
 *    packet goes up alone and UDP drops it (InCsumErrors)
 *  - at most UDP_GRO_CNT_MAX (64) packets per skb, and less than
 *    gro_max_size (65536) bytes from the IP header on (skb_gro_receive
 *    -E2BIG)
 *  - only for a socket with UDP_GRO; with rx-gro-list and a plain socket
 *    the skb is a fraglist one, split back into the packets at the socket
 *    (udp_rcv_segment); with neither, nothing is merged; for no socket,
 *    with rx-udp-gro-forwarding (NETIF_F_GRO_UDP_FWD, udp_gro_receive "!sk")
 *
 * One process (both devices reachable here) or split roles for two hosts
 * (--role rx on the receiver, --role tx on the sender, joined by pipes:
 * the receiver asks for each train with a line 'go').
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>

#include "udpgso_wire.h"
#include "udpgso_wire_gro.h"

/* ---- expected skbs ------------------------------------------------------ */

struct gout {
	uint16_t sport;
	uint32_t len;		/* tap: frame bytes after L2; read: payload */
	uint32_t gso;		/* tap: vnet gso_size; read: UDP_GRO cmsg */
	/* tap: the packets in it, from the payload pattern (-1: unknown) */
	int16_t first, last;
	bool asc;		/* its packets in ascending order */
};

/* parse "0-2;3x" into group ids per packet (-1: not listed) and drop marks */
static int parse_groups(const char *s, int n, int *grp, bool *drop)
{
	int g = 0, i, a, b;
	const char *p = s;
	char *end;

	for (i = 0; i < n; i++)
		grp[i] = -1;
	while (*p) {
		drop[g] = false;
		for (;;) {
			a = (int)strtol(p, &end, 10);
			b = a;
			p = end;
			if (*p == '-') {
				b = (int)strtol(p + 1, &end, 10);
				p = end;
			}
			for (i = a; i <= b && i < n; i++)
				grp[i] = g;
			if (*p != ',')
				break;
			p++;
		}
		if (*p == 'x') {
			drop[g] = true;
			p++;
		}
		g++;
		if (*p == ';')
			p++;
	}
	return g;
}

/*
 * From the groups: the taps (one per skb GRO delivers) and the reads
 * (UDP_GRO socket: one per skb; plain socket: one per packet).  Without
 * merging (plain socket, no fraglist) every packet is its own skb.
 */
static void expect_out(const struct gpkt *p, int n, const char *groups, int fam, enum rxmode m,
		       struct gout *taps, int *ntaps, struct gout *reads, int *nreads)
{
	int grp[GRO_MAX_PKTS], g, ng, i, first;
	bool drop[GRO_MAX_PKTS];

	ng = parse_groups(groups, n, grp, drop);
	if (m == RX_PLAIN) {
		bool d[GRO_MAX_PKTS];

		/* in train order: every packet alone */
		for (i = 0; i < n; i++)
			d[i] = grp[i] >= 0 && drop[grp[i]];
		for (i = 0; i < n; i++) {
			grp[i] = i;
			drop[i] = d[i];
		}
		ng = n;
	}
	*ntaps = *nreads = 0;
	for (g = 0; g < ng; g++) {
		uint32_t sum = 0, cnt = 0;

		first = -1;
		for (i = 0; i < n; i++) {
			if (grp[i] != g)
				continue;
			if (first < 0)
				first = i;
			sum += p[i].len;
			cnt++;
		}
		if (first < 0)
			continue;
		taps[*ntaps].sport = SPORT0 + p[first].flow;
		taps[*ntaps].len = sum + 8 + (fam == 4 ? 20 + (p[first].opts ? 4 : 0) :
					     40 + p[first].dstopts);
		taps[*ntaps].gso = cnt > 1 ? p[first].len : 0;
		(*ntaps)++;
		if (drop[g] || m == RX_NONE)
			continue;
		if (m == RX_PLAIN_FRAGLIST) {
			for (i = 0; i < n; i++) {
				if (grp[i] != g)
					continue;
				reads[*nreads] = (struct gout){ .sport = SPORT0 + p[i].flow,
								.len = p[i].len };
				(*nreads)++;
			}
			continue;
		}
		reads[*nreads] = (struct gout){ .sport = SPORT0 + p[first].flow, .len = sum,
					       .gso = cnt > 1 ? p[first].len : 0 };
		(*nreads)++;
	}
}

/* "flow 41000: 3000/1000 1000 | flow 41001: ..." */
static void fmt_out(char *buf, size_t len, const struct gout *o, int n)
{
	size_t u = 0;
	int f, i, nf = 0;
	uint16_t flows[16];

	buf[0] = 0;
	for (i = 0; i < n; i++) {
		for (f = 0; f < nf && flows[f] != o[i].sport; f++)
			;
		if (f == nf && nf < 16)
			flows[nf++] = o[i].sport;
	}
	for (f = 0; f < nf && u < len; f++) {
		u += snprintf(buf + u, len - u, "%s%u:", f ? " |" : "", flows[f]);
		for (i = 0; i < n && u < len; i++) {
			if (o[i].sport != flows[f])
				continue;
			if (o[i].gso)
				u += snprintf(buf + u, len - u, " %u/%u", o[i].len, o[i].gso);
			else
				u += snprintf(buf + u, len - u, " %u", o[i].len);
		}
	}
}

/* ---- the run ------------------------------------------------------------ */

static void get_mac(const char *dev, uint8_t mac[6])
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr))
		ug_die_errno(1, "SIOCGIFHWADDR %s", dev);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
}

/*
 * UDP checksum drops in the receiver's namespace: Udp InCsumErrors plus
 * Udp6InCsumErrors (6.18 counts an IPv6 one in the first: measured), or
 * -1 when unreadable
 */
static long mib_value(int fd, const char *key)
{
	char buf[8192], *p, *hdr, *val;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int col = 0;

	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (strcmp(key, "Udp:")) {
		p = strstr(buf, key);
		return p ? strtol(p + strlen(key), NULL, 10) : -1;
	}
	/* "Udp: InDatagrams ... InCsumErrors ..." then "Udp: 1 2 ..." */
	hdr = strstr(buf, key);
	val = hdr ? strstr(hdr + 1, key) : NULL;
	if (!val)
		return -1;
	for (p = hdr; p < val && strncmp(p, " InCsumErrors", 13); p++)
		col += *p == ' ';
	if (p >= val)
		return -1;
	for (p = val; col >= 0 && *p; p++)
		if (*p == ' ' && --col < 0)
			break;
	return strtol(p, NULL, 10);
}

static long csum_errors(const struct gro_env *env, long *v4, long *v6)
{
	*v4 = mib_value(env->snmpfd, "Udp:");
	*v6 = mib_value(env->snmp6fd, "Udp6InCsumErrors");
	return *v4 < 0 || *v6 < 0 ? -1 : *v4 + *v6;
}

static int build_frames(const struct gro_env *env, const struct gpkt *p, int n,
			uint8_t (*fr)[1600], struct mmsghdr *mm, struct iovec *iov)
{
	static uint8_t pay[1600];
	uint32_t off = 0;
	int i, j, seq;

	for (i = 0; i < n; i++) {
		/* IPv4 IDs increment per flow, as a connected socket's do */
		for (seq = 0, j = 0; j < i; j++)
			seq += p[j].flow == p[i].flow;
		struct wire_craft c = {
			.src = env->src, .dst = env->dst,
			.sport = (uint16_t)(SPORT0 + p[i].flow), .dport = env->dport,
			.ttl = p[i].ttl, .tos = p[i].tos, .df = !p[i].nodf,
			.ip_id = (uint16_t)(p[i].id >= 0 ? p[i].id : 100 + seq),
			.ip4_opts = p[i].opts ? 4 : 0, .ip6_dstopts = p[i].dstopts,
			.dstopt_val = p[i].dstopt_val, .payload = pay, .plen = p[i].len,
			.csum = p[i].csum,
		};

		memcpy(c.smac, env->smac, 6);
		memcpy(c.dmac, env->dmac, 6);
		wire_fill(pay, p[i].len, 0, off);
		off += p[i].len;
		iov[i].iov_base = fr[i];
		iov[i].iov_len = wire_craft(fr[i], sizeof(fr[i]), &c);
		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	return n;
}

static long coarse_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* the packet whose payload starts at @b (@len bytes there), -1: none */
static int pkt_at(const struct gpkt *p, int n, const uint8_t *b, size_t len)
{
	uint32_t off = 0;
	int i, k;

	for (i = 0; i < n; off += p[i].len, i++) {
		if (p[i].len < 4 || len < 4)
			continue;
		for (k = 0; k < 4 && b[k] == wire_pat(0, off + (uint32_t)k); k++)
			;
		if (k == 4)
			return i;
	}
	return -1;
}

/*
 * the packets a tap's skb carries, from the payload pattern (wire_fill at
 * each packet's offset in the train): first, last, and whether each one is
 * after the one before (GRO merges in arrival order)
 */
static void tap_packets(const struct gpkt *p, int n, const uint8_t *b, size_t len,
			struct gout *t)
{
	int i = pkt_at(p, n, b, len), j;
	size_t u = 0;

	t->first = t->last = (int16_t)i;
	t->asc = true;
	while (i >= 0 && (u += p[i].len) < len) {
		j = pkt_at(p, n, b + u, len - u);
		if (j < 0)
			break;		/* cut short by the capture */
		t->asc &= j > i;
		t->last = (int16_t)(i = j);
	}
}

/*
 * collect taps and reads: wait up to @first_ms for the first, then until
 * @quiet_ms pass without either
 */
static void collect(const struct gro_env *env, const struct gpkt *p, int n, struct gout *taps,
		    int *ntaps, struct gout *reads, int *nreads, int first_ms, int quiet_ms)
{
	static uint8_t buf[WIRE_FRAME_MAX];
	struct pollfd pfd[2] = { { .fd = env->tapfd, .events = POLLIN },
				 { .fd = env->ufd, .events = POLLIN } };
	int wait_ms = first_ms;

	*ntaps = *nreads = 0;
	while (poll(pfd, 2, wait_ms) > 0) {
		wait_ms = quiet_ms;
		if (pfd[0].revents & POLLIN) {
			struct wire_frame f;
			int pt, r;

			r = wire_packet_recv(env->tapfd, buf, sizeof(buf), wire_use_vnet(), 0, &f,
					     &pt);
			size_t l4;

			if (r > 0 && pt != PACKET_OUTGOING && f.len > WIRE_ETH_HLEN + 40 &&
			    *ntaps < GRO_MAX_OUT) {
				uint8_t v = buf[WIRE_ETH_HLEN] >> 4;
				uint8_t proto = v == 4 ? buf[WIRE_ETH_HLEN + 9] :
						buf[WIRE_ETH_HLEN + 6];

				l4 = WIRE_ETH_HLEN + (v == 4 ? (buf[WIRE_ETH_HLEN] & 15) * 4u : 40);
				if (v == 6 && proto == 60) {
					proto = buf[l4];
					l4 += (buf[l4 + 1] + 1u) * 8;
				}
				if (proto == IPPROTO_UDP && f.len >= l4 + 8 &&
				    (buf[l4 + 2] << 8 | buf[l4 + 3]) == env->dport) {
					taps[*ntaps].sport = (uint16_t)(buf[l4] << 8 | buf[l4 + 1]);
					taps[*ntaps].len = (uint32_t)(f.len - WIRE_ETH_HLEN);
					taps[*ntaps].gso = f.vnet.gso_type ? f.vnet.gso_size : 0;
					tap_packets(p, n, buf + l4 + 8, f.len - l4 - 8,
						    &taps[*ntaps]);
					(*ntaps)++;
				}
			}
		}
		if (pfd[1].revents & POLLIN) {
			char ctl[CMSG_SPACE(sizeof(int))];
			struct sockaddr_storage ss;
			struct iovec iov = { buf, sizeof(buf) };
			struct msghdr msg = { .msg_name = &ss, .msg_namelen = sizeof(ss),
					      .msg_iov = &iov, .msg_iovlen = 1,
					      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
			ssize_t r = recvmsg(env->ufd, &msg, MSG_DONTWAIT);

			if (r >= 0 && *nreads < GRO_MAX_OUT) {
				int g = ug_cmsg_gro_size(&msg);

				reads[*nreads].sport = ug_get_port(&ss);
				reads[*nreads].len = (uint32_t)r;
				reads[*nreads].gso = g > 0 ? (uint32_t)g : 0;
				(*nreads)++;
			}
		}
	}
}

/* the outputs of each flow, in order, must be the expected ones */
static bool same_out(const struct gout *a, int na, const struct gout *b, int nb)
{
	int i, j, k;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		/* the position of a[i] among its flow's outputs */
		for (k = 0, j = 0; j < i; j++)
			k += a[j].sport == a[i].sport;
		for (j = 0; j < nb; j++) {
			if (b[j].sport != a[i].sport)
				continue;
			if (!k--)
				break;
		}
		if (j == nb || b[j].len != a[i].len || b[j].gso != a[i].gso)
			return false;
	}
	return true;
}

/*
 * Did the train reach GRO in the order it was sent?  Within a flow GRO
 * keeps the order: a held skb takes later packets only, and is delivered
 * before the next one starts; only a packet GRO sends up at once (IPv4
 * options, a zero or bad checksum: its group comes before one of an earlier
 * packet in @groups) may pass the held skb.  So each skb's packets ascend,
 * and each skb of a flow starts after the last packet of the flow's skbs
 * before it.  A train whose frames left the sender on two tx queues can
 * reach GRO out of order (XPS picks a packet socket's queue per frame from
 * the sending CPU: results/device-guest-2026-11-25d).  0: in order (or
 * unknown), 1: out of order, @why says where.
 */
static int out_of_order(const struct gpkt *p, int n, const char *groups,
			const struct gout *taps, int nt, char *why, size_t wl)
{
	int grp[GRO_MAX_PKTS], i, j, g, m;
	bool drop[GRO_MAX_PKTS], ex[GRO_MAX_OUT];

	parse_groups(groups, n, grp, drop);
	for (i = 0; i < nt; i++) {
		const struct gout *t = &taps[i];

		ex[i] = true;
		if (t->first < 0)
			continue;
		if (!t->asc) {
			snprintf(why, wl, "flow %u: an skb of packets %d..%d not in ascending order",
				 t->sport, t->first, t->last);
			return 1;
		}
		/* a packet sent up at once, before the held skb */
		g = grp[t->first];
		for (j = 0; g >= 0 && t->first == t->last && j < t->first; j++)
			if (p[j].flow == p[t->first].flow && grp[j] > g)
				break;
		if (g >= 0 && t->first == t->last && j < t->first)
			continue;
		ex[i] = false;
		/* the flow's last packet in the skbs before this one */
		for (m = -1, j = 0; j < i; j++)
			if (!ex[j] && taps[j].sport == t->sport && taps[j].last > m)
				m = taps[j].last;
		if (t->first < m) {
			snprintf(why, wl, "flow %u: an skb from packet %d came after one up to "
				 "packet %d", t->sport, t->first, m);
			return 1;
		}
	}
	return 0;
}

/*
 * every tap skb's packets lie within one group of @groups: what came is the
 * expectation cut (a flush), not packets merged across its groups
 */
static bool cut_of(int n, const char *groups, const struct gout *taps, int nt)
{
	int grp[GRO_MAX_PKTS], i;
	bool drop[GRO_MAX_PKTS];

	parse_groups(groups, n, grp, drop);
	for (i = 0; i < nt; i++)
		if (taps[i].first < 0 || !taps[i].asc || grp[taps[i].first] < 0 ||
		    grp[taps[i].first] != grp[taps[i].last])
			return false;
	return nt > 0;
}

/* the receiver's side: tap, socket, counters (in @rxns, if given) */
static void setup_rx(struct gro_env *env, const struct gro_opts *o)
{
	if (o->rxns)
		wire_netns_enter(o->rxns);
	get_mac(o->rxdev, env->dmac);
	env->tapfd = wire_packet_socket(o->rxdev, wire_use_vnet(), NULL);
	env->ufd = o->mode == RX_NONE ? -1 : rx_socket(env, o);
	env->snmpfd = open("/proc/self/net/snmp", O_RDONLY | O_CLOEXEC);
	env->snmp6fd = open("/proc/self/net/snmp6", O_RDONLY | O_CLOEXEC);
	if (o->rxns)
		wire_netns_enter(NULL);
}

/*
 * one train, started right after a tick; true when a jiffy ended in it.
 * Sent from one CPU: a packet socket caches no tx queue, so XPS picks each
 * frame's queue from the sending CPU (netdev_pick_tx), and a sender moved
 * in the middle of sendmmsg (cond_resched between messages) spreads the
 * train over two queues, which a multiqueue device may deliver out of
 * order (results/device-guest-2026-11-25d).  @cpu: the CPU at the start
 * and the end (they differ only when the pinning failed).
 */
static bool send_train(const struct gro_env *env, struct mmsghdr *mm, int n, const char *txdev,
		       int cpu[2])
{
	long t0, t1;
	cpu_set_t old, one;
	bool pinned = false;

	cpu[0] = sched_getcpu();
	if (cpu[0] >= 0 && !sched_getaffinity(0, sizeof(old), &old)) {
		CPU_ZERO(&one);
		CPU_SET(cpu[0], &one);
		pinned = !sched_setaffinity(0, sizeof(one), &one);
	}
	t0 = coarse_ticks();

	/* the train must stay in one jiffy (napi_complete_done flushes held
	 * skbs of an older jiffy)
	 */
	while (coarse_ticks() == t0)
		;
	t0 = coarse_ticks();
	if (env->gso_buf) {
		if (send(env->txfd, env->gso_buf, env->gso_len, 0) != (ssize_t)env->gso_len)
			ug_die_errno(1, "GSO send of %zu bytes from %s", env->gso_len, txdev);
	} else if (sendmmsg(env->txfd, mm, n, 0) != n) {
		ug_die_errno(1, "sendmmsg on %s", txdev);
	}
	t1 = coarse_ticks();
	cpu[1] = sched_getcpu();
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	return t1 != t0;
}

/* --role tx: a train per line 'go' on stdin, 'sent N crossed 0|1 cpu A B' for each */
static int tx_role(const struct gro_env *env, struct mmsghdr *mm, int n, const char *txdev)
{
	int i;
	char line[64];
	int cpu[2];

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strcmp(line, "go")) {
			fprintf(stderr, "# gro --role tx: line '%s' ignored (allowed: go)\n", line);
			continue;
		}
		i = send_train(env, mm, n, txdev, cpu);
		printf("sent %d crossed %d cpu %d %d\n", n, i, cpu[0], cpu[1]);
	}
	return 0;
}

int wire_gro_main(int argc, char **argv)
{
	static const char *const rxname[] = { "UDP_GRO socket", "plain socket",
					      "plain socket, rx-gro-list", "no socket" };
	static uint8_t fr[GRO_MAX_PKTS][1600];
	static struct gout etaps[GRO_MAX_OUT], ereads[GRO_MAX_OUT], taps[GRO_MAX_OUT],
			   reads[GRO_MAX_OUT], ctaps[GRO_MAX_OUT], creads[GRO_MAX_OUT];
	struct gro_opts o = { .mode = RX_GRO, .tries = 5, .swap = { -1, -1 } };
	struct mmsghdr mm[GRO_MAX_PKTS];
	struct iovec iov[GRO_MAX_PKTS];
	struct gpkt p[GRO_MAX_PKTS];
	struct gro_env env = { 0 };
	const struct gcase *c = NULL;
	int i, n = 0, try, net, ner, nt, nr, crossed = 0, ncrossed = 0;
	char e1[1024], e2[1024], s1[1024], s2[1024], drops[96];
	long ce0 = -1, ce1 = -1, c40 = 0, c41 = 0, c60 = 0, c61 = 0, want;
	const char *groups, *own, *note = "";
	char cut[512], why[256], polls[512], tpath[512], cutnote[700] = "";
	int split = -3, nsplit = 0, nreord = 0, nunseen = 0, reord = 0, tlines, cnt, cnr;
	int cpu[2] = { -1, -1 };
	char owhy[160];
	bool ok = false, skip, exact = false;
	FILE *out = stdout;

	parse_gro(argc, argv, &o, &env);
	for (i = 0; i < (int)wire_gro_ncases; i++)
		if (!strcmp(wire_gro_cases[i].name, o.cname))
			c = &wire_gro_cases[i];
	ug_die_if(!c, "gro: -c '%s': unknown case (-l lists them)", o.cname);
	ug_die_if(c->fam && c->fam != env.fam, "gro: -c %s is an IPv%d case", o.cname, c->fam);
	c->build(p, &n, env.fam);
	groups = c->groups ? c->groups : wire_gro_groups;
	if (env.fam == 6 && c->groups6)
		groups = c->groups6;
	if (c->kver_new && ug_kernel_version() >= c->kver_new)
		groups = c->groups_new;
	own = groups;
	if (o.groups)
		groups = o.groups;	/* the comparison's own test: a wrong one */
	if (o.cut_from)
		return napi_cut_from(o.cut_from, p, n, env.fam, o.hz, groups, own);
	wire_parse_addr("-S", o.src, env.fam == 4 ? AF_INET : AF_INET6, &env.src);
	wire_parse_addr("-D", o.dst, env.fam == 4 ? AF_INET : AF_INET6, &env.dst);
	snprintf(tpath, sizeof(tpath), "%s/trace", o.napi_dir ? o.napi_dir : ".");

	if (o.role != ROLE_TX)
		setup_rx(&env, &o);
	if (o.role == ROLE_TX && o.gso) {
		gso_setup(&env, p, n, o.cname);
	} else if (o.role != ROLE_RX) {
		get_mac(o.txdev, env.smac);
		env.txfd = wire_packet_socket(o.txdev, false, NULL);
		build_frames(&env, p, n, fr, mm, iov);
		if (o.swap[0] >= 0) {	/* the self-test's train out of order */
			struct mmsghdr t;

			ug_die_if(o.swap[0] >= n || o.swap[1] >= n,
				  "gro --swap %d,%d: case %s has packets 0..%d", o.swap[0],
				  o.swap[1], c->name, n - 1);
			t = mm[o.swap[0]];
			mm[o.swap[0]] = mm[o.swap[1]];
			mm[o.swap[1]] = t;
		}
	}
	if (o.role == ROLE_TX) {
		i = tx_role(&env, mm, n, o.txdev ? o.txdev : "the UDP socket");
		free(env.gso_buf);
		return i;
	}
	if (o.role == ROLE_RX) {
		out = stderr;	/* stdout asks for the trains */
		setvbuf(stdout, NULL, _IOLBF, 0);
	}

	expect_out(p, n, groups, env.fam, o.mode, etaps, &net, ereads, &ner);
	/* no virtio_net header on the tap (before 6.2): lengths only */
	for (i = 0; !wire_use_vnet() && i < net; i++)
		etaps[i].gso = 0;
	/* drain what the namespace had before */
	collect(&env, p, n, taps, &nt, reads, &nr, 20, 20);
	for (want = 0, i = 0; i < n; i++)
		want += p[i].csum == 1;
	for (try = 1; try <= o.tries; try++) {
		ce0 = csum_errors(&env, &c40, &c60);
		/* the trace's lines so far: this train's follow them */
		tlines = o.napi_dir ? napi_trace_lines(tpath) : 0;
		if (o.role == ROLE_BOTH) {
			crossed = send_train(&env, mm, n, o.txdev, cpu);
			collect(&env, p, n, taps, &nt, reads, &nr, 100, 100);
		} else {
			printf("go\n");
			/* unknown without the answer: -1 */
			crossed = o.tx_reply ? read_reply(n, cpu) : -1;
			/* the frames left before the answer; without it, the
			 * sender may be slow to start (ssh, a TCG guest)
			 */
			collect(&env, p, n, taps, &nt, reads, &nr, o.tx_reply ? 2000 : 10000, 100);
		}
		ce1 = csum_errors(&env, &c41, &c61);
		ok = same_out(etaps, net, taps, nt) && same_out(ereads, ner, reads, nr) &&
		     (ce0 < 0 || ce1 - ce0 == want);
		/* reordered before GRO: no verdict on GRO, asked again, said */
		reord = out_of_order(p, n, own, taps, nt, owhy, sizeof(owhy));
		if (reord) {
			nreord++;
			fprintf(out, "# try %d: the train reached GRO out of order: %s (the sender "
				"on CPU %d..%d; skbs [%s])\n", try, owhy, cpu[0], cpu[1],
				(fmt_out(s1, sizeof(s1), taps, nt), s1));
			if (try < o.tries)
				continue;
			ok = false;
			crossed = 0;
			break;
		}
		split = o.napi_dir ? napi_train(tpath, tlines, p, n, env.fam, o.hz, groups, own, cut,
						sizeof(cut), why, sizeof(why), polls,
						sizeof(polls), &exact) : -3;	/* not read */
		if (split > 0) {
			/* what came, against the cut: the flush model's own check */
			expect_out(p, n, cut, env.fam, o.mode, ctaps, &cnt, creads, &cnr);
			for (i = 0; !wire_use_vnet() && i < cnt; i++)
				ctaps[i].gso = 0;
			fmt_out(s1, sizeof(s1), taps, nt);
			fprintf(out, "# try %d: a GRO flush split the train (polls that ended inside: "
				"%s): expectation cut: %s; skbs [%s] %s the cut\n", try, polls, cut, s1,
				same_out(ctaps, cnt, taps, nt) && same_out(creads, cnr, reads, nr) ?
				"match" : "do not match");
			if (try < o.tries) {
				nsplit++;
				continue;
			}
			/* every try split: judged against the cut expectation */
			snprintf(cutnote, sizeof(cutnote), "; every try split by a GRO flush: judged "
				 "with the expectation cut at the flushes: %s", cut);
			expect_out(p, n, cut, env.fam, o.mode, etaps, &net, ereads, &ner);
			for (i = 0; !wire_use_vnet() && i < net; i++)
				etaps[i].gso = 0;
			ok = same_out(etaps, net, taps, nt) && same_out(ereads, ner, reads, nr) &&
			     (ce0 < 0 || ce1 - ce0 == want);
			crossed = 0;
			break;
		}
		if (split == -2) {
			fprintf(out, "# try %d: a GRO flush split the train (polls that ended inside: "
				"%s); %s\n", try, polls, why);
			if (try < o.tries) {
				nsplit++;
				continue;
			}
			snprintf(cutnote, sizeof(cutnote), "; every try split by a GRO flush, no cut "
				 "computed: %s", why);
			crossed = 0;
			break;
		}
		if (split == -1)
			fprintf(out, "# try %d: the GRO flushes inside the train not known: %s\n",
				try, why);
		/*
		 * the receiver's flushes seen, none split it: judged as it is;
		 * but skbs that are the case's expectation cut where the trace saw no
		 * flush are asked again, named (seen in the 6.1 guest: the
		 * jiffy a kprobe event reads and the one GRO compares may
		 * differ: results/device-guest-2026-11-25d)
		 */
		if (split == 0 && exact) {
			if (ok || o.groups || try == o.tries || !cut_of(n, own, taps, nt))
				break;
			fmt_out(s1, sizeof(s1), taps, nt);
			fprintf(out, "# try %d: split where the trace saw no GRO flush: skbs [%s] "
				"are the expectation cut (polls that ended inside: %s)\n", try, s1,
				polls);
			nunseen++;
			continue;
		}
		ncrossed += crossed == 1;
		if (ok || !crossed)
			break;
	}
	fmt_out(e1, sizeof(e1), etaps, net);
	fmt_out(e2, sizeof(e2), ereads, ner);
	fmt_out(s1, sizeof(s1), taps, nt);
	fmt_out(s2, sizeof(s2), reads, nr);
	/* a packet GRO sends up alone with a bad checksum: InCsumErrors */
	if (ce0 >= 0 && ce1 - ce0 != want)
		fprintf(out, "# UDP checksum drops +%ld (Udp InCsumErrors +%ld, "
			"Udp6InCsumErrors +%ld), expected +%ld\n",
			ce1 - ce0, c41 - c40, c61 - c60, want);
	drops[0] = 0;
	if (ce0 >= 0 && ce1 != ce0)
		snprintf(drops, sizeof(drops), "; checksum drops +%ld (Udp +%ld, Udp6 +%ld)",
			 ce1 - ce0, c41 - c40, c61 - c60);
	/*
	 * every train crossed a jiffy: the precondition of the case (one
	 * jiffy, so napi_complete_done keeps the held skbs) never held; a
	 * mismatch then says nothing about GRO (seen on TCG guests, where 66
	 * frames take longer than 4 ms).  Without the sender's answer
	 * (crossed -1) nothing is known: a mismatch fails.
	 */
	try = try > o.tries ? o.tries : try;
	skip = !ok && crossed == 1 && ncrossed == try;
	/* every try split, and no cut to judge it by: not a GRO verdict */
	skip |= !ok && split == -2;
	if (skip && split == -2)
		note = "";
	else if (skip)
		note = "; each train crossed a jiffy (too slow here)";
	else if (try - nsplit - nreord - nunseen > 1 && crossed == -1)
		note = "; train resent: the sender's jiffies unknown, asked again after a mismatch";
	else if (try - nsplit - nreord - nunseen > 1)
		note = "; train resent: a jiffy ended in it";
	if (reord)
		snprintf(cutnote + strlen(cutnote), sizeof(cutnote) - strlen(cutnote),
			 "; reached GRO out of order in %d of %d tries, the last too: %s", nreord,
			 try, owhy);
	else if (nreord)
		snprintf(cutnote + strlen(cutnote), sizeof(cutnote) - strlen(cutnote),
			 "; asked again %d times: out of order at GRO", nreord);
	if (nunseen)
		snprintf(cutnote + strlen(cutnote), sizeof(cutnote) - strlen(cutnote),
			 "; asked again %d times: split, no flush seen", nunseen);
	if (nsplit)
		snprintf(cutnote + strlen(cutnote), sizeof(cutnote) - strlen(cutnote),
			 "; asked again %d times: poll split", nsplit);
	fprintf(out, "%s ipv%d %s (%s): %d packets -> skbs [%s] reads [%s]%s%s%s\n",
		skip ? "SKIP" : ok ? "PASS" : "FAIL", env.fam, c->name, rxname[o.mode], n, s1, s2,
		drops, note, cutnote);
	if (!ok)
		fprintf(out, "# expected skbs [%s] reads [%s]\n", e1, e2);
	return skip ? KSFT_SKIP : ok ? 0 : 1;
}
