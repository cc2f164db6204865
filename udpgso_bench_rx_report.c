// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_rx summary: the workers' counters and the flows' sequence
 * accounting added up, the --json summary (docs/tools.md), and one stderr
 * line per failed expectation (-n, -l, -S, -v, --seq).
 */
#include <string.h>

#include "udpgso_bench_rx.h"

/* ---- summary ---------------------------------------------------------------- */

static const char *const err_names[E_NR] = {
	"recv", "len", "gso_size", "verify", "stamp", "truncated", "dup", "count",
};

static const char *const stop_names[] = {
	"running", "-n reached", "connect timeout (-C)", "receive timeout (-R)",
	"signal", "end of TCP stream",
};

struct totals {
	uint64_t bytes, datagrams, reads, calls, gro_reads, first_ns, last_ns;
	uint64_t kfirst_ns, klast_ns;
	uint64_t naps, polls;
	uint64_t err[E_NR], errors;
	uint64_t loss, dup, reorder, flows_seen;
	double duration, reads_window, kernel_window;	/* s; kernel: -1 none */
};

static void sum_up(const struct rx_view *v, struct totals *t)
{
	const struct rx_cfg *cfg = v->cfg;
	int i, e;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < cfg->nworkers; i++) {
		const struct worker *w = &v->workers[i];

		t->bytes += w->bytes;
		t->datagrams += w->datagrams;
		t->reads += w->reads;
		t->calls += w->calls;
		t->gro_reads += w->gro_reads;
		t->naps += w->nap_count;
		t->polls += w->polls;
		for (e = 0; e < E_NR; e++)
			t->err[e] += w->err[e];
		if (w->first_ns && (!t->first_ns || w->first_ns < t->first_ns))
			t->first_ns = w->first_ns;
		if (w->last_ns > t->last_ns)
			t->last_ns = w->last_ns;
		if (w->kfirst_ns && (!t->kfirst_ns || w->kfirst_ns < t->kfirst_ns))
			t->kfirst_ns = w->kfirst_ns;
		if (w->klast_ns > t->klast_ns)
			t->klast_ns = w->klast_ns;
	}
	for (i = 0; cfg->seq && i < cfg->flows; i++) {
		const struct flow *f = &v->flows[i];

		if (!f->seen)
			continue;
		t->flows_seen++;
		t->dup += f->dup;
		t->reorder += f->reorder;
		if (f->highest + 1 > f->distinct)
			t->loss += f->highest + 1 - f->distinct;
	}
	t->err[E_DUP] = t->dup;
	if (cfg->exp_nr && t->reads != (uint64_t)cfg->exp_nr)
		t->err[E_COUNT] = 1;
	for (e = 0; e < E_NR; e++)
		t->errors += t->err[e];
	if (t->first_ns && t->last_ns > t->first_ns)
		t->reads_window = (t->last_ns - t->first_ns) / 1e9;
	t->kernel_window = -1;
	if (cfg->kstamp && t->kfirst_ns && t->klast_ns > t->kfirst_ns)
		t->kernel_window = (t->klast_ns - t->kfirst_ns) / 1e9;
	/* --kstamp: the kernel's window when both edges have a stamp */
	t->duration = t->kernel_window > 0 ? t->kernel_window : t->reads_window;
}

