// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_wire gro: the cases.  Each builds a train of packets and names the
 * skbs the kernel's GRO makes of it (udpgso_wire_gro.c has the rules and
 * their source lines, docs/suite.md the table).
 */
#include <stdio.h>
#include <string.h>

#include "udpgso_wire.h"

char wire_gro_groups[64];

static void fill(struct gpkt *p, int *n, int cnt, uint16_t len)
{
	int i;

	for (i = 0; i < cnt; i++) {
		memset(&p[*n + i], 0, sizeof(*p));
		p[*n + i].len = len;
		p[*n + i].id = -1;
		p[*n + i].ttl = 64;
	}
	*n += cnt;
}

static void b_same(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
}

static void b_small_last(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[3].len = 500;
}

static void b_small_mid(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].len = 500;
}

static void b_larger(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].len = 1200;
}

static void b_ttl(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].ttl = p[3].ttl = 63;
}

static void b_tos(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].tos = p[3].tos = 0x10;
}

static void b_ecn(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[0].tos = p[1].tos = 0x02;	/* ECT(0) */
	p[2].tos = p[3].tos = 0x03;	/* CE */
}

static void b_df(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].nodf = p[3].nodf = true;
}

static void ids(struct gpkt *p, int *n, bool nodf, int a, int b, int c, int d)
{
	int i;

	fill(p, n, 4, 1000);
	p[0].id = a;
	p[1].id = b;
	p[2].id = c;
	p[3].id = d;
	for (i = 0; i < 4; i++)
		p[i].nodf = nodf;
}

static void b_id_inc_df(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	ids(p, n, false, 100, 101, 102, 103);
}

static void b_id_fixed_df(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	ids(p, n, false, 7, 7, 7, 7);
}

static void b_id_wrap(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	ids(p, n, true, 65534, 65535, 0, 1);
}

static void b_id_random_df(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	ids(p, n, false, 100, 7, 5000, 42);
}

static void b_id_inc(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	ids(p, n, true, 100, 101, 102, 103);
}

static void b_id_fixed(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	ids(p, n, true, 7, 7, 7, 7);
}

static void b_ip4_opts(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].opts = true;
}

static void b_dstopts(struct gpkt *p, int *n, int fam)
{
	int i;

	(void)fam;
	fill(p, n, 4, 1000);
	for (i = 0; i < 4; i++)
		p[i].dstopts = 8;
}

static void b_dstopts_mixed(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].dstopts = p[3].dstopts = 8;
}

static void b_dstopts_diff(struct gpkt *p, int *n, int fam)
{
	b_dstopts(p, n, fam);
	p[2].dstopt_val = p[3].dstopt_val = 1;
}

static void b_bad_csum(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].csum = 1;
}

static void b_zero_csum(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[2].csum = 2;
}

static void b_zero_csum_all(struct gpkt *p, int *n, int fam)
{
	int i;

	(void)fam;
	fill(p, n, 4, 1000);
	for (i = 0; i < 4; i++)
		p[i].csum = 2;
}

static void b_ports(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 4, 1000);
	p[1].flow = p[3].flow = 1;
}

static void b_flows3(struct gpkt *p, int *n, int fam)
{
	int i;

	(void)fam;
	fill(p, n, 9, 1000);
	for (i = 0; i < 9; i++)
		p[i].flow = (uint8_t)(i % 3);
}

static void b_max_count(struct gpkt *p, int *n, int fam)
{
	(void)fam;
	fill(p, n, 66, 1000);	/* UDP_GRO_CNT_MAX 64, then 2 */
}

/* full-MTU packets: the skb ends below gro_max_size (65536) bytes counted
 * from the IP header: 44 x 1472 (IPv4), 45 x 1452 (IPv6), then 2 more
 */
static void b_max_bytes(struct gpkt *p, int *n, int fam)
{
	int hdr = fam == 4 ? 28 : 48, size = fam == 4 ? 1472 : 1452, k = 1;

	while (hdr + (k + 1) * size < 65536)
		k++;
	fill(p, n, k + 2, (uint16_t)size);
	snprintf(wire_gro_groups, sizeof(wire_gro_groups), "0-%d;%d-%d", k - 1, k, k + 1);
}

