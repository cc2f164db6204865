// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx options: argv into a struct tx_cfg, every value range
 * checked and every conflict refused here, before any socket is opened
 * (one line naming the option and the allowed values, exit 1).  The rest
 * of the program only reads the result.
 */
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "udpgso_bench_tx.h"

#define ETH_DATA_LEN_	1500
#define MAX_FLOWS	1024

/* ---- options ---------------------------------------------------------- */

enum {
	OPT_JSON = 256, OPT_GSO_MODE, OPT_BATCH, OPT_IOV, OPT_SIZES, OPT_COUNT, OPT_TXTIME,
	OPT_PACING, OPT_THREADS, OPT_SOCKETS, OPT_DST_LIST, OPT_PORT_COUNT, OPT_SEQ,
	OPT_FLOW_ID, OPT_NO_FALLBACK, OPT_MAX_SEGS, OPT_SNDBUF,
};

static const struct option longopts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "gso-mode", required_argument, NULL, OPT_GSO_MODE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "iov", required_argument, NULL, OPT_IOV },
	{ "sizes", required_argument, NULL, OPT_SIZES },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "txtime-rate", required_argument, NULL, OPT_TXTIME },
	{ "max-pacing-rate", required_argument, NULL, OPT_PACING },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "sockets", required_argument, NULL, OPT_SOCKETS },
	{ "dst-list", required_argument, NULL, OPT_DST_LIST },
	{ "port-count", required_argument, NULL, OPT_PORT_COUNT },
	{ "seq", no_argument, NULL, OPT_SEQ },
	{ "flow-id", required_argument, NULL, OPT_FLOW_ID },
	{ "no-gso-fallback", no_argument, NULL, OPT_NO_FALLBACK },
	{ "max-segs", required_argument, NULL, OPT_MAX_SEGS },
	{ "sndbuf", required_argument, NULL, OPT_SNDBUF },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define OPTSTR "46acC:D:hHl:L:mM:p:Ps:S:tTuvz"
#define USAGE "usage: udpgso_bench_tx -4|-6 [-acmHPtTuvz] [-C cpu] [-D dst] [-l secs] " \
	"[-L secs] [-M nr] [-p port] [-s len] [-S gso_size] [--json] [--gso-mode cmsg|sockopt] " \
	"[--batch N] [--iov N] [--sizes LIST] [--count N] [--txtime-rate R] " \
	"[--max-pacing-rate R] [--threads N] [--sockets N] [--dst-list A,B] [--port-count N] " \
	"[--seq] [--flow-id N] [--no-gso-fallback] [--max-segs N] [--sndbuf BYTES]"

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

/* the smallest datagram the options make */
static int min_dgram(const struct tx_cfg *cfg)
{
	int unit = cfg->segment ? cfg->gso_size : cfg->mss, r, i, m;

	if (cfg->nsizes) {
		for (m = INT_MAX, i = 0; i < cfg->nsizes; i++)
			if (cfg->sizes[i] < m)
				m = cfg->sizes[i];
		return m;
	}
	if (cfg->payload_len <= unit)
		return cfg->payload_len;
	r = cfg->payload_len % unit;
	return r ? r : unit;
}

static const struct tx_cfg defaults = {
	.cpu = -1, .runtime_ms = -1, .poll_loop_s = 2, .connected = true,
	.port = 8000, .port_count = 1, .payload_len = 1472 * 42,
	.threads = 1, .sockets = 1,
};

