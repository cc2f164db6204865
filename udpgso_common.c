// SPDX-License-Identifier: GPL-2.0
/* udpgso-lab shared helper, see udpgso_common.h */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>

#include "udpgso_common.h"

const char *ug_prog = "udpgso";

void ug_set_prog(const char *argv0)
{
	const char *p = strrchr(argv0, '/');

	ug_prog = p ? p + 1 : argv0;
}

static void ug_vmsg(const char *pfx, const char *fmt, va_list ap, int err)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", ug_prog, pfx);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void ug_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ug_vmsg("", fmt, ap, 0);
	va_end(ap);
	exit(code);
}

void ug_die_errno(int code, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	ug_vmsg("", fmt, ap, err);
	va_end(ap);
	exit(code);
}

void ug_die_if(bool bad, const char *fmt, ...)
{
	va_list ap;

	if (!bad)
		return;
	va_start(ap, fmt);
	ug_vmsg("", fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void ug_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ug_vmsg("SKIP: ", fmt, ap, 0);
	va_end(ap);
	exit(KSFT_SKIP);
}

void ug_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ug_vmsg("", fmt, ap, 0);
	va_end(ap);
}

static long long ug_parse_num(const char *opt, const char *arg,
			      long long min, long long max, bool suffix)
{
	long long mult = 1, v;
	char *end;

	if (!arg || !*arg)
		ug_die(1, "%s: missing value, allowed %lld..%lld", opt, min, max);
	errno = 0;
	v = strtoll(arg, &end, 0);
	if (end == arg || errno == ERANGE)
		goto bad;
	if (suffix && *end) {
		switch (*end) {
		case 'k': case 'K':
			mult = 1000;
			break;
		case 'm': case 'M':
			mult = 1000 * 1000;
			break;
		case 'g': case 'G':
			mult = 1000 * 1000 * 1000;
			break;
		default:
			goto bad;
		}
		end++;
		if (v > LLONG_MAX / mult || v < LLONG_MIN / mult)
			goto range;
		v *= mult;
	}
	if (*end)
		goto bad;
	if (v < min || v > max)
		goto range;
	return v;
bad:
	ug_die(1, "%s '%s': not a number, allowed %lld..%lld", opt, arg, min, max);
range:
	ug_die(1, "%s %s: out of range, allowed %lld..%lld", opt, arg, min, max);
}

long long ug_parse_ll(const char *opt, const char *arg,
		      long long min, long long max)
{
	return ug_parse_num(opt, arg, min, max, false);
}

long long ug_parse_ll_suffix(const char *opt, const char *arg,
			     long long min, long long max)
{
	return ug_parse_num(opt, arg, min, max, true);
}

/* MS as seconds: "2", "0.25" */
static const char *ug_ms_str(char *buf, size_t len, long long ms)
{
	if (ms % 1000)
		snprintf(buf, len, "%lld.%03lld", ms / 1000, ms % 1000);
	else
		snprintf(buf, len, "%lld", ms / 1000);
	return buf;
}

/*
 * Seconds with at most three decimals ("2", "0.5", "0.25") -> milliseconds,
 * exact (no floating point): -l of the tx tool, whose upstream form takes
 * whole seconds only.
 */
long long ug_parse_secs_ms(const char *opt, const char *arg,
			   long long min_ms, long long max_ms)
{
	long long ms = 0, scale = 1000;
	char lo[32], hi[32];
	const char *p = arg;

	if (!p || !*p)
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ms > max_ms)
			goto range;
		ms = ms * 10 + (*p - '0') * 1000;
	}
	if (p == arg)
		goto bad;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9' && scale > 1; p++) {
			scale /= 10;
			ms += (*p - '0') * scale;
		}
		if (scale == 1000)
			goto bad;
	}
	if (*p)
		goto bad;
	if (ms < min_ms || ms > max_ms)
		goto range;
	return ms;
bad:
	ug_die(1, "%s '%s': not a number of seconds, allowed %s..%s with at most 3 decimals",
	       opt, arg ? arg : "", ug_ms_str(lo, sizeof(lo), min_ms),
	       ug_ms_str(hi, sizeof(hi), max_ms));
range:
	ug_die(1, "%s %s: out of range, allowed %s..%s seconds", opt, arg,
	       ug_ms_str(lo, sizeof(lo), min_ms), ug_ms_str(hi, sizeof(hi), max_ms));
}

