// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: memory regions. The MR verbs and the one gate every access to MR
 * memory passes, sroce_mr_check(); the key table is sroce_key.c, windows
 * sroce_mw.c, and the bytes themselves move in sroce_dma.c.
 *
 * Lifetime: an MR enters the key table once it is complete and leaves it
 * at dereg; the table holds one reference. Lookups, from any context
 * (packet processing included), load the entry under RCU and take a
 * reference with refcount_inc_not_zero(), so a lookup racing dereg gets
 * either a reference that dereg waits for or nothing. Dereg: state FREE,
 * out of the table, drop the table's reference, wait for the others,
 * release the pages, free the memory after a grace period (a lookup may
 * still be looking at it).
 *
 * An MR's attributes never change in place: rereg builds a new MR that
 * takes over the old one's slot in the key table, and its key, so the keys
 * handed out before name the new attributes at once (and the old ones no
 * more); the RDMA core then deregisters the old MR, which leaves the slot
 * alone. Fast-reg MRs are the exception by nature: REG_MR and invalidation
 * (LOCAL_INV, SEND_WITH_INV) rewrite them whole under mr->lock, and the
 * check runs under it too.
 *
 * Copies: for fast-reg MRs the gate also counts each access it lets
 * through (mr->copies, apart from the lifetime reference) until the
 * access ends (sroce_mr_access_end()). An invalidation finds the copies
 * that passed the gate before it still running, or none; it does not wait
 * for them itself: the engine that invalidates holds its completion back
 * and lets the scheduler run it again once the count is zero (its worker
 * sleeps on it). Until then REG_MR refuses the MR: a copy may still walk
 * the page list it would rewrite. Two invalidations of one key (a
 * LOCAL_INV racing a SEND_WITH_INV) both wait; each finishes on its own,
 * and inv_pending stays until both have (inv_waiters), so the one that
 * finishes second is still woken after a REG_MR in between.
 */
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <rdma/ib_umem.h>

#include "sroce.h"

static_assert(IB_ACCESS_LOCAL_WRITE == SROCE_ACC_LOCAL_WRITE);
static_assert(IB_ACCESS_REMOTE_WRITE == SROCE_ACC_REMOTE_WRITE);
static_assert(IB_ACCESS_REMOTE_READ == SROCE_ACC_REMOTE_READ);
static_assert(IB_ACCESS_REMOTE_ATOMIC == SROCE_ACC_REMOTE_ATOMIC);
static_assert(IB_ACCESS_MW_BIND == SROCE_ACC_MW_BIND);
static_assert(IB_ACCESS_OPTIONAL == SROCE_ACC_OPTIONAL);
static_assert(SROCE_ACCESS_FLUSH_GLOBAL == SROCE_ACC_FLUSH_GLOBAL);
static_assert(SROCE_ACCESS_FLUSH_PERSISTENT == SROCE_ACC_FLUSH_PERSISTENT);

/* The IB_ACCESS_* flags to keep, or a negative errno. */
static int sroce_mr_access(int access)
{
	if (!sroce_mr_access_known(access) || (access & SROCE_ACC_UNOFFERED))
		return -EOPNOTSUPP;
	if (!sroce_mr_access_consistent(access))
		return -EINVAL;
	return access & SROCE_ACC_ALL;
}

/*
 * rereg: @mr takes @old's slot and key with one store, so a lookup finds
 * one or the other, whole; @old is marked free for whoever found it just
 * before. The caller holds @old's uobject for writing: no dereg races.
 */
static int sroce_mr_replace(struct sroce_dev *sdev, struct sroce_mr *old,
			    struct sroce_mr *mr)
{
	void *prev;

	mr->index = old->index;
	mr->attr.key = old->attr.key;
	mr->ibmr.lkey = mr->attr.key;
	mr->ibmr.rkey = mr->attr.key;
	prev = xa_cmpxchg(&sdev->mrs.xa, old->index, old, mr, GFP_KERNEL);
	if (xa_is_err(prev))
		return xa_err(prev);
	if (WARN_ON_ONCE(prev != old))
		return -EINVAL;
	WRITE_ONCE(old->attr.state, SROCE_MR_FREE);
	return 0;
}

static void sroce_umap_release(struct kref *ref)
{
	struct sroce_umap *umap = container_of(ref, struct sroce_umap, ref);

	ib_umem_release(umap->umem);
	kvfree(umap);
}

