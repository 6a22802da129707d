// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce posting. Posting writes WQEs into the rings mapped from the
 * kernel and enters the kernel only to wake an idle requester (SQ) or to
 * have receives flushed in the error state (RQ). The ring and doorbell
 * protocols are in include/uapi/rdma/sroce-abi.h.
 *
 * Both posting paths (ibv_post_send and the ibv_wr_* API) share one way
 * of claiming a slot and one way of publishing; the kernel copies each
 * WQE before it trusts it, so what we check here is only what the verbs
 * promise to report at post time.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sroce.h"

/*
 * The WQE opcode byte carries enum ib_uverbs_wr_opcode; we write the
 * ibv_wr_opcode as given, and test it against masks of
 * IBV_QP_EX_WITH_* bits (1 << opcode), so all three must agree.
 */
#define SROCE_SAME_OP(x)					\
	static_assert((int)IBV_WR_##x == (int)IB_UVERBS_WR_##x &&	\
		      IBV_QP_EX_WITH_##x == 1u << IBV_WR_##x, #x)
SROCE_SAME_OP(RDMA_WRITE);
SROCE_SAME_OP(RDMA_WRITE_WITH_IMM);
SROCE_SAME_OP(SEND);
SROCE_SAME_OP(SEND_WITH_IMM);
SROCE_SAME_OP(SEND_WITH_INV);
SROCE_SAME_OP(RDMA_READ);
SROCE_SAME_OP(ATOMIC_CMP_AND_SWP);
SROCE_SAME_OP(ATOMIC_FETCH_AND_ADD);
SROCE_SAME_OP(LOCAL_INV);
SROCE_SAME_OP(BIND_MW);
static_assert((int)IBV_WR_ATOMIC_WRITE == (int)IB_UVERBS_WR_ATOMIC_WRITE,
	      "ATOMIC_WRITE (its WITH bit differs: sroce_ops_opcodes())");
static_assert((int)IBV_WR_FLUSH == (int)IB_UVERBS_WR_FLUSH,
	      "FLUSH (its WITH bit differs: sroce_ops_opcodes())");

static bool sroce_op_in(uint32_t ops, unsigned int opcode)
{
	return opcode < 32 && (ops & (1u << opcode));
}

static struct sroce_qp *to_sqp_ex(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct sroce_qp, vqp.qp_ex);
}

/* Ring helpers, shared by the SQ and the RQ. */

static void *sroce_wq_slot(struct sroce_wq *wq, uint32_t idx)
{
	return wq->slots + (size_t)(idx & wq->mask) * wq->slot_size;
}

static bool sroce_wq_full(struct sroce_wq *wq)
{
	/* Acquire: the kernel has copied the WQEs it has moved past. */
	uint32_t cons = atomic_load_explicit(sroce_ring_u32(&wq->ctrl->cons),
					     memory_order_acquire);

	/* A cons ahead of prod wraps to a huge count: full, which is safe. */
	return wq->prod - cons >= wq->depth;
}

/* Called under wq->lock: make the WQEs from start on visible. */
static bool sroce_wq_publish(struct sroce_wq *wq, uint32_t start)
{
	if (wq->prod == start)
		return false;
	atomic_store_explicit(sroce_ring_u32(&wq->ctrl->prod), wq->prod,
			      memory_order_release);
	return true;
}

/*
 * After publishing: the full barrier pairs with the kernel's between
 * setting its flag and re-reading prod, so one of us sees the other.
 */
static bool sroce_wq_kern_flag(struct sroce_wq *wq, uint32_t flag)
{
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(sroce_ring_u32(&wq->ctrl->kern_flag),
				    memory_order_relaxed) & flag;
}

/*
 * The doorbells: a post command with no work requests. The kernel enables
 * these two commands for sroce devices only for this.
 *
 * The SQ's is on every idle-to-busy post, so it is written to the command
 * file directly: libibverbs would send it through the ioctl path (its
 * INVOKE_WRITE method), which parses an attribute bundle around the same
 * command and costs a small message's round trip a measurable share.
 */
static int sroce_sq_doorbell(struct sroce_qp *qp)
{
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send req;

	if (!sroce_wq_kern_flag(&qp->sq, SROCE_SQ_IDLE))
		return 0;
	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.response = (uintptr_t)&resp;
	req.qp_handle = qp->vqp.qp.handle;
	req.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->vqp.qp.context->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno;
	return 0;
}