uint64_t ug_parse_rate_Bps(const char *opt, const char *arg,
			   uint64_t min_Bps, uint64_t max_Bps)
{
	double v, mult = 1;
	char *end;

	if (!arg || !*arg)
		goto bad;
	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno == ERANGE || isnan(v) || v < 0)
		goto bad;
	switch (*end) {
	case 'k': case 'K':
		mult = 1e3;
		end++;
		break;
	case 'm': case 'M':
		mult = 1e6;
		end++;
		break;
	case 'g': case 'G':
		mult = 1e9;
		end++;
		break;
	}
	/* bits unless the unit says bytes: "B" is bytes, "b" is bits */
	if (!strcmp(end, "B") || !strcmp(end, "Bps") || !strcmp(end, "Bytes"))
		v = v * mult;
	else if (!*end || !strcmp(end, "b") || !strcmp(end, "bit") ||
		 !strcmp(end, "bps"))
		v = v * mult / 8;
	else
		goto bad;
	if (v < (double)min_Bps || v > (double)max_Bps)
		ug_die(1, "%s %s: out of range, allowed %llu..%llu bytes/s "
		       "(%llu..%llu bit/s)", opt, arg,
		       (unsigned long long)min_Bps,
		       (unsigned long long)max_Bps,
		       (unsigned long long)min_Bps * 8,
		       (unsigned long long)max_Bps * 8);
	return (uint64_t)v;
bad:
	ug_die(1, "%s '%s': not a rate, allowed NUMBER[k|M|G][bit|B], "
	       "e.g. 100M (bit/s) or 12.5MB (bytes/s)", opt, arg ? arg : "");
}

int ug_parse_list(const char *opt, const char *arg, long long min,
		  long long max, long long *out, int max_items)
{
	char *copy, *tok, *save = NULL;
	int n = 0;

	if (!arg || !*arg)
		ug_die(1, "%s: missing value, allowed a comma separated list "
		       "of %lld..%lld", opt, min, max);
	copy = strdup(arg);
	if (!copy)
		ug_die_errno(1, "strdup");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max_items)
			ug_die(1, "%s: too many items, allowed at most %d", opt,
			       max_items);
		out[n++] = ug_parse_ll(opt, tok, min, max);
	}
	free(copy);
	if (!n)
		ug_die(1, "%s: empty list, allowed a comma separated list "
		       "of %lld..%lld", opt, min, max);
	return n;
}

int ug_parse_choice(const char *opt, const char *arg,
		    const char *const *choices)
{
	char allowed[256] = "";
	int i;

	for (i = 0; choices[i]; i++)
		if (arg && !strcmp(arg, choices[i]))
			return i;
	for (i = 0; choices[i]; i++) {
		if (i)
			strncat(allowed, "|", sizeof(allowed) - strlen(allowed) - 1);
		strncat(allowed, choices[i], sizeof(allowed) - strlen(allowed) - 1);
	}
	ug_die(1, "%s '%s': unknown value, allowed %s", opt, arg ? arg : "",
	       allowed);
}

/* ---- addresses ------------------------------------------------------ */

socklen_t ug_parse_addr(const char *opt, const char *str, int family,
			uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (void *)ss;
	struct sockaddr_in *a4 = (void *)ss;
	struct in_addr in4;

	memset(ss, 0, sizeof(*ss));
	if (!str || !*str)
		ug_die(1, "%s: missing address", opt);
	if (family != AF_INET6 && inet_pton(AF_INET, str, &in4) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		a4->sin_addr = in4;
		return sizeof(*a4);
	}
	if (family != AF_INET && inet_pton(AF_INET6, str, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		return sizeof(*a6);
	}
	if (family == AF_INET6 && inet_pton(AF_INET, str, &in4) == 1) {
		/*
		 * -6 with a dotted quad: its v4-mapped address, what a
		 * dual-stack socket sends to (upstream's tools refuse it)
		 */
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		a6->sin6_addr.s6_addr[10] = 0xff;
		a6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&a6->sin6_addr.s6_addr[12], &in4, 4);
		return sizeof(*a6);
	}
	ug_die(1, "%s '%s': not a numeric %s address", opt, str,
	       family == AF_INET ? "IPv4" :
	       family == AF_INET6 ? "IPv6" : "IPv4 or IPv6");
}

socklen_t ug_any_addr(int family, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a6 = (void *)ss;

		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		a6->sin6_addr = in6addr_any;
		return sizeof(*a6);
	}
	((struct sockaddr_in *)ss)->sin_family = AF_INET;
	((struct sockaddr_in *)ss)->sin_port = htons(port);
	((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_ANY);
	return sizeof(struct sockaddr_in);
}

void ug_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

uint16_t ug_get_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

const char *ug_addr_str(const struct sockaddr_storage *ss, char *buf,
			size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr,
			  ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ug_get_port(ss));
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ug_get_port(ss));
	}
	return buf;
}

int ug_udp_hdrlen(int family)
{
	return (family == AF_INET6 ? UG_IP6_HDR : UG_IP4_HDR) + UG_UDP_HDR;
}

