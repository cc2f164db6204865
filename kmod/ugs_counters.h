/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udpgso_stats: the per-skb counters, in their order and with their names,
 * shared by the module (ugs.h, ugs_main.c) and its BPF twin (bpf/ugs_shared.h,
 * bpf/ugs_load.c), so that both count the same things under the same names.
 * No types of its own: included after <linux/types.h> or vmlinux.h alike.
 */
#ifndef _UGS_COUNTERS_H
#define _UGS_COUNTERS_H

enum ugs_counter {
	UGS_TX_SKBS,
	UGS_TX_GSO_SKBS,
	UGS_TX_GSO_UDP_L4_SKBS,
	UGS_TX_GSO_TCP_SKBS,
	UGS_TX_GSO_FRAGLIST_SKBS,
	UGS_TX_GSO_SEGS,
	UGS_TX_GSO_SEGS_UNKNOWN_SKBS,
	UGS_TX_DEV_SKBS,
	UGS_TX_DEV_GSO_SKBS,
	UGS_TX_SW_SEGMENTED_SKBS,
	UGS_TX_SW_SEGMENTS,
	UGS_TX_SW_SEGMENT_ERRORS,
	UGS_RX_GRO_IN,
	UGS_RX_SKBS,
	UGS_RX_GSO_SKBS,
	UGS_RX_GRO_COALESCED_SKBS,
	UGS_RX_GRO_COALESCED_SEGS,
	UGS_RX_GRO_FRAGLIST_SKBS,
	UGS_RX_GSO_PASSTHROUGH_SKBS,
	UGS_RX_GSO_TCP_SKBS,
	UGS_RX_GSO_TCP_SEGS,
	UGS_RX_SW_SEGMENTED_SKBS,
	UGS_RX_SW_SEGMENTS,
	UGS_RX_SW_SEGMENT_ERRORS,
	UGS_RX_UDP_QUEUE_FAILS,
	UGS_OTHER_SW_SEGMENTED_SKBS,
	UGS_OTHER_SW_SEGMENTS,
	UGS_OTHER_SW_SEGMENT_ERRORS,
	UGS_NR_COUNTERS
};

/* histogram of gso_segs: bucket i counts skbs of i segments, the last one "or more" */
#define UGS_HIST_MAX	256
enum ugs_hist {
	UGS_HIST_TX,
	UGS_HIST_RX,
	UGS_NR_HIST
};

/* the counters' names (debugfs files, udpgso_stats output), indexed by counter */
#define UGS_COUNTER_NAMES_INIT { \
	[UGS_TX_SKBS]			= "tx_skbs", \
	[UGS_TX_GSO_SKBS]		= "tx_gso_skbs", \
	[UGS_TX_GSO_UDP_L4_SKBS]	= "tx_gso_udp_l4_skbs", \
	[UGS_TX_GSO_TCP_SKBS]		= "tx_gso_tcp_skbs", \
	[UGS_TX_GSO_FRAGLIST_SKBS]	= "tx_gso_fraglist_skbs", \
	[UGS_TX_GSO_SEGS]		= "tx_gso_segs", \
	[UGS_TX_GSO_SEGS_UNKNOWN_SKBS]	= "tx_gso_segs_unknown_skbs", \
	[UGS_TX_DEV_SKBS]		= "tx_dev_skbs", \
	[UGS_TX_DEV_GSO_SKBS]		= "tx_dev_gso_skbs", \
	[UGS_TX_SW_SEGMENTED_SKBS]	= "tx_sw_segmented_skbs", \
	[UGS_TX_SW_SEGMENTS]		= "tx_sw_segments", \
	[UGS_TX_SW_SEGMENT_ERRORS]	= "tx_sw_segment_errors", \
	[UGS_RX_GRO_IN]			= "rx_gro_in", \
	[UGS_RX_SKBS]			= "rx_skbs", \
	[UGS_RX_GSO_SKBS]		= "rx_gso_skbs", \
	[UGS_RX_GRO_COALESCED_SKBS]	= "rx_gro_coalesced_skbs", \
	[UGS_RX_GRO_COALESCED_SEGS]	= "rx_gro_coalesced_segs", \
	[UGS_RX_GRO_FRAGLIST_SKBS]	= "rx_gro_fraglist_skbs", \
	[UGS_RX_GSO_PASSTHROUGH_SKBS]	= "rx_gso_passthrough_skbs", \
	[UGS_RX_GSO_TCP_SKBS]		= "rx_gso_tcp_skbs", \
	[UGS_RX_GSO_TCP_SEGS]		= "rx_gso_tcp_segs", \
	[UGS_RX_SW_SEGMENTED_SKBS]	= "rx_sw_segmented_skbs", \
	[UGS_RX_SW_SEGMENTS]		= "rx_sw_segments", \
	[UGS_RX_SW_SEGMENT_ERRORS]	= "rx_sw_segment_errors", \
	[UGS_RX_UDP_QUEUE_FAILS]	= "rx_udp_queue_fails", \
	[UGS_OTHER_SW_SEGMENTED_SKBS]	= "other_sw_segmented_skbs", \
	[UGS_OTHER_SW_SEGMENTS]		= "other_sw_segments", \
	[UGS_OTHER_SW_SEGMENT_ERRORS]	= "other_sw_segment_errors", \
}

#endif /* _UGS_COUNTERS_H */
