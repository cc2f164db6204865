// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats: the kmod's per-skb GSO/GRO counters from BPF programs
 * (ugs.bpf.c), for machines that cannot load a module.
 *
 *   udpgso_stats run [--filter port N|dev NAME] [--json] -- CMD [ARGS...]
 *   udpgso_stats watch [-i SECS] [--filter port N|dev NAME]
 *   udpgso_stats hooks
 *   udpgso_stats serve [--filter port N|dev NAME]
 *
 * Exit: run gives CMD's status (128+N for signal N); 1 bad arguments; 4 when
 * the kernel has no BTF or refuses BPF (KSFT skip), the reason on stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "ugs_load.h"

#define KSFT_SKIP	4

static const char *prog = "udpgso_stats";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s run [--filter port N|dev NAME] [--json] [--prog-stats] -- CMD [ARGS...]\n"
		"       %s watch [-i SECS] [--filter port N|dev NAME]\n"
		"       %s hooks\n"
		"       %s serve [--filter port N|dev NAME]\n"
		"  run    attach, run CMD, detach, print the counters ('name value', the\n"
		"         module's names; --json: one JSON object); exit with CMD's status;\n"
		"         --prog-stats: '# prog' lines, each program's runs and run time\n"
		"  watch  print the counters' deltas every SECS seconds (default 1) until\n"
		"         SIGINT/SIGTERM\n"
		"  hooks  which hooks attach on this kernel, in the module's 'hooks' format,\n"
		"         then which counters are direct, derived or unavailable\n"
		"  serve  for scripts: attach, print 'ready MODE', then answer the lines\n"
		"         counters|histogram|hooks|reset on stdin, each answer ending in '.';\n"
		"         detach at EOF\n"
		"  --filter port N   count only skbs with UDP/TCP source or destination port N\n"
		"  --filter dev NAME count only skbs of device NAME\n"
		"Counters the kernel's hooks cannot give are left out and listed on a\n"
		"'# unavailable:' line. Beside the counters (run, watch, serve; JSON\n"
		"'skipped' and 'complete'), '# skipped: none|INCOMPLETE: recursion_misses N,\n"
		"mark updates failed N (map full N), gro skbs not seen at netif_receive_skb\n"
		"N': program runs the kernel skipped (bpf_prog_info recursion_misses, per\n"
		"program on '# skipped prog' lines), GRO marks not stored, and skbs of the\n"
		"filter's that entered GRO but were neither merged away nor seen at\n"
		"netif_receive_skb (still held, dropped, or a program run not made), since\n"
		"the start or reset: the counters are complete only with none; hooks prints\n"
		"each program's '# prog' line.\n"
		"'# rejected: NAME N ...' (JSON 'rejected'): why GRO marks were refused\n"
		"and GRO-built skbs left out (stale or other-head mark, repeat pass, the\n"
		"filter's reason), so that a disagreement names its path.\n"
		"UDPGSO_STATS_MARKS=N (tests): a GRO marks map of N entries (1..1048576).\n"
		"UDPGSO_STATS_NO_FREE=1: no consume_skb/kfree_skb programs (their counters\n"
		"unavailable, or tx_sw_* of every caller with fexit): GRO counters only.\n"
		"UDPGSO_STATS_DIAG=1 (issue 25): two observers more, '# diag: ...' (JSON\n"
		"'diag'): a second netif_receive_skb program's rx_skbs (the counting one's\n"
		"runs not made show as rx_skbs below it) and the GRO skbs a socket read\n"
		"whose mark no netif_receive_skb run took; =skip-netif: the counting\n"
		"netif_receive_skb program returns at once (the diagnosis's own test).\n"
		"Exit 1 on bad arguments, 4 without BTF or BPF.\n",
		prog, prog, prog, prog);
}

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (%s --help)\n", prog);
	exit(1);
}

