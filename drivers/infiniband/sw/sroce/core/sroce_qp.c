// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: queue pairs. Creation and the rings, the IBTA state machine,
 * and what modify changes. Posting is in sroce_post.c, the QPN table and
 * receive's admission in sroce_rx.c, running the engines in sroce_task.c.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_cache.h>
#include <net/ipv6.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "core/sroce_qp.h"
#include "core/sroce_srq.h"
#include "core/sroce_verbs.h"
#include "engine/sroce_ooo.h"
#include "engine/sroce_svc.h"
#include "net/sroce_net.h"
#include "net/sroce_rx.h"
#include "objects/sroce_cq.h"
#include "obs/sroce_debugfs.h"
#include "sched/sroce_task.h"

/* Ring sizing: a power of two of at least one entry */
static u32 sroce_ring_entries(u32 wr)
{
	return roundup_pow_of_two(max(wr, 1U));
}

static int sroce_qp_check_cap(struct ib_qp_cap *cap)
{
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	return 0;
}

static int sroce_qp_alloc_rings(struct sroce_qp *qp, struct ib_qp_cap *cap,
				struct ib_srq *srq, struct ib_ucontext *uctx)
{
	u32 body, slot, entries;
	int ret;

	body = max(cap->max_send_sge * (u32)sizeof(struct sroce_sge),
		   cap->max_inline_data);
	slot = roundup_pow_of_two(sizeof(struct sroce_send_wqe) +
				  max(body, (u32)sizeof(struct sroce_sge)));
	entries = sroce_ring_entries(cap->max_send_wr);
	ret = sroce_queue_init(&qp->sq, entries, slot, uctx);
	if (ret)
		return ret;
	body = slot - sizeof(struct sroce_send_wqe);
	qp->sq_max_sge = min_t(u32, body / sizeof(struct sroce_sge),
			       SROCE_MAX_SGE);
	qp->max_inline = min_t(u32, body, SROCE_MAX_INLINE);
	qp->swqe_size = ALIGN(sizeof(struct sroce_swqe) + body, 8);
	qp->swqes = __vmalloc(array_size(entries, qp->swqe_size),
			      GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!qp->swqes) {
		ret = -ENOMEM;
		goto err_sq;
	}

	/*
	 * With an SRQ the receives come from it: the RQ is a ring of one
	 * that nothing posts to and userspace does not map, kept so that
	 * the ring flags and resets need no second case.
	 */
	if (srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	slot = roundup_pow_of_two(sizeof(struct sroce_recv_wqe) +
				  max(cap->max_recv_sge, 1U) *
				  sizeof(struct sroce_sge));
	entries = sroce_ring_entries(cap->max_recv_wr);
	ret = sroce_queue_init(&qp->rq, entries, slot, srq ? NULL : uctx);
	if (ret)
		goto err_swqes;
	qp->rq_max_sge = min_t(u32, (slot - sizeof(struct sroce_recv_wqe)) /
				    sizeof(struct sroce_sge), SROCE_MAX_SGE);
	if (srq)
		qp->rq_max_sge = to_ssrq(srq)->max_sge;

	cap->max_send_wr = sroce_queue_entries(&qp->sq);
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->max_inline;
	if (!srq) {
		cap->max_recv_wr = sroce_queue_entries(&qp->rq);
		cap->max_recv_sge = qp->rq_max_sge;
	}
	return 0;

err_swqes:
	vfree(qp->swqes);
err_sq:
	sroce_queue_destroy(&qp->sq);
	return ret;
}

static void sroce_qp_free_rings(struct sroce_qp *qp)
{
	sroce_queue_destroy(&qp->rq);
	vfree(qp->swqes);
	sroce_queue_destroy(&qp->sq);
}

static int sroce_qp_respond(struct sroce_qp *qp, struct ib_udata *udata)
{
	struct sroce_create_qp_resp resp = {
		.sq_mmap_offset = sroce_queue_mmap_offset(&qp->sq),
		.sq_mmap_size = qp->sq.buf_size,
		.sq_entries = sroce_queue_entries(&qp->sq),
		.sq_entry_size = qp->sq.entry_size,
	};

	/* No RQ to map when an SRQ serves the QP. */
	if (!qp->ibqp.srq) {
		resp.rq_mmap_offset = sroce_queue_mmap_offset(&qp->rq);
		resp.rq_mmap_size = qp->rq.buf_size;
		resp.rq_entries = sroce_queue_entries(&qp->rq);
		resp.rq_entry_size = qp->rq.entry_size;
	}
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_ucontext *uc;
	int ret;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* The MAD layer's, on our one port. */
		if (udata || init->port_num != SROCE_PORT)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (init->srq && init->qp_type == IB_QPT_GSI)
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	ret = sroce_qp_check_cap(&init->cap);
	if (ret)
		return ret;
	if (udata) {
		ret = sroce_check_udata(udata,
					sizeof(struct sroce_create_qp_resp));
		if (ret)
			return ret;
	}
	if (atomic_inc_return(&sdev->num_qp) >
	    sroce_pool_limit(SROCE_MAX_QP, !!udata)) {
		ret = -ENOMEM;
		goto err_count;
	}

	qp->sdev = sdev;
	qp->pd = to_spd(ibqp->pd);
	qp->scq = to_scq(init->send_cq);
	qp->rcq = to_scq(init->recv_cq);
	qp->is_user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->done);
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	skb_queue_head_init(&qp->req_fifo);
	skb_queue_head_init(&qp->resp_fifo);
	sroce_task_init(qp);
	sroce_wake_timer_init(&qp->comp.ack, &qp->sq_task);
	sroce_wake_timer_init(&qp->comp.rnr, &qp->sq_task);
	sroce_wake_timer_init(&qp->comp.rto, &qp->sq_task);
	sroce_wake_timer_init(&qp->resp.ooo_age, &qp->rq_task);

