// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire: the two halves of a GSO send split over two hosts (or two
 * network namespaces), for a device between them (device/gso.sh):
 *
 *   remote: udpgso_wire expect ... -i DEV --count N   (captures, checks)
 *   local:  udpgso_wire send --no-capture --go-stdin ...   (sends)
 *
 * joined by a pipe from the first's stdout to the second's stdin: expect
 * arms its capture, prints `ready`, then one `go` per send it wants and
 * checks that send's segments to the end before asking for the next; the
 * sender sends once per `go` and exits at EOF.  The verdict (one PASS/FAIL
 * line per send, a totals line) goes to stderr or --out FILE, since
 * stdout is the control channel.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "udpgso_wire.h"

/* the control channel: the original stdout; stdout itself becomes the log */
static FILE *wire_ctl_open(const char *out)
{
	int fd = dup(STDOUT_FILENO);
	FILE *ctl;

	if (fd < 0)
		ug_die_errno(1, "dup stdout");
	ctl = fdopen(fd, "w");
	if (!ctl)
		ug_die_errno(1, "fdopen");
	if (out) {
		if (!freopen(out, "w", stdout))
			ug_die_errno(1, "--out %s", out);
	} else if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		ug_die_errno(1, "dup2 stderr");
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return ctl;
}

/* after a failure: the rest of that send's frames, read and dropped until
 * @quiet_ms pass without one, so that the next send starts clean
 */
static int wire_drain(int fd, int quiet_ms)
{
	static uint8_t buf[WIRE_FRAME_MAX];
	struct wire_frame f;
	int n = 0, pkttype;

	while (wire_packet_recv(fd, buf, sizeof(buf), wire_use_vnet(), quiet_ms, &f,
				&pkttype) > 0)
		n++;
	return n;
}

static bool wire_ctl_say(FILE *ctl, const char *word)
{
	return fprintf(ctl, "%s\n", word) > 0 && !fflush(ctl);
}

int wire_expect_run(const struct wire_cap *c, const struct wire_expect *e, int count,
		    const char *label, const char *out)
{
	long long segs = 0, frames = 0, gso_frames = 0, bytes = 0;
	unsigned int drops, drops_all = 0;
	int k, fails = 0, done = 0;
	struct wire_state st;
	char lab[192];
	FILE *ctl;

	signal(SIGPIPE, SIG_IGN);	/* a sender gone: EPIPE, said below */
	ctl = wire_ctl_open(out);
	wire_packet_drops(c->fd);	/* reading resets the count */
	if (!wire_ctl_say(ctl, "ready"))
		ug_die_errno(1, "expect: writing 'ready' to stdout");
	for (k = 0; k < count; k++) {
		snprintf(lab, sizeof(lab), "%s send %d/%d", label, k + 1, count);
		if (!wire_ctl_say(ctl, "go")) {
			printf("FAIL %s: the sender is gone (writing 'go': %s)\n", lab,
			       strerror(errno));
			fails += count - k;
			break;
		}
		if (wire_capture_check(c, e, lab, &st)) {
			fails++;
			printf("# %s: %d more frames drained after the failure\n", lab,
			       wire_drain(c->fd, c->linger_ms > 200 ? c->linger_ms : 200));
		}
		drops = wire_packet_drops(c->fd);
		if (drops)
			printf("# %s: the capture socket dropped %u frames: a loss above may be "
			       "the capture's\n", lab, drops);
		drops_all += drops;
		segs += st.segs;
		frames += st.frames;
		gso_frames += st.gso_frames;
		bytes += st.off;
		done++;
	}
	fclose(ctl);		/* EOF: the sender exits */
	printf("# expect: %d sends checked, %d failed; totals sends=%d segs=%lld frames=%lld "
	       "gso_frames=%lld payload=%lld capture_drops=%u\n", done, fails, done, segs,
	       frames, gso_frames, bytes, drops_all);
	return fails ? 1 : 0;
}

int wire_go_stdin(int fd, struct msghdr *msg, uint32_t total, int want_errno, const char *label)
{
	int sends = 0, fails = 0;
	char line[64];
	ssize_t n;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!strcmp(line, "ready"))
			continue;
		if (strcmp(line, "go"))
			ug_die(1, "send --go-stdin: stdin line '%s': allowed 'ready', 'go'", line);
		n = sendmsg(fd, msg, 0);
		sends++;
		if (want_errno) {
			if (n < 0 && errno == want_errno) {
				printf("PASS %s send %d: failed with %s as expected\n", label,
				       sends, strerror(errno));
			} else {
				fails++;
				printf("FAIL %s send %d: returned %zd (%s), expected %s\n", label,
				       sends, n, n < 0 ? strerror(errno) : "no error",
				       strerror(want_errno));
			}
		} else if (n != (ssize_t)total) {
			fails++;
			printf("FAIL %s send %d: sendmsg returned %zd (%s) of %u bytes\n", label,
			       sends, n, n < 0 ? strerror(errno) : "short", total);
		} else {
			printf("sent %s send %d: %u bytes\n", label, sends, total);
		}
		fflush(stdout);
	}
	printf("# send: %d sends on 'go', %d failed\n", sends, fails);
	return fails ? 1 : 0;
}
