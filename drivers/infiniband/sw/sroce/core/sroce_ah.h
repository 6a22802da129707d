/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Address handles: sroce_ah.c. */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include "core/sroce_qp.h"

#define SROCE_MAX_AH		0x10000
/* AH numbers cycle through this range, so a stale one is rarely reused. */
#define SROCE_AH_NUM_MAX	0x00ffffff

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_pd *pd;
	u32 num;		/* in the device's table; what user WQEs name */
	struct sroce_av av;
	struct rdma_ah_attr attr;	/* for query_ah, without sgid_attr */
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/* The device's AH table; its lock is IRQ-safe (see sroce_ah.c). */
static inline void sroce_ah_table_init(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
}

static inline void sroce_ah_table_destroy(struct sroce_dev *sdev)
{
	WARN_ON(!xa_empty(&sdev->ahs));
	xa_destroy(&sdev->ahs);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);

/*
 * The address vector of AH number @num, into @av, if the AH exists and
 * belongs to @pd (IBTA: a UD QP sends only through AHs of its own PD).
 */
static inline int sroce_ah_get_av(struct sroce_dev *sdev, u32 num,
				  struct sroce_pd *pd, struct sroce_av *av)
{
	unsigned long flags;
	struct sroce_ah *ah;
	int ret = -EINVAL;

	xa_lock_irqsave(&sdev->ahs, flags);
	ah = xa_load(&sdev->ahs, num);
	if (ah && ah->pd == pd) {
		*av = ah->av;
		ret = 0;
	}
	xa_unlock_irqrestore(&sdev->ahs, flags);
	return ret;
}

#endif /* SROCE_AH_H */
