/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats (BPF): load and attach the programs, with fexit where the
 * kernel allows it and counters derived from tracepoints where not; read,
 * reset and describe the counters.
 */
#ifndef _UGS_LOAD_H
#define _UGS_LOAD_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "ugs_shared.h"

struct ugs_bpf;
struct bpf_program;
struct bpf_link;

struct ugs_filter {
	enum ugs_filter_type type;
	unsigned int port;
	char dev[UGS_IFNAMSIZ];
	unsigned int netns;	/* dev: the network namespace (inode) it is in */
};

/* the hooks, in the order `hooks` lists them */
enum ugs_hook {
	UGS_H_NET_DEV_QUEUE,
	UGS_H_NET_DEV_START_XMIT,
	UGS_H_NET_DEV_XMIT,
	UGS_H_NAPI_GRO_RECEIVE_ENTRY,
	UGS_H_NAPI_GRO_FRAGS_ENTRY,
	UGS_H_NETIF_RECEIVE_SKB,
	UGS_H_UDP_FAIL_QUEUE_RCV_SKB,
	UGS_H_SKB_GSO_SEGMENT,
	UGS_H_UDP4_GRO_COMPLETE,
	UGS_H_UDP6_GRO_COMPLETE,
	UGS_H_CONSUME_SKB,
	UGS_H_KFREE_SKB,
	UGS_H_NAPI_GRO_RECEIVE_EXIT,	/* derived: marks of merged skbs deleted */
	UGS_H_NAPI_GRO_FRAGS_EXIT,
	/* UDPGSO_STATS_DIAG (issue 25): an observer beside the counting programs */
	UGS_H_NETIF_WITNESS,		/* a second netif_receive_skb program */
	/* GRO skbs a socket reads with their mark held: counted there (issue 25) */
	UGS_H_SKB_COPY_DATAGRAM,
	UGS_NR_HOOKS
};

struct ugs_hook_def {
	const char *kind;	/* tp_btf or fexit */
	const char *name;	/* tracepoint or function (as printed) */
	const char *tp;		/* the tracepoint, when the name is not it */
};
extern const struct ugs_hook_def ugs_hooks[UGS_NR_HOOKS];

enum ugs_hook_state {
	UGS_HS_UNUSED,		/* not needed in this mode */
	UGS_HS_ATTACHED,
	UGS_HS_NOT_FOUND,	/* not in the kernel's BTF (or no usable argument) */
	UGS_HS_FAILED,		/* load or attach error: err */
};

enum ugs_source {
	UGS_SRC_NONE,		/* unavailable on this kernel */
	UGS_SRC_DIRECT,		/* as the module counts it */
	UGS_SRC_DERIVED,	/* derived from tracepoints (fexit refused) */
};

struct ugs {
	struct ugs_bpf *skel;
	struct bpf_program *prog[UGS_NR_HOOKS];
	struct bpf_link *link[UGS_NR_HOOKS];
	int ncpus;
	bool fexit;		/* fexit programs in use (else derived counters) */
	bool skip;		/* ugs_open failed for lack of BTF or BPF: a KSFT skip */
	bool empty;		/* UDPGSO_STATS_EMPTY: programs that return at once */
	bool rc;		/* the _rc twins: gso fields through bpf_rdonly_cast */
	bool init_skip;		/* the kernel runs no tracing program while tgid 1 runs */
	bool diag;		/* UDPGSO_STATS_DIAG: the issue 25 observers loaded */
	unsigned int marks;	/* UDPGSO_STATS_MARKS: the marks map's size (0: default) */
	enum ugs_hook_state hs[UGS_NR_HOOKS];
	int herr[UGS_NR_HOOKS];
	const char *hnote[UGS_NR_HOOKS];
	enum ugs_source src[UGS_NR_COUNTERS];
	const char *how[UGS_NR_COUNTERS];
	struct ugs_stats sum;	/* ugs_read() fills it */
	/* each program's recursion_misses at the last reset (the kernel's count is cumulative) */
	__u64 miss0[UGS_NR_HOOKS];
	/*
	 * ugs_held_in and ugs_held_out at the last reset: after it, both count
	 * only marks put since (ugs_mark.gen)
	 */
	__u64 in0, out0;
};

/*
 * what the counters may be missing since the last reset: program runs the
 * kernel skipped (recursion_misses, per program), GRO mark updates that
 * failed, and the filter's skbs that entered GRO and were not seen at
 * netif_receive_skb (neither merged away nor counted there: GRO still holds
 * them, dropped them, or the kernel did not run our program on them)
 */
struct ugs_skips {
	__u64 miss[UGS_NR_HOOKS];
	__u64 misses;		/* their sum */
	__u64 put_errors;	/* mark updates refused, */
	__u64 full;		/* of which the map was full */
	__u64 unseen;		/* GRO skbs not seen at netif_receive_skb */
	__u64 late;		/* (not a skip) GRO skbs counted at a socket read instead */
};

extern const char * const ugs_counter_names[UGS_NR_COUNTERS];
extern const char * const ugs_rej_names[UGS_NR_REJ];

/*
 * 0 attached (at least the tracepoints), else -errno with a one-line reason
 * in why, and u->skip set when the kernel lacks BTF or refuses bpf() itself
 */
int ugs_open(struct ugs *u, const struct ugs_filter *f, char *why, size_t len);
void ugs_close(struct ugs *u);
/* the kernel's count of runs of H's program it skipped (bpf_prog_info), 0 if none attached */
__u64 ugs_prog_misses(const struct ugs *u, int h);
/*
 * the filter's GRO skbs whose marks, put since the last reset, are held now
 * (not merged, not seen at netif_receive_skb)
 */
__u64 ugs_held_now(const struct ugs *u);
int ugs_read(struct ugs *u);
int ugs_reset(struct ugs *u);
void ugs_print_hooks(const struct ugs *u, FILE *out);
/* "name value" lines of what is available, "# unavailable: ..." for the rest */
void ugs_print_counters(const struct ugs *u, const __u64 *cnt, FILE *out);
/*
 * "# gro marks: ..." (the GRO marks' health: put errors, marks refused) and
 * "# rejected: NAME N ..." (enum ugs_rej: why what GRO built was not counted)
 */
void ugs_print_marks(const struct ugs *u, FILE *out);
void ugs_print_hist(const struct ugs *u, const struct ugs_stats *s, FILE *out);
void ugs_print_json(const struct ugs *u, const struct ugs_stats *s, FILE *out);
const char *ugs_mode(const struct ugs *u);
void ugs_print_prog_stats(const struct ugs *u, FILE *out);
/* the skips since the last reset; their total (0: the counters are complete) */
__u64 ugs_skips(const struct ugs *u, struct ugs_skips *k);
/* "# skipped: ..." and a "# skipped prog NAME recursion_misses N" line per program that missed */
void ugs_print_skips(const struct ugs *u, FILE *out);
/* "# prog NAME id N run_cnt N recursion_misses N" per attached program (hooks) */
void ugs_print_progs(const struct ugs *u, FILE *out);
/*
 * with UDPGSO_STATS_DIAG: "# diag: netif_receive_skb witness rx_skbs N udp_gso_skbs N,
 * read by a socket unseen at netif_receive_skb N" (since the last reset)
 */
void ugs_print_diag(const struct ugs *u, FILE *out);

#endif /* _UGS_LOAD_H */
