// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the responder. It takes requests in PSN order: duplicates are
 * answered again (reads re-executed, atomics from the saved result, never
 * applied twice, FLUSH and ATOMIC WRITE with their empty read response,
 * never done twice), a gap is NAKed once, sends fill receive WQEs (RNR NAK
 * when there is none), writes, reads and atomics go through the access
 * gate. ACKs are coalesced: one per pass over the engines, for the last
 * request that asked. Responses go out in PSN order, so no request is
 * taken while a read's responses are still being sent.
 *
 * UC (IBTA 9.7.5.1, 9.9.3) answers nothing: a message that lost a packet,
 * found no receive WQE or failed a check is dropped whole and counted
 * (rx_drop_uc_msg), the QP stays in RTS, and the responder takes the next
 * packet that starts a message, whatever its PSN. A receive WQE the
 * dropped message had taken serves the next one, except an SRQ's, which
 * completes in error.
 */
#include "sroce.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "engine/sroce_ooo.h"
#include "engine/sroce_svc.h"
#include "net/sroce_net.h"
#include "obs/sroce_trace.h"

/* PSNs a request takes: a READ, one per response. */
static u32 sroce_resp_npsn(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	if (pkt->info->op != SROCE_OP_READ_REQ)
		return 1;
	return max_t(u32, 1, DIV_ROUND_UP_ULL((u64)pkt->f.reth.len, qp->mtu));
}

static void sroce_resp_nak(struct sroce_qp *qp, u32 psn, u8 syndrome)
{
	qp->resp.ack_pending = false;
	sroce_tx_ack(qp, SROCE_OPCODE(RC, ACK), psn, syndrome, qp->resp.msn, 0);
}

/*
 * UC: the message in progress ends here, unplaced. A receive WQE it took
 * keeps its place for the next message, unless an SRQ's (other QPs may
 * take the SRQ's next WQEs meanwhile): that one completes with
 * @recv_status (IBTA 9.9.3, class E).
 */
static void sroce_resp_uc_drop(struct sroce_qp *qp, u8 recv_status)
{
	struct sroce_cqe cqe = {
		.wr_id = qp->resp.rwqe.wr_id,
		.status = recv_status,
		.opcode = IB_WC_RECV,
	};

	sroce_count(qp->sdev, SROCE_CNT_RX_DROP_UC_MSG, 1);
	qp->resp.in_send = false;
	qp->resp.in_write = false;
	qp->resp.uc_drop = true;
	qp->resp.rcv_off = 0;
	if (qp->resp.have_rwqe && qp->ibqp.srq) {
		qp->resp.have_rwqe = false;
		sroce_svc_complete(qp, true, &cqe, false);
	}
}

/*
 * A request the responder cannot carry out ends the connection (IBTA
 * 9.9.3, classes C and D): NAK it, fail the receive WQE in progress, and
 * take the QP to ERR. On UC only a malformed receive WQE (class A, @ev
 * QP_FATAL) does, unanswered; anything else drops the message.
 */
static void sroce_resp_fatal(struct sroce_qp *qp, u32 psn, u8 nak,
			     u8 recv_status, enum ib_event_type ev)
{
	struct sroce_cqe cqe = {};

	if (sroce_qp_is_uc(qp) && ev != IB_EVENT_QP_FATAL) {
		if (!recv_status)
			recv_status = nak == SROCE_NAK_REM_ACCESS ?
				      IB_WC_REM_ACCESS_ERR :
				      IB_WC_REM_INV_REQ_ERR;
		sroce_resp_uc_drop(qp, recv_status);
		return;
	}
	if (sroce_qp_acked(qp)) {
		sroce_count(qp->sdev, SROCE_CNT_ERR_NAK_SENT, 1);
		sroce_resp_nak(qp, psn, SROCE_AETH_NAK | nak);
	}
	/* A consumer that sees the error completion finds the QP in ERR. */
	sroce_svc_error(qp, ev);
	if (qp->resp.have_rwqe && recv_status) {
		cqe.wr_id = qp->resp.rwqe.wr_id;
		cqe.status = recv_status;
		cqe.opcode = IB_WC_RECV;
		qp->resp.have_rwqe = false;
		sroce_svc_complete(qp, true, &cqe, false);
	}
}