static int sroce_rq_doorbell(struct sroce_qp *qp)
{
	struct ibv_recv_wr *bad;

	/* Only in the error state: the kernel flushes what we posted. */
	if (!sroce_wq_kern_flag(&qp->rq, SROCE_RQ_FLUSH))
		return 0;
	return ibv_cmd_post_recv(&qp->vqp.qp, NULL, &bad);
}

/* Building send WQEs, shared by ibv_post_send and the WR API. */

static struct sroce_sge *sroce_wqe_sges(struct sroce_send_wqe *wqe)
{
	return (struct sroce_sge *)(wqe + 1);
}

static void sroce_copy_sges(struct sroce_sge *dst, const struct ibv_sge *src,
			    uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		dst[i] = (struct sroce_sge){
			.addr = src[i].addr,
			.length = src[i].length,
			.lkey = src[i].lkey,
		};
}

/*
 * Claims the next SQ slot (caller holds sq.lock) and writes a clean
 * header, so no stale reserved field of an earlier WQE leaks through.
 */
static struct sroce_send_wqe *sroce_sq_claim(struct sroce_qp *qp,
					     uint64_t wr_id,
					     unsigned int opcode,
					     unsigned int send_flags)
{
	struct sroce_send_wqe *wqe;

	if (sroce_wq_full(&qp->sq))
		return NULL;
	wqe = sroce_wq_slot(&qp->sq, qp->sq.prod++);
	*wqe = (struct sroce_send_wqe){
		.wr_id = wr_id,
		.opcode = opcode,
		.send_flags = send_flags,
	};
	return wqe;
}

static void sroce_wqe_set_rdma(struct sroce_send_wqe *wqe, uint32_t rkey,
			       uint64_t remote_addr)
{
	wqe->rdma.remote_addr = remote_addr;
	wqe->rdma.rkey = rkey;
}

/* The window by the rkey it has now, the MR (none: unbind) and the range. */
static void sroce_wqe_set_bind(struct sroce_send_wqe *wqe, struct ibv_mw *mw,
			       uint32_t rkey,
			       const struct ibv_mw_bind_info *info)
{
	wqe->bind.mw_rkey = mw->rkey;
	wqe->bind.new_rkey = rkey;
	wqe->bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->bind.access = info->mw_access_flags;
	wqe->bind_addr = info->addr;
	wqe->bind_length = info->length;
}

static void sroce_wqe_set_ud(struct sroce_send_wqe *wqe, struct ibv_ah *ah,
			     uint32_t remote_qpn, uint32_t remote_qkey)
{
	wqe->ud.ah = to_sah(ah)->ah_num;
	wqe->ud.remote_qpn = remote_qpn;
	wqe->ud.remote_qkey = remote_qkey;
}

/* ibv_post_send. */

static uint64_t sroce_sge_bytes(const struct ibv_sge *sg, int n)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < n; i++)
		total += sg[i].length;
	return total;
}

static int sroce_check_send_wr(struct sroce_qp *qp,
			       const struct ibv_send_wr *wr)
{
	/*
	 * struct ibv_send_wr has no room for an ATOMIC WRITE's 8 bytes, nor
	 * for a FLUSH's type and level.
	 */
	if (!sroce_op_in(qp->ops, wr->opcode) ||
	    wr->opcode == IBV_WR_ATOMIC_WRITE || wr->opcode == IBV_WR_FLUSH)
		return EINVAL;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	/* A type 1 window is bound by ibv_bind_mw() only. */
	if (wr->opcode == IBV_WR_BIND_MW &&
	    (!wr->bind_mw.mw || wr->bind_mw.mw->type != IBV_MW_TYPE_2))
		return EINVAL;
	if (!(wr->send_flags & IBV_SEND_INLINE)) {
		/* A negative count turns huge: rejected too. */
		if ((unsigned int)wr->num_sge > qp->max_send_sge)
			return EINVAL;
		return 0;
	}
	if (!sroce_op_in(SROCE_OPS_INLINE, wr->opcode) ||
	    sroce_sge_bytes(wr->sg_list, wr->num_sge) > qp->max_inline)
		return EINVAL;
	return 0;
}

