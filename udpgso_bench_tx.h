/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_bench_tx private declarations: what the send path
 * (udpgso_bench_tx.c) and the options, GSO probe, plans and results
 * (udpgso_bench_tx_cfg.c) share.  Not a library: one program, two files.
 */
#ifndef UDPGSO_BENCH_TX_H
#define UDPGSO_BENCH_TX_H

#include "udpgso_common.h"

#define MAX_SIZES	1024
#define MAX_DSTS	64
#define MAX_BATCH	1024

enum path { P_SENDTO, P_SENDMSG, P_SENDMMSG, P_TCP };

enum { E_CONNREFUSED, E_NOBUFS, E_AGAIN, E_ZC_MISSING, E_TS_MISSING, E_TS_ERRORS, E_NR };

struct tx_cfg {
	int family;
	bool audit, cache, mmsg, poll, tcp, tstamp, hw_ts, verbose, zerocopy;
	bool connected, json, seq, no_fallback, segment, sockopt;
	int cpu;
	long long runtime_s;		/* -1: until -M / --count / signal */
	int poll_loop_s;
	uint64_t msg_nr, count;
	int port, port_count;
	int payload_len;
	int gso_arg, gso_size, mss;
	int batch, iov_frames;
	long long sizes[MAX_SIZES];
	int nsizes;
	uint64_t txtime_Bps, pacing_Bps;
	int threads, sockets;
	struct sockaddr_storage dst[MAX_DSTS];
	socklen_t alen;
	int ndst;
	uint32_t flow_id;
	int max_segs_arg;
};

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

struct tx_gso {
	bool requested, active, fallback;
	int kernel_max;		/* probed limit, 0: unknown */
	int max_segs;		/* limit in use */
	int reported;
	char reason[192];
};

struct slot;

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
	uint64_t seq, next_tx, rate_Bps;
	uint64_t dg_quota, round_quota;
	/* counters: written by the owning thread, read by the reporter */
	uint64_t bytes, dgrams, calls, msgs, rounds;
	uint64_t err[E_NR];
	uint64_t zc_done, zc_copied, ts_ok, ts_err;
};

struct sum {
	uint64_t bytes, dgrams, calls, rounds, msgs, zc, zcc, ts_ok, ts_err, nerr;
	uint64_t err[E_NR];
	double dur, cpu_user, cpu_sys;
};

/* udpgso_bench_tx_cfg.c */
extern struct tx_cfg cfg;
extern struct tx_gso gso;
extern struct plan plan_gso, plan_plain;
/* the payload area: the pattern, then one GSO layout per segment size */
extern uint8_t *area;
extern size_t area_stride;
extern int nareas;

void parse_opts(int argc, char **argv);
void gso_setup(void);
void plans_build(void);
void area_build(void);
uint32_t layout_off(uint32_t g);
void json_summary(const struct sum *t);
int audit_report(const struct sum *t);

/* udpgso_bench_tx.c */
extern struct flow *flows;
extern int nflows;
extern int g_batch, g_pd;
extern bool g_grouped;

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
