// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx - UDP/TCP send benchmark for segmentation offload.
 *
 * Flag compatible with the kernel's tools/testing/selftests/net/udpgso_bench_tx
 * (-4 -6 -a -c -C -D -H -l -L -m -M -p -P -s -S -t -T -u -v -z), plus
 * sendmmsg with a per-message UDP_SEGMENT cmsg, socket-wide GSO, scattered
 * iovecs, mixed datagram sizes, SO_TXTIME / SO_MAX_PACING_RATE pacing,
 * several flows, sequence stamps, a runtime GSO probe with fallback, and a
 * JSON summary (see README.md).
 *
 * A "plan" is what one pass sends: -s bytes split at the MSS (upstream's
 * plain mode), one GSO send of -s bytes, or the --sizes pattern grouped into
 * GSO runs.  Each flow lays its plan out once as a ring of msghdrs, iovecs
 * and cmsg buffers; the hot path only walks that ring and counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpgso_common.h"

#ifndef ENOTSUPP
#define ENOTSUPP	524
#endif
#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE	47
#endif

#define ETH_DATA_LEN_	1500
#define NUM_AREAS	100		/* -c: buffer copies to rotate over */
#define MAX_SIZES	1024
#define MAX_DSTS	64
#define MAX_FLOWS	1024
#define MAX_BATCH	1024
#define MAX_IOVS	1024		/* UIO_MAXIOV */
#define PAT_LEN		65600
#define NO_OFF		UINT32_MAX
#define CTRL_LEN	(CMSG_SPACE(sizeof(uint64_t)) + CMSG_SPACE(sizeof(uint16_t)) + \
			 CMSG_SPACE(sizeof(uint32_t)))
#define PROBE_MAX	4096
#define NSEC		1000000000ull

#define STAT_ADD(x, v)	__atomic_store_n(&(x), (x) + (v), __ATOMIC_RELAXED)
#define STAT_GET(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

enum path { P_SENDTO, P_SENDMSG, P_SENDMMSG, P_TCP };
static const char *const path_call[] = { "sendto", "sendmsg", "sendmmsg", "send" };

enum { E_CONNREFUSED, E_NOBUFS, E_AGAIN, E_ZC_MISSING, E_TS_MISSING, E_TS_ERRORS, E_NR };
static const char *const err_names[E_NR] = {
	"econnrefused", "enobufs", "eagain", "zerocopy_missing", "tstamp_missing",
	"tstamp_errors",
};