/* Pin [start, start + length) and index its pages for the dma engine. */
static struct sroce_umap *sroce_umap_create(struct ib_device *ibdev,
					    u64 start, u64 length, int access)
{
	struct sroce_umap *umap;
	struct sg_page_iter it;
	struct ib_umem *umem;
	unsigned long i = 0, npages;

	umem = ib_umem_get(ibdev, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	npages = ib_umem_num_pages(umem);
	umap = kvzalloc(struct_size(umap, pages, npages), GFP_KERNEL_ACCOUNT);
	if (!umap) {
		ib_umem_release(umem);
		return ERR_PTR(-ENOMEM);
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (i == npages)
			break;
		umap->pages[i++] = sg_page_iter_page(&it);
	}
	kref_init(&umap->ref);
	umap->umem = umem;
	umap->offset = ib_umem_offset(umem);
	umap->npages = npages;
	umap->pmem = sroce_pmem_pages(&umem->sgt_append.sgt);
	if (WARN_ON_ONCE(i != npages)) {
		kref_put(&umap->ref, sroce_umap_release);
		return ERR_PTR(-EFAULT);
	}
	return umap;
}

/* For MRs that never reached the table, and after dereg's wait. */
static void sroce_mr_free(struct sroce_mr *mr)
{
	switch (mr->type) {
	case SROCE_MR_USER:
		if (mr->umap)
			kref_put(&mr->umap->ref, sroce_umap_release);
		break;
	case SROCE_MR_FAST_REG:
		kfree(mr->frmr.map.addrs);
		kfree(mr->frmr.active.addrs);
		break;
	case SROCE_MR_DMA:
	case SROCE_MR_WINDOW:
		break;
	}
	kfree_rcu(mr, rcu);
}

static void sroce_mr_set(struct sroce_mr *mr, u64 iova, u64 length,
			 int access, enum sroce_mr_state state)
{
	mr->attr.iova = iova;
	mr->attr.length = length;
	mr->attr.access = access;
	mr->attr.state = state;
}

/*
 * Kernel consumers only (ib_alloc_pd() when asked for an unsafe global
 * rkey): with the core's virt DMA every ib_dma_* address is a kernel
 * virtual address, so this MR names all of kernel memory. The core asks
 * for remote read and write without local write here (local access uses
 * the local DMA lkey), so only unknown flags are refused.
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr;
	int ret;

	if (!sroce_mr_access_known(access) ||
	    (access & SROCE_ACC_FLUSH_PERSISTENT))
		return ERR_PTR(-EOPNOTSUPP);
	mr = sroce_mr_alloc(to_spd(ibpd), SROCE_MR_DMA);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sroce_mr_set(mr, 0, U64_MAX, access & SROCE_ACC_ALL, SROCE_MR_VALID);
	ret = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (ret) {
		sroce_mr_free(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

/*
 * Dereg and rereg end an MR's binds: refused while a window is bound to
 * it (as on rdma_rxe), and no window binds to it after.
 */
static bool sroce_mr_close_binds(struct sroce_mr *mr)
{
	bool ok;

	spin_lock_bh(&mr->lock);
	ok = !mr->num_mw;
	if (ok)
		mr->mw_closed = true;
	spin_unlock_bh(&mr->lock);
	return ok;
}

/* A rereg that failed: its MR stays, and may be bound again. */
static void sroce_mr_open_binds(struct sroce_mr *mr)
{
	spin_lock_bh(&mr->lock);
	mr->mw_closed = false;
	spin_unlock_bh(&mr->lock);
}

/*
 * A user MR over umap, published under a new key, or under @old's when it
 * replaces @old (rereg); consumes umap's reference. Only persistent
 * memory may grant FLUSH_PERSISTENT (-EINVAL, as on rdma_rxe).
 */
static struct ib_mr *sroce_user_mr_new(struct ib_pd *ibpd,
				       struct sroce_umap *umap, u64 iova,
				       u64 length, int acc,
				       struct sroce_mr *old)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int ret;

	if ((acc & SROCE_ACC_FLUSH_PERSISTENT) && !umap->pmem) {
		kref_put(&umap->ref, sroce_umap_release);
		return ERR_PTR(-EINVAL);
	}
	mr = sroce_mr_alloc(to_spd(ibpd), SROCE_MR_USER);
	if (!mr) {
		kref_put(&umap->ref, sroce_umap_release);
		return ERR_PTR(-ENOMEM);
	}
	mr->umap = umap;
	sroce_mr_set(mr, iova, length, acc, SROCE_MR_VALID);
	ret = old ? sroce_mr_replace(sdev, old, mr) :
		    sroce_mr_publish(sdev, mr);
	if (ret) {
		sroce_mr_free(mr);
		return ERR_PTR(ret);
	}
	/* The core fills these itself for reg, but not for a rereg's MR. */
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_umap *umap;
	int acc, ret;

	ret = sroce_mr_udata_ok(udata);
	if (ret)
		return ERR_PTR(ret);
	acc = sroce_mr_access(access);
	if (acc < 0)
		return ERR_PTR(acc);
	if (!sroce_mr_range_valid(iova, length, SROCE_MAX_MR_SIZE))
		return ERR_PTR(-EINVAL);
	umap = sroce_umap_create(ibpd->device, start, length, access);
	if (IS_ERR(umap))
		return ERR_CAST(umap);
	return sroce_user_mr_new(ibpd, umap, iova, length, acc, NULL);
}

