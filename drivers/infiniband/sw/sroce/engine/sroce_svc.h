/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The services a QP's engines may call: sroce_svc.c. Called from a run of
 * the engines, or by modify with the engines kept out.
 */
#ifndef SROCE_SVC_H
#define SROCE_SVC_H

#include "core/sroce_qp.h"

/* An asynchronous event to the consumer's handler. */
void sroce_svc_event(struct sroce_qp *qp, enum ib_event_type ev);

/* The QP's state, and the ring flags that follow from it. */
void sroce_svc_set_state(struct sroce_qp *qp, enum ib_qp_state state);

/*
 * The connection ends: the QP goes to ERR (unless it is in ERR or RESET),
 * @ev is raised if not 0, and the next run flushes both queues.
 */
void sroce_svc_error(struct sroce_qp *qp, enum ib_event_type ev);

/* A CQE for this QP: 0, or -ENOSPC (the CQ overflowed; the QP is in ERR). */
int sroce_svc_complete(struct sroce_qp *qp, bool recv, struct sroce_cqe *cqe,
		       bool solicited);

/* Has the consumer taken this QP's last send CQE (req.stream_cqe)? */
bool sroce_svc_scq_taken(struct sroce_qp *qp);

/*
 * Run both tasks' engines again (the move to ERR: both queues flush):
 * from a pass, another pass before the owner lets go; from elsewhere,
 * the worker or the section open here runs them.
 */
static inline void sroce_svc_kick(struct sroce_qp *qp)
{
	sroce_task_mark(&qp->rq_task);
	sroce_task_mark(&qp->sq_task);
}

/*
 * An invalidation this engine began (sroce_mr_inv_begin()) found copies
 * under the key still running. True: they ended, the invalidation is
 * finished and @mr's reference gone. False: this pass goes on, then no
 * other runs before they end; the worker waits for them in process
 * context, then passes again.
 */
static inline bool sroce_svc_inv_drained(struct sroce_task *t,
					 struct sroce_mr *mr)
{
	if (sroce_mr_inv_finish(mr))
		return true;
	WRITE_ONCE(t->wait_zero, &mr->copies);
	return false;
}

#endif /* SROCE_SVC_H */
