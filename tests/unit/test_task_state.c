// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduler's run state (task_state.h): the transitions one by one,
 * then producers on several threads marking while whoever took the task
 * runs it and a pauser takes it over again and again: one owner at a
 * time, no pass while paused, and no work left unseen at the end.
 */
#include <pthread.h>

#include "tap.h"
#include "model/task_state.h"

#define THREADS		4
#define ROUNDS		100000

static sroce_state_t state;
static atomic_int published;	/* the work: producers add, owners look */
static atomic_int owners;	/* owners in a pass right now */
static atomic_int overlap;	/* passes that found another owner */
static atomic_int handed;	/* an owner handed the task to the pauser */
static atomic_int paused;	/* the pauser holds it */
static atomic_int in_pause;	/* passes that ran while it did */
static atomic_int stop;
static int seen;		/* the owners' view; ownership guards it */
static int passes;

/* An owner, as sroce_task_dispatch(): pass until nothing is pending. */
static void run_owner(void)
{
	do {
		if (!sroce_state_pass(&state)) {
			atomic_store(&handed, 1);
			return;
		}
		if (atomic_load(&paused))
			atomic_fetch_add(&in_pause, 1);
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

/* As modify: pause, look, resume; run what came meanwhile. */
static void *pauser(void *arg)
{
	int n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		atomic_store(&handed, 0);
		if (sroce_state_pause(&state))
			while (!atomic_load(&handed))
				;
		atomic_store(&paused, 1);
		atomic_store(&paused, 0);
		if (!sroce_state_resume(&state))
			run_owner();
		n++;
	}
	return (void *)(long)n;
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

	ok(!sroce_state_pause(&s), "a pause takes an idle task at once");
	ok(!sroce_state_mark(&s), "a mark while paused finds it owned");
	ok(!sroce_state_resume(&s), "resume: the caller runs what came");
	ok(sroce_state_pass(&s), "a pass after resume");
	ok(sroce_state_release(&s), "and the task goes idle");
	sroce_state_mark(&s);
	ok(sroce_state_pause(&s), "a pause of an owned task waits");
	ok(!sroce_state_pass(&s), "for the owner's next pass to hand over");
	ok(sroce_state_resume(&s), "resume after a hand-over: idle");
	is(s, 0, "nothing left over");
}

static void test_threads(void)
{
	pthread_t th[THREADS], p;
	void *pauses;
	int i;

	pthread_create(&p, NULL, pauser, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	atomic_store(&stop, 1);
	pthread_join(p, &pauses);
	ok((long)pauses > 0, "%ld pauses", (long)pauses);
	is(atomic_load(&in_pause), 0, "no pass while paused");
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