static struct {
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
} cfg = {
	.cpu = -1, .runtime_s = -1, .poll_loop_s = 2, .connected = true,
	.port = 8000, .port_count = 1, .payload_len = 1472 * 42,
	.threads = 1, .sockets = 1,
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

static struct plan plan_gso, plan_plain;

/* messages per sendmmsg call for -m with GSO when --batch is not given */
#define DEF_GSO_BATCH	8

static struct {
	bool requested, active, fallback;
	int kernel_max;		/* probed limit, 0: unknown */
	int max_segs;		/* limit in use */
	int reported;
	char reason[192];
} gso;

/* the payload area: the pattern, then one GSO layout per segment size */
static uint8_t *area;
static size_t area_stride;
static int nareas = 1;
static struct { uint32_t gso, off, len; } layouts[MAX_SIZES];
static int nlayouts;

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

struct thr {
	pthread_t tid;
	int nflows, first;
	bool report;
	int finished;
	uint64_t end_ns;
};

static struct flow *flows;
static int nflows;
static struct thr *thrs;
static volatile sig_atomic_t stop;
static int g_flags, g_batch, g_pd, g_clock_every = 1;
static bool g_grouped, g_round_is_pass;
static uint64_t g_start_ns, g_deadline;
static struct { uint64_t next, last, bytes, calls, rounds; } rep;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ug_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- options ---------------------------------------------------------- */

enum {
	O_JSON = 256, O_GSO_MODE, O_BATCH, O_IOV, O_SIZES, O_COUNT, O_TXTIME, O_PACING,
	O_THREADS, O_SOCKETS, O_DST_LIST, O_PORT_COUNT, O_SEQ, O_FLOW_ID, O_NO_FALLBACK,
	O_MAX_SEGS, O_HELP,
};

static const struct option longopts[] = {
	{ "json", no_argument, NULL, O_JSON },
	{ "gso-mode", required_argument, NULL, O_GSO_MODE },
	{ "batch", required_argument, NULL, O_BATCH },
	{ "iov", required_argument, NULL, O_IOV },
	{ "sizes", required_argument, NULL, O_SIZES },
	{ "count", required_argument, NULL, O_COUNT },
	{ "txtime-rate", required_argument, NULL, O_TXTIME },
	{ "max-pacing-rate", required_argument, NULL, O_PACING },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "sockets", required_argument, NULL, O_SOCKETS },
	{ "dst-list", required_argument, NULL, O_DST_LIST },
	{ "port-count", required_argument, NULL, O_PORT_COUNT },
	{ "seq", no_argument, NULL, O_SEQ },
	{ "flow-id", required_argument, NULL, O_FLOW_ID },
	{ "no-gso-fallback", no_argument, NULL, O_NO_FALLBACK },
	{ "max-segs", required_argument, NULL, O_MAX_SEGS },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

#define OPTSTR "46acC:D:Hl:L:mM:p:Ps:S:tTuvz"
#define USAGE "usage: udpgso_bench_tx -4|-6 [-acmHPtTuvz] [-C cpu] [-D dst] [-l secs] " \
	"[-L secs] [-M nr] [-p port] [-s len] [-S gso_size] [--json] [--gso-mode cmsg|sockopt] " \
	"[--batch N] [--iov N] [--sizes LIST] [--count N] [--txtime-rate R] " \
	"[--max-pacing-rate R] [--threads N] [--sockets N] [--dst-list A,B] [--port-count N] " \
	"[--seq] [--flow-id N] [--no-gso-fallback] [--max-segs N]"

static void bad_option(int optc, char **argv)
{
	const char *arg = argv[optind - 1];
	const struct option *o;

	if (optc && optc < 256 && strchr(OPTSTR, optc))
		ug_die(1, "-%c: missing value; %s", optc, USAGE);
	for (o = longopts; optc >= 256 && o->name; o++)
		if (o->val == optc)
			ug_die(1, "--%s: missing value; %s", o->name, USAGE);
	if (optc && optc < 256)
		ug_die(1, "unknown option -%c; %s", optc, USAGE);
	ug_die(1, "unknown option %s; %s", arg ? arg : "?", USAGE);
}

static int min_dgram(void)
{
	int unit = cfg.segment ? cfg.gso_size : cfg.mss, r, i, m;

	if (cfg.nsizes) {
		for (m = INT_MAX, i = 0; i < cfg.nsizes; i++)
			if (cfg.sizes[i] < m)
				m = cfg.sizes[i];
		return m;
	}
	if (cfg.payload_len <= unit)
		return cfg.payload_len;
	r = cfg.payload_len % unit;
	return r ? r : unit;
}

static void conflict(bool bad, const char *a, const char *b)
{
	if (bad)
		ug_die(1, "%s cannot be combined with %s", a, b);
}

static void parse_opts(int argc, char **argv)
{
	const char *s_arg = NULL, *S_arg = NULL, *sizes_arg = NULL, *D_arg = NULL;
	const char *dl_arg = NULL, *fid_arg = NULL;
	static const char *const gso_modes[] = { "cmsg", "sockopt", NULL };
	bool gso_mode_set = false;
	int c, maxlen, i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, OPTSTR, longopts, NULL)) != -1) {
		switch (c) {
		case '4':
		case '6':
			if (cfg.family)
				ug_die(1, "-4/-6: pass only one of -4 or -6");
			cfg.family = c == '4' ? AF_INET : AF_INET6;
			break;
		case 'a':
			cfg.audit = true;
			break;
		case 'c':
			cfg.cache = true;
			break;
		case 'C':
			cfg.cpu = ug_parse_ll("-C", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'D':
			D_arg = optarg;
			break;
		case 'H':
			cfg.hw_ts = cfg.tstamp = true;
			break;
		case 'l':
			cfg.runtime_s = ug_parse_ll("-l", optarg, 0, 31536000);
			break;
		case 'L':
			cfg.poll_loop_s = ug_parse_ll("-L", optarg, 0, 3600);
			break;
		case 'm':
			cfg.mmsg = true;
			break;
		case 'M':
			cfg.msg_nr = ug_parse_ll("-M", optarg, 0, 1LL << 62);
			break;
		case 'p':
			cfg.port = ug_parse_ll("-p", optarg, 1, 65535);
			break;
		case 'P':
			cfg.poll = true;
			break;
		case 's':
			s_arg = optarg;
			break;
		case 'S':
			S_arg = optarg;
			break;
		case 't':
			cfg.tcp = true;
			break;
		case 'T':
			cfg.tstamp = true;
			break;
		case 'u':
			cfg.connected = false;
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case 'z':
			cfg.zerocopy = true;
			break;
		case O_JSON:
			cfg.json = true;
			break;
		case O_GSO_MODE:
			cfg.sockopt = ug_parse_choice("--gso-mode", optarg, gso_modes) == 1;
			gso_mode_set = true;
			break;
		case O_BATCH:
			cfg.batch = ug_parse_ll("--batch", optarg, 1, MAX_BATCH);
			cfg.mmsg = true;
			break;
		case O_IOV:
			cfg.iov_frames = ug_parse_ll("--iov", optarg, 1, MAX_IOVS - 1);
			break;
		case O_SIZES:
			sizes_arg = optarg;
			break;
		case O_COUNT:
			cfg.count = ug_parse_ll("--count", optarg, 1, 1LL << 62);
			break;
		case O_TXTIME:
			cfg.txtime_Bps = ug_parse_rate_Bps("--txtime-rate", optarg, 125,
							   1000000000000ull);
			break;
		case O_PACING:
			cfg.pacing_Bps = ug_parse_rate_Bps("--max-pacing-rate", optarg, 1,
							   1000000000000ull);
			break;
		case O_THREADS:
			cfg.threads = ug_parse_ll("--threads", optarg, 1, 64);
			break;
		case O_SOCKETS:
			cfg.sockets = ug_parse_ll("--sockets", optarg, 1, 64);
			break;
		case O_DST_LIST:
			dl_arg = optarg;
			break;
		case O_PORT_COUNT:
			cfg.port_count = ug_parse_ll("--port-count", optarg, 1, 65535);
			break;
		case O_SEQ:
			cfg.seq = true;
			break;
		case O_FLOW_ID:
			fid_arg = optarg;
			cfg.seq = true;
			break;
		case O_NO_FALLBACK:
			cfg.no_fallback = true;
			break;
		case O_MAX_SEGS:
			cfg.max_segs_arg = ug_parse_ll("--max-segs", optarg, 1, PROBE_MAX);
			break;
		case O_HELP:
			printf("%s\n", USAGE);
			exit(0);
		default:
			bad_option(optopt, argv);
		}
	}
	if (optind != argc)
		ug_die(1, "unexpected argument '%s'; %s", argv[optind], USAGE);
	if (!cfg.family)
		ug_die(1, "-4/-6: pass one of -4 or -6");

	/* as upstream: the largest IP packet minus the headers (65507 / 65487) */
	maxlen = 65535 - ug_udp_hdrlen(cfg.family);
	cfg.mss = ETH_DATA_LEN_ - ug_udp_hdrlen(cfg.family);
	if (s_arg)
		cfg.payload_len = ug_parse_ll("-s", s_arg, 1, maxlen);
	if (S_arg) {
		cfg.gso_arg = ug_parse_ll("-S", S_arg, 0, maxlen);
		cfg.segment = true;
	}
	cfg.gso_size = cfg.gso_arg ? cfg.gso_arg : cfg.mss;
	if (sizes_arg)
		cfg.nsizes = ug_parse_list("--sizes", sizes_arg, 1, maxlen, cfg.sizes, MAX_SIZES);
	if (cfg.port + cfg.port_count - 1 > 65535)
		ug_die(1, "--port-count %d: out of range, allowed 1..%d (with -p %d)",
		       cfg.port_count, 65536 - cfg.port, cfg.port);
	if (cfg.threads * cfg.sockets > MAX_FLOWS)
		ug_die(1, "--threads x --sockets: %d flows, allowed 1..%d",
		       cfg.threads * cfg.sockets, MAX_FLOWS);
	nflows = cfg.threads * cfg.sockets;
	if (fid_arg)
		cfg.flow_id = ug_parse_ll("--flow-id", fid_arg, 0, 4294967295LL - (nflows - 1));

	conflict(D_arg && dl_arg, "-D", "--dst-list");
	if (dl_arg) {
		char *copy = strdup(dl_arg), *tok, *save = NULL;

		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (cfg.ndst == MAX_DSTS)
				ug_die(1, "--dst-list: too many addresses, allowed at most %d",
				       MAX_DSTS);
			cfg.alen = ug_parse_addr("--dst-list", tok, cfg.family, cfg.port,
						 &cfg.dst[cfg.ndst++]);
		}
		free(copy);
		if (!cfg.ndst)
			ug_die(1, "--dst-list: empty list, allowed A,B,... addresses");
	} else {
		if (!D_arg)
			D_arg = cfg.family == AF_INET6 ? "::" : "0.0.0.0";
		cfg.alen = ug_parse_addr("-D", D_arg, cfg.family, cfg.port, &cfg.dst[0]);
		cfg.ndst = 1;
	}

	if (cfg.tcp) {
		if (!cfg.connected)
			ug_die(1, "-t with -u: connectionless tcp makes no sense");
		conflict(cfg.segment, "-t", "-S");
		conflict(cfg.mmsg, "-t", "-m/--batch");
		conflict(cfg.iov_frames, "-t", "--iov");
		conflict(cfg.nsizes, "-t", "--sizes");
		conflict(cfg.seq, "-t", "--seq/--flow-id");
		conflict(cfg.txtime_Bps, "-t", "--txtime-rate");
		conflict(cfg.tstamp, "-t", "-T/-H");
		conflict(gso_mode_set, "-t", "--gso-mode");
	}
	if (gso_mode_set && !cfg.segment)
		ug_die(1, "--gso-mode needs -S (GSO)");
	conflict(cfg.nsizes && s_arg, "--sizes", "-s (the list gives the sizes)");
	if (cfg.nsizes && cfg.segment && cfg.gso_arg)
		ug_die(1, "--sizes with -S %d: each run's gso_size is its datagram size, use -S 0",
		       cfg.gso_arg);
	conflict(cfg.nsizes && cfg.sockopt, "--sizes", "--gso-mode sockopt (one size per socket)");
	conflict(cfg.zerocopy && cfg.seq, "-z",
		 "--seq (stamps would rewrite buffers the kernel may still read)");
	if (cfg.seq && min_dgram() < UG_HDR_LEN)
		ug_die(1, "--seq: every datagram must hold the %d-byte stamp, smallest here is %d",
		       UG_HDR_LEN, min_dgram());
	if (cfg.iov_frames && min_dgram() < UG_HDR_LEN + cfg.iov_frames)
		ug_die(1, "--iov %d: datagrams must be at least %d bytes (header + %d frames), smallest here is %d",
		       cfg.iov_frames, UG_HDR_LEN + cfg.iov_frames, cfg.iov_frames, min_dgram());
	for (i = 0; i < cfg.ndst; i++)
		if (cfg.dst[i].ss_family != cfg.family)
			ug_die(1, "destination family does not match -4/-6");
}

