// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats (BPF): load and attach.  fexit first (the module's kretprobes'
 * counterpart); when the kernel refuses it, the counters it gave are derived
 * from tracepoints (ugs.bpf.c says how) and `hooks` says so.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include <bpf/bpf.h>
#include "ugs_load.h"
#include "ugs.skel.h"

const char * const ugs_counter_names[UGS_NR_COUNTERS] = UGS_COUNTER_NAMES_INIT;

const struct ugs_hook_def ugs_hooks[UGS_NR_HOOKS] = {
	[UGS_H_NET_DEV_QUEUE]		= { "tp_btf", "net_dev_queue" },
	[UGS_H_NET_DEV_START_XMIT]	= { "tp_btf", "net_dev_start_xmit" },
	[UGS_H_NET_DEV_XMIT]		= { "tp_btf", "net_dev_xmit" },
	[UGS_H_NAPI_GRO_RECEIVE_ENTRY]	= { "tp_btf", "napi_gro_receive_entry" },
	[UGS_H_NAPI_GRO_FRAGS_ENTRY]	= { "tp_btf", "napi_gro_frags_entry" },
	[UGS_H_NETIF_RECEIVE_SKB]	= { "tp_btf", "netif_receive_skb" },
	[UGS_H_UDP_FAIL_QUEUE_RCV_SKB]	= { "tp_btf", "udp_fail_queue_rcv_skb" },
	[UGS_H_SKB_GSO_SEGMENT]		= { "fexit", "__skb_gso_segment" },
	[UGS_H_UDP4_GRO_COMPLETE]	= { "fexit", "udp4_gro_complete" },
	[UGS_H_UDP6_GRO_COMPLETE]	= { "fexit", "udp6_gro_complete" },
	[UGS_H_CONSUME_SKB]		= { "tp_btf", "consume_skb" },
	[UGS_H_KFREE_SKB]		= { "tp_btf", "kfree_skb" },
	[UGS_H_NAPI_GRO_RECEIVE_EXIT]	= { "tp_btf", "napi_gro_receive_exit" },
	[UGS_H_NAPI_GRO_FRAGS_EXIT]	= { "tp_btf", "napi_gro_frags_exit" },
	[UGS_H_NETIF_WITNESS]		= { "tp_btf", "netif_receive_skb_witness",
					    "netif_receive_skb" },
	[UGS_H_SKB_COPY_DATAGRAM]	= { "tp_btf", "skb_copy_datagram_iovec" },
};

/* the kallsyms functions whose calls to consume_skb/kfree_skb tell the place */
static const char * const ugs_range_fn[UGS_NR_RANGES] = {
	[UGS_R_VALIDATE_XMIT]	= "validate_xmit_skb",
	[UGS_R_UDP4_RCV]	= "udp_queue_rcv_skb",
	[UGS_R_UDP6_RCV]	= "udpv6_queue_rcv_skb",
	[UGS_R_XMIT_LIST]	= "validate_xmit_skb_list",
	[UGS_R_DEV_QUEUE_XMIT]	= "__dev_queue_xmit",
	[UGS_R_KERNEL_TEXT]	= "_stext",	/* to _etext */
};

static bool ugs_env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* libbpf's messages: kept quiet (a refused fexit is expected), unless asked */
static char ugs_last_msg[256];

static int ugs_libbpf_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	const char *v = getenv("UDPGSO_STATS_VERBOSE");
	va_list ap2;

	va_copy(ap2, ap);
	if (lvl <= LIBBPF_WARN)
		vsnprintf(ugs_last_msg, sizeof(ugs_last_msg), fmt, ap2);
	va_end(ap2);
	if (v && *v && strcmp(v, "0"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* number of arguments of tracepoint NAME (without the ctx), -1 if absent */
static int ugs_tp_nargs(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	char tn[128];
	int id;

	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* pointer */
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;
}

/*
 * issue 25: a kernel whose bpf_prog_aux has init_owned (not upstream; this
 * host's 6.18.44-fc) runs no BPF tracing program while the current task's
 * tgid is 1, unless the program is init's own, and counts no miss for it
 * (results/bpf-lost-2026-11-26/kcheck)
 */
static bool ugs_init_skip(const struct btf *btf)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, "bpf_prog_aux", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t)
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "init_owned"))
			return true;
	return false;
}

