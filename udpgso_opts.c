// SPDX-License-Identifier: GPL-2.0
/* udpgso options: argv into a struct gso_cfg, checked before anything runs */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "udpgso.h"

#define UG_STR2(x)	#x
#define UG_STR(x)	UG_STR2(x)

static const char *const sink_modes[] = { "hw", "sw", "none", NULL };
static const char *const csum_modes[] = { "hw", "sw", NULL };

static void list_cases(void)
{
	int id;

	for (id = 0; id < NCASES; id++)
		printf("%2d %s%s\n", id, cases[id].name,
		       cases[id].family == AF_INET6 ? " (ipv6 only)" : "");
}

/* -h, --help: the usage on stdout, exit 0 */
static void usage(void)
{
	printf("usage: %s [-4] [-6] [-c] [-C] [-m|--cork] [-s] [-R] [-t N] [-p port]\n"
	       "          [--sink DEV --sink-gso hw|sw|none --sink-encap N]\n"
	       "          [--sink-capture DEV [--sink-outer SRC,DST]]\n"
	       "          [--csum hw|sw] [--kernel-version X.Y.Z] [-L] [-h]\n"
	       "  -4/-6 family (default both), -c connected, -C unconnected\n"
	       "  (default both), -m MSG_MORE, --cork UDP_CORK, -s setsockopt\n"
	       "  UDP_SEGMENT instead of cmsg, -R do not receive, -t N one case\n"
	       "  (0..%d), -L list cases, --sink DEV check DEV's tx counters,\n"
	       "  --sink-capture DEV capture every segment on DEV (AF_PACKET\n"
	       "  egress) and check it: one more line per case, \"wire[N]\" with N\n"
	       "  the segments expected; --sink-outer SRC,DST the ipip tunnel's\n"
	       "  outer IPv4 addresses there, -h/--help this text\n",
	       ug_prog, NCASES - 1);
	exit(0);
}

/* --sink-outer SRC,DST: two IPv4 addresses */
static void check_outer(const char *s)
{
	char buf[64], *comma;
	struct in_addr a;

	snprintf(buf, sizeof(buf), "%s", s);
	comma = strchr(buf, ',');
	if (comma)
		*comma = 0;
	if (!comma || inet_pton(AF_INET, buf, &a) != 1 ||
	    inet_pton(AF_INET, comma + 1, &a) != 1)
		ug_die(1, "--sink-outer '%s': allowed SRC,DST (two IPv4 addresses)", s);
}

void parse_opts(int argc, char **argv, struct gso_cfg *o)
{
	static const struct option lopts[] = {
		{ "cork", no_argument, NULL, 'K' },
		{ "sink", required_argument, NULL, 'S' },
		{ "sink-gso", required_argument, NULL, 'G' },
		{ "sink-encap", required_argument, NULL, 'E' },
		{ "csum", required_argument, NULL, 'X' },
		{ "sink-capture", required_argument, NULL, 'W' },
		{ "sink-outer", required_argument, NULL, 'O' },
		{ "kernel-version", required_argument, NULL, 'V' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->case_id = -1;
	o->port = 9000;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "46cCmRst:p:Lh", lopts, NULL)) != -1) {
		switch (c) {
		case '4':
			o->v4 = true;
			break;
		case '6':
			o->v6 = true;
			break;
		case 'c':
			o->connected = true;
			break;
		case 'C':
			o->unconnected = true;
			break;
		case 'm':
			o->msgmore = true;
			break;
		case 'K':
			o->cork = true;
			break;
		case 'R':
			o->norecv = true;
			break;
		case 's':
			o->setsockopt = true;
			break;
		case 't':
			o->case_id = ug_parse_ll("-t", optarg, 0, NCASES - 1);
			break;
		case 'p':
			o->port = ug_parse_ll("-p", optarg, 1, 65535);
			break;
		case 'S':
			o->sink = optarg;
			break;
		case 'G':
			o->sink_gso = ug_parse_choice("--sink-gso", optarg,
						       sink_modes);
			break;
		case 'E':
			o->sink_encap = ug_parse_ll("--sink-encap", optarg, 0,
						     256);
			break;
		case 'X':
			o->sw_csum = ug_parse_choice("--csum", optarg,
						      csum_modes) == 1;
			break;
		case 'V':
			o->kver = optarg;
			break;
		case 'W':
			o->sink_capture = optarg;
			break;
		case 'O':
			o->sink_outer = optarg;
			break;
		case 'L':
			list_cases();
			exit(0);
		case 'h':
			usage();
			break;
		default:
			if (optopt && strchr("tp", optopt))
				ug_die(1, "-%c: missing value, allowed %s", optopt,
				       optopt == 't' ? "0.." UG_STR(NCASES_MAX) :
				       "1..65535");
			ug_die(1, "%s: unknown option, allowed -4 -6 -c -C -m -R "
			       "-s -t N -p PORT -L --cork --sink --sink-gso "
			       "--sink-encap --sink-capture --sink-outer --csum "
			       "--kernel-version",
			       argv[optind - 1]);
		}
	}
	if (optind < argc)
		ug_die(1, "%s: unexpected argument, allowed options only",
		       argv[optind]);
	if (o->msgmore && o->cork)
		ug_die(1, "-m and --cork: choose one of MSG_MORE or UDP_CORK");
	if (o->sink && !o->norecv)
		ug_die(1, "--sink %s: needs -R (the sink receives nothing)",
		       o->sink);
	if (o->sink && (strchr(o->sink, '/') || strlen(o->sink) >= 16))
		ug_die(1, "--sink '%s': not a device name", o->sink);
	if (o->sink_capture && !o->sink)
		ug_die(1, "--sink-capture %s: needs --sink (the case model of what "
		       "reaches it)", o->sink_capture);
	if (o->sink_capture && (strchr(o->sink_capture, '/') ||
				strlen(o->sink_capture) >= 16))
		ug_die(1, "--sink-capture '%s': not a device name", o->sink_capture);
	if (o->sink_outer && (!o->sink_capture || o->sink_encap != 20))
		ug_die(1, "--sink-outer %s: needs --sink-capture and --sink-encap 20 "
		       "(ipip)", o->sink_outer);
	if (o->sink_outer)
		check_outer(o->sink_outer);
	if (!o->v4 && !o->v6)
		o->v4 = o->v6 = true;
	if (!o->connected && !o->unconnected)
		o->connected = o->unconnected = true;
	if (o->case_id >= 0 && cases[o->case_id].family &&
	    !(cases[o->case_id].family == AF_INET6 ? o->v6 : o->v4))
		ug_die(1, "-t %d: case is IPv6 only, allowed with -6", o->case_id);
}
