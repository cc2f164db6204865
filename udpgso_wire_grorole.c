// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire gro: the options, and the two-host roles' parts: the
 * receiver's socket (--role rx, one process), the sender's GSO socket
 * (--role tx --gso) and the sender's answers (--role rx --tx-reply).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpgso_wire_gro.h"

void usage_gro(void)
{
	int i;

	printf("usage: udpgso_wire gro -4|-6 -S SRC -D DST -p PORT --tx-dev DEV --rx-netns NS\n"
	       "                       --rx-dev DEV -c CASE [--rx gro|plain|plain-fraglist]\n"
	       "       udpgso_wire gro --role rx -4|-6 -S SRC -D DST -p PORT --rx-dev DEV\n"
	       "                       [--rx-netns NS] -c CASE [--rx MODE] [--tx-reply]\n"
	       "       udpgso_wire gro --role tx -4|-6 -S SRC -D DST -p PORT --tx-dev DEV\n"
	       "                       --dst-mac MAC -c CASE [--gso | --swap I,J]\n"
	       "       udpgso_wire gro -4|-6 -c CASE [--groups G] [--hz N] --cut-from FILE\n"
	       "  one UDP GRO conformance case: a train of crafted packets written on\n"
	       "  --tx-dev (this namespace), the skbs GRO builds on --rx-dev (tap) and the\n"
	       "  reads of a UDP socket there checked, flow by flow.  --rx: the receiving\n"
	       "  socket has UDP_GRO (default), or is plain (with rx-gro-list on the\n"
	       "  device: plain-fraglist), or none: no socket, the taps alone are checked\n"
	       "  (GRO merges for no socket with rx-udp-gro-forwarding).  --tries N: trains that crossed a jiffy are sent\n"
	       "  again, at most N times (default 5).  --groups G replaces the expected\n"
	       "  skbs (packet indexes: \"0-2;3\", 'x': dropped by UDP).\n"
	       "  Split roles (two hosts): --role rx arms the tap and the socket, prints\n"
	       "  'go' on stdout for each train it wants and its verdict on stderr; with\n"
	       "  --tx-reply it reads the tx role's answer to each 'go' on stdin (so a train\n"
	       "  that crossed a jiffy on the sender is asked again, as above); without,\n"
	       "  a train that does not match is asked again (at most --tries).  --role tx\n"
	       "  writes the train to --dst-mac on --tx-dev for each line 'go' on stdin and\n"
	       "  answers 'sent N crossed 0|1 cpu A B' on stdout (the CPU it sent the train\n"
	       "  from, pinned to it for the train); it exits at EOF.  --gso: the train\n"
	       "  as one UDP_SEGMENT send from a socket instead (the device or the kernel\n"
	       "  segments it; trains of one flow and equal lengths: same, small_last, ...).\n"
	       "  --napi-trace DIR: a tracefs instance with napi:napi_poll and\n"
	       "  net:napi_gro_receive_entry of --rx-dev (and the kprobe events ugnapi_rx,\n"
	       "  ugnapi_flush where the kernel has them: device/gro.sh): a train that a\n"
	       "  GRO flush split is asked again; when every try was split, it is judged\n"
	       "  against the expectation cut at the flushes.  --hz N: the kernel's HZ (a\n"
	       "  full-budget poll flushes everything below 1000; default: unknown, as\n"
	       "  below).  --cut-from FILE (with -4|-6 -c [--groups]): print the case's\n"
	       "  expectation cut at the flushes of a saved trace, and exit.\n"
	       "  Order: each skb's packets are known from the payload; a train that\n"
	       "  reached GRO out of order in a flow is asked again, named ('out of\n"
	       "  order at GRO'), and fails when the last try came out of order too.\n"
	       "  --swap I,J (tx side): packet J is sent at I's place and I at J's: a\n"
	       "  train out of order, which must fail so.\n"
	       "  -l lists the cases:\n");
	for (i = 0; i < (int)wire_gro_ncases; i++) {
		const char *only = "      ";

		if (wire_gro_cases[i].fam)
			only = wire_gro_cases[i].fam == 4 ? "(IPv4)" : "(IPv6)";
		printf("  %-14s %s %s\n", wire_gro_cases[i].name, only, wire_gro_cases[i].what);
	}
}

