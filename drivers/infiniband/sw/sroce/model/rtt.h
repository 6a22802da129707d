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
 *
 * The same samples size the requester's window (struct sroce_bdp): each
 * says how many PSNs the peer acknowledged in one round trip, so a rate;
 * the window is twice the most recent rates times the least round trip
 * seen (the bandwidth-delay product, without the queue the window itself
 * builds), never below a floor the caller gives (sroce_req.c: 256, or a
 * start window a rate cut slowed) and never above a cap. While the window
 * limits, the PSNs a round trip delivers are the window, so it doubles
 * each round trip until the path, not the window, sets the rate: a 20 ms
 * path is filled, and a LAN keeps the floor.
 */
#ifndef SROCE_RTT_H
#define SROCE_RTT_H

#include "proto/proto_types.h"
#include "proto/psn.h"

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

/* PSNs a round trip may deliver, and the rate in PSNs per second. */
struct sroce_bdp {
	u32 min_us;	/* the least round trip seen; 0: no sample yet */
	u64 rate;	/* the most of recent rates, each decaying 1/8 a sample */
	u32 psns;	/* rate x min_us: the bandwidth-delay product, in PSNs */
};

/* A round trip of @us microseconds in which @psns PSNs were acknowledged. */
static inline void sroce_bdp_sample(struct sroce_bdp *b, u32 us, u32 psns)
{
	u64 r, bdp;

	if (!us)
		us = 1;
	if (!b->min_us || us < b->min_us)
		b->min_us = us;
	r = div_u64((u64)psns * 1000000, us);
	b->rate -= b->rate >> 3;
	if (r > b->rate)
		b->rate = r;
	bdp = div_u64(b->rate * b->min_us, 1000000);
	b->psns = bdp > U32_MAX ? U32_MAX : bdp;
}

/* The window in PSNs: twice the product, within [@base, @cap]. */
static inline u32 sroce_bdp_window(const struct sroce_bdp *b, u32 base,
				   u32 cap)
{
	u64 w = 2ULL * b->psns;

	if (w < base)
		return base;
	return w > cap ? cap : w;
}

/*
 * A new connection's start window, in PSNs (sroce_req.c gives the sizes):
 * @first, plus one for each PSN acknowledged, until it reaches @full
 * (slow start: it doubles each round trip). A cut of the rate before
 * then (DCQCN's, for a CNP) ends the doubling, as an ECN echo ends TCP's
 * slow start: half the window reached is kept, not below @first, the
 * round trip before the queue marked. From then on it does not grow
 * while the rate stays cut, and grows by one PSN a window acknowledged
 * otherwise (TCP's congestion avoidance), up to @full.
 */
struct sroce_start {
	u32 psn;	/* the PSNs acknowledged from here on are not counted yet */
	u32 add;	/* the window over @first so far */
	bool avoid;	/* a cut ended the doubling */
	bool done;	/* @full reached: the start is over */
};

/* PSNs before @comp are acknowledged; @cut: the rate is cut now. */
static inline void sroce_start_update(struct sroce_start *s, u32 first,
				      u32 full, u32 comp, bool cut)
{
	s32 acked = sroce_psn_diff(comp, s->psn);
	u32 w = first + s->add, n;

	/* Behind the start (never, from the completer): nothing to count. */
	if (s->done || acked < 0)
		return;
	if (!s->avoid) {
		/* The doubling may have run its course unseen: then no cut. */
		if (w + acked >= full)
			s->done = true;
		if (!cut || s->done)
			return;
		w = (w + acked) / 2;
		w = w > first ? w : first;
		s->avoid = true;
		acked = 0;
	} else if (cut) {
		acked = 0;
	} else if ((u32)acked >= w) {
		n = acked / w;
		acked -= n * w;
		w += n;
	}
	s->add = w - first;
	s->psn = sroce_psn_add(comp, -(u32)acked);
	s->done = w >= full;
}

/*
 * The start window at @comp, after sroce_start_update() with the same
 * @comp (which ends the start once it is full); 0: it is over.
 */
static inline u32 sroce_start_window(const struct sroce_start *s, u32 first,
				     u32 comp)
{
	s32 acked;

	if (s->done)
		return 0;
	if (s->avoid)
		return first + s->add;
	acked = sroce_psn_diff(comp, s->psn);
	return first + (acked > 0 ? acked : 0);
}

#endif /* SROCE_RTT_H */
