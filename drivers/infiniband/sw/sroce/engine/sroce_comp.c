// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the completer. It takes the responder's answers (ACK, NAK, read
 * responses, atomic ACKs), completes send WQEs in order, and drives
 * recovery: go-back-N from a NAKed PSN or a gap in read responses, the
 * local ACK timer (retry_cnt) and the RNR timer (rnr_retry). It also
 * times the round trip, and resends early when an RTO passes without
 * progress (rtt.h): the oldest PSN not answered alone, then the rest only
 * if the answer shows the responder has nothing past it. A NAK from a
 * responder that kept what came past the gap (selective repeat,
 * sroce_ooo.c) gets the PSN it names alone.
 */
#include "sroce.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "engine/sroce_svc.h"
#include "net/sroce_net.h"
#include "obs/sroce_trace.h"

/* IBTA table 45 (vol 1, 9.7.5.2.8): RNR NAK timer codes in microseconds. */
static const u32 sroce_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * The local ACK timeout is 4.096 us << timeout (0: none). Under emulation
 * a peer can take far longer than hardware to answer, so the timer never
 * fires before SROCE_MIN_ACK_TIMEOUT_MS: a later timeout is allowed (the
 * IBTA gives a lower bound), a spurious one costs a retry.
 */
#define SROCE_MIN_ACK_TIMEOUT_MS	100

static unsigned long sroce_ack_timeout(struct sroce_qp *qp)
{
	u8 t = READ_ONCE(qp->attr.timeout);
	u64 ns;

	if (!t)
		return 0;
	ns = 4096ULL << t;
	return max(nsecs_to_jiffies(ns),
		   msecs_to_jiffies(SROCE_MIN_ACK_TIMEOUT_MS));
}

/*
 * In ERR: nothing to wait for any more. May run in atomic context; with
 * @sync (process context), no timer callback is running on return.
 */
static void sroce_comp_timers_off(struct sroce_qp *qp, bool sync)
{
	if (sync) {
		del_timer_sync(&qp->comp.ack.timer);
		del_timer_sync(&qp->comp.rnr.timer);
		del_timer_sync(&qp->comp.rto.timer);
	} else {
		del_timer(&qp->comp.ack.timer);
		del_timer(&qp->comp.rnr.timer);
		del_timer(&qp->comp.rto.timer);
	}
	WRITE_ONCE(qp->comp.ack.fired, false);
	WRITE_ONCE(qp->comp.rnr.fired, false);
	WRITE_ONCE(qp->comp.rto.fired, false);
	sroce_wake_timer_off(&qp->comp.ack);
	sroce_wake_timer_off(&qp->comp.rto);
	qp->comp.rnr_wait = false;
}

void sroce_comp_stop(struct sroce_qp *qp)
{
	sroce_comp_timers_off(qp, true);
}

void sroce_comp_halt(struct sroce_qp *qp)
{
	sroce_comp_timers_off(qp, false);
}

/* RESET: nothing outstanding; the oldest WQE is the ring's @prod. */
void sroce_comp_reset(struct sroce_qp *qp, u32 prod)
{
	qp->comp.head = prod;
	WRITE_ONCE(qp->comp.ack.fired, false);
	WRITE_ONCE(qp->comp.rto.fired, false);
	sroce_wake_timer_off(&qp->comp.ack);
	sroce_wake_timer_off(&qp->comp.rto);
	qp->comp.rnr_wait = false;
	/* A new connection may take another path. */
	qp->comp.rtt = (struct sroce_rtt){};
	qp->comp.bdp = (struct sroce_bdp){};
	qp->comp.rtt_on = false;
	qp->comp.rtt_hold = false;
	qp->comp.rto_shift = 0;
	qp->comp.probe = false;
	qp->comp.peer_sr = false;
}

static bool sroce_comp_outstanding(struct sroce_qp *qp)
{
	return sroce_qp_acked(qp) && qp->comp.psn != qp->req.psn;
}

/*
 * The early resend's timeout in jiffies, or 0: none before the first
 * round trip is measured, none where the device has them off, none that
 * would not come before the local ACK timeout @ack.
 */
