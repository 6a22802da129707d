// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: selective repeat, the responder's half. The IBTA's responder
 * drops every request past a gap in the PSNs and NAKs the gap once; the
 * requester then sends everything from there again (go-back-N), about a
 * round trip of packets per loss. Between two sroce QPs, where the
 * requests carry SROCE_BTH_SR (sroce_qp_sr_offer(): cc_sel_repeat 2 on
 * the requester's device, or 1 once the peer's requests carried it) and
 * the responder's device has cc_sel_repeat on, the responder keeps those
 * requests instead. Each PSN
 * missing before one it keeps gets a PSN sequence NAK with SROCE_BTH_SR
 * set, as soon as the hole shows: such a NAK asks for that PSN alone and,
 * unlike the IBTA's, acknowledges nothing (holes before it may still be
 * open), so several holes are mended within one round trip. Once the
 * expected PSN comes, the kept requests are executed in PSN order, exactly
 * as if they had come in order: only their arrival was early. What is
 * lost with no request behind it, and a lost resend, are the early
 * resend's to find (sroce_comp.c).
 *
 * The responder's ACKs carry SROCE_BTH_SR too, while the peer's requests
 * do and the device has it on. One slot per PSN of the requester's
 * largest window (SROCE_MAX_INFLIGHT_CAP, what a 20 ms path needs), by
 * PSN, in pages allocated as the PSNs kept reach them and freed when
 * nothing is kept: a request further ahead is dropped as without
 * selective repeat.
 *
 * The wire is hostile. Whether the peer speaks selective repeat is learnt
 * from its in-sequence requests only (sroce_ooo_learn()), never from one
 * ahead of the expected PSN, which anyone who guessed the window could
 * send; until then a packet past a gap is the IBTA's: NAKed and dropped.
 * What a peer makes us hold is bounded: a window of packets and a share
 * of the device's bytes (SROCE_OOO_QP_SHARE) per QP, SROCE_OOO_DEV_BYTES
 * per device (ooo_refused counts what either turns away), and for
 * SROCE_OOO_AGE without progress at the expected PSN (then they go,
 * counted in ooo_expired; the requester still has them).
 *
 * The store is the responder's: only its pass (and the QP's teardown,
 * once the engines are stopped) touches it, so it takes no lock.
 */
#include "sroce.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "engine/sroce_ooo.h"
#include "net/sroce_net.h"

#define SROCE_OOO_SLOTS		SROCE_MAX_INFLIGHT_CAP
/* Slots come a page at a time, as the PSNs kept reach them. */
#define SROCE_OOO_PER_PAGE	(PAGE_SIZE / sizeof(struct sk_buff *))
#define SROCE_OOO_PAGES		DIV_ROUND_UP(SROCE_OOO_SLOTS, SROCE_OOO_PER_PAGE)
/*
 * NAKs while the expected PSN stays where it is: what the requester
 * queues (SROCE_RESEND_ONE_MAX). It also bounds what a peer that lies
 * gets back for its packets. A longer burst of losses is the early
 * resend's to mend.
 */
#define SROCE_OOO_NAKS		SROCE_RESEND_ONE_MAX
/*
 * The bytes (truesize) all QPs of a device may hold past gaps: 64 windows
 * of full 1 KiB packets, some 16 of 4 KiB ones. debugfs may set a lower
 * limit (sdev->ooo_max), so that tests reach it with a few packets.
 */
#define SROCE_OOO_DEV_BYTES	(64UL << 20)
/*
 * A QP may hold this fraction of the device's bytes: 32 MiB, a window of
 * SROCE_OOO_SLOTS full 4 KiB packets (their truesize up to 8 KiB), and
 * what one peer holds leaves the other half to the device's other QPs.
 */
#define SROCE_OOO_QP_SHARE	2
/* How long kept requests may wait without progress at the expected PSN. */
#define SROCE_OOO_AGE		(10 * HZ)

/*
 * A QP's requests kept past a gap, by PSN: qp->resp.ooo, allocated at
 * the first gap and freed with the QP; its pages only while it keeps.
 */
struct sroce_ooo {
	unsigned long bytes;	/* their truesize, charged to the device */
	struct sk_buff **page[SROCE_OOO_PAGES];
};

static u32 sroce_ooo_psn(const struct sk_buff *skb)
{
	/* Receive put only packets with a whole BTH in the FIFO. */
	return sroce_get_be24(((const struct sroce_bth *)skb->data)->psn);
}

