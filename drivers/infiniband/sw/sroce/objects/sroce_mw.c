// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: memory windows (IBTA 10.6.7). A window is an entry of the key
 * table, like an MR: a struct sroce_mr of type SROCE_MR_WINDOW, whose attr
 * holds the window's bounds, rights and rkey. The gate (sroce_mr_check())
 * checks an access against the window and lets it through to the MR the
 * window is bound to; the bytes move through that MR.
 *
 * Type 1 windows belong to their PD: any QP of it may use them, and
 * ibv_bind_mw() binds them again (length 0 unbinds). Type 2B windows are
 * bound by a BIND_MW work request to the QP that posted it, which alone
 * may use them, and only once invalid (LOCAL_INV, SEND_WITH_INV) can they
 * be bound again; destroying their QP invalidates them too. Zero-based
 * windows are not offered.
 *
 * Bind and invalidation rewrite the window under its lock. The MR counts
 * the windows bound to it (num_mw, under the MR's lock) and while it has
 * any, dereg and rereg refuse it: a window's MR outlives the binding. An
 * access that passed the gate holds the MR, not the window, so it may end
 * after an invalidation of the window completed (one packet, on another
 * CPU), as on rdma_rxe; the memory is the MR's and stays registered.
 */
#include "sroce.h"
#include "core/sroce_qp.h"

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_mw *mw = to_smw(ibmw);
	struct sroce_mr *win;
	int ret;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	ret = sroce_mr_udata_ok(udata);
	if (ret)
		return ret;
	win = sroce_mr_alloc(to_spd(ibmw->pd), SROCE_MR_WINDOW);
	if (!win)
		return -ENOMEM;
	win->mw.type = ibmw->type;
	win->attr.state = SROCE_MR_INVALID;
	ret = sroce_mr_publish(to_sdev(ibmw->device), win);
	if (ret) {
		kfree(win);
		return ret;
	}
	ibmw->rkey = win->attr.key;
	mw->win = win;
	return 0;
}

/* A window let go of @mr (unbound, rebound elsewhere, invalid, freed). */
static void sroce_mw_release_mr(struct sroce_mr *mr)
{
	spin_lock_bh(&mr->lock);
	mr->num_mw--;
	spin_unlock_bh(&mr->lock);
	sroce_mr_put(mr);
}

int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mr *win = to_smw(ibmw)->win;
	struct sroce_mr *mr;

	spin_lock_bh(&win->lock);
	win->attr.state = SROCE_MR_FREE;
	mr = win->mw.mr;
	win->mw.mr = NULL;
	spin_unlock_bh(&win->lock);
	xa_cmpxchg(&sdev->mrs.xa, win->index, win, NULL, 0);
	sroce_mr_put(win);
	wait_for_completion(&win->done);
	if (mr)
		sroce_mw_release_mr(mr);
	kfree_rcu(win, rcu);
	return 0;
}

/*
 * May [@addr, @addr + @len) of @mr be bound with remote rights @access
 * (C10-73, C10-74, C10-75; FLUSH_PERSISTENT only over persistent memory,
 * as for the MR itself)? Under the MR's lock, which also takes the
 * binding into num_mw.
 */
static bool sroce_mw_take_mr(struct sroce_mr *mr, u32 lkey, u32 access,
			     u64 addr, u64 len)
{
	bool ok;

	spin_lock_bh(&mr->lock);
	ok = !mr->mw_closed && mr->attr.state == SROCE_MR_VALID &&
	     mr->attr.key == lkey && (mr->attr.access & SROCE_ACC_MW_BIND) &&
	     (!(access & (SROCE_ACC_REMOTE_WRITE | SROCE_ACC_REMOTE_ATOMIC)) ||
	      (mr->attr.access & SROCE_ACC_LOCAL_WRITE)) &&
	     (!(access & SROCE_ACC_FLUSH_PERSISTENT) || mr->umap->pmem) &&
	     sroce_mr_range_check(mr->attr.iova, mr->attr.length, addr,
				  len) == SROCE_MR_OK;
	if (ok)
		mr->num_mw++;
	spin_unlock_bh(&mr->lock);
	return ok;
}

/*
 * The window may take the new binding: it still exists, a type 2B one is
 * invalid (o10-37.2.30) and is given a range (o10-37.2.40), and the new
 * key keeps its index. Under the window's lock.
 */
static bool sroce_mw_bindable(struct sroce_mr *win,
			      const struct sroce_send_wqe *h)
{
	lockdep_assert_held(&win->lock);
	if (win->attr.state == SROCE_MR_FREE ||
	    sroce_key_index(h->bind.new_rkey) != win->index)
		return false;
	if (win->mw.type == IB_MW_TYPE_1)
		return true;
	return win->attr.state == SROCE_MR_INVALID && h->bind_length;
}

/**
 * sroce_mw_bind - a BIND_MW work request, by the requester, in order
 * @qp: the QP that posted it; its PD must be the window's and the MR's
 *	(C10-72)
 * @h: the WQE: the window by any rkey it had (its index: a consumer of
 *     type 2B windows may keep the first), the new rkey, the MR by its
 *     lkey, the range and the remote rights
 *
 * Returns 0, or -EINVAL: the WQE completes with MW_BIND_ERR.
 */