static unsigned long sroce_comp_rto(struct sroce_qp *qp, unsigned long ack)
{
	unsigned long t;
	u64 us;

	if (!READ_ONCE(qp->sdev->cc.early_rexmit))
		return 0;
	us = sroce_rto_us(&qp->comp.rtt, qp->comp.rto_shift);
	if (!us)
		return 0;
	/* In u64: a QP's timeout (and a sample) may pass 2^32 us. */
	if (ack && us >= (u64)jiffies_to_msecs(ack) * USEC_PER_MSEC)
		return 0;
	t = usecs_to_jiffies(min_t(u64, us, UINT_MAX));
	return ack && t >= ack ? 0 : t;
}

/*
 * The requester sent packets that ask for an ACK (qp->req.ackreq): time
 * the one it took the time of, and give the answers an RTO from now. A
 * paced QP gets an ACK per SROCE_ACKREQ_EVERY packets, which at a low
 * rate come further apart than an RTO: the wait runs from the request,
 * not from the last answer.
 */
static void sroce_comp_ackreq(struct sroce_qp *qp)
{
	u32 psn = qp->req.ackreq_psn;
	unsigned long rto;

	qp->req.ackreq = false;

	if (qp->req.ackreq_ns && sroce_comp_rtt_wants(qp, psn)) {
		qp->comp.rtt_hold = false;
		qp->comp.rtt_on = true;
		qp->comp.rtt_psn = psn;
		qp->comp.rtt_base = qp->comp.psn;
		qp->comp.rtt_t0 = qp->req.ackreq_ns;
	}
	/* Per packet that asks for an ACK: nothing more while they are off. */
	if (!READ_ONCE(qp->sdev->cc.early_rexmit) || qp->comp.rnr_wait)
		return;
	rto = sroce_comp_rto(qp, sroce_ack_timeout(qp));
	if (rto)
		sroce_wake_timer_due(&qp->comp.rto, jiffies + rto);
}

/*
 * Start the ACK timer, and the early resend's, if they are not running
 * and something waits for them (not while an RNR wait holds the
 * requester: its own timer runs).
 */
void sroce_comp_arm(struct sroce_qp *qp)
{
	unsigned long t = sroce_ack_timeout(qp), rto;

	if (qp->req.ackreq)
		sroce_comp_ackreq(qp);
	if (!sroce_comp_outstanding(qp) || qp->comp.rnr_wait)
		return;
	if (t && !qp->comp.ack.armed)
		sroce_wake_timer_due(&qp->comp.ack, jiffies + t);
	rto = sroce_comp_rto(qp, t);
	if (rto && !qp->comp.rto.armed)
		sroce_wake_timer_due(&qp->comp.rto, jiffies + rto);
}

/* The peer answered something new: the retry budget and timers restart. */
static void sroce_comp_progress(struct sroce_qp *qp)
{
	unsigned long t = sroce_ack_timeout(qp), rto;

	qp->comp.retry = qp->attr.retry_cnt;
	qp->comp.rnr_retry = qp->attr.rnr_retry;
	qp->comp.gap = false;
	if (qp->comp.rtt_on &&
	    sroce_psn_before(qp->comp.rtt_psn, qp->comp.psn)) {
		u32 us = div_u64(ktime_get_ns() - qp->comp.rtt_t0,
				 NSEC_PER_USEC);

		qp->comp.rtt_on = false;
		sroce_rtt_sample(&qp->comp.rtt, us);
		/* What the peer took in that round trip sizes the window. */
		sroce_bdp_sample(&qp->comp.bdp, us,
				 sroce_psn_diff(qp->comp.psn,
						qp->comp.rtt_base));
		sroce_count(qp->sdev, SROCE_CNT_RTT_SAMPLES, 1);
	}
	qp->comp.rto_shift = 0;
	qp->comp.probe = false;
	if (!sroce_comp_outstanding(qp)) {
		sroce_wake_timer_off(&qp->comp.ack);
		sroce_wake_timer_off(&qp->comp.rto);
		return;
	}
	if (t)
		sroce_wake_timer_due(&qp->comp.ack, jiffies + t);
	rto = sroce_comp_rto(qp, t);
	if (rto)
		sroce_wake_timer_due(&qp->comp.rto, jiffies + rto);
	else
		sroce_wake_timer_off(&qp->comp.rto);
}

/*
 * Everything before @psn is acknowledged: complete the sends and writes
 * it covers. A read or atomic it covers unanswered means its responses
 * were lost (the responder went on past it): resend from there. Returns
 * the first WQE not covered, or NULL.
 */
