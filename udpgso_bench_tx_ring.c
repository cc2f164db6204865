// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx rings: each flow's socket, and its plan laid out once as
 * a ring of msghdrs, iovecs and cmsg buffers, so that the send path only
 * walks the ring and counts.
 */
#include <errno.h>
#include <time.h>
#include <linux/net_tstamp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpgso_bench_tx.h"

#ifndef ENOTSUPP
#define ENOTSUPP	524
#endif
#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE	47
#endif

/* ---- per flow ring ---------------------------------------------------- */

static int ring_len(int n, int b)
{
	long long a = n, c = b, t, l;

	while (c) {
		t = a % c;
		a = c;
		c = t;
	}
	l = (long long)n / a * b;
	if (l <= (b > 4096 ? b : 4096))
		return l;
	return n * ((b + n - 1) / n);
}

static void set_iov(const struct tx_plan *pl, struct flow *f, uint32_t i, uint32_t off,
		    void *base, size_t len)
{
	f->iov[i].iov_base = base ? base : pl->area + off;
	f->iov[i].iov_len = len;
	f->iov_off[i] = base ? NO_OFF : off;
}

void tx_ring_build(const struct tx_cfg *cfg, const struct tx_plan *pl, struct flow *f)
{
	const struct plan *p = f->gso_on ? &pl->gso : &pl->plain;
	uint32_t niov = 0, ndg = 0, iv = 0, dg = 0, k, q, r, off, dlen, fr;
	int R = p->n, j, nfr = cfg->iov_frames ? cfg->iov_frames : 1;
	bool ctrl_any = false;

	if (cfg->mmsg)
		R = ring_len(p->n, pl->batch);
	for (j = 0; j < R; j++) {
		ndg += p->m[j % p->n].nseg;
		niov += pl->grouped ? p->m[j % p->n].nseg * pl->pd : 1;
	}
	free(f->slots);
	free(f->mm);
	free(f->iov);
	free(f->iov_off);
	free(f->ctrl);
	free(f->stamps);
	f->nslots = R;
	f->slots = calloc(R, sizeof(*f->slots));
	f->mm = calloc(R, sizeof(*f->mm));
	f->iov = calloc(niov, sizeof(*f->iov));
	f->iov_off = calloc(niov, sizeof(*f->iov_off));
	f->ctrl = calloc(R, CTRL_LEN);
	f->stamps = cfg->seq ? calloc(ndg, UG_HDR_LEN) : NULL;
	if (!f->slots || !f->mm || !f->iov || !f->iov_off || !f->ctrl || (cfg->seq && !f->stamps))
		ug_die(1, "out of memory for %d messages", R);

	for (j = 0; j < R; j++) {
		const struct pmsg *m = &p->m[j % p->n];
		struct slot *s = &f->slots[j];
		struct msghdr *h = &f->mm[j].msg_hdr;
		uint32_t ts = cfg->hw_ts ? SOF_TIMESTAMPING_TX_HARDWARE :
					  SOF_TIMESTAMPING_TX_SOFTWARE;

		s->len = m->len;
		s->gso = m->gso;
		s->nseg = m->nseg;
		s->iov0 = iv;
		s->dg0 = dg;
		s->plan_idx = j % p->n;
		if (!pl->grouped) {
			set_iov(pl, f, iv++, m->nseg > 1 ? tx_layout_off(pl, m->gso) : 0, NULL, m->len);
		} else {
			for (k = 0; k < m->nseg; k++) {
				dlen = k + 1 < m->nseg ? m->gso : m->len - (m->nseg - 1) * m->gso;
				if (cfg->seq)
					set_iov(pl, f, iv++, 0,
						f->stamps + (size_t)(dg + k) * UG_HDR_LEN,
						UG_HDR_LEN);
				else
					set_iov(pl, f, iv++, 0, NULL, UG_HDR_LEN);
				q = (dlen - UG_HDR_LEN) / nfr;
				r = (dlen - UG_HDR_LEN) % nfr;
				for (off = UG_HDR_LEN, fr = 0; fr < (uint32_t)nfr; fr++) {
					set_iov(pl, f, iv++, off, NULL, q + (fr < r));
					off += q + (fr < r);
				}
			}
		}
		dg += m->nseg;
		s->niov = iv - s->iov0;
		h->msg_name = f->name;
		h->msg_namelen = f->namelen;
		h->msg_iov = &f->iov[s->iov0];
		h->msg_iovlen = s->niov;
		h->msg_control = f->ctrl + (size_t)j * CTRL_LEN;
		/* txtime first: its value sits at a fixed place in every slot */
		if (cfg->txtime_Bps)
			ug_cmsg_add_txtime(h, CTRL_LEN, 0);
		if (m->gso && f->gso_on && !cfg->sockopt)
			ug_cmsg_add_segment(h, CTRL_LEN, m->gso);
		if (cfg->tstamp)
			ug_cmsg_add(h, CTRL_LEN, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
		if (!h->msg_controllen)
			h->msg_control = NULL;
		else
			ctrl_any = true;
	}
	if (cfg->tcp)
		f->path = P_TCP;
	else if (cfg->mmsg)
		f->path = P_SENDMMSG;
	else if (pl->grouped || ctrl_any)
		f->path = P_SENDMSG;
	else
		f->path = P_SENDTO;
	f->pos = 0;
}

void tx_set_pmtu(const struct tx_cfg *cfg, int fd, int val)
{
	int lvl = cfg->family == AF_INET ? SOL_IP : SOL_IPV6;
	int opt = cfg->family == AF_INET ? IP_MTU_DISCOVER : IPV6_MTU_DISCOVER;

	if (setsockopt(fd, lvl, opt, &val, sizeof(val)))
		ug_die_errno(1, "setsockopt path mtu discovery");
}

/* ---- sockets ---------------------------------------------------------- */

/*
 * --sndbuf: SO_SNDBUFFORCE (CAP_NET_ADMIN, past net.core.wmem_max, which a
 * child netns cannot raise), else SO_SNDBUF (capped at wmem_max); the value
 * the kernel set (twice the request, for its overhead) goes to the JSON, so
 * a capped one is seen.  (A deeper buffer did not make a tbf-paced sender
 * hold its rate better: results/known-sndbuf-2026-11-28.)
 */
static void flow_sndbuf(const struct tx_cfg *cfg, struct flow *f)
{
	socklen_t len = sizeof(f->sndbuf);
	int val = cfg->sndbuf;

	if (setsockopt(f->fd, SOL_SOCKET, SO_SNDBUFFORCE, &val, sizeof(val)) &&
	    setsockopt(f->fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)))
		ug_die_errno(1, "setsockopt SO_SNDBUF %d", val);
	if (getsockopt(f->fd, SOL_SOCKET, SO_SNDBUF, &f->sndbuf, &len))
		ug_die_errno(1, "getsockopt SO_SNDBUF");
}

