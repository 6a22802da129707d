// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the scheduler, which decides when and where the QPs' engines run.
 *
 * A QP has two tasks (sroce_task.h): a pass of the send task takes the
 * completer and then the requester, a pass of the receive task the
 * responder. Whoever finds work for one marks it: if someone owns the
 * task, that owner passes again before it lets go; if it was idle, the
 * marker owns it and places it on its CPU's run list, which the outermost
 * section on that CPU runs before it ends (the doorbell, receive from the
 * wire, and packets the engines deliver to QPs of this host), or, where
 * engines cannot run, queues its worker. One owner at a time, so the
 * engines' state needs no lock. Runs never nest: a mark inside a run only
 * puts a task on the list. Modify, reset and destroy take the task over
 * (pause): the owner hands it over at its next pass.
 *
 * The worker is for overflow only: a task that used its budget, was marked
 * again and again, or is left over when its section's budget is spent,
 * and marks from where no section can be open (hardirq, IRQs off, a
 * kernel post with preemption off outside a section). A same-host
 * ping-pong never waits for it, nor does a timeout: the completer's
 * timers (struct sroce_wake_timer) run the QP in their softirq.
 *
 * One more goes to a worker, on another CPU: the receive task of a QP on
 * this host that a stream one way feeds, marked where its sender posts
 * (sroce_task_away()), so that the receiving side runs beside the posting
 * one, as a NIC's receive pipeline runs beside its transmit one.
 */
#include <linux/delay.h>
#include <linux/sched/isolation.h>
#include <linux/wait_bit.h>

#include "sroce.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "engine/sroce_ooo.h"
#include "sched/sroce_task.h"

/*
 * Packets a QP's engines handle per dispatch (one turn of its runner)
 * before other QPs get a turn, and the passes it may make in it when work
 * keeps arriving; then its worker goes on, behind the others.
 */
#define SROCE_BUDGET		64
#define SROCE_MAX_PASSES	8

/*
 * What one section may spend over every task it runs, in packets (a pass
 * counts at least one). Beyond it, the tasks left go to their workers.
 */
#define SROCE_SECTION_BUDGET	256

DEFINE_PER_CPU(struct sroce_sched_cpu, sroce_sched);
struct workqueue_struct *sroce_wq;
/* Bound to a CPU, and ahead of the processes there (sroce_task_away()). */
static struct workqueue_struct *sroce_away_wq;

/*
 * The caller owns the task: a worker of @wq goes on with it, at the tail,
 * on @cpu (WORK_CPU_UNBOUND: where the queue likes).
 */
static void sroce_task_queue(struct sroce_task *t,
			     struct workqueue_struct *wq, int cpu)
{
	t->stats.worker_handoffs++;
	sroce_count(t->sdev, SROCE_CNT_WORKER_HANDOFFS, 1);
	/* Only an owner queues it, once per ownership. */
	WARN_ON_ONCE(!queue_work_on(cpu, wq, &t->work));
}

static void sroce_task_defer(struct sroce_task *t)
{
	sroce_task_queue(t, sroce_wq, WORK_CPU_UNBOUND);
}

/*
 * One pass of the receive task, by its owner: the responder. A flush cut
 * short by the budget marks the task for another pass.
 */
static void sroce_task_pass_recv(struct sroce_qp *qp, int *budget)
{
	switch (sroce_qp_state(qp)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		skb_queue_purge(&qp->req_fifo);
		return;
	case IB_QPS_ERR:
		skb_queue_purge(&qp->req_fifo);
		if (sroce_resp_flush(qp, budget))
			sroce_task_mark(&qp->rq_task);
		return;
	default:
		if (sroce_qp_is_ud(qp))
			sroce_ud_resp_run(qp, budget);
		else
			sroce_resp_run(qp, budget);
		sroce_cc_pass(qp, &qp->cc);
		return;
	}
}

