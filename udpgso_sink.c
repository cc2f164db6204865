// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso --sink-capture DEV: every segment of every send, captured on the
 * sink device with AF_PACKET and checked by udpgso_wire's checker
 * (udpgso_wire_cap.c, udpgso_wire_pkt.c): IPv4 header (length, checksum,
 * DF, IDs in sequence, options) or IPv6 (payload length, extension
 * headers), UDP length, UDP checksum with the pseudo-header (full, or the
 * pseudo-header sum where CHECKSUM_PARTIAL), every payload byte at its
 * send offset, gso_size x N + tail, and under ipip the outer IPv4 header.
 * The count is udpgso's own: the segments the case expects, the frames
 * and GSO frames the sink's model expects (one GSO skb or N segments);
 * a send that must fail must put nothing there.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include "udpgso.h"
#include "udpgso_wire.h"

static const struct gso_cfg *scfg;
static struct wire_cap cap = { .fd = -1, .egress = true, .timeout_ms = 300,
			       .linger_ms = 20 };
static struct wire_addr src4, src6, osrc, odst;
static bool have_src4, have_src6;
static unsigned long sends, segs, frames, gso_frames, failed;

static void to_wire_addr(const struct sockaddr_storage *ss, struct wire_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = ss->ss_family;
	if (a->family == AF_INET)
		a->v4 = ((const struct sockaddr_in *)ss)->sin_addr;
	else
		a->v6 = ((const struct sockaddr_in6 *)ss)->sin6_addr;
}

/* the source address the route to @dst picks (what every send carries) */
static const struct wire_addr *src_for(const struct sockaddr_storage *dst, socklen_t dl)
{
	struct wire_addr *a = dst->ss_family == AF_INET ? &src4 : &src6;
	bool *have = dst->ss_family == AF_INET ? &have_src4 : &have_src6;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd;

	if (*have)
		return a;
	fd = socket(dst->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	if (connect(fd, (const struct sockaddr *)dst, dl) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl))
		ug_die_errno(1, "--sink-capture: no route to the destination");
	close(fd);
	to_wire_addr(&ss, a);
	*have = true;
	return a;
}

void sink_cap_open(const struct gso_cfg *cfg)
{
	char buf[96], *comma;

	scfg = cfg;
	if (cfg->sink_outer) {
		snprintf(buf, sizeof(buf), "%s", cfg->sink_outer);
		comma = strchr(buf, ',');
		if (!comma)
			ug_die(1, "--sink-outer '%s': allowed SRC,DST (IPv4 addresses)",
			       cfg->sink_outer);
		*comma = 0;
		wire_parse_addr("--sink-outer", buf, AF_INET, &osrc);
		wire_parse_addr("--sink-outer", comma + 1, AF_INET, &odst);
	}
	if (!if_nametoindex(cfg->sink_capture))
		ug_die(1, "--sink-capture %s: no such device in this network namespace",
		       cfg->sink_capture);
	cap.fd = wire_packet_socket(cfg->sink_capture, wire_use_vnet(), NULL);
	ktap_info("sink capture on %s: AF_PACKET egress, %s", cfg->sink_capture,
		  wire_use_vnet() ? "virtio_net header (GSO frames whole)" :
		  "no virtio_net header (before 6.2: GSO frames told by their length)");
}