static struct sroce_swqe *sroce_comp_ack_before(struct sroce_qp *qp, u32 psn)
{
	struct sroce_swqe *s;
	u32 i, last;

	for (i = qp->comp.head; i != qp->req.fetched; i++) {
		s = sroce_swqe(qp, i);
		if (s->state == SROCE_SWQE_DONE)
			continue;
		if (s->state == SROCE_SWQE_NEW ||
		    !sroce_psn_before(s->first_psn, psn))
			return s;
		last = sroce_psn_add(s->first_psn, s->npsn - 1);
		if (!sroce_psn_before(last, psn)) {
			/* Part of a long send or write is through. */
			if (!sroce_op_is_rd(s->h.opcode) &&
			    sroce_psn_before(qp->comp.psn, psn))
				qp->comp.psn = psn;
			return s;
		}
		if (sroce_op_is_rd(s->h.opcode)) {
			if (!qp->comp.gap &&
			    !sroce_sq_rewind(qp, qp->comp.psn, SROCE_REXMIT_READ))
				qp->comp.gap = true;
			return NULL;
		}
		sroce_sq_done(s, IB_WC_SUCCESS);
		qp->comp.psn = sroce_psn_add(last, 1);
	}
	return NULL;
}

static u8 sroce_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case SROCE_NAK_REM_OP:
		return IB_WC_REM_OP_ERR;
	default:
		return IB_WC_REM_INV_REQ_ERR;
	}
}

static void sroce_comp_rnr(struct sroce_qp *qp, struct sroce_swqe *s,
			   u32 psn, u8 timer)
{
	sroce_count(qp->sdev, SROCE_CNT_RNR_NAK_RCVD, 1);
	if (!qp->comp.rnr_retry) {
		sroce_sq_done(s, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	/* 7 means retry for ever. */
	if (qp->comp.rnr_retry != 7)
		qp->comp.rnr_retry--;
	qp->comp.rnr_wait = true;
	qp->comp.rnr_psn = psn;
	sroce_wake_timer_off(&qp->comp.ack);
	mod_timer(&qp->comp.rnr.timer,
		  jiffies + usecs_to_jiffies(sroce_rnr_usecs[timer & 31]));
}

static void sroce_comp_aeth(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u8 syn = pkt->f.aeth.syndrome;
	u32 psn = pkt->f.psn;
	struct sroce_swqe *s;
	u32 old = qp->comp.psn;
	bool gap;

	switch (syn & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_ACK:
		sroce_comp_ack_before(qp, sroce_psn_add(psn, 1));
		if (qp->comp.psn == old)
			return;
		/* Only an ACK that acknowledges something new says it. */
		qp->comp.peer_sr = pkt->f.sr && qp->req.sr_sent;
		/*
		 * The probe answered and nothing past it: the responder had
		 * dropped the rest, which goes again now. An answer past it
		 * means the RTO was early; nothing more is resent.
		 */
		gap = qp->comp.probe &&
		      qp->comp.psn == sroce_psn_add(qp->comp.probe_psn, 1);
		sroce_comp_progress(qp);
		if (gap && sroce_comp_outstanding(qp) && !qp->comp.rnr_wait)
			sroce_sq_rewind(qp, qp->comp.psn, SROCE_REXMIT_PROBE);
		return;
	case SROCE_AETH_RNR_NAK:
		trace_sroce_nak(qp->ibqp.qp_num, psn, syn, false);
		s = sroce_comp_ack_before(qp, psn);
		if (s && s->state != SROCE_SWQE_NEW)
			sroce_comp_rnr(qp, s, psn, syn & SROCE_AETH_VALUE_MASK);
		return;
	case SROCE_AETH_NAK:
		trace_sroce_nak(qp->ibqp.qp_num, psn, syn, false);
		/*
		 * Selective repeat's NAK (sroce_ooo.c) asks for its PSN alone
		 * and acknowledges nothing. Only a responder this requester
		 * announced it to since RESET sends one, whatever the device
		 * says now; from any other, the bit is reserved and ignored.
		 */
		if (pkt->f.sr && qp->req.sr_sent &&
		    (syn & SROCE_AETH_VALUE_MASK) == SROCE_NAK_PSN_SEQ) {
			sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_RCVD, 1);
			if (qp->comp.rnr_wait)
				return;
			sroce_count(qp->sdev, SROCE_CNT_SEL_REXMIT, 1);
			sroce_sq_resend_one(qp, psn, SROCE_REXMIT_SR);
			return;
		}
		break;
	default:
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_BAD, 1);
		return;
	}
	s = sroce_comp_ack_before(qp, psn);
	if (qp->comp.psn != old)
		sroce_comp_progress(qp);
	if (!s || s->state == SROCE_SWQE_NEW)
		return;
	if ((syn & SROCE_AETH_VALUE_MASK) == SROCE_NAK_PSN_SEQ) {
		sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_RCVD, 1);
		/* The RNR wait resends from there anyway. */
		if (qp->comp.rnr_wait)
			return;

		/*
		 * No retry is charged: the peer is alive, and with reordering
		 * or duplicated NAKs one gap can bring several. A peer that
		 * NAKs without ever moving on still runs into the ACK timer,
		 * which a NAK does not restart.
		 */
		sroce_sq_rewind(qp, psn, SROCE_REXMIT_NAK);
		return;
	}
	sroce_sq_done(s, sroce_nak_status(syn & SROCE_AETH_VALUE_MASK));
}

