// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the services the engines (and the send-queue bookkeeping) use on
 * their QP: completions, the move to ERR, asynchronous events, another
 * run, and the ring flags that tell the provider what posting may do.
 * The engines call these and nothing else of the QP file.
 */
#include "sroce.h"
#include "objects/sroce_cq.h"
#include "core/sroce_qp.h"
#include "engine/sroce_svc.h"
#include "obs/sroce_trace.h"

void sroce_svc_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static void sroce_ring_flags(struct sroce_queue *q, spinlock_t *lock,
			     u32 set, u32 clear)
{
	unsigned long flags;

	spin_lock_irqsave(lock, flags);
	WRITE_ONCE(q->ctrl->kern_flag, (q->ctrl->kern_flag & ~clear) | set);
	spin_unlock_irqrestore(lock, flags);
}

/* The ring flags that tell the provider what posting may do now. */
static void sroce_svc_publish_state(struct sroce_qp *qp,
				    enum ib_qp_state state)
{
	bool sq_ready = state == IB_QPS_RTS || state == IB_QPS_SQD ||
			state == IB_QPS_SQE || state == IB_QPS_ERR;
	u32 rq_set = 0, sq_set = 0;

	if (!sq_ready)
		sq_set |= SROCE_SQ_NOT_READY;
	/* In ERR every post needs the kernel, to be flushed. */
	if (state == IB_QPS_ERR) {
		sq_set |= SROCE_SQ_IDLE;
		rq_set |= SROCE_RQ_FLUSH;
	}
	if (state == IB_QPS_RESET)
		rq_set |= SROCE_RQ_NOT_READY;
	sroce_ring_flags(&qp->sq, &qp->sq_lock, sq_set,
			 SROCE_SQ_NOT_READY & ~sq_set);
	sroce_ring_flags(&qp->rq, &qp->rq_lock, rq_set,
			 (SROCE_RQ_FLUSH | SROCE_RQ_NOT_READY) & ~rq_set);
}

void sroce_svc_set_state(struct sroce_qp *qp, enum ib_qp_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	WRITE_ONCE(qp->state, state);
	qp->attr.qp_state = state;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	sroce_svc_publish_state(qp, state);
}

/*
 * An engine found an error that ends the connection: the QP goes to ERR
 * (unless it is there or in RESET already), which flushes both queues.
 */
void sroce_svc_error(struct sroce_qp *qp, enum ib_event_type ev)
{
	enum ib_qp_state old;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->state;
	if (old != IB_QPS_ERR && old != IB_QPS_RESET) {
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		qp->attr.qp_state = IB_QPS_ERR;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (old == IB_QPS_ERR || old == IB_QPS_RESET)
		return;
	sroce_svc_publish_state(qp, IB_QPS_ERR);
	if (ev)
		sroce_svc_event(qp, ev);
	sroce_svc_kick(qp);
}

bool sroce_svc_scq_taken(struct sroce_qp *qp)
{
	return sroce_cq_taken(qp->scq, qp->req.stream_cqe);
}

/*
 * Post a CQE for this QP. A CQ that overflows stays in error (the CQ
 * raised IB_EVENT_CQ_ERR) and takes the QP to ERR with it.
 */
int sroce_svc_complete(struct sroce_qp *qp, bool recv, struct sroce_cqe *cqe,
		       bool solicited)
{
	u32 pos;
	int ret;

	cqe->qp_num = qp->ibqp.qp_num;
	cqe->port_num = SROCE_PORT;
	trace_sroce_complete(cqe->qp_num, recv, cqe->wr_id, cqe->status,
			     cqe->opcode);
	ret = sroce_cq_post(recv ? qp->rcq : qp->scq, cqe, &qp->ibqp,
			    solicited, &pos);
	if (ret)
		sroce_svc_error(qp, IB_EVENT_QP_FATAL);
	else if (!recv)
		qp->req.stream_cqe = pos;	/* the send task's own */
	return ret;
}
