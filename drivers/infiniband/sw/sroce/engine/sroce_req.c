// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the requester. It copies send WQEs out of the SQ ring, checks
 * them, gives them PSNs and sends their packets, segmented by the path
 * MTU, within the limits the completer's progress sets: a window of
 * PSNs (sroce_req_window(): twice the path's bandwidth-delay product,
 * at most SROCE_MAX_INFLIGHT_CAP, after a start that grows from
 * SROCE_WIN_START to SROCE_MAX_INFLIGHT, slower after a rate cut),
 * max_rd_atomic reads and atomics, fences. The completer moves it back
 * (sroce_sq_rewind()) to retransmit.
 *
 * Ring indices: comp.head <= req.cur <= req.fetched <= the ring's prod.
 * [comp.head, req.fetched) have private copies (struct sroce_swqe);
 * [req.cur, req.fetched) still have packets to send.
 */
#include "sroce.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "engine/sroce_svc.h"
#include "net/sroce_net.h"
#include "obs/sroce_trace.h"
#include "proto/icrc.h"

static int sroce_wc_opcode(u8 op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case SROCE_WR_FLUSH:
		return SROCE_WC_FLUSH;
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_WC_ATOMIC_WRITE;
	default:
		return IB_WC_SEND;
	}
}

/* Everything about a WQE that can be wrong, judged on the private copy. */
static int sroce_swqe_check(struct sroce_qp *qp, struct sroce_swqe *s)
{
	const struct sroce_send_wqe *h = &s->h;
	bool inl = h->send_flags & IB_SEND_INLINE;
	u64 len = 0;
	u32 i;

	/* A datagram is a SEND; IBTA 9.7.x leaves UD nothing else. */
	if (sroce_qp_is_ud(qp) && h->opcode != IB_WR_SEND &&
	    h->opcode != IB_WR_SEND_WITH_IMM)
		return IB_WC_LOC_QP_OP_ERR;
	/*
	 * UC has no responses, so no READ, atomic, FLUSH or ATOMIC WRITE,
	 * and no opcode for a SEND with invalidate (IBTA 9.2.1); local
	 * operations stay local.
	 */
	if (sroce_qp_is_uc(qp) && (sroce_op_takes_res(h->opcode) ||
				   h->opcode == IB_WR_SEND_WITH_INV))
		return IB_WC_LOC_QP_OP_ERR;
	switch (h->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (inl)
			return IB_WC_LOC_QP_OP_ERR;
		break;
	case IB_WR_REG_MR:
		/* Kernel rings only: REG_MR carries a kernel pointer. */
		if (qp->is_user)
			return IB_WC_LOC_QP_OP_ERR;
		s->length = 0;
		return IB_WC_SUCCESS;
	case IB_WR_LOCAL_INV:
	case IB_WR_BIND_MW:
		/* Judged when it runs, in order (sroce_req_local()). */
		s->length = 0;
		return IB_WC_SUCCESS;
	case SROCE_WR_ATOMIC_WRITE:
		/* Its 8 bytes are in the WQE; SGEs and inline mean nothing. */
		if (inl)
			return IB_WC_LOC_QP_OP_ERR;
		s->length = SROCE_ATOMIC_WRITE_LEN;
		return IB_WC_SUCCESS;
	case SROCE_WR_FLUSH:
		/*
		 * No payload; the length is the RETH's (and the WC's). A
		 * placement type names GLOBAL, PERSISTENT or both.
		 */
		if (inl || !h->flush_sel.type ||
		    (h->flush_sel.type & ~(SROCE_FLUSH_GLOBAL |
					   SROCE_FLUSH_PERSISTENT)) ||
		    h->flush_sel.level > SROCE_FLUSH_MR)
			return IB_WC_LOC_QP_OP_ERR;
		s->length = h->flush.length;
		return IB_WC_SUCCESS;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
	if (inl) {
		if (h->inline_len > qp->max_inline)
			return IB_WC_LOC_LEN_ERR;
		len = h->inline_len;
	} else {
		if (h->num_sge > qp->sq_max_sge)
			return IB_WC_LOC_QP_OP_ERR;
		for (i = 0; i < h->num_sge; i++)
			len += s->sge[i].length;
	}
	/* Longer than the port's max_msg_sz: at no MTU does it fit the PSNs. */
	if (len > SROCE_MAX_MSG)
		return IB_WC_LOC_LEN_ERR;
	if (sroce_op_is_atomic(h->opcode) &&
	    (h->num_sge != 1 || s->sge[0].length < sizeof(u64)))
		return IB_WC_LOC_LEN_ERR;
	s->length = sroce_op_is_atomic(h->opcode) ? sizeof(u64) : len;
	if (sroce_qp_is_ud(qp))
		return sroce_ud_check(qp, s);
	return IB_WC_SUCCESS;
}

/*
 * Is there a WQE not yet copied? A producer index more than a ring ahead
 * of the oldest WQE not completed is a lie: the ring counts as empty.
 */
static bool sroce_req_ring_has_work(struct sroce_qp *qp)
{
	/* Acquire: the WQEs up to prod are written. */
	u32 prod = smp_load_acquire(&qp->sq.ctrl->prod);
	u32 ahead = prod - qp->comp.head;

	/* Nor can prod go back behind what was already taken. */
	return ahead <= sroce_queue_entries(&qp->sq) &&
	       ahead > qp->req.fetched - qp->comp.head;
}

/*
 * WQEs in a row, after which a QP sends as a stream one way: the
 * scheduler then runs the receiving side on another CPU (sroce_task.c).
 */
#define SROCE_STREAM_MSGS	8

/*
 * Is the consumer streaming one way? A WQE taken counts when our responder
 * took no request since the last one (a ping-pong or an RPC answers each
 * turn) and the consumer did not wait for the last one's completion: it
 * was signaled, it completed, and the consumer took its CQE before this
 * one came (the lockstep of a READ or atomic latency loop, or of a sender
 * that waits for each ACK). Either starts the count again. Connected QPs
 * in RTS only: a datagram QP's answers come from anywhere, and a flush
 * sends nothing.
 */
static void sroce_req_stream(struct sroce_qp *qp, const struct sroce_swqe *s)
{
	u32 taken;
	bool waited;

	if (sroce_qp_is_ud(qp) || sroce_qp_state(qp) != IB_QPS_RTS)
		return;
	taken = READ_ONCE(qp->resp.taken);
	waited = qp->req.stream_sig && qp->comp.head == qp->req.fetched &&
		 sroce_svc_scq_taken(qp);

	qp->req.stream_sig = s->signaled;
	if (taken != qp->req.stream_taken || waited) {
		qp->req.stream_taken = taken;
		qp->req.stream = 0;
	} else if (qp->req.stream < U16_MAX) {
		qp->req.stream++;
	}
}

/* Copy the next WQE out of the ring, then check it. False: ring empty. */
static bool sroce_req_fetch(struct sroce_qp *qp)
{
	const struct sroce_send_wqe *w;
	struct sroce_swqe *s;
	u32 n;

	if (!sroce_req_ring_has_work(qp))
		return false;
	w = sroce_queue_slot(&qp->sq, qp->req.fetched);
	s = sroce_swqe(qp, qp->req.fetched);
	memcpy(&s->h, w, sizeof(s->h));
	if (s->h.send_flags & IB_SEND_INLINE) {
		n = min(s->h.inline_len, qp->max_inline);
		memcpy(s->inl, w + 1, n);
	} else {
		n = min_t(u32, s->h.num_sge, qp->sq_max_sge);
		memcpy(s->sge, w + 1, n * sizeof(struct sroce_sge));
	}
	s->wc_opcode = sroce_wc_opcode(s->h.opcode);
	s->signaled = qp->sig_all || (s->h.send_flags & IB_SEND_SIGNALED);
	s->status = sroce_swqe_check(qp, s);
	s->state = s->status == IB_WC_SUCCESS ? SROCE_SWQE_NEW :
						SROCE_SWQE_DONE;
	trace_sroce_post_send(qp->ibqp.qp_num, s->h.wr_id, s->h.opcode,
			      s->length);
	sroce_req_stream(qp, s);
	qp->req.fetched++;
	return true;
}

static void sroce_req_set_idle(struct sroce_qp *qp, bool idle)
{
	unsigned long flags;
	u32 v;

	spin_lock_irqsave(&qp->sq_lock, flags);
	v = qp->sq.ctrl->kern_flag;
	v = idle ? v | SROCE_SQ_IDLE : v & ~SROCE_SQ_IDLE;
	WRITE_ONCE(qp->sq.ctrl->kern_flag, v);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	qp->req.idle = idle;
}

/*
 * The ring is empty: tell the provider to ring the doorbell from now on,
 * then look once more (the other half of the protocol in sroce-abi.h).
 */
static bool sroce_req_go_idle(struct sroce_qp *qp)
{
	if (!qp->req.idle)
		sroce_req_set_idle(qp, true);
	/* Pairs with the provider's between publishing prod and the flag. */
	smp_mb();
	if (!sroce_req_ring_has_work(qp))
		return true;
	sroce_req_set_idle(qp, false);
	return false;
}

static bool sroce_op_is_local(u8 op)
{
	return op == IB_WR_REG_MR || op == IB_WR_LOCAL_INV ||
	       op == IB_WR_BIND_MW;
}

/*
 * REG_MR, LOCAL_INV and BIND_MW: done here, in order with the rest of the
 * SQ. A LOCAL_INV that finds copies under the key still running stays at
 * the head, not done, with req.inv_mr set: sroce_req_inv_end() completes
 * it. A failed one completes with MW_BIND_ERR, and the QP goes to ERR.
 */
static void sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *s)
{
	struct ib_mr *ibmr;
	struct sroce_mr *mr;
	int ret;

	if (s->h.opcode == IB_WR_REG_MR) {
		ibmr = (struct ib_mr *)(uintptr_t)s->h.rdma.remote_addr;
		ret = sroce_mr_fast_reg(qp->pd, ibmr, s->h.ex.invalidate_rkey,
					s->h.rdma.rkey);
	} else if (s->h.opcode == IB_WR_BIND_MW) {
		ret = sroce_mw_bind(qp, &s->h);
	} else {
		ret = sroce_mr_inv_begin(qp->sdev, qp->pd, 0,
					 s->h.ex.invalidate_rkey, &mr);
		if (ret == -EINPROGRESS) {
			qp->req.inv_mr = mr;
			return;
		}
	}
	sroce_sq_done(s, ret ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS);
}