static void print_json(const struct rx_view *v, const struct totals *t)
{
	const struct rx_cfg *cfg = v->cfg;
	struct ug_totals tot = { .err_names = err_names, .err = t->err, .nerr = E_NR };
	double user, sys;
	struct ug_json j;
	int i;

	ug_cpu_usage(&user, &sys);
	ug_json_head(&j, "udpgso_bench_rx", cfg->family, cfg->tcp, rx_mode_names[cfg->mode]);

	ug_json_obj_open(&j, "options");
	ug_json_u64(&j, "port", cfg->port);
	ug_json_str(&j, "bind", cfg->bind_str ? cfg->bind_str :
		    cfg->family == AF_INET ? "0.0.0.0" : "::");
	ug_json_i64(&j, "connect_timeout_ms", cfg->connect_ms);
	ug_json_i64(&j, "rcv_timeout_ms", cfg->rcv_ms);
	ug_json_bool(&j, "gro", cfg->gro);
	ug_json_bool(&j, "read_all", cfg->read_all);
	ug_json_bool(&j, "verify", cfg->verify);
	ug_json_bool(&j, "tcp", cfg->tcp);
	ug_json_i64(&j, "expected_len", cfg->exp_len);
	ug_json_i64(&j, "expected_reads", cfg->exp_nr);
	ug_json_i64(&j, "expected_gso_size", cfg->exp_gso);
	ug_json_i64(&j, "batch", cfg->batch);
	ug_json_i64(&j, "reuseport", cfg->reuseport);
	ug_json_i64(&j, "threads", cfg->threads);
	ug_json_bool(&j, "seq", cfg->seq);
	ug_json_i64(&j, "flows", cfg->seq ? cfg->flows : 0);
	ug_json_i64(&j, "rcvbuf", cfg->rcvbuf ? cfg->rcvbuf : RX_RCVBUF_DEF);
	ug_json_str(&j, "wait", cfg->poll_wait ? "poll" : "nap");
	ug_json_bool(&j, "kstamp", cfg->kstamp);
	if (cfg->ncpus) {
		ug_json_arr_open(&j, "cpu");
		for (i = 0; i < cfg->ncpus; i++)
			ug_json_i64(&j, NULL, cfg->cpus[i]);
		ug_json_arr_close(&j);
	} else {
		ug_json_null(&j, "cpu");
	}
	ug_json_obj_close(&j);

	tot.duration_s = t->duration;
	tot.bytes = t->bytes;
	tot.datagrams = t->datagrams;
	tot.calls = t->calls;
	tot.cpu_user_s = user;
	tot.cpu_sys_s = sys;
	ug_json_totals(&j, &tot);

	ug_json_str(&j, "window", t->kernel_window > 0 ? "kernel" : "reads");
	ug_json_dbl(&j, "window_reads_s", t->reads_window);
	if (t->kernel_window > 0)
		ug_json_dbl(&j, "window_kernel_s", t->kernel_window);
	else
		ug_json_null(&j, "window_kernel_s");
	ug_json_u64(&j, "reads", t->reads);
	ug_json_u64(&j, "gro_reads", t->gro_reads);
	ug_json_u64(&j, "naps", t->naps);
	ug_json_u64(&j, "polls", t->polls);
	ug_json_dbl(&j, "datagrams_per_read", t->reads ? (double)t->datagrams / t->reads : 0);
	if (cfg->seq) {
		ug_json_obj_open(&j, "seq");
		ug_json_u64(&j, "loss", t->loss);
		ug_json_u64(&j, "dup", t->dup);
		ug_json_u64(&j, "reorder", t->reorder);
		ug_json_u64(&j, "flows", t->flows_seen);
		ug_json_obj_close(&j);
	} else {
		ug_json_null(&j, "seq");
	}
	ug_json_u64(&j, "verify_errors", t->err[E_VERIFY]);
	ug_json_arr_open(&j, "sockets");
	for (i = 0; i < cfg->reuseport; i++) {
		uint64_t dg = 0, by = 0, rd = 0;
		int k;

		/* a socket's counts: those of the --threads workers reading it */
		for (k = i * cfg->threads; k < (i + 1) * cfg->threads; k++) {
			dg += v->workers[k].datagrams;
			by += v->workers[k].bytes;
			rd += v->workers[k].reads;
		}
		ug_json_obj_open(&j, NULL);
		ug_json_i64(&j, "index", i);
		ug_json_u64(&j, "datagrams", dg);
		ug_json_u64(&j, "bytes", by);
		ug_json_u64(&j, "reads", rd);
		ug_json_obj_close(&j);
	}
	ug_json_arr_close(&j);
	ug_json_arr_open(&j, "threads");
	for (i = 0; i < cfg->nworkers; i++) {
		ug_json_obj_open(&j, NULL);
		ug_json_i64(&j, "index", i);
		ug_json_i64(&j, "socket", i / cfg->threads);
		ug_json_u64(&j, "datagrams", v->workers[i].datagrams);
		ug_json_u64(&j, "reads", v->workers[i].reads);
		ug_json_obj_close(&j);
	}
	ug_json_arr_close(&j);
	ug_json_obj_close(&j);
	ug_json_end(&j);
}

/* the first worker that saw error @e */
static const struct worker *first_with(const struct rx_view *v, int e)
{
	const struct rx_cfg *cfg = v->cfg;

	int i;

	for (i = 0; i < cfg->nworkers; i++)
		if (v->workers[i].err[e])
			return &v->workers[i];
	return &v->workers[0];
}

/* one line per failed expectation on stderr */
static void report_failures(const struct rx_view *v, const struct totals *t)
{
	const struct rx_cfg *cfg = v->cfg;
	const struct worker *w;

	if (t->err[E_COUNT])
		fprintf(stderr, "%s: -n: wrong number of reads, got %llu, expected %lld "
			"(stopped by %s)\n", ug_prog, (unsigned long long)t->reads,
			cfg->exp_nr, stop_names[v->stop]);
	if (t->err[E_LEN])
		fprintf(stderr, "%s: -l: %llu reads with a bad length, first %lld, "
			"expected %lld\n", ug_prog, (unsigned long long)t->err[E_LEN],
			first_with(v, E_LEN)->first_bad_len, cfg->exp_len);
	if (t->err[E_GSO])
		fprintf(stderr, "%s: -S: %llu reads with a bad gso size, first %lld, "
			"expected %lld (-1: no UDP_GRO cmsg)\n", ug_prog,
			(unsigned long long)t->err[E_GSO],
			first_with(v, E_GSO)->first_bad_gso, cfg->exp_gso);
	if (t->err[E_VERIFY]) {
		w = first_with(v, E_VERIFY);
		fprintf(stderr, "%s: verify: %llu datagrams with a bad payload, first: "
			"socket %d datagram %llu len %zu, offset %zu: got %d, expected %d\n",
			ug_prog, (unsigned long long)t->err[E_VERIFY], w->idx,
			(unsigned long long)w->bad_dgram, w->bad_len, w->bad_off,
			w->bad_got, w->bad_want);
	}
	if (t->err[E_STAMP])
		fprintf(stderr, "%s: --seq: %llu datagrams without a valid stamp "
			"(magic 0x%08x, flow id below %d)\n", ug_prog,
			(unsigned long long)t->err[E_STAMP], UG_MAGIC, cfg->flows);
	if (t->err[E_DUP])
		fprintf(stderr, "%s: --seq: %llu duplicate datagrams\n", ug_prog,
			(unsigned long long)t->err[E_DUP]);
	if (t->err[E_TRUNC])
		fprintf(stderr, "%s: %llu reads truncated\n", ug_prog,
			(unsigned long long)t->err[E_TRUNC]);
	if (t->err[E_RECV])
		fprintf(stderr, "%s: %llu failed reads, first: %s\n", ug_prog,
			(unsigned long long)t->err[E_RECV],
			strerror(first_with(v, E_RECV)->first_recv_errno));
}

uint64_t rx_report(const struct rx_view *v)
{
	struct totals t;

	sum_up(v, &t);
	if (v->cfg->json)
		print_json(v, &t);
	report_failures(v, &t);
	return t.errors;
}