/*
 * One pass of the send task, by its owner: the completer, then the
 * requester. The move to ERR marks both tasks (sroce_svc_error()).
 */
static void sroce_task_pass_send(struct sroce_qp *qp, int *budget)
{
	enum ib_qp_state state;

	state = sroce_qp_state(qp);
	switch (state) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		skb_queue_purge(&qp->resp_fifo);
		return;
	case IB_QPS_ERR:
		skb_queue_purge(&qp->resp_fifo);
		sroce_comp_halt(qp);
		hrtimer_try_to_cancel(&qp->cc.rp.pace);
		/* Bounded like any pass: another pass comes back for more. */
		if (sroce_req_flush(qp, budget))
			sroce_task_mark(&qp->sq_task);
		return;
	default:
		break;
	}
	sroce_comp_run(qp, budget);
	sroce_cc_send_pass(qp, &qp->cc);
	/* A QP the completer ended sends nothing more. */
	if (state != IB_QPS_RTR && sroce_qp_state(qp) == state) {
		sroce_req_run(qp, budget);
		/* What the requester sent waits for an answer from now on. */
		sroce_comp_arm(qp);
	}
}

/*
 * One dispatch, by the owner, in a section: passes until nothing is
 * pending, then the task goes idle. A dispatch that uses its budget, is
 * marked again SROCE_MAX_PASSES times, or finds its section's budget spent
 * leaves the rest to the worker. Why no mark is lost, and how the engines'
 * state passes from owner to owner: task_state.h.
 */
static void sroce_task_dispatch(struct sroce_task *t, struct sroce_sched_cpu *c)
{
	struct sroce_qp *qp = t->qp;
	struct sroce_dev *sdev = qp->sdev;
	int budget = SROCE_BUDGET, passes = 0, left;
	enum sroce_counter why;

	for (;;) {
		if (!sroce_state_pass(&t->state)) {
			/* The pauser's stack: t may be gone after this. */
			complete(READ_ONCE(t->handed));
			return;
		}
		/* Counted as owner: once released, qp may be gone. */
		if (!passes++) {
			t->stats.dispatches++;
			sroce_count(sdev, SROCE_CNT_DISPATCHES, 1);
		}
		t->stats.passes++;
		sroce_count(sdev, SROCE_CNT_PASSES, 1);
		left = budget;
		/* The rule all engine state rests on: passes never overlap. */
		if (IS_ENABLED(CONFIG_PROVE_LOCKING))
			WARN_ON_ONCE(atomic_xchg(&t->in_pass, 1));
		if (t->recv)
			sroce_task_pass_recv(qp, &budget);
		else
			sroce_task_pass_send(qp, &budget);
		if (IS_ENABLED(CONFIG_PROVE_LOCKING))
			atomic_set(&t->in_pass, 0);
		c->budget -= max(left - budget, 1);
		if (budget <= 0) {
			t->stats.budget_exhausted++;
			why = SROCE_CNT_BUDGET_EXHAUSTED;
			c->stream = true;
			break;
		}
		/* A count to wait for: the worker waits (inv_deferred). */
		if (READ_ONCE(t->wait_zero)) {
			why = SROCE_CNT_NUM;
			break;
		}
		if (sroce_state_release(&t->state))
			return;		/* idle: qp may be gone from here on */
		if (passes >= SROCE_MAX_PASSES) {
			why = SROCE_CNT_PASS_LIMIT;
			break;
		}
		if (c->budget <= 0) {
			why = SROCE_CNT_SECTION_BUDGET;
			break;
		}
	}
	if (why != SROCE_CNT_NUM)
		sroce_count(sdev, why, 1);
	sroce_task_defer(t);
}

/*
 * The CPU for a stream's receive task: an online one other than this,
 * that the poster (current: a post section is in task context) may run
 * on and that is not isolated, from a start that follows the QP number so
 * that streams spread. -1: none, as for a poster pinned to this CPU.
 */