/*
 * The LOCAL_INV at req.cur waits for copies under the key it invalidated.
 * True: they ended, it is done (successful, retired in order). False: the
 * engines run again once they end; nothing behind it starts meanwhile.
 */
static bool sroce_req_inv_end(struct sroce_qp *qp)
{
	if (!sroce_svc_inv_drained(&qp->sq_task, qp->req.inv_mr))
		return false;
	qp->req.inv_mr = NULL;
	sroce_sq_done(sroce_swqe(qp, qp->req.cur), IB_WC_SUCCESS);
	return true;
}

struct sroce_gather {
	struct sroce_qp *qp;
	struct sroce_swqe *s;
	u64 off;
};

static int sroce_req_fill(void *dst, u32 len, u32 *crc, void *priv)
{
	struct sroce_gather *g = priv;
	struct sroce_swqe *s = g->s;
	struct sroce_access acc;

	if (s->h.opcode == SROCE_WR_ATOMIC_WRITE) {
		memcpy(dst, s->h.atomic_wr, len);
		if (crc)
			*crc = sroce_icrc_update(*crc, dst, len);
		return 0;
	}
	if (s->h.send_flags & IB_SEND_INLINE) {
		memcpy(dst, s->inl + g->off, len);
		if (crc)
			*crc = sroce_icrc_update(*crc, dst, len);
		return 0;
	}
	acc = (struct sroce_access){ .pd = g->qp->pd, .len = len };
	return sroce_sge_copy(g->qp->sdev, &acc, s->sge, s->h.num_sge, g->off,
			      dst, crc);
}

