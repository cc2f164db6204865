/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_bench_tx private declarations.  One program in five parts, each
 * with one job, passing its state on in the structs below:
 *
 *   options (udpgso_bench_tx_opts.c)   argv -> struct tx_cfg, read-only after
 *   plan    (udpgso_bench_tx_plan.c)   GSO probe, what one pass sends, the
 *                                      payload area -> struct tx_plan
 *   rings   (udpgso_bench_tx_ring.c)   per flow socket and ring of msghdrs
 *   send    (udpgso_bench_tx_send.c)   the send calls, the error queue, the
 *                                      threads -> counters in struct flow
 *   report  (udpgso_bench_tx_report.c) per-second lines, -a, --json
 *
 * main() in udpgso_bench_tx.c runs them in that order: tx_parse_opts,
 * tx_plan_build, tx_flows_setup, tx_run_init, tx_send, tx_flows_finish,
 * tx_report_audit / tx_report_json.  Calls go one way: send -> rings ->
 * plan (the layout offsets), send -> report (the per-second line); options
 * and report call no other part.  Not a library: one program.
 */
#ifndef UDPGSO_BENCH_TX_H
#define UDPGSO_BENCH_TX_H

#include "udpgso_common.h"

#define MAX_SIZES	1024
#define MAX_DSTS	64
#define MAX_BATCH	1024
#define MAX_IOVS	1024		/* UIO_MAXIOV */
#define PROBE_MAX	4096		/* GSO probe: most segments tried */
#define MAX_LAYOUTS	MAX_SIZES
#define NSEC		1000000000ull

/* ---- options: filled once by tx_parse_opts, then const ----------------- */

struct tx_cfg {
	int family;
	bool audit, cache, mmsg, poll, tcp, tstamp, hw_ts, verbose, zerocopy;
	bool connected, json, seq, no_fallback, segment, sockopt;
	int cpu;
	long long runtime_ms;		/* -l, in ms; -1: until -M / --count / signal */
	int poll_loop_s;
	uint64_t msg_nr, count;
	int port, port_count;
	int payload_len;		/* -s as given (the plan may cut it) */
	int max_payload;		/* largest UDP payload of the family */
	int mss;			/* of a 1500-byte MTU */
	int gso_arg, gso_size;		/* -S as given; in use (-S 0: mss) */
	int batch, iov_frames;		/* --batch (0: not given), --iov */
	long long sizes[MAX_SIZES];
	int nsizes;
	uint64_t txtime_Bps, pacing_Bps;
	int threads, sockets, nflows;	/* nflows = threads x sockets */
	struct sockaddr_storage dst[MAX_DSTS];
	socklen_t alen;
	int ndst;
	uint32_t flow_id;
	int max_segs_arg;		/* --max-segs, 0: not given */
	int sndbuf;			/* --sndbuf in bytes, 0: the socket's default */
};

void tx_parse_opts(int argc, char **argv, struct tx_cfg *cfg);

/* ---- plan: what one pass sends ----------------------------------------- */

/* one message of a plan: len bytes, sent as nseg datagrams of gso bytes */
struct pmsg {
	uint32_t len;
	uint16_t gso;		/* 0: a single datagram */
	uint16_t nseg;
	uint32_t dg_off;	/* datagrams before it in the plan */
};

struct plan {
	int n;
	uint32_t dgrams;
	struct pmsg *m;
};

struct tx_plan {
	/* GSO as the probe found it at start */
	bool gso_requested;	/* -S given */
	bool gso_active;	/* flows start with GSO on */
	bool gso_fallback;	/* the probe said no: plain sends from the start */
	char gso_reason[192];	/* why, when gso_fallback */
	int kernel_max;		/* probed segment limit, 0: unknown */
	/* the probe's own traffic (its loopback pair, in this netns): sends
	 * accepted, datagrams they carried, datagrams read back
	 */
	bool probed;
	unsigned int probe_sends, probe_segs, probe_reads;
	int max_segs;		/* limit in use */
	int payload_len;	/* -s, cut to max_segs x gso_size when needed */
	struct plan gso, plain;
	/* message layout */
	bool grouped;		/* one iovec group per datagram (--seq, --iov) */
	int pd;			/* iovecs per datagram when grouped */
	int batch;		/* messages per sendmmsg call (-m) */
	/* the payload area: the pattern, then one GSO layout per segment size */
	uint8_t *area;
	size_t area_stride;
	int nareas;		/* -c: copies to rotate over */
	struct { uint32_t gso, off, len; } layouts[MAX_LAYOUTS];
	int nlayouts;
};

