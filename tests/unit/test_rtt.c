// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The round-trip estimate and the early resend's timeout (rtt.h). */
#include "tap.h"
#include "model/rtt.h"

static void test_first_sample(void)
{
	struct sroce_rtt r = {};

	is(sroce_rto_us(&r, 0), 0ULL, "no sample, no early resend");
	sroce_rtt_sample(&r, 40000);
	is(sroce_rtt_srtt_us(&r), 40000ULL, "the first sample is SRTT");
	is(sroce_rtt_var_us(&r), 20000U, "and half of it RTTVAR");
	is(sroce_rto_us(&r, 0), 120000ULL, "RTO = SRTT + 4 RTTVAR");
}

static void test_smoothing(void)
{
	struct sroce_rtt r = {};
	int i;

	sroce_rtt_sample(&r, 40000);
	sroce_rtt_sample(&r, 120000);
	is(sroce_rtt_srtt_us(&r), 50000U, "SRTT moves an eighth of the way");
	is(sroce_rtt_var_us(&r), 35000U, "RTTVAR a quarter of the way to |SRTT - R|");
	for (i = 0; i < 200; i++)
		sroce_rtt_sample(&r, 80000);
	is(sroce_rtt_srtt_us(&r), 80000U, "a steady round trip: SRTT is it");
	ok(sroce_rtt_var_us(&r) <= 1, "and RTTVAR dies away (%llu)", sroce_rtt_var_us(&r));
	is(sroce_rto_us(&r, 0), (unsigned long long)(80000 + SROCE_RTO_G_US),
	   "then the variance's floor is the slack");
}

static void test_floor_and_backoff(void)
{
	struct sroce_rtt r = {};
	int i;

	for (i = 0; i < 100; i++)
		sroce_rtt_sample(&r, 50);
	is(sroce_rto_us(&r, 0), (unsigned long long)SROCE_RTO_MIN_US,
	   "a fast link: RTO is held at its least");
	is(sroce_rto_us(&r, 1), 2ULL * SROCE_RTO_MIN_US, "one resend doubles it");
	is(sroce_rto_us(&r, 3), 8ULL * SROCE_RTO_MIN_US, "three, eight times");
	is(sroce_rto_us(&r, 40), (unsigned long long)SROCE_RTO_MIN_US <<
	   SROCE_RTO_MAX_SHIFT, "the doubling stops");
	sroce_rtt_sample(&r, 0);
	ok(sroce_rtt_srtt_us(&r) >= 1,
	   "a zero sample keeps SRTT above 0 (%llu)", sroce_rtt_srtt_us(&r));
}

static void test_large(void)
{
	struct sroce_rtt r = {};

	sroce_rtt_sample(&r, 4000000000U);
	sroce_rtt_sample(&r, 4000000000U);
	is(sroce_rtt_srtt_us(&r), 4000000000ULL, "no overflow near 2^32 us");
	ok(sroce_rto_us(&r, SROCE_RTO_MAX_SHIFT) > 4000000000ULL,
	   "nor in the timeout");
}

/* The window of a QP on a path of @rate PSNs/s and @min_us round trip. */
static u32 bdp_run(struct sroce_bdp *b, u64 rate, u32 min_us, u32 base,
		   u32 cap, int rounds)
{
	u32 w = base, us, got;
	int i;

	for (i = 0; i < rounds; i++) {
		/*
		 * A window's worth arrives in a round trip; beyond the path's
		 * product it queues, and the round trip grows. The first
		 * timed packet of a QP meets an empty path.
		 */
		us = min_us;
		got = w;
		if (!b->min_us && (u64)w * 1000000 / rate > us)
			got = rate * us / 1000000;
		else if ((u64)w * 1000000 / rate > us)
			us = (u64)w * 1000000 / rate;
		sroce_bdp_sample(b, us, got);
		w = sroce_bdp_window(b, base, cap);
	}
	return w;
}

static void test_bdp(void)
{
	struct sroce_bdp b = {};
	u32 w;

	is(sroce_bdp_window(&b, 1024, 16384), 1024U, "no sample: the fixed window");
	/* A LAN: 100 us, 100,000 PSNs/s: a product of 10 PSNs. */
	w = bdp_run(&b, 100000, 100, 1024, 16384, 50);
	is(w, 1024U, "a LAN keeps the fixed window");
	/* 20 ms, 50,000 PSNs/s (50 MB/s at MTU 1024): a product of 1000. */
	b = (struct sroce_bdp){};
	w = bdp_run(&b, 50000, 20000, 256, 16384, 1);
	is(w, 512U, "a window-limited round trip doubles the window");
	w = bdp_run(&b, 50000, 20000, 256, 16384, 50);
	is(w, 2000U, "then it holds at twice the path's product (%u)", w);
	is(b.min_us, 20000U, "the queue it builds does not count as path");
	/* A faster path with the same delay: capped. */
	b = (struct sroce_bdp){};
	w = bdp_run(&b, 10000000, 20000, 256, 16384, 50);
	is(w, 16384U, "never above the cap");
	/* The path slows to a tenth: the window follows down. */
	b = (struct sroce_bdp){};
	bdp_run(&b, 50000, 20000, 256, 16384, 50);
	w = bdp_run(&b, 5000, 20000, 256, 16384, 100);
	is(w, 256U, "a slower path shrinks it back to the floor (%u)", w);
	/* Zero-time samples and empty ones do no harm. */
	b = (struct sroce_bdp){};
	sroce_bdp_sample(&b, 0, 0);
	is(sroce_bdp_window(&b, 256, 4096), 256U, "an empty sample keeps the floor");
}