static u8 sroce_send_opcode(u8 op, bool first, bool last)
{
	bool imm = op == IB_WR_SEND_WITH_IMM, inv = op == IB_WR_SEND_WITH_INV;

	if (first && last)
		return imm ? SROCE_OPCODE(RC, SEND_ONLY_IMM) :
		       inv ? SROCE_OPCODE(RC, SEND_ONLY_INV) :
			     SROCE_OPCODE(RC, SEND_ONLY);
	if (first)
		return SROCE_OPCODE(RC, SEND_FIRST);
	if (last)
		return imm ? SROCE_OPCODE(RC, SEND_LAST_IMM) :
		       inv ? SROCE_OPCODE(RC, SEND_LAST_INV) :
			     SROCE_OPCODE(RC, SEND_LAST);
	return SROCE_OPCODE(RC, SEND_MIDDLE);
}

static u8 sroce_write_opcode(u8 op, bool first, bool last)
{
	bool imm = op == IB_WR_RDMA_WRITE_WITH_IMM;

	if (first && last)
		return imm ? SROCE_OPCODE(RC, WRITE_ONLY_IMM) :
			     SROCE_OPCODE(RC, WRITE_ONLY);
	if (first)
		return SROCE_OPCODE(RC, WRITE_FIRST);
	if (last)
		return imm ? SROCE_OPCODE(RC, WRITE_LAST_IMM) :
			     SROCE_OPCODE(RC, WRITE_LAST);
	return SROCE_OPCODE(RC, WRITE_MIDDLE);
}

