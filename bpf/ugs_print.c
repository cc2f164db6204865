// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats (BPF): what the tool prints: the hooks, the counters (text,
 * JSON, histogram), the GRO marks' health and rejections, and what the
 * counters may be missing (skipped program runs, marks refused, GRO skbs
 * never seen at netif_receive_skb).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "ugs_load.h"
#include "ugs.skel.h"

__u64 ugs_skips(const struct ugs *u, struct ugs_skips *k)
{
	const struct ugs_bpf__bss *b = u->skel->bss;
	int h;

	memset(k, 0, sizeof(*k));
	for (h = 0; h < UGS_NR_HOOKS; h++) {
		k->miss[h] = ugs_prog_misses(u, h) - u->miss0[h];
		k->misses += k->miss[h];
	}
	k->put_errors = b->ugs_mark_put_errors;
	k->full = b->ugs_mark_full;
	/* put since the reset: held now, and lost */
	k->unseen = ugs_held_now(u) + b->ugs_held_lost;
	/* counted, not missing: not in the total */
	k->late = b->ugs_late;
	return k->misses + k->put_errors + k->unseen;
}

void ugs_print_skips(const struct ugs *u, FILE *out)
{
	struct ugs_skips k;
	__u64 n = ugs_skips(u, &k);
	int h;

	fprintf(out, "# skipped: %s: recursion_misses %llu, mark updates failed %llu (map full "
		"%llu), gro skbs not seen at netif_receive_skb %llu, counted at a socket read "
		"instead %llu, marks evicted none (hash map)\n", n ? "INCOMPLETE" : "none",
		(unsigned long long)k.misses, (unsigned long long)k.put_errors,
		(unsigned long long)k.full, (unsigned long long)k.unseen,
		(unsigned long long)k.late);
	for (h = 0; h < UGS_NR_HOOKS; h++)
		if (k.miss[h])
			fprintf(out, "# skipped prog %s recursion_misses %llu\n", ugs_hooks[h].name,
				(unsigned long long)k.miss[h]);
}

