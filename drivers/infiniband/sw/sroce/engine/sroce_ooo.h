/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Selective repeat's responder half: requests kept past a gap (sroce_ooo.c). */
#ifndef SROCE_OOO_H
#define SROCE_OOO_H

#include <linux/skbuff.h>

struct sroce_qp;

enum sroce_ooo_res {
	SROCE_OOO_NO,		/* not kept: the IBTA's way */
	SROCE_OOO_KEPT,		/* kept: the skb is the store's */
	SROCE_OOO_HAD,		/* kept before: this copy is not needed */
};

enum sroce_ooo_res sroce_ooo_arrive(struct sroce_qp *qp, struct sk_buff *skb,
				    u32 psn, u32 d, u32 npsn);
struct sk_buff *sroce_ooo_take(struct sroce_qp *qp);
void sroce_ooo_learn(struct sroce_qp *qp, bool sr);
void sroce_ooo_age(struct sroce_qp *qp);
void sroce_ooo_stop(struct sroce_qp *qp);
void sroce_ooo_purge(struct sroce_qp *qp);
void sroce_ooo_free(struct sroce_qp *qp);

#endif
