// SPDX-License-Identifier: GPL-2.0
/* read LEN bytes of kernel memory at ADDR (kernel text, to disassemble) */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";
const volatile __u64 addr;
__u8 buf[2048];
long err;

SEC("raw_tp")
int kread(void *ctx)
{
	err = bpf_probe_read_kernel(buf, sizeof(buf), (void *)addr);
	return 0;
}