/* Ask for an ACK this often within a long message, so the window moves. */
#define SROCE_ACKREQ_EVERY	32

/* Requests went out up to (not including) @end: the completer's range. */
static void sroce_req_sent_to(struct sroce_qp *qp, u32 end)
{
	if (sroce_psn_before(qp->req.psn_sent, end))
		qp->req.psn_sent = end;
}

/*
 * Send the next packet of @s from req.off, asking for an ACK where it
 * ends a message or a stretch of one, or @ackreq. Returns 0, or
 * -EACCES/-ENOSPC when its local memory cannot be read.
 */
static int sroce_req_packet(struct sroce_qp *qp, struct sroce_swqe *s,
			    bool ackreq, struct sroce_txb *txb)
{
	const struct sroce_send_wqe *h = &s->h;
	struct sroce_gather g = { .qp = qp, .s = s, .off = qp->req.off };
	struct sroce_fields f = {
		.pkey = SROCE_DEFAULT_PKEY,
		.dqpn = qp->attr.dest_qp_num,
		.ackreq = true,
		/* Selective repeat, announced (sroce_ooo.c). */
		.sr = sroce_qp_sr_offer(qp),
	};
	u32 mtu = qp->mtu, pay = 0;
	bool first, last;
	int ret;

	if (sroce_qp_is_ud(qp))
		return sroce_ud_packet(qp, s, sroce_req_fill, &g);
	f.psn = sroce_psn_add(s->first_psn, div_u64(qp->req.off, mtu));
	switch (h->opcode) {
	case IB_WR_RDMA_READ:
		f.opcode = SROCE_OPCODE(RC, READ_REQ);
		f.reth.va = h->rdma.remote_addr + qp->req.off;
		f.reth.rkey = h->rdma.rkey;
		f.reth.len = s->length - qp->req.off;
		qp->req.off = s->length;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		f.opcode = h->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			   SROCE_OPCODE(RC, CMP_SWAP) :
			   SROCE_OPCODE(RC, FETCH_ADD);
		f.atmeth.va = h->rdma.remote_addr;
		f.atmeth.rkey = h->rdma.rkey;
		if (h->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			f.atmeth.swap_add = h->swap;
			f.atmeth.compare = h->compare_add;
		} else {
			f.atmeth.swap_add = h->compare_add;
		}
		qp->req.off = s->length;
		break;
	case SROCE_WR_FLUSH:
		f.opcode = SROCE_OPCODE(RC, FLUSH);
		f.feth.type = h->flush_sel.type;
		f.feth.level = h->flush_sel.level;
		f.reth.va = h->flush.remote_addr;
		f.reth.rkey = h->flush.rkey;
		f.reth.len = h->flush.length;
		qp->req.off = s->length;
		break;
	case SROCE_WR_ATOMIC_WRITE:
		f.opcode = SROCE_OPCODE(RC, ATOMIC_WRITE);
		f.reth.va = h->rdma.remote_addr;
		f.reth.rkey = h->rdma.rkey;
		f.reth.len = SROCE_ATOMIC_WRITE_LEN;
		pay = SROCE_ATOMIC_WRITE_LEN;
		qp->req.off = s->length;
		break;
	default:
		pay = min_t(u64, mtu, s->length - qp->req.off);
		first = qp->req.off == 0;
		last = qp->req.off + pay == s->length;
		if (h->opcode == IB_WR_RDMA_WRITE ||
		    h->opcode == IB_WR_RDMA_WRITE_WITH_IMM) {
			f.opcode = sroce_write_opcode(h->opcode, first, last);
			f.reth.va = h->rdma.remote_addr;
			f.reth.rkey = h->rdma.rkey;
			f.reth.len = s->length;
		} else {
			f.opcode = sroce_send_opcode(h->opcode, first, last);
			f.ieth_rkey = h->ex.invalidate_rkey;
		}
		f.imm = h->ex.imm_data;
		f.se = last && (h->send_flags & IB_SEND_SOLICITED);
		f.ackreq = ackreq || last || !(f.psn % SROCE_ACKREQ_EVERY);
		if (sroce_qp_is_uc(qp)) {
			/* The same packet, with UC's opcode and no AckReq. */
			f.opcode |= SROCE_TR_UC << 5;
			f.ackreq = false;
			f.sr = false;
		}
		qp->req.off += pay;
		break;
	}
	ret = sroce_tx_batch(qp, txb, &f, pay, sroce_req_fill, &g);
	if (ret)
		return ret;
	sroce_req_sent_to(qp, h->opcode == IB_WR_RDMA_READ ?
			  sroce_psn_add(s->first_psn, s->npsn) :
			  sroce_psn_add(f.psn, 1));
	qp->req.sr_sent |= f.sr;
	/*
	 * The first request of this pass that asks for an ACK and can be
	 * timed: one clock read per round trip, not per request (under
	 * emulation a clock read is a trip to the emulated HPET).
	 */
	if (f.ackreq && (!qp->req.ackreq || !qp->req.ackreq_ns)) {
		qp->req.ackreq = true;
		qp->req.ackreq_psn = f.psn;
		qp->req.ackreq_ns = sroce_comp_rtt_wants(qp, f.psn) ?
				    ktime_get_ns() : 0;
	}
	if (qp->req.off < s->length)
		return 0;
	if (sroce_qp_acked(qp)) {
		s->state = SROCE_SWQE_SENT;
		return 0;
	}
	/* UC: nothing will acknowledge it; it completes as it leaves. */
	sroce_sq_done(s, IB_WC_SUCCESS);
	qp->comp.psn = qp->req.psn;
	return 0;
}

