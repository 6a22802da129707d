// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: congestion control, DCQCN as RoCE NICs run it (Zhu et al.,
 * "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015).
 *
 * Notification point: receive notes a packet that came marked Congestion
 * Experienced on its QP (SROCE_CC_CE) and counts it; the QP's next pass,
 * of either task, sends one CNP to the QP at the other end of the
 * connection, unless it sent one less than cnp_interval_us ago: marks in
 * between are folded into it. Datagram QPs have no one peer to tell:
 * their marks are counted only.
 *
 * Reaction point: receive notes a CNP on the QP it names (SROCE_CC_CNP);
 * the send task's next pass cuts that QP's rate, Rt = Rc, Rc = Rc (1 -
 * alpha / 2), alpha = (1 - g) alpha + g. Then the rate climbs back: each
 * expiry of the rate timer or of the byte counter is an increase, halving
 * the gap to Rt while both have expired fewer than fast_recovery times
 * since the cut, raising Rt by ai_mbps once one has, by hai_mbps (times
 * the stage) once both have; and alpha decays, alpha = (1 - g) alpha, per
 * alpha_us without a CNP. The timers are not timers: the send task works
 * out how many periods passed whenever it wants to send, which comes to
 * the same. Below line rate the requester paces its packets: one leaves
 * when its predecessor's bytes have drained at Rc (a high-resolution
 * timer kicks the task then). Back at line rate the QP is unlimited
 * again and costs nothing per packet.
 */
#include <linux/ktime.h>
#include <linux/math64.h>

#include "sroce.h"
#include "sroce_qp.h"

#define SROCE_CC_ONE		1024	/* alpha and g: fixed point */
/*
 * Catching up more than this many periods at once (over a second of the
 * default rate timer) is catching up fully: alpha is 0 long before, and
 * the rate back at line rate.
 */
#define SROCE_CC_MAX_PERIODS	4096

void sroce_cc_params_init(struct sroce_cc_params *p)
{
	p->ecn = 1;
	/* The network's control class, as NICs send CNPs by default. */
	p->cnp_dscp = 48;
	p->cnp_interval_us = 50;
	p->rp = 1;
	p->line_rate_mbps = 100000;
	p->min_rate_mbps = 10;
	/* The DCQCN paper's: g 1/256, K 55 us, B 10 MB, F 5, R_AI 40 Mb/s. */
	p->g = 4;
	p->alpha_us = 55;
	p->rate_timer_us = 300;
	p->byte_counter_kb = 10240;
	p->fast_recovery = 5;
	p->ai_mbps = 40;
	p->hai_mbps = 200;
}

/* A CNP to the peer of @qp (Annex A17.9: BTH with BECN, 16 zero bytes). */
static void sroce_cc_send_cnp(struct sroce_qp *qp)
{
	struct sroce_fields f = {
		.opcode = SROCE_CNP_OPCODE,
		.becn = true,
		.pkey = SROCE_DEFAULT_PKEY,
		.dqpn = qp->attr.dest_qp_num,
	};

	sroce_tx(qp, &f, 0, NULL, NULL);
	atomic64_inc(&qp->cc.cnp_sent);
	sroce_count(qp->sdev, SROCE_CNT_TX_CNP, 1);
}

static bool sroce_cc_connected(struct sroce_qp *qp)
{
	switch (sroce_qp_state(qp)) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		return true;
	default:
		return false;
	}
}

/*
 * Called by a pass of either task of @qp when a CE mark is pending: both
 * may, each with BH off, so the interval is claimed with a cmpxchg.
 */
void sroce_cc_np(struct sroce_qp *qp)
{
	u64 gap = (u64)READ_ONCE(qp->sdev->cc.cnp_interval_us) * NSEC_PER_USEC;
	u64 now, last;

	if (!test_and_clear_bit(SROCE_CC_CE, &qp->cc.flags) ||
	    !sroce_cc_connected(qp))
		return;
	now = ktime_get_ns();
	last = atomic64_read(&qp->cc.last_cnp_ns);
	if (last && now - last < gap)
		return;
	if (atomic64_cmpxchg(&qp->cc.last_cnp_ns, last, now) != last)
		return;
	sroce_cc_send_cnp(qp);
}

/* One rate increase: fast recovery, additive or hyper (see the top). */
static void sroce_cc_rp_increase(struct sroce_cc_rp *rp,
				 const struct sroce_cc_params *p)
{
	u32 f = READ_ONCE(p->fast_recovery);
	u32 line = READ_ONCE(p->line_rate_mbps);
	u32 lo = min(rp->timer_stage, rp->byte_stage);
	u32 hi = max(rp->timer_stage, rp->byte_stage);
	u64 rt = rp->rt;

	if (hi >= f && lo < f)
		rt += READ_ONCE(p->ai_mbps);
	else if (lo >= f)
		rt += (u64)(lo - f + 1) * READ_ONCE(p->hai_mbps);
	rp->rt = min_t(u64, rt, line);
	rp->rc = (rp->rt + rp->rc + 1) / 2;
	/* At line rate (or as near as halving gets): unlimited again. */
	if (rp->rc >= line || line - rp->rc <= line / SROCE_CC_ONE)
		rp->limited = false;
}

