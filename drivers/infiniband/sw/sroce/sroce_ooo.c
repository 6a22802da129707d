// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: selective repeat, the responder's half. The IBTA's responder
 * drops every request past a gap in the PSNs and NAKs the gap once; the
 * requester then sends everything from there again (go-back-N), about a
 * round trip of packets per loss. Between two sroce QPs, where the
 * requests carry SROCE_BTH_SR and the responder's device has
 * cc_sel_repeat on, the responder keeps those requests instead. Each PSN
 * missing before one it keeps gets a PSN sequence NAK with SROCE_BTH_SR
 * set, as soon as the hole shows: such a NAK asks for that PSN alone and,
 * unlike the IBTA's, acknowledges nothing (holes before it may still be
 * open), so several holes are mended within one round trip. Once the
 * expected PSN comes, the kept requests are executed in PSN order, exactly
 * as if they had come in order: only their arrival was early. What is
 * lost with no request behind it, and a lost resend, are the early
 * resend's to find (sroce_comp.c).
 *
 * The responder's ACKs carry SROCE_BTH_SR too, while the requests do
 * and the device has it on: the requester's window then grows to
 * SROCE_SR_INFLIGHT, as a gap no longer costs the window. One slot per
 * PSN of it, by PSN: a request further ahead is dropped as without
 * selective repeat. A peer that lies can hold at most a window of
 * packets per QP, until the QP leaves RTS or is reset.
 */
#include "sroce.h"
#include "sroce_ooo.h"
#include "sroce_qp.h"

#define SROCE_OOO_SLOTS		SROCE_SR_INFLIGHT
/*
 * NAKs while the expected PSN stays where it is: what the requester
 * queues (SROCE_RESEND_ONE_MAX). It also bounds what a peer that lies
 * gets back for its packets. A longer burst of losses is the early
 * resend's to mend.
 */
#define SROCE_OOO_NAKS		SROCE_RESEND_ONE_MAX

static u32 sroce_ooo_psn(const struct sk_buff *skb)
{
	/* Receive put only packets with a whole BTH in the FIFO. */
	return sroce_get_be24(((const struct sroce_bth *)skb->data)->psn);
}

static struct sk_buff **sroce_ooo_slot(struct sroce_qp *qp, u32 psn)
{
	return &qp->resp.ooo[psn % SROCE_OOO_SLOTS];
}

/* Ask for each PSN from @from up to @psn, not included, alone. */
static void sroce_ooo_nak_hole(struct sroce_qp *qp, u32 from, u32 psn)
{
	u32 n = sroce_psn_diff(psn, from);

	if (qp->resp.ooo_nak_psn != qp->resp.psn) {
		qp->resp.ooo_nak_psn = qp->resp.psn;
		qp->resp.ooo_naks = 0;
	}
	n = min(n, SROCE_OOO_NAKS - qp->resp.ooo_naks);
	qp->resp.ooo_naks += n;
	for (; n; n--, from = sroce_psn_add(from, 1)) {
		sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_SENT, 1);
		sroce_tx_aeth(qp, SROCE_OPCODE(RC, ACK), from,
			      SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ,
			      qp->resp.msn, 0, true);
	}
}

/*
 * A request @d PSNs past the expected one, taking @npsn PSNs (a READ's
 * are its responses'), from a requester that announced selective repeat:
 * keep @skb until the gap before it fills, and NAK the PSNs missing
 * before it that no NAK asked for yet.
 */
enum sroce_ooo_res sroce_ooo_arrive(struct sroce_qp *qp, struct sk_buff *skb,
				    u32 psn, u32 d, u32 npsn)
{
	struct sk_buff **slot;

	if (npsn > SROCE_OOO_SLOTS || d >= SROCE_OOO_SLOTS - npsn + 1)
		return SROCE_OOO_NO;
	if (!qp->resp.ooo) {
		/* Only a QP that sees a gap pays for the slots. */
		qp->resp.ooo = kcalloc(SROCE_OOO_SLOTS, sizeof(*qp->resp.ooo),
				       GFP_ATOMIC);
		if (!qp->resp.ooo)
			return SROCE_OOO_NO;
	}
	slot = sroce_ooo_slot(qp, psn);
	if (*slot) {
		if (sroce_ooo_psn(*slot) == psn)
			return SROCE_OOO_HAD;
		/* One the expected PSN passed (a READ's PSNs): never taken. */
		kfree_skb(*slot);
		qp->resp.ooo_n--;
	}
	/*
	 * All that is kept behind the expected PSN (in the PSNs of a READ
	 * done since) will never be taken: a new gap opens at the expected
	 * PSN.
	 */
	if (qp->resp.ooo_n &&
	    sroce_psn_before(qp->resp.ooo_top, qp->resp.psn))
		sroce_ooo_purge(qp);
	if (!qp->resp.ooo_n) {
		sroce_ooo_nak_hole(qp, qp->resp.psn, psn);
		qp->resp.ooo_top = sroce_psn_add(psn, npsn - 1);
	} else if (sroce_psn_before(qp->resp.ooo_top, psn)) {
		sroce_ooo_nak_hole(qp, sroce_psn_add(qp->resp.ooo_top, 1), psn);
		qp->resp.ooo_top = sroce_psn_add(psn, npsn - 1);
	}
	*slot = skb;
	qp->resp.ooo_n++;
	sroce_count(qp->sdev, SROCE_CNT_OOO_KEPT, 1);
	return SROCE_OOO_KEPT;
}

/* The request kept for the expected PSN, or NULL. */
struct sk_buff *sroce_ooo_take(struct sroce_qp *qp)
{
	struct sk_buff **slot, *skb;

	if (!qp->resp.ooo_n)
		return NULL;
	slot = sroce_ooo_slot(qp, qp->resp.psn);
	skb = *slot;
	if (!skb)
		return NULL;
	*slot = NULL;
	qp->resp.ooo_n--;
	if (sroce_ooo_psn(skb) == qp->resp.psn)
		return skb;
	kfree_skb(skb);
	return NULL;
}

/* Forget every request kept: they will come again, or never matter. */
void sroce_ooo_purge(struct sroce_qp *qp)
{
	u32 i;

	for (i = 0; qp->resp.ooo_n && i < SROCE_OOO_SLOTS; i++) {
		if (qp->resp.ooo[i]) {
			kfree_skb(qp->resp.ooo[i]);
			qp->resp.ooo[i] = NULL;
			qp->resp.ooo_n--;
		}
	}
}

void sroce_ooo_free(struct sroce_qp *qp)
{
	if (!qp->resp.ooo)
		return;
	sroce_ooo_purge(qp);
	kfree(qp->resp.ooo);
	qp->resp.ooo = NULL;
}