/* PSNs a message takes: one per MTU of payload, at least one. */
static u32 sroce_swqe_npsn(struct sroce_qp *qp, struct sroce_swqe *s)
{
	if (sroce_op_is_atomic(s->h.opcode) || sroce_op_is_a19(s->h.opcode) ||
	    !s->length || sroce_qp_is_ud(qp))
		return 1;
	return div_u64(s->length + qp->mtu - 1, qp->mtu);
}

/*
 * A new connection's window, in PSNs: what it may send before the peer
 * has acknowledged anything. It holds an AckReq wherever it starts, so
 * the window always moves (BUILD_BUG_ON below).
 */
#define SROCE_WIN_START		32

/*
 * The PSNs that may be unacknowledged: the path's bandwidth-delay
 * product, doubled, within [SROCE_MAX_INFLIGHT, SROCE_MAX_INFLIGHT_CAP].
 * A connection starts below that, at SROCE_WIN_START plus every PSN
 * acknowledged since its SQ PSN was set: the window doubles each round
 * trip (TCP's slow start) until it reaches SROCE_MAX_INFLIGHT. A new
 * QP's first burst, sent at CPU speed before any CNP or round trip could
 * come back, is what a shallow queue holds; a whole window from each of
 * a few new QPs was not.
 *
 * A CNP that cuts the rate before then ends the doubling, and the window
 * grows by one PSN a window from half what it reached, not while the
 * rate stays cut (struct sroce_start, rtt.h); twice the path's product
 * may take it higher meanwhile. Pacing alone would not stop the doubling
 * (every PSN acknowledged lets two more out), and a few new QPs doubling
 * into a marking queue overflowed it before their rates came down.
 */
static void sroce_req_start_update(struct sroce_qp *qp)
{
	sroce_start_update(&qp->req.start, SROCE_WIN_START, SROCE_MAX_INFLIGHT,
			   qp->comp.psn, qp->cc.rp.d.limited);
}

