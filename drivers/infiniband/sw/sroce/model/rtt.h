/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The requester's round-trip estimate and the early retransmission it
 * times, as pure functions the kernel (sroce_comp.c) and the host unit
 * tests (tests/unit/test_rtt.c) share.
 *
 * The estimate is RFC 6298's: one packet at a time that asks for an ACK
 * is timed, never one that may have been sent twice (Karn), and
 * SRTT += (R - SRTT) / 8, RTTVAR += (|SRTT - R| - RTTVAR) / 4, with the
 * first sample giving SRTT = R and RTTVAR = R / 2.
 *
 * The IBTA's local ACK timeout is the least time before a retry is
 * charged, and under emulation it is also held to at least 100 ms. A
 * lost tail, a lost NAK or a lost resend would each wait that long. So a
 * QP that has measured its round trip resends from its oldest unanswered
 * PSN after RTO = SRTT + max(4 RTTVAR, granularity) without progress,
 * doubling RTO after each such resend, and charges nothing: the
 * responder takes what arrives twice as a duplicate. Only the local ACK
 * timer, which runs from the last progress, counts against retry_cnt.
 */
#ifndef SROCE_RTT_H
#define SROCE_RTT_H

#include "proto/proto_types.h"

/*
 * Not below a few jiffies, and enough for a guest that is descheduled
 * for a while: a resend that comes too soon costs the whole window. At
 * 5 ms, rc_two's clean link between two TCG guests saw 19 in a run, each
 * followed by hundreds of stale ACKs; the local ACK timeout is 100 ms.
 */
#define SROCE_RTO_MIN_US	20000
/* The variance term's floor, so a steady link still has some slack. */
#define SROCE_RTO_G_US		1000
/* Backoff stops doubling here: by then the local ACK timer has fired. */
#define SROCE_RTO_MAX_SHIFT	6

/* Kept scaled, so the averages' divisions lose nothing (RFC 6298, 2). */
struct sroce_rtt {
	u64 srtt8;	/* SRTT in 1/8 us; 0: no sample yet */
	u64 rttvar4;	/* RTTVAR in 1/4 us */
};

static inline u64 sroce_rtt_srtt_us(const struct sroce_rtt *r)
{
	return r->srtt8 >> 3;
}

static inline u64 sroce_rtt_var_us(const struct sroce_rtt *r)
{
	return r->rttvar4 >> 2;
}

static inline void sroce_rtt_sample(struct sroce_rtt *r, u32 us)
{
	u64 m = us ? us : 1, srtt, d;

	if (!r->srtt8) {
		r->srtt8 = m << 3;
		r->rttvar4 = m << 1;
		return;
	}
	srtt = r->srtt8 >> 3;
	d = srtt > m ? srtt - m : m - srtt;
	/* RTTVAR += (d - RTTVAR) / 4, SRTT += (m - SRTT) / 8, scaled. */
	r->rttvar4 = r->rttvar4 - (r->rttvar4 >> 2) + d;
	r->srtt8 = r->srtt8 - srtt + m;
}

/*
 * The early retransmission's timeout after @shift resends without
 * progress, in microseconds; 0 before the first sample.
 */
static inline u64 sroce_rto_us(const struct sroce_rtt *r, u32 shift)
{
	u64 var, rto;

	if (!r->srtt8)
		return 0;
	var = r->rttvar4;	/* 4 RTTVAR in us */
	rto = sroce_rtt_srtt_us(r) + (var > SROCE_RTO_G_US ? var : SROCE_RTO_G_US);
	if (rto < SROCE_RTO_MIN_US)
		rto = SROCE_RTO_MIN_US;
	if (shift > SROCE_RTO_MAX_SHIFT)
		shift = SROCE_RTO_MAX_SHIFT;
	return rto << shift;
}

#endif /* SROCE_RTT_H */
