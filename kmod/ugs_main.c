// SPDX-License-Identifier: GPL-2.0
/*
 * udpgso_stats: per-skb GSO/GRO counters in debugfs.
 *
 * /sys/kernel/debug/udpgso_stats/
 *   counters   one "name value" line per counter (summed over CPUs)
 *   histogram  gso_segs of tx GSO skbs and of rx GRO-coalesced skbs
 *   filter     "port N", "dev NAME" or "clear"; reads back the active filter
 *   reset      write "1" to zero every counter and the histogram (ugs_stats.c)
 *   hooks      which tracepoints and kretprobes are attached on this kernel
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/kstrtox.h>
#include <linux/ctype.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include "ugs.h"

struct ugs_filter __rcu *ugs_active_filter;

static DEFINE_MUTEX(ugs_filter_lock);
static struct dentry *ugs_dir;

static const char * const ugs_counter_names[UGS_NR_COUNTERS] = UGS_COUNTER_NAMES_INIT;

/* ---- filter (packet path: RCU, no locks) ---- */

static bool ugs_ports_match(__be16 sport, __be16 dport, u16 port)
{
	return ntohs(sport) == port || ntohs(dport) == port;
}

/* the device by name, in the network namespace the filter was written from */
static bool ugs_dev_match(const struct sk_buff *skb, const struct ugs_filter *f)
{
	const struct net_device *dev = skb->dev;

	return dev && dev_net(dev)->net_cookie == f->net_cookie &&
	       !strncmp(dev->name, f->dev, IFNAMSIZ);
}

bool ugs_match_udp_hdr(const struct sk_buff *skb, const void *uh)
{
	const struct udphdr *u = uh;
	const struct ugs_filter *f;
	bool ok = true;

	rcu_read_lock();
	f = rcu_dereference(ugs_active_filter);
	if (f && f->type == UGS_FILTER_PORT)
		ok = ugs_ports_match(u->source, u->dest, f->port);
	else if (f && f->type == UGS_FILTER_DEV)
		ok = ugs_dev_match(skb, f);
	rcu_read_unlock();
	return ok;
}

/* the L4 protocol and its offset (from skb->data), or false */
static bool ugs_l4(const struct sk_buff *skb, int nh_off, u8 *proto, int *l4_off)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr _iph;
		const struct iphdr *iph;

		iph = skb_header_pointer(skb, nh_off, sizeof(_iph), &_iph);
		if (!iph || iph->ihl < 5 || (iph->frag_off & htons(IP_OFFSET)))
			return false;
		*proto = iph->protocol;
		*l4_off = nh_off + iph->ihl * 4;
		return true;
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		struct ipv6hdr _ip6h;
		const struct ipv6hdr *ip6h;

		/* extension headers are not followed: such packets do not match */
		ip6h = skb_header_pointer(skb, nh_off, sizeof(_ip6h), &_ip6h);
		if (!ip6h)
			return false;
		*proto = ip6h->nexthdr;
		*l4_off = nh_off + sizeof(*ip6h);
		return true;
	}
	return false;
}

static bool ugs_port_of(const struct sk_buff *skb, int nh_off, u16 port)
{
	__be16 _ports[2];
	const __be16 *ports;
	int l4_off;
	u8 proto;

	if (!ugs_l4(skb, nh_off, &proto, &l4_off))
		return false;
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		return false;
	/* source and destination port come first in both headers */
	ports = skb_header_pointer(skb, l4_off, sizeof(_ports), _ports);
	return ports && ugs_ports_match(ports[0], ports[1], port);
}

bool ugs_match(const struct sk_buff *skb, int nh_off)
{
	const struct ugs_filter *f;
	bool ok = true;

	rcu_read_lock();
	f = rcu_dereference(ugs_active_filter);
	if (f && f->type == UGS_FILTER_PORT)
		ok = ugs_port_of(skb, nh_off, f->port);
	else if (f && f->type == UGS_FILTER_DEV)
		ok = ugs_dev_match(skb, f);
	rcu_read_unlock();
	return ok;
}

/* a socket's local port (udp_fail_queue_rcv_skb before 6.10 has no skb) */
bool ugs_match_sock_port(u16 port)
{
	const struct ugs_filter *f;
	bool ok;

	rcu_read_lock();
	f = rcu_dereference(ugs_active_filter);
	ok = !f || (f->type == UGS_FILTER_PORT && f->port == port);
	rcu_read_unlock();
	return ok;
}

/* ---- debugfs ---- */