int ug_max_udp_payload(int family)
{
	return family == AF_INET6 ? UG_MAX_UDP6 : UG_MAX_UDP4;
}

/* ---- cmsg ----------------------------------------------------------- */

int ug_cmsg_add(struct msghdr *msg, size_t bufsize, int level, int type,
		const void *data, size_t len)
{
	size_t used = msg->msg_controllen;
	struct cmsghdr *cm;

	if (used + CMSG_SPACE(len) > bufsize)
		return -1;
	cm = (struct cmsghdr *)((char *)msg->msg_control + used);
	memset(cm, 0, CMSG_SPACE(len));
	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), data, len);
	msg->msg_controllen = used + CMSG_SPACE(len);
	return 0;
}

int ug_cmsg_add_segment(struct msghdr *msg, size_t bufsize, uint16_t gso)
{
	return ug_cmsg_add(msg, bufsize, SOL_UDP, UDP_SEGMENT, &gso, sizeof(gso));
}

int ug_cmsg_add_txtime(struct msghdr *msg, size_t bufsize, uint64_t tstamp)
{
	return ug_cmsg_add(msg, bufsize, SOL_SOCKET, SCM_TXTIME, &tstamp,
			   sizeof(tstamp));
}

int ug_cmsg_gro_size(struct msghdr *msg)
{
	struct cmsghdr *cm;
	int v;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			return v;
		}
	}
	return -1;
}

/* ---- stamp and payload ---------------------------------------------- */

#define UG_PATTERN_LEN	(UG_MAX_UDP6 + 64)
static uint8_t ug_pattern_buf[UG_PATTERN_LEN];
const uint8_t *ug_pattern = ug_pattern_buf;

void ug_pattern_init(void)
{
	int i;

	for (i = 0; i < UG_PATTERN_LEN; i++)
		ug_pattern_buf[i] = 'a' + (i % 26);
}

static uint64_t ug_htonll(uint64_t v)
{
	return ((uint64_t)htonl(v & 0xffffffff) << 32) | htonl(v >> 32);
}

void ug_stamp(void *buf, uint32_t flow, uint64_t seq)
{
	struct ug_hdr h = {
		.magic = htonl(UG_MAGIC),
		.flow = htonl(flow),
		.seq = ug_htonll(seq),
	};

	memcpy(buf, &h, sizeof(h));
}

int ug_check_pattern(const void *buf, size_t off, size_t len)
{
	if (off + len > UG_PATTERN_LEN)
		return -1;
	return memcmp(buf, ug_pattern_buf + off, len) ? -1 : 0;
}

int ug_read_stamp(const void *buf, size_t len, uint32_t *flow, uint64_t *seq)
{
	struct ug_hdr h;

	if (len < sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	if (ntohl(h.magic) != UG_MAGIC)
		return -1;
	*flow = ntohl(h.flow);
	*seq = ug_htonll(h.seq);
	return 0;
}

/* ---- time and CPU --------------------------------------------------- */

uint64_t ug_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void ug_cpu_usage(double *user_s, double *sys_s)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys_s = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

const char *ug_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}

unsigned int ug_kernel_version(void)
{
	unsigned int a = 0, b = 0, c = 0;

	sscanf(ug_kernel_release(), "%u.%u.%u", &a, &b, &c);
	if (c > 255)
		c = 255;
	return UG_KVER(a, b, c);
}

/* ---- KTAP ----------------------------------------------------------- */

void ktap_header(struct ktap *t, int planned)
{
	memset(t, 0, sizeof(*t));
	t->planned = planned;
	printf("TAP version 13\n");
	if (planned)
		printf("1..%d\n", planned);
	fflush(stdout);
}

