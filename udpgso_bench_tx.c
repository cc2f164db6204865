// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx - UDP/TCP send benchmark for segmentation offload.
 *
 * Flag compatible with the kernel's tools/testing/selftests/net/udpgso_bench_tx
 * (-4 -6 -a -c -C -D -H -l -L -m -M -p -P -s -S -t -T -u -v -z), plus
 * sendmmsg with a per-message UDP_SEGMENT cmsg, socket-wide GSO, scattered
 * iovecs, mixed datagram sizes, SO_TXTIME / SO_MAX_PACING_RATE pacing,
 * several flows, sequence stamps, a runtime GSO probe with fallback, and a
 * JSON summary (see README.md).
 *
 * A "plan" is what one pass sends: -s bytes split at the MSS (upstream's
 * plain mode), one GSO send of -s bytes, or the --sizes pattern grouped into
 * GSO runs.  Each flow lays its plan out once as a ring of msghdrs, iovecs
 * and cmsg buffers; the hot path only walks that ring and counts.
 *
 * This file is the send path: the per flow rings, the error queue, the
 * sends, the threads and main().  udpgso_bench_tx_cfg.c has the options,
 * the GSO probe, the plans and the results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
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

#define NO_OFF		UINT32_MAX
#define CTRL_LEN	(CMSG_SPACE(sizeof(uint64_t)) + CMSG_SPACE(sizeof(uint16_t)) + \
			 CMSG_SPACE(sizeof(uint32_t)))
#define NSEC		1000000000ull

#define STAT_ADD(x, v)	__atomic_store_n(&(x), (x) + (v), __ATOMIC_RELAXED)
#define STAT_GET(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

static const char *const path_call[] = { "sendto", "sendmsg", "sendmmsg", "send" };

/* messages per sendmmsg call for -m with GSO when --batch is not given */
#define DEF_GSO_BATCH	8

/* a ring slot: one msghdr */
struct slot {
	uint32_t len;
	uint16_t gso;
	uint16_t nseg;
	uint32_t iov0, niov;
	uint32_t dg0;
	uint32_t plan_idx;
};

struct thr {
	pthread_t tid;
	int nflows, first;
	bool report;
	int finished;
	uint64_t end_ns;
};

struct flow *flows;
int nflows;
static struct thr *thrs;
static volatile sig_atomic_t stop;
static int g_flags, g_clock_every = 1;
int g_batch, g_pd;
bool g_grouped;
static bool g_round_is_pass;
static uint64_t g_start_ns, g_deadline;
static struct { uint64_t next, last, bytes, calls, rounds; } rep;