	ret = dst_cache_init(&qp->dst_cache, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_count;
	uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	ret = sroce_qp_alloc_rings(qp, &init->cap, init->srq,
				   uc ? &uc->ibuc : NULL);
	if (ret)
		goto err_dst;
	qp->attr.path_mtu = IB_MTU_256;
	qp->mtu = 256;
	qp->attr.cap = init->cap;
	qp->attr.sq_draining = 0;
	sroce_svc_set_state(qp, IB_QPS_RESET);

	ret = sroce_rx_qpn_add(qp);
	if (ret < 0)
		goto err_rings;

	if (udata) {
		ret = sroce_qp_respond(qp, udata);
		if (ret)
			goto err_xa;
	}
	sroce_debugfs_qp_add(qp);
	return 0;

err_xa:
	sroce_rx_qpn_del(qp);
	sroce_rx_qpn_free(qp);
	sroce_task_stop(qp);
	skb_queue_purge(&qp->req_fifo);
	skb_queue_purge(&qp->resp_fifo);
err_rings:
	sroce_qp_free_rings(qp);
err_dst:
	dst_cache_destroy(&qp->dst_cache);
err_count:
	atomic_dec(&sdev->num_qp);
	return ret;
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;

	/* No reader looks at the QP once this returns. */
	sroce_debugfs_qp_del(qp);
	sroce_mcast_qp_gone(qp);
	sroce_rx_qpn_del(qp);
	/* Nothing runs the engines from here on; nothing resumes them. */
	sroce_task_stop(qp);
	/* Purge, and end an invalidation an engine still holds. */
	sroce_task_reset(qp, 0);
	/* Its QPN stayed taken until its windows are invalid. */
	sroce_mw_qp_gone(qp);
	sroce_rx_qpn_free(qp);
	kfree(qp->resp.res);
	sroce_ooo_free(qp);
	sroce_qp_free_rings(qp);
	dst_cache_destroy(&qp->dst_cache);
	mutex_destroy(&qp->modify_lock);
	atomic_dec(&sdev->num_qp);
	return 0;
}

static int sroce_qp_check_attr(struct sroce_qp *qp, struct ib_qp_attr *attr,
			       int mask)
{
	struct sroce_dev *sdev = qp->sdev;

	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	/*
	 * A QP may allow both kinds of FLUSH (rdma-core's tests set both);
	 * where no MR may grant one (6.1), such a FLUSH fails its R_Key.
	 */
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC |
				       IB_ACCESS_LOCAL_WRITE |
				       SROCE_ACCESS_FLUSH_GLOBAL |
				       SROCE_ACCESS_FLUSH_PERSISTENT)))
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > sdev->attr.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > sdev->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MASK)
		return -EINVAL;
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Every engine's state back to what a QP in RESET has. The engines are
 * stopped on return (sroce_task_stop()); modify resumes them.
 */
static void sroce_qp_reset(struct sroce_qp *qp)
{
	u32 prod;

	sroce_task_stop(qp);
	/* Discard every WQE: the rings restart empty at the producers' index. */
	spin_lock_irq(&qp->sq_lock);
	prod = READ_ONCE(qp->sq.ctrl->prod);
	qp->sq.own = prod;
	/* Pairs with the provider's acquire of cons: all slots are free. */
	smp_store_release(&qp->sq.ctrl->cons, prod);
	spin_unlock_irq(&qp->sq_lock);
	sroce_task_reset(qp, prod);
	/* Congestion on the last connection is no news for the next one. */
	sroce_cc_reset(qp);

	spin_lock_irq(&qp->rq_lock);
	prod = READ_ONCE(qp->rq.ctrl->prod);
	qp->rq.own = prod;
	qp->resp.rq_cons = prod;
	/* Pairs with the provider's acquire of cons: all slots are free. */
	smp_store_release(&qp->rq.ctrl->cons, prod);
	spin_unlock_irq(&qp->rq_lock);
}

