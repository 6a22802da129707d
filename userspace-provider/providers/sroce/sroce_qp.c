// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce queue pairs: creation, modify, query and teardown. The SQ and
 * RQ are rings mapped from the kernel (sroce_post.c posts to them); the
 * ring and doorbell protocols are in include/uapi/rdma/sroce-abi.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sroce.h"

/* create_qp_ex features we take; CREATE_FLAGS only with no flags set. */
#define SROCE_QP_INIT_ATTR_SUP	(IBV_QP_INIT_ATTR_PD |		\
				 IBV_QP_INIT_ATTR_CREATE_FLAGS |	\
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

static uint32_t sroce_qp_type_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SROCE_OPS_RC |
		       (sroce_has_wr_flush() ? IBV_QP_EX_WITH_FLUSH : 0);
	case IBV_QPT_UC:
		return SROCE_OPS_UC;
	case IBV_QPT_UD:
		return SROCE_OPS_UD;
	default:
		return 0;
	}
}

static bool sroce_is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

/* Creation and teardown. */

int sroce_wq_map(struct sroce_wq *wq, int cmd_fd, uint64_t offset,
			uint64_t size, uint32_t entries, uint32_t slot_size)
{
	void *buf;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		   offset);
	if (buf == MAP_FAILED)
		return errno;
	wq->ctrl = buf;
	wq->slots = (uint8_t *)buf + sizeof(*wq->ctrl);
	wq->map_size = size;
	wq->mask = entries - 1;
	wq->slot_size = slot_size;
	/* The kernel chooses where the indices start. */
	wq->prod = atomic_load_explicit(sroce_ring_u32(&wq->ctrl->prod),
					memory_order_relaxed);
	return 0;
}

void sroce_wq_unmap(struct sroce_wq *wq)
{
	if (wq->map_size)
		munmap(wq->ctrl, wq->map_size);
}

/*
 * A ring must hold the depth the caps promise, slots big enough for the
 * biggest WQE they allow, and fit in its mapping.
 */
bool sroce_ring_ok(uint64_t map_size, uint32_t entries,
			  uint32_t slot_size, uint32_t depth,
			  uint64_t min_slot)
{
	return sroce_is_pow2(entries) && sroce_is_pow2(slot_size) &&
	       depth <= entries && slot_size >= min_slot &&
	       map_size >= sizeof(struct sroce_queue_ctrl) +
			   (uint64_t)entries * slot_size;
}

static bool sroce_qp_resp_ok(const struct ibv_qp_cap *cap,
			     const struct sroce_create_qp_resp *r)
{
	uint64_t sq_data = (uint64_t)cap->max_send_sge *
			   sizeof(struct sroce_sge);
	uint64_t rq_data = (uint64_t)cap->max_recv_sge *
			   sizeof(struct sroce_sge);

	if (sq_data < cap->max_inline_data)
		sq_data = cap->max_inline_data;
	/* num_sge is a byte in the send WQE. */
	if (cap->max_send_sge > UINT8_MAX ||
	    !sroce_ring_ok(r->sq_mmap_size, r->sq_entries, r->sq_entry_size,
			   cap->max_send_wr,
			   sizeof(struct sroce_send_wqe) + sq_data))
		return false;
	/* No RQ (an SRQ serves the QP): nothing to check. */
	return !r->rq_mmap_size ||
	       sroce_ring_ok(r->rq_mmap_size, r->rq_entries, r->rq_entry_size,
			     cap->max_recv_wr,
			     sizeof(struct sroce_recv_wqe) + rq_data);
}

/*
 * Checks the kernel's reply and maps the rings; on failure the caller
 * destroys the kernel QP.
 */
static int sroce_qp_setup(struct sroce_qp *qp, const struct ibv_qp_cap *cap,
			  const struct sroce_create_qp_resp *r)
{
	int fd = qp->vqp.qp.context->cmd_fd;
	int ret;

	if (!sroce_qp_resp_ok(cap, r))
		return EPROTO;
	qp->max_send_sge = cap->max_send_sge;
	qp->max_recv_sge = cap->max_recv_sge;
	qp->max_inline = cap->max_inline_data;
	qp->sq.depth = cap->max_send_wr;
	qp->rq.depth = cap->max_recv_wr;

	ret = sroce_wq_map(&qp->sq, fd, r->sq_mmap_offset, r->sq_mmap_size,
			   r->sq_entries, r->sq_entry_size);
	if (ret || !r->rq_mmap_size)
		return ret;
	ret = sroce_wq_map(&qp->rq, fd, r->rq_mmap_offset, r->rq_mmap_size,
			   r->rq_entries, r->rq_entry_size);
	if (ret)
		sroce_wq_unmap(&qp->sq);
	return ret;
}

