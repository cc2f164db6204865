// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_bench_tx - UDP/TCP send benchmark for segmentation offload.
 *
 * Flag compatible with the kernel's tools/testing/selftests/net/udpgso_bench_tx
 * (-4 -6 -a -c -C -D -H -l -L -m -M -p -P -s -S -t -T -u -v -z), plus
 * sendmmsg with a per-message UDP_SEGMENT cmsg, socket-wide GSO, scattered
 * iovecs, mixed datagram sizes, SO_TXTIME / SO_MAX_PACING_RATE pacing,
 * several flows, sequence stamps, a runtime GSO probe with fallback, and a
 * JSON summary (see docs/tools.md).
 *
 * A "plan" is what one pass sends: -s bytes split at the MSS (upstream's
 * plain mode), one GSO send of -s bytes, or the --sizes pattern grouped into
 * GSO runs.  Each flow lays its plan out once as a ring of msghdrs, iovecs
 * and cmsg buffers; the hot path only walks that ring and counts.
 *
 * This file is main(): options -> plan -> flows -> send -> report, each
 * a file of its own (see udpgso_bench_tx.h).
 */
#include <stdlib.h>

#include "udpgso_bench_tx.h"

int main(int argc, char **argv)
{
	double cu0, cs0, cu1, cs1;
	struct tx_plan plan;
	struct tx_cfg opts;
	const struct tx_cfg *cfg = &opts;
	struct tx_run run;
	struct sum t;
	uint64_t end;
	int rc = 0;

	ug_set_prog(argv[0]);
	ug_pattern_init();
	tx_parse_opts(argc, argv, &opts);
	if (cfg->cpu >= 0)
		tx_pin(cfg->cpu);

	tx_plan_build(cfg, &plan);
	tx_run_init(&run, cfg, &plan, tx_flows_setup(cfg, &plan));

	ug_cpu_usage(&cu0, &cs0);
	end = tx_send(&run);
	ug_cpu_usage(&cu1, &cs1);

	tx_flows_finish(&run, &t);
	t.dur = (double)(end - run.start_ns) / NSEC;
	t.cpu_user = cu1 - cu0;
	t.cpu_sys = cs1 - cs0;
	if (cfg->audit)
		rc = tx_report_audit(cfg, &t);
	if (cfg->json)
		tx_report_json(cfg, &plan, &run.gso, run.flows, &t);
	return rc;
}
