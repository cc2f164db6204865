// SPDX-License-Identifier: GPL-2.0
/*
 * copyloop: how fast this CPU copies a working set, step by step.
 *
 *   copyloop CPU SECS STEP_MS BYTES
 *
 * Pinned to CPU, copies BYTES from one buffer to another round and round for
 * SECS seconds and prints one line per STEP_MS: "SECONDS BYTES_COPIED", the
 * seconds since the start (CLOCK_MONOTONIC) at the step's end.  A working set
 * that fits in the core's own caches (64 KiB) moves with the host's CPU time
 * and frequency; one far above the last-level cache (16 MiB) also moves with
 * the memory traffic of everything else on the host.  Used by host_noise.py
 * (scripts/bench/), which builds it, runs it and reads the lines.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long arg(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "copyloop: %s '%s': allowed %ld..%ld\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	double t0, t, edge, step, secs;
	unsigned long long copied = 0;
	unsigned char *a, *b;
	cpu_set_t set;
	long cpu, len;

	if (argc != 5) {
		fprintf(stderr, "usage: copyloop CPU SECS STEP_MS BYTES\n");
		return 2;
	}
	cpu = arg(argv[1], "CPU", 0, CPU_SETSIZE - 1);
	secs = arg(argv[2], "SECS", 1, 3600);
	step = arg(argv[3], "STEP_MS", 10, 10000) / 1000.0;
	len = arg(argv[4], "BYTES", 4096, 1L << 30);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "copyloop: CPU %ld: %s\n", cpu, strerror(errno));
		return 2;
	}
	a = malloc(len);
	b = malloc(len);
	if (!a || !b) {
		fprintf(stderr, "copyloop: %ld bytes: out of memory\n", len);
		return 2;
	}
	memset(a, 1, len);
	memset(b, 2, len);

	t0 = now();
	edge = t0 + step;
	for (;;) {
		memcpy(b, a, len);
		/* a data dependency between rounds: no copy can be skipped */
		a[copied % len] ^= b[(copied / 7) % len];
		copied += len;
		t = now();
		if (t < edge)
			continue;
		printf("%.6f %llu\n", t - t0, copied);
		copied = 0;
		edge += step;
		if (edge < t)	/* a step longer than STEP_MS: realign */
			edge = t + step;
		if (t - t0 >= secs)
			break;
	}
	fflush(stdout);
	free(a);
	free(b);
	return 0;
}
