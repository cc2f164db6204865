// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx send path: the send calls over each flow's ring, the
 * error queue (zerocopy completions, tx timestamps), a GSO send the kernel
 * refuses at run time (that flow goes on with plain sends), the threads,
 * and the wait for the last completions at the end.
 */
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

#define STAT_ADD(x, v)	__atomic_store_n(&(x), (x) + (v), __ATOMIC_RELAXED)

static const char *const path_call[] = { "sendto", "sendmsg", "sendmmsg", "send" };

/* a thread and the flows it sends on */
struct thr {
	pthread_t tid;
	struct tx_run *x;
	int idx, nflows, first;
	bool report;
	int finished;
	uint64_t end_ns;
};

/* SIGINT, SIGTERM: every thread stops after its current call */
static volatile sig_atomic_t stop;

/* ---- error queue ------------------------------------------------------ */

static void errq_flush(const struct tx_cfg *cfg, struct flow *f, bool do_poll, int timeout_ms)
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
				if (!tss.ts[cfg->hw_ts ? 2 : 0].tv_sec)
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
				if (cfg->verbose)
					ug_note("error queue: origin %u type %u code %u errno %u",
					     ee.ee_origin, ee.ee_type, ee.ee_code, ee.ee_errno);
			}
		}
	}
}

static bool errq_complete(const struct tx_cfg *cfg, const struct flow *f)
{
	return (!cfg->zerocopy || f->zc_done >= f->msgs) && (!cfg->tstamp || f->ts_ok >= f->msgs);
}

/* ---- the send path ---------------------------------------------------- */

static void wait_out(struct flow *f, int ms)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLOUT };

	poll(&pfd, 1, ms);
}

/*
 * A GSO send refused at run time: this flow goes on with plain sends (the
 * others when their own GSO send fails); the first failure is recorded and
 * printed once
 */
