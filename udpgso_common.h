/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso-lab shared helper: what udpgso_bench_tx, udpgso_bench_rx and
 * udpgso all need.  Option parsing with range checks, address parsing,
 * cmsg builders, the datagram stamp (flow id + sequence number + payload
 * pattern), a small KTAP/kselftest writer, a streaming JSON writer and the
 * reporting both benchmark tools share (the JSON summary's head and
 * totals, the per-second line).
 *
 * _GNU_SOURCE comes from the Makefile (-D_GNU_SOURCE=), for every file.
 */
#ifndef UDPGSO_COMMON_H
#define UDPGSO_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

/* kselftest exit codes */
#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_XFAIL	2
#define KSFT_XPASS	3
#define KSFT_SKIP	4

#ifndef SOL_UDP
#define SOL_UDP		17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif
#ifndef UDP_GRO
#define UDP_GRO		104
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY	60
#endif
#ifndef SO_TXTIME
#define SO_TXTIME	61
#define SCM_TXTIME	SO_TXTIME
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY	0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY	5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED	1
#endif

/* IPv4/IPv6 + UDP header sizes, and the largest UDP payloads */
#define UG_IP4_HDR	20
#define UG_IP6_HDR	40
#define UG_UDP_HDR	8
/*
 * IPv4's total length (16 bits) counts its own header: 65535 - 20 - 8.
 * IPv6's payload length (16 bits) does not count the 40-byte fixed
 * header: 65535 - 8.  The kernel refuses one byte more with EMSGSIZE
 * (net/ipv6/ip6_output.c __ip6_append_data: at most
 * sizeof(ipv6hdr) + IPV6_MAXPLEN - headersize bytes of UDP header and
 * payload), plain or GSO.
 */
#define UG_MAX_UDP4	(65535 - UG_IP4_HDR - UG_UDP_HDR)	/* 65507 */
#define UG_MAX_UDP6	(65535 - UG_UDP_HDR)			/* 65527 */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- errors and option parsing -------------------------------------- */

/* program name used as the prefix of every error line */
extern const char *ug_prog;