const struct gcase wire_gro_cases[] = {
	{ "same", 0, "4 x 1000 B, one flow: one skb", b_same, "0-3", NULL, 0, NULL },
	{ "small_last", 0, "3 x 1000 + 500: merged, the short one last", b_small_last, "0-3",
	  NULL, 0, NULL },
	{ "small_mid", 0, "1000 1000 500 1000: the short one ends the skb", b_small_mid,
	  "0-2;3", NULL, 0, NULL },
	{ "larger", 0, "1000 1000 1200 1000: the larger one flushes, then 1000 joins it",
	  b_larger, "0-1;2-3", NULL, 0, NULL },
	{ "ttl", 0, "TTL/hop limit 64 64 63 63", b_ttl, "0-1;2-3", NULL, 0, NULL },
	{ "tos", 0, "TOS/traffic class 0 0 0x10 0x10", b_tos, "0-1;2-3", NULL, 0, NULL },
	{ "ecn", 0, "ECN ECT(0) ECT(0) CE CE", b_ecn, "0-1;2-3", NULL, 0, NULL },
	{ "df", 4, "DF DF - - (IDs incrementing)", b_df, "0-1;2-3", NULL, 0, NULL },
	{ "id_inc_df", 4, "DF, IDs 100..103", b_id_inc_df, "0-3", NULL, 0, NULL },
	{ "id_fixed_df", 4, "DF, IDs 7 7 7 7", b_id_fixed_df, "0-3", NULL, 0, NULL },
	{ "id_random_df", 4, "DF, IDs 100 7 5000 42", b_id_random_df, "0;1;2;3", NULL, 0, NULL },
	/* 16-bit ID arithmetic: (u16)(id - id2) in 6.1, u16 ipid_offset in 6.10+ */
	{ "id_wrap", 4, "no DF, IDs 65534 65535 0 1", b_id_wrap, "0-3", NULL, 0, NULL },
	{ "id_inc", 4, "no DF, IDs 100..103", b_id_inc, "0-3", NULL, 0, NULL },
	/* 6.1 inet_gro_receive: a fixed ID is "atomic" only with DF; 6.12
	 * include/net/gro.h inet_gro_flush: ip_fixedid only "if (count == 1
	 * && df && !ipid_offset)"; merged on 6.18 (measured: DF no longer
	 * needed for a fixed ID)
	 */
	{ "id_fixed", 4, "no DF, IDs 7 7 7 7", b_id_fixed, "0;1;2;3", NULL,
	  UG_KVER(6, 18, 0), "0-3" },
	/* the odd packet goes up at once; the fourth's IP ID (103) is not the
	 * held skb's next (102), so it flushes that skb and starts its own
	 */
	{ "ip4_opts", 4, "third packet with IPv4 options: up alone at once", b_ip4_opts,
	  "2;0-1;3", NULL, 0, NULL },
	{ "dstopts", 6, "destination options header on all 4", b_dstopts, "0-3", NULL, 0, NULL },
	{ "dstopts_mixed", 6, "none none dstopts dstopts: two flows", b_dstopts_mixed,
	  "0-1;2-3", NULL, 0, NULL },
	{ "dstopts_diff", 6, "dstopts with different contents: two flows", b_dstopts_diff,
	  "0-1;2-3", NULL, 0, NULL },
	{ "bad_csum", 0, "third packet's UDP checksum wrong: up alone, dropped", b_bad_csum,
	  "2x;0-1;3", "2x;0,1,3", 0, NULL },
	{ "zero_csum", 4, "third packet without UDP checksum: up alone", b_zero_csum,
	  "2;0-1;3", NULL, 0, NULL },
	{ "zero_csum_all", 4, "no UDP checksums: nothing merged", b_zero_csum_all,
	  "0;1;2;3", NULL, 0, NULL },
	{ "ports", 0, "two source ports interleaved: two skbs", b_ports, "0,2;1,3", NULL, 0, NULL },
	{ "flows3", 0, "three flows interleaved", b_flows3, "0,3,6;1,4,7;2,5,8", NULL, 0, NULL },
	{ "max_count", 0, "66 x 1000: 64 (UDP_GRO_CNT_MAX) then 2", b_max_count,
	  "0-63;64-65", NULL, 0, NULL },
	{ "max_bytes", 0, "full-MTU packets up to gro_max_size", b_max_bytes, NULL, NULL, 0, NULL },
};

const int wire_gro_ncases = ARRAY_SIZE(wire_gro_cases);