static void sroce_wqe_set_op(struct sroce_send_wqe *wqe,
			     const struct ibv_send_wr *wr)
{
	if (wr->opcode == IBV_WR_SEND_WITH_INV ||
	    wr->opcode == IBV_WR_LOCAL_INV)
		wqe->ex.invalidate_rkey = wr->invalidate_rkey;
	else if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
		 wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		wqe->ex.imm_data = wr->imm_data;

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		sroce_wqe_set_rdma(wqe, wr->wr.rdma.rkey,
				   wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		sroce_wqe_set_rdma(wqe, wr->wr.atomic.rkey,
				   wr->wr.atomic.remote_addr);
		wqe->compare_add = wr->wr.atomic.compare_add;
		/* Fetch-and-add has no swap operand; keep the field 0. */
		if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
			wqe->swap = wr->wr.atomic.swap;
		break;
	case IBV_WR_BIND_MW:
		sroce_wqe_set_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				   &wr->bind_mw.bind_info);
		break;
	default:
		break;
	}
}

static void sroce_wqe_set_data(struct sroce_send_wqe *wqe,
			       const struct ibv_send_wr *wr)
{
	uint8_t *dst = (uint8_t *)(wqe + 1);
	uint32_t off = 0;
	int i;

	if (!(wr->send_flags & IBV_SEND_INLINE)) {
		sroce_copy_sges(sroce_wqe_sges(wqe), wr->sg_list, wr->num_sge);
		wqe->num_sge = wr->num_sge;
		return;
	}
	/* Copied now: the caller may reuse its buffers when we return. */
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(dst + off, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		off += wr->sg_list[i].length;
	}
	wqe->inline_len = off;
}

static int sroce_post_one_send(struct sroce_qp *qp,
			       const struct ibv_send_wr *wr)
{
	struct sroce_send_wqe *wqe;
	int ret;

	ret = sroce_check_send_wr(qp, wr);
	if (ret)
		return ret;
	wqe = sroce_sq_claim(qp, wr->wr_id, wr->opcode, wr->send_flags);
	if (!wqe)
		return ENOMEM;
	sroce_wqe_set_op(wqe, wr);
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		sroce_wqe_set_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				 wr->wr.ud.remote_qkey);
	sroce_wqe_set_data(wqe, wr);
	return 0;
}

/*
 * The WRs before a bad one stay posted, as ibv_post_send(3) has it. The
 * doorbell runs after the lock is dropped: it needs only our own
 * publication to have happened, and a syscall under a spinlock would
 * stall every other poster.
 */
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ibv_send_wr *first = wr;
	bool published;
	uint32_t start;
	int ret = 0;
	int db;

	/* RESET, INIT, RTR: the IBTA wants the post refused, nothing queued. */
	if (sroce_wq_kern_flag(&qp->sq, SROCE_SQ_NOT_READY)) {
		*bad_wr = wr;
		return EINVAL;
	}
	sroce_wq_lock(qp, &qp->sq);
	start = qp->sq.prod;
	for (; wr; wr = wr->next) {
		ret = sroce_post_one_send(qp, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	published = sroce_wq_publish(&qp->sq, start);
	sroce_wq_unlock(qp, &qp->sq);

	if (!published)
		return ret;
	db = sroce_sq_doorbell(qp);
	if (db && !ret) {
		/*
		 * The WQEs are in the ring and cannot be taken back, but an
		 * idle requester was not woken: report the whole list.
		 */
		*bad_wr = first;
		ret = db;
	}
	return ret;
}

/*
 * ibv_bind_mw() of a type 1 window (libibverbs checked the type and the
 * MR's PD): a BIND_MW WQE under the window's next rkey, which the window
 * shows from now on; a bind that then completes in error leaves the
 * window as it was, and the consumer puts the old rkey back.
 */
int sroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *bind)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	struct sroce_send_wqe *wqe;
	uint32_t start;
	int ret = 0;

	/* Zero-based windows are not offered. */
	if (!sroce_op_in(qp->ops, IBV_WR_BIND_MW) ||
	    (bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED) ||
	    (bind->send_flags & IBV_SEND_INLINE) ||
	    sroce_wq_kern_flag(&qp->sq, SROCE_SQ_NOT_READY))
		return EINVAL;
	sroce_wq_lock(qp, &qp->sq);
	start = qp->sq.prod;
	wqe = sroce_sq_claim(qp, bind->wr_id, IBV_WR_BIND_MW, bind->send_flags);
	if (wqe)
		sroce_wqe_set_bind(wqe, mw, rkey, &bind->bind_info);
	else
		ret = ENOMEM;
	sroce_wq_publish(&qp->sq, start);
	sroce_wq_unlock(qp, &qp->sq);
	if (ret)
		return ret;
	mw->rkey = rkey;
	return sroce_sq_doorbell(qp);
}

