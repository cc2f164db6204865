// SPDX-License-Identifier: GPL-2.0
/*
 * ug_sendloop: UDP sends in marked windows for the ugcount plugin
 * (scripts/bench/icount/ugcount.c, scripts/bench/kmod_icount.sh).  After the socket is
 * set up it executes the plugin's marker, then W times: N sends of LEN
 * bytes (with UDP_SEGMENT GSO_SIZE when GSO_SIZE > 0, else one datagram per
 * send), a pause of PAUSE_MS for the receiver to drain, and a marker.  So no
 * process start, exec or page fault of the set-up falls inside a window.
 *
 *   ug_sendloop IPV4_DST PORT LEN GSO_SIZE N W PAUSE_MS
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

static void mark(void)
{
	/* nopl 0x55470000(%rax,%rax,1): the plugin's marker */
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x47, 0x55");
}

static long arg(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "ug_sendloop: %s '%s': allowed %ld..%ld\n", name, s, lo, hi);
		exit(1);
	}
	return v;
}

int main(int argc, char **argv)
{
	static char buf[65000];
	struct sockaddr_in dst = { .sin_family = AF_INET };
	long port, len, gso, n, w, pause_ms, i, j;
	struct timespec ts;
	int fd, v;

	if (argc != 8) {
		fprintf(stderr, "usage: ug_sendloop IPV4_DST PORT LEN GSO_SIZE N W PAUSE_MS\n");
		return 1;
	}
	if (inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "ug_sendloop: IPV4_DST '%s': allowed an IPv4 address\n", argv[1]);
		return 1;
	}
	port = arg("PORT", argv[2], 1, 65535);
	len = arg("LEN", argv[3], 1, sizeof(buf));
	gso = arg("GSO_SIZE", argv[4], 0, 65000);
	n = arg("N", argv[5], 1, 100000000);
	w = arg("W", argv[6], 1, 10000);
	pause_ms = arg("PAUSE_MS", argv[7], 0, 60000);
	dst.sin_port = htons(port);
	memset(buf, 'u', sizeof(buf));

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst))) {
		perror("ug_sendloop: socket/connect");
		return 1;
	}
	v = gso;
	if (gso && setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &v, sizeof(v))) {
		perror("ug_sendloop: UDP_SEGMENT");
		return 1;
	}
	ts.tv_sec = pause_ms / 1000;
	ts.tv_nsec = pause_ms % 1000 * 1000000;
	/* the first send outside the windows (route, neighbour, first faults) */
	if (send(fd, buf, len, 0) != len) {
		perror("ug_sendloop: send");
		return 1;
	}
	nanosleep(&ts, NULL);
	mark();
	for (i = 0; i < w; i++) {
		for (j = 0; j < n; j++) {
			if (send(fd, buf, len, 0) != len) {
				perror("ug_sendloop: send");
				return 1;
			}
		}
		nanosleep(&ts, NULL);
		mark();
	}
	close(fd);
	return 0;
}
