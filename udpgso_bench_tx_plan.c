// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx plan: what one pass sends.  The runtime GSO probe (does
 * this kernel segment, how many segments per send), then the plans: -s
 * bytes split at the MSS (upstream's plain mode), one GSO send of -s bytes,
 * or the --sizes pattern grouped into GSO runs; and the payload area they
 * point into.  Reads the options, writes only its struct tx_plan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpgso_bench_tx.h"

#define NUM_AREAS	100		/* -c: buffer copies to rotate over */
#define PAT_LEN		65600
/* messages per sendmmsg call for -m with GSO when --batch is not given */
#define DEF_GSO_BATCH	8

/* ---- GSO probe -------------------------------------------------------- */

enum { PROBE_OK, PROBE_NOOPT, PROBE_REFUSED, PROBE_IGNORED, PROBE_FAILED };

/* one probe send of len bytes in segments of gso_sz, counted in p when accepted */
static int gso_send(int fd, size_t len, uint16_t gso_sz, struct tx_plan *p)
{
	char ctrl[CMSG_SPACE(sizeof(uint16_t))];
	struct iovec iov = { .iov_base = (void *)ug_pattern, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl };

	ug_cmsg_add_segment(&msg, sizeof(ctrl), gso_sz);
	if (sendmsg(fd, &msg, 0) != (ssize_t)len)
		return -1;
	p->probe_sends++;
	p->probe_segs += (len + gso_sz - 1) / gso_sz;
	return 0;
}

static void drain(int fd, struct tx_plan *p)
{
	char buf[16];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		p->probe_reads++;
}

/*
 * Ask the running kernel, on a throwaway loopback socket pair, whether it
 * segments (a 2-byte send with gso_size 1 must arrive as two datagrams) and
 * how many segments one send may carry (largest n accepted with gso_size 1).
 */
static int probe_gso(const struct tx_cfg *cfg, struct tx_plan *p, int *max, int *err)
{
	struct sockaddr_storage ss;
	socklen_t alen = sizeof(ss);
	struct timeval tv = { .tv_sec = 1 };
	int rx, tx, one = 1, zero = 0, lo = 2, hi, n, ret = PROBE_FAILED;
	char buf[8];

	rx = socket(cfg->family, SOCK_DGRAM, 0);
	tx = socket(cfg->family, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0) {
		*err = errno;
		goto out;
	}
	if (setsockopt(tx, SOL_UDP, UDP_SEGMENT, &one, sizeof(one))) {
		*err = errno;
		ret = errno == ENOPROTOOPT ? PROBE_NOOPT : PROBE_FAILED;
		goto out;
	}
	setsockopt(tx, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
	ug_parse_addr("probe", cfg->family == AF_INET6 ? "::1" : "127.0.0.1", cfg->family, 0, &ss);
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(rx, (void *)&ss, cfg->alen) || getsockname(rx, (void *)&ss, &alen) ||
	    connect(tx, (void *)&ss, alen)) {
		*err = errno;
		goto out;
	}
	if (gso_send(tx, 2, 1, p)) {
		*err = errno;
		ret = PROBE_REFUSED;
		goto out;
	}
	n = recv(rx, buf, sizeof(buf), 0);
	if (n >= 0)
		p->probe_reads++;
	if (n != 1) {
		*err = n < 0 ? errno : 0;
		ret = n == 2 ? PROBE_IGNORED : PROBE_FAILED;
		goto out;
	}
	drain(rx, p);
	/* grow to the first refused count, then bisect */
	for (hi = 64; hi <= PROBE_MAX; lo = hi, hi *= 2) {
		if (gso_send(tx, hi, 1, p))
			break;
		drain(rx, p);
	}
	if (hi > PROBE_MAX) {
		lo = PROBE_MAX;
	} else {
		if (errno != EINVAL) {
			*err = errno;
			goto out;
		}
		while (hi - lo > 1) {
			n = lo + (hi - lo) / 2;
			if (gso_send(tx, n, 1, p))
				hi = n;
			else
				lo = n;
			drain(rx, p);
		}
	}
	*max = lo;
	ret = PROBE_OK;
out:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return ret;
}

static void gso_setup(const struct tx_cfg *cfg, struct tx_plan *p)
{
	int kmax = 0, err = 0, r, cap;

	if (!cfg->segment)
		return;
	p->gso_requested = true;
	p->gso_active = true;
	p->probed = true;
	r = probe_gso(cfg, p, &kmax, &err);
	switch (r) {
	case PROBE_OK:
		p->kernel_max = kmax;
		if (cfg->verbose)
			ug_note("GSO probe: the kernel accepts up to %d segments per send", kmax);
		break;
	case PROBE_FAILED:
		ug_note("GSO probe could not run on loopback (%s); assuming 64 segments per send",
			err ? strerror(err) : "no answer");
		break;
	case PROBE_NOOPT:
		snprintf(p->gso_reason, sizeof(p->gso_reason),
			 "UDP_SEGMENT not supported by this kernel (ENOPROTOOPT)");
		break;
	case PROBE_IGNORED:
		snprintf(p->gso_reason, sizeof(p->gso_reason),
			 "the kernel ignores the UDP_SEGMENT cmsg (no segmentation)");
		break;
	default:
		snprintf(p->gso_reason, sizeof(p->gso_reason), "GSO send refused: %s", strerror(err));
		break;
	}
	if (p->gso_reason[0]) {
		if (cfg->no_fallback) {
			if (r == PROBE_REFUSED && err == EIO)
				ug_die(1, "%s (--no-gso-fallback)", p->gso_reason);
			ug_skip("%s (--no-gso-fallback)", p->gso_reason);
		}
		p->gso_active = false;
		p->gso_fallback = true;
		ug_note("GSO unavailable: %s; falling back to plain sends", p->gso_reason);
	}
	cap = p->kernel_max ? p->kernel_max : 64;
	if (cfg->max_segs_arg > cap)
		ug_note("--max-segs %d exceeds the kernel's limit %d; using %d",
			cfg->max_segs_arg, cap, cap);
	else if (cfg->max_segs_arg)
		cap = cfg->max_segs_arg;
	if (p->grouped && cap > MAX_IOVS / p->pd) {
		cap = MAX_IOVS / p->pd;
		if (cfg->verbose)
			ug_note("at most %d segments per send: %d iovecs each, %d per msghdr",
				cap, p->pd, MAX_IOVS);
	}
	p->max_segs = cap;
}

/* ---- plans and the payload area ------------------------------------------ */

static void plan_push(struct plan *p, uint32_t len, uint16_t gso_sz, uint16_t nseg)
{
	struct pmsg *m;

	p->m = realloc(p->m, (p->n + 1) * sizeof(*p->m));
	if (!p->m)
		ug_die_errno(1, "realloc");
	m = &p->m[p->n++];
	m->len = len;
	m->gso = gso_sz;
	m->nseg = nseg;
	m->dg_off = p->dgrams;
	p->dgrams += nseg;
}

/* total bytes in datagrams of @unit (the last one shorter) */
static void plan_split(struct plan *p, uint32_t total, uint32_t unit)
{
	while (total) {
		uint32_t len = total < unit ? total : unit;

		plan_push(p, len, 0, 1);
		total -= len;
	}
}

static void plans_build(const struct tx_cfg *cfg, struct tx_plan *p)
{
	int maxlen = cfg->max_payload, cap = p->max_segs, i, k, reps = 1;

	p->payload_len = cfg->payload_len;
	if (cfg->tcp) {
		plan_push(&p->plain, p->payload_len, 0, 1);
		return;
	}
	if (cfg->nsizes) {
		/* repeat the pattern so that runs fill whole GSO sends */
		if (p->gso_active)
			reps = (1024 + cfg->nsizes - 1) / cfg->nsizes;
		for (i = 0; i < cfg->nsizes * reps; i++)
			plan_push(&p->plain, cfg->sizes[i % cfg->nsizes], 0, 1);
		if (!p->gso_active)
			return;
		for (i = 0; i < p->plain.n; ) {
			uint32_t g = p->plain.m[i].len, len = g;

			for (k = 1, i++; i < p->plain.n && p->plain.m[i].len == g && k < cap &&
			     len + g <= (uint32_t)maxlen; k++, i++)
				len += g;
			if (i < p->plain.n && p->plain.m[i].len < g && k < cap &&
			    len + p->plain.m[i].len <= (uint32_t)maxlen) {
				len += p->plain.m[i].len;
				k++;
				i++;
			}
			plan_push(&p->gso, len, k > 1 ? g : 0, k);
		}
		return;
	}
	if (!cfg->segment) {
		plan_split(&p->plain, p->payload_len, cfg->mss);
		return;
	}
	if (p->gso_active) {
		uint32_t nseg = (p->payload_len + cfg->gso_size - 1) / cfg->gso_size;

		if (nseg > (uint32_t)cap) {
			ug_note("-s %d with -S %d is %u segments, more than the %d one send may carry%s; sending %d bytes per call",
				p->payload_len, cfg->gso_size, nseg, cap,
				p->kernel_max && cap == p->kernel_max ? " on this kernel" : "",
				cap * cfg->gso_size);
			p->payload_len = cap * cfg->gso_size;
			nseg = cap;
		}
		plan_push(&p->gso, p->payload_len, cfg->gso_size, nseg);
	}
	plan_split(&p->plain, p->payload_len, cfg->gso_size);
}

uint32_t tx_layout_off(const struct tx_plan *p, uint32_t g)
{
	int i;

	for (i = 0; i < p->nlayouts; i++)
		if (p->layouts[i].gso == g)
			return p->layouts[i].off;
	return 0;
}

static void area_build(const struct tx_cfg *cfg, struct tx_plan *p)
{
	size_t size = PAT_LEN;
	uint32_t k, n;
	int i, j;

	for (i = 0; i < p->gso.n; i++) {
		struct pmsg *m = &p->gso.m[i];

		if (m->nseg < 2)
			continue;
		for (j = 0; j < p->nlayouts && p->layouts[j].gso != m->gso; j++)
			;
		if (j == p->nlayouts) {
			p->layouts[p->nlayouts].gso = m->gso;
			p->layouts[p->nlayouts++].len = 0;
		}
		if (p->layouts[j].len < m->len)
			p->layouts[j].len = m->len;
	}
	for (j = 0; j < p->nlayouts; j++) {
		p->layouts[j].off = size;
		size += (p->layouts[j].len + 63) & ~63u;
	}
	p->area_stride = (size + 4095) & ~4095ul;
	p->nareas = cfg->cache ? NUM_AREAS : 1;
	p->area = aligned_alloc(4096, p->area_stride * p->nareas);
	if (!p->area)
		ug_die_errno(1, "aligned_alloc %zu", p->area_stride * p->nareas);
	for (k = 0; k < PAT_LEN; k++)
		p->area[k] = 'a' + k % 26;
	/* each segment of a GSO send starts the pattern again */
	for (j = 0; j < p->nlayouts; j++)
		for (k = 0; k < p->layouts[j].len; k += p->layouts[j].gso) {
			n = p->layouts[j].len - k;
			if (n > p->layouts[j].gso)
				n = p->layouts[j].gso;
			memcpy(p->area + p->layouts[j].off + k, p->area, n);
		}
	for (i = 1; i < p->nareas; i++)
		memcpy(p->area + i * p->area_stride, p->area, p->area_stride);
}

void tx_plan_build(const struct tx_cfg *cfg, struct tx_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->grouped = cfg->seq || cfg->iov_frames;
	p->pd = 1 + (cfg->iov_frames ? cfg->iov_frames : 1);
	gso_setup(cfg, p);
	plans_build(cfg, p);
	area_build(cfg, p);
	/*
	 * -m without --batch: upstream's batch (one pass of -s split at the
	 * MSS) for plain sends; with GSO a pass is one message, so batch
	 * DEF_GSO_BATCH of them, or sendmmsg+GSO would be one sendmsg
	 */
	if (cfg->mmsg && cfg->batch)
		p->batch = cfg->batch;
	else if (cfg->mmsg)
		p->batch = p->gso_active ? DEF_GSO_BATCH * p->gso.n : p->plain.n;
	if (p->batch > MAX_BATCH)
		p->batch = MAX_BATCH;
}
