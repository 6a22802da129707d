/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A task's run state as pure functions over one atomic word, so that the
 * protocol runs in the module (sroce_task.h, sroce_task.c) and, with C11
 * atomics, in the host unit tests (tests/unit/test_task_state.c).
 *
 * Idle (0): nobody runs the task; the next mark takes it. OWNED: exactly
 * one context makes the next pass. OWNED | PENDING: work arrived that the
 * owner has not looked at yet; it passes again before it lets go. PAUSE:
 * someone (modify, reset, destroy) wants the task: the owner hands it over
 * at its next pass instead of making it, or the pauser takes it at once
 * if it was idle; then no pass runs, and marks only set PENDING, until
 * the pauser resumes it.
 *
 * No work is lost. A producer publishes its work, then marks; the owner
 * clears PENDING, passes (looks at all work), then tries to let go, and
 * all three operations are fully ordered on the one word. A mark before
 * the clearing is seen by the pass after it; a mark between the clearing
 * and the release sets PENDING again, so the release fails and the owner
 * passes again; a mark after the release finds the task idle and takes
 * it, with everything the last owner did visible to it.
 */
#ifndef SROCE_TASK_STATE_H
#define SROCE_TASK_STATE_H

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/bits.h>

#define sroce_state_fetch_or(s, v)	atomic_fetch_or(v, s)
#define sroce_state_fetch_andnot(s, v)	atomic_fetch_andnot(v, s)
#define sroce_state_try_cmpxchg(s, o, n) atomic_try_cmpxchg(s, o, n)
#else
#include <stdatomic.h>
#include <stdbool.h>

#define BIT(n)				(1 << (n))
#define atomic_t			atomic_int
#define sroce_state_fetch_or(s, v)	atomic_fetch_or(s, v)
#define sroce_state_fetch_andnot(s, v)	atomic_fetch_and(s, ~(v))
#define sroce_state_try_cmpxchg(s, o, n) \
	atomic_compare_exchange_strong(s, o, n)
#endif

typedef atomic_t sroce_state_t;

#define SROCE_T_OWNED		BIT(0)
#define SROCE_T_PENDING		BIT(1)
#define SROCE_T_PAUSE		BIT(2)

/*
 * Work was published before: true if the task was idle and the caller
 * owns it now (it must run it or hand it on); false if its owner will
 * pass again.
 */
static inline bool sroce_state_mark(sroce_state_t *s)
{
	return !(sroce_state_fetch_or(s, SROCE_T_PENDING | SROCE_T_OWNED) &
		 SROCE_T_OWNED);
}

/*
 * The owner starts a pass: it looks at all work published before this.
 * False: a pauser waits; the owner hands the task over and passes no more.
 */
static inline bool sroce_state_pass(sroce_state_t *s)
{
	return !(sroce_state_fetch_andnot(s, SROCE_T_PENDING) & SROCE_T_PAUSE);
}

/* The owner lets go, unless a mark came after its pass began. */
static inline bool sroce_state_release(sroce_state_t *s)
{
	int owned = SROCE_T_OWNED;

	return sroce_state_try_cmpxchg(s, &owned, 0);
}

/*
 * Ask for the task. True: someone owns it, and hands it over at its next
 * pass; false: it was idle and the pauser owns it now.
 */
static inline bool sroce_state_pause(sroce_state_t *s)
{
	return sroce_state_fetch_or(s, SROCE_T_PAUSE | SROCE_T_OWNED) &
	       SROCE_T_OWNED;
}

/*
 * The pauser gives the task back. True: it is idle; false: work came
 * meanwhile and the caller owns the task to run it.
 */
static inline bool sroce_state_resume(sroce_state_t *s)
{
	sroce_state_fetch_andnot(s, SROCE_T_PAUSE);
	return sroce_state_release(s);
}

#endif /* SROCE_TASK_STATE_H */