static u32 sroce_req_window(struct sroce_qp *qp)
{
	struct sroce_start *st = &qp->req.start;
	u32 w;

	BUILD_BUG_ON(SROCE_WIN_START < SROCE_ACKREQ_EVERY);
	sroce_req_start_update(qp);
	w = sroce_start_window(st, SROCE_WIN_START, qp->comp.psn);
	if (w && !st->avoid)
		return w;
	return sroce_bdp_window(&qp->comp.bdp, w ?: SROCE_MAX_INFLIGHT,
				SROCE_MAX_INFLIGHT_CAP);
}

/* Would a packet at @psn leave the PSN window? Counted as a stall. */
static bool sroce_req_window_full(struct sroce_qp *qp, u32 psn)
{
	if (!sroce_qp_acked(qp) ||
	    sroce_psn_diff(psn, qp->comp.psn) < (s32)sroce_req_window(qp))
		return false;
	qp->window_full++;
	sroce_count(qp->sdev, SROCE_CNT_WINDOW_FULL, 1);
	return true;
}

/*
 * The PSN of @s's next packet. A resend under way in @s (a rewind stopped
 * by pacing, the budget or the window) that an ACK has overtaken goes on
 * from the first PSN not acknowledged: what is behind it arrived.
 */
static u32 sroce_req_past_acked(struct sroce_qp *qp, struct sroce_swqe *s)
{
	u32 psn = sroce_psn_add(s->first_psn, div_u64(qp->req.off, qp->mtu));
	u64 off;

	if (!sroce_qp_acked(qp) || !sroce_psn_before(psn, qp->comp.psn))
		return psn;
	off = (u64)sroce_psn_diff(qp->comp.psn, s->first_psn) * qp->mtu;
	/* An ACK past all of @s completes it: not here. */
	if (off >= s->length)
		return psn;
	qp->req.off = off;
	return qp->comp.psn;
}

/*
 * Has every WQE before req.cur completed? Retired ones have; the rest
 * may be done but not retired yet (retirement comes at the end of a run):
 * a REG_MR the requester itself just did, for one.
 */
static bool sroce_req_all_done(struct sroce_qp *qp)
{
	u32 i;

	for (i = qp->comp.head; i != qp->req.cur; i++)
		if (sroce_swqe(qp, i)->state != SROCE_SWQE_DONE)
			return false;
	return true;
}

/* May @s start now? Fences, the read limit and the PSN window say. */
static bool sroce_req_may_start(struct sroce_qp *qp, struct sroce_swqe *s)
{
	u32 max_rd = max_t(u32, qp->attr.max_rd_atomic, 1);
	bool rd = sroce_op_takes_res(s->h.opcode);

	/*
	 * Local operations wait until everything before them completed: a
	 * resend of an earlier WQE may still read the memory they change.
	 * Done is enough: waiting for retirement would stall the second of
	 * two in a row (xprtrdma's chains), as nothing runs the requester
	 * again once this run retires the first.
	 */
	if (sroce_op_is_local(s->h.opcode))
		return sroce_req_all_done(qp);

	if ((s->h.send_flags & IB_SEND_FENCE) || rd) {
		u32 n = sroce_sq_rd_inflight(qp);

		if ((s->h.send_flags & IB_SEND_FENCE) && n)
			return false;
		if (rd && n >= max_rd)
			return false;
	}
	return !sroce_req_window_full(qp, qp->req.psn);
}

/*
 * What a packet that took the WQE from @off to where it is now puts on
 * the wire, for the pacer: its payload and about its headers' size. A
 * READ request asks for what the responder sends: that is the
 * responder's to pace, not ours.
 */
static u32 sroce_req_wire_bytes(struct sroce_qp *qp, struct sroce_swqe *s,
				u64 off)
{
	u32 pay = 0;

	if (s->h.opcode != IB_WR_RDMA_READ)
		pay = min_t(u64, qp->req.off - off, qp->mtu);
	return pay + SROCE_CC_HDR_BYTES;
}

/*
 * Send the packet at @psn again (sroce_sq_resend_one()), with AckReq, from
 * wherever its WQE is; the requester then goes on from where it was.
 * False: the rate holds it, for the next run. One the completer has
 * seen answered since is not sent.
 */
static bool sroce_req_one(struct sroce_qp *qp, u32 psn, int *budget,
			  struct sroce_txb *txb)
{
	struct sroce_swqe *s;
	u64 off, from;
	bool paced;
	u8 state;
	int ret;
	u32 i;