static int ugs_wrun_cmp(const void *a, const void *b)
{
	const struct ugs_wrun *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * UDPGSO_STATS_DIAG_RING=FILE: the witness's last runs before the first skb
 * read unseen (frozen there), appended to FILE in time order, the lost skb's
 * address marked; then (FILE or not) the ring is cleared and runs again
 */
static void ugs_dump_wring(const struct ugs *u)
{
	struct ugs_bpf__bss *b = u->skel->bss;
	const char *path = getenv("UDPGSO_STATS_DIAG_RING");
	struct bpf_map *m = u->skel->maps.ugs_wring;
	struct ugs_wrun *r = calloc(UGS_WRING, sizeof(*r)), z = {};
	__u32 i, n = 0;
	FILE *f;

	if (r && path && *path && (f = fopen(path, "a"))) {
		for (i = 0; i < UGS_WRING; i++)
			if (!bpf_map__lookup_elem(m, &i, sizeof(i), &r[n], sizeof(r[n]), 0) &&
			    r[n].ts)
				n++;
		qsort(r, n, sizeof(*r), ugs_wrun_cmp);
		fprintf(f, "# skb 0x%llx read unseen at %llu on CPU %llu; the witness's last %u "
			"runs before (ts cpu skb len):\n",
			(unsigned long long)b->ugs_read_unseen_skb,
			(unsigned long long)b->ugs_read_unseen_at,
			(unsigned long long)b->ugs_read_unseen_cpu, n);
		for (i = 0; i < n; i++)
			fprintf(f, "%llu %u 0x%llx %u%s\n", (unsigned long long)r[i].ts, r[i].cpu,
				(unsigned long long)r[i].skb, r[i].len,
				r[i].skb == b->ugs_read_unseen_skb ? " <- its address" : "");
		fclose(f);
	}
	free(r);
	for (i = 0; i < UGS_WRING; i++)
		bpf_map__update_elem(m, &i, sizeof(i), &z, sizeof(z), 0);
	b->ugs_wring_frozen = 0;
}

void ugs_print_diag(const struct ugs *u, FILE *out)
{
	const struct ugs_bpf__bss *b = u->skel->bss;

	if (!u->diag)
		return;
	fprintf(out, "# diag: netif_receive_skb witness rx_skbs %llu udp_gso_skbs %llu, read by a "
		"socket unseen at netif_receive_skb %llu\n", (unsigned long long)b->ugs_w_skbs,
		(unsigned long long)b->ugs_w_gso, (unsigned long long)b->ugs_read_unseen);
	if (b->ugs_read_unseen)
		fprintf(out, "# diag read unseen: witnessed %llu; the last: mark put %llu ns "
			"before the read, len %llu, gso_segs %llu; the ring's: skb 0x%llx read at %llu "
			"ns (CLOCK_MONOTONIC) on CPU %llu\n",
			(unsigned long long)b->ugs_read_unseen_w,
			(unsigned long long)b->ugs_read_unseen_age,
			(unsigned long long)b->ugs_read_unseen_len,
			(unsigned long long)b->ugs_read_unseen_segs,
			(unsigned long long)b->ugs_read_unseen_skb,
			(unsigned long long)b->ugs_read_unseen_at,
			(unsigned long long)b->ugs_read_unseen_cpu);
	if (b->ugs_wring_frozen)
		ugs_dump_wring(u);
	if (b->ugs_held_lost || b->ugs_held_old_lost) {
		/* ugs_match_why(): -1 the filter's skb, -2 at a GRO entry, else enum ugs_rej */
		__s64 w = b->ugs_lost_why;
		const char *why = w == -1 ? "the filter's" : w == -2 ? "a GRO entry" :
				  w >= 0 && w < UGS_NR_REJ ? ugs_rej_names[w] : "?";

		fprintf(out, "# diag held lost: %llu; the last: mark %llu ns old, held flags %llu "
			"(1 held, 2 read unseen, 4 witnessed, 8 replaced by a mark of the same "
			"head, 16 found at netif_receive_skb under another head, 32 by an skb "
			"not of the filter's, 64 put before the reset), skb 0x%llx at %llu ns "
			"(CLOCK_MONOTONIC), found by an skb of len %llu, %s\n",
			(unsigned long long)b->ugs_held_lost, (unsigned long long)b->ugs_lost_age,
			(unsigned long long)b->ugs_lost_held, (unsigned long long)b->ugs_lost_skb,
			(unsigned long long)b->ugs_lost_at, (unsigned long long)b->ugs_lost_len, why);
	}
}

void ugs_print_progs(const struct ugs *u, FILE *out)
{
	int h;

	for (h = 0; h < UGS_NR_HOOKS; h++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!u->link[h] ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(u->prog[h]), &info, &len))
			continue;
		fprintf(out, "# prog %s id %u run_cnt %llu recursion_misses %llu\n",
			ugs_hooks[h].name, info.id, (unsigned long long)info.run_cnt,
			(unsigned long long)info.recursion_misses);
	}
}

const char *ugs_mode(const struct ugs *u)
{
	if (u->empty)
		return u->fexit ? "fexit-empty" : "tp_btf-derived-empty";
	return u->fexit ? "fexit" : "tp_btf-derived";
}

static const char * const ugs_hs_name[] = {
	[UGS_HS_UNUSED] = "unused", [UGS_HS_ATTACHED] = "attached",
	[UGS_HS_NOT_FOUND] = "not-found", [UGS_HS_FAILED] = "failed",
};

static const char * const ugs_src_name[] = {
	[UGS_SRC_NONE] = "unavailable", [UGS_SRC_DIRECT] = "direct",
	[UGS_SRC_DERIVED] = "derived",
};

void ugs_print_hooks(const struct ugs *u, FILE *out)
{
	int h, c;

	fprintf(out, "# kind name state [detail]\n");
	for (h = 0; h < UGS_NR_HOOKS; h++) {
		fprintf(out, "%s %s %s err=%d", ugs_hooks[h].kind, ugs_hooks[h].name,
			ugs_hs_name[u->hs[h]], u->herr[h]);
		if (u->hnote[h])
			fprintf(out, " (%s)", u->hnote[h]);
		else if (u->hs[h] == UGS_HS_UNUSED)
			fprintf(out, " (%s)", u->fexit ? "fexit in use" : "fexit refused");
		fputc('\n', out);
	}
	fprintf(out, "# mode %s\n", ugs_mode(u));
	fprintf(out, "# gso fields read with %s\n",
		u->rc ? "bpf_rdonly_cast" : "bpf_probe_read_kernel");
	if (u->init_skip)
		fprintf(out, "# kernel: no BPF tracing program runs while a task of tgid 1 is "
			"current (bpf_prog_aux.init_owned), no miss counted: what a softirq handles "
			"then is not counted (a held GRO skb a socket reads is, there)\n");
	ugs_print_progs(u, out);
	fprintf(out, "# counter name source [hook]\n");
	for (c = 0; c < UGS_NR_COUNTERS; c++)
		fprintf(out, "counter %s %s%s%s\n", ugs_counter_names[c], ugs_src_name[u->src[c]],
			u->how[c] ? " " : "", u->how[c] ? u->how[c] : "");
}

