// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* DCQCN's reaction point (cc_rp.h): cuts, recovery, alpha, pacing. */
#include "tap.h"
#include "model/cc_rp.h"

#define US	1000ULL		/* ns */
#define MIB	(1024U * 1024U)

static struct sroce_cc_params params(void)
{
	return (struct sroce_cc_params){
		.rp = 1,
		.line_rate_mbps = 10000,
		.min_rate_mbps = 10,
		.g = 4,
		.alpha_us = 55,
		.rate_timer_us = 300,
		.byte_counter_kb = 10240,
		.fast_recovery = 5,
		.ai_mbps = 40,
		.hai_mbps = 200,
	};
}

static void test_cut(void)
{
	struct sroce_cc_params p = params();
	struct sroce_dcqcn d = {};
	int i;

	sroce_dcqcn_cut(&d, &p, 1000 * US);
	ok(d.limited, "a cut limits the QP");
	is(d.rt, 10000, "the first cut's target is the line rate");
	is(d.rc, 5000, "alpha starts at 1: the first cut halves");
	is(d.alpha, 1024, "alpha stays 1 after it: (1 - g) + g");
	sroce_dcqcn_cut(&d, &p, 1000 * US);
	is(d.rt, 5000, "a second cut at once: the target is the rate cut");
	is(d.rc, 2500, "... which halves again");
	for (i = 0; i < 20; i++)
		sroce_dcqcn_cut(&d, &p, 1000 * US);
	is(d.rc, 10, "cuts stop at the minimum rate");
	p.min_rate_mbps = 20000;
	d = (struct sroce_dcqcn){};
	sroce_dcqcn_cut(&d, &p, 0);
	is(d.rc, 10000, "a minimum above line rate is the line rate");
}

static void test_alpha(void)
{
	struct sroce_cc_params p = params();
	struct sroce_dcqcn d = {};

	sroce_dcqcn_cut(&d, &p, 0);
	sroce_dcqcn_advance(&d, &p, 54 * US);
	is(d.alpha, 1024, "no decay before a period");
	sroce_dcqcn_advance(&d, &p, 55 * US);
	is(d.alpha, 1020, "one period: alpha -= g alpha");
	sroce_dcqcn_advance(&d, &p, 165 * US);
	is(d.alpha, 1012, "two more periods");
	sroce_dcqcn_cut(&d, &p, 165 * US);
	is(d.alpha, 1012 * 1020 / 1024 + 4, "a cut moves alpha towards 1 by g");
	is(d.rc, 5000 - 5000 * 1012 / 2048,
	   "... and cuts by alpha / 2 (no rate timer expiry before it)");
	p.g = 0;
	d = (struct sroce_dcqcn){};
	sroce_dcqcn_cut(&d, &p, 0);
	sroce_dcqcn_advance(&d, &p, 10000 * US);
	is(d.alpha, 1024, "g 0: alpha never moves");
}

static void test_recovery(void)
{
	struct sroce_cc_params p = params();
	struct sroce_dcqcn d = {};
	u32 prev;
	int i;

	sroce_dcqcn_cut(&d, &p, 0);
	sroce_dcqcn_advance(&d, &p, 300 * US);
	is(d.timer_stage, 1, "the rate timer expired once");
	is(d.rt, 10000, "fast recovery keeps the target");
	is(d.rc, 7500, "... and halves the gap to it");
	for (i = 2; i <= 4; i++)
		sroce_dcqcn_advance(&d, &p, i * 300 * US);
	is(d.rt, 10000, "four expiries: still fast recovery");
	ok(d.rc > 9300 && d.rc < 10000, "the rate nears the target (%u)", d.rc);

	d = (struct sroce_dcqcn){};
	sroce_dcqcn_cut(&d, &p, 0);
	sroce_dcqcn_cut(&d, &p, 0);	/* rt 5000, rc 2500 */
	for (i = 1; i <= 4; i++)
		sroce_dcqcn_advance(&d, &p, i * 300 * US);
	is(d.rt, 5000, "below F expiries the target stays");
	sroce_dcqcn_advance(&d, &p, 5 * 300 * US);
	is(d.rt, 5040, "the F-th expiry: additive increase of the target");
	sroce_dcqcn_advance(&d, &p, 6 * 300 * US);
	is(d.rt, 5080, "... and the next");
	prev = d.rt;
	for (i = 0; i < 5; i++)
		sroce_dcqcn_sent(&d, &p, 10 * MIB, 6 * 300 * US);
	is(d.byte_stage, 5, "five byte counter expiries (10 MiB each)");
	is(d.rt, prev + 4 * 40 + 200, "four more additive, then the first hyper increase");
	sroce_dcqcn_advance(&d, &p, 7 * 300 * US);
	is(d.rt, prev + 4 * 40 + 2 * 200,
	   "the timer again: hyper, stage 1 (the byte counter is at F)");
	sroce_dcqcn_sent(&d, &p, 10 * MIB, 7 * 300 * US);
	is(d.rt, prev + 4 * 40 + 2 * 200 + 2 * 200,
	   "both past F: hyper increase grows with the stage");
}