/* [lo, hi) of each function in ugs_range_fn (NAME or NAME.suffix); 0 if not found */
static void ugs_find_ranges(__u64 r[UGS_NR_RANGES][2])
{
	unsigned long long a;
	char line[512], name[256], type;
	FILE *f;
	int i;

	memset(r, 0, sizeof(__u64) * 2 * UGS_NR_RANGES);
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || !a)
			continue;
		for (i = 0; i < UGS_NR_RANGES; i++) {
			size_t n = strlen(ugs_range_fn[i]);

			if (!r[i][0] && !strncmp(name, ugs_range_fn[i], n) &&
			    (!name[n] || name[n] == '.'))
				r[i][0] = a;
		}
	}
	/* the end: the lowest symbol above the start (the kernel text: _etext) */
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext"))
			r[UGS_R_KERNEL_TEXT][1] = a;
		for (i = 0; i < UGS_R_KERNEL_TEXT; i++)
			if (r[i][0] && a > r[i][0] && (!r[i][1] || a < r[i][1]))
				r[i][1] = a;
	}
	fclose(f);
	for (i = 0; i < UGS_NR_RANGES; i++)
		if (!r[i][1])
			r[i][0] = 0;
}

static void ugs_set_src(struct ugs *u, int from, int to, enum ugs_source s, const char *how)
{
	int c;

	for (c = from; c <= to; c++) {
		u->src[c] = s;
		u->how[c] = how;
	}
}

static bool ugs_on(const struct ugs *u, enum ugs_hook h)
{
	return u->hs[h] == UGS_HS_ATTACHED;
}