static void flow_socket(const struct tx_cfg *cfg, struct flow *f)
{
	char addr[80];
	int fd, one = 1;

	fd = socket(cfg->family, cfg->tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	f->fd = fd;
	if (cfg->zerocopy && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP || errno == ENOTSUPP)
			ug_skip("SO_ZEROCOPY not supported by this kernel: %s", strerror(errno));
		ug_die_errno(1, "setsockopt SO_ZEROCOPY");
	}
	if (cfg->txtime_Bps) {
		struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };

		if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
			ug_skip("SO_TXTIME refused by the kernel: %s", strerror(errno));
	}
	if (cfg->pacing_Bps) {
		uint64_t r = cfg->pacing_Bps;

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r))) {
			if (errno == ENOPROTOOPT)
				ug_skip("SO_MAX_PACING_RATE not supported by this kernel");
			ug_die_errno(1, "setsockopt SO_MAX_PACING_RATE");
		}
	}
	if (cfg->tstamp) {
		uint32_t v = SOF_TIMESTAMPING_OPT_CMSG | SOF_TIMESTAMPING_OPT_ID |
			     SOF_TIMESTAMPING_OPT_TSONLY;

		v |= cfg->hw_ts ? SOF_TIMESTAMPING_RAW_HARDWARE : SOF_TIMESTAMPING_SOFTWARE;

		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &v, sizeof(v)))
			ug_die_errno(1, "setsockopt SO_TIMESTAMPING");
	}
	if (cfg->sndbuf)
		flow_sndbuf(cfg, f);
	if (cfg->connected && connect(fd, (void *)&f->dst, cfg->alen))
		ug_die_errno(1, "connect %s", ug_addr_str(&f->dst, addr, sizeof(addr)));
	if (f->gso_on) {
		int val = cfg->gso_size;

		/* as upstream with -S: no local fragmentation */
		tx_set_pmtu(cfg, fd, cfg->family == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO);
		if (cfg->sockopt && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &val, sizeof(val)))
			ug_die_errno(1, "setsockopt UDP_SEGMENT %d", val);
	}
}

struct flow *tx_flows_setup(const struct tx_cfg *cfg, const struct tx_plan *pl)
{
	int i, nflows = cfg->nflows;
	struct flow *flows;

	flows = calloc(nflows, sizeof(*flows));
	if (!flows)
		ug_die_errno(1, "calloc");
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		f->idx = i;
		f->id = cfg->flow_id + i;
		f->dst = cfg->dst[i % cfg->ndst];
		ug_set_port(&f->dst, cfg->port + i % cfg->port_count);
		f->name = cfg->connected ? NULL : &f->dst;
		f->namelen = cfg->connected ? 0 : cfg->alen;
		f->gso_on = pl->gso_active;
		f->rate_Bps = cfg->txtime_Bps / nflows ? cfg->txtime_Bps / nflows : 1;
		if (cfg->count)
			f->dg_quota = cfg->count / nflows + ((uint64_t)i < cfg->count % nflows);
		if (cfg->msg_nr)
			f->round_quota = cfg->msg_nr / nflows + ((uint64_t)i < cfg->msg_nr % nflows);
		if ((cfg->count && !f->dg_quota) || (cfg->msg_nr && !f->round_quota))
			f->done = true;
		flow_socket(cfg, f);
		tx_ring_build(cfg, pl, f);
	}
	return flows;
}