void note(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ug_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

static void set_iov(struct flow *f, uint32_t i, uint32_t off, void *base, size_t len)
{
	f->iov[i].iov_base = base ? base : area + off;
	f->iov[i].iov_len = len;
	f->iov_off[i] = base ? NO_OFF : off;
}

static void ring_build(struct flow *f)
{
	const struct plan *p = f->gso_on ? &plan_gso : &plan_plain;
	uint32_t niov = 0, ndg = 0, iv = 0, dg = 0, k, q, r, off, dlen, fr;
	int R = p->n, j, nfr = cfg.iov_frames ? cfg.iov_frames : 1;
	bool ctrl_any = false;

	if (cfg.mmsg)
		R = ring_len(p->n, g_batch);
	for (j = 0; j < R; j++) {
		ndg += p->m[j % p->n].nseg;
		niov += g_grouped ? p->m[j % p->n].nseg * g_pd : 1;
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
	f->stamps = cfg.seq ? calloc(ndg, UG_HDR_LEN) : NULL;
	if (!f->slots || !f->mm || !f->iov || !f->iov_off || !f->ctrl || (cfg.seq && !f->stamps))
		ug_die(1, "out of memory for %d messages", R);

	for (j = 0; j < R; j++) {
		const struct pmsg *m = &p->m[j % p->n];
		struct slot *s = &f->slots[j];
		struct msghdr *h = &f->mm[j].msg_hdr;
		uint32_t ts = cfg.hw_ts ? SOF_TIMESTAMPING_TX_HARDWARE :
					  SOF_TIMESTAMPING_TX_SOFTWARE;

		s->len = m->len;
		s->gso = m->gso;
		s->nseg = m->nseg;
		s->iov0 = iv;
		s->dg0 = dg;
		s->plan_idx = j % p->n;
		if (!g_grouped) {
			set_iov(f, iv++, m->nseg > 1 ? layout_off(m->gso) : 0, NULL, m->len);
		} else {
			for (k = 0; k < m->nseg; k++) {
				dlen = k + 1 < m->nseg ? m->gso : m->len - (m->nseg - 1) * m->gso;
				if (cfg.seq)
					set_iov(f, iv++, 0,
						f->stamps + (size_t)(dg + k) * UG_HDR_LEN,
						UG_HDR_LEN);
				else
					set_iov(f, iv++, 0, NULL, UG_HDR_LEN);
				q = (dlen - UG_HDR_LEN) / nfr;
				r = (dlen - UG_HDR_LEN) % nfr;
				for (off = UG_HDR_LEN, fr = 0; fr < (uint32_t)nfr; fr++) {
					set_iov(f, iv++, off, NULL, q + (fr < r));
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
		if (cfg.txtime_Bps)
			ug_cmsg_add_txtime(h, CTRL_LEN, 0);
		if (m->gso && f->gso_on && !cfg.sockopt)
			ug_cmsg_add_segment(h, CTRL_LEN, m->gso);
		if (cfg.tstamp)
			ug_cmsg_add(h, CTRL_LEN, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
		if (!h->msg_controllen)
			h->msg_control = NULL;
		else
			ctrl_any = true;
	}
	if (cfg.tcp)
		f->path = P_TCP;
	else if (cfg.mmsg)
		f->path = P_SENDMMSG;
	else if (g_grouped || ctrl_any)
		f->path = P_SENDMSG;
	else
		f->path = P_SENDTO;
	f->pos = 0;
}

/* ---- error queue ------------------------------------------------------ */

static void errq_flush(struct flow *f, bool do_poll, int timeout_ms)
{
	char ctrl[CMSG_SPACE(sizeof(struct scm_timestamping)) +
		  CMSG_SPACE(sizeof(struct sock_extended_err)) +
		  CMSG_SPACE(sizeof(struct sockaddr_in6))];
	struct sock_extended_err ee;
	struct scm_timestamping tss;
	struct cmsghdr *cm;
	struct msghdr msg;
	uint32_t n;

	if (do_poll) {
		struct pollfd pfd = { .fd = f->fd };

		if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
			ug_die_errno(1, "poll");
	}
	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		if (recvmsg(f->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			ug_die_errno(1, "recvmsg MSG_ERRQUEUE");
		}
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_TIMESTAMPING) {
				memcpy(&tss, CMSG_DATA(cm), sizeof(tss));
				if (!tss.ts[cfg.hw_ts ? 2 : 0].tv_sec)
					STAT_ADD(f->ts_err, 1);
				continue;
			}
			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			switch (ee.ee_origin) {
			case SO_EE_ORIGIN_ZEROCOPY:
				n = ee.ee_data - ee.ee_info + 1;
				STAT_ADD(f->zc_done, n);
				if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
					STAT_ADD(f->zc_copied, n);
				break;
			case SO_EE_ORIGIN_TIMESTAMPING:
				STAT_ADD(f->ts_ok, 1);
				break;
			default:
				if (cfg.verbose)
					note("error queue: origin %u type %u code %u errno %u",
					     ee.ee_origin, ee.ee_type, ee.ee_code, ee.ee_errno);
			}
		}
	}
}

static bool errq_complete(struct flow *f)
{
	return (!cfg.zerocopy || f->zc_done >= f->msgs) && (!cfg.tstamp || f->ts_ok >= f->msgs);
}

/* ---- the send path ---------------------------------------------------- */

static void wait_out(struct flow *f, int ms)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLOUT };

	poll(&pfd, 1, ms);
}

static void set_pmtu(int fd, int val)
{
	int lvl = cfg.family == AF_INET ? SOL_IP : SOL_IPV6;
	int opt = cfg.family == AF_INET ? IP_MTU_DISCOVER : IPV6_MTU_DISCOVER;

	if (setsockopt(fd, lvl, opt, &val, sizeof(val)))
		ug_die_errno(1, "setsockopt path mtu discovery");
}

static void gso_fallback(struct flow *f, int err)
{
	uint32_t dg_pos;
	int zero = 0;

	if (cfg.no_fallback) {
		errno = err;
		ug_die_errno(1, "GSO %s failed (--no-gso-fallback)", path_call[f->path]);
	}
	if (!__atomic_exchange_n(&gso.reported, 1, __ATOMIC_SEQ_CST)) {
		snprintf(gso.reason, sizeof(gso.reason), "GSO send failed: %s", strerror(err));
		note("%s; falling back to plain sends", gso.reason);
	}
	gso.fallback = true;
	gso.active = false;
	if (cfg.sockopt)
		setsockopt(f->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
	/* plain sends as upstream's: local fragmentation allowed again */
	set_pmtu(f->fd, cfg.family == AF_INET ? IP_PMTUDISC_WANT : IPV6_PMTUDISC_WANT);
	/* carry on at the same datagram of the pass, now one per message */
	dg_pos = plan_gso.m[f->slots[f->pos].plan_idx].dg_off;
	f->gso_on = false;
	ring_build(f);
	f->pos = dg_pos;
}

static void send_error(struct flow *f, const struct slot *s, int err)
{
	switch (err) {
	case EINTR:
		return;
	case ECONNREFUSED:
		STAT_ADD(f->err[E_CONNREFUSED], 1);
		return;
	case EAGAIN:
		STAT_ADD(f->err[E_AGAIN], 1);
		wait_out(f, 100);
		return;
	case ENOBUFS:
		STAT_ADD(f->err[E_NOBUFS], 1);
		if (cfg.zerocopy)
			errq_flush(f, true, 10);	/* optmem: completions free it */
		else
			wait_out(f, 1);
		return;
	case EIO:
	case EINVAL:
		if (f->gso_on && s->gso) {
			gso_fallback(f, err);
			return;
		}
		break;
	}
	errno = err;
	ug_die_errno(1, "%s", path_call[f->path]);
}

static void flow_finish_call(struct flow *f, uint64_t bytes, uint64_t dg, unsigned int sent)
{
	STAT_ADD(f->bytes, bytes);
	STAT_ADD(f->dgrams, dg);
	STAT_ADD(f->calls, 1);
	STAT_ADD(f->msgs, sent);
	f->seq += dg;
	f->pos += sent;
	if (f->pos == f->nslots) {
		f->pos = 0;
		if (g_round_is_pass)
			STAT_ADD(f->rounds, 1);
	}
	if (!g_round_is_pass)
		STAT_ADD(f->rounds, 1);
	if ((f->dg_quota && f->dgrams >= f->dg_quota) ||
	    (f->round_quota && f->rounds >= f->round_quota))
		f->done = true;
	if (cfg.tstamp || (cfg.zerocopy && !(f->calls & 15)))
		errq_flush(f, cfg.poll, 500);
}

static void tcp_step(struct flow *f)
{
	ssize_t ret;

	ret = send(f->fd, (char *)f->iov[0].iov_base + f->tcp_off,
		   f->slots[0].len - f->tcp_off, g_flags | MSG_NOSIGNAL);
	if (ret < 0) {
		send_error(f, &f->slots[0], errno);
		return;
	}
	f->tcp_off += ret;
	STAT_ADD(f->bytes, ret);
	STAT_ADD(f->calls, 1);
	STAT_ADD(f->msgs, 1);
	if (f->tcp_off == f->slots[0].len) {
		f->tcp_off = 0;
		STAT_ADD(f->dgrams, 1);
		STAT_ADD(f->rounds, 1);
		if ((f->dg_quota && f->dgrams >= f->dg_quota) ||
		    (f->round_quota && f->rounds >= f->round_quota))
			f->done = true;
		if (cfg.cache) {
			f->area = (f->area + 1) % nareas;
			f->iov[0].iov_base = area + (size_t)f->area * area_stride;
		}
	}
	if (cfg.zerocopy && !(f->calls & 15))
		errq_flush(f, cfg.poll, 500);
}

struct trunc {
	int slot;
	uint32_t nseg, len;
	size_t save_len, save_iovlen;
};

/* the last call of a --count run: send only the datagrams still owed */
static unsigned int truncate_call(struct flow *f, unsigned int n, struct trunc *tr)
{
	uint64_t left = f->dg_quota - f->dgrams;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct slot *s = &f->slots[f->pos + i];
		struct msghdr *h = &f->mm[f->pos + i].msg_hdr;

		if (s->nseg <= left) {
			left -= s->nseg;
			if (!left)
				return i + 1;
			continue;
		}
		tr->slot = f->pos + i;
		tr->nseg = left;
		tr->len = left * s->gso;
		tr->save_iovlen = h->msg_iovlen;
		tr->save_len = f->iov[s->iov0].iov_len;
		if (g_grouped)
			h->msg_iovlen = left * g_pd;
		else
			f->iov[s->iov0].iov_len = tr->len;
		return i + 1;
	}
	return n;
}

static void untruncate(struct flow *f, struct trunc *tr)
{
	struct slot *s = &f->slots[tr->slot];

	f->mm[tr->slot].msg_hdr.msg_iovlen = tr->save_iovlen;
	f->iov[s->iov0].iov_len = tr->save_len;
}

static void prepare_call(struct flow *f, unsigned int n, const struct trunc *tr)
{
	uint64_t t = 0, cum = 0;
	unsigned int i, k, nseg;
	uint32_t v;

	if (cfg.txtime_Bps) {
		t = ug_now_ns();
		if (f->next_tx > t)
			t = f->next_tx;
	}
	for (i = 0; i < n; i++) {
		int j = f->pos + i;
		struct slot *s = &f->slots[j];

		nseg = j == tr->slot ? tr->nseg : s->nseg;
		if (cfg.seq)
			for (k = 0; k < nseg; k++)
				ug_stamp(f->stamps + (size_t)(s->dg0 + k) * UG_HDR_LEN, f->id,
					 f->seq + cum + k);
		cum += nseg;
		if (cfg.cache)
			for (v = s->iov0; v < s->iov0 + s->niov; v++)
				if (f->iov_off[v] != NO_OFF)
					f->iov[v].iov_base = area + (size_t)f->area * area_stride +
							     f->iov_off[v];
		if (cfg.txtime_Bps) {
			memcpy(CMSG_DATA((struct cmsghdr *)(f->ctrl + (size_t)j * CTRL_LEN)), &t,
			       sizeof(t));
			t += (j == tr->slot ? tr->len : s->len) * NSEC / f->rate_Bps;
		}
	}
	if (cfg.txtime_Bps)
		f->next_tx = t;
}

static void flow_step(struct flow *f)
{
	struct slot *s = &f->slots[f->pos];
	struct trunc tr = { .slot = -1 };
	unsigned int n = 1, i, sent = 1;
	uint64_t bytes = 0, dg = 0;
	uint32_t dgs = s->nseg;
	ssize_t ret;

	if (f->path == P_TCP) {
		tcp_step(f);
		return;
	}
	if (f->path == P_SENDMMSG) {
		n = f->nslots - f->pos;
		if (n > (unsigned int)g_batch)
			n = g_batch;
		dgs = f->slots[f->pos + n - 1].dg0 + f->slots[f->pos + n - 1].nseg - s->dg0;
	}
	if (f->dg_quota && f->dgrams + dgs > f->dg_quota)
		n = truncate_call(f, n, &tr);
	if (cfg.cache)
		f->area = (f->area + 1) % nareas;
	if (cfg.seq || cfg.cache || cfg.txtime_Bps)
		prepare_call(f, n, &tr);

	switch (f->path) {
	case P_SENDTO:
		ret = sendto(f->fd, f->iov[s->iov0].iov_base, f->iov[s->iov0].iov_len, g_flags,
			     f->name, f->namelen);
		break;
	case P_SENDMSG:
		ret = sendmsg(f->fd, &f->mm[f->pos].msg_hdr, g_flags);
		break;
	default:
		ret = sendmmsg(f->fd, &f->mm[f->pos], n, g_flags);
		break;
	}
	if (tr.slot >= 0)
		untruncate(f, &tr);
	if (ret < 0) {
		send_error(f, s, errno);
		return;
	}
	if (f->path == P_SENDMMSG) {
		sent = ret;
		for (i = 0; i < sent; i++) {
			bytes += f->mm[f->pos + i].msg_len;
			dg += (int)(f->pos + i) == tr.slot ? tr.nseg : f->slots[f->pos + i].nseg;
		}
	} else {
		bytes = ret;
		dg = tr.slot >= 0 ? tr.nseg : s->nseg;
	}
	flow_finish_call(f, bytes, dg, sent);
}

/* ---- threads, reporting ----------------------------------------------- */

static void totals(uint64_t *bytes, uint64_t *calls, uint64_t *rounds)
{
	int i;

	*bytes = *calls = *rounds = 0;
	for (i = 0; i < nflows; i++) {
		*bytes += STAT_GET(flows[i].bytes);
		*calls += STAT_GET(flows[i].calls);
		*rounds += STAT_GET(flows[i].rounds);
	}
}

static void report(uint64_t now)
{
	uint64_t b, c, r;
	double dt = (double)(now - rep.last) / NSEC;

	totals(&b, &c, &r);
	if (dt > 0)
		fprintf(stderr, "%s tx: %6lu MB/s %8lu calls/s %6lu msg/s\n",
			cfg.tcp ? "tcp" : "udp",
			(unsigned long)((b - rep.bytes) / dt) >> 20,
			(unsigned long)((c - rep.calls) / dt),
			(unsigned long)((r - rep.rounds) / dt));
	rep.bytes = b;
	rep.calls = c;
	rep.rounds = r;
	rep.last = now;
	/*
	 * on a grid of whole seconds from the start, so that the line of the
	 * last second of -l is always printed: the deadline is on the grid
	 */
	rep.next += NSEC;
	if (rep.next <= now)
		rep.next = now + NSEC;
}

static void pin(int cpu)
{
	cpu_set_t mask;

	CPU_ZERO(&mask);
	CPU_SET(cpu, &mask);
	if (sched_setaffinity(0, sizeof(mask), &mask))
		ug_die_errno(1, "-C %d: sched_setaffinity", cpu);
}

static void *worker(void *arg)
{
	struct thr *t = arg;
	int active = 0, i, k = 0;
	uint64_t now;

	if (cfg.cpu >= 0 && t != thrs) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		pin((cfg.cpu + (t - thrs)) % (ncpu > 0 ? ncpu : 1));
	}
	for (i = 0; i < t->nflows; i++)
		active += !flows[t->first + i].done;
	while (active && !stop) {
		for (i = 0; i < t->nflows; i++) {
			struct flow *f = &flows[t->first + i];

			if (f->done)
				continue;
			flow_step(f);
			active -= f->done;
		}
		if (++k < g_clock_every)
			continue;
		k = 0;
		now = ug_now_ns();
		/* the last second's line before the deadline, as upstream */
		if (t->report && now >= rep.next)
			report(now);
		if (g_deadline && now >= g_deadline)
			break;
	}
	t->end_ns = ug_now_ns();
	__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- setup ------------------------------------------------------------ */

static void flow_socket(struct flow *f)
{
	char addr[80];
	int fd, one = 1;

	fd = socket(cfg.family, cfg.tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	f->fd = fd;
	if (cfg.zerocopy && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP || errno == ENOTSUPP)
			ug_skip("SO_ZEROCOPY not supported by this kernel: %s", strerror(errno));
		ug_die_errno(1, "setsockopt SO_ZEROCOPY");
	}
	if (cfg.txtime_Bps) {
		struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };

		if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
			ug_skip("SO_TXTIME refused by the kernel: %s", strerror(errno));
	}
	if (cfg.pacing_Bps) {
		uint64_t r = cfg.pacing_Bps;

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r))) {
			if (errno == ENOPROTOOPT)
				ug_skip("SO_MAX_PACING_RATE not supported by this kernel");
			ug_die_errno(1, "setsockopt SO_MAX_PACING_RATE");
		}
	}
	if (cfg.tstamp) {
		uint32_t v = SOF_TIMESTAMPING_OPT_CMSG | SOF_TIMESTAMPING_OPT_ID |
			     SOF_TIMESTAMPING_OPT_TSONLY;

		v |= cfg.hw_ts ? SOF_TIMESTAMPING_RAW_HARDWARE : SOF_TIMESTAMPING_SOFTWARE;

		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &v, sizeof(v)))
			ug_die_errno(1, "setsockopt SO_TIMESTAMPING");
	}
	if (cfg.connected && connect(fd, (void *)&f->dst, cfg.alen))
		ug_die_errno(1, "connect %s", ug_addr_str(&f->dst, addr, sizeof(addr)));
	if (f->gso_on) {
		int val = cfg.gso_size;

		/* as upstream with -S: no local fragmentation */
		set_pmtu(fd, cfg.family == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO);
		if (cfg.sockopt && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &val, sizeof(val)))
			ug_die_errno(1, "setsockopt UDP_SEGMENT %d", val);
	}
}