/*
 * FLUSH and ATOMIC WRITE: an empty READ_RESP_ONLY answers them (A19). An
 * answer with a payload, or an atomic ACK, is a response of another kind.
 */
static void sroce_comp_a19(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			   struct sroce_swqe *s)
{
	if (pkt->info->op != SROCE_OP_READ_RESP ||
	    pkt->info->pos != SROCE_POS_ONLY || pkt->pay_len) {
		sroce_sq_done(s, IB_WC_BAD_RESP_ERR);
		return;
	}
	sroce_sq_done(s, IB_WC_SUCCESS);
	qp->comp.psn = sroce_psn_add(pkt->f.psn, 1);
	sroce_comp_progress(qp);
}

/* A read response or an atomic ACK for the WQE that waits for it. */
static void sroce_comp_rd(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info = pkt->info;
	u32 psn = pkt->f.psn, idx, want;
	struct sroce_access acc;
	struct sroce_swqe *s;
	u64 off, orig;
	int ret;

	s = sroce_comp_ack_before(qp, psn);
	if (!s || s->state == SROCE_SWQE_NEW ||
	    !sroce_op_takes_res(s->h.opcode))
		return;
	if (psn != qp->comp.psn) {
		/* A response is missing: ask again from it, once per gap. */
		if (sroce_psn_before(qp->comp.psn, psn) && !qp->comp.gap &&
		    !sroce_sq_rewind(qp, qp->comp.psn, SROCE_REXMIT_READ))
			qp->comp.gap = true;
		return;
	}
	if (sroce_op_is_a19(s->h.opcode)) {
		sroce_comp_a19(qp, pkt, s);
		return;
	}
	idx = sroce_psn_diff(psn, s->first_psn);
	if (info->op == SROCE_OP_ATOMIC_ACK) {
		if (s->h.opcode == IB_WR_RDMA_READ)
			goto bad;
		orig = pkt->f.atmack_orig;
		acc = (struct sroce_access){
			.pd = qp->pd, .len = sizeof(orig),
			.rights = IB_ACCESS_LOCAL_WRITE,
		};
		ret = sroce_sge_copy(qp->sdev, &acc, s->sge, 1, 0, &orig,
				     NULL);
		sroce_sq_done(s, ret ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
		qp->comp.psn = sroce_psn_add(psn, 1);
		sroce_comp_progress(qp);
		return;
	}
	if (s->h.opcode != IB_WR_RDMA_READ)
		goto bad;
	/* Where in the message, and whether the packet is what fits there. */
	off = (u64)idx * qp->mtu;
	want = min_t(u64, qp->mtu, s->length - off);
	if (pkt->pay_len != want ||
	    !!(info->pos & SROCE_POS_FIRST) != !idx ||
	    !!(info->pos & SROCE_POS_LAST) != (idx == s->npsn - 1))
		goto bad;
	acc = (struct sroce_access){
		.pd = qp->pd, .len = want, .rights = IB_ACCESS_LOCAL_WRITE,
	};
	ret = sroce_sge_copy(qp->sdev, &acc, s->sge, s->h.num_sge, off,
			     (void *)(pkt->bth + pkt->pay_off), NULL);
	if (ret) {
		sroce_sq_done(s, IB_WC_LOC_PROT_ERR);
		return;
	}
	qp->comp.psn = sroce_psn_add(psn, 1);
	if (idx == s->npsn - 1)
		sroce_sq_done(s, IB_WC_SUCCESS);
	sroce_comp_progress(qp);
	return;
bad:
	sroce_sq_done(s, IB_WC_BAD_RESP_ERR);
}

static void sroce_comp_packet(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt pkt;
	u32 psn;

	/* UC and UD have nothing out that a response could answer. */
	if (!sroce_qp_acked(qp) ||
	    sroce_parse(skb->data, skb->len, qp->mtu, &pkt) != SROCE_PARSE_OK ||
	    pkt.info->transport != SROCE_TR_RC) {
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_BAD, 1);
		return;
	}
	/*
	 * Only PSNs sent and not yet acknowledged mean anything now: not
	 * those given to a message that has not sent them yet.
	 */
	psn = pkt.f.psn;
	if (!sroce_psn_in_window(psn, qp->comp.psn,
				 sroce_psn_diff(qp->req.psn_sent,
						qp->comp.psn))) {
		sroce_count(qp->sdev, SROCE_CNT_RX_STALE_RESP, 1);
		return;
	}
	if (pkt.info->op == SROCE_OP_ACK)
		sroce_comp_aeth(qp, &pkt);
	else
		sroce_comp_rd(qp, &pkt);
}

