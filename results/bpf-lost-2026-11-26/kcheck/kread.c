// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "kread.skel.h"

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct kread *s = kread__open();

	if (!s || argc < 2)
		return 1;
	s->rodata->addr = strtoull(argv[1], NULL, 16);
	if (kread__load(s))
		return 2;
	if (bpf_prog_test_run_opts(bpf_program__fd(s->progs.kread), &o))
		return 3;
	if (s->bss->err)
		return 4;
	fwrite(s->bss->buf, 1, sizeof(s->bss->buf), stdout);
	return 0;
}
