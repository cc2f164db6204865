/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_wire: what is on the wire.  Private header of udpgso_wire.c (the
 * GSO send, the checker's self-test), udpgso_wire_cap.c (the AF_PACKET
 * capture and its loop), udpgso_wire_pkt.c (checksums, frame building,
 * parsing and checking of one segment) and udpgso_wire_gro.c (the UDP GRO
 * conformance cases).  udpgso links _cap and _pkt for --sink-capture.
 */
#ifndef UDPGSO_WIRE_H
#define UDPGSO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <linux/virtio_net.h>

#include "udpgso_common.h"

/* uapi virtio_net.h since v6.2 (userspace headers may be older) */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4	5
#endif

#define WIRE_ETH_HLEN	14
#define WIRE_VXLAN_HLEN	8
#define WIRE_FRAME_MAX	(65536 + 256)

/* an address of either family */
struct wire_addr {
	int family;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

/* one captured (or crafted) frame and what AF_PACKET said about it */
struct wire_frame {
	const uint8_t *buf;
	size_t len;
	uint32_t tp_status;	/* PACKET_AUXDATA tp_status */
	bool has_vnet;		/* PACKET_VNET_HDR header present */
	struct virtio_net_hdr vnet;
};

/* what the segments of one GSO send must be */
struct wire_expect {
	struct wire_addr src, dst;
	uint16_t sport, dport;
	uint32_t total;		/* UDP payload bytes of the send */
	uint32_t gso;		/* gso_size; 0: one datagram */
	uint8_t seed;		/* payload pattern seed */
	const uint8_t *payload;	/* the bytes sent, else NULL: wire_pat(seed) */
	int exthdr_len;		/* IPv6 extension header bytes expected */
	int ip4_opts;		/* IPv4 option bytes expected */
	bool zero_csum_ok;	/* a zero UDP checksum is allowed (SO_NO_CHECK) */
	int df;			/* IPv4 DF: 1 set, 0 clear, -1 either */
	int ttl;		/* TTL / hop limit, 0: any */
	/* UDP tunnel (vxlan): the outer header, else tunnel_port 0 */
	uint16_t tunnel_port;
	bool geneve;		/* geneve (options length in its header), else vxlan */
	bool outer_zero_ok;
	bool ipip;		/* IPv4 in IPv4 (protocol 4): the outer IPv4 header */
	struct wire_addr osrc, odst;	/* the tunnel's outer addresses */
};

/* what the checker learned over the frames of one send */
struct wire_state {
	uint32_t off;		/* payload bytes seen so far */
	int segs;		/* UDP segments seen (a GSO frame counts its segs) */
	int frames;
	int ip_id0;		/* IPv4 ID of the first segment, -1 before */
	int partial, full, zero, gso_frames;
	int lco;		/* outer checksums summed over the completed inner */
	int ipv4_df;
};

/* a failure: which check, and one line of facts */
enum wire_err {
	WE_OK = 0,
	WE_L2, WE_IP_VER, WE_IP_LEN, WE_IP_CSUM, WE_IP_ID, WE_IP_DF, WE_IP_ADDR,
	WE_EXTHDR, WE_UDP_LEN, WE_UDP_CSUM, WE_UDP_PORT, WE_PAYLOAD,
	WE_SEG_SIZE, WE_SEG_COUNT, WE_GSO_META, WE_OUTER, WE_TTL,
	WE__MAX
};
const char *wire_err_name(enum wire_err e);

/* the payload byte at offset @off of a send with seed @seed: a 16-bit
 * big-endian counter of 2-byte slots, so that any shift shows
 */
static inline uint8_t wire_pat(uint8_t seed, uint32_t off)
{
	uint16_t v = (uint16_t)((off >> 1) + seed * 7919u);

	return (off & 1) ? (uint8_t)v : (uint8_t)(v >> 8);
}
void wire_fill(uint8_t *p, uint32_t len, uint8_t seed, uint32_t off);

/* ---- checksums (udpgso_wire_pkt.c) ---------------------------------- */
uint32_t wire_sum(const void *p, size_t len, uint32_t sum);
uint16_t wire_fold(uint32_t sum);
/* the pseudo-header sum (not folded) of a UDP datagram of @ulen bytes */
uint32_t wire_pseudo(const struct wire_addr *s, const struct wire_addr *d, uint32_t ulen);

/* ---- building frames ------------------------------------------------ */
/* what a crafted packet carries; zero fields take defaults */
struct wire_craft {
	struct wire_addr src, dst;
	uint8_t smac[6], dmac[6];
	uint16_t sport, dport;
	uint8_t ttl, tos;	/* tos: IPv4 TOS or IPv6 traffic class */
	bool df;
	uint16_t ip_id;
	int ip4_opts;		/* bytes of IPv4 NOP options (multiple of 4) */
	int ip6_dstopts;	/* bytes of an IPv6 destination options header */
	uint8_t dstopt_val;	/* a byte in it, so headers can differ */
	const uint8_t *payload;
	uint32_t plen;
	int csum;		/* 0 right, 1 wrong (+1), 2 zero */
};
/* writes Ethernet + IP + UDP + payload to @buf; returns the frame length */
size_t wire_craft(uint8_t *buf, size_t size, const struct wire_craft *c);

/* ---- checking -------------------------------------------------------- */
void wire_state_init(struct wire_state *st);
/*
 * Check one frame against @e.  0 when the frame is not one of ours (other
 * traffic), 1 when it is and every check passed, -1 on a failure, whose
 * class goes to *@err and whose facts (segment, expected vs seen) to @why.
 */
int wire_check_frame(const struct wire_expect *e, struct wire_state *st,
		     const struct wire_frame *f, enum wire_err *err, char *why, size_t wlen);
/* after the last frame: segment count and total; -1 with @why when wrong */
int wire_check_end(const struct wire_expect *e, const struct wire_state *st,
		   enum wire_err *err, char *why, size_t wlen);

/* ---- plumbing (udpgso_wire_cap.c) ------------------------------------ */
/*
 * Whether capture sockets get a virtio_net header (PACKET_VNET_HDR): from
 * 6.2 on; before, virtio_net_hdr_from_skb has no SKB_GSO_UDP_L4 and the
 * socket drops every UDP GSO skb (6.1 include/linux/virtio_net.h)
 */
bool wire_use_vnet(void);
/* enter the network namespace /run/netns/@name ("" or NULL: our own) */
void wire_netns_enter(const char *name);
/* AF_PACKET socket on @dev (in the current netns), PACKET_AUXDATA on,
 * PACKET_VNET_HDR when @vnet
 */
int wire_packet_socket(const char *dev, bool vnet, int *ifindex);
/* read one frame with its auxdata; 0 on timeout, -1 on error */
int wire_packet_recv(int fd, uint8_t *buf, size_t size, bool vnet, int timeout_ms,
		     struct wire_frame *f, int *pkttype);
/* frames the socket dropped since the last call (PACKET_STATISTICS) */
unsigned int wire_packet_drops(int fd);
int wire_parse_addr(const char *opt, const char *s, int family, struct wire_addr *a);

/* a capture: its socket, the direction kept, how long it waits */
struct wire_cap {
	int fd;
	bool egress;		/* outgoing frames only, else incoming only */
	int timeout_ms;		/* quiet time that ends a capture before completion */
	int linger_ms;		/* after completion (or with nothing expected): read on
				 * until this quiet time, so extra frames fail */
};
/*
 * Read and check frames of the send @e until its payload is complete (or a
 * failure, or @c->timeout_ms without a frame), then for @c->linger_ms more.
 * 0, or -1 with the failure in *@err and @why.  The caller runs
 * wire_check_end (or, when nothing was expected, looks at @st->frames).
 */
int wire_capture(const struct wire_cap *c, const struct wire_expect *e, struct wire_state *st,
		 enum wire_err *err, char *why, size_t wlen);
void wire_parse_mac(const char *opt, const char *s, uint8_t mac[6]);
/*
 * wire_capture + wire_check_end, one PASS/FAIL line on stdout named @label;
 * what was seen into *@st_out when not NULL.  0 or the negated wire_err
 */
int wire_capture_check(const struct wire_cap *c, const struct wire_expect *e,
		       const char *label, struct wire_state *st_out);

/* ---- two hosts (udpgso_wire_expect.c) --------------------------------- */
/*
 * expect: print `ready` on stdout, then `go` and capture + check one send
 * at a time, @count times; the verdict on stderr (or into @out).  0 or 1
 */
int wire_expect_run(const struct wire_cap *c, const struct wire_expect *e, int count,
		    const char *label, const char *out);
/* send --go-stdin: sendmsg once per `go` line on stdin, until EOF.  0 or 1 */
struct msghdr;
int wire_go_stdin(int fd, struct msghdr *msg, uint32_t total, int want_errno,
		  const char *label);

/* ---- UDP GRO conformance (udpgso_wire_gro.c, its cases in _grocases.c) */
#define GRO_MAX_PKTS	80	/* packets in a train */
#define GRO_MAX_OUT	160	/* skbs or reads recorded */
#define SPORT0		41000	/* source port of flow 0 */

/* one packet of a train */
struct gpkt {
	uint16_t len;		/* UDP payload */
	uint8_t flow;		/* source port SPORT0 + flow */
	uint8_t ttl, tos;
	bool nodf;
	int id;			/* IPv4 ID, -1: incrementing */
	bool opts;		/* 4 bytes of IPv4 NOP options */
	int dstopts;		/* IPv6 destination options header bytes */
	uint8_t dstopt_val;
	int csum;		/* 0 right, 1 wrong, 2 zero */
};

struct gcase {
	const char *name;
	int fam;		/* 4, 6, or 0 for both */
	const char *what;
	void (*build)(struct gpkt *p, int *n, int fam);
	/*
	 * the skbs GRO delivers, in order: groups of packet indexes split by
	 * ';', "a-b" ranges, a trailing 'x' on a group: UDP drops it; NULL:
	 * computed by the build (max_bytes)
	 */
	const char *groups;
	const char *groups6;	/* IPv6, where it differs (no IP ID there) */
	/* the kernel from which @groups_new holds instead of @groups */
	unsigned int kver_new;
	const char *groups_new;
};

extern const struct gcase wire_gro_cases[];
extern const int wire_gro_ncases;
/* the groups of a case that computes them (max_bytes) */
extern char wire_gro_groups[64];

int wire_gro_main(int argc, char **argv);

#endif /* UDPGSO_WIRE_H */