/* --filter port N | dev NAME, at argv[*i]; advances *i */
static void parse_filter(int argc, char **argv, int *i, struct ugs_filter *f)
{
	const char *kind = *i + 1 < argc ? argv[*i + 1] : NULL;
	const char *val = *i + 2 < argc ? argv[*i + 2] : NULL;
	struct stat st;
	char *end;
	long p;

	if (f->type != UGS_FILTER_NONE)
		bad("--filter given twice%s: allowed once", "");
	if (!kind || (strcmp(kind, "port") && strcmp(kind, "dev")))
		bad("--filter '%s': allowed 'port N' (1..65535) or 'dev NAME'", kind ? kind : "");
	if (!val)
		bad("--filter %s: missing value", kind);
	if (!strcmp(kind, "port")) {
		errno = 0;
		p = strtol(val, &end, 10);
		if (errno || *end || end == val || val[0] == '-' || val[0] == '+' ||
		    p < 1 || p > 65535)
			bad("--filter port '%s': allowed 1..65535", val);
		f->type = UGS_FILTER_PORT;
		f->port = p;
	} else {
		if (!*val || strlen(val) >= UGS_IFNAMSIZ || strpbrk(val, "/: \t\n"))
			bad("--filter dev '%s': allowed a device name of 1..15 characters, "
			    "no '/', ':' or spaces", val);
		f->type = UGS_FILTER_DEV;
		strcpy(f->dev, val);
		/* the device of that name in this process's network namespace */
		if (stat("/proc/self/ns/net", &st)) {
			fprintf(stderr, "%s: /proc/self/ns/net: %s\n", prog, strerror(errno));
			exit(1);
		}
		f->netns = st.st_ino;
	}
	*i += 2;
}

static void open_or_exit(struct ugs *u, const struct ugs_filter *f)
{
	char why[512];
	int err = ugs_open(u, f, why, sizeof(why));

	if (!err)
		return;
	fprintf(stderr, "%s: %s\n", prog, why);
	/* a kernel or policy without BTF/BPF: a skip; a program refused: a failure */
	exit(u->skip ? KSFT_SKIP : 1);
}

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	stop = sig;
}

static int cmd_run(int argc, char **argv)
{
	struct ugs_filter f = { 0 };
	struct sigaction sa = { 0 }, old_int, old_term;
	bool json = false, pstats = false;
	int i, status, rc, sfd = -1;
	struct ugs u;
	pid_t pid;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--prog-stats"))
			pstats = true;
		else if (!strcmp(argv[i], "--filter"))
			parse_filter(argc, argv, &i, &f);
		else
			bad("run: unknown option '%s': allowed --filter, --json, --prog-stats, "
			    "then -- CMD", argv[i]);
	}
	if (i >= argc || i + 1 >= argc)
		bad("run: no command%s: give -- CMD [ARGS...]", "");
	i++;
	open_or_exit(&u, &f);
	/* the programs' run counts and time, while this fd is open */
	if (pstats) {
		sfd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (sfd < 0)
			fprintf(stderr, "%s: --prog-stats: %s\n", prog, strerror(errno));
	}
	/* the command gets ^C; this process waits for it, then reports */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		ugs_close(&u);
		return 1;
	}
	if (!pid) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		execvp(argv[i], argv + i);
		fprintf(stderr, "%s: run: %s: %s\n", prog, argv[i], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (ugs_read(&u)) {
		fprintf(stderr, "%s: cannot read the counters: %s\n", prog, strerror(errno));
		ugs_close(&u);
		return 1;
	}
	if (json) {
		ugs_print_json(&u, &u.sum, stdout);
	} else {
		printf("# udpgso_stats bpf %s, command exit %d\n", ugs_mode(&u), rc);
		ugs_print_counters(&u, u.sum.cnt, stdout);
		ugs_print_marks(&u, stdout);
		ugs_print_skips(&u, stdout);
		ugs_print_diag(&u, stdout);
		ugs_print_hist(&u, &u.sum, stdout);
	}
	if (sfd >= 0) {
		ugs_print_prog_stats(&u, json ? stderr : stdout);
		close(sfd);
	}
	ugs_close(&u);
	return rc;
}

