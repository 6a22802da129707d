// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the receive queue's bookkeeping that the responders of both
 * transports share (sroce_resp.c for RC, sroce_ud.c for datagrams): the
 * next receive WQE, copied out of the ring before anything reads it,
 * from the QP's own RQ or from its SRQ. An SRQ has a consumer per QP
 * attached, on any CPU: they take from it under its lock, and the one
 * that takes it below its armed limit raises the limit event.
 */
#include "sroce.h"
#include "core/sroce_qp.h"
#include "core/sroce_srq.h"
#include "engine/sroce_engine.h"
#include "obs/sroce_trace.h"

/* A WQE at @w into the responder's copy; at most @max_sge SGEs. */
static void sroce_rq_copy(struct sroce_qp *qp, const struct sroce_recv_wqe *w,
			  u32 max_sge)
{
	u32 n;

	qp->resp.rwqe = *w;
	n = min(qp->resp.rwqe.num_sge, max_sge);
	memcpy(qp->resp.rsge, w + 1, n * sizeof(struct sroce_sge));
	trace_sroce_post_recv(qp->ibqp.qp_num, qp->resp.rwqe.wr_id,
			      qp->resp.rsge, n);
	qp->resp.have_rwqe = true;
	qp->resp.rcv_off = 0;
}

static void sroce_srq_limit_event(struct sroce_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

static bool sroce_srq_take(struct sroce_qp *qp, struct sroce_srq *srq)
{
	bool limit = false;
	u32 prod, avail;

	spin_lock_bh(&srq->cons_lock);
	/* Acquire: the WQEs up to prod are written. */
	prod = smp_load_acquire(&srq->rq.ctrl->prod);
	avail = prod - srq->cons;
	if (!avail || avail > sroce_queue_entries(&srq->rq)) {
		spin_unlock_bh(&srq->cons_lock);
		return false;
	}
	sroce_rq_copy(qp, sroce_queue_slot(&srq->rq, srq->cons), srq->max_sge);
	srq->cons++;
	/* Release: the copy is done before the producer reuses the slot. */
	smp_store_release(&srq->rq.ctrl->cons, srq->cons);
	if (srq->limit && avail - 1 < srq->limit) {
		srq->limit = 0;
		limit = true;
	}
	spin_unlock_bh(&srq->cons_lock);
	if (limit)
		sroce_srq_limit_event(srq);
	return true;
}

/* Take the next receive WQE, copied. False: the RQ (or SRQ) is empty. */
bool sroce_rq_take(struct sroce_qp *qp)
{
	u32 prod;

	if (qp->resp.have_rwqe)
		return true;
	if (qp->ibqp.srq)
		return sroce_srq_take(qp, to_ssrq(qp->ibqp.srq));
	/* Acquire: the WQEs up to prod are written. */
	prod = smp_load_acquire(&qp->rq.ctrl->prod);
	if (prod == qp->resp.rq_cons ||
	    prod - qp->resp.rq_cons > sroce_queue_entries(&qp->rq))
		return false;
	sroce_rq_copy(qp, sroce_queue_slot(&qp->rq, qp->resp.rq_cons),
		      qp->rq_max_sge);
	qp->resp.rq_cons++;
	/* Release: the copy is done before the provider reuses the slot. */
	smp_store_release(&qp->rq.ctrl->cons, qp->resp.rq_cons);
	return true;
}