static void ktap_line(struct ktap *t, const char *status, const char *fmt,
		      va_list ap)
{
	t->n++;
	printf("%s %d ", status, t->n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

void ktap_fail(struct ktap *t, const char *fmt, ...)
{
	va_list ap;

	t->fail++;
	va_start(ap, fmt);
	ktap_line(t, "not ok", fmt, ap);
	va_end(ap);
}

void ktap_result(struct ktap *t, bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		t->pass++;
	else
		t->fail++;
	va_start(ap, fmt);
	ktap_line(t, ok ? "ok" : "not ok", fmt, ap);
	va_end(ap);
}

void ktap_info(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

int ktap_finish(struct ktap *t)
{
	if (!t->planned)
		printf("1..%d\n", t->n);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       t->pass, t->fail);
	fflush(stdout);
	if (t->fail || (t->planned && t->n != t->planned))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* ---- JSON ----------------------------------------------------------- */

static void ug_json_key(struct ug_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		j->first[j->depth] = false;
	}
	if (key) {
		fputc('"', j->f);
		for (; *key; key++) {
			if (*key == '"' || *key == '\\')
				fputc('\\', j->f);
			fputc(*key, j->f);
		}
		fputs("\":", j->f);
	}
}

static void ug_json_escape(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void ug_json_start(struct ug_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void ug_json_open(struct ug_json *j, const char *key, char c)
{
	ug_json_key(j, key);
	fputc(c, j->f);
	if (j->depth < UG_JSON_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

void ug_json_obj_open(struct ug_json *j, const char *key)
{
	ug_json_open(j, key, '{');
}

void ug_json_arr_open(struct ug_json *j, const char *key)
{
	ug_json_open(j, key, '[');
}

void ug_json_obj_close(struct ug_json *j)
{
	fputc('}', j->f);
	if (j->depth > 0)
		j->depth--;
}

void ug_json_arr_close(struct ug_json *j)
{
	fputc(']', j->f);
	if (j->depth > 0)
		j->depth--;
}

void ug_json_str(struct ug_json *j, const char *key, const char *val)
{
	ug_json_key(j, key);
	if (val)
		ug_json_escape(j->f, val);
	else
		fputs("null", j->f);
}

void ug_json_u64(struct ug_json *j, const char *key, uint64_t val)
{
	ug_json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)val);
}

void ug_json_i64(struct ug_json *j, const char *key, int64_t val)
{
	ug_json_key(j, key);
	fprintf(j->f, "%lld", (long long)val);
}

void ug_json_dbl(struct ug_json *j, const char *key, double val)
{
	ug_json_key(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.6g", val);
	else
		fputs("null", j->f);
}

void ug_json_bool(struct ug_json *j, const char *key, bool val)
{
	ug_json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

void ug_json_null(struct ug_json *j, const char *key)
{
	ug_json_key(j, key);
	fputs("null", j->f);
}

void ug_json_end(struct ug_json *j)
{
	while (j->depth > 0) {
		/* callers close what they open; this is a safety net */
		fputc('}', j->f);
		j->depth--;
	}
	fputc('\n', j->f);
	fflush(j->f);
}

void ug_json_i64_or_null(struct ug_json *j, const char *key, bool set, int64_t val)
{
	if (set)
		ug_json_i64(j, key, val);
	else
		ug_json_null(j, key);
}

/* ---- the summary both benchmark tools print -------------------------- */

void ug_json_head(struct ug_json *j, const char *tool, int family, bool tcp,
		  const char *mode)
{
	ug_json_start(j, stdout);
	ug_json_obj_open(j, NULL);
	ug_json_str(j, "tool", tool);
	ug_json_i64(j, "version", 1);
	ug_json_str(j, "kernel", ug_kernel_release());
	ug_json_str(j, "family", family == AF_INET6 ? "ipv6" : "ipv4");
	ug_json_str(j, "proto", tcp ? "tcp" : "udp");
	ug_json_str(j, "mode", mode);
}

static double ug_per_s(double v, double s)
{
	return s > 0 ? v / s : 0;
}

void ug_json_totals(struct ug_json *j, const struct ug_totals *t)
{
	uint64_t errors = 0;
	int e;

	for (e = 0; e < t->nerr; e++)
		errors += t->err[e];
	ug_json_dbl(j, "duration_s", t->duration_s);
	ug_json_u64(j, "bytes", t->bytes);
	ug_json_u64(j, "datagrams", t->datagrams);
	ug_json_u64(j, "calls", t->calls);
	ug_json_dbl(j, "MBps", ug_per_s(t->bytes / 1048576.0, t->duration_s));
	ug_json_dbl(j, "Mpps", ug_per_s(t->datagrams / 1e6, t->duration_s));
	ug_json_dbl(j, "calls_per_s", ug_per_s(t->calls, t->duration_s));
	ug_json_dbl(j, "bytes_per_call", t->calls ? (double)t->bytes / t->calls : 0);
	ug_json_dbl(j, "cpu_user_s", t->cpu_user_s);
	ug_json_dbl(j, "cpu_sys_s", t->cpu_sys_s);
	ug_json_u64(j, "errors", errors);
	ug_json_obj_open(j, "error_detail");
	for (e = 0; e < t->nerr; e++)
		ug_json_u64(j, t->err_names[e], t->err[e]);
	ug_json_obj_close(j);
}

void ug_rate_line(const char *proto, const char *dir, unsigned long long bytes_s,
		  unsigned long long calls_s, long long msgs_s)
{
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "%s %s: %6llu MB/s %8llu calls/s", proto, dir,
		     bytes_s >> 20, calls_s);
	if (msgs_s >= 0 && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " %6lld msg/s", msgs_s);
	fprintf(stderr, "%s\n", line);
}