static int cmd_watch(int argc, char **argv)
{
	struct ugs_filter f = { 0 };
	struct sigaction sa = { 0 };
	__u64 prev[UGS_NR_COUNTERS] = { 0 }, d[UGS_NR_COUNTERS];
	struct timespec ts, t0, now;
	double secs = 1;
	struct ugs u;
	char *end;
	int i, c;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-i")) {
			const char *v = i + 1 < argc ? argv[i + 1] : "";

			errno = 0;
			secs = strtod(v, &end);
			if (errno || !*v || *end || !(secs >= 0.01 && secs <= 3600))
				bad("watch -i '%s': allowed seconds from 0.01 to 3600", v);
			i++;
		} else if (!strcmp(argv[i], "--filter")) {
			parse_filter(argc, argv, &i, &f);
		} else {
			bad("watch: unknown option '%s': allowed -i SECS, --filter", argv[i]);
		}
	}
	open_or_exit(&u, &f);
	sa.sa_handler = on_sig;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# udpgso_stats bpf %s: deltas every %g s\n", ugs_mode(&u), secs);
	while (!stop) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) && stop)
			break;
		if (ugs_read(&u))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (c = 0; c < UGS_NR_COUNTERS; c++) {
			d[c] = u.sum.cnt[c] - prev[c];
			prev[c] = u.sum.cnt[c];
		}
		printf("# t=%.2f\n", (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9);
		ugs_print_counters(&u, d, stdout);
		/* since the start: a skip or a rejection stays visible */
		ugs_print_marks(&u, stdout);
		ugs_print_skips(&u, stdout);
		ugs_print_diag(&u, stdout);
	}
	ugs_close(&u);
	return 0;
}

static int cmd_hooks(int argc, char **argv)
{
	struct ugs_filter f = { 0 };
	struct ugs u;

	if (argc > 2)
		bad("hooks: unexpected argument '%s': none allowed", argv[2]);
	(void)argv;
	open_or_exit(&u, &f);
	ugs_print_hooks(&u, stdout);
	ugs_close(&u);
	return 0;
}

static int cmd_serve(int argc, char **argv)
{
	struct ugs_filter f = { 0 };
	char line[64];
	struct ugs u;
	int i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--filter"))
			parse_filter(argc, argv, &i, &f);
		else
			bad("serve: unknown option '%s': allowed --filter", argv[i]);
	}
	open_or_exit(&u, &f);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	printf("ready %s\n", ugs_mode(&u));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!strcmp(line, "counters") || !strcmp(line, "histogram")) {
			if (ugs_read(&u)) {
				printf("# error: %s\n", strerror(errno));
			} else if (line[0] == 'c') {
				ugs_print_counters(&u, u.sum.cnt, stdout);
				ugs_print_marks(&u, stdout);
				ugs_print_skips(&u, stdout);
				ugs_print_diag(&u, stdout);
			} else {
				ugs_print_hist(&u, &u.sum, stdout);
			}
		} else if (!strcmp(line, "hooks")) {
			ugs_print_hooks(&u, stdout);
		} else if (!strcmp(line, "reset")) {
			if (ugs_reset(&u))
				printf("# error: %s\n", strerror(errno));
		} else if (!strcmp(line, "quit")) {
			break;
		} else {
			printf("# error: '%s': allowed counters, histogram, hooks, reset, quit\n",
			       line);
		}
		printf(".\n");
		if (fflush(stdout))
			break;
	}
	ugs_close(&u);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		bad("no command%s: allowed run, watch, hooks, serve, --help", "");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (!strcmp(argv[1], "watch"))
		return cmd_watch(argc, argv);
	if (!strcmp(argv[1], "hooks"))
		return cmd_hooks(argc, argv);
	if (!strcmp(argv[1], "serve"))
		return cmd_serve(argc, argv);
	bad("unknown command '%s': allowed run, watch, hooks, serve, --help", argv[1]);
	return 1;
}
