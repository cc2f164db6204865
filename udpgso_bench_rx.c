// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_rx: the receive side of the udpgso benchmarks.
 *
 * Flag-compatible with the kernel selftest of the same name
 * (tools/testing/selftests/net/udpgso_bench_rx.c): -4 -b -C -G -l -n -p -r
 * -R -S -t -v keep their letters and meanings; -6 (the default family) is
 * accepted so that tx and rx take the same family flag.  Beyond upstream:
 * recvmsg and recvmmsg, UDP_GRO reads split back into datagrams,
 * SO_REUSEPORT groups with one thread per socket, sequence-stamp accounting
 * (loss, duplicates, reordering per flow) and a JSON summary.  See README.md.
 *
 * Threads: one worker per socket reads; the main thread sleeps in 10 ms
 * ticks, prints upstream's per-second lines, runs the -C/-R timeouts and
 * handles SIGINT/SIGTERM.  Everyone stops through one eventfd.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "udpgso_common.h"

#define RX_MSG_LEN	65536		/* one datagram, or one GRO read */
#define RX_TCP_LEN	(1 << 21)	/* upstream's TCP read size */
#define RX_RCVBUF_DEF	(1 << 21)	/* upstream's SO_RCVBUF */
#define RX_MAX_BUF	(1ull << 30)	/* all receive buffers together */
#define RX_MAX_CPUS	64
#define RX_CTRL_LEN	CMSG_SPACE(sizeof(int))
#define RX_TICK_MS	10
#define SEQ_WINDOW	(1ull << 26)	/* sequence numbers tracked exactly per flow */

enum rx_mode { MODE_RECV, MODE_RECVMSG, MODE_RECVMMSG };
static const char *const mode_names[] = { "recv", "recvmsg", "recvmmsg", NULL };

enum rx_err { E_RECV, E_LEN, E_GSO, E_VERIFY, E_STAMP, E_TRUNC, E_DUP, E_COUNT, E_NR };
static const char *const err_names[E_NR] = {
	"recv", "len", "gso_size", "verify", "stamp", "truncated", "dup", "count",
};

enum rx_stop { STOP_NONE, STOP_COUNT, STOP_CONNECT_TIMEOUT, STOP_IDLE_TIMEOUT,
	       STOP_SIGNAL, STOP_EOF };
static const char *const stop_names[] = {
	"running", "-n reached", "connect timeout (-C)", "receive timeout (-R)",
	"signal", "end of TCP stream",
};

/* the options: filled once by parse_opts, read-only after (through cfg) */
struct rx_cfg {
	int family;
	long long port;
	const char *bind_str;
	struct sockaddr_storage bind_addr;
	socklen_t bind_len;
	long long connect_ms, rcv_ms;
	long long exp_len, exp_nr, exp_gso;	/* exp_gso: 0 off, -1 "no cmsg" */
	bool gro, read_all, verify, tcp, seq, json;
	int mode;
	int batch;
	int reuseport;
	int flows;
	long long rcvbuf;			/* 0: upstream's 2 MiB */
	int ncpus;
	long long cpus[RX_MAX_CPUS];
};

static const struct rx_cfg rx_defaults = {
	.family = AF_INET6, .port = 8000, .mode = MODE_RECV, .batch = 64,
	.reuseport = 1, .flows = 1,
};

static const struct rx_cfg *cfg;

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

static struct worker *workers;
static struct flow *flows;
static int g_efd = -1;
static int g_stop;
static uint64_t g_reads;		/* reads so far, for -n across threads */

