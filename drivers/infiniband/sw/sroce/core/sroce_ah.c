// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: address handles, the destinations of UD sends.
 *
 * An AH is its address vector, resolved once when it is created. Kernel
 * consumers name the AH in the work request, and posting copies its
 * vector into the WQE then (the MAD layer may destroy an AH as soon as it
 * cancels a send). A libsroce WQE in shared memory can carry only a
 * number: each AH has one in the device's table, and the requester looks
 * it up when it takes the WQE, under the table's lock, so that a handle
 * destroyed meanwhile fails the WQE instead of being read after its free.
 *
 * create_ah and destroy_ah may be called where nothing may sleep, even
 * with interrupts off: ib_cm makes and frees the AH of each MAD it sends
 * under a lock taken with spin_lock_irq(). So the table allocates
 * atomically there and its lock is IRQ-safe (a _bh unlock there would run
 * softirqs, which turn interrupts back on inside the caller's section).
 */
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "core/sroce_ah.h"
#include "core/sroce_qp.h"
#include "core/sroce_verbs.h"
#include "net/sroce_net.h"

/* No lookup holds @ah once this returns: they copy under the lock. */
static void sroce_ah_erase(struct sroce_dev *sdev, struct sroce_ah *ah)
{
	unsigned long flags;

	xa_lock_irqsave(&sdev->ahs, flags);
	__xa_erase(&sdev->ahs, ah->num);
	xa_unlock_irqrestore(&sdev->ahs, flags);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	unsigned long flags;
	bool sleep = init->flags & RDMA_CREATE_AH_SLEEPABLE;
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_create_ah_resp resp = {};
	struct sroce_ah *ah = to_sah(ibah);
	int ret;

	if (udata) {
		ret = sroce_check_udata(udata, sizeof(resp));
		if (ret)
			return ret;
	}
	ret = sroce_av_resolve(init->ah_attr, &ah->av);
	if (ret)
		return ret;
	ah->pd = to_spd(ibah->pd);
	ah->attr = *init->ah_attr;
	/* The core keeps its own reference on the GID entry (ibah). */
	ah->attr.grh.sgid_attr = NULL;

	if (atomic_inc_return(&sdev->num_ah) >
	    sroce_pool_limit(SROCE_MAX_AH, !!udata)) {
		ret = -ENOMEM;
		goto err;
	}
	if (sleep) {
		ret = xa_alloc_cyclic_irq(&sdev->ahs, &ah->num, ah,
					  XA_LIMIT(1, SROCE_AH_NUM_MAX),
					  &sdev->ah_next, GFP_KERNEL);
	} else {
		xa_lock_irqsave(&sdev->ahs, flags);
		ret = __xa_alloc_cyclic(&sdev->ahs, &ah->num, ah,
					XA_LIMIT(1, SROCE_AH_NUM_MAX),
					&sdev->ah_next, GFP_ATOMIC);
		xa_unlock_irqrestore(&sdev->ahs, flags);
	}
	if (ret < 0)
		goto err;
	if (udata) {
		resp.ah_num = ah->num;
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			sroce_ah_erase(sdev, ah);
			goto err;
		}
	}
	return 0;
err:
	atomic_dec(&sdev->num_ah);
	return ret;
}

int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);

	sroce_ah_erase(sdev, to_sah(ibah));
	atomic_dec(&sdev->num_ah);
	return 0;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_sah(ibah)->attr;
	return 0;
}
