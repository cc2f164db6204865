// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire: the capture side, shared by udpgso_wire (send, selftest,
 * gro) and udpgso (--sink-capture): network namespaces, the AF_PACKET
 * socket and its reads, and the loop that feeds captured frames to the
 * per-segment check (udpgso_wire_pkt.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "udpgso_wire.h"

/* ---- namespaces and the AF_PACKET socket -------------------------------- */

static int wire_own_ns = -1;

/* UG_WIRE_NOVNET=1 takes the pre-6.2 path on any kernel (to test it) */
bool wire_use_vnet(void)
{
	const char *no = getenv("UG_WIRE_NOVNET");

	if (no && *no && strcmp(no, "0"))
		return false;
	return ug_kernel_version() >= UG_KVER(6, 2, 0);
}

void wire_netns_enter(const char *name)
{
	char path[256];
	int fd;

	if (wire_own_ns < 0) {
		wire_own_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (wire_own_ns < 0)
			ug_die_errno(1, "open /proc/self/ns/net");
	}
	if (!name || !*name) {
		if (setns(wire_own_ns, CLONE_NEWNET))
			ug_die_errno(1, "setns back to our own network namespace");
		return;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		ug_die_errno(1, "--netns %s: no such network namespace (%s)", name, path);
	if (setns(fd, CLONE_NEWNET))
		ug_die_errno(1, "setns %s", path);
	close(fd);
}

int wire_packet_socket(const char *dev, bool vnet, int *ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd, one = 1, rcvbuf = 8 << 20;

	sll.sll_ifindex = (int)if_nametoindex(dev);
	if (!sll.sll_ifindex)
		ug_die(1, "device '%s': no such device in this network namespace", dev);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0)
		ug_die_errno(1, "socket(AF_PACKET)");
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)))
		ug_die_errno(1, "PACKET_AUXDATA");
	if (vnet && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)))
		ug_skip("PACKET_VNET_HDR: %s", strerror(errno));
	/*
	 * the largest send in software segments (45 skbs, each with its own
	 * truesize) nears the default 208 KiB: room for several, so that a
	 * capture loses nothing (wire_packet_drops says if it did)
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		ug_die_errno(1, "bind AF_PACKET to %s", dev);
	if (ifindex)
		*ifindex = sll.sll_ifindex;
	return fd;
}

int wire_packet_recv(int fd, uint8_t *buf, size_t size, bool vnet, int timeout_ms,
		     struct wire_frame *f, int *pkttype)
{
	char ctl[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	struct sockaddr_ll sll;
	struct iovec iov[2];
	struct msghdr msg = {
		.msg_name = &sll, .msg_namelen = sizeof(sll), .msg_iov = iov,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct cmsghdr *c;
	ssize_t n;

	memset(f, 0, sizeof(*f));
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;
	iov[0].iov_base = &f->vnet;
	iov[0].iov_len = vnet ? sizeof(f->vnet) : 0;
	iov[1].iov_base = buf;
	iov[1].iov_len = size;
	msg.msg_iovlen = 2;
	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	if (vnet) {
		if (n < (ssize_t)sizeof(f->vnet))
			return -1;
		n -= sizeof(f->vnet);
		f->has_vnet = true;
	}
	f->buf = buf;
	f->len = (size_t)n;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA) {
			struct tpacket_auxdata aux;

			memcpy(&aux, CMSG_DATA(c), sizeof(aux));
			f->tp_status = aux.tp_status;
		}
	}
	*pkttype = sll.sll_pkttype;
	return 1;
}

int wire_parse_addr(const char *opt, const char *s, int family, struct wire_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = family;
	if (inet_pton(family, s, family == AF_INET ? (void *)&a->v4 : (void *)&a->v6) != 1)
		ug_die(1, "%s '%s': not a numeric %s address", opt, s,
		       family == AF_INET ? "IPv4" : "IPv6");
	return 0;
}

void wire_parse_mac(const char *opt, const char *s, uint8_t mac[6])
{
	unsigned int m[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		ug_die(1, "%s '%s': allowed a MAC address aa:bb:cc:dd:ee:ff", opt, s);
	for (i = 0; i < 6; i++) {
		if (m[i] > 255)
			ug_die(1, "%s '%s': allowed a MAC address aa:bb:cc:dd:ee:ff", opt, s);
		mac[i] = (uint8_t)m[i];
	}
}


unsigned int wire_packet_drops(int fd)
{
	struct tpacket_stats ts = { 0 };
	socklen_t l = sizeof(ts);

	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &ts, &l))
		ug_die_errno(1, "PACKET_STATISTICS");
	return ts.tp_drops;
}

/* ---- frames in, checked ----------------------------------------------------- */

static uint8_t frame_buf[WIRE_FRAME_MAX];

int wire_capture(const struct wire_cap *c, const struct wire_expect *e, struct wire_state *st,
		 enum wire_err *err, char *why, size_t wlen)
{
	struct wire_frame f;
	bool complete;
	int r, pkttype;

	wire_state_init(st);
	*err = WE_OK;
	why[0] = 0;
	for (;;) {
		complete = st->off >= e->total && (st->frames || !e->total);
		if (complete && !c->linger_ms)
			return 0;
		r = wire_packet_recv(c->fd, frame_buf, sizeof(frame_buf), wire_use_vnet(),
				     complete ? c->linger_ms : c->timeout_ms, &f, &pkttype);
		if (r < 0)
			ug_die_errno(1, "recvmsg(AF_PACKET)");
		if (!r)
			return 0;
		if (c->egress != (pkttype == PACKET_OUTGOING))
			continue;
		if (wire_check_frame(e, st, &f, err, why, wlen) < 0)
			return -1;
	}
}