static void rx_stop(int reason)
{
	int none = STOP_NONE, saved = errno;
	uint64_t one = 1;
	ssize_t n;

	__atomic_compare_exchange_n(&g_stop, &none, reason, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	/* a failed write means the counter is already non-zero: readable */
	n = write(g_efd, &one, sizeof(one));
	(void)n;
	errno = saved;
}

static inline bool stopping(void)
{
	return __atomic_load_n(&g_stop, __ATOMIC_RELAXED) != STOP_NONE;
}

static void on_signal(int sig)
{
	(void)sig;
	rx_stop(STOP_SIGNAL);
}

/* ---- options ----------------------------------------------------------- */

#define RX_USAGE "[-4|-6] [-b addr] [-C ms] [-G] [-l len] [-n nr] [-p port] [-r] " \
	"[-R ms] [-S gso_size] [-t] [-v] [--json] [--mode recv|recvmsg|recvmmsg] " \
	"[--batch N] [--reuseport N] [--seq] [--flows N] [--rcvbuf BYTES] [--cpu LIST]"

static void __attribute__((noreturn)) usage_die(const char *what)
{
	ug_die(1, "%s; usage: %s " RX_USAGE, what, ug_prog);
}

enum {
	OPT_JSON = 256, OPT_MODE, OPT_BATCH, OPT_REUSEPORT, OPT_SEQ, OPT_FLOWS,
	OPT_RCVBUF, OPT_CPU,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "reuseport", required_argument, NULL, OPT_REUSEPORT },
	{ "seq", no_argument, NULL, OPT_SEQ },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void parse_opts(int argc, char **argv, struct rx_cfg *o)
{
	const char *len_arg = NULL, *gso_arg = NULL;
	bool mode_set = false, batch_set = false;
	long ncpu_conf;
	char what[128];
	int c, i;

	*o = rx_defaults;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":46b:C:Ghl:n:p:rR:S:tv", long_opts,
				NULL)) != -1) {
		switch (c) {
		case '4':
			o->family = AF_INET;
			break;
		case '6':	/* not upstream's (its default), as tx's -6 */
			o->family = AF_INET6;
			break;
		case 'b':
			o->bind_str = optarg;
			break;
		case 'C':
			o->connect_ms = ug_parse_ll("-C", optarg, 0, 86400000);
			break;
		case 'G':
			o->gro = true;
			break;
		case 'l':
			len_arg = optarg;
			o->exp_len = ug_parse_ll("-l", optarg, 1, UG_MAX_UDP6);
			break;
		case 'n':
			o->exp_nr = ug_parse_ll("-n", optarg, 0, 1000000000000ll);
			break;
		case 'p':
			o->port = ug_parse_ll("-p", optarg, 1, 65535);
			break;
		case 'r':
			o->read_all = true;
			break;
		case 'R':
			o->rcv_ms = ug_parse_ll("-R", optarg, 0, 86400000);
			break;
		case 'S':
			gso_arg = optarg;
			o->exp_gso = ug_parse_ll("-S", optarg, -1, UG_MAX_UDP6);
			break;
		case 't':
			o->tcp = true;
			break;
		case 'v':
			o->verify = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_MODE:
			o->mode = ug_parse_choice("--mode", optarg, mode_names);
			mode_set = true;
			break;
		case OPT_BATCH:
			o->batch = ug_parse_ll("--batch", optarg, 1, 1024);
			batch_set = true;
			break;
		case OPT_REUSEPORT:
			o->reuseport = ug_parse_ll("--reuseport", optarg, 1, 64);
			break;
		case OPT_SEQ:
			o->seq = true;
			break;
		case OPT_FLOWS:
			o->flows = ug_parse_ll("--flows", optarg, 1, 65536);
			o->seq = true;
			break;
		case OPT_RCVBUF:
			o->rcvbuf = ug_parse_ll_suffix("--rcvbuf", optarg, 1024,
							1ll << 30);
			break;
		case OPT_CPU:
			ncpu_conf = sysconf(_SC_NPROCESSORS_CONF);
			if (ncpu_conf < 1)
				ncpu_conf = 1;
			o->ncpus = ug_parse_list("--cpu", optarg, 0, ncpu_conf - 1,
						  o->cpus, RX_MAX_CPUS);
			break;
		case 'h':
			printf("usage: %s " RX_USAGE "\n", ug_prog);
			exit(0);
		case ':':
			snprintf(what, sizeof(what), "%s: missing value",
				 argv[optind - 1]);
			usage_die(what);
		default:
			if (optopt)
				snprintf(what, sizeof(what), "unknown option '-%c'", optopt);
			else
				snprintf(what, sizeof(what), "unknown option '%s'",
					 argv[optind - 1]);
			usage_die(what);
		}
	}
	if (optind != argc) {
		snprintf(what, sizeof(what), "unexpected argument '%s'", argv[optind]);
		usage_die(what);
	}

	/* the largest UDP payload depends on the family */
	if (len_arg)
		o->exp_len = ug_parse_ll("-l", len_arg, 1, ug_max_udp_payload(o->family));
	if (gso_arg)
		o->exp_gso = ug_parse_ll("-S", gso_arg, -1, ug_max_udp_payload(o->family));
	if (o->seq || o->verify)
		o->read_all = true;

	if (o->tcp) {
		ug_die_if(o->gro, "-t and -G conflict: UDP_GRO is a UDP socket option");
		ug_die_if(o->exp_len || o->exp_gso,
			 "-t conflicts with -l and -S (TCP has no datagrams)");
		ug_die_if(o->verify || o->seq,
			 "-t conflicts with -v and --seq (a byte stream has no datagram "
			 "boundaries to verify)");
		ug_die_if(mode_set && o->mode != MODE_RECV,
			 "-t reads with --mode recv only");
		ug_die_if(batch_set, "-t conflicts with --batch (recvmmsg is for UDP)");
		ug_die_if(o->reuseport > 1, "-t conflicts with --reuseport (one connection)");
	}
	if (!mode_set)
		o->mode = batch_set ? MODE_RECVMMSG :
			   (o->gro || o->exp_gso) ? MODE_RECVMSG : MODE_RECV;
	ug_die_if(o->mode == MODE_RECV && o->gro,
		 "-G needs --mode recvmsg or recvmmsg (the gso_size cmsg)");
	ug_die_if(o->mode == MODE_RECV && o->exp_gso,
		 "-S needs --mode recvmsg or recvmmsg (the gso_size cmsg)");
	ug_die_if(batch_set && o->mode != MODE_RECVMMSG, "--batch needs --mode recvmmsg");
	if (o->mode != MODE_RECVMMSG)
		o->batch = 1;
	if (o->read_all && (unsigned long long)o->batch * RX_MSG_LEN * o->reuseport >
	    RX_MAX_BUF)
		ug_die(1, "--batch %d x --reuseport %d x 64 KiB buffers: more than 1 GiB, "
		       "allowed batch x reuseport <= 16384", o->batch, o->reuseport);

	if (o->bind_str)
		o->bind_len = ug_parse_addr("-b", o->bind_str, o->family,
					     o->port, &o->bind_addr);
	else
		o->bind_len = ug_any_addr(o->family, o->port, &o->bind_addr);
	for (i = 0; i < o->ncpus; i++)
		if (o->cpus[i] >= CPU_SETSIZE)
			ug_die(1, "--cpu %lld: out of range", o->cpus[i]);
}

