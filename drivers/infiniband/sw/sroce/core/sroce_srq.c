// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: shared receive queues, the verbs. libsroce posts into the ring
 * in shared memory, as it does into a QP's RQ, with no system call; the
 * responders of the QPs attached take from it (sroce_rq.c), which is
 * also where the limit event is raised. Resizing (IB_SRQ_MAX_WR) moves
 * the WQEs not yet taken into a new ring, in order, under both locks.
 */
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "core/sroce_qp.h"
#include "core/sroce_srq.h"
#include "core/sroce_verbs.h"

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	struct ib_srq_attr *a = &init->attr;
	struct sroce_ucontext *uc;
	u32 entries, slot;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > SROCE_MAX_QP_WR ||
	    a->max_sge > SROCE_MAX_SGE)
		return -EINVAL;
	if (udata) {
		ret = sroce_check_udata(udata, sizeof(resp));
		if (ret)
			return ret;
	}
	if (atomic_inc_return(&sdev->num_srq) >
	    sroce_pool_limit(SROCE_MAX_SRQ, !!udata)) {
		ret = -ENOMEM;
		goto err_count;
	}
	srq->is_user = !!udata;
	spin_lock_init(&srq->prod_lock);
	spin_lock_init(&srq->cons_lock);
	slot = roundup_pow_of_two(sizeof(struct sroce_recv_wqe) +
				  max(a->max_sge, 1U) *
				  sizeof(struct sroce_sge));
	entries = roundup_pow_of_two(a->max_wr);
	uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	ret = sroce_queue_init(&srq->rq, entries, slot, uc ? &uc->ibuc : NULL);
	if (ret)
		goto err_count;
	srq->max_sge = min_t(u32, (slot - sizeof(struct sroce_recv_wqe)) /
				  sizeof(struct sroce_sge), SROCE_MAX_SGE);
	a->max_wr = entries;
	a->max_sge = srq->max_sge;
	/* The limit is armed by modify only. */
	a->srq_limit = 0;
	if (udata) {
		resp.mmap_offset = sroce_queue_mmap_offset(&srq->rq);
		resp.mmap_size = srq->rq.buf_size;
		resp.num_entries = entries;
		resp.entry_size = srq->rq.entry_size;
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret)
			goto err_queue;
	}
	return 0;

err_queue:
	sroce_queue_destroy(&srq->rq);
err_count:
	atomic_dec(&sdev->num_srq);
	return ret;
}

/*
 * The new ring @nq takes the WQEs not yet taken, at the same indices, and
 * becomes the SRQ's; the old one is left in @nq. -EINVAL if they do not
 * fit (IBTA 11.2.3.3: no smaller than what is outstanding), or if
 * userspace's producer index is a lie. Under both locks.
 */
static int sroce_srq_swap(struct sroce_srq *srq, struct sroce_queue *nq)
{
	struct sroce_queue old = srq->rq;
	u32 prod, n, i;

	lockdep_assert_held(&srq->prod_lock);
	lockdep_assert_held(&srq->cons_lock);
	prod = srq->is_user ? READ_ONCE(old.ctrl->prod) : old.own;
	n = prod - srq->cons;
	if (n > sroce_queue_entries(&old) || n > sroce_queue_entries(nq) ||
	    srq->limit > sroce_queue_entries(nq))
		return -EINVAL;
	for (i = srq->cons; i != prod; i++)
		memcpy(sroce_queue_slot(nq, i), sroce_queue_slot(&old, i),
		       old.entry_size);
	nq->own = old.own;
	nq->ctrl->cons = srq->cons;
	/* Release: the WQEs are in place before a responder sees prod. */
	smp_store_release(&nq->ctrl->prod, prod);
	srq->rq = *nq;
	*nq = old;
	return 0;
}

/*
 * Resize to @max_wr: a new ring, which userspace learns of at
 * @resp_addr (sroce_modify_srq_cmd) before any WQE moves there; libsroce
 * holds its producer lock throughout and maps the new ring after.
 */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr,
			    struct ib_udata *udata, u64 resp_addr)
{
	struct sroce_create_srq_resp resp = {};
	struct sroce_ucontext *uc;
	struct sroce_queue nq;
	u32 entries;
	int ret;

	if (!max_wr || max_wr > SROCE_MAX_QP_WR)
		return -EINVAL;
	if (srq->is_user && !resp_addr)
		return -EINVAL;
	entries = roundup_pow_of_two(max_wr);
	uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	ret = sroce_queue_init(&nq, entries, srq->rq.entry_size,
			       srq->is_user ? &uc->ibuc : NULL);
	if (ret)
		return ret;
	if (srq->is_user) {
		resp.mmap_offset = sroce_queue_mmap_offset(&nq);
		resp.mmap_size = nq.buf_size;
		resp.num_entries = entries;
		resp.entry_size = nq.entry_size;
		if (copy_to_user(u64_to_user_ptr(resp_addr), &resp,
				 sizeof(resp))) {
			ret = -EFAULT;
			goto out;
		}
	}
	spin_lock_bh(&srq->prod_lock);
	spin_lock(&srq->cons_lock);
	ret = sroce_srq_swap(srq, &nq);
	spin_unlock(&srq->cons_lock);
	spin_unlock_bh(&srq->prod_lock);
out:
	/* The old ring on success, the unused new one on failure. */
	sroce_queue_destroy(&nq);
	return ret;
}

int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_modify_srq_cmd cmd = {};
	int ret;

	if (udata && udata->inlen) {
		if (udata->inlen < sizeof(cmd) ||
		    !ib_is_udata_cleared(udata, sizeof(cmd),
					 udata->inlen - sizeof(cmd)))
			return -EINVAL;
		ret = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (ret)
			return ret;
	}
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		ret = sroce_srq_resize(srq, attr->max_wr, udata,
				       cmd.resp_addr);
		if (ret)
			return ret;
	}
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > sroce_queue_entries(&srq->rq))
			return -EINVAL;
		spin_lock_bh(&srq->cons_lock);
		srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->cons_lock);
	}
	return 0;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = sroce_queue_entries(&srq->rq);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/* The core refuses while QPs use it, so no responder can take any more. */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	sroce_queue_destroy(&srq->rq);
	atomic_dec(&to_sdev(ibsrq->device)->num_srq);
	return 0;
}

/* Kernel consumers; libsroce writes its ring itself. */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return sroce_queue_post_recv(&srq->rq, &srq->prod_lock, srq->max_sge,
				     wr, bad_wr);
}