/* ---- GSO probe -------------------------------------------------------- */

enum { PROBE_OK, PROBE_NOOPT, PROBE_REFUSED, PROBE_IGNORED, PROBE_FAILED };

static int gso_send(int fd, size_t len, uint16_t gso_sz)
{
	char ctrl[CMSG_SPACE(sizeof(uint16_t))];
	struct iovec iov = { .iov_base = (void *)ug_pattern, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl };

	ug_cmsg_add_segment(&msg, sizeof(ctrl), gso_sz);
	return sendmsg(fd, &msg, 0) == (ssize_t)len ? 0 : -1;
}

static void drain(int fd)
{
	char buf[16];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
}

/*
 * Ask the running kernel, on a throwaway loopback socket pair, whether it
 * segments (a 2-byte send with gso_size 1 must arrive as two datagrams) and
 * how many segments one send may carry (largest n accepted with gso_size 1).
 */
static int probe_gso(int *max, int *err)
{
	struct sockaddr_storage ss;
	socklen_t alen = sizeof(ss);
	struct timeval tv = { .tv_sec = 1 };
	int rx, tx, one = 1, zero = 0, lo = 2, hi, n, ret = PROBE_FAILED;
	char buf[8];

	rx = socket(cfg.family, SOCK_DGRAM, 0);
	tx = socket(cfg.family, SOCK_DGRAM, 0);
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
	ug_parse_addr("probe", cfg.family == AF_INET6 ? "::1" : "127.0.0.1", cfg.family, 0, &ss);
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(rx, (void *)&ss, cfg.alen) || getsockname(rx, (void *)&ss, &alen) ||
	    connect(tx, (void *)&ss, alen)) {
		*err = errno;
		goto out;
	}
	if (gso_send(tx, 2, 1)) {
		*err = errno;
		ret = PROBE_REFUSED;
		goto out;
	}
	n = recv(rx, buf, sizeof(buf), 0);
	if (n != 1) {
		*err = n < 0 ? errno : 0;
		ret = n == 2 ? PROBE_IGNORED : PROBE_FAILED;
		goto out;
	}
	drain(rx);
	/* grow to the first refused count, then bisect */
	for (hi = 64; hi <= PROBE_MAX; lo = hi, hi *= 2) {
		if (gso_send(tx, hi, 1))
			break;
		drain(rx);
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
			if (gso_send(tx, n, 1))
				hi = n;
			else
				lo = n;
			drain(rx);
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

static void gso_setup(void)
{
	int kmax = 0, err = 0, r, cap;

	if (!cfg.segment)
		return;
	gso.requested = true;
	gso.active = true;
	r = probe_gso(&kmax, &err);
	switch (r) {
	case PROBE_OK:
		gso.kernel_max = kmax;
		if (cfg.verbose)
			note("GSO probe: the kernel accepts up to %d segments per send", kmax);
		break;
	case PROBE_FAILED:
		note("GSO probe could not run on loopback (%s); assuming 64 segments per send",
		     err ? strerror(err) : "no answer");
		break;
	case PROBE_NOOPT:
		snprintf(gso.reason, sizeof(gso.reason),
			 "UDP_SEGMENT not supported by this kernel (ENOPROTOOPT)");
		break;
	case PROBE_IGNORED:
		snprintf(gso.reason, sizeof(gso.reason),
			 "the kernel ignores the UDP_SEGMENT cmsg (no segmentation)");
		break;
	default:
		snprintf(gso.reason, sizeof(gso.reason), "GSO send refused: %s", strerror(err));
		break;
	}
	if (gso.reason[0]) {
		if (cfg.no_fallback) {
			if (r == PROBE_REFUSED && err == EIO)
				ug_die(1, "%s (--no-gso-fallback)", gso.reason);
			ug_skip("%s (--no-gso-fallback)", gso.reason);
		}
		gso.active = false;
		gso.fallback = true;
		gso.reported = 1;
		note("GSO unavailable: %s; falling back to plain sends", gso.reason);
	}
	cap = gso.kernel_max ? gso.kernel_max : 64;
	if (cfg.max_segs_arg > cap)
		note("--max-segs %d exceeds the kernel's limit %d; using %d",
		     cfg.max_segs_arg, cap, cap);
	else if (cfg.max_segs_arg)
		cap = cfg.max_segs_arg;
	if (g_grouped && cap > MAX_IOVS / g_pd) {
		cap = MAX_IOVS / g_pd;
		if (cfg.verbose)
			note("at most %d segments per send: %d iovecs each, %d per msghdr",
			     cap, g_pd, MAX_IOVS);
	}
	gso.max_segs = cap;
}

/* ---- plans and the payload area --------------------------------------- */

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

static void plans_build(void)
{
	int maxlen = 65535 - ug_udp_hdrlen(cfg.family), cap = gso.max_segs, i, k, reps = 1;

	if (cfg.tcp) {
		plan_push(&plan_plain, cfg.payload_len, 0, 1);
		return;
	}
	if (cfg.nsizes) {
		/* repeat the pattern so that runs fill whole GSO sends */
		if (gso.active)
			reps = (1024 + cfg.nsizes - 1) / cfg.nsizes;
		for (i = 0; i < cfg.nsizes * reps; i++)
			plan_push(&plan_plain, cfg.sizes[i % cfg.nsizes], 0, 1);
		if (!gso.active)
			return;
		for (i = 0; i < plan_plain.n; ) {
			uint32_t g = plan_plain.m[i].len, len = g;

			for (k = 1, i++; i < plan_plain.n && plan_plain.m[i].len == g && k < cap &&
			     len + g <= (uint32_t)maxlen; k++, i++)
				len += g;
			if (i < plan_plain.n && plan_plain.m[i].len < g && k < cap &&
			    len + plan_plain.m[i].len <= (uint32_t)maxlen) {
				len += plan_plain.m[i].len;
				k++;
				i++;
			}
			plan_push(&plan_gso, len, k > 1 ? g : 0, k);
		}
		return;
	}
	if (!cfg.segment) {
		plan_split(&plan_plain, cfg.payload_len, cfg.mss);
		return;
	}
	if (gso.active) {
		uint32_t nseg = (cfg.payload_len + cfg.gso_size - 1) / cfg.gso_size;

		if (nseg > (uint32_t)cap) {
			note("-s %d with -S %d is %u segments, more than the %d one send may carry%s; sending %d bytes per call",
			     cfg.payload_len, cfg.gso_size, nseg, cap,
			     gso.kernel_max && cap == gso.kernel_max ? " on this kernel" : "",
			     cap * cfg.gso_size);
			cfg.payload_len = cap * cfg.gso_size;
			nseg = cap;
		}
		plan_push(&plan_gso, cfg.payload_len, cfg.gso_size, nseg);
	}
	plan_split(&plan_plain, cfg.payload_len, cfg.gso_size);
}

static uint32_t layout_off(uint32_t g)
{
	int i;

	for (i = 0; i < nlayouts; i++)
		if (layouts[i].gso == g)
			return layouts[i].off;
	return 0;
}

static void area_build(void)
{
	size_t size = PAT_LEN;
	uint32_t k, n;
	int i, j;

	for (i = 0; i < plan_gso.n; i++) {
		struct pmsg *m = &plan_gso.m[i];

		if (m->nseg < 2)
			continue;
		for (j = 0; j < nlayouts && layouts[j].gso != m->gso; j++)
			;
		if (j == nlayouts) {
			layouts[nlayouts].gso = m->gso;
			layouts[nlayouts++].len = 0;
		}
		if (layouts[j].len < m->len)
			layouts[j].len = m->len;
	}
	for (j = 0; j < nlayouts; j++) {
		layouts[j].off = size;
		size += (layouts[j].len + 63) & ~63u;
	}
	area_stride = (size + 4095) & ~4095ul;
	nareas = cfg.cache ? NUM_AREAS : 1;
	area = aligned_alloc(4096, area_stride * nareas);
	if (!area)
		ug_die_errno(1, "aligned_alloc %zu", area_stride * nareas);
	for (k = 0; k < PAT_LEN; k++)
		area[k] = 'a' + k % 26;
	/* each segment of a GSO send starts the pattern again */
	for (j = 0; j < nlayouts; j++)
		for (k = 0; k < layouts[j].len; k += layouts[j].gso) {
			n = layouts[j].len - k;
			if (n > layouts[j].gso)
				n = layouts[j].gso;
			memcpy(area + layouts[j].off + k, area, n);
		}
	for (i = 1; i < nareas; i++)
		memcpy(area + i * area_stride, area, area_stride);
}

/* ---- per flow ring ---------------------------------------------------- */

static int ring_len(int n, int b)
{
	long long a = n, c = b, t, l;

	while (c) {
		t = a % c;
		a = c;
		c = t;
	}
	l = (long long)n / a * b;
	if (l <= (b > 4096 ? b : 4096))
		return l;
	return n * ((b + n - 1) / n);
}

static void set_iov(struct flow *f, uint32_t i, uint32_t off, void *base, size_t len)
{
	f->iov[i].iov_base = base ? base : area + off;
	f->iov[i].iov_len = len;
	f->iov_off[i] = base ? NO_OFF : off;
}

static void ring_build(struct flow *f)
{
	const struct plan *p = f->gso_on ? &plan_gso : &plan_plain;
	uint32_t niov = 0, ndg = 0, iv = 0, dg = 0, k, q, r, off, dlen, fr;
	int R = p->n, j, nfr = cfg.iov_frames ? cfg.iov_frames : 1;
	bool ctrl_any = false;

	if (cfg.mmsg)
		R = ring_len(p->n, g_batch);
	for (j = 0; j < R; j++) {
		ndg += p->m[j % p->n].nseg;
		niov += g_grouped ? p->m[j % p->n].nseg * g_pd : 1;
	}
	free(f->slots);
	free(f->mm);
	free(f->iov);
	free(f->iov_off);
	free(f->ctrl);
	free(f->stamps);
	f->nslots = R;
	f->slots = calloc(R, sizeof(*f->slots));
	f->mm = calloc(R, sizeof(*f->mm));
	f->iov = calloc(niov, sizeof(*f->iov));
	f->iov_off = calloc(niov, sizeof(*f->iov_off));
	f->ctrl = calloc(R, CTRL_LEN);
	f->stamps = cfg.seq ? calloc(ndg, UG_HDR_LEN) : NULL;
	if (!f->slots || !f->mm || !f->iov || !f->iov_off || !f->ctrl || (cfg.seq && !f->stamps))
		ug_die(1, "out of memory for %d messages", R);

	for (j = 0; j < R; j++) {
		const struct pmsg *m = &p->m[j % p->n];
		struct slot *s = &f->slots[j];
		struct msghdr *h = &f->mm[j].msg_hdr;
		uint32_t ts = cfg.hw_ts ? SOF_TIMESTAMPING_TX_HARDWARE :
					  SOF_TIMESTAMPING_TX_SOFTWARE;

		s->len = m->len;
		s->gso = m->gso;
		s->nseg = m->nseg;
		s->iov0 = iv;
		s->dg0 = dg;
		s->plan_idx = j % p->n;
		if (!g_grouped) {
			set_iov(f, iv++, m->nseg > 1 ? layout_off(m->gso) : 0, NULL, m->len);
		} else {
			for (k = 0; k < m->nseg; k++) {
				dlen = k + 1 < m->nseg ? m->gso : m->len - (m->nseg - 1) * m->gso;
				if (cfg.seq)
					set_iov(f, iv++, 0,
						f->stamps + (size_t)(dg + k) * UG_HDR_LEN,
						UG_HDR_LEN);
				else
					set_iov(f, iv++, 0, NULL, UG_HDR_LEN);
				q = (dlen - UG_HDR_LEN) / nfr;
				r = (dlen - UG_HDR_LEN) % nfr;
				for (off = UG_HDR_LEN, fr = 0; fr < (uint32_t)nfr; fr++) {
					set_iov(f, iv++, off, NULL, q + (fr < r));
					off += q + (fr < r);
				}
			}
		}
		dg += m->nseg;
		s->niov = iv - s->iov0;
		h->msg_name = f->name;
		h->msg_namelen = f->namelen;
		h->msg_iov = &f->iov[s->iov0];
		h->msg_iovlen = s->niov;
		h->msg_control = f->ctrl + (size_t)j * CTRL_LEN;
		/* txtime first: its value sits at a fixed place in every slot */
		if (cfg.txtime_Bps)
			ug_cmsg_add_txtime(h, CTRL_LEN, 0);
		if (m->gso && f->gso_on && !cfg.sockopt)
			ug_cmsg_add_segment(h, CTRL_LEN, m->gso);
		if (cfg.tstamp)
			ug_cmsg_add(h, CTRL_LEN, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
		if (!h->msg_controllen)
			h->msg_control = NULL;
		else
			ctrl_any = true;
	}
	if (cfg.tcp)
		f->path = P_TCP;
	else if (cfg.mmsg)
		f->path = P_SENDMMSG;
	else if (g_grouped || ctrl_any)
		f->path = P_SENDMSG;
	else
		f->path = P_SENDTO;
	f->pos = 0;
}

/* ---- error queue ------------------------------------------------------ */

static void errq_flush(struct flow *f, bool do_poll, int timeout_ms)
{
	char ctrl[CMSG_SPACE(sizeof(struct scm_timestamping)) +
		  CMSG_SPACE(sizeof(struct sock_extended_err)) +
		  CMSG_SPACE(sizeof(struct sockaddr_in6))];
	struct sock_extended_err ee;
	struct scm_timestamping tss;
	struct cmsghdr *cm;
	struct msghdr msg;
	uint32_t n;

	if (do_poll) {
		struct pollfd pfd = { .fd = f->fd };

		if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
			ug_die_errno(1, "poll");
	}
	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		if (recvmsg(f->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			ug_die_errno(1, "recvmsg MSG_ERRQUEUE");
		}
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_TIMESTAMPING) {
				memcpy(&tss, CMSG_DATA(cm), sizeof(tss));
				if (!tss.ts[cfg.hw_ts ? 2 : 0].tv_sec)
					STAT_ADD(f->ts_err, 1);
				continue;
			}
			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			switch (ee.ee_origin) {
			case SO_EE_ORIGIN_ZEROCOPY:
				n = ee.ee_data - ee.ee_info + 1;
				STAT_ADD(f->zc_done, n);
				if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
					STAT_ADD(f->zc_copied, n);
				break;
			case SO_EE_ORIGIN_TIMESTAMPING:
				STAT_ADD(f->ts_ok, 1);
				break;
			default:
				if (cfg.verbose)
					note("error queue: origin %u type %u code %u errno %u",
					     ee.ee_origin, ee.ee_type, ee.ee_code, ee.ee_errno);
			}
		}
	}
}

