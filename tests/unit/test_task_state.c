// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduler's run state (task_state.h): the transitions one by one,
 * then producers on several threads marking while whoever took the task
 * runs it: one owner at a time, and no work left unseen at the end.
 */
#include <pthread.h>

#include "tap.h"
#include "task_state.h"

#define THREADS		4
#define ROUNDS		100000

static sroce_state_t state;
static atomic_int published;	/* the work: producers add, owners look */
static atomic_int owners;	/* owners in a pass right now */
static atomic_int overlap;	/* passes that found another owner */
static int seen;		/* the owners' view; ownership guards it */
static int passes;

/* An owner, as sroce_task_dispatch(): pass until nothing is pending. */
static void run_owner(void)
{
	do {
		sroce_state_pass(&state);
		if (atomic_fetch_add(&owners, 1))
			atomic_fetch_add(&overlap, 1);
		seen = atomic_load(&published);
		passes++;
		atomic_fetch_sub(&owners, 1);
	} while (!sroce_state_release(&state));
}

static void *producer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		atomic_fetch_add(&published, 1);
		if (sroce_state_mark(&state))
			run_owner();
	}
	return NULL;
}

static void test_transitions(void)
{
	sroce_state_t s = 0;

	ok(sroce_state_mark(&s), "a mark takes an idle task");
	is(s, SROCE_T_OWNED | SROCE_T_PENDING, "owned, work pending");
	ok(!sroce_state_mark(&s), "a second mark finds it owned");
	sroce_state_pass(&s);
	is(s, SROCE_T_OWNED, "a pass takes the pending work");
	ok(sroce_state_release(&s), "nothing came: the owner lets go");
	is(s, 0, "idle");
	ok(sroce_state_mark(&s), "the next mark takes it again");
	sroce_state_pass(&s);
	ok(!sroce_state_mark(&s), "a mark during the pass");
	ok(!sroce_state_release(&s), "makes the release fail");
	is(s, SROCE_T_OWNED | SROCE_T_PENDING, "still owned, work pending");
	sroce_state_pass(&s);
	ok(sroce_state_release(&s), "the pass after it lets go");
}

static void test_threads(void)
{
	pthread_t th[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	is(atomic_load(&overlap), 0, "never two owners at once");
	is(atomic_load(&state), 0, "idle at the end");
	is(seen, THREADS * ROUNDS, "the last pass saw every piece of work");
	ok(passes > 0 && passes <= THREADS * ROUNDS * 2,
	   "%d passes for %d marks", passes, THREADS * ROUNDS);
}

int main(void)
{
	test_transitions();
	test_threads();
	return tap_done();
}