static void flows_setup(void)
{
	int i;

	flows = calloc(nflows, sizeof(*flows));
	thrs = calloc(cfg.threads, sizeof(*thrs));
	if (!flows || !thrs)
		ug_die_errno(1, "calloc");
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		f->idx = i;
		f->id = cfg.flow_id + i;
		f->dst = cfg.dst[i % cfg.ndst];
		ug_set_port(&f->dst, cfg.port + i % cfg.port_count);
		f->name = cfg.connected ? NULL : &f->dst;
		f->namelen = cfg.connected ? 0 : cfg.alen;
		f->gso_on = gso.active;
		f->rate_Bps = cfg.txtime_Bps / nflows ? cfg.txtime_Bps / nflows : 1;
		if (cfg.count)
			f->dg_quota = cfg.count / nflows + ((uint64_t)i < cfg.count % nflows);
		if (cfg.msg_nr)
			f->round_quota = cfg.msg_nr / nflows + ((uint64_t)i < cfg.msg_nr % nflows);
		if ((cfg.count && !f->dg_quota) || (cfg.msg_nr && !f->round_quota))
			f->done = true;
		flow_socket(f);
		ring_build(f);
	}
	for (i = 0; i < cfg.threads; i++) {
		thrs[i].first = i * cfg.sockets;
		thrs[i].nflows = cfg.sockets;
	}
}

