// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats per-CPU counters and their reset.
 *
 * A reset must be exact while other CPUs count: clearing another CPU's
 * counters from here would race with its increments (an increment could write
 * back the old value).  So a reset only advances ugs_gen.  Each CPU zeroes its
 * own block (counters and histograms together), with interrupts off, on its
 * first update after that; readers count a block only when its generation is
 * the current one.  An event therefore counts exactly when its probe read the
 * generation after the reset was written.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "ugs.h"

struct ugs_pcpu __percpu *ugs_stats;
unsigned long ugs_gen = 1;

static DEFINE_MUTEX(ugs_reset_lock);

void ugs_renew(struct ugs_pcpu *p, unsigned long gen)
{
	unsigned long flags;

	local_irq_save(flags);
	/*
	 * Only forward: an interrupt's probe may have renewed it after our
	 * caller read the generation (then this event counts in the new one)
	 */
	if ((long)(gen - p->gen) > 0) {
		memset(&p->blk, 0, sizeof(p->blk));
		/* readers that see the new generation see the zeroes */
		smp_wmb();
		WRITE_ONCE(p->gen, gen);
	}
	local_irq_restore(flags);
}

void ugs_reset(void)
{
	mutex_lock(&ugs_reset_lock);
	WRITE_ONCE(ugs_gen, ugs_gen + 1);
	mutex_unlock(&ugs_reset_lock);
}

void ugs_read(u64 *cnt, ugs_hist_row *hist)
{
	unsigned long gen = READ_ONCE(ugs_gen);
	int cpu, i, h;

	memset(cnt, 0, sizeof(*cnt) * UGS_NR_COUNTERS);
	if (hist)
		memset(hist, 0, sizeof(*hist) * UGS_NR_HIST);
	for_each_possible_cpu(cpu) {
		const struct ugs_pcpu *p = per_cpu_ptr(ugs_stats, cpu);
		u64 c[UGS_NR_COUNTERS];
		unsigned int start;

		if (READ_ONCE(p->gen) != gen)
			continue;	/* not updated since the reset: zero */
		smp_rmb();
		do {
			start = u64_stats_fetch_begin(&p->syncp);
			for (i = 0; i < UGS_NR_COUNTERS; i++)
				c[i] = u64_stats_read(&p->blk.cnt[i]);
		} while (u64_stats_fetch_retry(&p->syncp, start));
		/* reset again while we read: that CPU counts 0 now */
		smp_rmb();
		if (READ_ONCE(p->gen) != gen)
			continue;
		for (i = 0; i < UGS_NR_COUNTERS; i++)
			cnt[i] += c[i];
		if (!hist)
			continue;
		for (h = 0; h < UGS_NR_HIST; h++) {
			for (i = 0; i <= UGS_HIST_MAX; i++) {
				u64 v;

				do {
					start = u64_stats_fetch_begin(&p->syncp);
					v = u64_stats_read(&p->blk.hist[h][i]);
				} while (u64_stats_fetch_retry(&p->syncp, start));
				hist[h][i] += v;
			}
		}
	}
}