/*
 * Always a new MR, never an in-place change: the gate then never sees a
 * mix of old and new PD and rights, and the core deregisters the old MR
 * (waiting for its users) right after. The new MR keeps the old one's key
 * (sroce_mr_replace()): consumers exchange keys once, at connection time,
 * and expect them to stay valid with the new attributes, as on other
 * devices. ibpd is the new PD, or the old one without IB_MR_REREG_PD.
 * Without IB_MR_REREG_TRANS the pages are shared, unless the MR becomes
 * writable over a read-only pin: then the same range is pinned again for
 * writing.
 */
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_mr *old = to_smr(ibmr);
	struct sroce_umap *umap = old->umap;
	struct ib_mr *mr;
	int acc, ret;

	if (old->type != SROCE_MR_USER)
		return ERR_PTR(-EINVAL);
	if (flags & ~IB_MR_REREG_SUPPORTED)
		return ERR_PTR(-EOPNOTSUPP);
	ret = sroce_mr_udata_ok(udata);
	if (ret)
		return ERR_PTR(ret);

	acc = old->attr.access;
	if (flags & IB_MR_REREG_ACCESS) {
		acc = sroce_mr_access(access);
		if (acc < 0)
			return ERR_PTR(acc);
	}
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = umap->umem->address;
		length = old->attr.length;
		iova = old->attr.iova;
	} else if (!sroce_mr_range_valid(iova, length, SROCE_MAX_MR_SIZE)) {
		return ERR_PTR(-EINVAL);
	}

	if ((flags & IB_MR_REREG_TRANS) ||
	    (ib_access_writable(acc) && !umap->umem->writable)) {
		umap = sroce_umap_create(ibpd->device, start, length, acc);
		if (IS_ERR(umap))
			return ERR_CAST(umap);
	} else {
		kref_get(&umap->ref);
	}
	if (!sroce_mr_close_binds(old)) {
		kref_put(&umap->ref, sroce_umap_release);
		return ERR_PTR(-EBUSY);
	}
	mr = sroce_user_mr_new(ibpd, umap, iova, length, acc, old);
	if (IS_ERR(mr))
		sroce_mr_open_binds(old);
	return mr;
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);

	if (!sroce_mr_close_binds(mr))
		return -EBUSY;
	WRITE_ONCE(mr->attr.state, SROCE_MR_FREE);
	/* Unless a rereg gave the slot to the MR that replaced this one. */
	xa_cmpxchg(&sdev->mrs.xa, mr->index, mr, NULL, 0);
	sroce_mr_put(mr);
	wait_for_completion(&mr->done);
	sroce_mr_free(mr);
	return 0;
}