/* ---- run, finish ------------------------------------------------------ */

/* wait for the last completions and timestamps, close, add up */
static void flows_finish(struct sum *t)
{
	uint64_t stop_at, now;
	int i, e;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		if (cfg.zerocopy || cfg.tstamp) {
			stop_at = ug_now_ns() + cfg.poll_loop_s * NSEC;
			do {
				now = ug_now_ns();
				errq_flush(f, true, now < stop_at ? (stop_at - now) / 1000000 : 0);
			} while (!errq_complete(f) && ug_now_ns() < stop_at);
			if (cfg.zerocopy && f->zc_done < f->msgs)
				f->err[E_ZC_MISSING] += f->msgs - f->zc_done;
			if (cfg.tstamp && f->ts_ok < f->msgs)
				f->err[E_TS_MISSING] += f->msgs - f->ts_ok;
			f->err[E_TS_ERRORS] = f->ts_err;
		}
		if (close(f->fd))
			ug_die_errno(1, "close");
		t->bytes += f->bytes;
		t->dgrams += f->dgrams;
		t->calls += f->calls;
		t->rounds += f->rounds;
		t->msgs += f->msgs;
		t->zc += f->zc_done;
		t->zcc += f->zc_copied;
		t->ts_ok += f->ts_ok;
		t->ts_err += f->ts_err;
		for (e = 0; e < E_NR; e++) {
			t->err[e] += f->err[e];
			t->nerr += f->err[e];
		}
	}
}

