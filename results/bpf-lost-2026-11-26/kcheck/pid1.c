// SPDX-License-Identifier: GPL-2.0
/* pid1 SECS: tp_btf/sched_switch runs (all, with current tgid 1) over SECS */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "pid1.skel.h"

int main(int argc, char **argv)
{
	struct pid1 *s = pid1__open_and_load();

	if (!s || pid1__attach(s))
		return 1;
	sleep(argc > 1 ? atoi(argv[1]) : 10);
	printf("bpf tp_btf/sched_switch runs %llu (current tgid 1: %llu), "
	       "tp_btf/softirq_entry runs %llu (current tgid 1: %llu)\n",
	       (unsigned long long)s->bss->sw_runs, (unsigned long long)s->bss->sw_tgid1,
	       (unsigned long long)s->bss->si_runs, (unsigned long long)s->bss->si_tgid1);
	pid1__destroy(s);
	return 0;
}