/* struct sroce_start with the requester's sizes: 32 at first, 256 full. */
#define FIRST	32
#define FULL	256

/* The window after PSNs before @comp were acknowledged, @cut or not. */
static unsigned int start_at(struct sroce_start *st, unsigned int comp,
			     bool cut)
{
	sroce_start_update(st, FIRST, FULL, comp & SROCE_PSN_MASK, cut);
	return sroce_start_window(st, FIRST, comp & SROCE_PSN_MASK);
}

static void test_start_doubles(void)
{
	struct sroce_start st = { .psn = 100 };

	is(start_at(&st, 100, false), FIRST, "a new connection: the first window");
	is(start_at(&st, 110, false), FIRST + 10U, "one more for each PSN acknowledged");
	is(start_at(&st, 100 + FULL - FIRST - 1, false), FULL - 1U, "up to one short of full");
	is(start_at(&st, 100 + FULL - FIRST, false), 0U, "then the start is over");
	ok(st.done && !st.avoid, "done, never cut");
	is(start_at(&st, 100 + FULL, true), 0U, "a cut after it changes nothing");
}

static void test_start_cut(void)
{
	struct sroce_start st = { .psn = 0 };
	unsigned int w;

	is(start_at(&st, 100, false), FIRST + 100U, "doubled to 132");
	is(start_at(&st, 100, true), (FIRST + 100U) / 2, "a cut keeps half: 66");
	ok(st.avoid && !st.done, "the doubling is over, the start is not");
	is(start_at(&st, 300, true), 66U, "no growth while the rate stays cut");
	is(start_at(&st, 365, false), 66U, "after it: 65 PSNs acknowledged, one short of a window");
	is(start_at(&st, 366, false), 67U, "a window of 66 acknowledged: one more");
	is(start_at(&st, 366 + 67 * 2, false), 69U, "two windows at once: two more");
	w = start_at(&st, 366 + 67 * 2 + 60, false);
	is(w, 69U, "the 60 over them count towards the next");
	is(start_at(&st, 366 + 67 * 2 + 69, false), 70U, "and make it with 9 more");
	is(start_at(&st, 569 + 75, false), 71U, "75 at a window of 70: one more, 5 left over");
	is(start_at(&st, 569 + 75, false), 71U, "the same again changes nothing");
	is(start_at(&st, 569 + 75 + 65, false), 71U, "65 more are one short of 71 with those 5");
	is(start_at(&st, 569 + 75 + 66, false), 72U, "66 make it");
	is(start_at(&st, 569 + 75 + 66, true), 72U, "a cut now keeps it");
	is(start_at(&st, 569 + 75 + 66, true), 72U, "and again the same");
}

static void test_start_floor_and_full(void)
{
	struct sroce_start st = { .psn = SROCE_PSN_MASK - 5 };
	unsigned int comp = SROCE_PSN_MASK - 5, w;
	int i;

	is(start_at(&st, comp + 4, true), (unsigned int)FIRST,
	   "a cut early (36 reached): not below the first window");
	comp += 4;
	for (i = 0, w = FIRST; i < 1000 && w && w < FULL; i++) {
		comp += w;
		w = start_at(&st, comp, false);
	}
	is(w, 0U, "a window at a time, across the PSNs' wrap, it grows to full");
	ok(st.done, "and the start is over (%d windows)", i);

	st = (struct sroce_start){ .psn = 7 };
	is(start_at(&st, 7 + 200, true), (FIRST + 200U) / 2,
	   "a cut with 200 acknowledged: half of 232");
	is(start_at(&st, 3, false), (FIRST + 200U) / 2,
	   "a PSN behind the start counts as nothing");
	is(start_at(&st, 7 + 200 + 116, false), (FIRST + 200U) / 2 + 1,
	   "nor moves where the count starts: a window after the cut, one more");

	st = (struct sroce_start){ .psn = 7 };
	is(start_at(&st, 7 + 500, true), 0U,
	   "more acknowledged than full before any look: over, the cut too late");
	ok(st.done && !st.avoid, "done, not cut");
}

int main(void)
{
	test_first_sample();
	test_smoothing();
	test_floor_and_backoff();
	test_large();
	test_bdp();
	test_start_doubles();
	test_start_cut();
	test_start_floor_and_full();
	return tap_done();
}
