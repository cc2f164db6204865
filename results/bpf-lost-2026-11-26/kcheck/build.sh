#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# builds kread (LEN bytes of kernel memory at a kallsyms address, to
# disassemble: ./kread ADDR > f.bin; objdump -D -b binary -m i386:x86-64
# --adjust-vma=0xADDR f.bin) and pid1 (tp_btf runs on sched_switch and
# softirq_entry over SECS, and those with current tgid 1) in DIR
# (default /tmp/kcheck), against bpf/build/vmlinux.h (make -C bpf first)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/kcheck}
inc=$here/../../../bpf/build
mkdir -p "$out"
for p in kread pid1; do
	clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$inc" -c "$here/$p.bpf.c" -o "$out/$p.bpf.o"
	bpftool gen skeleton "$out/$p.bpf.o" name "$p" >"$out/$p.skel.h"
	cc -O2 -Wall -Wextra -Werror -I"$out" -o "$out/$p" "$here/$p.c" -lbpf -lelf -lz
done
