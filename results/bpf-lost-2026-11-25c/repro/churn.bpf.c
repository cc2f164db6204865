// SPDX-License-Identifier: GPL-2.0
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
char LICENSE[] SEC("license") = "GPL";
__u64 runs;
SEC("tp_btf/netif_receive_skb")
int BPF_PROG(churn_rx, struct sk_buff *skb)
{
	__sync_fetch_and_add(&runs, 1);
	return 0;
}