static bool errq_complete(struct flow *f)
{
	return (!cfg.zerocopy || f->zc_done >= f->msgs) && (!cfg.tstamp || f->ts_ok >= f->msgs);
}

/* ---- the send path ---------------------------------------------------- */

static void wait_out(struct flow *f, int ms)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLOUT };

	poll(&pfd, 1, ms);
}

static void set_pmtu(int fd, int val)
{
	int lvl = cfg.family == AF_INET ? SOL_IP : SOL_IPV6;
	int opt = cfg.family == AF_INET ? IP_MTU_DISCOVER : IPV6_MTU_DISCOVER;

	if (setsockopt(fd, lvl, opt, &val, sizeof(val)))
		ug_die_errno(1, "setsockopt path mtu discovery");
}

static void gso_fallback(struct flow *f, int err)
{
	uint32_t dg_pos;
	int zero = 0;

	if (cfg.no_fallback) {
		errno = err;
		ug_die_errno(1, "GSO %s failed (--no-gso-fallback)", path_call[f->path]);
	}
	if (!__atomic_exchange_n(&gso.reported, 1, __ATOMIC_SEQ_CST)) {
		snprintf(gso.reason, sizeof(gso.reason), "GSO send failed: %s", strerror(err));
		note("%s; falling back to plain sends", gso.reason);
	}
	gso.fallback = true;
	gso.active = false;
	if (cfg.sockopt)
		setsockopt(f->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
	/* plain sends as upstream's: local fragmentation allowed again */
	set_pmtu(f->fd, cfg.family == AF_INET ? IP_PMTUDISC_WANT : IPV6_PMTUDISC_WANT);
	/* carry on at the same datagram of the pass, now one per message */
	dg_pos = plan_gso.m[f->slots[f->pos].plan_idx].dg_off;
	f->gso_on = false;
	ring_build(f);
	f->pos = dg_pos;
}

static void send_error(struct flow *f, const struct slot *s, int err)
{
	switch (err) {
	case EINTR:
		return;
	case ECONNREFUSED:
		STAT_ADD(f->err[E_CONNREFUSED], 1);
		return;
	case EAGAIN:
		STAT_ADD(f->err[E_AGAIN], 1);
		wait_out(f, 100);
		return;
	case ENOBUFS:
		STAT_ADD(f->err[E_NOBUFS], 1);
		if (cfg.zerocopy)
			errq_flush(f, true, 10);	/* optmem: completions free it */
		else
			wait_out(f, 1);
		return;
	case EIO:
	case EINVAL:
		if (f->gso_on && s->gso) {
			gso_fallback(f, err);
			return;
		}
		break;
	}
	errno = err;
	ug_die_errno(1, "%s", path_call[f->path]);
}

static void flow_finish_call(struct flow *f, uint64_t bytes, uint64_t dg, unsigned int sent)
{
	STAT_ADD(f->bytes, bytes);
	STAT_ADD(f->dgrams, dg);
	STAT_ADD(f->calls, 1);
	STAT_ADD(f->msgs, sent);
	f->seq += dg;
	f->pos += sent;
	if (f->pos == f->nslots) {
		f->pos = 0;
		if (g_round_is_pass)
			STAT_ADD(f->rounds, 1);
	}
	if (!g_round_is_pass)
		STAT_ADD(f->rounds, 1);
	if ((f->dg_quota && f->dgrams >= f->dg_quota) ||
	    (f->round_quota && f->rounds >= f->round_quota))
		f->done = true;
	if (cfg.tstamp || (cfg.zerocopy && !(f->calls & 15)))
		errq_flush(f, cfg.poll, 500);
}

static void tcp_step(struct flow *f)
{
	ssize_t ret;

	ret = send(f->fd, (char *)f->iov[0].iov_base + f->tcp_off,
		   f->slots[0].len - f->tcp_off, g_flags | MSG_NOSIGNAL);
	if (ret < 0) {
		send_error(f, &f->slots[0], errno);
		return;
	}
	f->tcp_off += ret;
	STAT_ADD(f->bytes, ret);
	STAT_ADD(f->calls, 1);
	STAT_ADD(f->msgs, 1);
	if (f->tcp_off == f->slots[0].len) {
		f->tcp_off = 0;
		STAT_ADD(f->dgrams, 1);
		STAT_ADD(f->rounds, 1);
		if ((f->dg_quota && f->dgrams >= f->dg_quota) ||
		    (f->round_quota && f->rounds >= f->round_quota))
			f->done = true;
		if (cfg.cache) {
			f->area = (f->area + 1) % nareas;
			f->iov[0].iov_base = area + (size_t)f->area * area_stride;
		}
	}
	if (cfg.zerocopy && !(f->calls & 15))
		errq_flush(f, cfg.poll, 500);
}

struct trunc {
	int slot;
	uint32_t nseg, len;
	size_t save_len, save_iovlen;
};

/* the last call of a --count run: send only the datagrams still owed */
static unsigned int truncate_call(struct flow *f, unsigned int n, struct trunc *tr)
{
	uint64_t left = f->dg_quota - f->dgrams;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct slot *s = &f->slots[f->pos + i];
		struct msghdr *h = &f->mm[f->pos + i].msg_hdr;

		if (s->nseg <= left) {
			left -= s->nseg;
			if (!left)
				return i + 1;
			continue;
		}
		tr->slot = f->pos + i;
		tr->nseg = left;
		tr->len = left * s->gso;
		tr->save_iovlen = h->msg_iovlen;
		tr->save_len = f->iov[s->iov0].iov_len;
		if (g_grouped)
			h->msg_iovlen = left * g_pd;
		else
			f->iov[s->iov0].iov_len = tr->len;
		return i + 1;
	}
	return n;
}