/* Complete the receive WQE of the message that just ended. */
static void sroce_resp_recv_done(struct sroce_qp *qp,
				 const struct sroce_pkt *pkt, u32 byte_len,
				 u8 wc_opcode, u8 status)
{
	struct sroce_cqe cqe = {
		.wr_id = qp->resp.rwqe.wr_id,
		.status = status,
		.opcode = wc_opcode,
		.byte_len = byte_len,
	};

	if (pkt->info->exts & SROCE_HAS(IMMDT)) {
		cqe.flags |= SROCE_CQE_WITH_IMM;
		cqe.imm_data = pkt->f.imm;
	} else if (pkt->info->exts & SROCE_HAS(IETH)) {
		cqe.flags |= SROCE_CQE_WITH_INV;
		cqe.invalidated_rkey = pkt->f.ieth_rkey;
	}
	qp->resp.have_rwqe = false;
	if (qp->resp.inv_mr) {
		/* Held: the consumer may reuse the pages when it sees it. */
		qp->resp.inv_cqe = cqe;
		qp->resp.inv_se = pkt->f.se;
		return;
	}
	sroce_svc_complete(qp, true, &cqe, pkt->f.se);
}

/*
 * A SEND_WITH_INV waits for copies under the key it invalidated. True:
 * they ended and its receive completion is posted; false: the engines run
 * again once they end, and no request is taken meanwhile.
 */
static bool sroce_resp_inv_end(struct sroce_qp *qp)
{
	if (!sroce_svc_inv_drained(&qp->rq_task, qp->resp.inv_mr))
		return false;
	qp->resp.inv_mr = NULL;
	sroce_svc_complete(qp, true, &qp->resp.inv_cqe, qp->resp.inv_se);
	return true;
}

/* 0 to go on; otherwise the request was answered and ends here. */
static int sroce_resp_need_rwqe(struct sroce_qp *qp,
				const struct sroce_pkt *pkt)
{
	if (!sroce_rq_take(qp)) {
		/* UC has no RNR NAK: the message is dropped (class D). */
		if (sroce_qp_is_uc(qp)) {
			sroce_resp_uc_drop(qp, IB_WC_REM_INV_REQ_ERR);
			return -EAGAIN;
		}
		sroce_count(qp->sdev, SROCE_CNT_RNR_NAK_SENT, 1);
		/* The packets behind it get no sequence NAK of their own. */
		qp->resp.nak_sent = true;
		/* The requester goes back to it and sends them all again. */
		sroce_ooo_purge(qp);
		sroce_resp_nak(qp, pkt->f.psn, SROCE_AETH_RNR_NAK |
			       (READ_ONCE(qp->attr.min_rnr_timer) & 31));
		return -EAGAIN;
	}
	if (qp->resp.rwqe.num_sge > qp->rq_max_sge) {
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_REM_OP,
				 IB_WC_LOC_QP_OP_ERR, IB_EVENT_QP_FATAL);
		return -EINVAL;
	}
	return 0;
}

static int sroce_resp_send(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info = pkt->info;
	struct sroce_access acc;
	struct sroce_mr *mr;
	int ret;

	if (info->pos & SROCE_POS_FIRST) {
		ret = sroce_resp_need_rwqe(qp, pkt);
		if (ret)
			return ret;
		qp->resp.in_send = true;
	}
	acc = (struct sroce_access){
		.pd = qp->pd, .len = pkt->pay_len,
		.rights = IB_ACCESS_LOCAL_WRITE,
	};
	ret = sroce_sge_copy(qp->sdev, &acc, qp->resp.rsge,
			     qp->resp.rwqe.num_sge, qp->resp.rcv_off,
			     (void *)(pkt->bth + pkt->pay_off), NULL);
	if (ret == -ENOSPC) {
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_INV_REQ,
				 IB_WC_LOC_LEN_ERR, IB_EVENT_QP_REQ_ERR);
		return ret;
	}
	if (ret) {
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_REM_OP,
				 IB_WC_LOC_PROT_ERR, IB_EVENT_QP_FATAL);
		return ret;
	}
	qp->resp.rcv_off += pkt->pay_len;
	if (!(info->pos & SROCE_POS_LAST))
		return 0;

	if (info->exts & SROCE_HAS(IETH)) {
		ret = sroce_mr_inv_begin(qp->sdev, qp->pd, qp->ibqp.qp_num,
					 pkt->f.ieth_rkey, &mr);
		if (ret == -EINVAL) {
			sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_INV_REQ,
					 IB_WC_REM_INV_REQ_ERR,
					 IB_EVENT_QP_REQ_ERR);
			return ret;
		}
		/* Copies still run: the message ends, its CQE waits. */
		qp->resp.inv_mr = mr;
	}
	qp->resp.in_send = false;
	sroce_resp_recv_done(qp, pkt, qp->resp.rcv_off, IB_WC_RECV,
			     IB_WC_SUCCESS);
	qp->resp.msn++;
	return 0;
}

