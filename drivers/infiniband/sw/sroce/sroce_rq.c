// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the receive queue's bookkeeping that the responders of both
 * transports share (sroce_resp.c for RC, sroce_ud.c for datagrams): the
 * next receive WQE, copied out of the ring before anything reads it.
 */
#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_trace.h"

/* Take the next receive WQE from the ring, copied. False: RQ empty. */
bool sroce_rq_take(struct sroce_qp *qp)
{
	const struct sroce_recv_wqe *w;
	u32 prod, n;

	/* Acquire: the WQEs up to prod are written. */
	prod = smp_load_acquire(&qp->rq.ctrl->prod);
	if (qp->resp.have_rwqe)
		return true;
	if (prod == qp->resp.rq_cons ||
	    prod - qp->resp.rq_cons > sroce_queue_entries(&qp->rq))
		return false;
	w = sroce_queue_slot(&qp->rq, qp->resp.rq_cons);
	qp->resp.rwqe = *w;
	n = min(qp->resp.rwqe.num_sge, qp->rq_max_sge);
	memcpy(qp->resp.rsge, w + 1, n * sizeof(struct sroce_sge));
	trace_sroce_post_recv(qp->ibqp.qp_num, qp->resp.rwqe.wr_id,
			      qp->resp.rsge, n);
	qp->resp.rq_cons++;
	/* Release: the copy is done before the provider reuses the slot. */
	smp_store_release(&qp->rq.ctrl->cons, qp->resp.rq_cons);
	qp->resp.have_rwqe = true;
	qp->resp.rcv_off = 0;
	return true;
}
