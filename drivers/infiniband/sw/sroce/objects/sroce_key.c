// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the key table, which MRs (sroce_mr.c) and memory windows
 * (sroce_mw.c) share: an lkey or rkey is a slot of it. Lookups run under
 * RCU and take a reference with refcount_inc_not_zero(), so a lookup
 * racing dereg gets either a reference that dereg waits for or nothing.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "sroce.h"

void sroce_mr_table_init(struct sroce_dev *sdev)
{
	struct sroce_mr_table *t = &sdev->mrs;

	xa_init_flags(&t->xa, XA_FLAGS_ALLOC);
	/* A random start, so keys say nothing about a device's history. */
	t->next = get_random_u32() & SROCE_KEY_INDEX_MAX;
	atomic_set(&t->variant, get_random_u32());
}

/*
 * From dealloc_driver, also for a device that failed before init: the
 * core has destroyed every MR by then, and an empty table holds nothing.
 */
void sroce_mr_table_destroy(struct sroce_dev *sdev)
{
	if (WARN_ON(!xa_empty(&sdev->mrs.xa)))
		xa_destroy(&sdev->mrs.xa);
}

/* libsroce sends no driver data with MR commands and expects none back. */
int sroce_mr_udata_ok(struct ib_udata *udata)
{
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

struct sroce_mr *sroce_mr_alloc(struct sroce_pd *pd, enum sroce_mr_type type)
{
	struct sroce_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return NULL;
	mr->pd = pd;
	mr->type = type;
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	atomic_set(&mr->copies, 0);
	init_completion(&mr->done);
	return mr;
}

/*
 * Reserve an index first, store the MR last: a lookup never sees an MR
 * without its key, and xa_store() publishes it with release semantics.
 */
int sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	struct sroce_mr_table *t = &sdev->mrs;
	u32 index;
	int ret;

	ret = xa_alloc_cyclic(&t->xa, &index, NULL,
			      XA_LIMIT(1, SROCE_KEY_INDEX_MAX), &t->next,
			      GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -ENOMEM : ret;
	mr->index = index;
	mr->attr.key = sroce_key_make(index, atomic_inc_return(&t->variant));
	mr->ibmr.lkey = mr->attr.key;
	mr->ibmr.rkey = mr->attr.key;
	ret = xa_err(xa_store(&t->xa, index, mr, GFP_KERNEL));
	if (ret)
		xa_erase(&t->xa, index);
	return ret;
}

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mrs.xa, sroce_key_index(key));
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (mr && refcount_dec_and_test(&mr->ref))
		complete(&mr->done);
}