static int sroce_resp_write(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info = pkt->info;
	struct sroce_access acc;
	struct sroce_mr *mr;
	int ret;

	/*
	 * The receive WQE first, before anything about the message changes:
	 * an RNR NAK must leave the responder as if the packet never came,
	 * so that the retried packet (the only one of a one-packet write, or
	 * the last one) is taken again as it was.
	 */
	if ((info->exts & SROCE_HAS(IMMDT)) && sroce_resp_need_rwqe(qp, pkt))
		return -EAGAIN;
	if (info->pos & SROCE_POS_FIRST) {
		acc = (struct sroce_access){
			.pd = qp->pd, .qpn = qp->ibqp.qp_num, .remote = true,
			.key = pkt->f.reth.rkey, .addr = pkt->f.reth.va,
			.len = pkt->f.reth.len, .rights = IB_ACCESS_REMOTE_WRITE,
		};
		ret = sroce_mr_check(qp->sdev, &acc, &mr);
		if (ret)
			goto access;
		sroce_mr_access_end(mr);
		qp->resp.wr_va = pkt->f.reth.va;
		qp->resp.wr_rkey = pkt->f.reth.rkey;
		qp->resp.wr_left = pkt->f.reth.len;
		qp->resp.wr_len = pkt->f.reth.len;
		qp->resp.in_write = true;
	}
	/*
	 * The packets fill the RETH's length exactly: a LAST (or ONLY)
	 * ends it, and a FIRST or MIDDLE, full by the path MTU, leaves at
	 * least a byte for the LAST. Else the message is not the one the
	 * RETH announced.
	 */
	if (pkt->pay_len > qp->resp.wr_left ||
	    ((info->pos & SROCE_POS_LAST) ?
	     pkt->pay_len != qp->resp.wr_left :
	     pkt->pay_len == qp->resp.wr_left)) {
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_INV_REQ, 0,
				 IB_EVENT_QP_REQ_ERR);
		return -EINVAL;
	}
	/* Checked again: the MR may have gone since the first packet. */
	acc = (struct sroce_access){
		.pd = qp->pd, .qpn = qp->ibqp.qp_num, .remote = true,
		.key = qp->resp.wr_rkey, .addr = qp->resp.wr_va,
		.len = pkt->pay_len, .rights = IB_ACCESS_REMOTE_WRITE,
	};
	ret = sroce_mr_check(qp->sdev, &acc, &mr);
	if (ret)
		goto access;
	ret = sroce_dma_copy(mr, qp->resp.wr_va,
			     (void *)(pkt->bth + pkt->pay_off), pkt->pay_len,
			     SROCE_DMA_TO_MR);
	sroce_mr_access_end(mr);
	if (ret)
		goto access;
	qp->resp.wr_va += pkt->pay_len;
	qp->resp.wr_left -= pkt->pay_len;
	if (!(info->pos & SROCE_POS_LAST))
		return 0;
	qp->resp.in_write = false;
	if (info->exts & SROCE_HAS(IMMDT))
		sroce_resp_recv_done(qp, pkt, qp->resp.wr_len,
				     IB_WC_RECV_RDMA_WITH_IMM, IB_WC_SUCCESS);
	qp->resp.msn++;
	return 0;
access:
	sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_REM_ACCESS, 0,
			 IB_EVENT_QP_ACCESS_ERR);
	return -EACCES;
}

/*
 * The gate for a request's remote access under @rkey; refused, the
 * request gets a Remote Access NAK and the QP goes to ERR.
 */
static int sroce_resp_gate(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			   u32 rkey, u64 va, u64 len, int need,
			   struct sroce_mr **mr)
{
	struct sroce_access acc = {
		.pd = qp->pd, .qpn = qp->ibqp.qp_num, .remote = true,
		.key = rkey, .addr = va, .len = len, .rights = need,
	};
	int ret = sroce_mr_check(qp->sdev, &acc, mr);

