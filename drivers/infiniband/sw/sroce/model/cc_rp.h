/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DCQCN's reaction point as pure functions (Zhu et al., "Congestion
 * Control for Large-Scale RDMA Deployments", SIGCOMM 2015): a CNP's cut,
 * the recovery that follows, and the pacing of what is sent. The kernel
 * (sroce_cc.c) keeps one struct sroce_dcqcn per QP and hands in the
 * device's parameters and the time; the host unit tests drive the same
 * functions (tests/unit/test_dcqcn.c).
 *
 * A cut: Rt = Rc, Rc -= Rc * alpha / 2 (not below min_rate_mbps), alpha
 * += g (1 - alpha). The first starts from line rate (or the rate the path
 * delivered, below) with alpha 1. Then
 * each expiry of the rate timer or of the byte counter is an increase:
 * halve the gap to Rt while both have expired fewer than fast_recovery
 * times since the cut, and raise Rt by ai_mbps once one has, by hai_mbps
 * times the stage once both have; alpha decays, alpha -= g alpha, per
 * alpha_us without a CNP. The timers are not timers: sroce_dcqcn_advance()
 * works out how many periods passed whenever the requester wants to send.
 * Back at line rate the QP is unlimited again.
 *
 * The paper's constants are for round trips of microseconds; a software
 * device's are milliseconds. So the QP's measured path, when it has one,
 * sets floors (struct sroce_dcqcn_path): a cut comes at most once per
 * least round trip (an earlier cut has not shown in the queue yet: the
 * CNPs between are folded into it; the least, not the smoothed one, which
 * a queue stretches, so that a longer queue does not slow the cuts that
 * drain it), alpha's period and the rate timer are at least the smoothed
 * round trip, where that is longer than the rate timer an increase is a
 * share of the target (sroce_dcqcn_step()), and the first cut starts from
 * the rate the path delivered, not from a line rate the QP may never
 * have reached. Given no measure (0s) it is the paper's algorithm; the
 * kernel assumes a round trip until it has measured one (sroce_cc.c).
 */
#ifndef SROCE_CC_RP_H
#define SROCE_CC_RP_H

#include "proto/proto_types.h"

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/math64.h>
/* The parameters change under the data path (sysfs): one load each. */
#define SROCE_CC_P(x)		READ_ONCE(x)
#define sroce_cc_div(a, b)	div64_u64(a, b)
#else
#define SROCE_CC_P(x)		(x)
#define sroce_cc_div(a, b)	((a) / (b))
#endif

#define SROCE_CC_ONE		1024	/* alpha and g: fixed point */
/*
 * Catching up more than this many periods at once (over a second of the
 * default rate timer) is catching up fully: alpha is 0 long before, and
 * the rate back at line rate.
 */
#define SROCE_CC_MAX_PERIODS	4096
/* Where a round trip is a period, an increase is at most Rt / this. */
#define SROCE_CC_AI_SHARE	32
#define SROCE_CC_HAI_SHARE	8

/* The device's parameters; each is a u32 in sysfs (sroce_sysfs.c). */
struct sroce_cc_params {
	u32 ecn;		/* packets go out ECT(0), so queues mark them */
	u32 cnp_dscp;		/* the DSCP of the CNPs sent */
	u32 cnp_interval_us;	/* at most one CNP per QP in this time */
	u32 rp;			/* the reaction point: CNPs cut the rate */
	u32 line_rate_mbps;	/* the rate a QP starts at and climbs to */
	u32 min_rate_mbps;	/* no cut goes below it */
	u32 g;			/* alpha's gain, in 1/1024 */
	u32 alpha_us;		/* alpha decays once per this without a CNP */
	u32 rate_timer_us;	/* a rate increase per this time ... */
	u32 byte_counter_kb;	/* ... and per this many KiB sent */
	u32 fast_recovery;	/* increases that only halve the gap to target */
	u32 ai_mbps;		/* additive increase of the target */
	u32 hai_mbps;		/* hyper increase of the target */
	/*
	 * Pace even an unlimited QP at line rate: a software device has no
	 * port clock, and sends as fast as the CPU goes without it.
	 */
	u32 pace_line;
	/* Loss recovery: resend after a measured RTO, uncharged (rtt.h). */
	u32 early_rexmit;
	/* Selective repeat (sroce_ooo.c): enum sroce_sr_mode. */
	u32 sel_repeat;
};

