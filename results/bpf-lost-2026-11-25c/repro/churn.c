// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <time.h>
#include <signal.h>
#include <bpf/libbpf.h>
#include "churn.skel.h"
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* churn SECS [USLEEP [HOLD_MS]]: attach/detach one tp_btf/netif_receive_skb
 * program for SECS s (or until SIGTERM), USLEEP us attached each time; with
 * HOLD_MS, first one link held that long (then released): the cycles made */
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	long us = argc > 2 ? atol(argv[2]) : 0;
	struct churn_bpf *sk = churn_bpf__open_and_load();
	struct timespec t0, t;
	long n = 0;

	if (!sk) { perror("load"); return 1; }
	signal(SIGTERM, on_term);
	long hold = argc > 3 ? atol(argv[3]) : 0;
	if (hold) {
		struct bpf_link *l1 = bpf_program__attach(sk->progs.churn_rx);
		printf("held\n"); fflush(stdout);
		usleep(hold * 1000);
		bpf_link__destroy(l1);
		clock_gettime(CLOCK_REALTIME, &t);
		printf("released %ld.%06ld\n", (long)t.tv_sec, t.tv_nsec / 1000);
		fflush(stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct bpf_link *l = bpf_program__attach(sk->progs.churn_rx);
		if (!l) { perror("attach"); return 1; }
		if (us) usleep(us);
		bpf_link__destroy(l);
		n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (stop || t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 > secs)
			break;
	}
	printf("churn cycles %ld runs %llu\n", n, (unsigned long long)sk->bss->runs);
	return 0;
}
