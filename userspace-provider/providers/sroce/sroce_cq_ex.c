// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce extended CQs (ibv_create_cq_ex(3)): the same ring as
 * sroce_cq.c, read one CQE at a time through ibv_start_poll(),
 * ibv_next_poll() and the ibv_wc_read_*() accessors. A CQ asked for
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP has the kernel stamp each CQE with
 * CLOCK_MONOTONIC in ns (the device's hca_core_clock is 1 GHz), the clock
 * ibv_query_rt_values_ex() reads here without a system call. A CQ that is
 * single-threaded (IBV_CREATE_CQ_ATTR_SINGLE_THREADED, or created on a
 * parent domain with a thread domain) is polled without a lock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <time.h>

#include "sroce.h"

/* What a CQE can tell; anything else (flow tag, TM, wall clock) is not. */
#define SROCE_WC_EX_SUP	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |	\
			 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |	\
			 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |		\
			 IBV_WC_EX_WITH_DLID_PATH_BITS |			\
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |			\
			 IBV_WC_EX_WITH_CVLAN)
#define SROCE_CQ_INIT_SUP	(IBV_CQ_INIT_ATTR_MASK_FLAGS |		\
				 IBV_CQ_INIT_ATTR_MASK_PD)

/* The CQE at cons becomes the current one; ENOENT when there is none. */
static int sroce_cqx_take(struct sroce_cq *cq)
{
	/* Acquire: the CQEs up to prod are fully written. */
	uint32_t prod = atomic_load_explicit(sroce_ring_u32(&cq->ctrl->prod),
					     memory_order_acquire);

	if (cq->cons == prod)
		return ENOENT;
	cq->cur = &cq->cqes[cq->cons & cq->mask];
	cq->cons++;
	cq->vcq.cq_ex.wr_id = cq->cur->wr_id;
	cq->vcq.cq_ex.status = cq->cur->status;
	return 0;
}

static int sroce_cqx_start_poll(struct ibv_cq_ex *ibcq,
				struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = to_scq_ex(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	sroce_cq_lock(cq);
	ret = sroce_cqx_take(cq);
	/* ENOENT ends the poll here: no end_poll follows (ibv_create_cq_ex(3)). */
	if (ret)
		sroce_cq_unlock(cq);
	return ret;
}

static int sroce_cqx_next_poll(struct ibv_cq_ex *ibcq)
{
	return sroce_cqx_take(to_scq_ex(ibcq));
}

static void sroce_cqx_end_poll(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = to_scq_ex(ibcq);

	/* Release: the kernel may reuse the slots only after we read them. */
	atomic_store_explicit(sroce_ring_u32(&cq->ctrl->cons), cq->cons,
			      memory_order_release);
	cq->cur = NULL;
	sroce_cq_unlock(cq);
}

static enum ibv_wc_opcode sroce_cqx_opcode(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->opcode;
}

static uint32_t sroce_cqx_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->vendor_err;
}

static uint32_t sroce_cqx_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->byte_len;
}

/* The immediate, or (ibv_wc_read_invalidated_rkey()) the rkey, big endian. */
static __be32 sroce_cqx_imm_data(struct ibv_cq_ex *ibcq)
{
	const struct sroce_cqe *cqe = to_scq_ex(ibcq)->cur;

	if (cqe->flags & SROCE_CQE_WITH_INV)
		return htonl(cqe->invalidated_rkey);
	return cqe->imm_data;
}

static uint32_t sroce_cqx_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->qp_num;
}

static uint32_t sroce_cqx_src_qp(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->src_qp;
}

static unsigned int sroce_cqx_wc_flags(struct ibv_cq_ex *ibcq)
{
	const struct sroce_cqe *cqe = to_scq_ex(ibcq)->cur;
	unsigned int f = 0;

	if (cqe->flags & SROCE_CQE_WITH_IMM)
		f |= IBV_WC_WITH_IMM;
	else if (cqe->flags & SROCE_CQE_WITH_INV)
		f |= IBV_WC_WITH_INV;
	if (cqe->flags & SROCE_CQE_GRH)
		f |= IBV_WC_GRH;
	return f;
}

/* RoCE has no LIDs. */
static uint32_t sroce_cqx_slid(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

static uint8_t sroce_cqx_sl(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->sl;
}

static uint8_t sroce_cqx_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

static uint64_t sroce_cqx_completion_ts(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->timestamp;
}

static uint16_t sroce_cqx_cvlan(struct ibv_cq_ex *ibcq)
{
	return to_scq_ex(ibcq)->cur->vlan_id;
}

static void sroce_cqx_init_ops(struct ibv_cq_ex *x)
{
	x->start_poll = sroce_cqx_start_poll;
	x->next_poll = sroce_cqx_next_poll;
	x->end_poll = sroce_cqx_end_poll;
	x->read_opcode = sroce_cqx_opcode;
	x->read_vendor_err = sroce_cqx_vendor_err;
	x->read_byte_len = sroce_cqx_byte_len;
	x->read_imm_data = sroce_cqx_imm_data;
	x->read_qp_num = sroce_cqx_qp_num;
	x->read_src_qp = sroce_cqx_src_qp;
	x->read_wc_flags = sroce_cqx_wc_flags;
	x->read_slid = sroce_cqx_slid;
	x->read_sl = sroce_cqx_sl;
	x->read_dlid_path_bits = sroce_cqx_dlid_path_bits;
	x->read_completion_ts = sroce_cqx_completion_ts;
	x->read_cvlan = sroce_cqx_cvlan;
}

static int sroce_cqx_check(struct ibv_context *ibctx,
			   const struct ibv_cq_init_attr_ex *attr)
{
	if ((attr->comp_mask & ~SROCE_CQ_INIT_SUP) ||
	    (attr->wc_flags & ~SROCE_WC_EX_SUP))
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!attr->parent_domain || attr->parent_domain->context != ibctx ||
	     !to_spd(attr->parent_domain)->protection))
		return EINVAL;
	return 0;
}

struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct sroce_cmd_create_cq_ex_resp resp = {};
	struct sroce_cmd_create_cq_ex cmd;
	struct sroce_cq *cq;
	int ret;

	ret = sroce_cqx_check(ibctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = sroce_cq_new();
	if (!cq)
		return NULL;
	/* libibverbs turns COMPLETION_TIMESTAMP into the kernel's flag. */
	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp), 0);
	if (!sroce_cq_ready(cq, ret, ibctx->cmd_fd, &resp.drv_payload))
		return NULL;
	cq->lockless = ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
			(attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) ||
		       ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
			to_spd(attr->parent_domain)->td);
	sroce_cqx_init_ops(&cq->vcq.cq_ex);
	return &cq->vcq.cq_ex;
}

/* The clock of the completion timestamps, read here. */
int sroce_query_rt_values(struct ibv_context *ibctx,
			  struct ibv_values_ex *values)
{
	uint32_t want = values->comp_mask;

	(void)ibctx;
	if (want & ~IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	values->comp_mask = 0;
	if (!want)
		return 0;
	if (clock_gettime(CLOCK_MONOTONIC, &values->raw_clock))
		return errno;
	values->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	return 0;
}