void parse_gro(int argc, char **argv, struct gro_opts *o, struct gro_env *env)
{
	enum { O_TXDEV = 256, O_RXNS, O_RXDEV, O_RX, O_TRIES, O_GROUPS, O_ROLE, O_DMAC, O_REPLY,
	       O_GSO, O_NAPI, O_CUT, O_HZ, O_SWAP };
	static const struct option lo[] = {
		{ "tx-dev", required_argument, NULL, O_TXDEV },
		{ "rx-netns", required_argument, NULL, O_RXNS },
		{ "rx-dev", required_argument, NULL, O_RXDEV },
		{ "rx", required_argument, NULL, O_RX },
		{ "tries", required_argument, NULL, O_TRIES },
		{ "groups", required_argument, NULL, O_GROUPS },
		{ "role", required_argument, NULL, O_ROLE },
		{ "dst-mac", required_argument, NULL, O_DMAC },
		{ "tx-reply", no_argument, NULL, O_REPLY },
		{ "gso", no_argument, NULL, O_GSO },
		{ "napi-trace", required_argument, NULL, O_NAPI },
		{ "cut-from", required_argument, NULL, O_CUT },
		{ "hz", required_argument, NULL, O_HZ },
		{ "swap", required_argument, NULL, O_SWAP },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const char *const rxmodes[] = { "gro", "plain", "plain-fraglist", "none", NULL };
	static const char *const roles[] = { "rx", "tx", NULL };
	int c, i;
	char sc;

	while ((c = getopt_long(argc, argv, "46S:D:p:c:lh", lo, NULL)) != -1) {
		switch (c) {
		case '4':
			env->fam = 4;
			break;
		case '6':
			env->fam = 6;
			break;
		case 'S':
			o->src = optarg;
			break;
		case 'D':
			o->dst = optarg;
			break;
		case 'p':
			env->dport = (uint16_t)ug_parse_ll("-p", optarg, 1, 65535);
			break;
		case 'c':
			o->cname = optarg;
			break;
		case O_TXDEV:
			o->txdev = optarg;
			break;
		case O_RXNS:
			o->rxns = optarg;
			break;
		case O_RXDEV:
			o->rxdev = optarg;
			break;
		case O_RX:
			o->mode = (enum rxmode)ug_parse_choice("--rx", optarg, rxmodes);
			break;
		case O_TRIES:
			o->tries = (int)ug_parse_ll("--tries", optarg, 1, 20);
			break;
		case O_GROUPS:
			o->groups = optarg;
			ug_die_if(strspn(optarg, "0123456789-,;x") != strlen(optarg) || !*optarg,
				  "--groups '%s': allowed packet indexes like 0-2;3x", optarg);
			break;
		case O_ROLE:
			o->role = (enum grole)(ROLE_RX + ug_parse_choice("--role", optarg, roles));
			break;
		case O_DMAC:
			o->dmac = optarg;
			wire_parse_mac("--dst-mac", optarg, env->dmac);
			break;
		case O_REPLY:
			o->tx_reply = true;
			break;
		case O_GSO:
			o->gso = true;
			break;
		case O_NAPI:
			o->napi_dir = optarg;
			break;
		case O_CUT:
			o->cut_from = optarg;
			break;
		case O_HZ:
			o->hz = (int)ug_parse_ll("--hz", optarg, 24, 10000);
			break;
		case O_SWAP:
			ug_die_if(sscanf(optarg, "%d,%d%c", &o->swap[0], &o->swap[1], &sc) != 2 ||
				  o->swap[0] < 0 || o->swap[1] <= o->swap[0],
				  "--swap '%s': allowed I,J, packet indexes 0 <= I < J", optarg);
			break;
		case 'l':
			for (i = 0; i < (int)wire_gro_ncases; i++)
				printf("%s %d\n", wire_gro_cases[i].name, wire_gro_cases[i].fam);
			exit(0);
		case 'h':
			usage_gro();
			exit(0);
		default:
			ug_die(1, "gro: unknown option or missing value: '%s' (-h lists them)",
			       argv[optind - 1]);
		}
	}
	ug_die_if(optind != argc, "gro: unexpected argument '%s'", argv[optind]);
	if (o->cut_from) {
		ug_die_if(!env->fam || !o->cname, "gro --cut-from: -4|-6 and -c are required");
		return;
	}
	ug_die_if(o->napi_dir && o->role == ROLE_TX,
		  "gro --role tx: --napi-trace belongs to the receiver (--role rx)");
	ug_die_if(!env->fam || !o->src || !o->dst || !env->dport || !o->cname,
		  "gro: -4|-6, -S, -D, -p, -c are required");
	switch (o->role) {
	case ROLE_BOTH:
		ug_die_if(!o->txdev || !o->rxns || !o->rxdev,
			  "gro: --tx-dev, --rx-netns, --rx-dev are required (or --role rx|tx)");
		ug_die_if(o->dmac || o->tx_reply || o->gso,
			  "gro: --dst-mac, --gso and --tx-reply belong to --role tx and --role rx");
		break;
	case ROLE_RX:
		ug_die_if(!o->rxdev, "gro --role rx: --rx-dev is required");
		ug_die_if(o->txdev || o->dmac || o->gso || o->swap[0] >= 0,
			  "gro --role rx: --tx-dev, --dst-mac, --gso and --swap belong to --role tx");
		break;
	case ROLE_TX:
		ug_die_if(!o->gso && (!o->txdev || !o->dmac),
			  "gro --role tx: --tx-dev and --dst-mac are required (or --gso)");
		ug_die_if(o->gso && o->swap[0] >= 0,
			  "gro --role tx: --swap reorders crafted frames, not a --gso send");
		ug_die_if(o->rxns || o->rxdev || o->tx_reply || o->groups,
			  "gro --role tx: --rx-netns, --rx-dev, --tx-reply, --groups belong "
			  "to --role rx");
		break;
	}
}

/* the receiving UDP socket, bound to -D and -p */
int rx_socket(const struct gro_env *env, const struct gro_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int i, one = 1, fd;

	fd = socket(env->fam == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	memset(&ss, 0, sizeof(ss));
	if (env->fam == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(env->dport);
		s->sin_addr = env->dst.v4;
		sl = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(env->dport);
		s->sin6_addr = env->dst.v6;
		sl = sizeof(*s);
	}
	if (bind(fd, (struct sockaddr *)&ss, sl))
		ug_die_errno(1, "bind %s port %u", o->dst, env->dport);
	/* room for every read of the longest train (66 skbs unmerged) */
	i = 8 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &i, sizeof(i)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &i, sizeof(i));
	if (o->mode == RX_GRO && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)))
		ug_skip("setsockopt UDP_GRO: %s", strerror(errno));
	return fd;
}

