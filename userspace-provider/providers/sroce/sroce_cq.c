// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce completion queues: the kernel writes CQEs into a ring mapped
 * here; polling and arming never enter the kernel. The ring protocol is in
 * include/uapi/rdma/sroce-abi.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sroce.h"

static int sroce_cq_map(struct sroce_cq *cq, int cmd_fd,
			const struct sroce_cq_resp *r)
{
	void *buf;

	if (!r->num_entries || (r->num_entries & (r->num_entries - 1)) ||
	    r->mmap_size < sizeof(struct sroce_queue_ctrl) +
			   (uint64_t)r->num_entries * sizeof(struct sroce_cqe))
		return EPROTO;
	buf = mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, r->mmap_offset);
	if (buf == MAP_FAILED)
		return errno;
	cq->ctrl = buf;
	cq->cqes = (struct sroce_cqe *)((char *)buf + sizeof(*cq->ctrl));
	cq->map_size = r->mmap_size;
	cq->mask = r->num_entries - 1;
	/* The kernel starts (or, after a resize, restarts) us at its prod's base. */
	cq->cons = atomic_load_explicit(sroce_ring_u32(&cq->ctrl->cons),
					memory_order_relaxed);
	cq->arm = atomic_load_explicit(sroce_ring_u32(&cq->ctrl->user_flag),
				       memory_order_relaxed);
	return 0;
}

/* A CQ's state, zeroed, with its lock; NULL and errno set on failure. */
struct sroce_cq *sroce_cq_new(void)
{
	struct sroce_cq *cq = calloc(1, sizeof(*cq));
	int ret;

	if (!cq)
		return NULL;
	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return cq;
}

/*
 * After the kernel's create command (@ret its result): map the CQ's ring.
 * On failure the kernel's CQ, if made, and our state go, errno is set and
 * the result is false.
 */
bool sroce_cq_ready(struct sroce_cq *cq, int ret, int cmd_fd,
		    const struct sroce_cq_resp *r)
{
	if (!ret) {
		ret = sroce_cq_map(cq, cmd_fd, r);
		if (!ret)
			return true;
		ibv_cmd_destroy_cq(&cq->vcq.cq);
	}
	sroce_cq_delete(cq);
	errno = ret;
	return false;
}

void sroce_cq_delete(struct sroce_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct sroce_cmd_create_cq_resp resp = {};
	struct sroce_cmd_create_cq cmd;
	struct sroce_cq *cq;
	int ret;

	cq = sroce_cq_new();
	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (!sroce_cq_ready(cq, ret, ibctx->cmd_fd, &resp.drv_payload))
		return NULL;
	return &cq->vcq.cq;
}

int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int ret;

	/* On failure the kernel keeps the CQ, and so do we. */
	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	munmap(cq->ctrl, cq->map_size);
	sroce_cq_delete(cq);
	return 0;
}

int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_cmd_resize_cq_resp resp = {};
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_cmd_resize_cq cmd;
	void *old = cq->ctrl;
	size_t old_size = cq->map_size;
	int ret;

	/*
	 * Hold the lock across the call: the kernel moves the CQEs we have
	 * not consumed, so nobody may consume meanwhile.
	 */
	sroce_cq_lock(cq);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!ret) {
		ret = sroce_cq_map(cq, ibcq->context->cmd_fd,
				   &resp.drv_payload);
		if (!ret)
			munmap(old, old_size);
	}
	sroce_cq_unlock(cq);
	return ret;
}

static void sroce_cqe_to_wc(const struct sroce_cqe *cqe, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->sl = cqe->sl;
	if (cqe->flags & SROCE_CQE_WITH_IMM) {
		wc->imm_data = cqe->imm_data;
		wc->wc_flags |= IBV_WC_WITH_IMM;
	} else if (cqe->flags & SROCE_CQE_WITH_INV) {
		wc->invalidated_rkey = cqe->invalidated_rkey;
		wc->wc_flags |= IBV_WC_WITH_INV;
	}
	if (cqe->flags & SROCE_CQE_GRH)
		wc->wc_flags |= IBV_WC_GRH;
}

int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	uint32_t prod;
	int n = 0;

	sroce_cq_lock(cq);
	/* Acquire: the CQEs up to prod are fully written. */
	prod = atomic_load_explicit(sroce_ring_u32(&cq->ctrl->prod),
				    memory_order_acquire);
	while (n < ne && cq->cons != prod) {
		sroce_cqe_to_wc(&cq->cqes[cq->cons & cq->mask], &wc[n]);
		cq->cons++;
		n++;
	}
	/* Release: the kernel may reuse the slots only after we read them. */
	if (n)
		atomic_store_explicit(sroce_ring_u32(&cq->ctrl->cons), cq->cons,
				      memory_order_release);
	sroce_cq_unlock(cq);
	return n;
}

/*
 * Take @qpn's completions off @cq, keeping the others in order (a QP moved
 * to RESET, as mlx5 does: rdma-core's tests reuse a CQ after a reset).
 * The kernel writes only past its producer index, and only into slots we
 * have released: the slots below the prod we read are ours to rewrite.
 * Walking back from the newest, each kept CQE moves up over the ones
 * dropped so far; the dropped slots at the bottom are then consumed.
 */
void sroce_cq_clean(struct sroce_cq *cq, uint32_t qpn)
{
	uint32_t prod, i, dropped = 0;
	struct sroce_cqe *e;

	sroce_cq_lock(cq);
	prod = atomic_load_explicit(sroce_ring_u32(&cq->ctrl->prod),
				    memory_order_acquire);
	for (i = prod; i != cq->cons; i--) {
		e = &cq->cqes[(i - 1) & cq->mask];
		if (e->qp_num == qpn)
			dropped++;
		else if (dropped)
			cq->cqes[(i - 1 + dropped) & cq->mask] = *e;
	}
	if (dropped) {
		cq->cons += dropped;
		atomic_store_explicit(sroce_ring_u32(&cq->ctrl->cons), cq->cons,
				      memory_order_release);
	}
	sroce_cq_unlock(cq);
}

int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct sroce_cq *cq = to_scq(ibcq);
	uint32_t mode = solicited_only ? SROCE_CQ_ARM_SOLICITED :
					 SROCE_CQ_ARM_NEXT;

	sroce_cq_lock(cq);
	cq->arm = (((cq->arm >> SROCE_CQ_ARM_SEQ_SHIFT) + 1) <<
		   SROCE_CQ_ARM_SEQ_SHIFT) | mode;
	atomic_store_explicit(sroce_ring_u32(&cq->ctrl->user_flag), cq->arm,
			      memory_order_relaxed);
	/*
	 * Full barrier: the arm is visible before any later poll reads prod;
	 * the kernel does the same between publishing a CQE and reading the
	 * flag, so a CQE is either seen by that poll or raises the event.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	sroce_cq_unlock(cq);
	return 0;
}