	if (!sroce_psn_in_window(psn, qp->comp.psn,
				 sroce_psn_diff(qp->req.psn, qp->comp.psn)))
		return true;
	for (i = qp->comp.head; i != qp->req.fetched; i++) {
		s = sroce_swqe(qp, i);
		if (s->state == SROCE_SWQE_NEW)
			break;
		if (s->state == SROCE_SWQE_DONE ||
		    !sroce_psn_in_window(psn, s->first_psn, s->npsn))
			continue;
		paced = qp->cc.rp.d.limited ||
			READ_ONCE(qp->sdev->cc.pace_line);
		if (paced && sroce_cc_rp_wait(qp))
			return false;
		off = qp->req.off;
		state = s->state;
		from = sroce_op_is_atomic(s->h.opcode) ? 0 :
		       (u64)sroce_psn_diff(psn, s->first_psn) * qp->mtu;
		qp->req.off = from;
		txb->alone = paced;
		ret = sroce_req_packet(qp, s, true, txb);
		if (paced && !ret)
			sroce_cc_rp_sent(qp, sroce_req_wire_bytes(qp, s, from));
		qp->req.off = off;
		s->state = state;
		(*budget)--;
		if (ret)
			sroce_sq_done(s, IB_WC_LOC_PROT_ERR);
		return true;
	}
	return true;
}

/* The single resends waiting, in order. False: the rate holds the rest. */
static bool sroce_req_ones(struct sroce_qp *qp, int *budget,
			   struct sroce_txb *txb)
{
	u32 i;

	for (i = 0; i < qp->req.one_n && *budget > 0; i++) {
		if (!sroce_req_one(qp, qp->req.one_psn[i], budget, txb))
			break;
	}
	qp->req.one_n -= i;
	memmove(qp->req.one_psn, qp->req.one_psn + i,
		qp->req.one_n * sizeof(qp->req.one_psn[0]));
	return !qp->req.one_n;
}

void sroce_req_run(struct sroce_qp *qp, int *budget)
{
	enum ib_qp_state state = sroce_qp_state(qp);
	/* What this pass sends leaves in lists, the last one below. */
	struct sroce_txb txb = {};
	struct sroce_swqe *s;
	bool paced, held;
	u64 off;
	u32 psn;
	int ret;

	/*
	 * Posts while this pass sends need no doorbell. A pass with nothing
	 * in the ring (an answer's) leaves the flag set: no lock taken.
	 */
	if (qp->req.idle && sroce_req_ring_has_work(qp))
		sroce_req_set_idle(qp, false);
	/* A cut ends the start's doubling, even with nothing to send. */
	if (sroce_qp_acked(qp))
		sroce_req_start_update(qp);
	if (qp->comp.rnr_wait) {
		qp->rnr_stalls++;
		sroce_count(qp->sdev, SROCE_CNT_RNR_STALLS, 1);
	}
	held = qp->req.one_n && !qp->comp.rnr_wait &&
	       !sroce_req_ones(qp, budget, &txb);
	while (!held && *budget > 0 && !qp->comp.rnr_wait &&
	       sroce_qp_state(qp) == state) {
		/* A LOCAL_INV in progress goes first, even in SQD. */
		if (qp->req.inv_mr) {
			if (!sroce_req_inv_end(qp))
				break;
			continue;
		}
		if (qp->req.cur == qp->req.fetched) {
			/*
			 * After a WQE failed, nothing new starts; what was
			 * sent before it may still need resending.
			 */
			if (state == IB_QPS_SQD || qp->req.failed)
				break;
			if (sroce_req_fetch(qp))
				continue;
			if (sroce_req_go_idle(qp))
				break;
			continue;
		}
		s = sroce_swqe(qp, qp->req.cur);
		if (s->state == SROCE_SWQE_DONE) {
			/* A bad WQE ends the QP when it retires, in order. */
			qp->req.failed |= s->status != IB_WC_SUCCESS;
			qp->req.cur++;
			/*
			 * A resend may have stopped inside it (budget, window,
			 * pacing) before an ACK completed it: the offset it
			 * reached is not the next WQE's, which a rewind left
			 * SENDING from its first byte.
			 */
			qp->req.off = 0;
			continue;
		}
		if (s->state == SROCE_SWQE_NEW) {
			if (state == IB_QPS_SQD || qp->req.failed ||
			    !sroce_req_may_start(qp, s))
				break;
			if (sroce_op_is_local(s->h.opcode)) {
				sroce_req_local(qp, s);
				continue;
			}
			/* Its receiver, if on this host, runs elsewhere. */
			if (qp->req.stream >= SROCE_STREAM_MSGS)
				sroce_sched_hint_stream(qp->attr.dest_qp_num);
			s->first_psn = qp->req.psn;
			s->npsn = sroce_swqe_npsn(qp, s);
			qp->req.psn = sroce_psn_add(qp->req.psn, s->npsn);
			qp->req.off = 0;
			s->state = SROCE_SWQE_SENDING;
		} else {
			psn = sroce_req_past_acked(qp, s);
			if (sroce_req_window_full(qp, psn))
				break;
		}
		/* Below line rate (a CNP came), one packet per its time. */
		paced = qp->cc.rp.d.limited || READ_ONCE(qp->sdev->cc.pace_line);
		if (paced && sroce_cc_rp_wait(qp))
			break;
		off = qp->req.off;
		txb.alone = paced;
		ret = sroce_req_packet(qp, s, false, &txb);
		(*budget)--;
		if (ret) {
			sroce_sq_done(s, IB_WC_LOC_PROT_ERR);
			continue;
		}
		if (paced)
			sroce_cc_rp_sent(qp, sroce_req_wire_bytes(qp, s, off));
		if (s->state == SROCE_SWQE_SENT) {
			qp->req.cur++;
			qp->req.off = 0;
		}
	}
	sroce_txb_flush(qp, &txb);
	sroce_sq_retire(qp);

	if (state == IB_QPS_SQD && !qp->req.drained_sent &&
	    qp->comp.head == qp->req.cur && !qp->req.inv_mr) {
		WRITE_ONCE(qp->req.drained_sent, true);
		if (qp->sqd_notify)
			sroce_svc_event(qp, IB_EVENT_SQ_DRAINED);
	}
}

