/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: the engines (requester, responder, completer, and the datagram
 * side of both) and the send and receive queue bookkeeping they share,
 * as the scheduler (sched/sroce_task.c) and the QP's verbs see them.
 */
#ifndef SROCE_ENGINE_H
#define SROCE_ENGINE_H

#include "core/sroce_qp.h"

/*
 * Requests the requester keeps unacknowledged, in PSNs, before it has
 * measured its path: go-back-N resends up to this much per loss (1024
 * sent six packets per packet delivered at 1% loss, make bench); 256
 * still covers the bandwidth-delay product of a 25 Gb/s link with a
 * 50 us round trip at MTU 4096. Once the round trip is measured, the
 * window is twice the path's product (struct sroce_bdp, rtt.h), never
 * above SROCE_MAX_INFLIGHT_CAP and, once a new connection's smaller
 * start (SROCE_WIN_START, sroce_req.c; slower after a rate cut)
 * has grown to this, never below it: a 20 ms path is filled, a LAN
 * keeps this. A responder that does
 * selective repeat keeps up to SROCE_MAX_INFLIGHT_CAP PSNs past a gap
 * (sroce_ooo.c), so towards it a loss costs one packet, not the window,
 * up to the same cap.
 */
#define SROCE_MAX_INFLIGHT	256
#define SROCE_MAX_INFLIGHT_CAP	4096
/*
 * The next packet receive left in one of the QP's FIFOs, or NULL. Most
 * passes find the FIFO they did not come for empty: that costs no lock.
 * Receive queues a packet before it marks the task, so the pass that the
 * mark brings sees it.
 */
static inline struct sk_buff *sroce_fifo_take(struct sk_buff_head *fifo)
{
	return skb_queue_empty_lockless(fifo) ? NULL : skb_dequeue(fifo);
}

/* sroce_sq.c: send-queue bookkeeping the requester and completer share */
static inline bool sroce_op_is_atomic(u8 op)
{
	return op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Reads and atomics: the operations that wait for data in a response. */
static inline bool sroce_op_is_rd(u8 op)
{
	return op == IB_WR_RDMA_READ || sroce_op_is_atomic(op);
}

/*
 * FLUSH and ATOMIC WRITE (A19) are answered by an empty read response:
 * nothing to copy, so a later acknowledge completes them too.
 */
static inline bool sroce_op_is_a19(u8 op)
{
	return op == SROCE_WR_FLUSH || op == SROCE_WR_ATOMIC_WRITE;
}

/* The operations that take a responder resource (max_rd_atomic). */
static inline bool sroce_op_takes_res(u8 op)
{
	return sroce_op_is_rd(op) || sroce_op_is_a19(op);
}

/* @s finished with @status; sroce_sq_retire() completes it in order. */
static inline void sroce_sq_done(struct sroce_swqe *s, u8 status)
{
	s->status = status;
	s->state = SROCE_SWQE_DONE;
}

/*
 * The requester goes back: what it resends up to @next (the next new
 * PSN) is not timed, and an answer may now be to a resend (Karn).
 */
static inline void sroce_comp_rtt_void(struct sroce_qp *qp, u32 next)
{
	qp->comp.rtt_on = false;
	qp->comp.rtt_hold = true;
	qp->comp.rtt_fresh = next;
}

/*
 * The requester sends @psn once more, alone: no PSN before @next is timed
 * from now on, and the round trip being timed stops only if it is that
 * one's (Karn). Another's answer is still one answer to one packet: under
 * steady loss, a QP that dropped its timing at every single resend would
 * never measure its round trip while a resend came more often than one.
 */
static inline void sroce_comp_rtt_resent(struct sroce_qp *qp, u32 psn,
					 u32 next)
{
	if (qp->comp.rtt_on && qp->comp.rtt_psn == psn)
		qp->comp.rtt_on = false;
	qp->comp.rtt_hold = true;
	qp->comp.rtt_fresh = next;
}

/*
 * Would the completer time the round trip of @psn, a request that asks
 * for an ACK, if it left now? Not while it times another, nor a PSN a
 * go-back may have sent twice (Karn).
 */
static inline bool sroce_comp_rtt_wants(const struct sroce_qp *qp, u32 psn)
{
	return !qp->comp.rtt_on &&
	       (!qp->comp.rtt_hold || !sroce_psn_before(psn, qp->comp.rtt_fresh));
}

u32 sroce_sq_rd_inflight(struct sroce_qp *qp);
int sroce_sq_rewind(struct sroce_qp *qp, u32 psn, int reason);
void sroce_sq_resend_one(struct sroce_qp *qp, u32 psn, int reason);
u32 sroce_sq_retire_some(struct sroce_qp *qp, u32 max);
void sroce_sq_retire(struct sroce_qp *qp);

/* sroce_req.c */
void sroce_req_run(struct sroce_qp *qp, int *budget);
bool sroce_req_flush(struct sroce_qp *qp, int *budget);
void sroce_req_reset(struct sroce_qp *qp, u32 prod);

/* sroce_comp.c */
void sroce_comp_run(struct sroce_qp *qp, int *budget);
void sroce_comp_stop(struct sroce_qp *qp);
void sroce_comp_halt(struct sroce_qp *qp);
void sroce_comp_reset(struct sroce_qp *qp, u32 prod);
void sroce_comp_arm(struct sroce_qp *qp);

/* sroce_rq.c: receive-queue bookkeeping the responders share */
bool sroce_rq_take(struct sroce_qp *qp);

/*
 * sroce_resp_atomic.c: the atomics, ATOMIC WRITE and FLUSH. 0: done and
 * answered; -EINVAL: an Invalid Request; -EACCES: a Remote Access error.
 */
int sroce_resp_atomic(struct sroce_qp *qp, const struct sroce_pkt *pkt);
int sroce_resp_atomic_write(struct sroce_qp *qp, const struct sroce_pkt *pkt);
bool sroce_resp_flush_allowed(struct sroce_qp *qp, const struct sroce_pkt *pkt);
int sroce_resp_rdma_flush(struct sroce_qp *qp, const struct sroce_pkt *pkt);
int sroce_resp_flush_run(struct sroce_qp *qp);

/* sroce_resp.c */
void sroce_resp_run(struct sroce_qp *qp, int *budget);
bool sroce_resp_flush(struct sroce_qp *qp, int *budget);
void sroce_resp_reset(struct sroce_qp *qp);

/* sroce_ud.c: the datagram side of the requester and the responder */
int sroce_ud_check(struct sroce_qp *qp, struct sroce_swqe *s);
int sroce_ud_packet(struct sroce_qp *qp, struct sroce_swqe *s,
		    sroce_fill_fn fill, void *priv);
void sroce_ud_resp_run(struct sroce_qp *qp, int *budget);

#endif /* SROCE_ENGINE_H */
