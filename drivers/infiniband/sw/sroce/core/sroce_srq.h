/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared receive queues: sroce_srq.c (the verbs) and sroce_rq.c (the
 * responders' take). An SRQ is a receive ring like a QP's RQ, with many
 * consumers: the responders of every QP attached, which may run on
 * several CPUs at once, so the consumer side has a lock.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include "sroce.h"
#include "objects/sroce_queue.h"

#define SROCE_MAX_SRQ		0x4000

struct sroce_srq {
	struct ib_srq ibsrq;
	bool is_user;
	u32 max_sge;
	/* Posters produce under prod_lock (kernel consumers only). */
	spinlock_t prod_lock;
	struct sroce_queue rq;
	/* The responders consume under cons_lock, BH off. */
	spinlock_t cons_lock;
	u32 cons;		/* ring index: next WQE to take */
	/* Armed when not 0: the limit event fires below it, once. */
	u32 limit;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

#endif /* SROCE_SRQ_H */
