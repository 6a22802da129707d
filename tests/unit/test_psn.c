// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 24-bit PSN arithmetic, including every wrap-around edge. */
#include "tap.h"
#include "proto/psn.h"

#define MAXPSN SROCE_PSN_MASK
#define HALF (1u << 23)

int main(void)
{
	is(sroce_psn_add(0, 1), 1, "add without wrap");
	is(sroce_psn_add(MAXPSN, 1), 0, "add wraps at 2^24");
	is(sroce_psn_add(MAXPSN - 2, 5), 2, "add wraps past zero");
	is(sroce_psn_add(5, 0x1000000), 5, "adding 2^24 is the identity");

	is(sroce_psn_diff(10, 3), 7, "diff forward");
	is(sroce_psn_diff(3, 10), -7, "diff backward");
	is(sroce_psn_diff(1, MAXPSN), 2, "diff forward across the wrap");
	is(sroce_psn_diff(MAXPSN, 1), -2, "diff backward across the wrap");
	is(sroce_psn_diff(HALF - 1, 0), (long long)HALF - 1,
	   "largest forward distance");
	is(sroce_psn_diff(HALF, 0), -(long long)HALF,
	   "half the space away counts as behind");
	is(sroce_psn_diff(0x12345678, 0x345678), 0,
	   "bits above 24 are ignored");

	ok(sroce_psn_before(MAXPSN, 0), "MAXPSN is before 0");
	ok(!sroce_psn_before(0, MAXPSN), "0 is not before MAXPSN");
	ok(!sroce_psn_before(7, 7), "a PSN is not before itself");

	ok(sroce_psn_in_window(MAXPSN, MAXPSN - 1, 4), "window start side");
	ok(sroce_psn_in_window(1, MAXPSN - 1, 4), "window end across the wrap");
	ok(!sroce_psn_in_window(2, MAXPSN - 1, 4), "just past the window");
	ok(!sroce_psn_in_window(MAXPSN - 2, MAXPSN - 1, 4),
	   "just before the window");
	ok(!sroce_psn_in_window(0, 0, 0), "an empty window holds nothing");

	return tap_done();
}
