/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device counters: one enum, one name table (sroce_counters.c), exported
 * through `rdma statistic show link DEV/1`. Every packet the device drops
 * is counted under the reason it was dropped.
 */
#ifndef SROCE_COUNTERS_H
#define SROCE_COUNTERS_H

#include <linux/percpu.h>
#include <rdma/ib_verbs.h>

enum sroce_counter {
	SROCE_CNT_RX_PACKETS,		/* accepted RoCEv2 packets */
	SROCE_CNT_RX_BYTES,		/* their UDP payload bytes */
	SROCE_CNT_RX_DROP_IP,		/* IPv4 options or a fragment */
	SROCE_CNT_RX_DROP_UDP_LEN,	/* UDP length disagrees with the packet */
	SROCE_CNT_RX_DROP_HDR,		/* malformed transport headers */
	SROCE_CNT_RX_DROP_ICRC,		/* ICRC mismatch */
	SROCE_CNT_RX_DROP_NO_QP,	/* destination QP does not exist */
	SROCE_CNT_RX_DROP_NOMEM,	/* could not make the packet linear */
	SROCE_CNT_RX_DROP_FIFO,		/* the QP's receive FIFO was full */
	SROCE_CNT_RX_DROP_STATE,	/* QP in a state that takes no packets */
	SROCE_CNT_RX_DROP_BAD,		/* wrong transport, P_Key or MTU */
	SROCE_CNT_RX_DROP_QKEY,		/* datagrams with another Q_Key */
	SROCE_CNT_RX_DROP_NO_RECV,	/* datagrams that found no receive */
	SROCE_CNT_RX_DROP_LEN,		/* datagrams longer than the receive */
	SROCE_CNT_RX_DROP_UC_MSG,	/* UC messages dropped whole */
	SROCE_CNT_RX_DUP_REQ,		/* duplicate requests answered */
	SROCE_CNT_RX_STALE_RESP,	/* responses for nothing outstanding */
	SROCE_CNT_RX_CNP,		/* congestion notifications */
	SROCE_CNT_RX_ECN_CE,		/* packets marked Congestion Experienced */
	SROCE_CNT_TX_PACKETS,
	SROCE_CNT_TX_BYTES,		/* UDP payload bytes */
	SROCE_CNT_TX_DROP_ROUTE,	/* no route to the destination */
	SROCE_CNT_TX_DROP_NOMEM,
	SROCE_CNT_TX_BATCHES,		/* packet lists sent as one (tx_batch) */
	SROCE_CNT_TX_CNP,		/* CNPs sent for CE marks */
	SROCE_CNT_RATE_CUTS,		/* rate cuts for CNPs received */
	SROCE_CNT_PACED,		/* requester runs held by the rate */
	SROCE_CNT_SEQ_NAK_SENT,		/* PSN sequence errors NAKed */
	SROCE_CNT_SEQ_NAK_RCVD,
	SROCE_CNT_RNR_NAK_SENT,
	SROCE_CNT_RNR_NAK_RCVD,
	SROCE_CNT_ACK_TIMEOUT,		/* local ACK timeouts */
	SROCE_CNT_EARLY_REXMIT,		/* resends after an RTO (rtt.h) */
	SROCE_CNT_RTT_SAMPLES,		/* round trips the requester timed */
	SROCE_CNT_RETRANSMIT,		/* go-back-N restarts */
	SROCE_CNT_SEL_REXMIT,		/* single PSNs resent for a selective NAK */
	SROCE_CNT_OOO_KEPT,		/* requests kept past a gap (sroce_ooo.c) */
	SROCE_CNT_OOO_REFUSED,		/* ... not kept: the device holds its most */
	SROCE_CNT_OOO_EXPIRED,		/* ... dropped unused after SROCE_OOO_AGE */
	SROCE_CNT_ERR_NAK_SENT,		/* access/invalid request/op NAKs */
	/* The NIC model (Documentation/sroce-observe.rst): where it stalls. */
	SROCE_CNT_DISPATCHES,		/* turns of a QP's engines (runs) */
	SROCE_CNT_PASSES,		/* passes over the engines in them */
	SROCE_CNT_BUDGET_EXHAUSTED,	/* dispatches that used SROCE_BUDGET */
	SROCE_CNT_PASS_LIMIT,		/* ... that made SROCE_MAX_PASSES */
	SROCE_CNT_SECTION_BUDGET,	/* ... cut short by the section's budget */
	SROCE_CNT_WORKER_HANDOFFS,	/* QPs handed to their worker */
	SROCE_CNT_RUNLIST_HANDOFFS,	/* QPs put on a CPU's run list */
	SROCE_CNT_WINDOW_FULL,		/* requester runs stopped at the window */
	SROCE_CNT_RNR_STALLS,		/* requester runs held by an RNR wait */
	SROCE_CNT_FIFO_HWM,		/* deepest receive FIFO: max over CPUs */
	SROCE_CNT_INV_DEFERRED,		/* invalidations that waited for copies */
	SROCE_CNT_STREAM_HANDOFFS,	/* a stream's receive sent to another CPU */
	SROCE_CNT_NUM
};

struct sroce_counters {
	u64 v[SROCE_CNT_NUM];
};

struct sroce_dev;

void sroce_count(struct sroce_dev *sdev, enum sroce_counter c, u64 n);
void sroce_count_max(struct sroce_dev *sdev, enum sroce_counter c, u64 n);
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* SROCE_COUNTERS_H */