/* run the workers; returns when the last one stopped */
static uint64_t run(void)
{
	uint64_t end = 0, now;
	int i, done;

	if (cfg.threads == 1) {
		thrs[0].report = true;
		worker(&thrs[0]);
		return thrs[0].end_ns;
	}
	for (i = 0; i < cfg.threads; i++)
		if (pthread_create(&thrs[i].tid, NULL, worker, &thrs[i]))
			ug_die(1, "pthread_create failed");
	for (;;) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		for (done = 0, i = 0; i < cfg.threads; i++)
			done += __atomic_load_n(&thrs[i].finished, __ATOMIC_ACQUIRE);
		if (done == cfg.threads)
			break;
		nanosleep(&ts, NULL);
		now = ug_now_ns();
		if (now >= rep.next)
			report(now);
	}
	for (i = 0; i < cfg.threads; i++) {
		pthread_join(thrs[i].tid, NULL);
		if (thrs[i].end_ns > end)
			end = thrs[i].end_ns;
	}
	return end;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	double cu0, cs0, cu1, cs1;
	struct sum t;
	uint64_t end;
	int rc = 0;

	ug_set_prog(argv[0]);
	ug_pattern_init();
	parse_opts(argc, argv);
	g_grouped = cfg.seq || cfg.iov_frames;
	g_pd = 1 + (cfg.iov_frames ? cfg.iov_frames : 1);
	if (cfg.cpu >= 0)
		pin(cfg.cpu);

	gso_setup();
	plans_build();
	area_build();
	/*
	 * -m without --batch: upstream's batch (one pass of -s split at the
	 * MSS) for plain sends; with GSO a pass is one message, so batch
	 * DEF_GSO_BATCH of them, or sendmmsg+GSO would be one sendmsg
	 */
	if (cfg.mmsg && cfg.batch)
		g_batch = cfg.batch;
	else if (cfg.mmsg)
		g_batch = gso.active ? DEF_GSO_BATCH * plan_gso.n : plan_plain.n;
	if (g_batch > MAX_BATCH)
		g_batch = MAX_BATCH;
	g_round_is_pass = !cfg.mmsg && !cfg.nsizes && !cfg.tcp;
	g_flags = cfg.zerocopy ? MSG_ZEROCOPY : 0;
	/* read the clock about as often as upstream: once per -s bytes */
	g_clock_every = (!cfg.tcp && !cfg.mmsg && !gso.active) ? 16 : 1;
	flows_setup();

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	ug_cpu_usage(&cu0, &cs0);
	g_start_ns = ug_now_ns();
	rep.last = g_start_ns;
	rep.next = g_start_ns + NSEC;
	if (cfg.runtime_s >= 0)
		g_deadline = g_start_ns + cfg.runtime_s * NSEC;
	end = run();
	ug_cpu_usage(&cu1, &cs1);

	flows_finish(&t);
	t.dur = (double)(end - g_start_ns) / NSEC;
	t.cpu_user = cu1 - cu0;
	t.cpu_sys = cs1 - cs0;
	if (cfg.audit)
		rc = audit_report(&t);
	if (cfg.json)
		json_summary(&t);
	return rc;
}