static int sroce_task_away_cpu(const struct sroce_qp *qp)
{
	int this = smp_processor_id(), cpu;

	if (num_online_cpus() < 2)
		return -1;
	for_each_cpu_wrap(cpu, current->cpus_ptr,
			  (this + 1 + qp->ibqp.qp_num) % nr_cpu_ids) {
		if (cpu != this && cpu_online(cpu) &&
		    housekeeping_cpu(cpu, HK_TYPE_WQ) &&
		    housekeeping_cpu(cpu, HK_TYPE_DOMAIN))
			return cpu;
	}
	return -1;
}

/*
 * The receive task of the QP that a stream one way goes to
 * (sroce_req_stream(): WQEs in a row that nobody answered or waited for),
 * marked in a section that a post opened (the doorbell, a kernel post:
 * the sender's own context), is the caller's to run: it goes to a worker
 * on another CPU instead, so the sender's next posts overlap this one's
 * receive. That worker then runs what the receive marks (the sender's
 * completer, its next requests) in its own section while the stream
 * lasts, and the sender's doorbells only mark. Its queue is
 * high-priority: a busy-polling consumer on that CPU would otherwise get
 * half of it, and each packet would wait a time slice. The budgets bound
 * it as any section (SROCE_SECTION_BUDGET). A ping-pong or a lockstep
 * never comes here: one wake-up per message would cost more than the
 * receive.
 */
static bool sroce_task_away(struct sroce_task *t, struct sroce_sched_cpu *c)
{
	int cpu;

	if (!t->recv || !c->post || !c->away ||
	    t->qp->ibqp.qp_num != c->away_qpn || sroce_qp_is_ud(t->qp))
		return false;
	cpu = sroce_task_away_cpu(t->qp);
	if (cpu < 0)
		return false;
	sroce_count(t->sdev, SROCE_CNT_STREAM_HANDOFFS, 1);
	sroce_task_queue(t, sroce_away_wq, cpu);
	return true;
}

/*
 * The outermost section ends: run what was marked on this CPU. Once a
 * dispatch has used its budget (a stream), the tasks it marked, such as
 * the receive task of a QP on this host that the stream goes to, go to
 * their workers: they run on another CPU, in parallel with the stream's
 * own worker, as a NIC's receive pipeline runs beside its transmit one.
 * Below that load they run here, after the dispatch, with no wake-up.
 */
static void sroce_sched_drain(struct sroce_sched_cpu *c)
{
	struct sroce_task *t;

	while ((t = list_first_entry_or_null(&c->runnable, struct sroce_task,
					     node))) {
		list_del_init(&t->node);
		if (sroce_task_away(t, c))
			continue;
		if (c->stream) {
			sroce_task_defer(t);
		} else if (c->budget > 0) {
			sroce_task_dispatch(t, c);
		} else {
			sroce_count(t->sdev, SROCE_CNT_SECTION_BUDGET, 1);
			sroce_task_defer(t);
		}
	}
}

/* Open a section. Process or softirq context, IRQs on. */
void sroce_sched_enter(void)
{
	struct sroce_sched_cpu *c;

	local_bh_disable();
	c = this_cpu_ptr(&sroce_sched);
	if (!c->depth++) {
		c->budget = SROCE_SECTION_BUDGET;
		c->stream = false;
		c->post = false;
		c->away = false;
	}
}

/*
 * Close it. The outermost runs the tasks marked in it, and those they
 * mark, before it lets BH (and the next section) in.
 */
void sroce_sched_leave(void)
{
	struct sroce_sched_cpu *c = this_cpu_ptr(&sroce_sched);

	if (c->depth == 1)
		sroce_sched_drain(c);
	c->depth--;
	local_bh_enable();
}

/*
 * The worker owns the task whenever it runs: first on its section's list.
 * A pass that asked to wait for a count (sroce_svc_inv_drained()) is
 * followed by the worker only, which sleeps here, in process context,
 * until the count is zero; the count is of copies, each one packet on
 * another CPU with BH off, so the wait is short, and a pauser that waits
 * for the hand-over waits for it too.
 */