static void untruncate(struct flow *f, struct trunc *tr)
{
	struct slot *s = &f->slots[tr->slot];

	f->mm[tr->slot].msg_hdr.msg_iovlen = tr->save_iovlen;
	f->iov[s->iov0].iov_len = tr->save_len;
}

static void prepare_call(struct flow *f, unsigned int n, const struct trunc *tr)
{
	uint64_t t = 0, cum = 0;
	unsigned int i, k, nseg;
	uint32_t v;

	if (cfg.txtime_Bps) {
		t = ug_now_ns();
		if (f->next_tx > t)
			t = f->next_tx;
	}
	for (i = 0; i < n; i++) {
		int j = f->pos + i;
		struct slot *s = &f->slots[j];

		nseg = j == tr->slot ? tr->nseg : s->nseg;
		if (cfg.seq)
			for (k = 0; k < nseg; k++)
				ug_stamp(f->stamps + (size_t)(s->dg0 + k) * UG_HDR_LEN, f->id,
					 f->seq + cum + k);
		cum += nseg;
		if (cfg.cache)
			for (v = s->iov0; v < s->iov0 + s->niov; v++)
				if (f->iov_off[v] != NO_OFF)
					f->iov[v].iov_base = area + (size_t)f->area * area_stride +
							     f->iov_off[v];
		if (cfg.txtime_Bps) {
			memcpy(CMSG_DATA((struct cmsghdr *)(f->ctrl + (size_t)j * CTRL_LEN)), &t,
			       sizeof(t));
			t += (j == tr->slot ? tr->len : s->len) * NSEC / f->rate_Bps;
		}
	}
	if (cfg.txtime_Bps)
		f->next_tx = t;
}

