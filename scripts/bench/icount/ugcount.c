// SPDX-License-Identifier: GPL-2.0
/*
 * ugcount: a QEMU TCG plugin that counts guest instructions and reports the
 * count each time the guest executes a marker, so a guest can measure the
 * instructions of a stretch of work (scripts/bench/kmod_icount.sh).
 *
 * Marker: the 8-byte no-op "nopl 0x55470000(%rax,%rax,1)"
 * (0f 1f 84 00 00 00 47 55); ug_sendloop.c executes them.  For every marker
 * executed the plugin appends one line to its output file:
 *   mark SEQ TOTAL KERNEL vcpu N
 * SEQ counts the marks from 1 (the guest keeps its own list of what each
 * mark was).
 * TOTAL: guest instructions executed so far on all vCPUs; KERNEL: the part
 * at kernel addresses (upper half).  Counting is per translated block, added
 * when the block starts (a block left early by an exception still counts
 * whole: the error is bounded by a block per exception, and constant in a
 * repeated workload).  All vCPUs add to one counter: run QEMU with
 * -accel tcg,thread=single (one host thread runs every vCPU), else the adds
 * race.
 *
 *   qemu-system-x86_64 ... -plugin /path/ugcount.so,out=/path/marks.log
 *
 * Debian's QEMU 7.2 ships no qemu-plugin.h: qemu_plugin_api.h declares the
 * few functions used here, from the plugin API documentation.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "qemu_plugin_api.h"

#define UG_EXPORT __attribute__((visibility("default")))
UG_EXPORT int qemu_plugin_version = 1;

static uint64_t total, kernel, seq;
static FILE *out;

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)udata;
	seq++;
	fprintf(out, "mark %llu %llu %llu vcpu %u\n", (unsigned long long)seq,
		(unsigned long long)total, (unsigned long long)kernel, vcpu);
	fflush(out);
}

static bool is_mark(const struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != 8)
		return false;
	if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x84 || b[3] != 0x00 ||
	    b[4] != 0x00 || b[5] != 0x00 || b[6] != 0x47 || b[7] != 0x55)
		return false;
	return true;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &total, n);
	if (qemu_plugin_tb_vaddr(tb) >> 63)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &kernel, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (is_mark(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fprintf(out, "exit %llu %llu\n", (unsigned long long)total, (unsigned long long)kernel);
	fclose(out);
}

UG_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
				  char **argv)
{
	const char *path = NULL;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else {
			fprintf(stderr, "ugcount: unknown argument '%s' (allowed: out=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "ugcount: no out=FILE given\n");
		return -1;
	}
	out = fopen(path, "a");
	if (!out) {
		perror(path);
		return -1;
	}
	setvbuf(out, NULL, _IOLBF, 0);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