void ug_set_prog(const char *argv0);
/* print "prog: msg" and exit(code) */
void ug_die(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* as ug_die, appending ": strerror(errno)" */
void ug_die_errno(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* as ug_die(1, ...) when @bad: options that cannot go together */
void ug_die_if(bool bad, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a missing kernel feature: "prog: SKIP: msg" and exit(KSFT_SKIP) */
void ug_skip(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
/* "prog: msg" on stderr, and the program goes on */
void ug_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse an integer option value.  On a malformed or out of range value,
 * print one line naming the option and the allowed range and exit 1:
 *   udpgso_bench_tx: -s 70000: out of range, allowed 1..65507
 * Accepts decimal or 0x hex; with @suffix, also k/K (1000), m/M, g/G.
 */
long long ug_parse_ll(const char *opt, const char *arg,
		      long long min, long long max);
long long ug_parse_secs_ms(const char *opt, const char *arg,
			   long long min_ms, long long max_ms);
long long ug_parse_ll_suffix(const char *opt, const char *arg,
			     long long min, long long max);
/* rate with optional suffix k/M/G (x1000) and unit "bit"/"bps" or "B"
 * (bytes); result in bytes per second
 */
uint64_t ug_parse_rate_Bps(const char *opt, const char *arg,
			   uint64_t min_Bps, uint64_t max_Bps);
/* comma separated list of integers in min..max; returns count, fills out */
int ug_parse_list(const char *opt, const char *arg, long long min,
		  long long max, long long *out, int max_items);
/* value must be one of @choices (NULL terminated); returns index */
int ug_parse_choice(const char *opt, const char *arg,
		    const char *const *choices);

/* ---- addresses ------------------------------------------------------ */

/*
 * Parse a numeric IPv4/IPv6 address for @family (AF_INET, AF_INET6, or
 * AF_UNSPEC to pick by syntax), fill @ss with @port.  An IPv4 address with
 * family AF_INET6 is mapped (::ffff:a.b.c.d), as upstream does.
 * Bad input: one line naming @opt, exit 1.  Returns the sockaddr length.
 */
socklen_t ug_parse_addr(const char *opt, const char *str, int family,
			uint16_t port, struct sockaddr_storage *ss);
/* wildcard address of @family with @port */
socklen_t ug_any_addr(int family, uint16_t port,
		      struct sockaddr_storage *ss);
void ug_set_port(struct sockaddr_storage *ss, uint16_t port);
uint16_t ug_get_port(const struct sockaddr_storage *ss);
/* "1.2.3.4:80" / "[::1]:80" into buf */
const char *ug_addr_str(const struct sockaddr_storage *ss, char *buf,
			size_t len);
/* IP + UDP header bytes for a socket of @family */
int ug_udp_hdrlen(int family);
/* largest UDP payload for @family (65507 or 65527) */
int ug_max_udp_payload(int family);

/* ---- cmsg builders and readers -------------------------------------- */

/*
 * Append a cmsg to @msg, whose msg_control points at a buffer of
 * @bufsize bytes and whose msg_controllen is the length used so far
 * (0 for the first).  Returns 0, or -1 when it does not fit.
 */
int ug_cmsg_add(struct msghdr *msg, size_t bufsize, int level, int type,
		const void *data, size_t len);
int ug_cmsg_add_segment(struct msghdr *msg, size_t bufsize, uint16_t gso);
int ug_cmsg_add_txtime(struct msghdr *msg, size_t bufsize, uint64_t tstamp);
/* UDP_GRO cmsg value (gso_size of a coalesced read), or -1 when absent */
int ug_cmsg_gro_size(struct msghdr *msg);

/* ---- datagram stamp and payload ------------------------------------- */

/*
 * Payload byte at datagram offset i is 'a' + i % 26, as upstream's
 * tools fill and check it.  With stamping, the first UG_HDR_LEN bytes are
 * replaced by struct ug_hdr (network byte order).
 */
#define UG_MAGIC	0x55475330u	/* "UGS0" */

struct ug_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;
} __attribute__((packed));

#define UG_HDR_LEN	((int)sizeof(struct ug_hdr))

/* the pattern, at least UG_MAX_UDP6 + 26 bytes long */
extern const uint8_t *ug_pattern;

void ug_pattern_init(void);
void ug_stamp(void *buf, uint32_t flow, uint64_t seq);
/* 0 when the @len bytes match the pattern from datagram offset @off */
int ug_check_pattern(const void *buf, size_t off, size_t len);
/* parse a stamp: 0 and fills flow/seq, -1 when the magic is wrong */
int ug_read_stamp(const void *buf, size_t len, uint32_t *flow,
		  uint64_t *seq);

/* ---- time and CPU --------------------------------------------------- */

uint64_t ug_now_ns(void);		/* CLOCK_MONOTONIC */
/* process user and system CPU seconds so far (getrusage) */
void ug_cpu_usage(double *user_s, double *sys_s);
/* the running kernel's release, e.g. 6.18.44; and as KERNEL_VERSION() */
const char *ug_kernel_release(void);
unsigned int ug_kernel_version(void);
#define UG_KVER(a, b, c)	(((a) << 16) + ((b) << 8) + (c))

/* ---- KTAP / kselftest output ---------------------------------------- */

struct ktap {
	int planned;
	int n;
	int pass;
	int fail;
};

void ktap_header(struct ktap *t, int planned);
void ktap_fail(struct ktap *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "ok" when @ok is true, else "not ok" */
void ktap_result(struct ktap *t, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "# ..." diagnostic line */
void ktap_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* print the totals line and return the kselftest exit code:
 * 1 on any failure (or fewer results than planned), else 0; a missing
 * feature skips the whole program instead (ug_skip)
 */
int ktap_finish(struct ktap *t);

/* ---- JSON writer ---------------------------------------------------- */

#define UG_JSON_DEPTH	16

struct ug_json {
	FILE *f;
	int depth;
	bool first[UG_JSON_DEPTH];
};

/* key is NULL inside arrays and for the top-level value */
void ug_json_start(struct ug_json *j, FILE *f);
void ug_json_obj_open(struct ug_json *j, const char *key);
void ug_json_obj_close(struct ug_json *j);
void ug_json_arr_open(struct ug_json *j, const char *key);
void ug_json_arr_close(struct ug_json *j);
void ug_json_str(struct ug_json *j, const char *key, const char *val);
void ug_json_u64(struct ug_json *j, const char *key, uint64_t val);
void ug_json_i64(struct ug_json *j, const char *key, int64_t val);
void ug_json_dbl(struct ug_json *j, const char *key, double val);
void ug_json_bool(struct ug_json *j, const char *key, bool val);
void ug_json_null(struct ug_json *j, const char *key);
/* @val when @set, else null */
void ug_json_i64_or_null(struct ug_json *j, const char *key, bool set, int64_t val);
/* closes what is open, writes the newline, flushes */
void ug_json_end(struct ug_json *j);

/* ---- reporting shared by udpgso_bench_tx and udpgso_bench_rx -------- */

/*
 * Start the summary object on stdout: tool, version (1), kernel, family
 * ("ipv4"/"ipv6"), proto ("udp"/"tcp"), mode.  The caller adds its
 * "options" object, then ug_json_totals, then its own keys.
 */
void ug_json_head(struct ug_json *j, const char *tool, int family, bool tcp,
		  const char *mode);

struct ug_totals {
	double duration_s;
	uint64_t bytes, datagrams, calls;
	double cpu_user_s, cpu_sys_s;
	const char *const *err_names;	/* error_detail keys */
	const uint64_t *err;		/* their counts; "errors" is the sum */
	int nerr;
};

/* duration_s, bytes, datagrams, calls, MBps, Mpps, calls_per_s,
 * bytes_per_call, cpu_user_s, cpu_sys_s, errors, error_detail
 */
void ug_json_totals(struct ug_json *j, const struct ug_totals *t);

/*
 * The per-second line on stderr, as upstream's tools print it:
 * "udp tx:     12 MB/s     1234 calls/s     56 msg/s" (MB = 2^20 bytes);
 * the msg/s field only when @msgs_s >= 0.
 */
void ug_rate_line(const char *proto, const char *dir, unsigned long long bytes_s,
		  unsigned long long calls_s, long long msgs_s);

#endif /* UDPGSO_COMMON_H */