/* ---- sequence numbers ---------------------------------------------------- */

static void flow_grow(struct flow *f, uint64_t need)
{
	uint64_t n = f->nwords ? f->nwords : 64, *bits;

	while (n < need)
		n *= 2;
	if (n > SEQ_WINDOW / 64)
		n = SEQ_WINDOW / 64;
	bits = realloc(f->bits, n * sizeof(*bits));
	if (!bits)
		ug_die_errno(1, "sequence bitmap");
	memset(bits + f->nwords, 0, (n - f->nwords) * sizeof(*bits));
	f->bits = bits;
	f->nwords = n;
}

/*
 * Exact within SEQ_WINDOW sequence numbers below the highest one seen: a
 * number seen before is a duplicate; a new one below the highest is
 * reordered; loss is what never arrived below the highest.  An arrival
 * older than the window counts as reordered (it cannot be told from a dup).
 */
static void flow_record(struct flow *f, uint64_t s)
{
	uint64_t off, w, bit;

	if (s < f->base) {
		f->distinct++;
		f->reorder++;
		return;
	}
	off = s - f->base;
	if (off >= SEQ_WINDOW) {
		uint64_t shift = (off - SEQ_WINDOW / 2) / 64;

		if (shift >= f->nwords) {
			memset(f->bits, 0, f->nwords * sizeof(*f->bits));
		} else {
			memmove(f->bits, f->bits + shift,
				(f->nwords - shift) * sizeof(*f->bits));
			memset(f->bits + f->nwords - shift, 0, shift * sizeof(*f->bits));
		}
		f->base += shift * 64;
		off = s - f->base;
	}
	w = off / 64;
	bit = 1ull << (off % 64);
	if (w >= f->nwords)
		flow_grow(f, w + 1);
	if (f->bits[w] & bit) {
		f->dup++;
		return;
	}
	f->bits[w] |= bit;
	f->distinct++;
	if (f->seen && s < f->highest) {
		f->reorder++;
	} else {
		f->highest = s;
		f->seen = true;
	}
}

