// SPDX-License-Identifier: GPL-2.0
/*
 * idleprobe CPU SECS BYTES IDLE: a copy loop pinned to CPU (SCHED_IDLE when
 * IDLE is 1) that prints, every 100 ms, "T BYTES CPU_S": CLOCK_MONOTONIC at
 * the step's end, the bytes copied in the step and the thread's own CPU
 * seconds in it (CLOCK_THREAD_CPUTIME_ID): its speed per CPU-second of its
 * own, whatever share of the CPU it got.  A one-off experiment (README here).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clk(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long n = 0, cp = 0;
	struct sched_param p = { 0 };
	double secs, t0, edge, c0;
	unsigned char *a, *b;
	cpu_set_t s;
	long len;

	if (argc != 5) {
		fprintf(stderr, "usage: idleprobe CPU SECS BYTES IDLE\n");
		return 2;
	}
	secs = atof(argv[2]);
	len = atol(argv[3]);
	CPU_ZERO(&s);
	CPU_SET(atoi(argv[1]), &s);
	if (sched_setaffinity(0, sizeof(s), &s) ||
	    (atoi(argv[4]) && sched_setscheduler(0, SCHED_IDLE, &p))) {
		perror("idleprobe");
		return 2;
	}
	a = malloc(len);
	b = malloc(len);
	if (len < 4096 || !a || !b)
		return 2;
	memset(a, 1, len);
	memset(b, 2, len);
	t0 = clk(CLOCK_MONOTONIC);
	edge = t0 + 0.1;
	c0 = clk(CLOCK_THREAD_CPUTIME_ID);
	for (;;) {
		double t, c;

		memcpy(b, a, len);
		a[cp % len] ^= b[(cp / 7) % len];
		cp += len;
		if (++n & 15)
			continue;
		t = clk(CLOCK_MONOTONIC);
		if (t < edge)
			continue;
		c = clk(CLOCK_THREAD_CPUTIME_ID);
		printf("%.4f %llu %.6f\n", t, cp, c - c0);
		cp = 0;
		c0 = c;
		edge += 0.1;
		if (t - t0 >= secs)
			break;
	}
	return 0;
}
