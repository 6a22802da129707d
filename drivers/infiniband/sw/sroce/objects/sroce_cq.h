/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "objects/sroce_queue.h"

struct sroce_cq {
	struct ib_cq ibcq;
	/* Serializes producers (engines), kernel polling and resize. */
	spinlock_t lock;
	/*
	 * One resize at a time, from the new ring to the reply: the uverbs
	 * core holds the CQ only for reading, so two can meet.
	 */
	struct mutex resize_mutex;
	struct sroce_queue q;
	bool is_user;
	bool stamp;	/* CQEs carry their completion time */
	/* Set on the first CQE that did not fit; the CQ stays in error. */
	bool overflowed;
	/* Kernel CQs: the consumer index (q.own is the producer's). */
	u32 kcons;
	/*
	 * The arm value last acted on. The ring's kern_flag only mirrors it:
	 * the kernel never trusts what userspace can rewrite.
	 */
	u32 arm_seen;
	/*
	 * A kernel CQ's interrupt: the completion handler runs on its
	 * vector's CPU (sroce_cq_interrupt()); irq_inflight counts the
	 * calls queued and not yet returned, for destroy to wait on;
	 * irq_queued (bit 0) owns irq_csd from the queueing of a call to
	 * the start of its handler, so that only one poster queues it.
	 * Under lock: the CQEs since the last interrupt, and the count of
	 * interrupts that would not go to the vector's CPU.
	 */
	call_single_data_t irq_csd;
	unsigned long irq_queued;
	atomic_t irq_inflight;
	u32 irq_cqes;
	u32 irq_probe;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_arg *arg);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  struct ib_qp *qp, bool solicited, u32 *pos);
bool sroce_cq_taken(struct sroce_cq *cq, u32 pos);

#endif /* SROCE_CQ_H */