/* ---- per datagram -------------------------------------------------------- */

static void verify_fail(struct worker *w, const uint8_t *p, size_t start, size_t len)
{
	size_t i;

	if (!w->err[E_VERIFY]++) {
		w->bad_dgram = w->datagrams;
		w->bad_len = len;
		w->bad_off = len;
		w->bad_got = w->bad_want = -1;
		for (i = start; i < len; i++) {
			if (p[i] != ug_pattern[i]) {
				w->bad_off = i;
				w->bad_got = p[i];
				w->bad_want = ug_pattern[i];
				break;
			}
		}
	}
}

static void rx_datagram(struct worker *w, const uint8_t *p, size_t len)
{
	uint32_t id;
	uint64_t seq;

	if (!cfg->seq) {
		/* upstream refuses an empty datagram under -v */
		if (!len || ug_check_pattern(p, 0, len))
			verify_fail(w, p, 0, len);
		return;
	}
	if (ug_read_stamp(p, len, &id, &seq) || id >= (uint32_t)cfg->flows) {
		w->err[E_STAMP]++;
		return;
	}
	if (len > (size_t)UG_HDR_LEN &&
	    ug_check_pattern(p + UG_HDR_LEN, UG_HDR_LEN, len - UG_HDR_LEN))
		verify_fail(w, p, UG_HDR_LEN, len);
	if (cfg->reuseport > 1) {
		pthread_mutex_lock(&flows[id].lock);
		flow_record(&flows[id], seq);
		pthread_mutex_unlock(&flows[id].lock);
	} else {
		flow_record(&flows[id], seq);
	}
}

/*
 * One read of @len bytes (the full length: MSG_TRUNC), @gso the UDP_GRO
 * cmsg or -1.  -l and -S apply to the read, as upstream's; a GRO read is
 * split into gso_size datagrams (the last may be shorter) for counting,
 * stamps and verification.
 */
static void rx_read(struct worker *w, const uint8_t *p, size_t len, size_t cap, int gso)
{
	size_t seg, off = 0, l;
	bool data = cfg->read_all;

	w->reads++;
	w->bytes += len;
	if (gso > 0)
		w->gro_reads++;
	if (cfg->exp_gso && gso != cfg->exp_gso && !w->err[E_GSO]++)
		w->first_bad_gso = gso;
	if (cfg->exp_len && (long long)len != cfg->exp_len && !w->err[E_LEN]++)
		w->first_bad_len = len;
	if (data && len > cap) {
		w->err[E_TRUNC]++;
		data = false;
	}
	if (!data) {
		w->datagrams += gso > 0 && len ? (len + gso - 1) / gso : 1;
		return;
	}
	seg = gso > 0 ? (size_t)gso : len;
	do {
		l = len - off < seg ? len - off : seg;
		if (cfg->verify || cfg->seq)
			rx_datagram(w, p + off, l);
		w->datagrams++;
		off += l;
	} while (off < len);
}