static void test_back_to_line(void)
{
	struct sroce_cc_params p = params();
	struct sroce_dcqcn d = {};
	u64 t;

	sroce_dcqcn_cut(&d, &p, 0);
	for (t = 300 * US; d.limited && t < 1000000 * US; t += 300 * US)
		sroce_dcqcn_advance(&d, &p, t);
	ok(!d.limited, "the recovery reaches line rate and ends (%llu us)",
	   (unsigned long long)(t / US));
	d = (struct sroce_dcqcn){};
	sroce_dcqcn_cut(&d, &p, 0);
	sroce_dcqcn_cut(&d, &p, 0);
	sroce_dcqcn_advance(&d, &p, (SROCE_CC_MAX_PERIODS + 1) * 300 * US);
	ok(!d.limited, "a long silence is a full recovery");
}

static void test_pacing(void)
{
	struct sroce_cc_params p = params();
	struct sroce_dcqcn d = {};
	int i;

	sroce_dcqcn_cut(&d, &p, 0);
	for (i = 0; i < 20; i++)
		sroce_dcqcn_cut(&d, &p, 0);
	is(d.rc, 10, "at 10 Mb/s");
	sroce_dcqcn_sent(&d, &p, 1250, 0);
	is(d.next_ns, 1000 * US, "1250 bytes at 10 Mb/s take 1 ms");
	sroce_dcqcn_sent(&d, &p, 1250, 0);
	is(d.next_ns, 2000 * US, "the next packet queues behind it");
	sroce_dcqcn_sent(&d, &p, 1250, 5000 * US);
	is(d.next_ns, 6000 * US, "an idle link saves nothing up: no burst");
	d = (struct sroce_dcqcn){};
	p.pace_line = 1;
	sroce_dcqcn_sent(&d, &p, 1250, 0);
	is(d.next_ns, 1 * US, "unlimited, pace_line: at line rate (10 Gb/s)");
	ok(!d.limited && !d.byte_stage, "... which neither limits nor counts");
}

/* A measured path of milliseconds: DCQCN's floors (cc_rp.h). */
static void test_path(void)
{
	struct sroce_cc_params p = params();
	struct sroce_dcqcn d = {};
	u32 rc;
	int i;

	d.path.rtt_ns = 5000 * US;
	d.path.min_rtt_ns = 5000 * US;
	d.path.rate_mbps = 200;
	ok(sroce_dcqcn_cut(&d, &p, 0), "a first cut");
	is(d.rt, 200, "... starts from the rate the path delivered");
	is(d.rc, 100, "... and halves it");
	rc = d.rc;
	ok(!sroce_dcqcn_cut(&d, &p, 4999 * US),
	   "a CNP within a round trip of the cut does not cut");
	is(d.rc, rc, "... and leaves the rate");
	sroce_dcqcn_advance(&d, &p, 4999 * US);
	is(d.alpha, 1024, "alpha keeps for a round trip (55 us is less)");
	is(d.timer_stage, 0, "so does the rate timer (300 us is less)");
	sroce_dcqcn_advance(&d, &p, 5000 * US);
	is(d.alpha, 1020, "one round trip: one decay");
	is(d.timer_stage, 1, "... and one rate increase");
	ok(sroce_dcqcn_cut(&d, &p, 5000 * US), "a round trip on, a CNP cuts");
	d.path.rtt_ns = 20000 * US;
	rc = d.rc;
	ok(sroce_dcqcn_cut(&d, &p, 10000 * US) && d.rc < rc,
	   "a queue that stretches the round trip does not delay a cut");

	d = (struct sroce_dcqcn){};
	d.path.rtt_ns = 5000 * US;
	d.path.rate_mbps = 200;
	sroce_dcqcn_cut(&d, &p, 0);
	for (i = 1; i <= 5; i++)
		sroce_dcqcn_advance(&d, &p, i * 5000 * US);
	is(d.rt, 200 + 200 / 32,
	   "additive increase at most the target over 32 a round trip");
	d.path.rtt_ns = 100 * US;
	sroce_dcqcn_advance(&d, &p, 5 * 5000 * US + 300 * US);
	is(d.rt, 200 + 200 / 32 + 40,
	   "a round trip within the rate timer: the paper's step");

	d = (struct sroce_dcqcn){};
	d.path.rtt_ns = 5000 * US;
	d.path.rate_mbps = 20000;
	sroce_dcqcn_cut(&d, &p, 0);
	is(d.rt, 10000, "a path rate above line rate: from line rate");
	d = (struct sroce_dcqcn){};
	sroce_dcqcn_cut(&d, &p, 0);
	ok(sroce_dcqcn_cut(&d, &p, 0) && d.rc == 2500,
	   "no round trip measured: every CNP event cuts (the paper)");

	d = (struct sroce_dcqcn){};
	d.path.rate_mbps = 4;
	sroce_dcqcn_cut(&d, &p, 0);
	ok(d.rt == 10 && d.rc == 10,
	   "a path rate below the minimum: from the minimum (rt %u rc %u)",
	   d.rt, d.rc);

	d = (struct sroce_dcqcn){};
	d.path.rate_mbps = 40;
	for (i = 0; i < 11; i++)
		sroce_dcqcn_cut(&d, &p, 0);
	sroce_dcqcn_cut(&d, &p, (SROCE_CC_MAX_PERIODS + 1) * 300 * US);
	ok(d.rt == 40 && d.rc == 20 && d.alpha == 1024,
	   "a CNP after a long silence is a first cut again (rt %u rc %u)",
	   d.rt, d.rc);
}

int main(void)
{
	test_cut();
	test_alpha();
	test_recovery();
	test_back_to_line();
	test_pacing();
	test_path();
	return tap_done();
}