/* the reasons of enum ugs_rej, as printed (one word each) */
const char * const ugs_rej_names[UGS_NR_REJ] = {
	[UGS_REJ_MARK_STALE] = "mark_stale", [UGS_REJ_MARK_HEAD] = "mark_other_head",
	[UGS_REJ_MARK_LEFTOVER] = "mark_leftover", [UGS_REJ_FEW_SEGS] = "built_under_2_segs",
	[UGS_REJ_REPEAT] = "built_repeat_pass", [UGS_REJ_F_DEV] = "built_filter_dev",
	[UGS_REJ_F_READ] = "built_filter_unreadable", [UGS_REJ_F_PROTO] = "built_filter_not_ip",
	[UGS_REJ_F_FRAG] = "built_filter_fragment", [UGS_REJ_F_L4] = "built_filter_not_udp_tcp",
	[UGS_REJ_F_PORT] = "built_filter_port",
};

void ugs_print_marks(const struct ugs *u, FILE *out)
{
	const struct ugs_bpf__bss *b = u->skel->bss;
	int r;

	fprintf(out, "# gro marks: put errors %llu, found but refused: older than 1 s %llu, "
		"another head %llu; merged away %llu; deletes failed %llu\n",
		(unsigned long long)b->ugs_mark_put_errors,
		(unsigned long long)b->ugs_rej[UGS_REJ_MARK_STALE],
		(unsigned long long)b->ugs_rej[UGS_REJ_MARK_HEAD],
		(unsigned long long)b->ugs_mark_merged, (unsigned long long)b->ugs_mark_del_errors);
	fprintf(out, "# gro marks held before the reset: accounted since %llu, of which lost "
		"%llu (not skbs of this run: the run they were held in reported them)\n",
		(unsigned long long)b->ugs_held_old_out, (unsigned long long)b->ugs_held_old_lost);
	fprintf(out, "# rejected:");
	for (r = 0; r < UGS_NR_REJ; r++)
		fprintf(out, " %s %llu", ugs_rej_names[r], (unsigned long long)b->ugs_rej[r]);
	fputc('\n', out);
}

void ugs_print_counters(const struct ugs *u, const __u64 *cnt, FILE *out)
{
	bool none = true;
	int c;

	for (c = 0; c < UGS_NR_COUNTERS; c++)
		if (u->src[c] != UGS_SRC_NONE)
			fprintf(out, "%s %llu\n", ugs_counter_names[c], (unsigned long long)cnt[c]);
	for (c = 0; c < UGS_NR_COUNTERS; c++) {
		if (u->src[c] != UGS_SRC_NONE)
			continue;
		fprintf(out, "%s %s", none ? "# unavailable:" : "", ugs_counter_names[c]);
		none = false;
	}
	if (!none)
		fputc('\n', out);
}

void ugs_print_hist(const struct ugs *u, const struct ugs_stats *s, FILE *out)
{
	static const char * const dir[UGS_NR_HIST] = { "tx", "rx" };
	int h, i;

	(void)u;
	for (h = 0; h < UGS_NR_HIST; h++)
		for (i = 0; i <= UGS_HIST_MAX; i++)
			if (s->hist[h][i])
				fprintf(out, "histogram %s %d%s %llu\n", dir[h], i,
					i == UGS_HIST_MAX ? "+" : "",
					(unsigned long long)s->hist[h][i]);
}

/* the JSON strings of the counters whose source is SRC, comma-separated */
static void ugs_json_names(const struct ugs *u, enum ugs_source src, FILE *out)
{
	const char *sep = "";
	int c;

	for (c = 0; c < UGS_NR_COUNTERS; c++) {
		if (u->src[c] == src) {
			fprintf(out, "%s\"%s\"", sep, ugs_counter_names[c]);
			sep = ", ";
		}
	}
}