/* ---- the read loops ------------------------------------------------------ */

/* wait until @fd is readable: 0, or -1 when asked to stop */
static int rx_wait(int fd)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = g_efd, .events = POLLIN },
	};

	while (!stopping()) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ug_die_errno(1, "poll");
		}
		if (pfd[1].revents)
			break;
		if (pfd[0].revents)
			return 0;
	}
	return -1;
}

/* a failed read: 0 to go on, -1 to stop */
static int rx_fail(struct worker *w)
{
	switch (errno) {
	case EAGAIN:
		return rx_wait(w->fd);
	case EINTR:
		return 0;
	case EBADF: case EFAULT: case EINVAL: case ENOTSOCK:
		ug_die_errno(1, "socket %d: read", w->idx);
	default:
		if (!w->err[E_RECV]++)
			w->first_recv_errno = errno;
		return 0;
	}
}

/* reads still allowed by -n, at most @max */
static unsigned int rx_budget(unsigned int max)
{
	uint64_t done;

	if (!cfg->exp_nr)
		return max;
	done = __atomic_load_n(&g_reads, __ATOMIC_RELAXED);
	if (done >= (uint64_t)cfg->exp_nr)
		return 0;
	return (uint64_t)cfg->exp_nr - done < max ? (uint64_t)cfg->exp_nr - done : max;
}

