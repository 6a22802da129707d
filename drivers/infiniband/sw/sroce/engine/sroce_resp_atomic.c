// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the responder's one-packet requests that a saved resource
 * answers when they come again: the atomics (CMP_SWAP, FETCH_ADD), and
 * IBTA 1.5's ATOMIC WRITE and FLUSH (A19). Each is carried out here and
 * answered; a refusal goes back to sroce_resp.c, which ends the request:
 * -EINVAL is an Invalid Request, -EACCES a Remote Access error.
 */
#include "sroce.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "net/sroce_net.h"

/* The access gate for @rkey: -EACCES when it refuses. */
static int sroce_resp_key(struct sroce_qp *qp, u32 rkey, u64 va, u64 len,
			  int need, struct sroce_mr **mr)
{
	struct sroce_access acc = {
		.pd = qp->pd, .qpn = qp->ibqp.qp_num, .remote = true,
		.key = rkey, .addr = va, .len = len, .rights = need,
	};

	if (sroce_mr_check(qp->sdev, &acc, mr))
		return -EACCES;
	return 0;
}

int sroce_resp_atomic(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u64 va = pkt->f.atmeth.va, orig, val;
	struct sroce_rd_res *res;
	struct sroce_mr *mr;
	int ret;

	if (va & (sizeof(u64) - 1))
		return -EINVAL;
	ret = sroce_resp_key(qp, pkt->f.atmeth.rkey, va, sizeof(u64),
			     IB_ACCESS_REMOTE_ATOMIC, &mr);
	if (ret)
		return ret;
	/* One lock per device makes each atomic indivisible from the others. */
	spin_lock_bh(&qp->sdev->atomic_lock);
	ret = sroce_dma_copy(mr, va, &orig, sizeof(orig), SROCE_DMA_FROM_MR);
	if (!ret) {
		if (pkt->info->op == SROCE_OP_CMP_SWAP)
			val = orig == pkt->f.atmeth.compare ?
			      pkt->f.atmeth.swap_add : orig;
		else
			val = orig + pkt->f.atmeth.swap_add;
		ret = sroce_dma_copy(mr, va, &val, sizeof(val),
				     SROCE_DMA_TO_MR);
	}
	spin_unlock_bh(&qp->sdev->atomic_lock);
	sroce_mr_access_end(mr);
	if (ret)
		return -EACCES;
	res = sroce_resp_new_res(qp);
	res->valid = true;
	res->kind = SROCE_RES_ATOMIC;
	res->first_psn = pkt->f.psn;
	res->last_psn = pkt->f.psn;
	res->orig = orig;
	qp->resp.msn++;
	res->msn = qp->resp.msn;
	qp->resp.ack_pending = false;
	sroce_tx_ack(qp, SROCE_OPCODE(RC, ATOMIC_ACK), pkt->f.psn,
		     SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID, res->msn, orig);
	return 0;
}

/*
 * FLUSH and ATOMIC WRITE end alike: a resource remembers the PSN, and an
 * empty READ_RESP_ONLY answers (A19), acknowledging everything before.
 */
static void sroce_resp_empty_resp(struct sroce_qp *qp, u32 psn)
{
	struct sroce_rd_res *res = sroce_resp_new_res(qp);

	res->valid = true;
	res->kind = SROCE_RES_EMPTY;
	res->first_psn = psn;
	res->last_psn = psn;
	qp->resp.msn++;
	res->msn = qp->resp.msn;
	qp->resp.ack_pending = false;
	sroce_tx_ack(qp, SROCE_OPCODE(RC, READ_RESP_ONLY), psn,
		     SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID, res->msn, 0);
}

static int sroce_resp_store64(void *va, size_t len, void *priv)
{
	/* An aligned u64 never crosses a page: one piece, one store. */
	if (len != sizeof(u64))
		return -EFAULT;
	/* Release: visible after everything this QP placed before it. */
	smp_store_release((u64 *)va, *(u64 *)priv);
	return 0;
}

/*
 * ATOMIC WRITE: 8 bytes to an aligned address, seen whole or not at all,
 * and indivisible from this device's other atomics (atomic_lock). The
 * bytes land as they came: the requester's buffer, byte for byte.
 */
int sroce_resp_atomic_write(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u64 va = pkt->f.reth.va, val;
	struct sroce_mr *mr;
	int ret;

	/* oA19-28: exactly 8 bytes, no pad; A19.4.2: aligned */
	if (pkt->f.reth.len != SROCE_ATOMIC_WRITE_LEN ||
	    pkt->pay_len != SROCE_ATOMIC_WRITE_LEN || pkt->f.pad ||
	    (va & (sizeof(u64) - 1)))
		return -EINVAL;
	ret = sroce_resp_key(qp, pkt->f.reth.rkey, va, sizeof(u64),
			     IB_ACCESS_REMOTE_WRITE, &mr);
	if (ret)
		return ret;
	memcpy(&val, pkt->bth + pkt->pay_off, sizeof(val));
	spin_lock_bh(&qp->sdev->atomic_lock);
	ret = sroce_dma_walk(mr, va, sizeof(u64), sroce_resp_store64, &val);
	spin_unlock_bh(&qp->sdev->atomic_lock);
	sroce_mr_access_end(mr);
	if (ret)
		return -EACCES;
	sroce_resp_empty_resp(qp, pkt->f.psn);
	return 0;
}

