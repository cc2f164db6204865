// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_rx options: argv into a struct rx_cfg, every value range
 * checked and every conflict refused before any socket is opened (one line
 * naming the option and the allowed values, exit 1).
 */
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpgso_bench_rx.h"

const char *const rx_mode_names[] = { "recv", "recvmsg", "recvmmsg", NULL };

static const struct rx_cfg rx_defaults = {
	.family = AF_INET6, .port = 8000, .mode = MODE_RECV, .batch = 64,
	.reuseport = 1, .threads = 1, .flows = 1,
};


/* ---- options ----------------------------------------------------------- */

#define RX_USAGE "[-4|-6] [-b addr] [-C ms] [-G] [-l len] [-n nr] [-p port] [-r] " \
	"[-R ms] [-S gso_size] [-t] [-v] [--json] [--mode recv|recvmsg|recvmmsg] " \
	"[--batch N] [--reuseport N] [--threads N] [--seq] [--flows N] [--rcvbuf BYTES] " \
	"[--cpu LIST] [--poll-wait] [--kstamp]"

static void __attribute__((noreturn)) usage_die(const char *what)
{
	ug_die(1, "%s; usage: %s " RX_USAGE, what, ug_prog);
}

enum {
	OPT_JSON = 256, OPT_MODE, OPT_BATCH, OPT_REUSEPORT, OPT_THREADS, OPT_SEQ, OPT_FLOWS,
	OPT_RCVBUF, OPT_CPU, OPT_POLL_WAIT, OPT_KSTAMP,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "reuseport", required_argument, NULL, OPT_REUSEPORT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "seq", no_argument, NULL, OPT_SEQ },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "poll-wait", no_argument, NULL, OPT_POLL_WAIT },
	{ "kstamp", no_argument, NULL, OPT_KSTAMP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void rx_parse_opts(int argc, char **argv, struct rx_cfg *o)
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
		case OPT_POLL_WAIT:
			o->poll_wait = true;
			break;
		case OPT_KSTAMP:
			o->kstamp = true;
			break;
		case OPT_MODE:
			o->mode = ug_parse_choice("--mode", optarg, rx_mode_names);
			mode_set = true;
			break;
		case OPT_BATCH:
			o->batch = ug_parse_ll("--batch", optarg, 1, 1024);
			batch_set = true;
			break;
		case OPT_REUSEPORT:
			o->reuseport = ug_parse_ll("--reuseport", optarg, 1, 64);
			break;
		case OPT_THREADS:
			o->threads = ug_parse_ll("--threads", optarg, 1, 64);
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
		ug_die_if(o->threads > 1, "-t conflicts with --threads (one connection)");
		ug_die_if(o->kstamp, "-t conflicts with --kstamp (a receive stamp is a datagram's)");
	}
	ug_die_if(o->kstamp && o->threads > 1,
		 "--kstamp conflicts with --threads (the threads of a socket share its last stamp)");
	/*
	 * -G/-S need the gso_size cmsg: recvmmsg reads a batch of them per call
	 * (one syscall, not one per GRO read); plain reads stay recv, as upstream
	 */
	if (!mode_set)
		o->mode = (batch_set || o->gro || o->exp_gso) ? MODE_RECVMMSG : MODE_RECV;
	ug_die_if(o->mode == MODE_RECV && o->gro,
		 "-G needs --mode recvmsg or recvmmsg (the gso_size cmsg)");
	ug_die_if(o->mode == MODE_RECV && o->exp_gso,
		 "-S needs --mode recvmsg or recvmmsg (the gso_size cmsg)");
	ug_die_if(batch_set && o->mode != MODE_RECVMMSG, "--batch needs --mode recvmmsg");
	if (o->mode != MODE_RECVMMSG)
		o->batch = 1;
	o->nworkers = o->reuseport * o->threads;
	if (o->read_all && (unsigned long long)o->batch * RX_MSG_LEN * o->nworkers >
	    RX_MAX_BUF)
		ug_die(1, "--batch %d x --reuseport %d x --threads %d x 64 KiB buffers: more than "
		       "1 GiB, allowed batch x reuseport x threads <= 16384", o->batch,
		       o->reuseport, o->threads);

	if (o->bind_str)
		o->bind_len = ug_parse_addr("-b", o->bind_str, o->family,
					     o->port, &o->bind_addr);
	else
		o->bind_len = ug_any_addr(o->family, o->port, &o->bind_addr);
	for (i = 0; i < o->ncpus; i++)
		if (o->cpus[i] >= CPU_SETSIZE)
			ug_die(1, "--cpu %lld: out of range", o->cpus[i]);
}
