// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire gro: where the receiver's GRO flushed inside a train, read
 * from a tracefs instance (device/gro.sh sets it up), and the expectation
 * cut there.
 *
 * GRO holds skbs across NAPI polls and flushes them at (6.1 and 6.12:
 * net/core/dev.c __napi_poll, napi_complete_done; net/core/gro.c
 * napi_gro_flush, __napi_gro_flush_chain):
 *  - a poll that used its whole budget: napi_gro_flush(n, HZ >= 1000): every
 *    held skb when HZ < 1000 (Debian's 250), else only those started in an
 *    older jiffy;
 *  - a poll that completes (napi_complete_done) with work and a
 *    gro_flush_timeout: napi_gro_flush(n, true), only the skbs started in
 *    an older jiffy ("NAPI_GRO_CB(skb)->age == jiffies" stays);
 *  - without work or without gro_flush_timeout: every held skb.
 * So which flush ends a held skb depends on jiffies.  The instance holds,
 * in time order: net:napi_gro_receive_entry (NETIF, our packets),
 * napi:napi_poll (NETIF: work, budget), and where the kernel has kprobe
 * events, two of ours: ugnapi_rx at napi_gro_receive (napi, jiffies: paired
 * with the tracepoint that follows on the same CPU) and ugnapi_flush at
 * napi_gro_flush (napi, flush_old, jiffies): the flushes themselves.
 * Without the kprobes the polls alone are read: a poll without work, or one
 * that used its budget (HZ < 1000 or unknown), flushes everything; a
 * completing poll with work is taken to keep the train's young skbs (the
 * sender's jiffy check covers the rest, as before).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpgso_wire_gro.h"

#define NAPI_MAX_CPUS	64
#define UDP_GRO_CNT	64	/* UDP_GRO_CNT_MAX */
#define GRO_MAX_SIZE	65536	/* gro_max_size, from the IP header */

/* one event of the train: a packet (skb) reaching GRO, or a flush */
struct tev {
	bool flush;
	int segs;		/* packet: the packets in it (GSO from the device) */
	int old;		/* flush: 1 only skbs of an older jiffy */
	long long jif;		/* -1 unknown */
	int work, budget;	/* the poll (flush from a poll), else -1 */
};

/* "key=value" in @line, as a number (base 0); false if absent */
static bool field(const char *line, const char *key, long long *v)
{
	const char *p = line;
	size_t kl = strlen(key);
	char *end;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			/* unsigned: a kernel pointer (napi=0xffff...) is above
			 * LLONG_MAX, which strtoll would make of every one
			 */
			*v = (long long)strtoull(p + kl + 1, &end, 0);
			return end != p + kl + 1;
		}
		p += kl;
	}
	return false;
}

static int cpu_of(const char *line)
{
	const char *p = strstr(line, "] ");
	const char *b;

	for (b = p; b && b > line && b[-1] != '['; b--)
		;
	return b && b > line ? atoi(b) : -1;
}

/*
 * the train's events from the trace text: @n packets expected; returns the
 * number of events, or -1 with @why when they cannot be told apart
 */
