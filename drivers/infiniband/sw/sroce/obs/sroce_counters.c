// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: device counters. Per-CPU, so the receive path never shares a
 * cache line between CPUs; summed when read.
 */
#include "sroce.h"

static const struct rdma_stat_desc sroce_counter_desc[SROCE_CNT_NUM] = {
	[SROCE_CNT_RX_PACKETS] = { .name = "rx_packets" },
	[SROCE_CNT_RX_BYTES] = { .name = "rx_bytes" },
	[SROCE_CNT_RX_DROP_IP] = { .name = "rx_drop_ip" },
	[SROCE_CNT_RX_DROP_UDP_LEN] = { .name = "rx_drop_udp_len" },
	[SROCE_CNT_RX_DROP_HDR] = { .name = "rx_drop_hdr" },
	[SROCE_CNT_RX_DROP_ICRC] = { .name = "rx_drop_icrc" },
	[SROCE_CNT_RX_DROP_NO_QP] = { .name = "rx_drop_no_qp" },
	[SROCE_CNT_RX_DROP_NOMEM] = { .name = "rx_drop_nomem" },
	[SROCE_CNT_RX_DROP_FIFO] = { .name = "rx_drop_fifo" },
	[SROCE_CNT_RX_DROP_STATE] = { .name = "rx_drop_state" },
	[SROCE_CNT_RX_DROP_BAD] = { .name = "rx_drop_bad" },
	[SROCE_CNT_RX_DROP_QKEY] = { .name = "rx_drop_qkey" },
	[SROCE_CNT_RX_DROP_NO_RECV] = { .name = "rx_drop_no_recv" },
	[SROCE_CNT_RX_DROP_LEN] = { .name = "rx_drop_len" },
	[SROCE_CNT_RX_DROP_UC_MSG] = { .name = "rx_drop_uc_msg" },
	[SROCE_CNT_RX_DUP_REQ] = { .name = "rx_dup_req" },
	[SROCE_CNT_RX_STALE_RESP] = { .name = "rx_stale_resp" },
	[SROCE_CNT_RX_CNP] = { .name = "rx_cnp" },
	[SROCE_CNT_RX_ECN_CE] = { .name = "rx_ecn_ce" },
	[SROCE_CNT_TX_PACKETS] = { .name = "tx_packets" },
	[SROCE_CNT_TX_BYTES] = { .name = "tx_bytes" },
	[SROCE_CNT_TX_DROP_ROUTE] = { .name = "tx_drop_route" },
	[SROCE_CNT_TX_DROP_NOMEM] = { .name = "tx_drop_nomem" },
	[SROCE_CNT_TX_BATCHES] = { .name = "tx_batches" },
	[SROCE_CNT_TX_CNP] = { .name = "tx_cnp" },
	[SROCE_CNT_RATE_CUTS] = { .name = "rate_cuts" },
	[SROCE_CNT_PACED] = { .name = "paced" },
	[SROCE_CNT_SEQ_NAK_SENT] = { .name = "seq_nak_sent" },
	[SROCE_CNT_SEQ_NAK_RCVD] = { .name = "seq_nak_rcvd" },
	[SROCE_CNT_RNR_NAK_SENT] = { .name = "rnr_nak_sent" },
	[SROCE_CNT_RNR_NAK_RCVD] = { .name = "rnr_nak_rcvd" },
	[SROCE_CNT_ACK_TIMEOUT] = { .name = "ack_timeout" },
	[SROCE_CNT_EARLY_REXMIT] = { .name = "early_rexmit" },
	[SROCE_CNT_RTT_SAMPLES] = { .name = "rtt_samples" },
	[SROCE_CNT_RETRANSMIT] = { .name = "retransmit" },
	[SROCE_CNT_SEL_REXMIT] = { .name = "sel_rexmit" },
	[SROCE_CNT_OOO_KEPT] = { .name = "ooo_kept" },
	[SROCE_CNT_OOO_REFUSED] = { .name = "ooo_refused" },
	[SROCE_CNT_OOO_EXPIRED] = { .name = "ooo_expired" },
	[SROCE_CNT_ERR_NAK_SENT] = { .name = "err_nak_sent" },
	[SROCE_CNT_DISPATCHES] = { .name = "dispatches" },
	[SROCE_CNT_PASSES] = { .name = "passes" },
	[SROCE_CNT_BUDGET_EXHAUSTED] = { .name = "budget_exhausted" },
	[SROCE_CNT_PASS_LIMIT] = { .name = "pass_limit" },
	[SROCE_CNT_SECTION_BUDGET] = { .name = "section_budget_out" },
	[SROCE_CNT_WORKER_HANDOFFS] = { .name = "worker_handoffs" },
	[SROCE_CNT_RUNLIST_HANDOFFS] = { .name = "runlist_handoffs" },
	[SROCE_CNT_WINDOW_FULL] = { .name = "window_full" },
	[SROCE_CNT_RNR_STALLS] = { .name = "rnr_stalls" },
	[SROCE_CNT_FIFO_HWM] = { .name = "fifo_hwm" },
	[SROCE_CNT_INV_DEFERRED] = { .name = "inv_deferred" },
	[SROCE_CNT_STREAM_HANDOFFS] = { .name = "stream_handoffs" },
};

void sroce_count(struct sroce_dev *sdev, enum sroce_counter c, u64 n)
{
	this_cpu_add(sdev->counters->v[c], n);
}

/*
 * A high-water mark: this CPU's slot keeps the largest @n it saw, and a
 * read takes the largest over the CPUs. The slot is written only when the
 * mark rises, so the common case is a read of this CPU's line.
 */
void sroce_count_max(struct sroce_dev *sdev, enum sroce_counter c, u64 n)
{
	if (n > this_cpu_read(sdev->counters->v[c]))
		this_cpu_write(sdev->counters->v[c], n);
}

/* Marks are maxima, not sums. */
static bool sroce_counter_is_max(int c)
{
	return c == SROCE_CNT_FIFO_HWM;
}

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_desc, SROCE_CNT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int cpu, c;

	for (c = 0; c < SROCE_CNT_NUM; c++)
		stats->value[c] = 0;
	for_each_possible_cpu(cpu) {
		const struct sroce_counters *pc;

		pc = per_cpu_ptr(sdev->counters, cpu);
		for (c = 0; c < SROCE_CNT_NUM; c++) {
			u64 v = READ_ONCE(pc->v[c]);

			if (!sroce_counter_is_max(c))
				stats->value[c] += v;
			else if (v > stats->value[c])
				stats->value[c] = v;
		}
	}
	return SROCE_CNT_NUM;
}
