/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The scheduler of the QPs' engines: sroce_task.c. */
#ifndef SROCE_TASK_H
#define SROCE_TASK_H

#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "obs/sroce_counters.h"
#include "model/task_state.h"

/*
 * What the scheduler did with one QP, for debugfs: written by the owner
 * only (one at a time), read without a lock.
 */
struct sroce_task_stats {
	u64 dispatches;		/* turns, from a run list or the worker */
	u64 passes;
	u64 budget_exhausted;	/* turns that used SROCE_BUDGET */
	u64 worker_handoffs;	/* times its worker was queued */
};

/*
 * A run state (task_state.h) for one side of a QP. A QP has two tasks:
 * the send side (completer and requester: they share the send queue) and
 * the receive side (the responder), so that a peer's request and the
 * QP's own posts are served on two CPUs at once, as a NIC's receive and
 * transmit pipelines are. The owner is the section that has the task on
 * its CPU's run list, or the task's worker.
 */
struct sroce_task {
	sroce_state_t state;		/* SROCE_T_* */
	/* Its QP, and its engines: completer and requester, or responder. */
	struct sroce_qp *qp;
	bool recv;
	struct list_head node;		/* on a CPU's run list while it owns it */
	struct work_struct work;	/* the worker, queued by an owner only */
	/* The pauser's, on its stack; set before it asks (SROCE_T_PAUSE). */
	struct completion *handed;
	struct sroce_dev *sdev;		/* whose counters it adds to */
	struct sroce_task_stats stats;
	/*
	 * Set by a pass, owner only: run no more passes until this count is
	 * zero (copies under a key being invalidated). The worker sleeps on
	 * it (wait_var_event()), clears it, then runs the task.
	 */
	atomic_t *wait_zero;
	/* A pass runs (lockdep kernels only: sroce_task_dispatch()). */
	atomic_t in_pass;
};

/*
 * A section: a stretch of one CPU, BH off, in which engines may run. Tasks
 * marked inside it go on the CPU's run list, and the outermost section
 * runs them before it ends, so runs never nest. Touched with BH off only,
 * by this CPU: no lock.
 */
struct sroce_sched_cpu {
	unsigned int depth;		/* sections open on this CPU */
	int budget;			/* what the outermost may still spend */
	bool stream;			/* a dispatch in it used its budget */
	bool post;			/* opened by a post (sroce_task_post()) */
	bool away;			/* a requester in it streams one way */
	u32 away_qpn;			/* to this QP */
	struct list_head runnable;	/* tasks this CPU owns and will run */
};

DECLARE_PER_CPU(struct sroce_sched_cpu, sroce_sched);
/* The workers' queue: unbound, so a worker runs wherever a CPU is free. */
extern struct workqueue_struct *sroce_wq;

/* Is a section open here (and is this its context)? */
static inline bool sroce_sched_in_section(void)
{
	/* BH off first: then this CPU's depth is stable and ours to read. */
	return softirq_count() && !in_hardirq() &&
	       this_cpu_read(sroce_sched.depth);
}

/*
 * The caller took an idle task: it goes on this CPU's run list if a
 * section is open here, else (no section; hardirq; IRQs off) to its worker.
 * Inline, so that receive does not call into the scheduler's file.
 */
static inline void sroce_task_place(struct sroce_task *t)
{
	if (irqs_disabled() || !sroce_sched_in_section()) {
		t->stats.worker_handoffs++;
		sroce_count(t->sdev, SROCE_CNT_WORKER_HANDOFFS, 1);
		/* Only an owner queues the worker, once per ownership. */
		WARN_ON_ONCE(!queue_work(sroce_wq, &t->work));
		return;
	}
	sroce_count(t->sdev, SROCE_CNT_RUNLIST_HANDOFFS, 1);
	list_add_tail(&t->node, this_cpu_ptr(&sroce_sched.runnable));
}

/*
 * The requester of the pass that runs here sends a stream one way to QP
 * @qpn: its receive task, if on this host, goes to another CPU
 * (sroce_task_away()). In a section; from a pass.
 */
static inline void sroce_sched_hint_stream(u32 qpn)
{
	if (sroce_sched_in_section()) {
		this_cpu_write(sroce_sched.away, true);
		this_cpu_write(sroce_sched.away_qpn, qpn);
	}
}

/*
 * Work for the engines (a FIFO entry, a ring index, a timer flag) was
 * published before this: make sure a pass sees it. If someone owns the
 * task, the owner passes again; else it is placed, to run at the end of
 * the section or in its worker. Any context; never runs engines itself.
 */
static inline void sroce_task_mark(struct sroce_task *t)
{
	if (sroce_state_mark(&t->state))
		sroce_task_place(t);
}

/*
 * A timer that wakes a task: on expiry it sets fired and runs the task
 * (in the timer softirq, in a section of its own). Its engine arms and
 * deletes it, and reads and clears fired, within a pass.
 *
 * A deadline that moves with every packet (a retransmission timeout)
 * uses it lazily instead: sroce_wake_timer_due() records the deadline and
 * moves the timer only to bring it earlier, sroce_wake_timer_off() only
 * forgets the deadline, and the pass that finds it fired asks
 * sroce_wake_timer_expired(), which starts it again for a deadline that
 * moved later. A timer base lock per packet becomes one per expiry.
 */
struct sroce_wake_timer {
	struct timer_list timer;
	bool fired;
	bool armed;		/* lazy use: due is a deadline */
	unsigned long due;	/* in jiffies */
	struct sroce_task *task;
};

static inline void sroce_wake_timer_due(struct sroce_wake_timer *w,
					unsigned long when)
{
	w->due = when;
	w->armed = true;
	if (!timer_pending(&w->timer) ||
	    time_before(when, READ_ONCE(w->timer.expires)))
		mod_timer(&w->timer, when);
}

/* The timer may still fire once: its pass finds nothing armed. */
static inline void sroce_wake_timer_off(struct sroce_wake_timer *w)
{
	w->armed = false;
}

static inline bool sroce_wake_timer_expired(struct sroce_wake_timer *w)
{
	if (!READ_ONCE(w->fired))
		return false;
	WRITE_ONCE(w->fired, false);
	if (!w->armed)
		return false;
	if (time_before(jiffies, w->due)) {
		mod_timer(&w->timer, w->due);
		return false;
	}
	w->armed = false;
	return true;
}

struct sroce_qp;

int sroce_sched_init(void);
void sroce_sched_exit(void);
void sroce_sched_enter(void);
void sroce_sched_leave(void);
void sroce_task_init(struct sroce_qp *qp);
void sroce_wake_timer_init(struct sroce_wake_timer *w, struct sroce_task *t);
/* Work arrived: run the engines now, here if the context allows. */
void sroce_task_kick(struct sroce_task *t);
/* The same for a post's send task: the sender's own context. */
void sroce_task_post(struct sroce_task *t);
/* Keep both tasks' engines out (modify): process context, may sleep. */
void sroce_tasks_pause(struct sroce_qp *qp);
/* Give both back, marked: the first pass in the new state runs. */
void sroce_tasks_resume(struct sroce_qp *qp);
/* Pause, and no timer or worker is left running (reset, destroy). */
void sroce_task_stop(struct sroce_qp *qp);
void sroce_task_reset(struct sroce_qp *qp, u32 sq_prod);

#endif /* SROCE_TASK_H */