void ugs_print_json(const struct ugs *u, const struct ugs_stats *s, FILE *out)
{
	static const char * const dir[UGS_NR_HIST] = { "tx", "rx" };
	const char *sep = "";
	struct ugs_skips k;
	__u64 skipped = ugs_skips(u, &k);
	int c, h, i;

	fprintf(out, "{\"source\": \"bpf\", \"mode\": \"%s\", \"counters\": {", ugs_mode(u));
	for (c = 0; c < UGS_NR_COUNTERS; c++) {
		if (u->src[c] == UGS_SRC_NONE)
			continue;
		fprintf(out, "%s\"%s\": %llu", sep, ugs_counter_names[c],
			(unsigned long long)s->cnt[c]);
		sep = ", ";
	}
	fprintf(out, "}, \"derived\": [");
	ugs_json_names(u, UGS_SRC_DERIVED, out);
	fprintf(out, "], \"unavailable\": [");
	ugs_json_names(u, UGS_SRC_NONE, out);
	fprintf(out, "], \"skipped\": {\"recursion_misses\": {");
	sep = "";
	for (h = 0; h < UGS_NR_HOOKS; h++) {
		if (!u->link[h])
			continue;
		fprintf(out, "%s\"%s\": %llu", sep, ugs_hooks[h].name,
			(unsigned long long)k.miss[h]);
		sep = ", ";
	}
	/* a refused delete leaves a mark: named, not a count missing (complete) */
	fprintf(out, "}, \"mark_update_errors\": %llu, \"mark_map_full\": %llu, "
		"\"gro_not_seen_at_netif_receive_skb\": %llu, \"gro_counted_at_socket_read\": %llu, "
		"\"mark_delete_errors\": %llu, \"gro_held_before_reset_accounted\": %llu, "
		"\"gro_held_before_reset_lost\": %llu}, \"complete\": %s",
		(unsigned long long)k.put_errors, (unsigned long long)k.full,
		(unsigned long long)k.unseen, (unsigned long long)k.late,
		(unsigned long long)u->skel->bss->ugs_mark_del_errors,
		(unsigned long long)u->skel->bss->ugs_held_old_out,
		(unsigned long long)u->skel->bss->ugs_held_old_lost, skipped ? "false" : "true");
	fprintf(out, ", \"rejected\": {");
	for (i = 0; i < UGS_NR_REJ; i++)
		fprintf(out, "%s\"%s\": %llu", i ? ", " : "", ugs_rej_names[i],
			(unsigned long long)u->skel->bss->ugs_rej[i]);
	fputc('}', out);
	if (u->diag)
		fprintf(out, ", \"diag\": {\"witness_rx_skbs\": %llu, "
			"\"witness_udp_gso_skbs\": %llu, "
			"\"read_unseen_at_netif_receive_skb\": %llu}",
			(unsigned long long)u->skel->bss->ugs_w_skbs,
			(unsigned long long)u->skel->bss->ugs_w_gso,
			(unsigned long long)u->skel->bss->ugs_read_unseen);
	fprintf(out, ", \"histogram\": {");
	for (h = 0; h < UGS_NR_HIST; h++) {
		fprintf(out, "%s\"%s\": {", h ? ", " : "", dir[h]);
		sep = "";
		for (i = 0; i <= UGS_HIST_MAX; i++) {
			if (!s->hist[h][i])
				continue;
			fprintf(out, "%s\"%d%s\": %llu", sep, i, i == UGS_HIST_MAX ? "+" : "",
				(unsigned long long)s->hist[h][i]);
			sep = ", ";
		}
		fputc('}', out);
	}
	fprintf(out, "}}\n");
}

/* what each attached program cost: runs and time (with BPF_STATS_RUN_TIME on) */
void ugs_print_prog_stats(const struct ugs *u, FILE *out)
{
	unsigned long long cnt = 0, ns = 0;
	int h;

	for (h = 0; h < UGS_NR_HOOKS; h++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!u->link[h] || bpf_obj_get_info_by_fd(bpf_program__fd(u->prog[h]), &info, &len))
			continue;
		fprintf(out, "# prog %s run_cnt %llu run_time_ns %llu avg_ns %.0f "
			"recursion_misses %llu\n", ugs_hooks[h].name,
			(unsigned long long)info.run_cnt, (unsigned long long)info.run_time_ns,
			info.run_cnt ? (double)info.run_time_ns / info.run_cnt : 0.0,
			(unsigned long long)info.recursion_misses);
		cnt += info.run_cnt;
		ns += info.run_time_ns;
	}
	fprintf(out, "# prog all run_cnt %llu run_time_ns %llu\n", cnt, ns);
}
