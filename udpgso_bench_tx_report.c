// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx report: the per-second lines while sending, upstream's -a
 * summary and the --json summary at the end (docs/tools.md).  Reads what
 * the other parts made; prints, and changes nothing but its own
 * per-second state.
 */
#include <errno.h>
#include <string.h>

#include "udpgso_bench_tx.h"

#define STAT_GET(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

static const char *const err_names[E_NR] = {
	"econnrefused", "enobufs", "eagain", "zerocopy_missing", "tstamp_missing",
	"tstamp_errors",
};

/* ---- per-second lines --------------------------------------------------- */

void tx_report_start(struct tx_rep *r, uint64_t start_ns)
{
	memset(r, 0, sizeof(*r));
	r->last = start_ns;
	r->next = start_ns + NSEC;
}

void tx_report_second(struct tx_rep *r, const struct tx_cfg *cfg, const struct flow *flows,
		      uint64_t now)
{
	double dt = (double)(now - r->last) / NSEC;
	uint64_t b = 0, c = 0, n = 0;
	int i;

	for (i = 0; i < cfg->nflows; i++) {
		b += STAT_GET(flows[i].bytes);
		c += STAT_GET(flows[i].calls);
		n += STAT_GET(flows[i].rounds);
	}
	if (dt > 0)
		ug_rate_line(cfg->tcp ? "tcp" : "udp", "tx",
			     (unsigned long long)((b - r->bytes) / dt),
			     (unsigned long long)((c - r->calls) / dt),
			     (long long)((n - r->rounds) / dt));
	r->bytes = b;
	r->calls = c;
	r->rounds = n;
	r->last = now;
	/*
	 * on a grid of whole seconds from the start, so that the line of the
	 * last second of -l is always printed: the deadline is on the grid
	 */
	r->next += NSEC;
	if (r->next <= now)
		r->next = now + NSEC;
}

/* ---- results ---------------------------------------------------------- */

/* GSO still on: the probe said yes and no send failed since */
static bool gso_active(const struct tx_plan *p, const struct tx_gso_state *g)
{
	return p->gso_active && !__atomic_load_n(&g->fallback_err, __ATOMIC_RELAXED);
}

static const char *mode_name(const struct tx_cfg *cfg, bool active, const struct flow *flows)
{
	if (cfg->tcp)
		return "tcp";
	if (cfg->mmsg)
		return !active ? "sendmmsg" :
		       cfg->sockopt ? "sendmmsg_gso_sockopt" : "sendmmsg_gso";
	if (active)
		return cfg->sockopt ? "gso_sockopt" : "gso";
	return flows[0].path == P_SENDTO ? "sendto" : "sendmsg";
}

static void json_options(struct ug_json *j, const struct tx_cfg *cfg, const struct tx_plan *p)
{
	char addr[80];
	int i;

	ug_json_obj_open(j, "options");
	ug_json_str(j, "dst", ug_addr_str(&cfg->dst[0], addr, sizeof(addr)));
	ug_json_arr_open(j, "dst_list");
	for (i = 0; i < cfg->ndst; i++)
		ug_json_str(j, NULL, ug_addr_str(&cfg->dst[i], addr, sizeof(addr)));
	ug_json_arr_close(j);
	ug_json_i64(j, "port", cfg->port);
	ug_json_i64(j, "port_count", cfg->port_count);
	ug_json_bool(j, "connected", cfg->connected);
	/* what each send carries: -s, or cut to the segment limit */
	ug_json_i64(j, "payload_len", p->payload_len);
	ug_json_i64_or_null(j, "gso_size", cfg->segment && !cfg->nsizes, cfg->gso_size);
	ug_json_bool(j, "segment", cfg->segment);
	ug_json_str(j, "gso_mode", cfg->sockopt ? "sockopt" : "cmsg");
	ug_json_bool(j, "sendmmsg", cfg->mmsg);
	ug_json_i64(j, "batch", cfg->mmsg ? p->batch : 0);
	ug_json_i64(j, "iov", cfg->iov_frames);
	ug_json_arr_open(j, "sizes");
	for (i = 0; i < cfg->nsizes; i++)
		ug_json_i64(j, NULL, cfg->sizes[i]);
	ug_json_arr_close(j);
	ug_json_u64(j, "count", cfg->count);
	ug_json_u64(j, "msg_nr", cfg->msg_nr);
	if (cfg->runtime_ms >= 0 && cfg->runtime_ms % 1000)
		ug_json_dbl(j, "runtime_s", cfg->runtime_ms / 1000.0);
	else
		ug_json_i64_or_null(j, "runtime_s", cfg->runtime_ms >= 0, cfg->runtime_ms / 1000);
	ug_json_i64(j, "poll_loop_s", cfg->poll_loop_s);
	ug_json_bool(j, "tcp", cfg->tcp);
	ug_json_bool(j, "zerocopy", cfg->zerocopy);
	ug_json_bool(j, "audit", cfg->audit);
	ug_json_bool(j, "poll", cfg->poll);
	ug_json_str(j, "tx_tstamp", !cfg->tstamp ? "none" : cfg->hw_ts ? "hw" : "sw");
	ug_json_bool(j, "cache_thrash", cfg->cache);
	ug_json_i64_or_null(j, "cpu", cfg->cpu >= 0, cfg->cpu);
	ug_json_u64(j, "txtime_rate_Bps", cfg->txtime_Bps);
	ug_json_u64(j, "max_pacing_rate_Bps", cfg->pacing_Bps);
	ug_json_i64(j, "threads", cfg->threads);
	ug_json_i64(j, "sockets", cfg->sockets);
	ug_json_bool(j, "seq", cfg->seq);
	ug_json_u64(j, "flow_id", cfg->flow_id);
	ug_json_bool(j, "no_gso_fallback", cfg->no_fallback);
	ug_json_i64_or_null(j, "max_segs", cfg->max_segs_arg, cfg->max_segs_arg);
	ug_json_i64_or_null(j, "sndbuf", cfg->sndbuf, cfg->sndbuf);
	ug_json_bool(j, "verbose", cfg->verbose);
	ug_json_obj_close(j);
}