static int train_events(char *text, int skip, int n, int fam, int hz, struct tev *ev, int maxev,
			char *why, size_t wl, bool *kp)
{
	static long long rx_napi[NAPI_MAX_CPUS], rx_jif[NAPI_MAX_CPUS];
	static bool pending[NAPI_MAX_CPUS];
	char *line, *save = NULL, pollptr[40] = "";
	long long napi = 0, v;
	int nev = 0, pk = 0, cpu, i, hdr = fam == 4 ? 28 : 48;

	*kp = strstr(text, "ugnapi_flush:") || strstr(text, "ugnapi_rx:");
	for (i = 0; i < NAPI_MAX_CPUS; i++) {
		rx_napi[i] = 0;
		rx_jif[i] = -1;
		pending[i] = false;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || skip-- > 0)
			continue;
		cpu = cpu_of(line);
		if (cpu < 0 || cpu >= NAPI_MAX_CPUS)
			continue;
		if (nev >= maxev) {
			snprintf(why, wl, "more than %d events in the trace", maxev);
			return -1;
		}
		if (strstr(line, " ugnapi_rx:")) {
			rx_napi[cpu] = field(line, "napi", &v) ? v : 0;
			rx_jif[cpu] = field(line, "j", &v) ? v : -1;
		} else if (strstr(line, " napi_gro_receive_entry:")) {
			long long len = 0, gso = 0;

			field(line, "len", &len);
			field(line, "gso_size", &gso);
			ev[nev] = (struct tev){ .segs = 1, .jif = -1, .work = -1, .budget = -1 };
			if (gso > 0 && len > hdr)
				ev[nev].segs = (int)((len - hdr + gso - 1) / gso);
			if (*kp) {
				if (!rx_napi[cpu]) {
					snprintf(why, wl, "a packet without its ugnapi_rx event");
					return -1;
				}
				if (napi && napi != rx_napi[cpu]) {
					snprintf(why, wl, "the train reached two NAPI instances");
					return -1;
				}
				napi = rx_napi[cpu];
				ev[nev].jif = rx_jif[cpu];
				rx_napi[cpu] = 0;
			}
			pending[cpu] = true;
			pk += ev[nev++].segs;
		} else if (*kp && strstr(line, " ugnapi_flush:")) {
			long long old = 0, j = -1;

			/* before the train's first packet: whose napi is not known yet */
			if (!field(line, "napi", &v) || !pk || v != napi)
				continue;
			field(line, "old", &old);
			field(line, "j", &j);
			ev[nev++] = (struct tev){ .flush = true, .old = !!old, .jif = j,
						  .work = -1, .budget = -1 };
		} else if (strstr(line, " napi_poll:")) {
			const char *p = strstr(line, "napi struct ");
			char ptr[40] = "";
			int work = -1, budget = -1;
			const char *w = strstr(line, " work ");

			if (!p || sscanf(p, "napi struct %39s", ptr) != 1 || !w ||
			    sscanf(w, " work %d budget %d", &work, &budget) != 2)
				continue;
			/* the poll that follows our packets on a CPU is the rx NAPI's */
			if (pending[cpu]) {
				pending[cpu] = false;
				if (!pollptr[0]) {
					snprintf(pollptr, sizeof(pollptr), "%s", ptr);
				} else if (strcmp(pollptr, ptr)) {
					snprintf(why, wl, "the train reached two NAPI instances");
					return -1;
				}
			}
			if (!pk || strcmp(pollptr, ptr))
				continue;
			if (*kp) {
				/* the poll, for the report: the flushes are ugnapi_flush */
				ev[nev++] = (struct tev){ .flush = true, .old = -1, .jif = -1,
							  .work = work, .budget = budget };
				continue;
			}
			ev[nev] = (struct tev){ .flush = true, .old = 1, .jif = -1,
						.work = work, .budget = budget };
			if (!work || (work >= budget && hz < 1000))
				ev[nev].old = 0;
			nev++;
		}
	}
	if (pk != n) {
		snprintf(why, wl, "%d of the train's %d packets seen reaching GRO", pk, n);
		return -1;
	}
	/* what follows the last packet flushes nothing of the train */
	while (nev && ev[nev - 1].flush)
		nev--;
	return nev;
}

/* "0-2;3x" into group ids per packet and drop marks (as expect_out does) */
static int groups_of(const char *s, int n, int *grp, bool *drop)
{
	int g = 0, i, a, b;
	char *end;

	for (i = 0; i < n; i++)
		grp[i] = -1;
	while (*s) {
		drop[g] = false;
		for (;;) {
			a = (int)strtol(s, &end, 10);
			b = a;
			s = end;
			if (*s == '-') {
				b = (int)strtol(s + 1, &end, 10);
				s = end;
			}
			for (i = a; i <= b && i < n; i++)
				grp[i] = g;
			if (*s != ',')
				break;
			s++;
		}
		if (*s == 'x') {
			drop[g] = true;
			s++;
		}
		g++;
		if (*s == ';')
			s++;
	}
	return g;
}