	if (ret)
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_REM_ACCESS, 0,
				 IB_EVENT_QP_ACCESS_ERR);
	return ret;
}

struct sroce_read_fill {
	struct sroce_qp *qp;
	u32 rkey;
	u64 va;
};

/*
 * The MR is checked, read and let go inside the fill: an access is one
 * packet's copy, and ends before the packet is delivered, so an
 * invalidation waits for copies that never wait for anything.
 */
static int sroce_resp_read_fill(void *dst, u32 len, u32 *crc, void *priv)
{
	struct sroce_read_fill *rf = priv;
	struct sroce_access acc;
	struct sroce_mr *mr;
	int ret;

	acc = (struct sroce_access){
		.pd = rf->qp->pd, .qpn = rf->qp->ibqp.qp_num, .remote = true,
		.key = rf->rkey, .addr = rf->va, .len = len,
		.rights = IB_ACCESS_REMOTE_READ,
	};
	ret = sroce_mr_check(rf->qp->sdev, &acc, &mr);
	if (ret)
		return -EACCES;
	if (crc)
		ret = sroce_dma_gather_crc(mr, rf->va, dst, len, crc);
	else
		ret = sroce_dma_copy(mr, rf->va, dst, len, SROCE_DMA_FROM_MR);
	sroce_mr_access_end(mr);
	return ret;
}

/* Read responses go out in bursts of this many between looks at the FIFO. */
#define SROCE_READ_BURST	16

/*
 * Send up to a burst of read responses from res->next_psn on; the stream
 * ends (resp.active cleared) with its last response. While it lasts, no
 * other request may be taken (responses go in PSN order) but a repeated
 * READ of this stream (sroce_resp_take()). Sends at least one response.
 */
static void sroce_resp_read_run(struct sroce_qp *qp, int *budget)
{
	int burst = SROCE_READ_BURST;
	struct sroce_rd_res *res = qp->resp.active;
	struct sroce_fields f = {
		.pkey = SROCE_DEFAULT_PKEY,
		.dqpn = qp->attr.dest_qp_num,
	};
	struct sroce_read_fill rf = { .qp = qp };
	/* The burst leaves in packet lists, flushed before it returns. */
	struct sroce_txb txb = {};
	u32 idx, npsn, pay;
	u64 off;
	int ret;

	if (!res)
		return;
	rf.rkey = res->rkey;
	npsn = sroce_psn_diff(res->last_psn, res->first_psn) + 1;
	while (*budget > 0 && burst-- > 0) {
		idx = sroce_psn_diff(res->next_psn, res->first_psn);
		off = (u64)idx * qp->mtu;
		pay = min_t(u64, qp->mtu, res->len - off);
		if (npsn == 1)
			f.opcode = SROCE_OPCODE(RC, READ_RESP_ONLY);
		else if (!idx)
			f.opcode = SROCE_OPCODE(RC, READ_RESP_FIRST);
		else if (idx == npsn - 1)
			f.opcode = SROCE_OPCODE(RC, READ_RESP_LAST);
		else
			f.opcode = SROCE_OPCODE(RC, READ_RESP_MIDDLE);
		f.psn = res->next_psn;
		f.aeth.syndrome = SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID;
		f.aeth.msn = res->msn & SROCE_PSN_MASK;

		rf.va = res->va + off;
		ret = sroce_tx_batch(qp, &txb, &f, pay, sroce_resp_read_fill,
				     &rf);
		if (ret) {
			/* The MR went away under the read. */
			sroce_txb_flush(qp, &txb);
			qp->resp.active = NULL;
			sroce_resp_fatal(qp, res->next_psn,
					 SROCE_NAK_REM_ACCESS, 0,
					 IB_EVENT_QP_ACCESS_ERR);
			return;
		}
		(*budget)--;
		if (idx == npsn - 1) {
			qp->resp.active = NULL;
			break;
		}
		res->next_psn = sroce_psn_add(res->next_psn, 1);
	}
	sroce_txb_flush(qp, &txb);
}