/* ibv_post_recv. */

/* Into a QP's RQ or an SRQ, the same ring layout. */
static int sroce_post_one_recv(struct sroce_wq *wq, uint32_t max_sge,
			       const struct ibv_recv_wr *wr)
{
	struct sroce_recv_wqe *wqe;

	if ((unsigned int)wr->num_sge > max_sge)
		return EINVAL;
	if (sroce_wq_full(wq))
		return ENOMEM;
	wqe = sroce_wq_slot(wq, wq->prod++);
	*wqe = (struct sroce_recv_wqe){
		.wr_id = wr->wr_id,
		.num_sge = wr->num_sge,
	};
	sroce_copy_sges((struct sroce_sge *)(wqe + 1), wr->sg_list,
			wr->num_sge);
	return 0;
}

int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ibv_recv_wr *first = wr;
	bool published;
	uint32_t start;
	int ret = 0;
	int db;

	/* Receives go to the SRQ when there is one; we have no RQ then. */
	if (!qp->rq.map_size) {
		*bad_wr = wr;
		return wr ? EINVAL : 0;
	}

	if (sroce_wq_kern_flag(&qp->rq, SROCE_RQ_NOT_READY)) {
		*bad_wr = wr;
		return EINVAL;
	}
	sroce_wq_lock(qp, &qp->rq);
	start = qp->rq.prod;
	for (; wr; wr = wr->next) {
		ret = sroce_post_one_recv(&qp->rq, qp->max_recv_sge, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	published = sroce_wq_publish(&qp->rq, start);
	sroce_wq_unlock(qp, &qp->rq);

	if (!published)
		return ret;
	db = sroce_rq_doorbell(qp);
	if (db && !ret) {
		*bad_wr = first;
		ret = db;
	}
	return ret;
}

/*
 * ibv_post_srq_recv: into the SRQ's ring. No doorbell: the responders
 * look at the ring whenever a message needs a receive.
 */
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	uint32_t start;
	int ret = 0;

	pthread_spin_lock(&srq->rq.lock);
	start = srq->rq.prod;
	for (; wr; wr = wr->next) {
		ret = sroce_post_one_recv(&srq->rq, srq->max_sge, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	sroce_wq_publish(&srq->rq, start);
	pthread_spin_unlock(&srq->rq.lock);
	return ret;
}

/*
 * The WR API (ibv_wr_post(3)). wr_start takes the SQ lock and
 * wr_complete or wr_abort drops it, so a batch is one critical section,
 * as the man page promises. Builders claim a slot at once and setters
 * fill the last one; the first error is kept, later calls do nothing, and
 * wr_complete then discards the whole batch and returns the error.
 */

static void sroce_wr_fail(struct sroce_qp *qp, int err)
{
	qp->wr_err = err;
	qp->wr_cur = NULL;
}

static void sroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	sroce_wq_lock(qp, &qp->sq);
	qp->wr_start = qp->sq.prod;
	qp->wr_err = 0;
	qp->wr_cur = NULL;
}

static int sroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);
	int err = qp->wr_err;
	bool published;

	if (!err && sroce_wq_kern_flag(&qp->sq, SROCE_SQ_NOT_READY))
		err = EINVAL;

	if (err)
		qp->sq.prod = qp->wr_start;
	published = sroce_wq_publish(&qp->sq, qp->wr_start);
	sroce_wq_unlock(qp, &qp->sq);
	return published ? sroce_sq_doorbell(qp) : err;
}

static void sroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	/* Nothing since wr_start was published, so the slots are ours. */
	qp->sq.prod = qp->wr_start;
	sroce_wq_unlock(qp, &qp->sq);
}