/* after a call that returned @n reads, taken at @t0 (0 once started) */
static void rx_account(struct worker *w, uint64_t t0, unsigned int n)
{
	w->calls++;
	w->last_ns = ug_now_ns();
	if (!w->first_ns) {
		w->first_ns = t0;
		__atomic_store_n(&w->started, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&w->pub_bytes, w->bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&w->pub_calls, w->calls, __ATOMIC_RELAXED);
	if (cfg->exp_nr && __atomic_add_fetch(&g_reads, n, __ATOMIC_RELAXED) >=
	    (uint64_t)cfg->exp_nr)
		rx_stop(STOP_COUNT);
}

/* one receive call of the configured kind: how many messages, or -1 */
static int rx_call(struct worker *w, unsigned int vlen)
{
	ssize_t r;

	switch (cfg->mode) {
	case MODE_RECV:
		r = recv(w->fd, w->iovs[0].iov_base, w->iovs[0].iov_len,
			 MSG_TRUNC | MSG_DONTWAIT);
		break;
	case MODE_RECVMSG:
		r = recvmsg(w->fd, &w->msgs[0].msg_hdr, MSG_TRUNC | MSG_DONTWAIT);
		break;
	default:
		return recvmmsg(w->fd, w->msgs, vlen, MSG_TRUNC | MSG_DONTWAIT, NULL);
	}
	if (r < 0)
		return -1;
	w->msgs[0].msg_len = r;
	return 1;
}

static void loop_udp(struct worker *w)
{
	size_t cap = cfg->read_all ? RX_MSG_LEN : 0;
	bool cm = cfg->gro || cfg->exp_gso;
	unsigned int vlen;
	uint64_t t0;
	int i, r;

	for (i = 0; i < cfg->batch; i++) {
		struct msghdr *m = &w->msgs[i].msg_hdr;

		w->iovs[i].iov_base = w->buf + i * cap;
		w->iovs[i].iov_len = cap;
		m->msg_iov = &w->iovs[i];
		m->msg_iovlen = 1;
		m->msg_control = cm ? w->ctrl + i * RX_CTRL_LEN : NULL;
	}
	while (!stopping() && (vlen = rx_budget(cfg->batch))) {
		if (cm)
			for (i = 0; i < (int)vlen; i++)
				w->msgs[i].msg_hdr.msg_controllen = RX_CTRL_LEN;
		t0 = w->first_ns ? 0 : ug_now_ns();
		r = rx_call(w, vlen);
		if (r < 0) {
			if (rx_fail(w))
				break;
			continue;
		}
		for (i = 0; i < r; i++)
			rx_read(w, (uint8_t *)w->iovs[i].iov_base, w->msgs[i].msg_len, cap,
				cm ? ug_cmsg_gro_size(&w->msgs[i].msg_hdr) : -1);
		rx_account(w, t0, r);
	}
}

/* TCP, as upstream: one connection; without -r the data is dropped unread */
static void loop_tcp(struct worker *w)
{
	int lfd = w->fd, flags = MSG_DONTWAIT | (cfg->read_all ? 0 : MSG_TRUNC);
	void *buf = cfg->read_all ? w->buf : NULL;
	uint64_t t0;
	ssize_t r;

	for (;;) {
		if (rx_wait(lfd))
			return;
		w->fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (w->fd >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
			ug_die_errno(1, "accept");
	}
	close(lfd);
	__atomic_store_n(&w->started, 1, __ATOMIC_RELAXED);
	while (!stopping() && rx_budget(1)) {
		t0 = w->first_ns ? 0 : ug_now_ns();
		r = recv(w->fd, buf, RX_TCP_LEN, flags);
		if (r < 0) {
			if (rx_fail(w))
				break;
			continue;
		}
		if (!r) {
			rx_stop(STOP_EOF);
			break;
		}
		w->reads++;
		w->datagrams++;
		w->bytes += r;
		rx_account(w, t0, 1);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	if (cfg->tcp)
		loop_tcp(w);
	else
		loop_udp(w);
	return NULL;
}

/* ---- setup ----------------------------------------------------------------- */

static int rx_socket(void)
{
	int fd, one = 1, zero = 0, val;
	char addr[80];

	fd = socket(cfg->family, (cfg->tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	if (cfg->rcvbuf) {
		val = cfg->rcvbuf;
		/* FORCE passes net.core.rmem_max when we may */
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &val, sizeof(val)) &&
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)))
			ug_die_errno(1, "--rcvbuf %lld: setsockopt", cfg->rcvbuf);
	} else {
		val = RX_RCVBUF_DEF;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)))
			ug_die_errno(1, "setsockopt SO_RCVBUF");
	}
	/* upstream sets SO_REUSEPORT on every socket; only a group needs it */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) &&
	    cfg->reuseport > 1) {
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP)
			ug_skip("SO_REUSEPORT not supported by kernel %s",
				ug_kernel_release());
		ug_die_errno(1, "setsockopt SO_REUSEPORT");
	}
	/* the default IPv6 socket is dual-stack, whatever bindv6only says */
	if (cfg->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&cfg->bind_addr, cfg->bind_len))
		ug_die_errno(1, "bind %s", ug_addr_str(&cfg->bind_addr, addr, sizeof(addr)));
	if (cfg->gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one))) {
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP)
			ug_skip("UDP_GRO not supported by kernel %s", ug_kernel_release());
		ug_die_errno(1, "setsockopt UDP_GRO");
	}
	if (cfg->tcp && listen(fd, 1))
		ug_die_errno(1, "listen");
	return fd;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		ug_die_errno(1, "out of memory");
	return p;
}

static void worker_init(struct worker *w, int idx, int fd)
{
	size_t buflen;

	w->idx = idx;
	w->fd = fd;
	if (cfg->tcp)
		buflen = cfg->read_all ? RX_TCP_LEN : 1;
	else
		buflen = cfg->read_all ? (size_t)cfg->batch * RX_MSG_LEN : 1;
	w->buf = xcalloc(1, buflen);
	memset(w->buf, 0, buflen);	/* fault the pages in before the clock runs */
	w->msgs = xcalloc(cfg->batch, sizeof(*w->msgs));
	w->iovs = xcalloc(cfg->batch, sizeof(*w->iovs));
	w->ctrl = xcalloc(cfg->batch, RX_CTRL_LEN);
}