static int sroce_resp_read(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_rd_res *res;
	struct sroce_mr *mr;
	u32 npsn;
	int ret;

	/* Responses beyond this many PSNs would lose their order. */
	if (DIV_ROUND_UP_ULL((u64)pkt->f.reth.len, qp->mtu) >
	    SROCE_MAX_MSG_PSNS) {
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_INV_REQ, 0,
				 IB_EVENT_QP_REQ_ERR);
		return -EINVAL;
	}

	ret = sroce_resp_gate(qp, pkt, pkt->f.reth.rkey, pkt->f.reth.va,
			      pkt->f.reth.len, IB_ACCESS_REMOTE_READ, &mr);
	if (ret)
		return ret;
	sroce_mr_access_end(mr);
	npsn = sroce_resp_npsn(qp, pkt);
	res = sroce_resp_new_res(qp);
	res->valid = true;
	res->first_psn = pkt->f.psn;
	res->last_psn = sroce_psn_add(pkt->f.psn, npsn - 1);
	res->va = pkt->f.reth.va;
	res->rkey = pkt->f.reth.rkey;
	res->len = pkt->f.reth.len;
	res->next_psn = pkt->f.psn;
	qp->resp.msn++;
	res->msn = qp->resp.msn;
	qp->resp.active = res;
	/* The responses acknowledge everything before them. */
	qp->resp.ack_pending = false;
	qp->resp.psn = sroce_psn_add(pkt->f.psn, npsn);
	return 1;
}

/* The request continues the message in progress, or starts a new one. */
static bool sroce_resp_in_order(struct sroce_qp *qp,
				const struct sroce_opcode_info *info)
{
	if (qp->resp.in_send)
		return info->op == SROCE_OP_SEND &&
		       !(info->pos & SROCE_POS_FIRST);
	if (qp->resp.in_write)
		return info->op == SROCE_OP_WRITE &&
		       !(info->pos & SROCE_POS_FIRST);
	return info->pos & SROCE_POS_FIRST;
}

static bool sroce_resp_allowed(struct sroce_qp *qp, u8 op)
{
	int acc = qp->attr.qp_access_flags;

	switch (op) {
	case SROCE_OP_WRITE:
		return acc & IB_ACCESS_REMOTE_WRITE;
	case SROCE_OP_READ_REQ:
		return (acc & IB_ACCESS_REMOTE_READ) && qp->resp.nres;
	case SROCE_OP_CMP_SWAP:
	case SROCE_OP_FETCH_ADD:
		return (acc & IB_ACCESS_REMOTE_ATOMIC) && qp->resp.nres;
	case SROCE_OP_ATOMIC_WRITE:
		return (acc & IB_ACCESS_REMOTE_WRITE) && qp->resp.nres;
	default:
		return true;
	}
}

/*
 * A one-packet request of sroce_resp_atomic.c, carried out and answered;
 * or refused, and the request ends here.
 */
static int sroce_resp_one(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	int ret;

	switch (pkt->info->op) {
	case SROCE_OP_FLUSH:
		ret = sroce_resp_rdma_flush(qp, pkt);
		break;
	case SROCE_OP_ATOMIC_WRITE:
		ret = sroce_resp_atomic_write(qp, pkt);
		break;
	default:
		ret = sroce_resp_atomic(qp, pkt);
		break;
	}
	if (ret == -EINVAL)
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_INV_REQ, 0,
				 IB_EVENT_QP_REQ_ERR);
	else if (ret)
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_REM_ACCESS, 0,
				 IB_EVENT_QP_ACCESS_ERR);
	else
		qp->resp.psn = sroce_psn_add(pkt->f.psn, 1);
	return ret;
}

/* A request in sequence. Returns < 0 when it was refused. */
static int sroce_resp_execute(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info = pkt->info;
	int ret;

	/* For the requester: this QP answers (sroce_req_stream()). */
	if (info->pos & SROCE_POS_FIRST)
		WRITE_ONCE(qp->resp.taken, qp->resp.taken + 1);
	if (!sroce_resp_in_order(qp, info) ||
	    !sroce_resp_allowed(qp, info->op) ||
	    (info->op == SROCE_OP_FLUSH &&
	     !sroce_resp_flush_allowed(qp, pkt))) {
		sroce_resp_fatal(qp, pkt->f.psn, SROCE_NAK_INV_REQ,
				 IB_WC_REM_INV_REQ_ERR, IB_EVENT_QP_REQ_ERR);
		return -EINVAL;
	}
	switch (info->op) {
	case SROCE_OP_SEND:
		ret = sroce_resp_send(qp, pkt);
		break;
	case SROCE_OP_WRITE:
		ret = sroce_resp_write(qp, pkt);
		break;
	case SROCE_OP_READ_REQ:
		return sroce_resp_read(qp, pkt);
	default:
		return sroce_resp_one(qp, pkt);
	}
	if (ret)
		return ret;
	qp->resp.psn = sroce_psn_add(pkt->f.psn, 1);
	/*
	 * A request kept past a gap is acknowledged as it is done, AckReq
	 * or not: the requester that resent only the gap's PSN learns at
	 * once how far the rest went.
	 */
	if ((pkt->f.ackreq || qp->resp.from_ooo) && sroce_qp_acked(qp)) {
		qp->resp.ack_pending = true;
		qp->resp.ack_psn = pkt->f.psn;
	}
	return 0;
}