/* which counters the attached hooks give, and how */
static void ugs_sources(struct ugs *u, const __u64 r[UGS_NR_RANGES][2])
{
	enum ugs_source d = UGS_SRC_DERIVED;

	memset(u->src, 0, sizeof(u->src));
	if (ugs_on(u, UGS_H_NET_DEV_QUEUE))
		ugs_set_src(u, UGS_TX_SKBS, UGS_TX_GSO_SEGS_UNKNOWN_SKBS, UGS_SRC_DIRECT,
			    "net_dev_queue");
	if (ugs_on(u, UGS_H_NET_DEV_START_XMIT) && ugs_on(u, UGS_H_NET_DEV_XMIT))
		ugs_set_src(u, UGS_TX_DEV_SKBS, UGS_TX_DEV_GSO_SKBS, UGS_SRC_DIRECT,
			    "net_dev_start_xmit+net_dev_xmit");
	if (ugs_on(u, UGS_H_NAPI_GRO_RECEIVE_ENTRY))
		ugs_set_src(u, UGS_RX_GRO_IN, UGS_RX_GRO_IN, UGS_SRC_DIRECT,
			    "napi_gro_receive_entry");
	if (ugs_on(u, UGS_H_NETIF_RECEIVE_SKB)) {
		ugs_set_src(u, UGS_RX_SKBS, UGS_RX_GSO_SKBS, UGS_SRC_DIRECT, "netif_receive_skb");
		ugs_set_src(u, UGS_RX_GSO_TCP_SKBS, UGS_RX_GSO_TCP_SEGS, UGS_SRC_DIRECT,
			    "netif_receive_skb");
	}
	if (ugs_on(u, UGS_H_UDP_FAIL_QUEUE_RCV_SKB))
		ugs_set_src(u, UGS_RX_UDP_QUEUE_FAILS, UGS_RX_UDP_QUEUE_FAILS, UGS_SRC_DIRECT,
			    "udp_fail_queue_rcv_skb");
	if (u->fexit) {
		ugs_set_src(u, UGS_TX_SW_SEGMENTED_SKBS, UGS_TX_SW_SEGMENT_ERRORS,
			    UGS_SRC_DIRECT, "__skb_gso_segment");
		ugs_set_src(u, UGS_RX_SW_SEGMENTED_SKBS, UGS_RX_SW_SEGMENT_ERRORS,
			    UGS_SRC_DIRECT, "__skb_gso_segment");
		if (ugs_on(u, UGS_H_CONSUME_SKB) && ugs_on(u, UGS_H_KFREE_SKB)) {
			ugs_set_src(u, UGS_TX_SW_SEGMENTED_SKBS, UGS_TX_SW_SEGMENT_ERRORS,
				    UGS_SRC_DIRECT, "__skb_gso_segment+consume_skb/kfree_skb@caller");
			ugs_set_src(u, UGS_OTHER_SW_SEGMENTED_SKBS, UGS_OTHER_SW_SEGMENT_ERRORS,
				    UGS_SRC_DIRECT, "__skb_gso_segment+consume_skb/kfree_skb@caller");
		} else {
			/* no call site: tx_sw_* has every tx_path call, other_sw_* none */
			ugs_set_src(u, UGS_TX_SW_SEGMENTED_SKBS, UGS_TX_SW_SEGMENT_ERRORS,
				    UGS_SRC_DERIVED, "__skb_gso_segment(tx_path,any-caller)");
		}
		ugs_set_src(u, UGS_RX_GRO_COALESCED_SKBS, UGS_RX_GRO_FRAGLIST_SKBS,
			    UGS_SRC_DIRECT, "udp4/6_gro_complete");
		if (ugs_on(u, UGS_H_NETIF_RECEIVE_SKB))
			ugs_set_src(u, UGS_RX_GSO_PASSTHROUGH_SKBS, UGS_RX_GSO_PASSTHROUGH_SKBS,
				    UGS_SRC_DIRECT, "netif_receive_skb+udp4/6_gro_complete");
		return;
	}
	if (ugs_on(u, UGS_H_CONSUME_SKB) && r[UGS_R_VALIDATE_XMIT][0])
		ugs_set_src(u, UGS_TX_SW_SEGMENTED_SKBS, UGS_TX_SW_SEGMENTS, d,
			    "consume_skb@validate_xmit_skb");
	if (ugs_on(u, UGS_H_KFREE_SKB) && r[UGS_R_VALIDATE_XMIT][0])
		ugs_set_src(u, UGS_TX_SW_SEGMENT_ERRORS, UGS_TX_SW_SEGMENT_ERRORS, d,
			    "kfree_skb@validate_xmit_skb");
	if (ugs_on(u, UGS_H_CONSUME_SKB) && r[UGS_R_UDP4_RCV][0])
		ugs_set_src(u, UGS_RX_SW_SEGMENTED_SKBS, UGS_RX_SW_SEGMENTS, d,
			    r[UGS_R_UDP6_RCV][0] ?
			    "consume_skb@udp_queue_rcv_skb,udpv6_queue_rcv_skb" :
			    "consume_skb@udp_queue_rcv_skb(IPv4 only)");
	if (ugs_on(u, UGS_H_KFREE_SKB) && r[UGS_R_UDP4_RCV][0])
		ugs_set_src(u, UGS_RX_SW_SEGMENT_ERRORS, UGS_RX_SW_SEGMENT_ERRORS, d,
			    "kfree_skb@udp_queue_rcv_skb,udpv6_queue_rcv_skb");
	if (ugs_on(u, UGS_H_NAPI_GRO_RECEIVE_ENTRY) && ugs_on(u, UGS_H_NETIF_RECEIVE_SKB)) {
		ugs_set_src(u, UGS_RX_GRO_COALESCED_SKBS, UGS_RX_GSO_PASSTHROUGH_SKBS, d,
			    "napi_gro_receive_entry->netif_receive_skb");
	}
}

static void ugs_set_rodata(struct ugs_bpf *s, const struct ugs_filter *f, bool derived,
			   const __u64 r[UGS_NR_RANGES][2])
{
	int i;

	s->rodata->ugs_filter_type = f->type;
	s->rodata->ugs_filter_port = f->port;
	memcpy((void *)s->rodata->ugs_filter_dev, f->dev, UGS_IFNAMSIZ);
	s->rodata->ugs_derived_gro = derived;
	s->rodata->ugs_filter_netns = f->netns;
	for (i = 0; i < UGS_NR_RANGES; i++) {
		s->rodata->ugs_range[i][0] = r[i][0];
		s->rodata->ugs_range[i][1] = r[i][1];
	}
}

/* the program of NAME, or its twin NAME_rc (gso fields through bpf_rdonly_cast) */
#define UGS_TWIN(p, name, rc) ((rc) ? (p)->name##_rc : (p)->name)

