// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the scheduler, which decides when and where a QP's engines run.
 * A pass takes the completer, the responder and the requester in turn,
 * under the QP's run_lock; the QP's work item (on the unbound sroce_wq)
 * makes passes for whoever kicks it, and the doorbell and receive make
 * one at once if nobody else is (sroce_task_run()). Everything else in the
 * driver runs the engines through here.
 */
#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_task.h"

void sroce_task_kick(struct sroce_qp *qp)
{
	if (!READ_ONCE(qp->dead))
		queue_work(sroce_wq, &qp->work);
}

/*
 * One pass over the engines, under run_lock. Returns true if they should
 * run again: out of budget, or an engine moved the QP to ERR.
 */
static bool sroce_task_pass(struct sroce_qp *qp)
{
	int budget = SROCE_BUDGET;
	enum ib_qp_state state;

	if (READ_ONCE(qp->dead))
		return false;
	state = sroce_qp_state(qp);
	switch (state) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		skb_queue_purge(&qp->req_fifo);
		skb_queue_purge(&qp->resp_fifo);
		return false;
	case IB_QPS_ERR:
		skb_queue_purge(&qp->req_fifo);
		skb_queue_purge(&qp->resp_fifo);
		sroce_comp_halt(qp);
		/* Bounded like any pass: the work item comes back for more. */
		if (sroce_req_flush(qp, &budget))
			return true;
		return sroce_resp_flush(qp, &budget);
	default:
		break;
	}
	sroce_comp_run(qp, &budget);
	sroce_resp_run(qp, &budget);
	/* A QP the completer or responder ended sends nothing more. */
	if (state != IB_QPS_RTR && sroce_qp_state(qp) == state) {
		sroce_req_run(qp, &budget);
		/* What the requester sent waits for an answer from now on. */
		sroce_comp_arm(qp);
	}
	return budget <= 0 || sroce_qp_state(qp) != state;
}

static void sroce_task_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, work);
	bool again;

	spin_lock_bh(&qp->run_lock);
	again = sroce_task_pass(qp);
	spin_unlock_bh(&qp->run_lock);
	if (again)
		sroce_task_kick(qp);
}

/*
 * Run the engines here and now if nobody is running them, as a NIC would,
 * without a scheduling delay; else leave it to the work item. Process or
 * softirq context only (the engines take BH locks).
 */
void sroce_task_run(struct sroce_qp *qp)
{
	bool again;

	if (!spin_trylock_bh(&qp->run_lock)) {
		/* The runner may be past its last look at what we added. */
		sroce_task_kick(qp);
		return;
	}
	again = sroce_task_pass(qp);
	spin_unlock_bh(&qp->run_lock);
	if (again)
		sroce_task_kick(qp);
}

/* How deep this CPU is in engines that receive started (at most 1). */
static DEFINE_PER_CPU(int, sroce_rx_depth);

/*
 * Receive runs the engines itself, as a NIC's pipeline takes a packet
 * without a scheduling hop (a worker wake-up per hop doubled the round
 * trip). One level only: what an inline run sends to a QP of this host
 * comes back here and is left to that QP's work item, which bounds the
 * stack.
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

/*
 * Stop the engines (dead is set): no run is under way and no timer fires
 * after this. Process context.
 */
void sroce_task_quiesce(struct sroce_qp *qp)
{
	/* A run that started before dead was set may arm timers. */
	cancel_work_sync(&qp->work);
	spin_lock_bh(&qp->run_lock);
	spin_unlock_bh(&qp->run_lock);
	sroce_comp_stop(qp);
	cancel_work_sync(&qp->work);
}

void sroce_task_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->run_lock);
	INIT_WORK(&qp->work, sroce_task_work);
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