/*
 * A request seen before: its answer went missing. One that took a
 * resource is answered from it, as it was, without being done again and
 * without its RETH being looked at (a resend may differ only there).
 */
static void sroce_resp_duplicate(struct sroce_qp *qp,
				 const struct sroce_pkt *pkt)
{
	u32 psn = pkt->f.psn, i;
	struct sroce_rd_res *res;
	u8 kind;

	sroce_count(qp->sdev, SROCE_CNT_RX_DUP_REQ, 1);
	switch (pkt->info->op) {
	case SROCE_OP_READ_REQ:
		kind = SROCE_RES_READ;
		break;
	case SROCE_OP_CMP_SWAP:
	case SROCE_OP_FETCH_ADD:
		kind = SROCE_RES_ATOMIC;
		break;
	case SROCE_OP_FLUSH:
	case SROCE_OP_ATOMIC_WRITE:
		kind = SROCE_RES_EMPTY;
		break;
	default:
		/* Everything up to the expected PSN has been done: say so. */
		qp->resp.ack_pending = true;
		qp->resp.ack_psn = sroce_psn_add(qp->resp.psn, SROCE_PSN_MASK);
		return;
	}
	for (i = 0; i < qp->resp.nres; i++) {
		res = &qp->resp.res[i];
		if (!res->valid ||
		    !sroce_psn_in_window(psn, res->first_psn,
					 sroce_psn_diff(res->last_psn,
							res->first_psn) + 1))
			continue;
		if (res->kind != kind)
			return;
		if (kind == SROCE_RES_ATOMIC) {
			sroce_tx_ack(qp, SROCE_OPCODE(RC, ATOMIC_ACK), psn,
				     SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID,
				     res->msn, res->orig);
			return;
		}
		if (kind == SROCE_RES_EMPTY) {
			sroce_tx_ack(qp, SROCE_OPCODE(RC, READ_RESP_ONLY), psn,
				     SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID,
				     res->msn, 0);
			return;
		}
		/* Read again from the PSN asked for, to the end. */
		res->next_psn = psn;
		qp->resp.active = res;
		return;
	}
}

/*
 * UC: may the packet go on to be executed? A packet in sequence continues
 * or starts a message; one that starts a message is taken at any PSN, and
 * ends the message in progress, which lost its last packets. Anything else
 * belongs to a message that lost a packet: dropped with the rest of it.
 */
static bool sroce_resp_uc_take(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info = pkt->info;

	if (!qp->resp.uc_drop && pkt->f.psn == qp->resp.psn &&
	    sroce_resp_in_order(qp, info))
		return true;
	if (qp->resp.in_send || qp->resp.in_write ||
	    (!qp->resp.uc_drop && !(info->pos & SROCE_POS_FIRST)))
		sroce_resp_uc_drop(qp, IB_WC_REM_INV_REQ_ERR);
	if (info->pos & SROCE_POS_FIRST) {
		qp->resp.uc_drop = false;
		return true;
	}
	/* The dropped message ends with its last packet. */
	if (info->pos & SROCE_POS_LAST)
		qp->resp.uc_drop = false;
	return false;
}

static void sroce_resp_uc_packet(struct sroce_qp *qp,
				 const struct sroce_pkt *pkt,
				 enum sroce_parse_err perr)
{
	if (!sroce_resp_uc_take(qp, pkt))
		return;
	/* A packet that does not fit the path MTU: its message is lost. */
	if (perr != SROCE_PARSE_OK)
		sroce_resp_uc_drop(qp, IB_WC_REM_INV_REQ_ERR);
	else if (sroce_resp_execute(qp, pkt) >= 0)
		return;
	/* Refused: dropped, and with its last packet the message is over. */
	if (pkt->info->pos & SROCE_POS_LAST)
		qp->resp.uc_drop = false;
}

