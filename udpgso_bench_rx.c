// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_rx: the receive side of the udpgso benchmarks.
 *
 * Flag-compatible with the kernel selftest of the same name
 * (tools/testing/selftests/net/udpgso_bench_rx.c): -4 -b -C -G -l -n -p -r
 * -R -S -t -v keep their letters and meanings; -6 (the default family) is
 * accepted so that tx and rx take the same family flag.  Beyond upstream:
 * recvmsg and recvmmsg, UDP_GRO reads split back into datagrams,
 * SO_REUSEPORT groups with one thread per socket, sequence-stamp accounting
 * (loss, duplicates, reordering per flow) and a JSON summary.  See
 * docs/tools.md.
 *
 * Threads: one worker per socket reads; the main thread sleeps in 10 ms
 * ticks, prints upstream's per-second lines, runs the -C/-R timeouts and
 * handles SIGINT/SIGTERM.  A stop sets one flag (and wakes the main thread
 * through an eventfd); a waiting worker sees it within a 10 ms poll.  The
 * options are in udpgso_bench_rx_opts.c, the summary in
 * udpgso_bench_rx_report.c.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

#include "udpgso_bench_rx.h"

static const struct rx_cfg *cfg;
static struct worker *workers;
static struct flow *flows;
static int g_efd = -1;
static int g_stop;
static uint64_t g_reads;		/* reads so far, for -n across threads */