/* The slot of @psn, or NULL where no page holds it. */
static struct sk_buff **sroce_ooo_slot(struct sroce_qp *qp, u32 psn)
{
	u32 i = psn % SROCE_OOO_SLOTS;
	struct sk_buff **page;

	if (!qp->resp.ooo)
		return NULL;
	page = qp->resp.ooo->page[i / SROCE_OOO_PER_PAGE];
	return page ? &page[i % SROCE_OOO_PER_PAGE] : NULL;
}

/* The slot of @psn, its page allocated if need be; NULL if that fails. */
static struct sk_buff **sroce_ooo_slot_new(struct sroce_qp *qp, u32 psn)
{
	u32 i = psn % SROCE_OOO_SLOTS;
	struct sk_buff ***page;

	if (!qp->resp.ooo) {
		/* Only a QP that sees a gap pays for a store. */
		qp->resp.ooo = kzalloc(sizeof(*qp->resp.ooo), GFP_ATOMIC);
		if (!qp->resp.ooo)
			return NULL;
	}
	page = &qp->resp.ooo->page[i / SROCE_OOO_PER_PAGE];
	if (!*page) {
		*page = (struct sk_buff **)get_zeroed_page(GFP_ATOMIC);
		if (!*page)
			return NULL;
	}
	return &(*page)[i % SROCE_OOO_PER_PAGE];
}

/*
 * Nothing is kept: the pages go, so that what a QP holds between gaps is
 * the store's header alone, whatever PSNs its gaps were at.
 */
static void sroce_ooo_trim(struct sroce_qp *qp)
{
	u32 p;

	if (!qp->resp.ooo || qp->resp.ooo_n)
		return;
	for (p = 0; p < SROCE_OOO_PAGES; p++) {
		free_page((unsigned long)qp->resp.ooo->page[p]);
		qp->resp.ooo->page[p] = NULL;
	}
}

/* @skb, kept, is no longer: its bytes go back to the QP and the device. */
static void sroce_ooo_uncharge(struct sroce_qp *qp, struct sk_buff *skb)
{
	qp->resp.ooo->bytes -= skb->truesize;
	atomic_long_sub(skb->truesize, &qp->sdev->ooo_bytes);
}

/* Forget the request kept in @slot. */
static void sroce_ooo_drop(struct sroce_qp *qp, struct sk_buff **slot)
{
	sroce_ooo_uncharge(qp, *slot);
	kfree_skb(*slot);
	*slot = NULL;
	qp->resp.ooo_n--;
}

/*
 * May the QP hold @skb past a gap, within its share and the device's
 * bound? If so, the device is charged; the QP is once @skb has a slot.
 */
static bool sroce_ooo_charge(struct sroce_qp *qp, struct sk_buff *skb)
{
	unsigned long max = READ_ONCE(qp->sdev->ooo_max);
	unsigned long mine = qp->resp.ooo ? qp->resp.ooo->bytes : 0;
	atomic_long_t *held = &qp->sdev->ooo_bytes;

	/* Lower only: 0 and anything above are the default. */
	if (!max || max > SROCE_OOO_DEV_BYTES)
		max = SROCE_OOO_DEV_BYTES;
	if (mine + skb->truesize > max / SROCE_OOO_QP_SHARE)
		return false;
	if (atomic_long_add_return(skb->truesize, held) <= max)
		return true;
	atomic_long_sub(skb->truesize, held);
	return false;
}