/* Returns true when it kept @skb (selective repeat). */
static bool sroce_resp_packet(struct sroce_qp *qp, struct sk_buff *skb)
{
	enum sroce_parse_err perr;
	enum sroce_ooo_res ooo;
	struct sroce_pkt pkt;
	s32 d;

	perr = sroce_parse(skb->data, skb->len, qp->mtu, &pkt);
	if ((perr != SROCE_PARSE_OK && perr != SROCE_PARSE_TOO_BIG &&
	     perr != SROCE_PARSE_NOT_MTU) ||
	    pkt.info->transport != (sroce_qp_is_uc(qp) ? SROCE_TR_UC :
							 SROCE_TR_RC)) {
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_BAD, 1);
		return false;
	}
	if (!qp->resp.comm_est) {
		qp->resp.comm_est = true;
		if (sroce_qp_state(qp) == IB_QPS_RTR)
			sroce_svc_event(qp, IB_EVENT_COMM_EST);
	}
	if (sroce_qp_is_uc(qp)) {
		sroce_resp_uc_packet(qp, &pkt, perr);
		return false;
	}
	d = sroce_psn_diff(pkt.f.psn, qp->resp.psn);
	/*
	 * Whether the peer speaks selective repeat is learnt from the
	 * request it must send next only: a packet ahead of it may come
	 * from anyone who guessed the window, and must not switch on what
	 * keeps it.
	 */
	if (!d)
		sroce_ooo_learn(qp, pkt.f.sr);
	if (d < 0) {
		sroce_resp_duplicate(qp, &pkt);
		return false;
	}
	if (d > 0) {
		ooo = SROCE_OOO_NO;
		if (qp->resp.sr && perr == SROCE_PARSE_OK)
			ooo = sroce_ooo_arrive(qp, skb, pkt.f.psn, d,
					       sroce_resp_npsn(qp, &pkt));
		if (ooo == SROCE_OOO_NO && !qp->resp.nak_sent) {
			qp->resp.nak_sent = true;
			sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_SENT, 1);
			sroce_resp_nak(qp, qp->resp.psn,
				       SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ);
		}
		return ooo == SROCE_OOO_KEPT;
	}
	if (perr != SROCE_PARSE_OK) {
		/* A packet that does not fit the path MTU: malformed. */
		sroce_resp_fatal(qp, pkt.f.psn, SROCE_NAK_INV_REQ,
				 IB_WC_REM_INV_REQ_ERR, IB_EVENT_QP_REQ_ERR);
		return false;
	}
	if (sroce_resp_execute(qp, &pkt) >= 0)
		qp->resp.nak_sent = false;
	return false;
}

/*
 * The next request to take. While read responses stream, requests wait
 * (answers go in PSN order), but a repeated READ at the head that asks for
 * a PSN the stream has not passed is taken at once: the requester lost a
 * response, and answering it only after the rest of a long stream, which
 * the requester discards past its gap, would stall it for a whole message
 * per loss. Other duplicates still wait: answering one mid-stream would
 * acknowledge past the read and make the requester resend it. A request
 * kept past a gap that has filled goes before the FIFO.
 */
static struct sk_buff *sroce_resp_take(struct sroce_qp *qp)
{
	struct sk_buff_head *fifo = &qp->req_fifo;
	const struct sroce_bth *bth;
	struct sk_buff *skb;
	unsigned long flags;
	u32 psn;

	if (!qp->resp.active) {
		skb = sroce_ooo_take(qp);
		qp->resp.from_ooo = !!skb;
		return skb ?: sroce_fifo_take(fifo);
	}
	if (skb_queue_empty_lockless(fifo))
		return NULL;
	spin_lock_irqsave(&fifo->lock, flags);
	skb = skb_peek(fifo);
	if (skb) {
		/* Receive put only packets with a whole BTH in the FIFO. */
		bth = (const struct sroce_bth *)skb->data;
		psn = sroce_get_be24(bth->psn);
		if (bth->opcode == SROCE_OPCODE(RC, READ_REQ) &&
		    sroce_psn_before(psn, qp->resp.psn) &&
		    !sroce_psn_before(qp->resp.active->next_psn, psn))
			__skb_unlink(skb, fifo);
		else
			skb = NULL;
	}
	spin_unlock_irqrestore(&fifo->lock, flags);
	return skb;
}