/*
 * In ERR: every WQE not completed yet completes with WR_FLUSH_ERR, in
 * order, at most @budget of them per pass: an SQ holds up to max_qp_wr
 * WQEs, and a pass runs in a section, with BH off. Returns true when WQEs
 * are left: the send task is then marked (sroce_task_pass_send()), and its
 * owner passes again, or leaves the rest to its worker once the dispatch's
 * budget is spent.
 */
bool sroce_req_flush(struct sroce_qp *qp, int *budget)
{
	struct sroce_swqe *s;
	u32 i, end;

	/*
	 * A LOCAL_INV in progress completes first, once its copies end:
	 * the consumer may reuse the pages when it sees any completion
	 * after it.
	 */
	if (qp->req.inv_mr && !sroce_req_inv_end(qp))
		return true;
	while (*budget > 0) {
		/* Copy out no more than this run completes. */
		while (qp->req.fetched - qp->comp.head < (u32)*budget &&
		       sroce_req_fetch(qp))
			;
		end = qp->comp.head + min_t(u32, *budget,
					    qp->req.fetched - qp->comp.head);
		for (i = qp->comp.head; i != end; i++) {
			s = sroce_swqe(qp, i);
			if (s->state != SROCE_SWQE_DONE)
				sroce_sq_done(s, IB_WC_WR_FLUSH_ERR);
		}
		qp->req.cur = end;
		qp->req.off = 0;
		*budget -= sroce_sq_retire_some(qp, *budget);
		if (qp->comp.head != qp->req.fetched)
			return true;
		/*
		 * Empty: WQEs posted meanwhile are either seen on the next
		 * pass, or the provider sees the SQ idle and rings.
		 */
		if (sroce_req_go_idle(qp))
			return false;
	}
	return true;
}

/* RESET: nothing fetched, nothing to send; the ring restarts at @prod. */
void sroce_req_reset(struct sroce_qp *qp, u32 prod)
{
	/* The engines are stopped: wait here, in process context. */
	if (qp->req.inv_mr)
		sroce_mr_inv_wait(qp->req.inv_mr);
	memset(&qp->req, 0, sizeof(qp->req));
	qp->req.fetched = prod;
	qp->req.cur = prod;
}