/* Starts the batch's next WQE; NULL once the batch has failed. */
static struct sroce_send_wqe *sroce_wr_begin(struct ibv_qp_ex *qpx,
					     unsigned int opcode)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);
	struct sroce_send_wqe *wqe;

	if (qp->wr_err)
		return NULL;
	if (!sroce_op_in(qp->ops, opcode)) {
		sroce_wr_fail(qp, EINVAL);
		return NULL;
	}
	/* Inline is the setter's to choose, not the flags'. */
	wqe = sroce_sq_claim(qp, qpx->wr_id, opcode,
			     qpx->wr_flags & ~IBV_SEND_INLINE);
	if (!wqe)
		sroce_wr_fail(qp, ENOMEM);
	qp->wr_cur = wqe;
	return wqe;
}

static void sroce_wr_send(struct ibv_qp_ex *qpx)
{
	sroce_wr_begin(qpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->ex.imm_data = imm_data;
}

static void sroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->ex.invalidate_rkey = invalidate_rkey;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_RDMA_WRITE);

	if (wqe)
		sroce_wqe_set_rdma(wqe, rkey, remote_addr);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_begin(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);
	if (!wqe)
		return;
	sroce_wqe_set_rdma(wqe, rkey, remote_addr);
	wqe->ex.imm_data = imm_data;
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_RDMA_READ);

	if (wqe)
		sroce_wqe_set_rdma(wqe, rkey, remote_addr);
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_begin(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);
	if (!wqe)
		return;
	sroce_wqe_set_rdma(wqe, rkey, remote_addr);
	wqe->compare_add = compare;
	wqe->swap = swap;
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_begin(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (!wqe)
		return;
	sroce_wqe_set_rdma(wqe, rkey, remote_addr);
	wqe->compare_add = add;
}

/* The 8 bytes are copied now, as they are: they land byte for byte. */
static void sroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_begin(qpx, IBV_WR_ATOMIC_WRITE);
	if (!wqe)
		return;
	sroce_wqe_set_rdma(wqe, rkey, remote_addr);
	memcpy(wqe->atomic_wr, atomic_wr, sizeof(wqe->atomic_wr));
}

/*
 * FLUSH of @len bytes at @remote_addr, or of the whole MR (IBV_FLUSH_MR):
 * the RETH's length is 32 bits; a placement type names GLOBAL,
 * PERSISTENT or both.
 */
static void sroce_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			   uint64_t remote_addr, size_t len, uint8_t type,
			   uint8_t level)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_FLUSH);

	if (!wqe)
		return;
	if (len > UINT32_MAX || !type ||
	    (type & ~(IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT)) ||
	    (level != IBV_FLUSH_RANGE && level != IBV_FLUSH_MR)) {
		sroce_wr_fail(to_sqp_ex(qpx), EINVAL);
		return;
	}
	wqe->flush.remote_addr = remote_addr;
	wqe->flush.rkey = rkey;
	wqe->flush.length = len;
	wqe->flush_sel.type = type;
	wqe->flush_sel.level = level;
}

static void sroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->ex.invalidate_rkey = invalidate_rkey;
}

/* Type 2B windows, as with ibv_post_send(); type 1: ibv_bind_mw(). */
static void sroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *info)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_BIND_MW);

	if (!wqe)
		return;
	if (!mw || mw->type != IBV_MW_TYPE_2) {
		sroce_wr_fail(to_sqp_ex(qpx), EINVAL);
		return;
	}
	sroce_wqe_set_bind(wqe, mw, rkey, info);
}

static void sroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);

	if (!qp->wr_cur)
		return;
	if (qpx->qp_base.qp_type != IBV_QPT_UD || !ah) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	sroce_wqe_set_ud(qp->wr_cur, ah, remote_qpn, remote_qkey);
}

static void sroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);
	struct sroce_send_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (num_sge > qp->max_send_sge) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	sroce_copy_sges(sroce_wqe_sges(wqe), sg_list, num_sge);
	wqe->num_sge = num_sge;
	wqe->inline_len = 0;
	wqe->send_flags &= ~IBV_SEND_INLINE;
}

