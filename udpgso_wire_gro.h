/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_wire gro: what the conformance run (udpgso_wire_gro.c) and its
 * options and two-host roles (udpgso_wire_grorole.c) share.
 */
#ifndef UDPGSO_WIRE_GRO_H
#define UDPGSO_WIRE_GRO_H

#include "udpgso_wire.h"

/* the receiver: NONE has no socket (rx-udp-gro-forwarding merges for none) */
enum rxmode { RX_GRO, RX_PLAIN, RX_PLAIN_FRAGLIST, RX_NONE };

struct gro_env {
	int fam;
	struct wire_addr src, dst;
	uint16_t dport;
	uint8_t smac[6], dmac[6];
	int txfd, tapfd, ufd, snmpfd, snmp6fd;
	uint8_t *gso_buf;	/* --gso: the train as one UDP_SEGMENT send */
	size_t gso_len;
};

enum grole { ROLE_BOTH, ROLE_RX, ROLE_TX };

struct gro_opts {
	enum grole role;
	const char *txdev, *rxns, *rxdev, *src, *dst, *cname, *groups, *dmac;
	const char *napi_dir;	/* --napi-trace: the tracefs instance */
	const char *cut_from;	/* --cut-from: a saved trace, cut and exit */
	enum rxmode mode;
	int tries, hz;
	int swap[2];		/* --swap I,J: the tx side sends J at I's place and I at J's */
	bool tx_reply, gso;
};

void usage_gro(void);
void parse_gro(int argc, char **argv, struct gro_opts *o, struct gro_env *env);
/* the receiving UDP socket, bound to -D and -p (UDP_GRO for --rx gro) */
int rx_socket(const struct gro_env *env, const struct gro_opts *o);
/* --role tx --gso: the socket and the buffer of the one GSO send */
void gso_setup(struct gro_env *env, const struct gpkt *p, int n, const char *cname);
/* --role rx --tx-reply: 1 when the train crossed a jiffy on the sender;
 * @cpu: the sender's CPU at the train's start and end (-1: not said)
 */
int read_reply(int n, int cpu[2]);

/* udpgso_wire_napi.c: the receiver's GRO flushes inside a train */
int napi_trace_lines(const char *path);
int napi_train(const char *path, int skip, const struct gpkt *p, int n, int fam, int hz,
	       const char *groups, const char *own, char *cut, size_t cl, char *why, size_t wl,
	       char *polls, size_t pl, bool *exact);
int napi_cut_from(const char *file, const struct gpkt *p, int n, int fam, int hz,
		  const char *groups, const char *own);

#endif /* UDPGSO_WIRE_GRO_H */