/* one attempt: fexit programs, or the derived ones; rc: the _rc twins; 0 or -errno */
static int ugs_try(struct ugs *u, const struct ugs_filter *f, bool fexit, bool rc,
		   const struct btf *vml, const __u64 r[UGS_NR_RANGES][2])
{
	__typeof__(u->skel->progs) *p = &u->skel->progs;
	struct bpf_program *all[] = {
		p->ugs_net_dev_queue, p->ugs_net_dev_queue_rc, p->ugs_net_dev_start_xmit,
		p->ugs_net_dev_start_xmit_rc, p->ugs_net_dev_xmit, p->ugs_napi_gro_frags_entry,
		p->ugs_napi_gro_frags_entry_rc, p->ugs_napi_gro_receive_entry,
		p->ugs_napi_gro_receive_entry_rc, p->ugs_netif_receive_skb,
		p->ugs_netif_receive_skb_rc, p->ugs_udp_fail_skb, p->ugs_udp_fail_sk,
		p->ugs_gso_segment, p->ugs_udp4_gro_complete, p->ugs_udp6_gro_complete,
		p->ugs_consume_skb, p->ugs_kfree_skb, p->ugs_napi_gro_receive_exit,
		p->ugs_napi_gro_frags_exit, p->ugs_netif_witness, p->ugs_read_datagram,
	};
	int h, n, err;
	size_t i;

	memset(u->prog, 0, sizeof(u->prog));
	u->prog[UGS_H_NET_DEV_QUEUE] = UGS_TWIN(p, ugs_net_dev_queue, rc);
	u->prog[UGS_H_NET_DEV_START_XMIT] = UGS_TWIN(p, ugs_net_dev_start_xmit, rc);
	u->prog[UGS_H_NET_DEV_XMIT] = p->ugs_net_dev_xmit;
	u->prog[UGS_H_NAPI_GRO_RECEIVE_ENTRY] = UGS_TWIN(p, ugs_napi_gro_receive_entry, rc);
	u->prog[UGS_H_NAPI_GRO_FRAGS_ENTRY] = UGS_TWIN(p, ugs_napi_gro_frags_entry, rc);
	u->prog[UGS_H_NETIF_RECEIVE_SKB] = UGS_TWIN(p, ugs_netif_receive_skb, rc);
	n = ugs_tp_nargs(vml, "udp_fail_queue_rcv_skb");
	u->prog[UGS_H_UDP_FAIL_QUEUE_RCV_SKB] = n >= 3 ? u->skel->progs.ugs_udp_fail_skb :
		n == 2 ? u->skel->progs.ugs_udp_fail_sk : NULL;
	if (fexit) {
		u->prog[UGS_H_SKB_GSO_SEGMENT] = u->skel->progs.ugs_gso_segment;
		u->prog[UGS_H_UDP4_GRO_COMPLETE] = u->skel->progs.ugs_udp4_gro_complete;
		u->prog[UGS_H_UDP6_GRO_COMPLETE] = u->skel->progs.ugs_udp6_gro_complete;
		/* where the segmented skb is freed: for a device, or another caller */
		if (ugs_tp_nargs(vml, "consume_skb") >= 2 && r[UGS_R_VALIDATE_XMIT][0]) {
			u->prog[UGS_H_CONSUME_SKB] = u->skel->progs.ugs_consume_skb;
			u->prog[UGS_H_KFREE_SKB] = u->skel->progs.ugs_kfree_skb;
		}
	} else {
		/* consume_skb has had its location argument since 6.3 */
		if (ugs_tp_nargs(vml, "consume_skb") >= 2)
			u->prog[UGS_H_CONSUME_SKB] = u->skel->progs.ugs_consume_skb;
		else
			u->hnote[UGS_H_CONSUME_SKB] = "no location argument";
		if (ugs_tp_nargs(vml, "kfree_skb") >= 2)
			u->prog[UGS_H_KFREE_SKB] = u->skel->progs.ugs_kfree_skb;
		/* the marks of skbs GRO merged into another, deleted when it says so */
		u->prog[UGS_H_NAPI_GRO_RECEIVE_EXIT] = p->ugs_napi_gro_receive_exit;
		u->prog[UGS_H_NAPI_GRO_FRAGS_EXIT] = p->ugs_napi_gro_frags_exit;
	}
	/*
	 * UDPGSO_STATS_NO_FREE=1 (udpgro_conf.sh: GRO counters only): no program
	 * on consume_skb/kfree_skb, the only ones run in process context with
	 * BHs on, whose runs a softirq on that CPU makes the kernel skip
	 */
	if (ugs_env_set("UDPGSO_STATS_NO_FREE")) {
		for (h = UGS_H_CONSUME_SKB; h <= UGS_H_KFREE_SKB; h++) {
			u->prog[h] = NULL;
			u->hnote[h] = "UDPGSO_STATS_NO_FREE set";
		}
	}
	/*
	 * UDPGSO_STATS_DIAG=1 (issue 25): the observers (bpf/ugs_diag.bpf.h);
	 * =skip-netif: the counting netif_receive_skb program attached but
	 * returning at once (the diagnosis's own test: every skb then reaches
	 * the stack as if the kernel had made no run of it)
	 */
	/* a held GRO skb no netif_receive_skb run took, counted at the socket read */
	u->prog[UGS_H_SKB_COPY_DATAGRAM] = p->ugs_read_datagram;
	if (u->diag) {
		u->prog[UGS_H_NETIF_WITNESS] = p->ugs_netif_witness;
	} else {
		u->hnote[UGS_H_NETIF_WITNESS] = "UDPGSO_STATS_DIAG not set";
	}
	for (h = 0; h < UGS_NR_HOOKS; h++) {
		bool tp = !strcmp(ugs_hooks[h].kind, "tp_btf");
		const char *tpn = ugs_hooks[h].tp ? ugs_hooks[h].tp : ugs_hooks[h].name;

		if (!u->prog[h])
			continue;
		if (tp ? ugs_tp_nargs(vml, tpn) < 0 :
		    btf__find_by_name_kind(vml, ugs_hooks[h].name, BTF_KIND_FUNC) < 0) {
			u->hs[h] = UGS_HS_NOT_FOUND;
			u->herr[h] = -ENOENT;
			u->prog[h] = NULL;
		}
	}
	/* fexit needs all three; else fall back as a whole */
	if (fexit && !(u->prog[UGS_H_SKB_GSO_SEGMENT] && u->prog[UGS_H_UDP4_GRO_COMPLETE] &&
		       u->prog[UGS_H_UDP6_GRO_COMPLETE]))
		return -ENOENT;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		bool on = false;

		for (h = 0; h < UGS_NR_HOOKS; h++)
			on |= u->prog[h] == all[i];
		bpf_program__set_autoload(all[i], on);
	}
	/* UDPGSO_STATS_MARKS=N (tests): a marks map of N entries, to see it full */
	if (u->marks)
		bpf_map__set_max_entries(u->skel->maps.ugs_marks, u->marks);
	ugs_set_rodata(u->skel, f, !fexit, r);
	u->skel->rodata->ugs_seg_by_free = fexit && u->prog[UGS_H_CONSUME_SKB];
	u->skel->rodata->ugs_empty = u->empty;
	u->skel->rodata->ugs_skip_netif = u->diag &&
		!strcmp(getenv("UDPGSO_STATS_DIAG"), "skip-netif");
	err = ugs_bpf__load(u->skel);
	if (err) {
		for (h = 0; h < UGS_NR_HOOKS; h++) {
			if (u->prog[h]) {
				u->hs[h] = UGS_HS_FAILED;
				u->herr[h] = err;
			}
		}
		return err;
	}
	n = 0;
	for (h = 0; h < UGS_NR_HOOKS; h++) {
		if (!u->prog[h])
			continue;
		u->link[h] = bpf_program__attach(u->prog[h]);
		if (u->link[h]) {
			u->hs[h] = UGS_HS_ATTACHED;
			u->herr[h] = 0;
			n++;
		} else {
			u->hs[h] = UGS_HS_FAILED;
			u->herr[h] = -errno;
		}
	}
	return n ? 0 : -ENOENT;
}