int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_send_wqe *h)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mr *win, *mr = NULL, *old = NULL;
	u64 addr = h->bind_addr, len = h->bind_length;
	u32 access = h->bind.access & SROCE_ACC_REMOTE;
	int ret = -EINVAL;

	win = sroce_mr_get(sdev, h->bind.mw_rkey);
	if (!win)
		return -EINVAL;
	/*
	 * A window grants remote rights only; local ones asked for are
	 * ignored, as rdma_rxe does. IB_ZERO_BASED is not offered.
	 */
	if (win->type != SROCE_MR_WINDOW || win->pd != qp->pd ||
	    (h->bind.access & (~SROCE_ACC_ALL | SROCE_ACC_UNOFFERED)))
		goto out;
	if (len) {
		mr = sroce_mr_get(sdev, h->bind.mr_lkey);
		if (!mr)
			goto out;
		if (mr->type != SROCE_MR_USER || mr->pd != qp->pd ||
		    !sroce_mw_take_mr(mr, h->bind.mr_lkey, access, addr, len)) {
			sroce_mr_put(mr);
			goto out;
		}
	}
	spin_lock_bh(&win->lock);
	if (sroce_mw_bindable(win, h)) {
		old = win->mw.mr;
		win->mw.mr = mr;
		win->mw.qpn = qp->ibqp.qp_num;
		win->attr.iova = addr;
		win->attr.length = len;
		win->attr.access = access;
		win->attr.key = h->bind.new_rkey;
		win->attr.state = mr ? SROCE_MR_VALID : SROCE_MR_INVALID;
		mr = NULL;
		ret = 0;
	}
	if (!ret && win->mw.type == IB_MW_TYPE_2)
		WRITE_ONCE(qp->bound_mw2, true);
	spin_unlock_bh(&win->lock);
	/* Refused: the MR we took goes back; bound: the one before it. */
	if (mr)
		sroce_mw_release_mr(mr);
	if (old)
		sroce_mw_release_mr(old);
out:
	sroce_mr_put(win);
	return ret;
}

/*
 * The gate for a window found under @acc's key (sroce_mr_check()): a remote
 * access only, by a QP of the window's PD (type 1) or the QP it is bound
 * to (type 2B), inside its range and rights. On success *@out is the MR,
 * referenced, that the bytes move through. Returns 0 or an enum
 * sroce_mr_fault.
 */
int sroce_mw_gate(struct sroce_mr *win, const struct sroce_access *acc,
		  struct sroce_mr **out)
{
	bool pd_ok;
	int ret;

	if (!acc->remote)
		return SROCE_MR_NO_KEY;
	spin_lock_bh(&win->lock);
	pd_ok = win->pd == acc->pd &&
		(win->mw.type == IB_MW_TYPE_1 || win->mw.qpn == acc->qpn);
	ret = sroce_mr_attr_check(&win->attr, acc->key, pd_ok, true,
				  acc->addr, acc->len, acc->rights);
	if (!ret) {
		*out = win->mw.mr;
		/* The window's own reference keeps it alive until here. */
		refcount_inc(&(*out)->ref);
	}
	spin_unlock_bh(&win->lock);
	return ret;
}

/*
 * LOCAL_INV (@qpn 0) or SEND_WITH_INV arriving on QP @qpn of a window:
 * a valid type 2B window of @pd under exactly @key, bound to that QP for a
 * SEND_WITH_INV (o10-37.2.26: never a type 1 one). Returns 0 or -EINVAL.
 */
int sroce_mw_invalidate(struct sroce_mr *win, struct sroce_pd *pd, u32 key,
			u32 qpn)
{
	struct sroce_mr *mr = NULL;

	spin_lock_bh(&win->lock);
	if (win->mw.type == IB_MW_TYPE_2 && win->pd == pd &&
	    win->attr.key == key && win->attr.state == SROCE_MR_VALID &&
	    (!qpn || win->mw.qpn == qpn)) {
		win->attr.state = SROCE_MR_INVALID;
		mr = win->mw.mr;
		win->mw.mr = NULL;
	}
	spin_unlock_bh(&win->lock);
	if (!mr)
		return -EINVAL;
	sroce_mw_release_mr(mr);
	return 0;
}

/*
 * @qp is being destroyed: the type 2B windows bound to it are invalid
 * from now on, as if a LOCAL_INV had come (they can be bound again), so
 * that no QP taking its QPN later reaches through them. Only a QP that
 * ever bound one walks the key table. The engines have stopped.
 */
void sroce_mw_qp_gone(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mr *win, *mr;
	unsigned long i;

	if (!READ_ONCE(qp->bound_mw2))
		return;
	rcu_read_lock();
	xa_for_each(&sdev->mrs.xa, i, win) {
		/* A table of millions of keys: a break now and then. */
		if (!(i % 1024)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		if (win->type != SROCE_MR_WINDOW || win->pd != qp->pd ||
		    !refcount_inc_not_zero(&win->ref))
			continue;
		rcu_read_unlock();
		mr = NULL;
		spin_lock_bh(&win->lock);
		if (win->mw.type == IB_MW_TYPE_2 &&
		    win->mw.qpn == qp->ibqp.qp_num &&
		    win->attr.state == SROCE_MR_VALID) {
			win->attr.state = SROCE_MR_INVALID;
			mr = win->mw.mr;
			win->mw.mr = NULL;
		}
		spin_unlock_bh(&win->lock);
		if (mr)
			sroce_mw_release_mr(mr);
		sroce_mr_put(win);
		cond_resched();
		rcu_read_lock();
	}
	rcu_read_unlock();
}