static int ugs_counters_show(struct seq_file *m, void *v)
{
	u64 cnt[UGS_NR_COUNTERS];
	int i;

	ugs_read(cnt, NULL);
	for (i = 0; i < UGS_NR_COUNTERS; i++)
		seq_printf(m, "%s %llu\n", ugs_counter_names[i], cnt[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ugs_counters);

static int ugs_histogram_show(struct seq_file *m, void *v)
{
	static const char * const dir[UGS_NR_HIST] = { "tx", "rx" };
	ugs_hist_row *hist;
	u64 cnt[UGS_NR_COUNTERS];
	int h, i;

	hist = kcalloc(UGS_NR_HIST, sizeof(*hist), GFP_KERNEL);
	if (!hist)
		return -ENOMEM;
	ugs_read(cnt, hist);
	seq_puts(m, "# dir gso_segs skbs (tx: GSO skbs queued, rx: UDP GRO results)\n");
	for (h = 0; h < UGS_NR_HIST; h++)
		for (i = 0; i <= UGS_HIST_MAX; i++)
			if (hist[h][i])
				seq_printf(m, "%s %d%s %llu\n", dir[h], i,
					   i == UGS_HIST_MAX ? "+" : "", hist[h][i]);
	kfree(hist);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ugs_histogram);

static int ugs_hooks_show_file_show(struct seq_file *m, void *v)
{
	ugs_hooks_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ugs_hooks_show_file);

#define UGS_WRITE_MAX	64

/* copy a short write, strip one trailing newline; -EINVAL when too long or empty */
static int ugs_get_line(const char __user *ubuf, size_t len, char *buf)
{
	if (!len || len >= UGS_WRITE_MAX)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	return len ? 0 : -EINVAL;
}

static ssize_t ugs_reset_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[UGS_WRITE_MAX];
	int err;

	err = ugs_get_line(ubuf, len, buf);
	if (err)
		return err;
	if (strcmp(buf, "1"))
		return -EINVAL;
	ugs_reset();
	return len;
}

static const struct file_operations ugs_reset_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ugs_reset_write,
	.llseek	= noop_llseek,
};

static int ugs_filter_show(struct seq_file *m, void *v)
{
	const struct ugs_filter *f;

	rcu_read_lock();
	f = rcu_dereference(ugs_active_filter);
	if (!f)
		seq_puts(m, "none\n");
	else if (f->type == UGS_FILTER_PORT)
		seq_printf(m, "port %u\n", f->port);
	else
		seq_printf(m, "dev %s\n", f->dev);
	rcu_read_unlock();
	return 0;
}

static int ugs_filter_open(struct inode *inode, struct file *file)
{
	return single_open(file, ugs_filter_show, NULL);
}

/* parse "port N" / "dev NAME" / "clear" into *f; clear sets *clear */
static int ugs_filter_parse(char *buf, struct ugs_filter *f, bool *clear)
{
	*clear = false;
	if (!strcmp(buf, "clear")) {
		*clear = true;
		return 0;
	}
	if (!strncmp(buf, "port ", 5)) {
		u16 port;

		if (kstrtou16(buf + 5, 10, &port) || !port || !isdigit(buf[5]))
			return -EINVAL;
		f->type = UGS_FILTER_PORT;
		f->port = port;
		return 0;
	}
	if (!strncmp(buf, "dev ", 4)) {
		if (!dev_valid_name(buf + 4))
			return -EINVAL;
		f->type = UGS_FILTER_DEV;
		strscpy(f->dev, buf + 4, sizeof(f->dev));
		/* names are per network namespace: the writer's */
		f->net_cookie = current->nsproxy->net_ns->net_cookie;
		return 0;
	}
	return -EINVAL;
}

static ssize_t ugs_filter_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct ugs_filter *f, *old;
	char buf[UGS_WRITE_MAX];
	bool clear;
	int err;

	err = ugs_get_line(ubuf, len, buf);
	if (err)
		return err;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	err = ugs_filter_parse(buf, f, &clear);
	if (err || clear) {
		kfree(f);
		f = NULL;
		if (err)
			return err;
	}
	mutex_lock(&ugs_filter_lock);
	old = rcu_replace_pointer(ugs_active_filter, f, lockdep_is_held(&ugs_filter_lock));
	mutex_unlock(&ugs_filter_lock);
	if (old)
		kfree_rcu(old, rcu);
	return len;
}

static const struct file_operations ugs_filter_fops = {
	.owner		= THIS_MODULE,
	.open		= ugs_filter_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= ugs_filter_write,
};

static int __init ugs_init(void)
{
	int cpu, err;

	ugs_stats = alloc_percpu(struct ugs_pcpu);
	if (!ugs_stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(ugs_stats, cpu)->syncp);
	ugs_dir = debugfs_create_dir("udpgso_stats", NULL);
	if (IS_ERR(ugs_dir)) {
		err = PTR_ERR(ugs_dir);
		goto err_free;
	}
	debugfs_create_file("counters", 0444, ugs_dir, NULL, &ugs_counters_fops);
	debugfs_create_file("histogram", 0444, ugs_dir, NULL, &ugs_histogram_fops);
	debugfs_create_file("filter", 0644, ugs_dir, NULL, &ugs_filter_fops);
	debugfs_create_file("reset", 0200, ugs_dir, NULL, &ugs_reset_fops);
	debugfs_create_file("hooks", 0444, ugs_dir, NULL, &ugs_hooks_show_file_fops);

	err = ugs_hooks_attach();
	if (err)
		goto err_dir;
	return 0;

err_dir:
	debugfs_remove_recursive(ugs_dir);
err_free:
	free_percpu(ugs_stats);
	return err;
}

static void __exit ugs_exit(void)
{
	struct ugs_filter *f;

	/* no reader or writer of the files after this returns */
	debugfs_remove_recursive(ugs_dir);
	/* unregisters, then waits until no probe runs any more */
	ugs_hooks_detach();
	/* no probe runs any more: nobody reads the filter */
	f = rcu_dereference_protected(ugs_active_filter, 1);
	RCU_INIT_POINTER(ugs_active_filter, NULL);
	kfree(f);
	free_percpu(ugs_stats);
}

module_init(ugs_init);
module_exit(ugs_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("udpgso-lab");
MODULE_DESCRIPTION("Per-skb UDP GSO/GRO counters in debugfs");