static void sroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	const struct ibv_sge sge = {
		.addr = addr,
		.length = length,
		.lkey = lkey,
	};

	sroce_wr_set_sge_list(qpx, 1, &sge);
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct sroce_qp *qp = to_sqp_ex(qpx);
	struct sroce_send_wqe *wqe = qp->wr_cur;
	uint8_t *dst;
	size_t total = 0;
	size_t i;

	if (!wqe)
		return;
	for (i = 0; i < num_buf; i++) {
		total += buf_list[i].length;
		/* Checked as we go, so the sum cannot wrap. */
		if (total > qp->max_inline)
			break;
	}
	if (total > qp->max_inline ||
	    !sroce_op_in(SROCE_OPS_INLINE, wqe->opcode)) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	dst = (uint8_t *)(wqe + 1);
	for (i = 0; i < num_buf; i++) {
		memcpy(dst, buf_list[i].addr, buf_list[i].length);
		dst += buf_list[i].length;
	}
	wqe->inline_len = total;
	wqe->num_sge = 0;
	wqe->send_flags |= IBV_SEND_INLINE;
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	const struct ibv_data_buf buf = {
		.addr = addr,
		.length = length,
	};

	sroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/*
 * libsroce compiles against rdma-core 56.1's headers, but runs under the
 * libibverbs of the system: Debian 12's 44, whose struct ibv_qp_ex ends
 * before wr_flush (rdma-core 45 added it), so that verbs_qp.comp_mask
 * sits where 56.1 has wr_flush. ibv_qp_to_qp_ex() of either version must
 * find VERBS_QP_EX: under 44 it goes in both places, and nobody may call
 * wr_flush (creation refuses IBV_QP_EX_WITH_FLUSH). A libibverbs of 45
 * or later has the slot, and there FLUSH is offered. No symbol tells 45
 * from 44; ibv_wr_opcode_str, exported from 49 on, tells where the slot
 * surely is (Ubuntu 24.04's 50, rdma-core 56.1), whatever the scope
 * libibverbs was loaded in. 45 to 48 go without FLUSH.
 */
static_assert(offsetof(struct ibv_qp_ex, wr_flush) + sizeof(void *) ==
	      sizeof(struct ibv_qp_ex), "wr_flush is 56.1's only addition");
static_assert(offsetof(struct verbs_qp, comp_mask) ==
	      sizeof(struct ibv_qp_ex), "verbs_qp layout");

bool sroce_has_wr_flush(void)
{
	static atomic_int has = -1;
	int v = atomic_load_explicit(&has, memory_order_relaxed);
	void *h;

	/* Threads racing here find the same answer and store it alike. */
	if (v < 0) {
		h = dlopen("libibverbs.so.1", RTLD_LAZY | RTLD_NOLOAD);
		v = h && dlsym(h, "ibv_wr_opcode_str");
		atomic_store_explicit(&has, v, memory_order_relaxed);
		if (h)
			dlclose(h);
	}
	return v > 0;
}

static void sroce_qp_mark_ex(struct sroce_qp *qp)
{
	const uint32_t mask = VERBS_QP_EX;

	qp->vqp.comp_mask |= mask;
	if (!sroce_has_wr_flush())
		memcpy(&qp->vqp.qp_ex.wr_flush, &mask, sizeof(mask));
}

/*
 * Every builder is installed whatever send_ops_flags asked for; a builder
 * the QP type does not allow fails the batch. Those we do not have (TSO,
 * XRC; flush under a libibverbs without its slot) stay NULL: creation
 * refused them.
 */
void sroce_qp_init_wr_api(struct sroce_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qpx->wr_start = sroce_wr_start;
	qpx->wr_complete = sroce_wr_complete;
	qpx->wr_abort = sroce_wr_abort;
	qpx->wr_send = sroce_wr_send;
	qpx->wr_send_imm = sroce_wr_send_imm;
	qpx->wr_send_inv = sroce_wr_send_inv;
	qpx->wr_rdma_write = sroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	qpx->wr_rdma_read = sroce_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	qpx->wr_atomic_write = sroce_wr_atomic_write;
	if (sroce_has_wr_flush())
		qpx->wr_flush = sroce_wr_flush;
	qpx->wr_local_inv = sroce_wr_local_inv;
	qpx->wr_bind_mw = sroce_wr_bind_mw;
	qpx->wr_set_ud_addr = sroce_wr_set_ud_addr;
	qpx->wr_set_sge = sroce_wr_set_sge;
	qpx->wr_set_sge_list = sroce_wr_set_sge_list;
	qpx->wr_set_inline_data = sroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
	sroce_qp_mark_ex(qp);
}
