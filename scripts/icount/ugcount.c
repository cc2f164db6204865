// SPDX-License-Identifier: GPL-2.0
/*
 * ugcount: a QEMU TCG plugin that counts guest instructions and reports the
 * count each time the guest executes a marker, so a guest can measure the
 * instructions of a stretch of work (scripts/kmod_icount.sh).
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
 * Debian's QEMU 7.2 ships no qemu-plugin.h: the few declarations used here
 * are written from the plugin API documentation (docs/devel/tcg-plugins.rst,
 * API version 1 of QEMU 7.2).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- the QEMU plugin API (version 1), as documented ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;	/* not read here */

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

#define UG_EXPORT __attribute__((visibility("default")))
UG_EXPORT int qemu_plugin_version = 1;
/* ---- end of the API declarations ---- */

static uint64_t total, kernel, seq;
static FILE *out;

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)udata;
	fprintf(out, "mark %llu %llu %llu vcpu %u\n", (unsigned long long)++seq,
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
