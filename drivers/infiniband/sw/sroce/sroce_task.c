// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the scheduler, which decides when and where a QP's engines run.
 * A pass takes the completer, the responder and the requester in turn.
 * Whoever finds work marks the QP's task (sroce_task.h): if it was idle,
 * the marker owns it and runs it at once (the doorbell, receive) or queues
 * its worker on the unbound sroce_wq (kicks); if someone owns it, that
 * owner passes again before it lets go. One owner at a time, so the
 * engines' state needs no lock; run_lock only keeps modify out of a pass.
 * The worker is for overflow: a budget used up, a task marked again and
 * again, work found where engines cannot run. Everything else in the
 * driver runs the engines through here.
 */
#include <linux/delay.h>

#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_task.h"

/* The caller owns the task: the worker goes on with it, at the tail. */
static void sroce_task_defer(struct sroce_qp *qp)
{
	/* Only an owner queues it, once per ownership. */
	WARN_ON_ONCE(!queue_work(sroce_wq, &qp->task.work));
}

void sroce_task_kick(struct sroce_qp *qp)
{
	if (sroce_task_mark(&qp->task))
		sroce_task_defer(qp);
}

/*
 * One pass over the engines, under run_lock. An engine that wants another
 * pass (it moved the QP to ERR, or stopped a flush early) marks the task.
 */
static void sroce_task_pass(struct sroce_qp *qp, int *budget)
{
	enum ib_qp_state state;

	if (READ_ONCE(qp->dead))
		return;
	state = sroce_qp_state(qp);
	switch (state) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		skb_queue_purge(&qp->req_fifo);
		skb_queue_purge(&qp->resp_fifo);
		return;
	case IB_QPS_ERR:
		skb_queue_purge(&qp->req_fifo);
		skb_queue_purge(&qp->resp_fifo);
		sroce_comp_halt(qp);
		/* Bounded like any pass: another pass comes back for more. */
		if (sroce_req_flush(qp, budget) || sroce_resp_flush(qp, budget))
			sroce_task_kick(qp);
		return;
	default:
		break;
	}
	sroce_comp_run(qp, budget);
	sroce_resp_run(qp, budget);
	/* A QP the completer or responder ended sends nothing more. */
	if (state != IB_QPS_RTR && sroce_qp_state(qp) == state) {
		sroce_req_run(qp, budget);
		/* What the requester sent waits for an answer from now on. */
		sroce_comp_arm(qp);
	}
}

/*
 * One dispatch, by the owner, with BH off: passes until nothing is
 * pending, then the task goes idle. A dispatch that uses its budget, or is
 * marked again SROCE_MAX_PASSES times, leaves the rest to the worker.
 *
 * No work is lost: a mark before the clearing of PENDING is seen by the
 * pass after it; a mark between the clearing and the release sets PENDING
 * again, so the release fails and the owner passes again; a mark after
 * the release finds the task idle and takes it. All three steps are fully
 * ordered, which also hands the engines' state from owner to owner.
 */
static void sroce_task_dispatch(struct sroce_qp *qp)
{
	struct sroce_task *t = &qp->task;
	int budget = SROCE_BUDGET, passes = 0, owned;

	for (;;) {
		atomic_fetch_andnot(SROCE_T_PENDING, &t->state);
		spin_lock(&qp->run_lock);
		sroce_task_pass(qp, &budget);
		spin_unlock(&qp->run_lock);
		if (budget <= 0)
			break;
		owned = SROCE_T_OWNED;
		if (atomic_try_cmpxchg(&t->state, &owned, 0))
			return;		/* idle: qp may be gone from here on */
		if (++passes >= SROCE_MAX_PASSES)
			break;
	}
	sroce_task_defer(qp);
}

/* The worker owns the task whenever it runs. */
static void sroce_task_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, task.work);

	local_bh_disable();
	sroce_task_dispatch(qp);
	local_bh_enable();
}

/*
 * Run the engines here and now, as a NIC would, without a scheduling
 * delay. If someone owns them already, the mark makes that owner pass
 * again instead. Process or softirq context.
 */
void sroce_task_run(struct sroce_qp *qp)
{
	if (!sroce_task_mark(&qp->task))
		return;
	local_bh_disable();
	sroce_task_dispatch(qp);
	local_bh_enable();
}

/* How deep this CPU is in engines that receive started (at most 1). */
static DEFINE_PER_CPU(int, sroce_rx_depth);

/*
 * Receive runs the engines itself, as a NIC's pipeline takes a packet
 * without a scheduling hop (a worker wake-up per hop doubled the round
 * trip). One level only: what an inline run sends to a QP of this host
 * comes back here and is only a kick, which bounds the stack: the QP's
 * owner passes again (a ping-pong's ACK to the QP whose run sent the
 * request), or else its worker runs it.
 */
void sroce_task_rx_run(struct sroce_qp *qp)
{
	if (!in_softirq() || this_cpu_read(sroce_rx_depth)) {
		sroce_task_kick(qp);
		return;
	}
	this_cpu_inc(sroce_rx_depth);
	sroce_task_run(qp);
	this_cpu_dec(sroce_rx_depth);
}

/* Wait until nobody owns the task: it went idle, its worker has run. */
static void sroce_task_wait_idle(struct sroce_qp *qp)
{
	struct sroce_task *t = &qp->task;

	for (;;) {
		flush_work(&t->work);
		if (!(atomic_read(&t->state) & SROCE_T_OWNED))
			return;
		/* An inline owner ends its dispatch or hands it to the worker. */
		usleep_range(10, 50);
	}
}

/*
 * Stop the engines (dead is set, so passes do nothing): on return nobody
 * runs them, their worker is idle and no timer is pending. Process context.
 */
void sroce_task_quiesce(struct sroce_qp *qp)
{
	sroce_task_wait_idle(qp);
	/* A pass that started before dead was set may have armed timers. */
	sroce_comp_stop(qp);
	/* A timer that fired meanwhile kicked. */
	sroce_task_wait_idle(qp);
}

void sroce_task_init(struct sroce_qp *qp)
{
	atomic_set(&qp->task.state, 0);
	spin_lock_init(&qp->run_lock);
	INIT_WORK(&qp->task.work, sroce_task_work);
}

/*
 * The engines' state back to what a QP in RESET has, the send queue
 * restarting at @sq_prod. The engines are stopped (sroce_task_quiesce()).
 */
void sroce_task_reset(struct sroce_qp *qp, u32 sq_prod)
{
	skb_queue_purge(&qp->req_fifo);
	skb_queue_purge(&qp->resp_fifo);
	sroce_resp_reset(qp);
	sroce_req_reset(qp, sq_prod);
	sroce_comp_reset(qp, sq_prod);
}