/*
 * the expectation @groups cut at the flushes of @ev: every held part of a
 * group ends at a flush that covers it (all, or older than the flush's
 * jiffy); groups joined only by GRO's limits (64 packets, gro_max_size)
 * are one chain whose parts are counted again after a cut.  Writes the cut
 * groups to @out (a group's parts in its place); returns the number of
 * parts cut, or -1 with @why
 */
static int cut_groups(const struct gpkt *p, int n, int fam, const char *groups,
		      const struct tev *ev, int nev, char *out, size_t ol, char *why, size_t wl)
{
	int grp[GRO_MAX_PKTS], chain[GRO_MAX_PKTS], part[GRO_MAX_PKTS], last[GRO_MAX_PKTS];
	int cnt[GRO_MAX_PKTS], bytes[GRO_MAX_PKTS], open[GRO_MAX_PKTS];
	long long start[GRO_MAX_PKTS];
	bool drop[GRO_MAX_PKTS], atonce = false;
	int ng, g, h, i, k, e, pi = 0, cuts = 0, hdr = fam == 4 ? 28 : 48;
	size_t u = 0;

	ng = groups_of(groups, n, grp, drop);
	for (i = 0; i < n; i++) {
		if (grp[i] < 0) {
			snprintf(why, wl, "packet %d in no group of '%s'", i, groups);
			return -1;
		}
		atonce |= p[i].csum || p[i].opts;
	}
	/* chains: group h follows g in the same flow past a limit */
	for (g = 0; g < ng; g++) {
		chain[g] = g;
		cnt[g] = bytes[g] = 0;
		last[g] = -1;
	}
	for (i = 0; i < n; i++) {
		cnt[grp[i]]++;
		bytes[grp[i]] += p[i].len;
		last[grp[i]] = i;
	}
	for (g = 0; g + 1 < ng; g++) {
		h = g + 1;
		if (last[g] < 0 || last[g] + 1 >= n || grp[last[g] + 1] != h ||
		    p[last[g] + 1].flow != p[last[g]].flow)
			continue;
		if (cnt[g] == UDP_GRO_CNT || hdr + bytes[g] + p[last[g] + 1].len >= GRO_MAX_SIZE)
			chain[h] = chain[g];
	}
	for (g = 0; g < ng; g++) {
		open[g] = -1;
		cnt[g] = bytes[g] = 0;
	}
	for (i = 0; i < n; i++)
		last[chain[grp[i]]] = i;
	/* walk the train: packets in order, the flushes between them */
	for (e = 0; e < nev && pi < n; e++) {
		if (ev[e].flush) {
			if (ev[e].old < 0)
				continue;	/* a poll, reported only */
			for (g = 0; g < ng; g++) {
				if (open[g] < 0 || (ev[e].old && (ev[e].jif < 0 || start[g] < 0 ||
								  start[g] == ev[e].jif)))
					continue;
				open[g] = -1;
				cuts++;
			}
			continue;
		}
		for (k = 0; k < ev[e].segs && pi < n; k++, pi++) {
			g = chain[grp[pi]];
			if (open[g] >= 0 && hdr + bytes[g] + p[pi].len >= GRO_MAX_SIZE)
				open[g] = -1;
			if (open[g] < 0) {
				open[g] = pi;
				start[g] = ev[e].jif;
				cnt[g] = bytes[g] = 0;
			}
			part[pi] = open[g];
			cnt[g]++;
			bytes[g] += p[pi].len;
			if (cnt[g] == UDP_GRO_CNT || last[g] == pi)
				open[g] = -1;
		}
	}
	if (cuts && atonce) {
		snprintf(why, wl, "%d held skbs cut, and packets GRO sends up at once in the train: "
			 "their order against the cut skbs is not computed", cuts);
		return -2;
	}
	/* parts: in the place of their group, in packet order */
	out[0] = 0;
	for (g = 0; g < ng; g++) {
		for (i = 0; i < n; i++) {
			int a, b;
			bool first;

			if (grp[i] != g || part[i] != i)
				continue;
			/* the part's packets: ranges of consecutive indexes */
			u += snprintf(out + u, ol - u, "%s", u ? ";" : "");
			for (a = i, first = true; a < n && u < ol; a++) {
				if (part[a] != i)
					continue;
				for (b = a; b + 1 < n && part[b + 1] == i; b++)
					;
				u += snprintf(out + u, ol - u, "%s%d", first ? "" : ",", a);
				if (b > a)
					u += snprintf(out + u, ol - u, "-%d", b);
				first = false;
				a = b;
			}
			if (drop[g])
				u += snprintf(out + u, ol - u, "x");
		}
	}
	return cuts;
}

