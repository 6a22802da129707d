/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The scheduler of a QP's engines: sroce_task.c. */
#ifndef SROCE_TASK_H
#define SROCE_TASK_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/workqueue.h>

/*
 * A QP's run state. Idle (0): nobody runs the engines; the next mark takes
 * the task. OWNED: exactly one context makes the next pass: an inline
 * runner, or the worker it queued. OWNED | PENDING: work arrived that the
 * owner has not looked at yet; it passes again before it lets go.
 */
#define SROCE_T_OWNED		BIT(0)
#define SROCE_T_PENDING		BIT(1)

struct sroce_task {
	atomic_t state;			/* SROCE_T_* */
	struct work_struct work;	/* the worker, queued by an owner only */
};

struct sroce_qp;

/*
 * Work for the engines (a FIFO entry, a ring index, a timer flag) was
 * published before this. True: the task was idle and the caller owns it
 * now, and must run it or queue its worker. False: its owner passes again
 * and sees the work. Any context.
 */
static inline bool sroce_task_mark(struct sroce_task *t)
{
	/* Fully ordered: pairs with the owner's clearing of PENDING. */
	return !(atomic_fetch_or(SROCE_T_PENDING | SROCE_T_OWNED, &t->state) &
		 SROCE_T_OWNED);
}

void sroce_task_init(struct sroce_qp *qp);
/* Work arrived: the owner or the worker runs the engines. Any context. */
void sroce_task_kick(struct sroce_qp *qp);
/* Work arrived: run the engines here unless someone owns them. IRQs on. */
void sroce_task_run(struct sroce_qp *qp);
/* Receive admitted a packet: run here, one level deep at most. */
void sroce_task_rx_run(struct sroce_qp *qp);
void sroce_task_quiesce(struct sroce_qp *qp);
void sroce_task_reset(struct sroce_qp *qp, u32 sq_prod);

#endif /* SROCE_TASK_H */