static void ugs_detach(struct ugs *u)
{
	int h;

	for (h = 0; h < UGS_NR_HOOKS; h++) {
		bpf_link__destroy(u->link[h]);
		u->link[h] = NULL;
	}
	ugs_bpf__destroy(u->skel);
	u->skel = NULL;
}

static bool ugs_no_fexit(void)
{
	return ugs_env_set("UDPGSO_STATS_NO_FEXIT");
}

int ugs_open(struct ugs *u, const struct ugs_filter *f, char *why, size_t len)
{
	__u64 r[UGS_NR_RANGES][2];
	struct btf *vml;
	int err = 0, h;
	bool rc;

	memset(u, 0, sizeof(*u));
	libbpf_set_print(ugs_libbpf_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len, "no kernel BTF (/sys/kernel/btf/vmlinux: %s)", strerror(errno));
		u->skip = true;
		return -ENOENT;
	}
	vml = btf__load_vmlinux_btf();
	if (!vml) {
		err = -errno;
		snprintf(why, len, "cannot read the kernel BTF: %s", strerror(-err));
		u->skip = true;
		return -ENOENT;
	}
	u->ncpus = libbpf_num_possible_cpus();
	if (getenv("UDPGSO_STATS_MARKS")) {
		const char *v = getenv("UDPGSO_STATS_MARKS");
		char *end;
		long n;

		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || !*v || *end || !isdigit((unsigned char)v[0]) || n < 1 || n > 1048576) {
			snprintf(why, len, "UDPGSO_STATS_MARKS '%s': allowed 1..1048576 (the GRO "
				 "marks map's entries)", v);
			btf__free(vml);
			return -EINVAL;
		}
		u->marks = (unsigned int)n;
	}
	/* UDPGSO_STATS_EMPTY=1 (bpf_bench.sh): the cost of the hooks alone */
	u->empty = ugs_env_set("UDPGSO_STATS_EMPTY");
	if (ugs_env_set("UDPGSO_STATS_DIAG")) {
		const char *v = getenv("UDPGSO_STATS_DIAG");

		if (strcmp(v, "1") && strcmp(v, "skip-netif")) {
			snprintf(why, len, "UDPGSO_STATS_DIAG '%s': allowed 0, 1, skip-netif", v);
			btf__free(vml);
			return -EINVAL;
		}
		u->diag = true;
	}
	ugs_find_ranges(r);
	/*
	 * the _rc twins where the kernel has bpf_rdonly_cast (else, or if they
	 * are refused, the others); fexit first, then the derived programs
	 */
	u->init_skip = ugs_init_skip(vml);
	rc = !ugs_env_set("UDPGSO_STATS_NO_RC") &&
	     btf__find_by_name_kind(vml, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	/* UDPGSO_STATS_NO_FEXIT=1: the derived counters even where fexit works */
	for (int pass = ugs_no_fexit() ? 2 : 0; pass < 4; pass++) {
		bool fexit = pass < 2, twin = !(pass & 1);

		if (twin && !rc)
			continue;
		u->skel = ugs_bpf__open();
		if (!u->skel) {
			err = -errno;
			break;
		}
		err = ugs_try(u, f, fexit, twin, vml, r);
		if (!err) {
			u->fexit = fexit;
			u->rc = twin;
			break;
		}
		ugs_detach(u);
		if (!fexit && !twin)
			break;
		/* the twins refused (not fexit's EPERM): the others, same mode */
		if (twin && err != -EPERM)
			continue;
		if (twin)
			pass++;
		/* the fexit attempt's outcome stays in `hooks` */
		for (h = 0; h < UGS_NR_HOOKS; h++) {
			if (h < UGS_H_SKB_GSO_SEGMENT || h > UGS_H_UDP6_GRO_COMPLETE) {
				u->hs[h] = UGS_HS_UNUSED;
				u->herr[h] = 0;
			}
		}
	}
	btf__free(vml);
	if (err) {
		/* the bpf() call refused (not the programs): the kernel or policy */
		u->skip = err == -EPERM || err == -EACCES || err == -ENOSYS;
		snprintf(why, len, "BPF programs did not load: %s%s%s", strerror(-err),
			 ugs_last_msg[0] ? ": libbpf: " : "", ugs_last_msg);
		why[strcspn(why, "\n")] = 0;
		return err;
	}
	if (ugs_no_fexit())
		for (h = UGS_H_SKB_GSO_SEGMENT; h <= UGS_H_UDP6_GRO_COMPLETE; h++)
			u->hnote[h] = "UDPGSO_STATS_NO_FEXIT set";
	ugs_sources(u, r);
	/* the programs count nothing: every counter unavailable */
	if (u->empty)
		ugs_set_src(u, 0, UGS_NR_COUNTERS - 1, UGS_SRC_NONE, NULL);
	return 0;
}