/*
 * Fault injection for tests (debugfs fault_inv_wake_ms): a responder whose
 * invalidation waited sleeps before its next pass, so that the requester's
 * invalidation of the same key, a REG_MR and new copies can come first.
 */
static void sroce_task_fault_wake(struct sroce_task *t)
{
	u32 ms = READ_ONCE(t->sdev->fault_inv_wake_ms);

	if (unlikely(ms) && t->recv)
		msleep(min(ms, 10000U));
}

static void sroce_task_work(struct work_struct *work)
{
	struct sroce_task *t = container_of(work, struct sroce_task, work);
	atomic_t *cnt = READ_ONCE(t->wait_zero);

	if (cnt) {
		wait_var_event(cnt, !atomic_read(cnt));
		WRITE_ONCE(t->wait_zero, NULL);
		sroce_task_fault_wake(t);
	}

	sroce_sched_enter();
	list_add_tail(&t->node, this_cpu_ptr(&sroce_sched.runnable));
	sroce_sched_leave();
}

/*
 * Run the engines now, as a NIC would, without a scheduling delay: in a
 * section of our own, or in the one open here. If someone owns them
 * already, the mark makes that owner pass again instead. From hardirq or
 * with IRQs off, no section can open: the worker runs them.
 */
void sroce_task_kick(struct sroce_task *t)
{
	if (in_hardirq() || irqs_disabled()) {
		sroce_task_mark(t);
		return;
	}
	sroce_sched_enter();
	sroce_task_mark(t);
	sroce_sched_leave();
}

/*
 * A post's doorbell (libsroce's, or a kernel consumer's post): as
 * sroce_task_kick(), and the section it opens is the sender's, where a
 * stream's receive may leave for another CPU (sroce_task_away()).
 */
void sroce_task_post(struct sroce_task *t)
{
	struct sroce_sched_cpu *c;

	if (in_hardirq() || irqs_disabled()) {
		sroce_task_mark(t);
		return;
	}
	sroce_sched_enter();
	c = this_cpu_ptr(&sroce_sched);
	/* In task context: sroce_task_away_cpu() reads the poster's mask. */
	if (c->depth == 1 && in_task())
		c->post = true;
	sroce_task_mark(t);
	sroce_sched_leave();
}

static void sroce_wake_timer_fn(struct timer_list *timer)
{
	struct sroce_wake_timer *w = from_timer(w, timer, timer);

	/* Before the mark: the owner's pass reads it after its own start. */
	WRITE_ONCE(w->fired, true);
	sroce_task_kick(w->task);
}

void sroce_wake_timer_init(struct sroce_wake_timer *w, struct sroce_task *t)
{
	w->fired = false;
	w->armed = false;
	w->task = t;
	timer_setup(&w->timer, sroce_wake_timer_fn, 0);
}

/*
 * Take the task over from its owner, or at once if it is idle: no pass
 * runs until sroce_task_resume(). The owner hands over at its next pass
 * (a pass in progress, a run list its section drains, a queued worker).
 */
static void sroce_task_pause(struct sroce_task *t)
{
	DECLARE_COMPLETION_ONSTACK(handed);

	WRITE_ONCE(t->handed, &handed);
	if (!sroce_state_pause(&t->state))
		return;
	/* A pass is a budget at most; a second is a bug, not a wait. */
	if (WARN_ONCE(!wait_for_completion_timeout(&handed, HZ),
		      "sroce: a QP's engines kept it over 1 s\n"))
		wait_for_completion(&handed);
}

/* Give the task back; what was marked meanwhile runs now, here. */
static void sroce_task_resume(struct sroce_task *t)
{
	if (sroce_state_resume(&t->state))
		return;
	sroce_sched_enter();
	list_add_tail(&t->node, this_cpu_ptr(&sroce_sched.runnable));
	sroce_sched_leave();
}