/* ---- the instance's trace, per train --------------------------------------- */

/* a file's text (malloc'd), or NULL */
static char *slurp(const char *path)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

/* the event lines in the trace now (those before a train: skipped after it) */
int napi_trace_lines(const char *path)
{
	char *text = slurp(path), *p;
	int n = 0;

	if (!text)
		ug_die_errno(1, "--napi-trace: cannot read %s", path);
	for (p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n += *p != '#' && *p != '\n';
	free(text);
	return n;
}

/*
 * the train just received (the trace's event lines after the first @skip),
 * judged against the flushes in @path (a trace file): 0 no held skb of
 * @groups (nor of @own, the case's own groups when --groups replaced them)
 * was cut; > 0 the parts cut, @cut is @groups cut there; -1 not known, -2
 * split but the cut not computable: @why says why.  @polls: the polls that
 * ended inside the train (work/budget), and whether the flushes were seen
 * (kprobes: @exact)
 */
int napi_train(const char *path, int skip, const struct gpkt *p, int n, int fam, int hz,
	       const char *groups, const char *own, char *cut, size_t cl, char *why, size_t wl,
	       char *polls, size_t pl, bool *exact)
{
	static struct tev ev[4 * GRO_MAX_OUT];
	char *text = slurp(path), other[512];
	int nev, c, c2 = 0, e, np = 0, nf = 0;
	size_t u = 0;
	bool kp;

	cut[0] = polls[0] = 0;
	if (!text) {
		snprintf(why, wl, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	nev = train_events(text, skip, n, fam, hz, ev, (int)ARRAY_SIZE(ev), why, wl, &kp);
	free(text);
	*exact = kp;
	if (nev < 0)
		return -1;
	for (e = 0; e < nev && u < pl; e++) {
		if (!ev[e].flush)
			continue;
		if (ev[e].work >= 0 && u < pl)
			u += snprintf(polls + u, pl - u, "%s%d/%d", np++ ? " " : "", ev[e].work,
				      ev[e].budget);
		if (ev[e].old >= 0 && kp)
			nf++;
	}
	if (u < pl)
		snprintf(polls + u, pl - u, "%s%s", np ? "" : "none",
			 kp ? "" : " (no kprobe events: flushes from the polls alone)");
	if (kp && u < pl)
		snprintf(polls + strlen(polls), pl - strlen(polls), "; %d GRO flushes inside", nf);
	c = cut_groups(p, n, fam, groups, ev, nev, cut, cl, why, wl);
	if (c < 0)
		return c;
	if (own && strcmp(own, groups)) {
		c2 = cut_groups(p, n, fam, own, ev, nev, other, sizeof(other), why, wl);
		if (c2 < 0)
			return c2;
	}
	return c + c2;
}

/*
 * udpgso_wire gro -4|-6 -c CASE --cut-from FILE [--groups G] [--hz N]: the
 * case's expectation cut at the flushes of a saved trace (the unit test of
 * the above): prints "not split" or "cut GROUPS (N cut)"; exit 0, or 4 and
 * the reason when it cannot be computed
 */
int napi_cut_from(const char *file, const struct gpkt *p, int n, int fam, int hz,
		  const char *groups, const char *own)
{
	char cut[512], why[256], polls[512];
	bool exact;
	int c = napi_train(file, 0, p, n, fam, hz, groups, own, cut, sizeof(cut), why, sizeof(why),
			   polls, sizeof(polls), &exact);

	if (c < 0) {
		printf("%s: %s\n", c == -2 ? "split, no cut" : "unknown", why);
		return KSFT_SKIP;
	}
	printf("polls inside: %s\n", polls);
	if (!c)
		printf("not split\n");
	else
		printf("cut %s (%d cut)\n", cut, c);
	return 0;
}