/* The periods of alpha's decay and of the rate timer up to @now. */
static void sroce_cc_rp_advance(struct sroce_qp *qp, u64 now)
{
	const struct sroce_cc_params *p = &qp->sdev->cc;
	struct sroce_cc_rp *rp = &qp->cc.rp;
	u64 k = (u64)READ_ONCE(p->alpha_us) * NSEC_PER_USEC;
	u64 t = (u64)READ_ONCE(p->rate_timer_us) * NSEC_PER_USEC;
	u32 g = READ_ONCE(p->g);
	u64 n, i;

	n = now > rp->t_alpha ? div64_u64(now - rp->t_alpha, k) : 0;
	for (i = 0; i < n && rp->alpha; i++) {
		if (i == SROCE_CC_MAX_PERIODS) {
			rp->alpha = 0;
			break;
		}
		rp->alpha = rp->alpha * (SROCE_CC_ONE - g) / SROCE_CC_ONE;
	}
	rp->t_alpha += n * k;

	n = now > rp->t_inc ? div64_u64(now - rp->t_inc, t) : 0;
	if (n > SROCE_CC_MAX_PERIODS) {
		rp->limited = false;
		n = 0;
	}
	for (i = 0; i < n && rp->limited; i++) {
		rp->timer_stage++;
		sroce_cc_rp_increase(rp, p);
	}
	rp->t_inc += n * t;
}

/*
 * The send task's pass, before the requester: CNPs received since the
 * last pass cut the rate once (they are one congestion event).
 */
void sroce_cc_rp_cnp(struct sroce_qp *qp)
{
	const struct sroce_cc_params *p = &qp->sdev->cc;
	struct sroce_cc_rp *rp = &qp->cc.rp;
	u32 g = READ_ONCE(p->g), line = READ_ONCE(p->line_rate_mbps);
	u64 now, cut;

	if (!test_and_clear_bit(SROCE_CC_CNP, &qp->cc.flags) ||
	    !READ_ONCE(p->rp) || !sroce_cc_connected(qp))
		return;
	now = ktime_get_ns();
	if (!rp->limited) {
		rp->rc = line;
		rp->alpha = SROCE_CC_ONE;
		rp->t_alpha = now;
		rp->next_ns = now;
	} else {
		sroce_cc_rp_advance(qp, now);
	}
	rp->rt = rp->rc;
	cut = (u64)rp->rc * rp->alpha / (2 * SROCE_CC_ONE);
	rp->rc = max_t(u64, rp->rc - cut,
		       min(READ_ONCE(p->min_rate_mbps), line));
	rp->alpha = (rp->alpha * (SROCE_CC_ONE - g) + g * SROCE_CC_ONE) /
		    SROCE_CC_ONE;
	rp->t_alpha = now;
	rp->t_inc = now;
	rp->bytes = 0;
	rp->timer_stage = 0;
	rp->byte_stage = 0;
	rp->limited = true;
	qp->cc.rate_cuts++;
	sroce_count(qp->sdev, SROCE_CNT_RATE_CUTS, 1);
}

/*
 * May the requester of a limited QP send its next packet now? If not,
 * the pacing timer kicks the send task when it may, and it stops.
 */
bool sroce_cc_rp_wait(struct sroce_qp *qp)
{
	struct sroce_cc_rp *rp = &qp->cc.rp;
	u64 now = ktime_get_ns();

	sroce_cc_rp_advance(qp, now);
	if (!rp->limited || rp->next_ns <= now)
		return false;
	hrtimer_start(&rp->pace, ns_to_ktime(rp->next_ns),
		      HRTIMER_MODE_ABS_SOFT);
	sroce_count(qp->sdev, SROCE_CNT_PACED, 1);
	return true;
}

/* A limited QP's packet of @bytes left: the next waits for them to drain. */
void sroce_cc_rp_sent(struct sroce_qp *qp, u32 bytes)
{
	const struct sroce_cc_params *p = &qp->sdev->cc;
	struct sroce_cc_rp *rp = &qp->cc.rp;
	u64 bc = (u64)READ_ONCE(p->byte_counter_kb) * SZ_1K;
	u64 now = ktime_get_ns();

	rp->next_ns = max(rp->next_ns, now) +
		      div_u64((u64)bytes * 8 * NSEC_PER_USEC, max(rp->rc, 1U));
	rp->bytes += bytes;
	while (rp->bytes >= bc && rp->limited) {
		rp->bytes -= bc;
		rp->byte_stage++;
		sroce_cc_rp_increase(rp, p);
	}
}

/* RESET: no congestion known, no CNP sent; the pacing timer is stopped. */
void sroce_cc_reset(struct sroce_qp *qp)
{
	struct sroce_qp_cc *cc = &qp->cc;

	clear_bit(SROCE_CC_CE, &cc->flags);
	clear_bit(SROCE_CC_CNP, &cc->flags);
	atomic64_set(&cc->last_cnp_ns, 0);
	cc->rp.limited = false;
}