static void rx_stop(int reason)
{
	int none = STOP_NONE, saved = errno;
	uint64_t one = 1;
	ssize_t n;

	__atomic_compare_exchange_n(&g_stop, &none, reason, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	/* a failed write means the counter is already non-zero: readable */
	n = write(g_efd, &one, sizeof(one));
	(void)n;
	errno = saved;
}

static inline bool stopping(void)
{
	return __atomic_load_n(&g_stop, __ATOMIC_RELAXED) != STOP_NONE;
}

static void on_signal(int sig)
{
	(void)sig;
	rx_stop(STOP_SIGNAL);
}

/* ---- sequence numbers ---------------------------------------------------- */

static void flow_grow(struct flow *f, uint64_t need)
{
	uint64_t n = f->nwords ? f->nwords : 64, *bits;

	while (n < need)
		n *= 2;
	if (n > SEQ_WINDOW / 64)
		n = SEQ_WINDOW / 64;
	bits = realloc(f->bits, n * sizeof(*bits));
	if (!bits)
		ug_die_errno(1, "sequence bitmap");
	memset(bits + f->nwords, 0, (n - f->nwords) * sizeof(*bits));
	f->bits = bits;
	f->nwords = n;
}

/*
 * Exact within SEQ_WINDOW sequence numbers below the highest one seen: a
 * number seen before is a duplicate; a new one below the highest is
 * reordered; loss is what never arrived below the highest.  An arrival
 * older than the window counts as reordered (it cannot be told from a dup).
 */
static void flow_record(struct flow *f, uint64_t s)
{
	uint64_t off, w, bit;

	if (s < f->base) {
		f->distinct++;
		f->reorder++;
		return;
	}
	off = s - f->base;
	if (off >= SEQ_WINDOW) {
		uint64_t shift = (off - SEQ_WINDOW / 2) / 64;

		if (shift >= f->nwords) {
			memset(f->bits, 0, f->nwords * sizeof(*f->bits));
		} else {
			memmove(f->bits, f->bits + shift,
				(f->nwords - shift) * sizeof(*f->bits));
			memset(f->bits + f->nwords - shift, 0, shift * sizeof(*f->bits));
		}
		f->base += shift * 64;
		off = s - f->base;
	}
	w = off / 64;
	bit = 1ull << (off % 64);
	if (w >= f->nwords)
		flow_grow(f, w + 1);
	if (f->bits[w] & bit) {
		f->dup++;
		return;
	}
	f->bits[w] |= bit;
	f->distinct++;
	if (f->seen && s < f->highest) {
		f->reorder++;
	} else {
		f->highest = s;
		f->seen = true;
	}
}

/* ---- per datagram -------------------------------------------------------- */

/* the first bad byte of @p from @start against the pattern from @phase */
static void verify_fail(struct worker *w, const uint8_t *p, size_t start, size_t len,
			size_t phase)
{
	size_t i;

	if (!w->err[E_VERIFY]++) {
		w->bad_dgram = w->datagrams;
		w->bad_len = len;
		w->bad_off = len;
		w->bad_got = w->bad_want = -1;
		for (i = start; i < len; i++) {
			if (p[i] != ug_pattern[phase + i]) {
				w->bad_off = i;
				w->bad_got = p[i];
				w->bad_want = ug_pattern[phase + i];
				break;
			}
		}
	}
}

static void rx_datagram(struct worker *w, const uint8_t *p, size_t len)
{
	uint32_t id;
	uint64_t seq;
	size_t phase;

	if (!cfg->seq) {
		/*
		 * As upstream's -v: a run of consecutive letters from any
		 * letter (its sender cuts one a..z run anywhere; ours starts
		 * each datagram at 'a'); an empty datagram is refused.
		 */
		phase = len && p[0] >= 'a' && p[0] <= 'z' ? p[0] - 'a' : 0;
		if (!len || ug_check_pattern(p, phase, len))
			verify_fail(w, p, 0, len, phase);
		return;
	}
	if (ug_read_stamp(p, len, &id, &seq) || id >= (uint32_t)cfg->flows) {
		w->err[E_STAMP]++;
		return;
	}
	if (len > (size_t)UG_HDR_LEN &&
	    ug_check_pattern(p + UG_HDR_LEN, UG_HDR_LEN, len - UG_HDR_LEN))
		verify_fail(w, p, UG_HDR_LEN, len, 0);
	if (cfg->nworkers > 1) {
		pthread_mutex_lock(&flows[id].lock);
		flow_record(&flows[id], seq);
		pthread_mutex_unlock(&flows[id].lock);
	} else {
		flow_record(&flows[id], seq);
	}
}

/*
 * One read of @len bytes (the full length: MSG_TRUNC), @gso the UDP_GRO
 * cmsg or -1.  -l and -S apply to the read, as upstream's; a GRO read is
 * split into gso_size datagrams (the last may be shorter) for counting,
 * stamps and verification.
 */
static void rx_read(struct worker *w, const uint8_t *p, size_t len, size_t cap, int gso)
{
	size_t seg, off = 0, l;
	bool data = cfg->read_all;

	w->reads++;
	w->bytes += len;
	if (gso > 0)
		w->gro_reads++;
	if (cfg->exp_gso && gso != cfg->exp_gso && !w->err[E_GSO]++)
		w->first_bad_gso = gso;
	if (cfg->exp_len && (long long)len != cfg->exp_len && !w->err[E_LEN]++)
		w->first_bad_len = len;
	if (data && len > cap) {
		w->err[E_TRUNC]++;
		data = false;
	}
	if (!data) {
		w->datagrams += gso > 0 && len ? (len + gso - 1) / gso : 1;
		return;
	}
	seg = gso > 0 ? (size_t)gso : len;
	do {
		l = len - off < seg ? len - off : seg;
		if (cfg->verify || cfg->seq)
			rx_datagram(w, p + off, l);
		w->datagrams++;
		off += l;
	} while (off < len);
}

/* ---- the read loops ------------------------------------------------------ */

/*
 * wait until @fd is readable: 0, or -1 when asked to stop.  One fd and a
 * RX_TICK_MS timeout, as upstream's do_poll: a stop is seen within a tick,
 * and a wake-up does not pay for polling the stop eventfd as well.
 */
static int rx_wait(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	while (!stopping()) {
		r = poll(&pfd, 1, RX_TICK_MS);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ug_die_errno(1, "poll");
		}
		if (r > 0)
			return 0;
	}
	return -1;
}

/*
 * --kstamp: the kernel's receive stamp of the last datagram a read returned
 * (SIOCGSTAMPNS, CLOCK_REALTIME ns; 0 when none).  The reader's own clock
 * puts the window's edges where it woke to read, a wake-up latency after the
 * data arrived; a paced run's slices on a 2-vCPU VM had windows about 1 ms
 * longer than their bytes at one edge in 2-21% of them
 * (results/known-quantum-2026-11-28).  A datagram that arrived before the
 * socket's first ioctl turned stamping on has none, and the kernel answers
 * with the time of the call: the reader's edge, as without --kstamp.
 */
