/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_bench_rx private declarations: the options
 * (udpgso_bench_rx_opts.c), the receive side (udpgso_bench_rx.c: sockets,
 * worker threads, sequence accounting, the main thread's timeouts and
 * per-second lines) and the summary (udpgso_bench_rx_report.c: totals,
 * --json, one line per failed expectation).  Not a library: one program.
 */
#ifndef UDPGSO_BENCH_RX_H
#define UDPGSO_BENCH_RX_H

#include <pthread.h>

#include "udpgso_common.h"

#define RX_MSG_LEN	65536		/* one datagram, or one GRO read */
#define RX_TCP_LEN	(1 << 21)	/* upstream's TCP read size */
#define RX_RCVBUF_DEF	(1 << 21)	/* upstream's SO_RCVBUF */
#define RX_MAX_BUF	(1ull << 30)	/* all receive buffers together */
#define RX_MAX_CPUS	64
#define RX_CTRL_LEN	CMSG_SPACE(sizeof(int))
#define RX_TICK_MS	10
#define RX_NAP_US	20	/* an empty socket: nap this long, then read again */
#define RX_NAPS		50	/* naps in a row before poll() (about 1 ms) */
#define SEQ_WINDOW	(1ull << 26)	/* sequence numbers tracked exactly per flow */

enum rx_mode { MODE_RECV, MODE_RECVMSG, MODE_RECVMMSG };
extern const char *const rx_mode_names[];

enum rx_err { E_RECV, E_LEN, E_GSO, E_VERIFY, E_STAMP, E_TRUNC, E_DUP, E_COUNT, E_NR };

enum rx_stop { STOP_NONE, STOP_COUNT, STOP_CONNECT_TIMEOUT, STOP_IDLE_TIMEOUT,
	       STOP_SIGNAL, STOP_EOF };

/* the options: filled once by rx_parse_opts, read-only after */
struct rx_cfg {
	int family;
	long long port;
	const char *bind_str;
	struct sockaddr_storage bind_addr;
	socklen_t bind_len;
	long long connect_ms, rcv_ms;
	long long exp_len, exp_nr, exp_gso;	/* exp_gso: 0 off, -1 "no cmsg" */
	bool gro, read_all, verify, tcp, seq, json, poll_wait;
	bool kstamp;				/* the window by the kernel's receive stamps */
	int mode;
	int batch;
	int reuseport;
	int threads;				/* reading threads per socket */
	int nworkers;				/* reuseport x threads */
	int flows;
	long long rcvbuf;			/* 0: upstream's 2 MiB */
	int ncpus;
	long long cpus[RX_MAX_CPUS];
};

void rx_parse_opts(int argc, char **argv, struct rx_cfg *o);

/* per flow: which sequence numbers were seen, in a window that slides up */
struct flow {
	pthread_mutex_t lock;
	uint64_t *bits;
	uint64_t nwords;
	uint64_t base;			/* sequence number of bit 0, multiple of 64 */
	uint64_t highest;
	uint64_t distinct, dup, reorder;
	bool seen;
};

struct worker {
	int idx;
	int fd;
	pthread_t thread;
	char *buf;
	struct mmsghdr *msgs;
	struct iovec *iovs;
	char *ctrl;
	/* owned by the worker */
	uint64_t bytes, datagrams, reads, calls, gro_reads;
	uint64_t first_ns, last_ns;
	uint64_t kfirst_ns, klast_ns;	/* --kstamp: CLOCK_REALTIME, 0 when none */
	bool unstamped;			/* reads since last_ns was taken */
	unsigned int naps;		/* naps since the last read */
	uint64_t nap_count, polls;
	uint64_t err[E_NR];
	long long first_bad_len, first_bad_gso;
	int first_recv_errno;
	uint64_t bad_dgram;		/* first verify error: datagram index, offset, bytes */
	size_t bad_off, bad_len;
	int bad_got, bad_want;
	/* published for the main thread (relaxed atomics) */
	uint64_t pub_bytes, pub_calls;
	int started;
	char pad[64];
};

/* what the summary reads when the workers are done */
struct rx_view {
	const struct rx_cfg *cfg;
	const struct worker *workers;
	const struct flow *flows;
	int stop;			/* enum rx_stop: why the run ended */
};

/* add up, print --json, one stderr line per failed expectation; the error count */
uint64_t rx_report(const struct rx_view *v);

#endif
