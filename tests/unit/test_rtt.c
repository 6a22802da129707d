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
	ok(sroce_rtt_srtt_us(&r) >= 1, "a zero sample keeps SRTT above 0 (%llu)", sroce_rtt_srtt_us(&r));
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

int main(void)
{
	test_first_sample();
	test_smoothing();
	test_floor_and_backoff();
	test_large();
	return tap_done();
}