void tx_plan_build(const struct tx_cfg *cfg, struct tx_plan *p);
/* offset in the area of the layout for segment size @g (0: the pattern) */
uint32_t tx_layout_off(const struct tx_plan *p, uint32_t g);

/* ---- rings and flows ----------------------------------------------------- */

enum path { P_SENDTO, P_SENDMSG, P_SENDMMSG, P_TCP };

enum { E_CONNREFUSED, E_NOBUFS, E_AGAIN, E_ZC_MISSING, E_TS_MISSING, E_TS_ERRORS, E_NR };

/* a ring slot: one msghdr */
struct slot {
	uint32_t len;
	uint16_t gso;
	uint16_t nseg;
	uint32_t iov0, niov;
	uint32_t dg0;
	uint32_t plan_idx;
};

struct flow {
	int idx, fd;
	uint32_t id;
	struct sockaddr_storage dst;
	enum path path;
	bool gso_on, done;
	int nslots, pos, area;
	struct slot *slots;
	struct mmsghdr *mm;
	struct iovec *iov;
	uint32_t *iov_off;
	uint8_t *ctrl, *stamps;
	void *name;
	socklen_t namelen;
	uint32_t tcp_off;
	int sndbuf;		/* SO_SNDBUF as the kernel set it */
	uint64_t seq, next_tx, rate_Bps;
	uint64_t dg_quota, round_quota;
	/* counters: written by the owning thread, read by the reporter */
	uint64_t bytes, dgrams, calls, msgs, rounds;
	uint64_t err[E_NR];
	uint64_t zc_done, zc_copied, ts_ok, ts_err;
};

/* iov_off of an iovec that does not point into the payload area */
#define NO_OFF		UINT32_MAX

/* the control buffer of one slot: SCM_TXTIME, UDP_SEGMENT, SO_TIMESTAMPING */
#define CTRL_LEN	(CMSG_SPACE(sizeof(uint64_t)) + CMSG_SPACE(sizeof(uint16_t)) + \
			 CMSG_SPACE(sizeof(uint32_t)))

/* nflows flows: sockets open, rings laid out */
struct flow *tx_flows_setup(const struct tx_cfg *cfg, const struct tx_plan *p);
/* (re)lay the ring of @f out from the GSO or plain plan (f->gso_on) */
void tx_ring_build(const struct tx_cfg *cfg, const struct tx_plan *p, struct flow *f);
void tx_set_pmtu(const struct tx_cfg *cfg, int fd, int val);

/* ---- report ---------------------------------------------------------------- */

/* the per-second lines: owned by the one thread that prints them */
struct tx_rep {
	uint64_t next, last, bytes, calls, rounds;
};

/* what was sent, added up at the end */
struct sum {
	uint64_t bytes, dgrams, calls, rounds, msgs, zc, zcc, ts_ok, ts_err;
	uint64_t err[E_NR];
	double dur, cpu_user, cpu_sys;
};

/* a run-time GSO failure: the first errno, 0 when none (atomic) */
struct tx_gso_state {
	int fallback_err;
};

void tx_report_start(struct tx_rep *r, uint64_t start_ns);
void tx_report_second(struct tx_rep *r, const struct tx_cfg *cfg, const struct flow *flows,
		      uint64_t now);
/* -a: upstream's summary lines; 1 when completions or timestamps are missing */
int tx_report_audit(const struct tx_cfg *cfg, const struct sum *t);
void tx_report_json(const struct tx_cfg *cfg, const struct tx_plan *p,
		    const struct tx_gso_state *g, const struct flow *flows, const struct sum *t);

/* ---- send --------------------------------------------------------------- */

struct tx_run {
	const struct tx_cfg *cfg;
	const struct tx_plan *plan;
	struct flow *flows;
	struct tx_gso_state gso;
	struct tx_rep rep;
	int flags;		/* MSG_ZEROCOPY or 0 */
	int clock_every;	/* send rounds between clock reads */
	bool round_is_pass;	/* -M counts passes of the plan (upstream's msgs) */
	uint64_t start_ns, deadline;
};

/* -C: pin the calling thread */
void tx_pin(int cpu);
void tx_run_init(struct tx_run *x, const struct tx_cfg *cfg, const struct tx_plan *p,
		 struct flow *flows);
/* send until -l, -M, --count or a signal; returns when the last flow stopped */
uint64_t tx_send(struct tx_run *x);
/* wait for the last completions and timestamps, close, add up */
void tx_flows_finish(struct tx_run *x, struct sum *t);

#endif