static void flow_step(struct flow *f)
{
	struct slot *s = &f->slots[f->pos];
	struct trunc tr = { .slot = -1 };
	unsigned int n = 1, i, sent = 1;
	uint64_t bytes = 0, dg = 0;
	uint32_t dgs = s->nseg;
	ssize_t ret;

	if (f->path == P_TCP) {
		tcp_step(f);
		return;
	}
	if (f->path == P_SENDMMSG) {
		n = f->nslots - f->pos;
		if (n > (unsigned int)g_batch)
			n = g_batch;
		dgs = f->slots[f->pos + n - 1].dg0 + f->slots[f->pos + n - 1].nseg - s->dg0;
	}
	if (f->dg_quota && f->dgrams + dgs > f->dg_quota)
		n = truncate_call(f, n, &tr);
	if (cfg.cache)
		f->area = (f->area + 1) % nareas;
	if (cfg.seq || cfg.cache || cfg.txtime_Bps)
		prepare_call(f, n, &tr);

	switch (f->path) {
	case P_SENDTO:
		ret = sendto(f->fd, f->iov[s->iov0].iov_base, f->iov[s->iov0].iov_len, g_flags,
			     f->name, f->namelen);
		break;
	case P_SENDMSG:
		ret = sendmsg(f->fd, &f->mm[f->pos].msg_hdr, g_flags);
		break;
	default:
		ret = sendmmsg(f->fd, &f->mm[f->pos], n, g_flags);
		break;
	}
	if (tr.slot >= 0)
		untruncate(f, &tr);
	if (ret < 0) {
		send_error(f, s, errno);
		return;
	}
	if (f->path == P_SENDMMSG) {
		sent = ret;
		for (i = 0; i < sent; i++) {
			bytes += f->mm[f->pos + i].msg_len;
			dg += (int)(f->pos + i) == tr.slot ? tr.nseg : f->slots[f->pos + i].nseg;
		}
	} else {
		bytes = ret;
		dg = tr.slot >= 0 ? tr.nseg : s->nseg;
	}
	flow_finish_call(f, bytes, dg, sent);
}

/* ---- threads, reporting ----------------------------------------------- */

static void totals(uint64_t *bytes, uint64_t *calls, uint64_t *rounds)
{
	int i;

	*bytes = *calls = *rounds = 0;
	for (i = 0; i < nflows; i++) {
		*bytes += STAT_GET(flows[i].bytes);
		*calls += STAT_GET(flows[i].calls);
		*rounds += STAT_GET(flows[i].rounds);
	}
}

static void report(uint64_t now)
{
	uint64_t b, c, r;
	double dt = (double)(now - rep.last) / NSEC;

	totals(&b, &c, &r);
	if (dt > 0)
		fprintf(stderr, "%s tx: %6lu MB/s %8lu calls/s %6lu msg/s\n",
			cfg.tcp ? "tcp" : "udp",
			(unsigned long)((b - rep.bytes) / dt) >> 20,
			(unsigned long)((c - rep.calls) / dt),
			(unsigned long)((r - rep.rounds) / dt));
	rep.bytes = b;
	rep.calls = c;
	rep.rounds = r;
	rep.last = now;
	/*
	 * on a grid of whole seconds from the start, so that the line of the
	 * last second of -l is always printed: the deadline is on the grid
	 */
	rep.next += NSEC;
	if (rep.next <= now)
		rep.next = now + NSEC;
}

static void pin(int cpu)
{
	cpu_set_t mask;

	CPU_ZERO(&mask);
	CPU_SET(cpu, &mask);
	if (sched_setaffinity(0, sizeof(mask), &mask))
		ug_die_errno(1, "-C %d: sched_setaffinity", cpu);
}

static void *worker(void *arg)
{
	struct thr *t = arg;
	int active = 0, i, k = 0;
	uint64_t now;

	if (cfg.cpu >= 0 && t != thrs) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		pin((cfg.cpu + (t - thrs)) % (ncpu > 0 ? ncpu : 1));
	}
	for (i = 0; i < t->nflows; i++)
		active += !flows[t->first + i].done;
	while (active && !stop) {
		for (i = 0; i < t->nflows; i++) {
			struct flow *f = &flows[t->first + i];

			if (f->done)
				continue;
			flow_step(f);
			active -= f->done;
		}
		if (++k < g_clock_every)
			continue;
		k = 0;
		now = ug_now_ns();
		/* the last second's line before the deadline, as upstream */
		if (t->report && now >= rep.next)
			report(now);
		if (g_deadline && now >= g_deadline)
			break;
	}
	t->end_ns = ug_now_ns();
	__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- setup ------------------------------------------------------------ */

static void flow_socket(struct flow *f)
{
	char addr[80];
	int fd, one = 1;

	fd = socket(cfg.family, cfg.tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	f->fd = fd;
	if (cfg.zerocopy && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP || errno == ENOTSUPP)
			ug_skip("SO_ZEROCOPY not supported by this kernel: %s", strerror(errno));
		ug_die_errno(1, "setsockopt SO_ZEROCOPY");
	}
	if (cfg.txtime_Bps) {
		struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };

		if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
			ug_skip("SO_TXTIME refused by the kernel: %s", strerror(errno));
	}
	if (cfg.pacing_Bps) {
		uint64_t r = cfg.pacing_Bps;

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r))) {
			if (errno == ENOPROTOOPT)
				ug_skip("SO_MAX_PACING_RATE not supported by this kernel");
			ug_die_errno(1, "setsockopt SO_MAX_PACING_RATE");
		}
	}
	if (cfg.tstamp) {
		uint32_t v = SOF_TIMESTAMPING_OPT_CMSG | SOF_TIMESTAMPING_OPT_ID |
			     SOF_TIMESTAMPING_OPT_TSONLY;

		v |= cfg.hw_ts ? SOF_TIMESTAMPING_RAW_HARDWARE : SOF_TIMESTAMPING_SOFTWARE;

		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &v, sizeof(v)))
			ug_die_errno(1, "setsockopt SO_TIMESTAMPING");
	}
	if (cfg.connected && connect(fd, (void *)&f->dst, cfg.alen))
		ug_die_errno(1, "connect %s", ug_addr_str(&f->dst, addr, sizeof(addr)));
	if (f->gso_on) {
		int val = cfg.gso_size;

		/* as upstream with -S: no local fragmentation */
		set_pmtu(fd, cfg.family == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO);
		if (cfg.sockopt && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &val, sizeof(val)))
			ug_die_errno(1, "setsockopt UDP_SEGMENT %d", val);
	}
}