/* the facts of a capture that passed the checker, in one line */
static void summary(const struct wire_expect *e, const struct wire_state *st, char *msg,
		    size_t ml, uint64_t dev_packets)
{
	int n;

	n = snprintf(msg, ml, "%d segments in %d frames (%d GSO frames), device tx %llu; "
		     "checked: %s%s, UDP len, csum full %d partial %d zero %d, payload %u B",
		     st->segs, st->frames, st->gso_frames, (unsigned long long)dev_packets,
		     e->dst.family == AF_INET ? "IPv4 hdr+csum" : "IPv6 hdr",
		     e->ipip ? ", outer IPv4 (ipip)" : "",
		     st->full, st->partial, st->zero, st->off);
	if (n < 0 || (size_t)n >= ml)
		return;
	if (e->ip4_opts || e->exthdr_len)
		n += snprintf(msg + n, ml - n, ", %s %d B", e->ip4_opts ? "IPv4 options" :
			      "IPv6 extension headers", e->ip4_opts + e->exthdr_len);
	if (n < 0 || (size_t)n >= ml)
		return;
	if (st->ipv4_df >= 0)
		n += snprintf(msg + n, ml - n, ", %s, IDs in sequence",
			      st->ipv4_df ? "DF" : "no DF");
	if (n < 0 || (size_t)n >= ml)
		return;
	if (e->gso)
		snprintf(msg + n, ml - n, ", sizes %u x %u + %u", e->gso,
			 (e->total - 1) / e->gso, e->total - (e->total - 1) / e->gso * e->gso);
}

bool sink_cap_check(const struct sink_send *s, char *msg, size_t ml)
{
	const struct expect *x = s->e;
	struct wire_expect e = { .dport = scfg->port, .payload = s->payload, .ttl = 64, .df = -1 };
	enum wire_err err = WE_OK;
	struct wire_state st;
	unsigned int drops;
	char why[256];

	e.src = *src_for(s->dst, s->dl);
	to_wire_addr(s->dst, &e.dst);
	e.sport = s->sport;
	e.total = x->nseg ? (uint32_t)((x->nseg - 1) * x->seg + x->last) : 0;
	e.gso = x->nseg > 1 ? (uint32_t)x->seg : 0;
	e.zero_csum_ok = s->nocheck;
	if (e.dst.family == AF_INET) {
		e.ip4_opts = s->extra;
		e.df = 1;	/* IP_PMTUDISC_DO */
	} else {
		e.exthdr_len = s->extra;
	}
	if (scfg->sink_outer) {
		e.ipip = true;
		e.osrc = osrc;
		e.odst = odst;
	}
	sends++;
	if (!wire_capture(&cap, &e, &st, &err, why, sizeof(why)) && e.total)
		wire_check_end(&e, &st, &err, why, sizeof(why));
	drops = wire_packet_drops(cap.fd);
	frames += st.frames;
	gso_frames += st.gso_frames;
	segs += st.segs;
	/* the checker passed: then the counts against the model */
	if (err == WE_OK) {
		if (!e.total && st.frames)
			snprintf(why, sizeof(why), "%d frames of this send captured, expected "
				 "none (the send failed)", st.frames);
		else if (drops)
			snprintf(why, sizeof(why), "the capture socket dropped %u frames", drops);
		else if (st.frames != s->frames)
			snprintf(why, sizeof(why), "frames: %d captured (%d GSO), the sink's "
				 "model expects %d%s", st.frames, st.gso_frames, s->frames, s->how);
		else if (st.gso_frames != s->gso_frames)
			snprintf(why, sizeof(why), "gso_frames: %d GSO frames in %d, the sink's "
				 "model expects %d%s", st.gso_frames, st.frames, s->gso_frames,
				 s->how);
		else
			why[0] = 0;
	}
	if (err == WE_OK && !why[0]) {
		if (e.total)
			summary(&e, &st, msg, ml, s->dev_packets);
		else
			snprintf(msg, ml, "nothing of this send on %s (none expected)",
				 scfg->sink_capture);
		return true;
	}
	failed++;
	if (err != WE_OK)
		snprintf(msg, ml, "%s: %s (%d frames seen, device tx %llu, capture drops %u)",
			 wire_err_name(err), why, st.frames,
			 (unsigned long long)s->dev_packets, drops);
	else
		snprintf(msg, ml, "%s (device tx %llu)", why, (unsigned long long)s->dev_packets);
	return false;
}

void sink_cap_totals(void)
{
	ktap_info("sink wire totals: %s sends=%lu segments=%lu frames=%lu gso_frames=%lu "
		  "failed=%lu", scfg->sink_capture, sends, segs, frames, gso_frames, failed);
}