/*
 * The QP's state, from the parent domain's allocator if it has one that
 * does not defer to ours; zeroed either way.
 */
static struct sroce_qp *sroce_qp_mem(struct sroce_pd *pd)
{
	struct sroce_qp *qp;

	if (pd->alloc) {
		qp = pd->alloc(&pd->ibv_pd, pd->pd_context, sizeof(*qp),
			       _Alignof(struct sroce_qp), SROCE_RES_TYPE_QP);
		if (qp != IBV_ALLOCATOR_USE_DEFAULT) {
			if (qp) {
				memset(qp, 0, sizeof(*qp));
				qp->alloc_pd = pd;
			}
			return qp;
		}
	}
	return calloc(1, sizeof(*qp));
}

static void sroce_qp_mem_free(struct sroce_qp *qp)
{
	struct sroce_pd *pd = qp->alloc_pd;

	if (pd)
		pd->free(&pd->ibv_pd, pd->pd_context, qp, SROCE_RES_TYPE_QP);
	else
		free(qp);
}

static struct sroce_qp *sroce_qp_alloc(struct ibv_pd *ibpd,
				       enum ibv_qp_type type, int *err)
{
	struct sroce_pd *pd = to_spd(ibpd);
	struct sroce_qp *qp;

	/* Types whose WQEs we cannot build never reach the kernel. */
	if (!sroce_qp_type_ops(type)) {
		*err = EOPNOTSUPP;
		return NULL;
	}
	qp = sroce_qp_mem(pd);
	if (!qp) {
		*err = ENOMEM;
		return NULL;
	}
	*err = pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	if (*err)
		goto err_free;
	*err = pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	if (*err)
		goto err_sq;
	qp->ops = sroce_ops_opcodes(sroce_qp_type_ops(type));
	qp->lockless = pd->td != NULL;
	/* A parent domain stays while QPs are built on it. */
	atomic_fetch_add_explicit(&pd->refs, 1, memory_order_relaxed);
	qp->pd = pd;
	return qp;

err_sq:
	pthread_spin_destroy(&qp->sq.lock);
err_free:
	sroce_qp_mem_free(qp);
	return NULL;
}

static void sroce_qp_free(struct sroce_qp *qp)
{
	atomic_fetch_sub_explicit(&qp->pd->refs, 1, memory_order_release);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_spin_destroy(&qp->sq.lock);
	sroce_qp_mem_free(qp);
}

struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr)
{
	struct sroce_cmd_create_qp_resp resp = {};
	struct sroce_cmd_create_qp cmd;
	struct sroce_qp *qp;
	int ret;

	qp = sroce_qp_alloc(pd, attr->qp_type, &ret);
	if (!qp)
		goto err;
	/* No driver request data; the caps come back in attr->cap. */
	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_qp_setup(qp, &attr->cap, &resp.drv_payload);
	if (ret)
		goto err_destroy;
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	sroce_qp_free(qp);
err:
	errno = ret;
	return NULL;
}

static int sroce_check_init_attr_ex(const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~SROCE_QP_INIT_ATTR_SUP)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD))
		return EINVAL;
	/* ibv_wr_post(3): a QP that cannot do every asked op must fail. */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~sroce_qp_type_ops(attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_cmd_create_qp_ex_resp resp = {};
	struct sroce_cmd_create_qp_ex cmd;
	struct sroce_qp *qp;
	int ret;

	ret = sroce_check_init_attr_ex(attr);
	if (ret)
		goto err;
	qp = sroce_qp_alloc(attr->pd, attr->qp_type, &ret);
	if (!qp)
		goto err;
	ret = ibv_cmd_create_qp_ex2(ibctx, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_qp_setup(qp, &attr->cap, &resp.drv_payload);
	if (ret)
		goto err_destroy;
	/* After the command: it resets vqp.comp_mask. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		sroce_qp_init_wr_api(qp);
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	sroce_qp_free(qp);
err:
	errno = ret;
	return NULL;
}

int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_qp cmd;
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	/* In RESET the QP has no completions: take them off its CQs. */
	if (!ret && (attr_mask & IBV_QP_STATE) &&
	    attr->qp_state == IBV_QPS_RESET) {
		sroce_cq_clean(to_scq(ibqp->send_cq), ibqp->qp_num);
		if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
			sroce_cq_clean(to_scq(ibqp->recv_cq), ibqp->qp_num);
	}
	return ret;
}

int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int ret;

	/* On failure the kernel keeps the QP and its rings, and so do we. */
	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	sroce_wq_unmap(&qp->rq);
	sroce_wq_unmap(&qp->sq);
	sroce_qp_free(qp);
	return 0;
}