static void flows_setup(void)
{
	int i;

	flows = calloc(nflows, sizeof(*flows));
	thrs = calloc(cfg.threads, sizeof(*thrs));
	if (!flows || !thrs)
		ug_die_errno(1, "calloc");
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		f->idx = i;
		f->id = cfg.flow_id + i;
		f->dst = cfg.dst[i % cfg.ndst];
		ug_set_port(&f->dst, cfg.port + i % cfg.port_count);
		f->name = cfg.connected ? NULL : &f->dst;
		f->namelen = cfg.connected ? 0 : cfg.alen;
		f->gso_on = gso.active;
		f->rate_Bps = cfg.txtime_Bps / nflows ? cfg.txtime_Bps / nflows : 1;
		if (cfg.count)
			f->dg_quota = cfg.count / nflows + ((uint64_t)i < cfg.count % nflows);
		if (cfg.msg_nr)
			f->round_quota = cfg.msg_nr / nflows + ((uint64_t)i < cfg.msg_nr % nflows);
		if ((cfg.count && !f->dg_quota) || (cfg.msg_nr && !f->round_quota))
			f->done = true;
		flow_socket(f);
		ring_build(f);
	}
	for (i = 0; i < cfg.threads; i++) {
		thrs[i].first = i * cfg.sockets;
		thrs[i].nflows = cfg.sockets;
	}
}

static const char *mode_name(void)
{
	if (cfg.tcp)
		return "tcp";
	if (cfg.mmsg)
		return !gso.active ? "sendmmsg" :
		       cfg.sockopt ? "sendmmsg_gso_sockopt" : "sendmmsg_gso";
	if (gso.active)
		return cfg.sockopt ? "gso_sockopt" : "gso";
	return flows[0].path == P_SENDTO ? "sendto" : "sendmsg";
}

/* ---- results ---------------------------------------------------------- */

static void json_options(struct ug_json *j)
{
	char addr[80];
	int i;

	ug_json_obj_open(j, "options");
	ug_json_str(j, "dst", ug_addr_str(&cfg.dst[0], addr, sizeof(addr)));
	ug_json_arr_open(j, "dst_list");
	for (i = 0; i < cfg.ndst; i++)
		ug_json_str(j, NULL, ug_addr_str(&cfg.dst[i], addr, sizeof(addr)));
	ug_json_arr_close(j);
	ug_json_i64(j, "port", cfg.port);
	ug_json_i64(j, "port_count", cfg.port_count);
	ug_json_bool(j, "connected", cfg.connected);
	ug_json_i64(j, "payload_len", cfg.payload_len);
	if (cfg.segment && !cfg.nsizes)
		ug_json_i64(j, "gso_size", cfg.gso_size);
	else
		ug_json_null(j, "gso_size");
	ug_json_bool(j, "segment", cfg.segment);
	ug_json_str(j, "gso_mode", cfg.sockopt ? "sockopt" : "cmsg");
	ug_json_bool(j, "sendmmsg", cfg.mmsg);
	ug_json_i64(j, "batch", cfg.mmsg ? g_batch : 0);
	ug_json_i64(j, "iov", cfg.iov_frames);
	ug_json_arr_open(j, "sizes");
	for (i = 0; i < cfg.nsizes; i++)
		ug_json_i64(j, NULL, cfg.sizes[i]);
	ug_json_arr_close(j);
	ug_json_u64(j, "count", cfg.count);
	ug_json_u64(j, "msg_nr", cfg.msg_nr);
	if (cfg.runtime_s >= 0)
		ug_json_i64(j, "runtime_s", cfg.runtime_s);
	else
		ug_json_null(j, "runtime_s");
	ug_json_i64(j, "poll_loop_s", cfg.poll_loop_s);
	ug_json_bool(j, "tcp", cfg.tcp);
	ug_json_bool(j, "zerocopy", cfg.zerocopy);
	ug_json_bool(j, "audit", cfg.audit);
	ug_json_bool(j, "poll", cfg.poll);
	ug_json_str(j, "tx_tstamp", !cfg.tstamp ? "none" : cfg.hw_ts ? "hw" : "sw");
	ug_json_bool(j, "cache_thrash", cfg.cache);
	if (cfg.cpu >= 0)
		ug_json_i64(j, "cpu", cfg.cpu);
	else
		ug_json_null(j, "cpu");
	ug_json_u64(j, "txtime_rate_Bps", cfg.txtime_Bps);
	ug_json_u64(j, "max_pacing_rate_Bps", cfg.pacing_Bps);
	ug_json_i64(j, "threads", cfg.threads);
	ug_json_i64(j, "sockets", cfg.sockets);
	ug_json_bool(j, "seq", cfg.seq);
	ug_json_u64(j, "flow_id", cfg.flow_id);
	ug_json_bool(j, "no_gso_fallback", cfg.no_fallback);
	if (cfg.max_segs_arg)
		ug_json_i64(j, "max_segs", cfg.max_segs_arg);
	else
		ug_json_null(j, "max_segs");
	ug_json_bool(j, "verbose", cfg.verbose);
	ug_json_obj_close(j);
}

static void json_summary(const struct sum *t)
{
	struct ug_json j;
	char addr[80];
	int i, e;

	ug_json_start(&j, stdout);
	ug_json_obj_open(&j, NULL);
	ug_json_str(&j, "tool", "udpgso_bench_tx");
	ug_json_i64(&j, "version", 1);
	ug_json_str(&j, "kernel", ug_kernel_release());
	ug_json_str(&j, "family", cfg.family == AF_INET6 ? "ipv6" : "ipv4");
	ug_json_str(&j, "proto", cfg.tcp ? "tcp" : "udp");
	ug_json_str(&j, "mode", mode_name());
	json_options(&j);
	ug_json_dbl(&j, "duration_s", t->dur);
	ug_json_u64(&j, "bytes", t->bytes);
	ug_json_u64(&j, "datagrams", t->dgrams);
	ug_json_u64(&j, "calls", t->calls);
	ug_json_dbl(&j, "MBps", t->dur > 0 ? t->bytes / t->dur / (1 << 20) : 0);
	ug_json_dbl(&j, "Mpps", t->dur > 0 ? t->dgrams / t->dur / 1e6 : 0);
	ug_json_dbl(&j, "calls_per_s", t->dur > 0 ? t->calls / t->dur : 0);
	ug_json_dbl(&j, "bytes_per_call", t->calls ? (double)t->bytes / t->calls : 0);
	ug_json_dbl(&j, "cpu_user_s", t->cpu_user);
	ug_json_dbl(&j, "cpu_sys_s", t->cpu_sys);
	ug_json_u64(&j, "errors", t->nerr);
	ug_json_obj_open(&j, "error_detail");
	for (e = 0; e < E_NR; e++)
		ug_json_u64(&j, err_names[e], t->err[e]);
	ug_json_obj_close(&j);
	ug_json_obj_open(&j, "gso");
	ug_json_bool(&j, "requested", gso.requested);
	ug_json_bool(&j, "active", gso.active);
	ug_json_bool(&j, "fallback", gso.fallback);
	if (gso.fallback)
		ug_json_str(&j, "fallback_reason", gso.reason);
	else
		ug_json_null(&j, "fallback_reason");
	if (gso.requested && !cfg.nsizes)
		ug_json_i64(&j, "gso_size", cfg.gso_size);
	else
		ug_json_null(&j, "gso_size");
	if (gso.requested)
		ug_json_i64(&j, "max_segs", gso.max_segs);
	else
		ug_json_null(&j, "max_segs");
	if (gso.kernel_max)
		ug_json_i64(&j, "kernel_max_segs", gso.kernel_max);
	else
		ug_json_null(&j, "kernel_max_segs");
	ug_json_obj_close(&j);
	ug_json_obj_open(&j, "zerocopy");
	ug_json_u64(&j, "completions", t->zc);
	ug_json_u64(&j, "copied", t->zcc);
	ug_json_obj_close(&j);
	ug_json_arr_open(&j, "flows");
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		ug_json_obj_open(&j, NULL);
		ug_json_i64(&j, "index", i);
		ug_json_u64(&j, "flow_id", f->id);
		ug_json_str(&j, "dst", ug_addr_str(&f->dst, addr, sizeof(addr)));
		ug_json_u64(&j, "bytes", f->bytes);
		ug_json_u64(&j, "datagrams", f->dgrams);
		ug_json_u64(&j, "calls", f->calls);
		ug_json_bool(&j, "gso_active", f->gso_on);
		ug_json_obj_close(&j);
	}
	ug_json_arr_close(&j);
	ug_json_obj_close(&j);
	ug_json_end(&j);
}