void ugs_close(struct ugs *u)
{
	if (u->skel)
		ugs_detach(u);
}

int ugs_read(struct ugs *u)
{
	size_t sz = (sizeof(struct ugs_stats) + 7) & ~7UL;
	struct ugs_stats *v;
	__u32 zero = 0;
	int cpu, i, j, err;

	v = calloc(u->ncpus, sz);
	if (!v)
		return -ENOMEM;
	err = bpf_map__lookup_elem(u->skel->maps.ugs_stats, &zero, sizeof(zero), v,
				   sz * u->ncpus, 0);
	if (!err) {
		memset(&u->sum, 0, sizeof(u->sum));
		for (cpu = 0; cpu < u->ncpus; cpu++) {
			const struct ugs_stats *p = (void *)((char *)v + cpu * sz);

			for (i = 0; i < UGS_NR_COUNTERS; i++)
				u->sum.cnt[i] += p->cnt[i];
			for (i = 0; i < UGS_NR_HIST; i++)
				for (j = 0; j <= UGS_HIST_MAX; j++)
					u->sum.hist[i][j] += p->hist[i][j];
		}
	}
	free(v);
	return err;
}

/* the kernel's count of runs of H's program it skipped (bpf_prog_info), 0 if none attached */
__u64 ugs_prog_misses(const struct ugs *u, int h)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (!u->link[h] || bpf_obj_get_info_by_fd(bpf_program__fd(u->prog[h]), &info, &len))
		return 0;
	return info.recursion_misses;
}

