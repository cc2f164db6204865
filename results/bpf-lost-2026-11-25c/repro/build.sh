#!/bin/bash
# builds ./churn (the second instance of H1: one tp_btf/netif_receive_skb
# program attached and detached in a loop) next to this script, with the
# tree's bpf/build/vmlinux.h (make -C bpf first)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${1:-$here}
cd "$out"
cp "$top/bpf/build/vmlinux.h" .
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I. -c "$here/churn.bpf.c" -o churn.bpf.o
bpftool gen skeleton churn.bpf.o name churn_bpf > churn.skel.h
cc -O2 -Wall -I. -o churn "$here/churn.c" -lbpf -lelf -lz