void sroce_tasks_pause(struct sroce_qp *qp)
{
	sroce_task_pause(&qp->rq_task);
	sroce_task_pause(&qp->sq_task);
}

void sroce_tasks_resume(struct sroce_qp *qp)
{
	sroce_task_mark(&qp->rq_task);
	sroce_task_mark(&qp->sq_task);
	sroce_task_resume(&qp->rq_task);
	sroce_task_resume(&qp->sq_task);
}

/*
 * Pause the engines and stop their timers: on return no pass, timer or
 * worker runs, and marks only set PENDING. Process context.
 */
void sroce_task_stop(struct sroce_qp *qp)
{
	sroce_tasks_pause(qp);
	/* A timer that fires now marks, nothing more. */
	sroce_comp_stop(qp);
	sroce_ooo_stop(qp);
	hrtimer_cancel(&qp->cc.rp.pace);
	/* A worker that handed over may still be on its way out. */
	flush_work(&qp->rq_task.work);
	flush_work(&qp->sq_task.work);
}

static void sroce_task_init_one(struct sroce_task *t, struct sroce_qp *qp,
				bool recv)
{
	atomic_set(&t->state, 0);
	atomic_set(&t->in_pass, 0);
	t->qp = qp;
	t->recv = recv;
	t->sdev = qp->sdev;
	INIT_LIST_HEAD(&t->node);
	INIT_WORK(&t->work, sroce_task_work);
	t->wait_zero = NULL;
}

/* The pacing timer of congestion control: the requester may send again. */
static enum hrtimer_restart sroce_pace_fn(struct hrtimer *timer)
{
	struct sroce_qp *qp = container_of(timer, struct sroce_qp,
					   cc.rp.pace);

	sroce_task_kick(&qp->sq_task);
	return HRTIMER_NORESTART;
}

void sroce_task_init(struct sroce_qp *qp)
{
	sroce_task_init_one(&qp->sq_task, qp, false);
	sroce_task_init_one(&qp->rq_task, qp, true);
	hrtimer_init(&qp->cc.rp.pace, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->cc.rp.pace.function = sroce_pace_fn;
}

int sroce_sched_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(&per_cpu_ptr(&sroce_sched, cpu)->runnable);
	/*
	 * High priority, as a NIC driver's NAPI and rdma_rxe's tasklets run
	 * ahead of processes: at the default priority a stream's worker got
	 * half a CPU beside a consumer's busy poll. WQ_SYSFS gives root the
	 * knobs (/sys/devices/virtual/workqueue/sroce/: nice, cpumask).
	 */
	sroce_wq = alloc_workqueue("sroce",
				   WQ_UNBOUND | WQ_HIGHPRI | WQ_SYSFS |
				   WQ_MEM_RECLAIM, 0);
	if (!sroce_wq)
		return -ENOMEM;
	sroce_away_wq = alloc_workqueue("sroce_away",
					WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!sroce_away_wq) {
		destroy_workqueue(sroce_wq);
		return -ENOMEM;
	}
	return 0;
}

/* Every QP is gone: the run lists are empty, no worker is queued. */
void sroce_sched_exit(void)
{
	destroy_workqueue(sroce_away_wq);
	destroy_workqueue(sroce_wq);
}

/*
 * The engines' state back to what a QP in RESET has, the send queue
 * restarting at @sq_prod. The engines are stopped (sroce_task_stop()).
 */
void sroce_task_reset(struct sroce_qp *qp, u32 sq_prod)
{
	WRITE_ONCE(qp->sq_task.wait_zero, NULL);
	WRITE_ONCE(qp->rq_task.wait_zero, NULL);
	skb_queue_purge(&qp->req_fifo);
	skb_queue_purge(&qp->resp_fifo);
	sroce_resp_reset(qp);
	sroce_req_reset(qp, sq_prod);
	sroce_comp_reset(qp, sq_prod);
}