void tx_parse_opts(int argc, char **argv, struct tx_cfg *cfg)
{
	const char *s_arg = NULL, *S_arg = NULL, *sizes_arg = NULL, *D_arg = NULL;
	const char *dl_arg = NULL, *fid_arg = NULL;
	static const char *const gso_modes[] = { "cmsg", "sockopt", NULL };
	bool gso_mode_set = false;
	int c, maxlen, i;

	*cfg = defaults;
	opterr = 0;
	while ((c = getopt_long(argc, argv, OPTSTR, longopts, NULL)) != -1) {
		switch (c) {
		case '4':
		case '6':
			if (cfg->family)
				ug_die(1, "-4/-6: pass only one of -4 or -6");
			cfg->family = c == '4' ? AF_INET : AF_INET6;
			break;
		case 'a':
			cfg->audit = true;
			break;
		case 'c':
			cfg->cache = true;
			break;
		case 'C':
			cfg->cpu = ug_parse_ll("-C", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'D':
			D_arg = optarg;
			break;
		case 'H':
			cfg->hw_ts = cfg->tstamp = true;
			break;
		case 'l':
			cfg->runtime_ms = ug_parse_secs_ms("-l", optarg, 0, 31536000000LL);
			break;
		case 'L':
			cfg->poll_loop_s = ug_parse_ll("-L", optarg, 0, 3600);
			break;
		case 'm':
			cfg->mmsg = true;
			break;
		case 'M':
			cfg->msg_nr = ug_parse_ll("-M", optarg, 0, 1LL << 62);
			break;
		case 'p':
			cfg->port = ug_parse_ll("-p", optarg, 1, 65535);
			break;
		case 'P':
			cfg->poll = true;
			break;
		case 's':
			s_arg = optarg;
			break;
		case 'S':
			S_arg = optarg;
			break;
		case 't':
			cfg->tcp = true;
			break;
		case 'T':
			cfg->tstamp = true;
			break;
		case 'u':
			cfg->connected = false;
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case 'z':
			cfg->zerocopy = true;
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case OPT_GSO_MODE:
			cfg->sockopt = ug_parse_choice("--gso-mode", optarg, gso_modes) == 1;
			gso_mode_set = true;
			break;
		case OPT_BATCH:
			cfg->batch = ug_parse_ll("--batch", optarg, 1, MAX_BATCH);
			cfg->mmsg = true;
			break;
		case OPT_IOV:
			cfg->iov_frames = ug_parse_ll("--iov", optarg, 1, MAX_IOVS - 1);
			break;
		case OPT_SIZES:
			sizes_arg = optarg;
			break;
		case OPT_COUNT:
			cfg->count = ug_parse_ll("--count", optarg, 1, 1LL << 62);
			break;
		case OPT_TXTIME:
			cfg->txtime_Bps = ug_parse_rate_Bps("--txtime-rate", optarg, 125,
							   1000000000000ull);
			break;
		case OPT_PACING:
			cfg->pacing_Bps = ug_parse_rate_Bps("--max-pacing-rate", optarg, 1,
							   1000000000000ull);
			break;
		case OPT_THREADS:
			cfg->threads = ug_parse_ll("--threads", optarg, 1, 64);
			break;
		case OPT_SOCKETS:
			cfg->sockets = ug_parse_ll("--sockets", optarg, 1, 64);
			break;
		case OPT_DST_LIST:
			dl_arg = optarg;
			break;
		case OPT_PORT_COUNT:
			cfg->port_count = ug_parse_ll("--port-count", optarg, 1, 65535);
			break;
		case OPT_SEQ:
			cfg->seq = true;
			break;
		case OPT_FLOW_ID:
			fid_arg = optarg;
			cfg->seq = true;
			break;
		case OPT_NO_FALLBACK:
			cfg->no_fallback = true;
			break;
		case OPT_MAX_SEGS:
			cfg->max_segs_arg = ug_parse_ll("--max-segs", optarg, 1, PROBE_MAX);
			break;
		case OPT_SNDBUF:
			/* the kernel clamps it at INT_MAX / 2, then doubles it: the JSON says */
			cfg->sndbuf = ug_parse_ll_suffix("--sndbuf", optarg, 4096, 1 << 30);
			break;
		case 'h':
			printf("%s\n", USAGE);
			exit(0);
		default:
			bad_option(optopt, argv);
		}
	}
	if (optind != argc)
		ug_die(1, "unexpected argument '%s'; %s", argv[optind], USAGE);
	if (!cfg->family)
		ug_die(1, "-4/-6: pass one of -4 or -6");

	/*
	 * the largest UDP payload: 65507 (IPv4), 65527 (IPv6: its payload
	 * length does not count the fixed header; upstream's tool stops at
	 * 65487, counting it as IPv4 does), see UG_MAX_UDP6
	 */
	maxlen = ug_max_udp_payload(cfg->family);
	cfg->max_payload = maxlen;
	cfg->mss = ETH_DATA_LEN_ - ug_udp_hdrlen(cfg->family);
	if (s_arg)
		cfg->payload_len = ug_parse_ll("-s", s_arg, 1, maxlen);
	if (S_arg) {
		cfg->gso_arg = ug_parse_ll("-S", S_arg, 0, maxlen);
		cfg->segment = true;
	}
	cfg->gso_size = cfg->gso_arg ? cfg->gso_arg : cfg->mss;
	if (sizes_arg)
		cfg->nsizes = ug_parse_list("--sizes", sizes_arg, 1, maxlen, cfg->sizes, MAX_SIZES);
	if (cfg->port + cfg->port_count - 1 > 65535)
		ug_die(1, "--port-count %d: out of range, allowed 1..%d (with -p %d)",
		       cfg->port_count, 65536 - cfg->port, cfg->port);
	if (cfg->threads * cfg->sockets > MAX_FLOWS)
		ug_die(1, "--threads x --sockets: %d flows, allowed 1..%d",
		       cfg->threads * cfg->sockets, MAX_FLOWS);
	cfg->nflows = cfg->threads * cfg->sockets;
	if (fid_arg)
		cfg->flow_id = ug_parse_ll("--flow-id", fid_arg, 0,
					   4294967295LL - (cfg->nflows - 1));

	ug_die_if(D_arg && dl_arg, "-D cannot be combined with --dst-list");
	if (dl_arg) {
		char *copy = strdup(dl_arg), *tok, *save = NULL;

		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (cfg->ndst == MAX_DSTS)
				ug_die(1, "--dst-list: too many addresses, allowed at most %d",
				       MAX_DSTS);
			cfg->alen = ug_parse_addr("--dst-list", tok, cfg->family, cfg->port,
						 &cfg->dst[cfg->ndst++]);
		}
		free(copy);
		if (!cfg->ndst)
			ug_die(1, "--dst-list: empty list, allowed A,B,... addresses");
	} else {
		if (!D_arg)
			D_arg = cfg->family == AF_INET6 ? "::" : "0.0.0.0";
		cfg->alen = ug_parse_addr("-D", D_arg, cfg->family, cfg->port, &cfg->dst[0]);
		cfg->ndst = 1;
	}

	if (cfg->tcp) {
		if (!cfg->connected)
			ug_die(1, "-t with -u: connectionless tcp makes no sense");
		ug_die_if(cfg->segment, "-t cannot be combined with -S");
		ug_die_if(cfg->mmsg, "-t cannot be combined with -m/--batch");
		ug_die_if(cfg->iov_frames, "-t cannot be combined with --iov");
		ug_die_if(cfg->nsizes, "-t cannot be combined with --sizes");
		ug_die_if(cfg->seq, "-t cannot be combined with --seq/--flow-id");
		ug_die_if(cfg->txtime_Bps, "-t cannot be combined with --txtime-rate");
		ug_die_if(cfg->tstamp, "-t cannot be combined with -T/-H");
		ug_die_if(gso_mode_set, "-t cannot be combined with --gso-mode");
	}
	if (gso_mode_set && !cfg->segment)
		ug_die(1, "--gso-mode needs -S (GSO)");
	ug_die_if(cfg->nsizes && s_arg,
		  "--sizes cannot be combined with -s (the list gives the sizes)");
	if (cfg->nsizes && cfg->segment && cfg->gso_arg)
		ug_die(1, "--sizes with -S %d: each run's gso_size is its datagram size, use -S 0",
		       cfg->gso_arg);
	ug_die_if(cfg->nsizes && cfg->sockopt,
		  "--sizes cannot be combined with --gso-mode sockopt (one size per socket)");
	ug_die_if(cfg->zerocopy && cfg->seq,
		  "-z cannot be combined with --seq (stamps would rewrite buffers the kernel may still read)");
	if (cfg->seq && min_dgram(cfg) < UG_HDR_LEN)
		ug_die(1, "--seq: every datagram must hold the %d-byte stamp, smallest here is %d",
		       UG_HDR_LEN, min_dgram(cfg));
	if (cfg->iov_frames && min_dgram(cfg) < UG_HDR_LEN + cfg->iov_frames)
		ug_die(1, "--iov %d: datagrams must be at least %d bytes (header + %d frames), smallest here is %d",
		       cfg->iov_frames, UG_HDR_LEN + cfg->iov_frames, cfg->iov_frames, min_dgram(cfg));
	for (i = 0; i < cfg->ndst; i++)
		if (cfg->dst[i].ss_family != cfg->family)
			ug_die(1, "destination family does not match -4/-6");
}