/* The ACK timer fired with requests outstanding and no progress since. */
static void sroce_comp_timeout(struct sroce_qp *qp)
{
	struct sroce_swqe *s;

	if (!sroce_comp_outstanding(qp) || qp->comp.rnr_wait)
		return;
	sroce_count(qp->sdev, SROCE_CNT_ACK_TIMEOUT, 1);
	if (!qp->comp.retry) {
		s = sroce_comp_ack_before(qp, qp->comp.psn);
		if (s && s->state != SROCE_SWQE_NEW)
			sroce_sq_done(s, IB_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry--;
	qp->comp.gap = false;
	sroce_sq_rewind(qp, qp->comp.psn, SROCE_REXMIT_TIMEOUT);
	sroce_comp_arm(qp);
}

/*
 * An RTO passed without progress: before the local ACK timeout, and
 * charging no retry (rtt.h), resend the oldest PSN not answered, alone
 * and asking for an ACK. Its answer says whether the rest must follow
 * (sroce_comp_aeth()): a round trip that only ran long costs one packet,
 * not the window.
 */
static void sroce_comp_early(struct sroce_qp *qp)
{
	if (!sroce_comp_outstanding(qp) || qp->comp.rnr_wait)
		return;
	sroce_count(qp->sdev, SROCE_CNT_EARLY_REXMIT, 1);
	if (qp->comp.rto_shift < SROCE_RTO_MAX_SHIFT)
		qp->comp.rto_shift++;
	qp->comp.gap = false;
	qp->comp.probe = true;
	qp->comp.probe_psn = qp->comp.psn;
	sroce_sq_resend_one(qp, qp->comp.psn, SROCE_REXMIT_EARLY);
	sroce_comp_arm(qp);
}

void sroce_comp_run(struct sroce_qp *qp, int *budget)
{
	struct sk_buff *skb;
	bool ack, rto;
	u32 old;

	if (READ_ONCE(qp->comp.rnr.fired)) {
		WRITE_ONCE(qp->comp.rnr.fired, false);
		if (qp->comp.rnr_wait) {
			qp->comp.rnr_wait = false;
			sroce_sq_rewind(qp, qp->comp.rnr_psn,
					SROCE_REXMIT_RNR);
			sroce_comp_arm(qp);
		}
	}
	/*
	 * Answers that arrived count before the timer that fired: if they
	 * moved anything forward, the deadline moved and this expiry is
	 * void.
	 */
	old = qp->comp.psn;
	while (*budget > 0 && (skb = sroce_fifo_take(&qp->resp_fifo))) {
		sroce_comp_packet(qp, skb);
		consume_skb(skb);
		(*budget)--;
	}
	ack = sroce_wake_timer_expired(&qp->comp.ack);
	rto = sroce_wake_timer_expired(&qp->comp.rto);
	/* The local ACK timeout, if both expired, resends (and charges). */
	if (ack && qp->comp.psn == old)
		sroce_comp_timeout(qp);
	else if (rto && qp->comp.psn == old)
		sroce_comp_early(qp);
	sroce_sq_retire(qp);
}