static void gso_fallback(struct tx_run *x, struct flow *f, int err)
{
	const struct tx_cfg *cfg = x->cfg;
	int zero = 0, none = 0;
	uint32_t dg_pos;

	if (cfg->no_fallback) {
		errno = err;
		ug_die_errno(1, "GSO %s failed (--no-gso-fallback)", path_call[f->path]);
	}
	if (__atomic_compare_exchange_n(&x->gso.fallback_err, &none, err, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		ug_note("GSO send failed: %s; falling back to plain sends", strerror(err));
	if (cfg->sockopt)
		setsockopt(f->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
	/* plain sends as upstream's: local fragmentation allowed again */
	tx_set_pmtu(cfg, f->fd, cfg->family == AF_INET ? IP_PMTUDISC_WANT : IPV6_PMTUDISC_WANT);
	/* carry on at the same datagram of the pass, now one per message */
	dg_pos = x->plan->gso.m[f->slots[f->pos].plan_idx].dg_off;
	f->gso_on = false;
	tx_ring_build(cfg, x->plan, f);
	f->pos = dg_pos;
}

static void send_error(struct tx_run *x, struct flow *f, const struct slot *s, int err)
{
	const struct tx_cfg *cfg = x->cfg;

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
		if (cfg->zerocopy)
			errq_flush(cfg, f, true, 10);	/* optmem: completions free it */
		else
			wait_out(f, 1);
		return;
	case EIO:
	case EINVAL:
		if (f->gso_on && s->gso) {
			gso_fallback(x, f, err);
			return;
		}
		break;
	}
	errno = err;
	ug_die_errno(1, "%s", path_call[f->path]);
}

static void flow_finish_call(const struct tx_run *x, struct flow *f, uint64_t bytes, uint64_t dg,
			     unsigned int sent)
{
	const struct tx_cfg *cfg = x->cfg;

	STAT_ADD(f->bytes, bytes);
	STAT_ADD(f->dgrams, dg);
	STAT_ADD(f->calls, 1);
	STAT_ADD(f->msgs, sent);
	f->seq += dg;
	f->pos += sent;
	if (f->pos == f->nslots) {
		f->pos = 0;
		if (x->round_is_pass)
			STAT_ADD(f->rounds, 1);
	}
	if (!x->round_is_pass)
		STAT_ADD(f->rounds, 1);
	if ((f->dg_quota && f->dgrams >= f->dg_quota) ||
	    (f->round_quota && f->rounds >= f->round_quota))
		f->done = true;
	if (cfg->tstamp || (cfg->zerocopy && !(f->calls & 15)))
		errq_flush(cfg, f, cfg->poll, 500);
}

static void tcp_step(struct tx_run *x, struct flow *f)
{
	const struct tx_plan *pl = x->plan;
	const struct tx_cfg *cfg = x->cfg;

	ssize_t ret;

	ret = send(f->fd, (char *)f->iov[0].iov_base + f->tcp_off,
		   f->slots[0].len - f->tcp_off, x->flags | MSG_NOSIGNAL);
	if (ret < 0) {
		send_error(x, f, &f->slots[0], errno);
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
		if (cfg->cache) {
			f->area = (f->area + 1) % pl->nareas;
			f->iov[0].iov_base = pl->area + (size_t)f->area * pl->area_stride;
		}
	}
	if (cfg->zerocopy && !(f->calls & 15))
		errq_flush(cfg, f, cfg->poll, 500);
}

struct trunc {
	int slot;
	uint32_t nseg, len;
	size_t save_len, save_iovlen;
};

/* the last call of a --count run: send only the datagrams still owed */
static unsigned int truncate_call(const struct tx_plan *pl, struct flow *f, unsigned int n,
				  struct trunc *tr)
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
		if (pl->grouped)
			h->msg_iovlen = left * pl->pd;
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

static void prepare_call(const struct tx_run *x, struct flow *f, unsigned int n,
			 const struct trunc *tr)
{
	const struct tx_plan *pl = x->plan;
	const struct tx_cfg *cfg = x->cfg;

	uint64_t t = 0, cum = 0;
	unsigned int i, k, nseg;
	uint32_t v;

	if (cfg->txtime_Bps) {
		t = ug_now_ns();
		if (f->next_tx > t)
			t = f->next_tx;
	}
	for (i = 0; i < n; i++) {
		int j = f->pos + i;
		struct slot *s = &f->slots[j];

		nseg = j == tr->slot ? tr->nseg : s->nseg;
		if (cfg->seq)
			for (k = 0; k < nseg; k++)
				ug_stamp(f->stamps + (size_t)(s->dg0 + k) * UG_HDR_LEN, f->id,
					 f->seq + cum + k);
		cum += nseg;
		if (cfg->cache)
			for (v = s->iov0; v < s->iov0 + s->niov; v++)
				if (f->iov_off[v] != NO_OFF)
					f->iov[v].iov_base = pl->area +
							     (size_t)f->area * pl->area_stride +
							     f->iov_off[v];
		if (cfg->txtime_Bps) {
			memcpy(CMSG_DATA((struct cmsghdr *)(f->ctrl + (size_t)j * CTRL_LEN)), &t,
			       sizeof(t));
			t += (j == tr->slot ? tr->len : s->len) * NSEC / f->rate_Bps;
		}
	}
	if (cfg->txtime_Bps)
		f->next_tx = t;
}

static void flow_step(struct tx_run *x, struct flow *f)
{
	const struct tx_plan *pl = x->plan;
	const struct tx_cfg *cfg = x->cfg;

	struct slot *s = &f->slots[f->pos];
	struct trunc tr = { .slot = -1 };
	unsigned int n = 1, i, sent = 1;
	uint64_t bytes = 0, dg = 0;
	uint32_t dgs = s->nseg;
	ssize_t ret;

	if (f->path == P_TCP) {
		tcp_step(x, f);
		return;
	}
	if (f->path == P_SENDMMSG) {
		n = f->nslots - f->pos;
		if (n > (unsigned int)pl->batch)
			n = pl->batch;
		dgs = f->slots[f->pos + n - 1].dg0 + f->slots[f->pos + n - 1].nseg - s->dg0;
	}
	if (f->dg_quota && f->dgrams + dgs > f->dg_quota)
		n = truncate_call(pl, f, n, &tr);
	if (cfg->cache)
		f->area = (f->area + 1) % pl->nareas;
	if (cfg->seq || cfg->cache || cfg->txtime_Bps)
		prepare_call(x, f, n, &tr);

	switch (f->path) {
	case P_SENDTO:
		ret = sendto(f->fd, f->iov[s->iov0].iov_base, f->iov[s->iov0].iov_len, x->flags,
			     f->name, f->namelen);
		break;
	case P_SENDMSG:
		ret = sendmsg(f->fd, &f->mm[f->pos].msg_hdr, x->flags);
		break;
	default:
		ret = sendmmsg(f->fd, &f->mm[f->pos], n, x->flags);
		break;
	}
	if (tr.slot >= 0)
		untruncate(f, &tr);
	if (ret < 0) {
		send_error(x, f, s, errno);
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
	flow_finish_call(x, f, bytes, dg, sent);
}

void tx_pin(int cpu)
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
	struct tx_run *x = t->x;
	const struct tx_cfg *cfg = x->cfg;
	struct flow *flows = x->flows;
	int active = 0, i, k = 0;
	uint64_t now;

	if (cfg->cpu >= 0 && t->idx) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		tx_pin((cfg->cpu + t->idx) % (ncpu > 0 ? ncpu : 1));
	}
	for (i = 0; i < t->nflows; i++)
		active += !flows[t->first + i].done;
	while (active && !stop) {
		for (i = 0; i < t->nflows; i++) {
			struct flow *f = &flows[t->first + i];

			if (f->done)
				continue;
			flow_step(x, f);
			active -= f->done;
		}
		if (++k < x->clock_every)
			continue;
		k = 0;
		now = ug_now_ns();
		/* the last second's line before the deadline, as upstream */
		if (t->report && now >= x->rep.next)
			tx_report_second(&x->rep, cfg, flows, now);
		if (x->deadline && now >= x->deadline)
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

void tx_run_init(struct tx_run *x, const struct tx_cfg *cfg, const struct tx_plan *p,
		 struct flow *flows)
{
	struct sigaction sa = { .sa_handler = on_signal };

	memset(x, 0, sizeof(*x));
	x->cfg = cfg;
	x->plan = p;
	x->flows = flows;
	x->round_is_pass = !cfg->mmsg && !cfg->nsizes && !cfg->tcp;
	x->flags = cfg->zerocopy ? MSG_ZEROCOPY : 0;
	/* read the clock about as often as upstream: once per -s bytes */
	x->clock_every = (!cfg->tcp && !cfg->mmsg && !p->gso_active) ? 16 : 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * The completions and timestamps still due, for at most -L seconds.  The
 * queue is read before any poll: the send loop reads it too, so they may
 * all be in already, and a poll would then sleep the whole -L (2 s in 10
 * of 120 zerocopy slices of a 0.25 s make run, before this was fixed).
 */
static void errq_wait(const struct tx_cfg *cfg, struct flow *f)
{
	uint64_t stop_at = ug_now_ns() + cfg->poll_loop_s * NSEC, now;

	errq_flush(cfg, f, false, 0);
	while (!errq_complete(cfg, f) && (now = ug_now_ns()) < stop_at)
		errq_flush(cfg, f, true, (stop_at - now) / 1000000);
}

void tx_flows_finish(struct tx_run *x, struct sum *t)
{
	const struct tx_cfg *cfg = x->cfg;
	int i, e;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < cfg->nflows; i++) {
		struct flow *f = &x->flows[i];

		if (cfg->zerocopy || cfg->tstamp) {
			errq_wait(cfg, f);
			if (cfg->zerocopy && f->zc_done < f->msgs)
				f->err[E_ZC_MISSING] += f->msgs - f->zc_done;
			if (cfg->tstamp && f->ts_ok < f->msgs)
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
		for (e = 0; e < E_NR; e++)
			t->err[e] += f->err[e];
	}
}

uint64_t tx_send(struct tx_run *x)
{
	const struct tx_cfg *cfg = x->cfg;
	uint64_t end = 0, now;
	struct thr *thrs;
	int i, done;

	thrs = calloc(cfg->threads, sizeof(*thrs));
	if (!thrs)
		ug_die_errno(1, "calloc");
	for (i = 0; i < cfg->threads; i++) {
		thrs[i].x = x;
		thrs[i].idx = i;
		thrs[i].first = i * cfg->sockets;
		thrs[i].nflows = cfg->sockets;
	}
	x->start_ns = ug_now_ns();
	tx_report_start(&x->rep, x->start_ns);
	if (cfg->runtime_ms >= 0)
		x->deadline = x->start_ns + cfg->runtime_ms * (NSEC / 1000);

	if (cfg->threads == 1) {
		thrs[0].report = true;
		worker(&thrs[0]);
		end = thrs[0].end_ns;
		free(thrs);
		return end;
	}
	for (i = 0; i < cfg->threads; i++)
		if (pthread_create(&thrs[i].tid, NULL, worker, &thrs[i]))
			ug_die(1, "pthread_create failed");
	/* this thread prints the per-second lines */
	for (;;) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		for (done = 0, i = 0; i < cfg->threads; i++)
			done += __atomic_load_n(&thrs[i].finished, __ATOMIC_ACQUIRE);
		if (done == cfg->threads)
			break;
		nanosleep(&ts, NULL);
		now = ug_now_ns();
		if (now >= x->rep.next)
			tx_report_second(&x->rep, cfg, x->flows, now);
	}
	for (i = 0; i < cfg->threads; i++) {
		pthread_join(thrs[i].tid, NULL);
		if (thrs[i].end_ns > end)
			end = thrs[i].end_ns;
	}
	free(thrs);
	return end;
}
