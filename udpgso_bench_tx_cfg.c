// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx: what to send and what was sent.  The options and their
 * range checks, the runtime GSO probe, the plans (one pass of datagrams,
 * plain and GSO) with the payload area they point into, and the results:
 * upstream's -a summary and the --json summary (see README.md).  The send
 * path is in udpgso_bench_tx.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpgso_bench_tx.h"

#define ETH_DATA_LEN_	1500
#define NUM_AREAS	100		/* -c: buffer copies to rotate over */
#define MAX_FLOWS	1024
#define MAX_IOVS	1024		/* UIO_MAXIOV */
#define PAT_LEN		65600
#define PROBE_MAX	4096

static const char *const err_names[E_NR] = {
	"econnrefused", "enobufs", "eagain", "zerocopy_missing", "tstamp_missing",
	"tstamp_errors",
};

struct tx_cfg cfg = {
	.cpu = -1, .runtime_s = -1, .poll_loop_s = 2, .connected = true,
	.port = 8000, .port_count = 1, .payload_len = 1472 * 42,
	.threads = 1, .sockets = 1,
};

struct plan plan_gso, plan_plain;
struct tx_gso gso;

uint8_t *area;
size_t area_stride;
int nareas = 1;
static struct { uint32_t gso, off, len; } layouts[MAX_SIZES];
static int nlayouts;

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

void parse_opts(int argc, char **argv)
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

void gso_setup(void)
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

void plans_build(void)
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

uint32_t layout_off(uint32_t g)
{
	int i;

	for (i = 0; i < nlayouts; i++)
		if (layouts[i].gso == g)
			return layouts[i].off;
	return 0;
}

void area_build(void)
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

/* ---- results ---------------------------------------------------------- */

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

void json_summary(const struct sum *t)
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

/* -a: upstream's summary lines; 1 when completions or timestamps are missing */
int audit_report(const struct sum *t)
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