__u64 ugs_held_now(const struct ugs *u)
{
	const struct ugs_bpf__bss *b = u->skel->bss;
	/* out first: every mark taken out was put in before, so in >= out */
	__u64 out = __atomic_load_n(&b->ugs_held_out, __ATOMIC_SEQ_CST) - u->out0;
	__u64 in = __atomic_load_n(&b->ugs_held_in, __ATOMIC_SEQ_CST) - u->in0;

	return in > out ? in - out : 0;
}

int ugs_reset(struct ugs *u)
{
	size_t sz = (sizeof(struct ugs_stats) + 7) & ~7UL;
	__u32 zero = 0;
	void *v;
	int err;

	v = calloc(u->ncpus, sz);
	if (!v)
		return -ENOMEM;
	/* a tx pass queued before the reset is not un-counted after it */
	__atomic_add_fetch(&u->skel->bss->ugs_gen, 1, __ATOMIC_SEQ_CST);
	/* the kernel's recursion_misses only grow: counted from here */
	for (int h = 0; h < UGS_NR_HOOKS; h++)
		u->miss0[h] = ugs_prog_misses(u, h);
	/*
	 * marks put from here carry the new ugs_gen: a held mark of before is
	 * accounted apart (ugs_held_old_*), its run reported it
	 */
	u->out0 = __atomic_load_n(&u->skel->bss->ugs_held_out, __ATOMIC_SEQ_CST);
	u->in0 = __atomic_load_n(&u->skel->bss->ugs_held_in, __ATOMIC_SEQ_CST);
	u->skel->bss->ugs_held_lost = 0;
	u->skel->bss->ugs_held_old_out = 0;
	u->skel->bss->ugs_held_old_lost = 0;
	u->skel->bss->ugs_mark_put_errors = 0;
	u->skel->bss->ugs_mark_full = 0;
	u->skel->bss->ugs_mark_merged = 0;
	u->skel->bss->ugs_mark_del_errors = 0;
	memset(u->skel->bss->ugs_rej, 0, sizeof(u->skel->bss->ugs_rej));
	u->skel->bss->ugs_w_skbs = 0;
	u->skel->bss->ugs_w_gso = 0;
	u->skel->bss->ugs_read_unseen = 0;
	u->skel->bss->ugs_read_unseen_w = 0;
	u->skel->bss->ugs_late = 0;
	err = bpf_map__update_elem(u->skel->maps.ugs_stats, &zero, sizeof(zero), v,
				   sz * u->ncpus, BPF_ANY);
	free(v);
	return err;
}