static uint64_t rx_kstamp(int fd)
{
	struct timespec ts;

	if (ioctl(fd, SIOCGSTAMPNS, &ts) || ts.tv_sec <= 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The time of the last read, taken when the reads pause (EAGAIN) or end,
 * not after every read: the clock is read once per burst.  The pause is
 * found by the next call, a few microseconds after the last read.
 */
static void rx_stamp(struct worker *w)
{
	if (w->unstamped) {
		w->last_ns = ug_now_ns();
		if (cfg->kstamp)
			w->klast_ns = rx_kstamp(w->fd);
		w->unstamped = false;
	}
}

/*
 * An empty socket.  A reader that sleeps in poll() at once is woken by the
 * sender's next datagram: the wake-up runs on the sending CPU, in its
 * softirq (sock_def_readable, measured at 4-9% of a loopback sender's CPU
 * time), so the receiver would slow down the path it measures.  Unless
 * --poll-wait (upstream's way), nap RX_NAP_US on our own timer (no waiter
 * on the socket, nothing for the sender to wake) and read again; poll()
 * only after RX_NAPS naps found nothing (traffic stopped).
 */
static int rx_empty(struct worker *w)
{
	struct timespec nap = { 0, RX_NAP_US * 1000 };

	if (cfg->poll_wait || w->naps >= RX_NAPS) {
		w->polls++;
		return rx_wait(w->fd);
	}
	w->naps++;
	w->nap_count++;
	nanosleep(&nap, NULL);
	return stopping() ? -1 : 0;
}

/* a failed read: 0 to go on, -1 to stop */
static int rx_fail(struct worker *w)
{
	switch (errno) {
	case EAGAIN:
		rx_stamp(w);
		return rx_empty(w);
	case EINTR:
		return 0;
	case EBADF: case EFAULT: case EINVAL: case ENOTSOCK:
		ug_die_errno(1, "socket %d: read", w->idx);
	default:
		if (!w->err[E_RECV]++)
			w->first_recv_errno = errno;
		return 0;
	}
}

/* reads still allowed by -n, at most @max */
static unsigned int rx_budget(unsigned int max)
{
	uint64_t done;

	if (!cfg->exp_nr)
		return max;
	done = __atomic_load_n(&g_reads, __ATOMIC_RELAXED);
	if (done >= (uint64_t)cfg->exp_nr)
		return 0;
	return (uint64_t)cfg->exp_nr - done < max ? (uint64_t)cfg->exp_nr - done : max;
}

/* after a call that returned @n reads, taken at @t0 (0 once started) */
static void rx_account(struct worker *w, uint64_t t0, unsigned int n)
{
	w->calls++;
	w->unstamped = true;
	w->naps = 0;
	if (!w->first_ns) {
		w->first_ns = t0;
		if (cfg->kstamp)
			w->kfirst_ns = rx_kstamp(w->fd);
		__atomic_store_n(&w->started, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&w->pub_bytes, w->bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&w->pub_calls, w->calls, __ATOMIC_RELAXED);
	if (cfg->exp_nr && __atomic_add_fetch(&g_reads, n, __ATOMIC_RELAXED) >=
	    (uint64_t)cfg->exp_nr)
		rx_stop(STOP_COUNT);
}

/* one receive call of the configured kind: how many messages, or -1 */
static int rx_call(struct worker *w, unsigned int vlen)
{
	ssize_t r;

	switch (cfg->mode) {
	case MODE_RECV:
		r = recv(w->fd, w->iovs[0].iov_base, w->iovs[0].iov_len,
			 MSG_TRUNC | MSG_DONTWAIT);
		break;
	case MODE_RECVMSG:
		r = recvmsg(w->fd, &w->msgs[0].msg_hdr, MSG_TRUNC | MSG_DONTWAIT);
		break;
	default:
		return recvmmsg(w->fd, w->msgs, vlen, MSG_TRUNC | MSG_DONTWAIT, NULL);
	}
	if (r < 0)
		return -1;
	w->msgs[0].msg_len = r;
	return 1;
}

static void loop_udp(struct worker *w)
{
	size_t cap = cfg->read_all ? RX_MSG_LEN : 0;
	bool cm = cfg->gro || cfg->exp_gso;
	unsigned int vlen;
	uint64_t t0;
	int i, r;

	for (i = 0; i < cfg->batch; i++) {
		struct msghdr *m = &w->msgs[i].msg_hdr;

		w->iovs[i].iov_base = w->buf + i * cap;
		w->iovs[i].iov_len = cap;
		m->msg_iov = &w->iovs[i];
		m->msg_iovlen = 1;
		m->msg_control = cm ? w->ctrl + i * RX_CTRL_LEN : NULL;
	}
	/*
	 * --kstamp: the first call reads one message, so that the stamp after it
	 * is the first datagram's, not the last of a batch that piled up while
	 * the reader slept
	 */
	while (!stopping() && (vlen = rx_budget(cfg->kstamp && !w->first_ns ? 1 : cfg->batch))) {
		if (cm)
			for (i = 0; i < (int)vlen; i++)
				w->msgs[i].msg_hdr.msg_controllen = RX_CTRL_LEN;
		t0 = w->first_ns ? 0 : ug_now_ns();
		r = rx_call(w, vlen);
		if (r < 0) {
			if (rx_fail(w))
				break;
			continue;
		}
		for (i = 0; i < r; i++)
			rx_read(w, (uint8_t *)w->iovs[i].iov_base, w->msgs[i].msg_len, cap,
				cm ? ug_cmsg_gro_size(&w->msgs[i].msg_hdr) : -1);
		rx_account(w, t0, r);
	}
	rx_stamp(w);
}

/* TCP, as upstream: one connection; without -r the data is dropped unread */
static void loop_tcp(struct worker *w)
{
	int lfd = w->fd, flags = MSG_DONTWAIT | (cfg->read_all ? 0 : MSG_TRUNC);
	void *buf = cfg->read_all ? w->buf : NULL;
	uint64_t t0;
	ssize_t r;

	for (;;) {
		if (rx_wait(lfd))
			return;
		w->fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (w->fd >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
			ug_die_errno(1, "accept");
	}
	close(lfd);
	__atomic_store_n(&w->started, 1, __ATOMIC_RELAXED);
	while (!stopping() && rx_budget(1)) {
		t0 = w->first_ns ? 0 : ug_now_ns();
		r = recv(w->fd, buf, RX_TCP_LEN, flags);
		if (r < 0) {
			if (rx_fail(w))
				break;
			continue;
		}
		if (!r) {
			rx_stop(STOP_EOF);
			break;
		}
		w->reads++;
		w->datagrams++;
		w->bytes += r;
		rx_account(w, t0, 1);
	}
	rx_stamp(w);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* naps of RX_NAP_US, not RX_NAP_US plus the default 50 us slack */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (cfg->tcp)
		loop_tcp(w);
	else
		loop_udp(w);
	return NULL;
}

/* ---- setup ----------------------------------------------------------------- */

static int rx_socket(void)
{
	int fd, one = 1, zero = 0, val;
	char addr[80];

	fd = socket(cfg->family, (cfg->tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ug_die_errno(1, "socket");
	if (cfg->rcvbuf) {
		val = cfg->rcvbuf;
		/* FORCE passes net.core.rmem_max when we may */
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &val, sizeof(val)) &&
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)))
			ug_die_errno(1, "--rcvbuf %lld: setsockopt", cfg->rcvbuf);
	} else {
		val = RX_RCVBUF_DEF;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)))
			ug_die_errno(1, "setsockopt SO_RCVBUF");
	}
	/* upstream sets SO_REUSEPORT on every socket; only a group needs it */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) &&
	    cfg->reuseport > 1) {
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP)
			ug_skip("SO_REUSEPORT not supported by kernel %s",
				ug_kernel_release());
		ug_die_errno(1, "setsockopt SO_REUSEPORT");
	}
	/* the default IPv6 socket is dual-stack, whatever bindv6only says */
	if (cfg->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	/*
	 * --kstamp: the socket's first SIOCGSTAMPNS turns its receive stamps on
	 * (ENOENT: nothing read yet), before bind, so before the first datagram
	 */
	if (cfg->kstamp) {
		struct timespec ts;

		if (ioctl(fd, SIOCGSTAMPNS, &ts) && errno != ENOENT) {
			if (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP)
				ug_skip("--kstamp: SIOCGSTAMPNS not supported by kernel %s",
					ug_kernel_release());
			ug_die_errno(1, "--kstamp: ioctl SIOCGSTAMPNS");
		}
	}
	if (bind(fd, (struct sockaddr *)&cfg->bind_addr, cfg->bind_len))
		ug_die_errno(1, "bind %s", ug_addr_str(&cfg->bind_addr, addr, sizeof(addr)));
	if (cfg->gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one))) {
		if (errno == ENOPROTOOPT || errno == EOPNOTSUPP)
			ug_skip("UDP_GRO not supported by kernel %s", ug_kernel_release());
		ug_die_errno(1, "setsockopt UDP_GRO");
	}
	if (cfg->tcp && listen(fd, 1))
		ug_die_errno(1, "listen");
	return fd;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		ug_die_errno(1, "out of memory");
	return p;
}