static void json_gso(struct ug_json *j, const struct tx_cfg *cfg, const struct tx_plan *p,
		     const struct tx_gso_state *g)
{
	int err = __atomic_load_n(&g->fallback_err, __ATOMIC_RELAXED);
	char reason[sizeof(p->gso_reason)];

	ug_json_obj_open(j, "gso");
	ug_json_bool(j, "requested", p->gso_requested);
	ug_json_bool(j, "active", gso_active(p, g));
	ug_json_bool(j, "fallback", p->gso_fallback || err);
	if (p->gso_fallback) {
		ug_json_str(j, "fallback_reason", p->gso_reason);
	} else if (err) {
		snprintf(reason, sizeof(reason), "GSO send failed: %s", strerror(err));
		ug_json_str(j, "fallback_reason", reason);
	} else {
		ug_json_null(j, "fallback_reason");
	}
	ug_json_i64_or_null(j, "gso_size", p->gso_requested && !cfg->nsizes, cfg->gso_size);
	ug_json_i64_or_null(j, "max_segs", p->gso_requested, p->max_segs);
	ug_json_i64_or_null(j, "kernel_max_segs", p->kernel_max, p->kernel_max);
	/* the probe's loopback traffic, for /proc/net/snmp accounting */
	if (p->probed) {
		ug_json_obj_open(j, "probe");
		ug_json_u64(j, "sends", p->probe_sends);
		ug_json_u64(j, "datagrams", p->probe_segs);
		ug_json_u64(j, "reads", p->probe_reads);
		ug_json_obj_close(j);
	} else {
		ug_json_null(j, "probe");
	}
	ug_json_obj_close(j);
}

void tx_report_json(const struct tx_cfg *cfg, const struct tx_plan *p,
		    const struct tx_gso_state *g, const struct flow *flows, const struct sum *t)
{
	struct ug_totals tot = {
		.duration_s = t->dur, .bytes = t->bytes, .datagrams = t->dgrams,
		.calls = t->calls, .cpu_user_s = t->cpu_user, .cpu_sys_s = t->cpu_sys,
		.err_names = err_names, .err = t->err, .nerr = E_NR,
	};
	struct ug_json j;
	char addr[80];
	int i;

	ug_json_head(&j, "udpgso_bench_tx", cfg->family, cfg->tcp,
		     mode_name(cfg, gso_active(p, g), flows));
	json_options(&j, cfg, p);
	ug_json_totals(&j, &tot);
	json_gso(&j, cfg, p, g);
	ug_json_obj_open(&j, "zerocopy");
	ug_json_u64(&j, "completions", t->zc);
	ug_json_u64(&j, "copied", t->zcc);
	ug_json_obj_close(&j);
	ug_json_arr_open(&j, "flows");
	for (i = 0; i < cfg->nflows; i++) {
		const struct flow *f = &flows[i];

		ug_json_obj_open(&j, NULL);
		ug_json_i64(&j, "index", i);
		ug_json_u64(&j, "flow_id", f->id);
		ug_json_str(&j, "dst", ug_addr_str(&f->dst, addr, sizeof(addr)));
		ug_json_u64(&j, "bytes", f->bytes);
		ug_json_u64(&j, "datagrams", f->dgrams);
		ug_json_u64(&j, "calls", f->calls);
		ug_json_bool(&j, "gso_active", f->gso_on);
		ug_json_i64_or_null(&j, "sndbuf", cfg->sndbuf, f->sndbuf);
		ug_json_obj_close(&j);
	}
	ug_json_arr_close(&j);
	ug_json_obj_close(&j);
	ug_json_end(&j);
}

/* ---- -a ------------------------------------------------------------------- */

int tx_report_audit(const struct tx_cfg *cfg, const struct sum *t)
{
	unsigned long long ms = (unsigned long long)(t->dur * 1000);
	int rc = 0;

	if (ms) {
		fprintf(stderr, "Summary over %llu.%03llu seconds...\n", ms / 1000, ms % 1000);
		fprintf(stderr,
			"sum %s tx: %6llu MB/s %10llu calls (%llu/s) %10llu msgs (%llu/s)\n",
			cfg->tcp ? "tcp" : "udp", (unsigned long long)(t->bytes >> 10) / ms,
			(unsigned long long)t->calls, (unsigned long long)(t->calls * 1000 / ms),
			(unsigned long long)t->rounds, (unsigned long long)(t->rounds * 1000 / ms));
	}
	if (cfg->tstamp) {
		fprintf(stderr, "Tx Timestamps: %19llu received %17llu errors\n",
			(unsigned long long)t->ts_ok, (unsigned long long)t->ts_err);
		if (t->ts_err || t->ts_ok != t->msgs) {
			ug_note("expected %llu clean tx timestamps, got %llu (%llu errors)",
				(unsigned long long)t->msgs, (unsigned long long)t->ts_ok,
				(unsigned long long)t->ts_err);
			rc = 1;
		}
	}
	if (cfg->zerocopy) {
		fprintf(stderr, "Zerocopy acks: %19llu\n", (unsigned long long)t->zc);
		if (t->zc != t->msgs) {
			ug_note("unexpected number of zerocopy completions: %llu expected %llu received",
				(unsigned long long)t->msgs, (unsigned long long)t->zc);
			rc = 1;
		}
	}
	return rc;
}
