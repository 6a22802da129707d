// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the send queue's bookkeeping that the requester and the completer
 * share. The private WQE copies between comp.head and req.fetched, their
 * states and req.cur/req.off are send-queue state: the requester moves
 * them forward, the completer marks WQEs done, retires them in order and
 * moves the requester back to retransmit. Both run within one pass over
 * the QP's engines, never at once.
 */
#include "sroce.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "engine/sroce_svc.h"
#include "obs/sroce_trace.h"

/* Operations that took a responder resource, sent, not yet answered. */
u32 sroce_sq_rd_inflight(struct sroce_qp *qp)
{
	struct sroce_swqe *s;
	u32 i, n = 0;

	for (i = qp->comp.head; i != qp->req.cur; i++) {
		s = sroce_swqe(qp, i);
		if (s->state != SROCE_SWQE_DONE &&
		    sroce_op_takes_res(s->h.opcode))
			n++;
	}
	return n;
}

/*
 * Go back to @psn, of a WQE sent and not yet completed: it and every WQE
 * after it are sent again from there (go-back-N).
 */
int sroce_sq_rewind(struct sroce_qp *qp, u32 psn, int reason)
{
	struct sroce_swqe *s;
	u32 i, found = 0;
	bool hit = false;

	for (i = qp->comp.head; i != qp->req.fetched; i++) {
		s = sroce_swqe(qp, i);
		if (s->state == SROCE_SWQE_NEW)
			break;
		if (s->state == SROCE_SWQE_DONE)
			continue;
		if (!hit && sroce_psn_in_window(psn, s->first_psn, s->npsn)) {
			hit = true;
			found = i;
			qp->req.off = sroce_op_is_atomic(s->h.opcode) ? 0 :
				      (u64)sroce_psn_diff(psn, s->first_psn) *
				      qp->mtu;
		}
		if (hit)
			s->state = SROCE_SWQE_SENDING;
	}
	if (!hit)
		return -ENOENT;
	trace_sroce_retransmit(qp->ibqp.qp_num, psn, qp->req.psn, reason);
	sroce_comp_rtt_void(qp, qp->req.psn);
	qp->req.cur = found;
	/* What it would have resent alone goes again with the rest. */
	qp->req.one_n = 0;
	sroce_count(qp->sdev, SROCE_CNT_RETRANSMIT, 1);
	return 0;
}

/*
 * Send the packet at @psn, sent and not yet acknowledged, once more, and
 * go on from where the requester is (sroce_req.c does it on its next
 * run). Beyond SROCE_RESEND_ONE_MAX waiting, the timers recover it.
 */
void sroce_sq_resend_one(struct sroce_qp *qp, u32 psn, int reason)
{
	u32 i;

	for (i = 0; i < qp->req.one_n; i++)
		if (qp->req.one_psn[i] == psn)
			return;
	if (qp->req.one_n == SROCE_RESEND_ONE_MAX)
		return;
	trace_sroce_retransmit(qp->ibqp.qp_num, psn, qp->req.psn, reason);
	/*
	 * An early resend's probe comes an RTO after the last request that
	 * asked for an ACK: an answer that waited for it is no round trip.
	 */
	if (reason == SROCE_REXMIT_SR)
		sroce_comp_rtt_resent(qp, psn, qp->req.psn);
	else
		sroce_comp_rtt_void(qp, qp->req.psn);
	qp->req.one_psn[qp->req.one_n++] = psn;
}

/*
 * Complete, in order, every WQE that is done, at most @max of them; returns
 * how many. The slot is handed back (cons) before the CQE is posted: a
 * consumer that sees the completion may post again at once and must find
 * the room for it.
 */
u32 sroce_sq_retire_some(struct sroce_qp *qp, u32 max)
{
	struct sroce_cqe cqe;
	struct sroce_swqe *s;
	u32 n = 0;
	bool post;

	for (; n < max && qp->comp.head != qp->req.cur; n++) {
		s = sroce_swqe(qp, qp->comp.head);
		if (s->state != SROCE_SWQE_DONE)
			break;
		post = s->signaled || s->status != IB_WC_SUCCESS;
		if (post) {
			memset(&cqe, 0, sizeof(cqe));
			cqe.wr_id = s->h.wr_id;
			cqe.status = s->status;
			cqe.opcode = s->wc_opcode;
			cqe.byte_len = s->length;
		}
		qp->comp.head++;
		/* Release: the slot's WQE was copied long ago; it is free. */
		smp_store_release(&qp->sq.ctrl->cons, qp->comp.head);
		/* A consumer that sees the error completion finds the QP in ERR. */
		if (s->status != IB_WC_SUCCESS)
			sroce_svc_error(qp, 0);
		if (post)
			sroce_svc_complete(qp, false, &cqe, false);
	}
	/* Whatever the process wrote there, cons says what is free. */
	if (READ_ONCE(qp->sq.ctrl->cons) != qp->comp.head) {
		/* Release, as above. */
		smp_store_release(&qp->sq.ctrl->cons, qp->comp.head);
	}
	return n;
}

/* Acknowledgements bound this one: every WQE they finished retires. */
void sroce_sq_retire(struct sroce_qp *qp)
{
	sroce_sq_retire_some(qp, U32_MAX);
}