void sroce_resp_run(struct sroce_qp *qp, int *budget)
{
	struct sk_buff *skb;

	sroce_ooo_age(qp);
	while (*budget > 0 && sroce_qp_state(qp) != IB_QPS_ERR) {
		if (qp->resp.inv_mr && !sroce_resp_inv_end(qp))
			break;
		/* A FLUSH writing back: nothing else until it is answered. */
		if (qp->resp.flush.on) {
			if (sroce_resp_flush_run(qp) < 0)
				sroce_resp_fatal(qp, qp->resp.flush.psn,
						 SROCE_NAK_REM_ACCESS, 0,
						 IB_EVENT_QP_ACCESS_ERR);
			(*budget)--;
			continue;
		}
		skb = sroce_resp_take(qp);
		if (skb) {
			if (!sroce_resp_packet(qp, skb))
				consume_skb(skb);
			qp->resp.from_ooo = false;
			(*budget)--;
			continue;
		}
		if (!qp->resp.active)
			break;
		sroce_resp_read_run(qp, budget);
	}
	/*
	 * A pending ACK waits for a read stream to end: it acknowledges PSNs
	 * past the read, and the requester would take the read's remaining
	 * responses for lost.
	 */
	if (qp->resp.ack_pending && !qp->resp.active && !qp->resp.flush.on &&
	    sroce_qp_state(qp) != IB_QPS_ERR) {
		qp->resp.ack_pending = false;
		sroce_tx_aeth(qp, SROCE_OPCODE(RC, ACK), qp->resp.ack_psn,
			      SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID,
			      qp->resp.msn, 0, qp->resp.sr);
	}
}

/*
 * A QP with an SRQ takes nothing more from it once in ERR: the consumer
 * hears so once, when the receive it held is flushed (the Last WQE
 * Reached event).
 */
static void sroce_resp_last_wqe(struct sroce_qp *qp)
{
	if (qp->ibqp.srq && !qp->resp.last_wqe) {
		qp->resp.last_wqe = true;
		sroce_svc_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	}
}

/*
 * In ERR: the receive in progress and every posted one get WR_FLUSH_ERR,
 * at most @budget of them per run. Returns true when receives are left.
 * The WQEs of an SRQ stay there for its other QPs.
 */
bool sroce_resp_flush(struct sroce_qp *qp, int *budget)
{
	struct sroce_cqe cqe = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
	};

	/* A receive held for an invalidation completes first, in order. */
	if (qp->resp.inv_mr && !sroce_resp_inv_end(qp))
		return true;
	qp->resp.in_send = false;
	qp->resp.in_write = false;
	qp->resp.uc_drop = false;
	qp->resp.active = NULL;
	qp->resp.flush.on = false;
	qp->resp.ack_pending = false;
	sroce_ooo_purge(qp);
	while (qp->resp.have_rwqe || (!qp->ibqp.srq && sroce_rq_take(qp))) {
		/* The WQE taken stays in rwqe for the next run. */
		if (*budget <= 0)
			return true;
		(*budget)--;
		cqe.wr_id = qp->resp.rwqe.wr_id;
		qp->resp.have_rwqe = false;
		/* A CQ in error takes nothing more. */
		if (sroce_svc_complete(qp, true, &cqe, false))
			break;
	}
	sroce_resp_last_wqe(qp);
	return false;
}

/*
 * Back to RESET: forget every message and every saved read or atomic. The
 * engines are stopped; a held invalidation is waited for here, in process
 * context, and its receive completion dropped with the rest.
 */
void sroce_resp_reset(struct sroce_qp *qp)
{
	if (qp->resp.inv_mr) {
		sroce_mr_inv_wait(qp->resp.inv_mr);
		qp->resp.inv_mr = NULL;
	}
	qp->resp.msn = 0;
	qp->resp.sr = false;
	WRITE_ONCE(qp->sr_peer, false);
	qp->resp.nak_sent = false;
	sroce_ooo_purge(qp);
	qp->resp.ack_pending = false;
	qp->resp.in_send = false;
	qp->resp.in_write = false;
	qp->resp.uc_drop = false;
	qp->resp.have_rwqe = false;
	qp->resp.active = NULL;
	qp->resp.flush.on = false;
	qp->resp.comm_est = false;
	qp->resp.last_wqe = false;
	if (qp->resp.res)
		memset(qp->resp.res, 0, qp->resp.nres * sizeof(*qp->resp.res));
	qp->resp.res_next = 0;
}