/*
 * --role tx --gso: the train as one UDP GSO send from a socket (source port
 * SPORT0, gso_size the first packet's length), segmented by the sending
 * device or the kernel; only for trains a GSO send can be: one flow, equal
 * lengths but a shorter last, default headers and checksums
 */
void gso_setup(struct gro_env *env, const struct gpkt *p, int n, const char *cname)
{
	struct sockaddr_storage s = { 0 }, d = { 0 };
	socklen_t sl;
	int i, g = p[0].len;
	bool ok = n > 1;

	for (i = 0; i < n; i++)
		ok &= !p[i].flow && p[i].len <= g && (p[i].len == g || i == n - 1) &&
		      p[i].ttl == 64 && !p[i].tos && !p[i].nodf && p[i].id < 0 && !p[i].opts &&
		      !p[i].dstopts && !p[i].csum;
	ug_die_if(!ok, "gro --gso: -c %s is not one GSO send (allowed: one flow, equal lengths "
		  "but a shorter last, default headers: same, small_last, max_bytes)", cname);
	env->gso_len = 0;
	for (i = 0; i < n; i++)
		env->gso_len += p[i].len;
	env->gso_buf = malloc(env->gso_len);
	if (!env->gso_buf)
		ug_die_errno(1, "malloc");
	wire_fill(env->gso_buf, (uint32_t)env->gso_len, 0, 0);
	if (env->fam == 4) {
		struct sockaddr_in *a = (struct sockaddr_in *)&s, *b = (struct sockaddr_in *)&d;

		a->sin_family = b->sin_family = AF_INET;
		a->sin_addr = env->src.v4;
		b->sin_addr = env->dst.v4;
		a->sin_port = htons(SPORT0);
		b->sin_port = htons(env->dport);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&s, *b = (struct sockaddr_in6 *)&d;

		a->sin6_family = b->sin6_family = AF_INET6;
		a->sin6_addr = env->src.v6;
		b->sin6_addr = env->dst.v6;
		a->sin6_port = htons(SPORT0);
		b->sin6_port = htons(env->dport);
		sl = sizeof(*a);
	}
	env->txfd = socket(env->fam == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (env->txfd < 0 || bind(env->txfd, (struct sockaddr *)&s, sl) ||
	    connect(env->txfd, (struct sockaddr *)&d, sl))
		ug_die_errno(1, "gro --gso: UDP socket from port %u to port %u", SPORT0, env->dport);
	if (setsockopt(env->txfd, SOL_UDP, UDP_SEGMENT, &g, sizeof(g)))
		ug_skip("setsockopt UDP_SEGMENT: %s", strerror(errno));
}

/* --role rx: the tx role's answer to 'go': 1 crossed a jiffy, 0 not */
int read_reply(int n, int cpu[2])
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char line[64];
	size_t u = 0;
	int sent, crossed;

	/* byte by byte: what follows the line is the next train's answer */
	while (u < sizeof(line) - 1) {
		ug_die_if(poll(&pfd, 1, 30000) <= 0,
			  "gro --role rx: no answer from the tx role in 30 s (--tx-reply)");
		ug_die_if(read(0, line + u, 1) != 1,
			  "gro --role rx: the tx role ended (EOF on stdin, --tx-reply)");
		if (line[u] == '\n')
			break;
		u++;
	}
	line[u] = 0;
	/* (the CPUs since results/device-guest-2026-11-25d: optional) */
	cpu[0] = cpu[1] = -1;
	ug_die_if(sscanf(line, "sent %d crossed %d cpu %d %d", &sent, &crossed, &cpu[0],
			 &cpu[1]) < 2,
		  "gro --role rx: tx answered '%s': allowed 'sent N crossed 0|1 [cpu A B]'", line);
	ug_die_if(sent != n, "gro --role rx: tx sent %d packets, the case has %d (same -c, "
		  "-4|-6 and udpgso_wire version on both sides?)", sent, n);
	return crossed != 0;
}