/*
 * Selective repeat's bit is reserved in the IBTA's BTH: it goes out only
 * to a peer that has shown it speaks it, unless the administrator says
 * every peer does.
 */
enum sroce_sr_mode {
	SROCE_SR_OFF,		/* never: the IBTA's go-back-N */
	SROCE_SR_ANSWER,	/* with a peer whose requests carry the bit */
	SROCE_SR_OFFER,		/* ... and announce it to every peer */
};

/* What the QP measured of its path (rtt.h); 0: not measured yet. */
struct sroce_dcqcn_path {
	u64 rtt_ns;		/* the smoothed round trip */
	u64 min_rtt_ns;		/* the least round trip: without a queue */
	u32 rate_mbps;		/* the most the path delivered lately */
};

/* One QP's reaction point; times in ns of one monotonic clock. */
struct sroce_dcqcn {
	struct sroce_dcqcn_path path;	/* the caller's, before each call */
	bool limited;		/* below line rate: pace and recover */
	u32 rc;			/* current rate, Mb/s */
	u32 rt;			/* target rate, Mb/s */
	u32 alpha;		/* in 1/1024 */
	u64 t_alpha;		/* alpha's last update */
	u64 t_inc;		/* the rate timer's last expiry */
	u64 bytes;		/* sent since the byte counter's last expiry */
	u32 timer_stage;	/* rate timer expiries since the last cut */
	u32 byte_stage;		/* byte counter expiries since the last cut */
	u64 t_cut;		/* the last cut */
	u64 next_ns;		/* the next packet may leave then */
};