/*
 * Fast-register MRs only. IB_MR_TYPE_INTEGRITY never gets here (the core
 * refuses it); SG_GAPS needs IB_DEVICE_SG_GAPS_REG, which is not offered,
 * so asking for it, or any other type, is a caller's error.
 */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_mr *mr;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > SROCE_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_alloc(to_spd(ibpd), SROCE_MR_FAST_REG);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->frmr.max_pages = max_num_sg;
	mr->frmr.map.addrs = kcalloc(max_num_sg, sizeof(u64),
				     GFP_KERNEL_ACCOUNT);
	mr->frmr.active.addrs = kcalloc(max_num_sg, sizeof(u64),
					GFP_KERNEL_ACCOUNT);
	if (!mr->frmr.map.addrs || !mr->frmr.active.addrs) {
		sroce_mr_free(mr);
		return ERR_PTR(-ENOMEM);
	}
	/* Unusable until a REG_MR work request makes it valid. */
	sroce_mr_set(mr, 0, 0, 0, SROCE_MR_INVALID);
	ret = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (ret) {
		sroce_mr_free(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

static int sroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_pagelist *pl = &mr->frmr.map;

	if (pl->npages == mr->frmr.max_pages)
		return -ENOMEM;
	pl->addrs[pl->npages++] = addr;
	return 0;
}

/*
 * Fills the staged page list (and ibmr's iova and length) for the next
 * REG_MR; the list in use stays untouched, since consumers map before
 * posting the LOCAL_INV that retires the previous registration.
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->type != SROCE_MR_FAST_REG ||
	    !is_power_of_2(ibmr->page_size) ||
	    !(ibmr->page_size & SROCE_PAGE_SIZE_CAP))
		return -EINVAL;
	mr->frmr.map.npages = 0;
	mr->frmr.map.shift = ilog2(ibmr->page_size);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_set_page);
}

/* SROCE_LOCAL_DMA_LKEY: all kernel memory, local access, kernel PDs. */
static const struct sroce_mr_attr sroce_local_dma_attr = {
	.iova = 0,
	.length = U64_MAX,
	.key = SROCE_LOCAL_DMA_LKEY,
	.access = SROCE_ACC_LOCAL_WRITE,
	.state = SROCE_MR_VALID,
};

/**
 * sroce_mr_check - the gate for every access to MR memory
 * @sdev: the device
 * @acc: who asks, under which key, for what range and rights (a type 2B
 *	 window serves only the QP it is bound to; rights 0: local read)
 * @out: the MR, referenced; NULL for the local DMA lkey or length 0; for
 *	 a window's rkey the MR the window is bound to
 *
 * Returns 0, or the negated enum sroce_mr_fault saying which check failed.
 * On success the caller moves the bytes with sroce_dma_walk() or
 * sroce_dma_copy() and then calls sroce_mr_access_end(*out), at once: an
 * access is one packet, with BH off, and never spans a delivery.
 */
int sroce_mr_check(struct sroce_dev *sdev, const struct sroce_access *acc,
		   struct sroce_mr **out)
{
	u32 key = acc->key;
	struct sroce_mr_attr attr;
	struct sroce_mr *mr;
	int ret;

	*out = NULL;
	if (!acc->len && !(acc->rights & SROCE_ACC_KEY_ONLY))
		return 0;
	if (key == SROCE_LOCAL_DMA_LKEY) {
		if (acc->remote)
			return -SROCE_MR_NO_KEY;
		/* Only kernel QPs may name all of kernel memory. */
		return -sroce_mr_attr_check(&sroce_local_dma_attr, key,
					    !acc->pd->ibpd.uobject, false,
					    acc->addr, acc->len, acc->rights);
	}

	mr = sroce_mr_get(sdev, key);
	if (!mr)
		return -SROCE_MR_NO_KEY;
	if (mr->type == SROCE_MR_WINDOW) {
		ret = sroce_mw_gate(mr, acc, out);
		sroce_mr_put(mr);
		return -ret;
	}
	if (mr->type == SROCE_MR_FAST_REG) {
		/*
		 * REG_MR and invalidation rewrite it as a whole, under the
		 * lock: an access is counted before an invalidation, or
		 * refused after it.
		 */
		spin_lock_bh(&mr->lock);
		ret = sroce_mr_attr_check(&mr->attr, key, mr->pd == acc->pd,
					  acc->remote, acc->addr, acc->len,
					  acc->rights);
		if (!ret)
			atomic_inc(&mr->copies);
		spin_unlock_bh(&mr->lock);
	} else {
		attr = mr->attr;
		attr.state = READ_ONCE(mr->attr.state);
		ret = sroce_mr_attr_check(&attr, key, mr->pd == acc->pd,
					  acc->remote, acc->addr, acc->len,
					  acc->rights);
	}
	if (ret) {
		sroce_mr_put(mr);
		return -ret;
	}
	*out = mr;
	return 0;
}

/*
 * Fault injection for tests (debugfs fault_copy_us, 0: off): an access
 * through an FRMR lasts this much longer, so that an invalidation of its
 * key finds it running and waits.
 */
static void sroce_mr_fault_copy(struct sroce_mr *mr)
{
	u32 us = READ_ONCE(to_sdev(mr->ibmr.device)->fault_copy_us);

	if (unlikely(us))
		udelay(min(us, 2000U));
}

/*
 * An access that passed sroce_mr_check() is done with the MR's memory. The
 * last copy under an invalidated key wakes whoever waits for it
 * (sroce_mr_inv_begin()).
 */
void sroce_mr_access_end(struct sroce_mr *mr)
{
	if (!mr)
		return;
	if (mr->type == SROCE_MR_FAST_REG)
		sroce_mr_fault_copy(mr);
	/* Fully ordered: our bytes are moved before the count drops. */
	if (mr->type == SROCE_MR_FAST_REG &&
	    atomic_dec_and_test(&mr->copies) && READ_ONCE(mr->inv_pending))
		wake_up_var(&mr->copies);
	sroce_mr_put(mr);
}

/*
 * The range key @key names now: a window's own, else its MR's (what a
 * FLUSH of the whole "memory region" covers). 0, or -EACCES for a key
 * that names nothing; the access itself is checked by sroce_mr_check().
 */
int sroce_mr_key_range(struct sroce_dev *sdev, u32 key, u64 *iova, u64 *len)
{
	struct sroce_mr *mr = sroce_mr_get(sdev, key);

	if (!mr)
		return -EACCES;
	spin_lock_bh(&mr->lock);
	*iova = mr->attr.iova;
	*len = mr->attr.length;
	spin_unlock_bh(&mr->lock);
	sroce_mr_put(mr);
	return 0;
}

const char *sroce_mr_fault_name(int reason)
{
	static const char * const names[SROCE_MR_NR_FAULTS] = {
		[SROCE_MR_OK] = "ok",
		[SROCE_MR_NO_KEY] = "no such key",
		[SROCE_MR_BAD_VARIANT] = "key variant mismatch",
		[SROCE_MR_NOT_VALID] = "MR not valid",
		[SROCE_MR_BAD_PD] = "wrong PD",
		[SROCE_MR_NO_ACCESS] = "access not granted",
		[SROCE_MR_OVERFLOW] = "address + length overflows",
		[SROCE_MR_OUT_OF_BOUNDS] = "out of bounds",
	};

	if (reason < 0)
		reason = -reason;
	return reason < SROCE_MR_NR_FAULTS ? names[reason] : "?";
}

/*
 * IB_WR_REG_MR: the page list map_mr_sg() staged becomes the MR's, with
 * the key's new variant byte and @access. Only a fast-reg MR of the QP's
 * PD that is not valid now can be registered (IBTA 10.6.3.3), and not
 * while copies under its last key still run (-EBUSY): they walk the page
 * list this rewrites. A consumer that waits for an invalidation's
 * completion before it registers again never sees that: no copy starts
 * under an invalid key, so once one invalidation saw them end, none runs.
 * Another invalidation of the key still waiting (inv_waiters) then
 * waits for copies under the new key too, which end as quickly.
 */
int sroce_mr_fast_reg(struct sroce_pd *pd, struct ib_mr *ibmr, u32 key,
		      int access)
{
	struct sroce_mr *mr = to_smr(ibmr);
	int ret = 0;

	/* A kernel page list is never checked for pmem: no PERSISTENT. */
	if (mr->type != SROCE_MR_FAST_REG || mr->pd != pd ||
	    sroce_key_index(key) != mr->index ||
	    !sroce_mr_access_known(access) ||
	    (access & SROCE_ACC_FLUSH_PERSISTENT) ||
	    !sroce_mr_access_consistent(access))
		return -EINVAL;
	spin_lock_bh(&mr->lock);
	/* Under the lock with the MR invalid, the count cannot rise. */
	if (mr->inv_pending && atomic_read(&mr->copies)) {
		ret = -EBUSY;
		goto out;
	}
	if (mr->attr.state != SROCE_MR_INVALID) {
		ret = -EINVAL;
		goto out;
	}
	/* A copy: a consumer may register the same mapping again later. */
	memcpy(mr->frmr.active.addrs, mr->frmr.map.addrs,
	       mr->frmr.map.npages * sizeof(u64));
	mr->frmr.active.npages = mr->frmr.map.npages;
	mr->frmr.active.shift = mr->frmr.map.shift;
	mr->attr.key = key;
	mr->attr.iova = ibmr->iova;
	mr->attr.length = ibmr->length;
	mr->attr.access = access & ~SROCE_ACC_OPTIONAL;
	mr->attr.state = SROCE_MR_VALID;
	ibmr->lkey = key;
	ibmr->rkey = key;
out:
	spin_unlock_bh(&mr->lock);
	return ret;
}

/**
 * sroce_mr_inv_begin - invalidate a key (LOCAL_INV, SEND_WITH_INV)
 * @sdev: the device
 * @pd: the PD of the invalidating QP
 * @qpn: for a SEND_WITH_INV the QP it arrived on, 0 for a LOCAL_INV
 * @key: a type 2B window's (sroce_mw_invalidate()) or a fast-reg MR's:
 *	 only a fast-reg MR of @pd whose key is exactly this can be
 *	 invalidated, user and DMA MRs cannot. An MR already invalid
 *	 under this key is invalidated again without error, as on rdma_rxe
 *	 and hardware: xprtrdma does it when a reply that invalidated the MR
 *	 remotely races the end of its RPC.
 * @mrp: with -EINPROGRESS, the MR, referenced, for sroce_mr_inv_finish()
 *
 * Every later check of @key fails. Returns 0 when no copy that passed the
 * check before is still running (the common case); -EINPROGRESS when some
 * are: they run on other CPUs, one packet each, and the caller must not
 * complete the invalidation (the consumer would reuse the pages under
 * them) before sroce_mr_inv_finish() is true; -EINVAL for a key that
 * cannot be invalidated. Never waits.
 */
int sroce_mr_inv_begin(struct sroce_dev *sdev, struct sroce_pd *pd, u32 qpn,
		       u32 key, struct sroce_mr **mrp)
{
	struct sroce_mr *mr = sroce_mr_get(sdev, key);
	int ret = -EINVAL;

	*mrp = NULL;
	if (!mr)
		return -EINVAL;
	if (mr->type == SROCE_MR_WINDOW) {
		ret = sroce_mw_invalidate(mr, pd, key, qpn);
		sroce_mr_put(mr);
		return ret;
	}
	if (mr->type == SROCE_MR_FAST_REG && mr->pd == pd) {
		spin_lock_bh(&mr->lock);
		if (mr->attr.key == key && mr->attr.state == SROCE_MR_VALID) {
			mr->attr.state = SROCE_MR_INVALID;
			WRITE_ONCE(mr->inv_pending, true);
			/*
			 * Pairs with sroce_mr_access_end(): we see the count
			 * at zero, or its last decrement sees inv_pending.
			 */
			smp_mb();
			ret = 0;
			if (atomic_read(&mr->copies))
				ret = -EINPROGRESS;
			else
				WRITE_ONCE(mr->inv_pending, false);
		} else if (mr->attr.key == key &&
			   mr->attr.state == SROCE_MR_INVALID) {
			/*
			 * Invalid already. If the copies of the first
			 * invalidation still run, this one waits for them too.
			 */
			ret = mr->inv_pending ? -EINPROGRESS : 0;
		}
		if (ret == -EINPROGRESS)
			mr->inv_waiters++;
		spin_unlock_bh(&mr->lock);
	}
	if (ret == -EINPROGRESS) {
		sroce_count(sdev, SROCE_CNT_INV_DEFERRED, 1);
		*mrp = mr;
		return ret;
	}
	sroce_mr_put(mr);
	return ret;
}

/*
 * Have the copies under the key sroce_mr_inv_begin() invalidated ended?
 * If so (true), this invalidation is done and @mr's reference gone; the
 * MR may be registered again once every invalidation that waited has
 * finished. Any context. No copy can start meanwhile: the key is invalid
 * and REG_MR refuses the MR while any waits, so the count only falls.
 */
bool sroce_mr_inv_finish(struct sroce_mr *mr)
{
	/* Acquire: the copies' last bytes are moved before we complete. */
	if (atomic_read_acquire(&mr->copies))
		return false;
	spin_lock_bh(&mr->lock);
	if (!WARN_ON_ONCE(!mr->inv_waiters) && !--mr->inv_waiters)
		WRITE_ONCE(mr->inv_pending, false);
	spin_unlock_bh(&mr->lock);
	sroce_mr_put(mr);
	return true;
}

/*
 * Reset and destroy of a QP whose engine holds an invalidation: wait for
 * the copies (short: one packet each, on other CPUs), then finish. Once
 * another invalidation of the key has finished, a REG_MR may have let
 * copies under the new key start: they end as quickly, and each that
 * ends at zero wakes us again (inv_pending stays while we wait).
 * Process context.
 */
void sroce_mr_inv_wait(struct sroce_mr *mr)
{
	while (!sroce_mr_inv_finish(mr))
		wait_var_event(&mr->copies, !atomic_read(&mr->copies));
}