/*
 * A FLUSH names a placement type (one that names none would need no right
 * and tell the peer which keys are valid), the QP allows each type it
 * names, and its selectivity level exists (RANGE or MR; 2 and 3 are
 * reserved).
 */
bool sroce_resp_flush_allowed(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	int acc = qp->attr.qp_access_flags;
	u8 type = pkt->f.feth.type;

	return qp->resp.nres && pkt->f.feth.level <= SROCE_FLUSH_MR &&
	       (type & (SROCE_FLUSH_GLOBAL | SROCE_FLUSH_PERSISTENT)) &&
	       (!(type & SROCE_FLUSH_GLOBAL) ||
		(acc & SROCE_ACCESS_FLUSH_GLOBAL)) &&
	       (!(type & SROCE_FLUSH_PERSISTENT) ||
		(acc & SROCE_ACCESS_FLUSH_PERSISTENT));
}

/*
 * The bytes of persistent memory a FLUSH writes back in one turn of the
 * responder, with BH off: a whole-MR FLUSH may name gigabytes, which go
 * in such pieces, the QP taking no other request meanwhile.
 */
#define SROCE_FLUSH_CHUNK	(256 << 10)

/*
 * FLUSH: what this QP placed before it is globally visible, and for
 * PERSISTENT also in persistent memory (sroce_pmem.c), once it is
 * answered. The responder places in PSN order with the CPU's own stores,
 * so a full barrier makes it visible; persistence takes the write-back of
 * the range, or of all the key names (a window's own range, an MR's
 * whole), SROCE_FLUSH_CHUNK at a time (sroce_resp_flush_run()), the key
 * checked again for each piece. The R_Key is checked even for an empty
 * range or a whole-MR flush (no range then), for the rights the
 * placement type asks for.
 */
int sroce_resp_rdma_flush(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u64 va = pkt->f.reth.va, len = pkt->f.reth.len;
	u32 rkey = pkt->f.reth.rkey;
	u32 need = 0;
	struct sroce_mr *mr;
	int ret;

	if (pkt->f.feth.type & SROCE_FLUSH_GLOBAL)
		need |= SROCE_ACC_FLUSH_GLOBAL;
	if (pkt->f.feth.type & SROCE_FLUSH_PERSISTENT)
		need |= SROCE_ACC_FLUSH_PERSISTENT;
	if (pkt->f.feth.level == SROCE_FLUSH_MR || !len)
		need |= SROCE_ACC_KEY_ONLY;
	ret = sroce_resp_key(qp, rkey, va, len, need, &mr);
	if (ret)
		return ret;
	sroce_mr_access_end(mr);
	/* Every store placed before the FLUSH is visible before its answer. */
	smp_mb();
	if (!(need & SROCE_ACC_FLUSH_PERSISTENT)) {
		sroce_resp_empty_resp(qp, pkt->f.psn);
		return 0;
	}
	if (pkt->f.feth.level == SROCE_FLUSH_MR &&
	    sroce_mr_key_range(qp->sdev, rkey, &va, &len))
		return -EACCES;
	qp->resp.flush.va = va;
	qp->resp.flush.left = len;
	qp->resp.flush.rkey = rkey;
	qp->resp.flush.psn = pkt->f.psn;
	qp->resp.flush.need = need & ~SROCE_ACC_KEY_ONLY;
	qp->resp.flush.on = true;
	return 0;
}

/*
 * One piece of the FLUSH under way written back; answered once all is.
 * Returns 1 while there is more to do, 0 when it is answered, or -EACCES:
 * the key no longer grants the piece (invalidated, a window bound
 * elsewhere), and the caller NAKs it as the whole would have been.
 */
int sroce_resp_flush_run(struct sroce_qp *qp)
{
	typeof(qp->resp.flush) *f = &qp->resp.flush;
	u64 n = min_t(u64, f->left, SROCE_FLUSH_CHUNK);
	struct sroce_mr *mr;
	int ret = 0;

	if (n) {
		ret = sroce_resp_key(qp, f->rkey, f->va, n, f->need, &mr);
		if (!ret) {
			ret = sroce_dma_walk(mr, f->va, n,
					     sroce_pmem_write_back, NULL);
			sroce_mr_access_end(mr);
		}
	}
	if (ret) {
		f->on = false;
		return -EACCES;
	}
	f->va += n;
	f->left -= n;
	if (f->left)
		return 1;
	/* The write-backs are complete before the answer says so. */
	wmb();
	f->on = false;
	sroce_resp_empty_resp(qp, f->psn);
	return 0;
}
