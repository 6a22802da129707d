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
 * create_ah and destroy_ah may be called where nothing may sleep (the CM
 * answers a MAD with an AH made from its work completion), so the table
 * allocates atomically there and its lock is BH-safe: the requester takes
 * it in its section.
 */
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_qp.h"

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
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

	if (atomic_inc_return(&sdev->num_ah) > SROCE_MAX_AH) {
		ret = -ENOMEM;
		goto err;
	}
	ret = xa_alloc_cyclic_bh(&sdev->ahs, &ah->num, ah,
				 XA_LIMIT(1, SROCE_AH_NUM_MAX), &sdev->ah_next,
				 sleep ? GFP_KERNEL : GFP_ATOMIC);
	if (ret < 0)
		goto err;
	if (udata) {
		resp.ah_num = ah->num;
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			xa_erase_bh(&sdev->ahs, ah->num);
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
	struct sroce_ah *ah = to_sah(ibah);

	/* No lookup holds it once this returns: they copy under the lock. */
	xa_erase_bh(&sdev->ahs, ah->num);
	atomic_dec(&sdev->num_ah);
	return 0;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_sah(ibah)->attr;
	return 0;
}