static void worker_init(struct worker *w, int idx, int fd)
{
	size_t buflen;

	w->idx = idx;
	w->fd = fd;
	if (cfg->tcp)
		buflen = cfg->read_all ? RX_TCP_LEN : 1;
	else
		buflen = cfg->read_all ? (size_t)cfg->batch * RX_MSG_LEN : 1;
	w->buf = xcalloc(1, buflen);
	memset(w->buf, 0, buflen);	/* fault the pages in before the clock runs */
	w->msgs = xcalloc(cfg->batch, sizeof(*w->msgs));
	w->iovs = xcalloc(cfg->batch, sizeof(*w->iovs));
	w->ctrl = xcalloc(cfg->batch, RX_CTRL_LEN);
}

static void start_workers(void)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int i, err;

	for (i = 0; i < cfg->nworkers; i++) {
		pthread_attr_init(&attr);
		if (cfg->ncpus) {
			CPU_ZERO(&set);
			CPU_SET(cfg->cpus[i % cfg->ncpus], &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		err = pthread_create(&workers[i].thread, &attr, worker_main, &workers[i]);
		pthread_attr_destroy(&attr);
		if (err) {
			errno = err;
			if (cfg->ncpus)
				ug_die_errno(1, "--cpu %lld: thread %d", cfg->cpus[i % cfg->ncpus], i);
			ug_die_errno(1, "pthread_create");
		}
	}
}

/* ---- main thread: timeouts and the per-second lines ---------------------- */

static void monitor(void)
{
	uint64_t start = ug_now_ns(), now, last_prog = start, last_rep = start;
	uint64_t calls, bytes, prev_calls = 0, rep_calls = 0, rep_bytes = 0;
	struct pollfd pfd = { .fd = g_efd, .events = POLLIN };
	bool started = false, any;
	int i;

	while (!stopping()) {
		poll(&pfd, 1, RX_TICK_MS);
		now = ug_now_ns();
		calls = bytes = 0;
		any = false;
		for (i = 0; i < cfg->nworkers; i++) {
			calls += __atomic_load_n(&workers[i].pub_calls, __ATOMIC_RELAXED);
			bytes += __atomic_load_n(&workers[i].pub_bytes, __ATOMIC_RELAXED);
			any |= __atomic_load_n(&workers[i].started, __ATOMIC_RELAXED);
		}
		if (calls != prev_calls) {
			prev_calls = calls;
			last_prog = now;
		}
		/* -C: the wait for the first datagram (TCP: the connection) */
		if (!started && (any || calls)) {
			started = true;
			last_prog = now;
		}
		if (!started && cfg->connect_ms &&
		    now - start >= (uint64_t)cfg->connect_ms * 1000000)
			rx_stop(STOP_CONNECT_TIMEOUT);
		/* -R: the longest pause between reads after that */
		if (started && cfg->rcv_ms && now - last_prog >= (uint64_t)cfg->rcv_ms * 1000000)
			rx_stop(STOP_IDLE_TIMEOUT);
		/* upstream prints these only without -n */
		if (!cfg->exp_nr && now - last_rep >= 1000000000ull) {
			if (calls != rep_calls)
				ug_rate_line(cfg->tcp ? "tcp" : "udp", "rx", bytes - rep_bytes,
					     calls - rep_calls, -1);
			rep_calls = calls;
			rep_bytes = bytes;
			last_rep = now;
		}
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rx_cfg opts;
	struct rx_view view;
	uint64_t errors;
	int i;

	ug_set_prog(argv[0]);
	rx_parse_opts(argc, argv, &opts);
	cfg = &opts;
	ug_pattern_init();

	g_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g_efd < 0)
		ug_die_errno(1, "eventfd");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* bind every socket first: a test waits for the port to appear */
	workers = NULL;
	if (posix_memalign((void **)&workers, 64, cfg->nworkers * sizeof(*workers)))
		ug_die(1, "out of memory");
	memset(workers, 0, cfg->nworkers * sizeof(*workers));
	/* --threads N: N workers read each socket */
	for (i = 0; i < cfg->nworkers; i++)
		workers[i].fd = i % cfg->threads ? workers[i - 1].fd : rx_socket();
	for (i = 0; i < cfg->nworkers; i++)
		worker_init(&workers[i], i, workers[i].fd);
	if (cfg->seq) {
		flows = xcalloc(cfg->flows, sizeof(*flows));
		for (i = 0; i < cfg->flows; i++)
			pthread_mutex_init(&flows[i].lock, NULL);
	}

	start_workers();
	monitor();
	for (i = 0; i < cfg->nworkers; i++) {
		pthread_join(workers[i].thread, NULL);
		if (i % cfg->threads == cfg->threads - 1)
			close(workers[i].fd);
	}

	view.cfg = cfg;
	view.workers = workers;
	view.flows = flows;
	view.stop = g_stop;
	errors = rx_report(&view);

	for (i = 0; i < cfg->nworkers; i++) {
		free(workers[i].buf);
		free(workers[i].msgs);
		free(workers[i].iovs);
		free(workers[i].ctrl);
	}
	for (i = 0; cfg->seq && i < cfg->flows; i++)
		free(flows[i].bits);
	free(flows);
	free(workers);
	close(g_efd);
	return errors ? KSFT_FAIL : KSFT_PASS;
}