static inline u64 sroce_cc_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 sroce_cc_max(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* A period of @us microseconds, at least the path's round trip. */
static inline u64 sroce_dcqcn_period(const struct sroce_dcqcn *d, u32 us)
{
	return sroce_cc_max((u64)us * 1000, d->path.rtt_ns);
}

/*
 * An increase of the target by @mbps, unless a round trip is longer than
 * the rate timer's period: the paper's steps, 40 and 200 Mb/s, are a
 * thousandth of a 40 Gb/s line per period of a few round trips, but a
 * flow through a slower, farther bottleneck gets one period a round trip
 * and would double the link's load in one. There a step is at most the
 * target over @share, a small multiple of TCP's packet a round trip.
 */
static inline u64 sroce_dcqcn_step(const struct sroce_dcqcn *d,
				   const struct sroce_cc_params *p, u32 mbps,
				   u32 share)
{
	if (d->path.rtt_ns <= (u64)SROCE_CC_P(p->rate_timer_us) * 1000)
		return mbps;
	return sroce_cc_min(mbps, sroce_cc_max(d->rt / share, 1));
}

/* One rate increase: fast recovery, additive or hyper. */
static inline void sroce_dcqcn_increase(struct sroce_dcqcn *d,
					const struct sroce_cc_params *p)
{
	u32 f = SROCE_CC_P(p->fast_recovery);
	u32 line = SROCE_CC_P(p->line_rate_mbps);
	u32 lo = sroce_cc_min(d->timer_stage, d->byte_stage);
	u32 hi = sroce_cc_max(d->timer_stage, d->byte_stage);
	u64 rt = d->rt;

	if (hi >= f && lo < f)
		rt += sroce_dcqcn_step(d, p, SROCE_CC_P(p->ai_mbps),
				       SROCE_CC_AI_SHARE);
	else if (lo >= f)
		rt += (u64)(lo - f + 1) *
		      sroce_dcqcn_step(d, p, SROCE_CC_P(p->hai_mbps),
				       SROCE_CC_HAI_SHARE);
	d->rt = sroce_cc_min(rt, line);
	d->rc = (d->rt + (u64)d->rc + 1) / 2;
	/* At line rate (or as near as halving gets): unlimited again. */
	if (d->rc >= line || line - d->rc <= line / SROCE_CC_ONE)
		d->limited = false;
}

/* The periods of alpha's decay and of the rate timer up to @now. */
static inline void sroce_dcqcn_advance(struct sroce_dcqcn *d,
				       const struct sroce_cc_params *p,
				       u64 now)
{
	u64 k = sroce_dcqcn_period(d, SROCE_CC_P(p->alpha_us));
	u64 t = sroce_dcqcn_period(d, SROCE_CC_P(p->rate_timer_us));
	u32 g = SROCE_CC_P(p->g);
	u64 n, i;

	n = now > d->t_alpha && k ? sroce_cc_div(now - d->t_alpha, k) : 0;
	if (n > SROCE_CC_MAX_PERIODS)
		d->alpha = 0;
	for (i = 0; i < n && d->alpha; i++)
		d->alpha = (u64)d->alpha * (SROCE_CC_ONE - g) / SROCE_CC_ONE;
	d->t_alpha += n * k;

	n = now > d->t_inc && t ? sroce_cc_div(now - d->t_inc, t) : 0;
	if (n > SROCE_CC_MAX_PERIODS) {
		d->limited = false;
		n = 0;
	}
	for (i = 0; i < n && d->limited; i++) {
		d->timer_stage++;
		sroce_dcqcn_increase(d, p);
	}
	d->t_inc += n * t;
}

/*
 * CNPs came (one congestion event, however many): cut the rate, unless
 * the last cut is less than the least round trip old. Returns whether it
 * cut.
 */
static inline bool sroce_dcqcn_cut(struct sroce_dcqcn *d,
				   const struct sroce_cc_params *p, u64 now)
{
	u32 g = SROCE_CC_P(p->g), line = SROCE_CC_P(p->line_rate_mbps);
	u32 floor = sroce_cc_min(SROCE_CC_P(p->min_rate_mbps), line);
	u64 cut;

	if (d->limited && now - d->t_cut < d->path.min_rtt_ns)
		return false;
	/* A long silence may have ended the last episode: then a first cut. */
	if (d->limited)
		sroce_dcqcn_advance(d, p, now);
	if (!d->limited) {
		d->rc = line;
		if (d->path.rate_mbps && d->path.rate_mbps < line)
			d->rc = sroce_cc_max(d->path.rate_mbps, floor);
		d->alpha = SROCE_CC_ONE;
		d->t_alpha = now;
		d->next_ns = now;
	}
	d->rt = d->rc;
	cut = (u64)d->rc * d->alpha / (2 * SROCE_CC_ONE);
	d->rc = sroce_cc_max(d->rc - cut, floor);
	d->alpha = ((u64)d->alpha * (SROCE_CC_ONE - g) +
		    (u64)g * SROCE_CC_ONE) / SROCE_CC_ONE;
	d->t_alpha = now;
	d->t_inc = now;
	d->t_cut = now;
	d->bytes = 0;
	d->timer_stage = 0;
	d->byte_stage = 0;
	d->limited = true;
	return true;
}

/*
 * A packet of @bytes left at @now: the next waits until they drained at
 * Rc (at line rate when unlimited and pace_line is set), and they count
 * towards the byte counter.
 */
static inline void sroce_dcqcn_sent(struct sroce_dcqcn *d,
				    const struct sroce_cc_params *p,
				    u32 bytes, u64 now)
{
	u64 bc = (u64)SROCE_CC_P(p->byte_counter_kb) * 1024;
	u64 rate = d->limited ? d->rc : SROCE_CC_P(p->line_rate_mbps);

	d->next_ns = sroce_cc_max(d->next_ns, now) +
		     sroce_cc_div((u64)bytes * 8 * 1000,
				  sroce_cc_max(rate, 1));
	d->bytes += bytes;
	while (bc && d->bytes >= bc && d->limited) {
		d->bytes -= bc;
		d->byte_stage++;
		sroce_dcqcn_increase(d, p);
	}
}

#endif /* SROCE_CC_RP_H */