/* The expected PSN moved, or a first request is kept: the age restarts. */
static void sroce_ooo_progress(struct sroce_qp *qp)
{
	qp->resp.ooo_since = jiffies;
	if (!timer_pending(&qp->resp.ooo_age.timer))
		mod_timer(&qp->resp.ooo_age.timer, jiffies + SROCE_OOO_AGE);
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

	/* A slot per PSN mod SROCE_OOO_SLOTS, the same across the wrap. */
	BUILD_BUG_ON(!is_power_of_2(SROCE_OOO_SLOTS) ||
		     SROCE_OOO_SLOTS > SROCE_PSN_MASK);
	if (npsn > SROCE_OOO_SLOTS || d >= SROCE_OOO_SLOTS - npsn + 1)
		return SROCE_OOO_NO;
	/*
	 * All that is kept behind the expected PSN (in the PSNs of a READ
	 * done since) will never be taken: a new gap opens at the expected
	 * PSN, and their bytes do not count against this request.
	 */
	if (qp->resp.ooo_n &&
	    sroce_psn_before(qp->resp.ooo_top, qp->resp.psn))
		sroce_ooo_purge(qp);
	slot = sroce_ooo_slot(qp, psn);
	if (slot && *slot) {
		if (sroce_ooo_psn(*slot) == psn)
			return SROCE_OOO_HAD;
		/* One the expected PSN passed (a READ's PSNs): never taken. */
		sroce_ooo_drop(qp, slot);
	}
	if (!sroce_ooo_charge(qp, skb))
		goto refuse;
	slot = sroce_ooo_slot_new(qp, psn);
	if (!slot) {
		atomic_long_sub(skb->truesize, &qp->sdev->ooo_bytes);
		goto refuse;
	}
	qp->resp.ooo->bytes += skb->truesize;
	if (!qp->resp.ooo_n) {
		sroce_ooo_progress(qp);
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
refuse:
	sroce_count(qp->sdev, SROCE_CNT_OOO_REFUSED, 1);
	sroce_ooo_trim(qp);
	return SROCE_OOO_NO;
}

/* The request kept for the expected PSN, or NULL. */
struct sk_buff *sroce_ooo_take(struct sroce_qp *qp)
{
	struct sk_buff **slot, *skb;

	if (!qp->resp.ooo_n)
		return NULL;
	slot = sroce_ooo_slot(qp, qp->resp.psn);
	skb = slot ? *slot : NULL;
	if (!skb)
		return NULL;
	if (sroce_ooo_psn(skb) != qp->resp.psn) {
		sroce_ooo_drop(qp, slot);
		sroce_ooo_trim(qp);
		return NULL;
	}
	*slot = NULL;
	qp->resp.ooo_n--;
	sroce_ooo_uncharge(qp, skb);
	sroce_ooo_trim(qp);
	sroce_ooo_progress(qp);
	return skb;
}

/* Forget every request kept: they will come again, or never matter. */
void sroce_ooo_purge(struct sroce_qp *qp)
{
	struct sk_buff **page;
	u32 p, i;

	for (p = 0; qp->resp.ooo_n && p < SROCE_OOO_PAGES; p++) {
		page = qp->resp.ooo->page[p];
		for (i = 0; page && qp->resp.ooo_n && i < SROCE_OOO_PER_PAGE; i++)
			if (page[i])
				sroce_ooo_drop(qp, &page[i]);
	}
	sroce_ooo_trim(qp);
}

/*
 * The request at the expected PSN has come: whether it carries selective
 * repeat's bit (@sr) says whether the peer speaks it, for the responder
 * and for the requester's own requests (sroce_qp_sr_offer()). It is
 * progress too: what is kept further ahead ages from now.
 */
void sroce_ooo_learn(struct sroce_qp *qp, bool sr)
{
	if (qp->resp.ooo_n)
		qp->resp.ooo_since = jiffies;
	sr = sr && READ_ONCE(qp->sdev->cc.sel_repeat) != SROCE_SR_OFF;
	qp->resp.sr = sr;
	if (READ_ONCE(qp->sr_peer) != sr)
		WRITE_ONCE(qp->sr_peer, sr);
}

/*
 * The responder's pass, when the age timer fired: what was kept goes if
 * the expected PSN has not moved for SROCE_OOO_AGE, else the timer waits
 * for the rest of that time.
 */
void sroce_ooo_age(struct sroce_qp *qp)
{
	unsigned long end = qp->resp.ooo_since + SROCE_OOO_AGE;
	u32 n = qp->resp.ooo_n;

	if (!READ_ONCE(qp->resp.ooo_age.fired))
		return;
	WRITE_ONCE(qp->resp.ooo_age.fired, false);
	if (!n)
		return;
	if (time_before(jiffies, end)) {
		mod_timer(&qp->resp.ooo_age.timer, end);
		return;
	}
	sroce_ooo_purge(qp);
	sroce_count(qp->sdev, SROCE_CNT_OOO_EXPIRED, n);
}

/* The engines are stopped: no age timer runs on return. Process context. */
void sroce_ooo_stop(struct sroce_qp *qp)
{
	del_timer_sync(&qp->resp.ooo_age.timer);
	WRITE_ONCE(qp->resp.ooo_age.fired, false);
}

void sroce_ooo_free(struct sroce_qp *qp)
{
	u32 p;

	if (!qp->resp.ooo)
		return;
	sroce_ooo_purge(qp);
	for (p = 0; p < SROCE_OOO_PAGES; p++)
		free_page((unsigned long)qp->resp.ooo->page[p]);
	kfree(qp->resp.ooo);
	qp->resp.ooo = NULL;
}