static void sroce_qp_apply(struct sroce_qp *qp, struct ib_qp_attr *attr,
			   int mask, const struct sroce_av *av)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		/* The core's reference on the GID entry stays with attr. */
		a->ah_attr.grh.sgid_attr = NULL;
		qp->av = *av;
		/* The engines are kept out: nobody uses the cache meanwhile. */
		dst_cache_reset(&qp->dst_cache);
	}
	if (mask & IB_QP_PATH_MTU) {
		a->path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		WRITE_ONCE(a->timeout, attr->timeout);
	if (mask & IB_QP_RETRY_CNT) {
		a->retry_cnt = attr->retry_cnt;
		qp->comp.retry = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		a->rnr_retry = attr->rnr_retry;
		qp->comp.rnr_retry = attr->rnr_retry;
	}
	if (mask & IB_QP_RQ_PSN) {
		a->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
		qp->resp.psn = a->rq_psn;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		WRITE_ONCE(a->min_rnr_timer, attr->min_rnr_timer);
	if (mask & IB_QP_SQ_PSN) {
		a->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
		qp->req.psn = a->sq_psn;
		qp->req.start.psn = a->sq_psn;
		qp->req.psn_sent = a->sq_psn;
		qp->comp.psn = a->sq_psn;
	}
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN)) {
		u32 fl = a->ah_attr.grh.flow_label;

		/* One flow per QP pair, the same label in both directions. */
		if (!fl)
			fl = sroce_flow_label(qp->ibqp.qp_num, a->dest_qp_num);
		qp->av.flow_label = fl;
		qp->av.sport = sroce_udp_sport(fl);
	}
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->sqd_notify = attr->en_sqd_async_notify;
}

/* The responder's read/atomic resources change hands, engines paused. */
static struct sroce_rd_res *sroce_qp_swap_rd_res(struct sroce_qp *qp,
						 struct sroce_rd_res *res,
						 u32 n)
{
	struct sroce_rd_res *old = qp->resp.res;

	qp->resp.active = NULL;
	qp->resp.res = res;
	qp->resp.nres = n;
	qp->resp.res_next = 0;
	qp->attr.max_dest_rd_atomic = n;
	return old;
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_rd_res *res = NULL;
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, new;
	struct sroce_av av = {};
	int ret;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata) {
		ret = sroce_check_udata(udata, 0);
		if (ret)
			return ret;
	}
	mutex_lock(&qp->modify_lock);
	cur = sroce_qp_state(qp);
	ret = -EINVAL;
	/* A consumer's idea of the current state must be the QP's own. */
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		goto out;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask))
		goto out;
	ret = sroce_qp_check_attr(qp, attr, mask);
	if (ret)
		goto out;
	if (mask & IB_QP_AV) {
		ret = sroce_av_resolve(&attr->ah_attr, &av);
		if (ret)
			goto out;
	}
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic) {
		res = kcalloc(attr->max_dest_rd_atomic, sizeof(*res),
			      GFP_KERNEL_ACCOUNT);
		ret = -ENOMEM;
		if (!res)
			goto out;
	}

	/*
	 * The engines own most of what changes here: keep them out, and
	 * refuse if one of them took the QP to ERR meanwhile.
	 */
	if (new == IB_QPS_RESET && cur != IB_QPS_RESET) {
		sroce_svc_set_state(qp, IB_QPS_RESET);
		sroce_qp_reset(qp);
		cur = IB_QPS_RESET;
	} else {
		sroce_tasks_pause(qp);
	}
	if (sroce_qp_state(qp) != cur) {
		sroce_tasks_resume(qp);
		kfree(res);
		ret = -EINVAL;
		goto out;
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		res = sroce_qp_swap_rd_res(qp, res, attr->max_dest_rd_atomic);
	sroce_qp_apply(qp, attr, mask, &av);
	if (new == IB_QPS_ERR) {
		sroce_svc_error(qp, 0);
	} else if (new != cur) {
		if (new == IB_QPS_SQD)
			qp->req.drained_sent = false;
		sroce_svc_set_state(qp, new);
	}
	/* The new state's first pass (an ERR flush, the SQ in RTS) runs here. */
	sroce_tasks_resume(qp);
	/* What was swapped out above, or nothing. */
	kfree(res);
	ret = 0;
out:
	mutex_unlock(&qp->modify_lock);
	return ret;
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	mutex_lock(&qp->modify_lock);
	*attr = qp->attr;
	attr->qp_state = sroce_qp_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->sq_draining = attr->qp_state == IB_QPS_SQD &&
			    !READ_ONCE(qp->req.drained_sent);
	mutex_unlock(&qp->modify_lock);

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = qp->attr.cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = SROCE_PORT;
	return 0;
}