/* wait for the last completions and timestamps, close, add up */
static void flows_finish(struct sum *t)
{
	uint64_t stop_at, now;
	int i, e;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		if (cfg.zerocopy || cfg.tstamp) {
			stop_at = ug_now_ns() + cfg.poll_loop_s * NSEC;
			do {
				now = ug_now_ns();
				errq_flush(f, true, now < stop_at ? (stop_at - now) / 1000000 : 0);
			} while (!errq_complete(f) && ug_now_ns() < stop_at);
			if (cfg.zerocopy && f->zc_done < f->msgs)
				f->err[E_ZC_MISSING] += f->msgs - f->zc_done;
			if (cfg.tstamp && f->ts_ok < f->msgs)
				f->err[E_TS_MISSING] += f->msgs - f->ts_ok;
			f->err[E_TS_ERRORS] = f->ts_err;
		}
		if (close(f->fd))
			ug_die_errno(1, "close");
		t->bytes += f->bytes;
		t->dgrams += f->dgrams;
		t->calls += f->calls;
		t->rounds += f->rounds;
		t->msgs += f->msgs;
		t->zc += f->zc_done;
		t->zcc += f->zc_copied;
		t->ts_ok += f->ts_ok;
		t->ts_err += f->ts_err;
		for (e = 0; e < E_NR; e++) {
			t->err[e] += f->err[e];
			t->nerr += f->err[e];
		}
	}
}

/* -a: upstream's summary lines; 1 when completions or timestamps are missing */
static int audit_report(const struct sum *t)
{
	unsigned long ms = (unsigned long)(t->dur * 1000);
	int rc = 0;

	if (ms) {
		fprintf(stderr, "Summary over %lu.%03lu seconds...\n", ms / 1000, ms % 1000);
		fprintf(stderr,
			"sum %s tx: %6lu MB/s %10lu calls (%lu/s) %10lu msgs (%lu/s)\n",
			cfg.tcp ? "tcp" : "udp", (unsigned long)(t->bytes >> 10) / ms,
			(unsigned long)t->calls, (unsigned long)(t->calls * 1000 / ms),
			(unsigned long)t->rounds, (unsigned long)(t->rounds * 1000 / ms));
	}
	if (cfg.tstamp) {
		fprintf(stderr, "Tx Timestamps: %19lu received %17lu errors\n",
			(unsigned long)t->ts_ok, (unsigned long)t->ts_err);
		if (t->ts_err || t->ts_ok != t->msgs) {
			note("expected %lu clean tx timestamps, got %lu (%lu errors)",
			     (unsigned long)t->msgs, (unsigned long)t->ts_ok,
			     (unsigned long)t->ts_err);
			rc = 1;
		}
	}
	if (cfg.zerocopy) {
		fprintf(stderr, "Zerocopy acks: %19lu\n", (unsigned long)t->zc);
		if (t->zc != t->msgs) {
			note("unexpected number of zerocopy completions: %lu expected %lu received",
			     (unsigned long)t->msgs, (unsigned long)t->zc);
			rc = 1;
		}
	}
	return rc;
}

/* run the workers; returns when the last one stopped */
static uint64_t run(void)
{
	uint64_t end = 0, now;
	int i, done;

	if (cfg.threads == 1) {
		thrs[0].report = true;
		worker(&thrs[0]);
		return thrs[0].end_ns;
	}
	for (i = 0; i < cfg.threads; i++)
		if (pthread_create(&thrs[i].tid, NULL, worker, &thrs[i]))
			ug_die(1, "pthread_create failed");
	for (;;) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		for (done = 0, i = 0; i < cfg.threads; i++)
			done += __atomic_load_n(&thrs[i].finished, __ATOMIC_ACQUIRE);
		if (done == cfg.threads)
			break;
		nanosleep(&ts, NULL);
		now = ug_now_ns();
		if (now >= rep.next)
			report(now);
	}
	for (i = 0; i < cfg.threads; i++) {
		pthread_join(thrs[i].tid, NULL);
		if (thrs[i].end_ns > end)
			end = thrs[i].end_ns;
	}
	return end;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	double cu0, cs0, cu1, cs1;
	struct sum t;
	uint64_t end;
	int rc = 0;

	ug_set_prog(argv[0]);
	ug_pattern_init();
	parse_opts(argc, argv);
	g_grouped = cfg.seq || cfg.iov_frames;
	g_pd = 1 + (cfg.iov_frames ? cfg.iov_frames : 1);
	if (cfg.cpu >= 0)
		pin(cfg.cpu);

	gso_setup();
	plans_build();
	area_build();
	/*
	 * -m without --batch: upstream's batch (one pass of -s split at the
	 * MSS) for plain sends; with GSO a pass is one message, so batch
	 * DEF_GSO_BATCH of them, or sendmmsg+GSO would be one sendmsg
	 */
	if (cfg.mmsg && cfg.batch)
		g_batch = cfg.batch;
	else if (cfg.mmsg)
		g_batch = gso.active ? DEF_GSO_BATCH * plan_gso.n : plan_plain.n;
	if (g_batch > MAX_BATCH)
		g_batch = MAX_BATCH;
	g_round_is_pass = !cfg.mmsg && !cfg.nsizes && !cfg.tcp;
	g_flags = cfg.zerocopy ? MSG_ZEROCOPY : 0;
	/* read the clock about as often as upstream: once per -s bytes */
	g_clock_every = (!cfg.tcp && !cfg.mmsg && !gso.active) ? 16 : 1;
	flows_setup();

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	ug_cpu_usage(&cu0, &cs0);
	g_start_ns = ug_now_ns();
	rep.last = g_start_ns;
	rep.next = g_start_ns + NSEC;
	if (cfg.runtime_s >= 0)
		g_deadline = g_start_ns + cfg.runtime_s * NSEC;
	end = run();
	ug_cpu_usage(&cu1, &cs1);

	flows_finish(&t);
	t.dur = (double)(end - g_start_ns) / NSEC;
	t.cpu_user = cu1 - cu0;
	t.cpu_sys = cs1 - cs0;
	if (cfg.audit)
		rc = audit_report(&t);
	if (cfg.json)
		json_summary(&t);
	return rc;
}