static void start_workers(void)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int i, err;

	for (i = 0; i < cfg->reuseport; i++) {
		pthread_attr_init(&attr);
		if (cfg->ncpus) {
			CPU_ZERO(&set);
			CPU_SET(cfg->cpus[i % cfg->ncpus], &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		err = pthread_create(&workers[i].thread, &attr, worker_main, &workers[i]);
		pthread_attr_destroy(&attr);
		if (err) {
			errno = err;
			if (cfg->ncpus)
				ug_die_errno(1, "--cpu %lld: thread %d", cfg->cpus[i % cfg->ncpus], i);
			ug_die_errno(1, "pthread_create");
		}
	}
}

/* ---- main thread: timeouts and the per-second lines ---------------------- */

static void monitor(void)
{
	uint64_t start = ug_now_ns(), now, last_prog = start, last_rep = start;
	uint64_t calls, bytes, prev_calls = 0, rep_calls = 0, rep_bytes = 0;
	struct pollfd pfd = { .fd = g_efd, .events = POLLIN };
	bool started = false, any;
	int i;

	while (!stopping()) {
		poll(&pfd, 1, RX_TICK_MS);
		now = ug_now_ns();
		calls = bytes = 0;
		any = false;
		for (i = 0; i < cfg->reuseport; i++) {
			calls += __atomic_load_n(&workers[i].pub_calls, __ATOMIC_RELAXED);
			bytes += __atomic_load_n(&workers[i].pub_bytes, __ATOMIC_RELAXED);
			any |= __atomic_load_n(&workers[i].started, __ATOMIC_RELAXED);
		}
		if (calls != prev_calls) {
			prev_calls = calls;
			last_prog = now;
		}
		/* -C: the wait for the first datagram (TCP: the connection) */
		if (!started && (any || calls)) {
			started = true;
			last_prog = now;
		}
		if (!started && cfg->connect_ms &&
		    now - start >= (uint64_t)cfg->connect_ms * 1000000)
			rx_stop(STOP_CONNECT_TIMEOUT);
		/* -R: the longest pause between reads after that */
		if (started && cfg->rcv_ms && now - last_prog >= (uint64_t)cfg->rcv_ms * 1000000)
			rx_stop(STOP_IDLE_TIMEOUT);
		/* upstream prints these only without -n */
		if (!cfg->exp_nr && now - last_rep >= 1000000000ull) {
			if (calls != rep_calls)
				ug_rate_line(cfg->tcp ? "tcp" : "udp", "rx", bytes - rep_bytes,
					     calls - rep_calls, -1);
			rep_calls = calls;
			rep_bytes = bytes;
			last_rep = now;
		}
	}
}

/* ---- summary ---------------------------------------------------------------- */

struct totals {
	uint64_t bytes, datagrams, reads, calls, gro_reads, first_ns, last_ns;
	uint64_t err[E_NR], errors;
	uint64_t loss, dup, reorder, flows_seen;
	double duration;
};

static void sum_up(struct totals *t)
{
	int i, e;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < cfg->reuseport; i++) {
		struct worker *w = &workers[i];

		t->bytes += w->bytes;
		t->datagrams += w->datagrams;
		t->reads += w->reads;
		t->calls += w->calls;
		t->gro_reads += w->gro_reads;
		for (e = 0; e < E_NR; e++)
			t->err[e] += w->err[e];
		if (w->first_ns && (!t->first_ns || w->first_ns < t->first_ns))
			t->first_ns = w->first_ns;
		if (w->last_ns > t->last_ns)
			t->last_ns = w->last_ns;
	}
	for (i = 0; cfg->seq && i < cfg->flows; i++) {
		struct flow *f = &flows[i];

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
		t->duration = (t->last_ns - t->first_ns) / 1e9;
}

static void print_json(const struct totals *t)
{
	struct ug_totals tot = { .err_names = err_names, .err = t->err, .nerr = E_NR };
	double user, sys;
	struct ug_json j;
	int i;

	ug_cpu_usage(&user, &sys);
	ug_json_head(&j, "udpgso_bench_rx", cfg->family, cfg->tcp, mode_names[cfg->mode]);

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
	ug_json_bool(&j, "seq", cfg->seq);
	ug_json_i64(&j, "flows", cfg->seq ? cfg->flows : 0);
	ug_json_i64(&j, "rcvbuf", cfg->rcvbuf ? cfg->rcvbuf : RX_RCVBUF_DEF);
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

	ug_json_u64(&j, "reads", t->reads);
	ug_json_u64(&j, "gro_reads", t->gro_reads);
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
		ug_json_obj_open(&j, NULL);
		ug_json_i64(&j, "index", i);
		ug_json_u64(&j, "datagrams", workers[i].datagrams);
		ug_json_u64(&j, "bytes", workers[i].bytes);
		ug_json_u64(&j, "reads", workers[i].reads);
		ug_json_obj_close(&j);
	}
	ug_json_arr_close(&j);
	ug_json_obj_close(&j);
	ug_json_end(&j);
}

