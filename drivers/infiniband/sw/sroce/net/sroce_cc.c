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
 * the send task's next pass cuts that QP's rate, and below line rate the
 * requester paces its packets: one leaves when its predecessor's bytes
 * have drained at the current rate (a high-resolution timer kicks the
 * task then). The algorithm itself, a cut and the recovery after it, is
 * cc_rp.h's. Back at line rate the QP is unlimited again and costs one
 * test per packet.
 */
#include <linux/ktime.h>

#include "sroce.h"
#include "core/sroce_qp.h"
#include "net/sroce_net.h"

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
	p->pace_line = 0;
	/* An early resend probes with one packet before it goes back. */
	p->early_rexmit = 1;
	p->sel_repeat = SROCE_SR_ANSWER;
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

/*
 * The round trip a QP that has measured none yet is taken to have: a
 * software path's, about (a same-host one under emulation). Without a
 * guess, a QP whose every timed packet went twice (loss at each round
 * trip through a full queue) would cut at every CNP with an alpha that
 * decays in microseconds: cuts that take nothing off, and the queue
 * stays full.
 */
#define SROCE_CC_RTT_GUESS_US	1000

/*
 * What the completer of the same send pass measured of the path (rtt.h),
 * for DCQCN's floors: the smoothed and the least round trip.
 */
static void sroce_cc_rp_path(struct sroce_qp *qp)
{
	struct sroce_dcqcn_path *path = &qp->cc.rp.d.path;
	u64 srtt8 = qp->comp.rtt.srtt8;
	u32 min_us = qp->comp.bdp.min_us;

	path->rtt_ns = (srtt8 ? srtt8 >> 3 : SROCE_CC_RTT_GUESS_US) *
		       NSEC_PER_USEC;
	path->min_rtt_ns = (u64)(min_us ?: SROCE_CC_RTT_GUESS_US) *
			   NSEC_PER_USEC;
}

/*
 * ... and, for a first cut, the most PSNs a round trip delivered lately
 * as Mb/s (full packets: never less than what went).
 */
static void sroce_cc_rp_path_rate(struct sroce_qp *qp)
{
	u64 bits = qp->comp.bdp.rate * qp->mtu * 8;

	qp->cc.rp.d.path.rate_mbps = min_t(u64, div_u64(bits, 1000000),
					   U32_MAX);
}

/*
 * The send task's pass, before the requester: CNPs received since the
 * last pass cut the rate once (they are one congestion event), and not
 * again within a round trip.
 */
void sroce_cc_rp_cnp(struct sroce_qp *qp)
{
	const struct sroce_cc_params *p = &qp->sdev->cc;

	if (!test_and_clear_bit(SROCE_CC_CNP, &qp->cc.flags) ||
	    !READ_ONCE(p->rp) || !sroce_cc_connected(qp))
		return;
	sroce_cc_rp_path(qp);
	sroce_cc_rp_path_rate(qp);
	if (!sroce_dcqcn_cut(&qp->cc.rp.d, p, ktime_get_ns()))
		return;
	qp->cc.rate_cuts++;
	sroce_count(qp->sdev, SROCE_CNT_RATE_CUTS, 1);
}

/*
 * May the requester of a paced QP (limited, or any with pace_line) send
 * its next packet now? If not, the pacing timer kicks the send task when
 * it may, and it stops.
 */
bool sroce_cc_rp_wait(struct sroce_qp *qp)
{
	struct sroce_dcqcn *d = &qp->cc.rp.d;
	u64 now = ktime_get_ns();

	if (d->limited) {
		sroce_cc_rp_path(qp);
		sroce_dcqcn_advance(d, &qp->sdev->cc, now);
	}
	if ((!d->limited && !READ_ONCE(qp->sdev->cc.pace_line)) ||
	    d->next_ns <= now)
		return false;
	hrtimer_start(&qp->cc.rp.pace, ns_to_ktime(d->next_ns),
		      HRTIMER_MODE_ABS_SOFT);
	sroce_count(qp->sdev, SROCE_CNT_PACED, 1);
	return true;
}

/* A paced QP's packet of @bytes left: the next waits for them to drain. */
void sroce_cc_rp_sent(struct sroce_qp *qp, u32 bytes)
{
	sroce_dcqcn_sent(&qp->cc.rp.d, &qp->sdev->cc, bytes, ktime_get_ns());
}

/* RESET: no congestion known, no CNP sent; the pacing timer is stopped. */
void sroce_cc_reset(struct sroce_qp *qp)
{
	struct sroce_qp_cc *cc = &qp->cc;

	clear_bit(SROCE_CC_CE, &cc->flags);
	clear_bit(SROCE_CC_CNP, &cc->flags);
	atomic64_set(&cc->last_cnp_ns, 0);
	cc->rp.d.limited = false;
}
