// SPDX-License-Identifier: GPL-2.0
/*
 * tp_btf runs on sched_switch and softirq_entry, and those whose current
 * task has tgid 1 (this host's init, the sandbox agent)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";
__u64 sw_runs, sw_tgid1, si_runs, si_tgid1;

SEC("tp_btf/sched_switch")
int BPF_PROG(sw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__sync_fetch_and_add(&sw_runs, 1);
	if ((bpf_get_current_pid_tgid() >> 32) == 1)
		__sync_fetch_and_add(&sw_tgid1, 1);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(si, unsigned int vec)
{
	__sync_fetch_and_add(&si_runs, 1);
	if ((bpf_get_current_pid_tgid() >> 32) == 1)
		__sync_fetch_and_add(&si_tgid1, 1);
	return 0;
}