/* the first worker that saw error @e */
static struct worker *first_with(int e)
{
	int i;

	for (i = 0; i < cfg->reuseport; i++)
		if (workers[i].err[e])
			return &workers[i];
	return &workers[0];
}

/* one line per failed expectation on stderr */
static void report_failures(const struct totals *t)
{
	struct worker *w;

	if (t->err[E_COUNT])
		fprintf(stderr, "%s: -n: wrong number of reads, got %llu, expected %lld "
			"(stopped by %s)\n", ug_prog, (unsigned long long)t->reads,
			cfg->exp_nr, stop_names[g_stop]);
	if (t->err[E_LEN])
		fprintf(stderr, "%s: -l: %llu reads with a bad length, first %lld, "
			"expected %lld\n", ug_prog, (unsigned long long)t->err[E_LEN],
			first_with(E_LEN)->first_bad_len, cfg->exp_len);
	if (t->err[E_GSO])
		fprintf(stderr, "%s: -S: %llu reads with a bad gso size, first %lld, "
			"expected %lld (-1: no UDP_GRO cmsg)\n", ug_prog,
			(unsigned long long)t->err[E_GSO],
			first_with(E_GSO)->first_bad_gso, cfg->exp_gso);
	if (t->err[E_VERIFY]) {
		w = first_with(E_VERIFY);
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
			strerror(first_with(E_RECV)->first_recv_errno));
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rx_cfg opts;
	struct totals t;
	int i;

	ug_set_prog(argv[0]);
	parse_opts(argc, argv, &opts);
	cfg = &opts;
	ug_pattern_init();

	g_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g_efd < 0)
		ug_die_errno(1, "eventfd");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* bind every socket first: a test waits for the port to appear */
	workers = NULL;
	if (posix_memalign((void **)&workers, 64, cfg->reuseport * sizeof(*workers)))
		ug_die(1, "out of memory");
	memset(workers, 0, cfg->reuseport * sizeof(*workers));
	for (i = 0; i < cfg->reuseport; i++)
		workers[i].fd = rx_socket();
	for (i = 0; i < cfg->reuseport; i++)
		worker_init(&workers[i], i, workers[i].fd);
	if (cfg->seq) {
		flows = xcalloc(cfg->flows, sizeof(*flows));
		for (i = 0; i < cfg->flows; i++)
			pthread_mutex_init(&flows[i].lock, NULL);
	}

	start_workers();
	monitor();
	for (i = 0; i < cfg->reuseport; i++) {
		pthread_join(workers[i].thread, NULL);
		close(workers[i].fd);
	}

	sum_up(&t);
	if (cfg->json)
		print_json(&t);
	report_failures(&t);

	for (i = 0; i < cfg->reuseport; i++) {
		free(workers[i].buf);
		free(workers[i].msgs);
		free(workers[i].iovs);
		free(workers[i].ctrl);
	}
	for (i = 0; cfg->seq && i < cfg->flows; i++)
		free(flows[i].bits);
	free(flows);
	free(workers);
	close(g_efd);
	return t.errors ? KSFT_FAIL : KSFT_PASS;
}
