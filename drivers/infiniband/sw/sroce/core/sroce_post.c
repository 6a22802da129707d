// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: posting. Kernel consumers' work requests go into the same rings
 * libsroce writes in shared memory; for userspace, post_send and
 * post_recv carry no work requests and are doorbells: run the requester,
 * or flush receives posted in ERR.
 */
#include "sroce.h"
#include "core/sroce_ah.h"
#include "core/sroce_qp.h"
#include "core/sroce_verbs.h"
#include "engine/sroce_engine.h"
#include "sched/sroce_task.h"

/* A kernel consumer's work request, into a ring slot. */
static int sroce_kwr_to_wqe(struct sroce_qp *qp, const struct ib_send_wr *wr,
			    struct sroce_send_wqe *w)
{
	struct sroce_sge *sge = (struct sroce_sge *)(w + 1);
	u32 i, len = 0;

	/* Before ud_wr(): a datagram is a SEND, anything else is not one. */
	if (sroce_qp_is_ud(qp) && wr->opcode != IB_WR_SEND &&
	    wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	/* Refused at once on UC, as libsroce does (sroce_swqe_check()). */
	if (sroce_qp_is_uc(qp) && (sroce_op_is_rd(wr->opcode) ||
				   wr->opcode == IB_WR_SEND_WITH_INV))
		return -EINVAL;
	/*
	 * The kernel's verbs have no memory windows to bind, and no work
	 * request that carries a FLUSH's range or an ATOMIC WRITE's bytes.
	 */
	if (wr->opcode == IB_WR_BIND_MW || sroce_op_is_a19(wr->opcode))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags;
	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		w->ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		w->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		/* A kernel ring only: the pointer is never a user's. */
		w->ex.invalidate_rkey = reg_wr(wr)->key;
		w->rdma.remote_addr = (uintptr_t)reg_wr(wr)->mr;
		w->rdma.rkey = reg_wr(wr)->access;
		return 0;
	default:
		break;
	}
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		w->rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->rdma.remote_addr = atomic_wr(wr)->remote_addr;
		w->rdma.rkey = atomic_wr(wr)->rkey;
		w->compare_add = atomic_wr(wr)->compare_add;
		w->swap = atomic_wr(wr)->swap;
		break;
	default:
		break;
	}
	if (sroce_qp_is_ud(qp)) {
		w->ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->ud.remote_qkey = ud_wr(wr)->remote_qkey;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = (u8 *)(w + 1);

		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > qp->max_inline - len)
				return -EINVAL;
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		w->inline_len = len;
		return 0;
	}
	if (wr->num_sge > qp->sq_max_sge)
		return -EINVAL;
	w->num_sge = wr->num_sge;
	sroce_sges_fill(sge, wr->sg_list, wr->num_sge);
	return 0;
}

/*
 * A kernel consumer's UD send: its AH's vector goes into the WQE's private
 * copy now (the slot at the producer index is not the requester's until
 * published). The MAD layer may destroy the AH once post returns.
 */
static int sroce_kwr_set_av(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	struct sroce_ah *ah;

	if (!sroce_qp_is_ud(qp))
		return 0;
	if (!ud_wr(wr)->ah)
		return -EINVAL;
	ah = to_sah(ud_wr(wr)->ah);
	if (ah->pd != qp->pd)
		return -EINVAL;
	sroce_swqe(qp, qp->sq.own)->av = ah->av;
	return 0;
}

/*
 * A kernel consumer posted: run the engines here, as for the doorbell. Not
 * where the caller may hold a lock (preemption off): its completion or
 * event handler, which the engines call, may want the same lock; there the
 * section open here (a post from a handler) or the worker runs them.
 */
static void sroce_post_kick(struct sroce_task *t, bool send)
{
	if (!preemptible())
		sroce_task_mark(t);
	else if (send)
		sroce_task_post(t);
	else
		sroce_task_kick(t);
}

static bool sroce_sq_postable(enum ib_qp_state s)
{
	return s == IB_QPS_RTS || s == IB_QPS_SQD || s == IB_QPS_SQE ||
	       s == IB_QPS_ERR;
}

int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	void *slot;
	int ret = 0;

	if (!sroce_sq_postable(sroce_qp_state(qp))) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* libsroce writes its own ring; this is its doorbell. */
	if (qp->is_user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		sroce_task_post(&qp->sq_task);
		return 0;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		slot = sroce_queue_prod_slot(&qp->sq);
		if (!slot) {
			ret = -ENOMEM;
			break;
		}
		ret = sroce_kwr_to_wqe(qp, wr, slot);
		if (!ret)
			ret = sroce_kwr_set_av(qp, wr);
		if (ret)
			break;
		sroce_queue_prod_publish(&qp->sq);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (ret)
		*bad_wr = wr;
	sroce_post_kick(&qp->sq_task, true);
	return ret;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int ret;

	/* Receives go to the QP's SRQ, if it has one. */
	if (sroce_qp_state(qp) == IB_QPS_RESET || qp->ibqp.srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* From libsroce only when the QP is in ERR: flush what it posted. */
	if (qp->is_user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		sroce_task_kick(&qp->rq_task);
		return 0;
	}
	ret = sroce_queue_post_recv(&qp->rq, &qp->rq_lock, qp->rq_max_sge, wr,
				    bad_wr);
	if (sroce_qp_state(qp) == IB_QPS_ERR)
		sroce_post_kick(&qp->rq_task, false);
	return ret;
}
