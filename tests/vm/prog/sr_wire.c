// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sr_wire DEVICE GID_INDEX PEER_IFACE: selective repeat (SROCE_BTH_SR,
 * sroce_ooo.c) on the wire, against an RC peer this program plays on
 * PEER_IFACE (wire_peer.h). P is the PSN a responder expects.
 *
 * A stranger's SR bits (a peer whose in-sequence requests never carried
 * it): a WRITE with SR past a gap gets the IBTA's NAK without SR and is
 * not kept, nor is a READ under R_Key 0 further ahead, which never ends
 * the QP in ERR; 1023 more with SR past the gap, none kept. sroce's own
 * requests to such a peer carry no SR with cc_sel_repeat 1, and carry it
 * once the peer's in-sequence request did.
 *
 * sroce answering a peer whose in-sequence request carried SR, its
 * device's cc_sel_repeat 1, requests with SR: WRITEs at P+2 (past the PSN
 * wrap), P+1, P+2 again get one SR NAK each for P and P+1, nothing else,
 * and do not land; P then makes all three land in PSN order, acknowledged
 * by one ACK for P+2 with SR. A second gap NAKs only the PSNs no NAK
 * asked for yet, and what fills the first of two holes is done alone.
 * ooo_kept counts what was kept. A READ kept past a gap is answered in its
 * turn, its PSNs not NAKed as missing, and the rest of it kept too does
 * not count as a hole still open; 200 kept, and 3000 (past the 1024
 * slots of old), are all done when the hole fills, 32 NAKs at the most
 * for a hole, and one at P+4096, past the slots, is not kept; one QP
 * holds at most half of the device's bytes past gaps while another
 * still keeps; a kept WRITE that fails is NAKed
 * in its turn and ends it; a MIDDLE that leaves nothing for the LAST is an
 * invalid request; what was kept is gone after a reset, and freed
 * with the QP (the sk_buffs come back), and what waits past a hole that
 * sees no progress for 10 s goes by itself (ooo_expired). Without SR on
 * the requests, and with SR but cc_sel_repeat 0: one NAK without SR for P
 * per gap, what is past it dropped, ACKs without SR; sroce's own requests
 * carry no SR then.
 *
 * sroce asking, cc_sel_repeat 2 (SR offered to every peer), early resends
 * off: its WRITEs carry SR; an SR NAK for a PSN inside one gets that PSN
 * alone again, with AckReq, and completes nothing; one for a PSN not
 * outstanding gets nothing; a NAK without SR goes back N from its PSN and
 * completes what is before it; a resend stopped inside a WRITE that an ACK
 * then completes goes on with the next WRITE whole, and one stopped
 * inside a WRITE that an ACK overtakes goes on past what it acknowledged;
 * an ACK for a PSN given to a WRITE but not sent yet is dropped
 * (rx_stale_resp) and acknowledges nothing. A new QP has 32
 * PSNs outstanding at the most, and one more for each acknowledged, up
 * to 256 (one more a window after a CNP from the peer); then twice the
 * bandwidth-delay product the round trips it timed say, never below 256
 * and never above 4096. Early resends on: an
 * RTO after the last request, the oldest PSN not answered alone, with
 * AckReq; an ACK for just it, and the rest follows; an ACK past it, and
 * only probes of the next PSN follow.
 * Prints TAP; exits non-zero if a check (not a TODO) failed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "wire_peer.h"

#define LEN		(64 << 10)	/* the target */
#define WLEN		32		/* each WRITE of the peer's */
#define MTU		1024		/* the path MTU (wire_qp_rts()) */
#define SLEN		(1100 << 10)	/* what sroce writes from */
#define RVA		0x7000000000ull	/* where, at the peer */
#define RKEY		0x4321
#define ACK_OK		(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID)
#define NAK_SEQ		(SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ)
#define ACC		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ)
#define OP(x)		SROCE_OPCODE(RC, x)
#define QUIET		300		/* ms of silence that say "nothing" */
#define NKEEP		768		/* requests kept past a hole, at once */
#define SLOTS		4096	/* the largest window; the slots past a gap */
/*
 * A new QP's window (SROCE_WIN_START, sroce_req.c) grows by each PSN
 * acknowledged until it reaches the fixed one (SROCE_MAX_INFLIGHT), or
 * a CNP from the peer cuts its rate (cnp_window()).
 */
#define WIN_START	32
#define WIN_FIXED	256
#define NPLANT		1023		/* a stranger's, past a hole */
#define HELLO		(LEN - WLEN)	/* where the peer's first WRITE goes */

static struct ibv_pd *pd;
static struct ibv_cq *cq;
static unsigned char *mem, *model, *src;
static struct ibv_mr *mr, *smr;

/*
 * Nothing from sroce within @ms: 1. Else 0, and what came (up to 3 s of
 * it) is read and shown, so that the next check starts afresh.
 */
static int quiet_for(int ms)
{
	long long end = tap_now_ms() + 3000;
	struct wire_got g;
	int n = 0;

	while (tap_now_ms() < end && wire_recv(&g, ms))
		if (n++ < 5)
			printf("# unlooked for: %s PSN %#x syndrome %#x MSN %u SR %d\n",
			       g.pkt.info->name, g.pkt.f.psn,
			       g.pkt.f.aeth.syndrome, g.pkt.f.aeth.msn,
			       g.pkt.f.sr);
	if (n > 5)
		printf("# ... %d packets in all\n", n);
	return !n;
}

static int quiet(void)
{
	return quiet_for(QUIET);
}

/* An RC QP in RTS with the peer: its requests from @rq, sroce's from @sq. */
/* As qp_new(), with the local ACK timeout @timeout. */
static struct ibv_qp *qp_new_to(unsigned int rq, unsigned int sq, int timeout)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	/* What an earlier check left on the wire is not this QP's. */
	quiet_for(50);
	if (qp && wire_qp_rts(qp, ACC, 4, rq, sq, timeout)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static struct ibv_qp *qp_new(unsigned int rq, unsigned int sq)
{
	/* About 4 s: no local ACK timeout while the peer takes its time. */
	return qp_new_to(rq, sq, 20);
}

/* Device attribute cc_@name set to @v: its value before, or -1. */
static int knob(const char *name, int v)
{
	char path[256];
	int old = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/cc_%s",
		 wire.dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	fclose(f);
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fprintf(f, "%d\n", v) < 0)
		old = -1;
	if (fclose(f))
		old = -1;
	return old;
}

/*
 * The peer's WRITE ONLY number @i of a run from @p0 (at PSN @p0 + @i):
 * WLEN bytes of 0xa0 + @i at mem + 16 * @i, so that each overlaps the
 * next and only PSN order leaves the model's bytes.
 */
static int put_key(struct ibv_qp *qp, unsigned int p0, int i, bool sr,
		   bool ackreq, uint32_t rkey)
{
	unsigned char pay[WLEN];
	struct sroce_fields f = {
		.opcode = OP(WRITE_ONLY), .psn = sroce_psn_add(p0, i),
		.ackreq = ackreq, .sr = sr,
		.reth = { .va = (uintptr_t)mem + 16 * i, .rkey = rkey,
			  .len = WLEN },
	};

	memset(pay, 0xa0 + i, WLEN);
	return wire_send(qp, &f, pay, WLEN);
}

static int put(struct ibv_qp *qp, unsigned int p0, int i, bool sr,
	       bool ackreq)
{
	return put_key(qp, p0, i, sr, ackreq, mr->rkey);
}

/* What put(..., @i, ...) leaves in memory, done in the model. */
static void done(int i)
{
	memset(model + 16 * i, 0xa0 + i, WLEN);
}

static void model_reset(void)
{
	memset(mem, 0, LEN);
	memset(model, 0, LEN);
}

static int mem_as_model(void)
{
	return !memcmp(mem, model, LEN);
}

/*
 * The next packet from sroce is an ACK (@syn ACK_OK) or a NAK for @psn,
 * with SR (@sr) or without, and MSN @msn unless ~0u: NULL, or why not.
 */
static const char *aeth_is(unsigned int psn, int syn, bool sr,
			   unsigned int msn)
{
	struct wire_got g;

	return wire_expect(&g, OP(ACK), psn, syn, msn, sr);
}

/* put() @i, then aeth_is(@psn, @syn, @sr, @msn): NULL, or why not. */
static const char *put_answer(struct ibv_qp *qp, unsigned int p0, int i,
			      bool sr, bool ackreq, unsigned int psn, int syn,
			      unsigned int msn)
{
	if (put(qp, p0, i, sr, ackreq))
		return "send failed";
	return aeth_is(psn, syn, sr, msn);
}

static long long counter(const char *name)
{
	return hw_counter(wire.dev, name);
}

/*
 * An RC QP in RTS with a peer that speaks selective repeat: its first
 * request, at @p - 1, carried SR (to mem + HELLO) and was ACKed with SR,
 * MSN 1; P = @p is expected next. NULL if that failed (and why).
 */
static struct ibv_qp *qp_new_sr(unsigned int p, unsigned int sq)
{
	unsigned int p0 = sroce_psn_add(p, SROCE_PSN_MASK);
	unsigned char pay[WLEN];
	struct sroce_fields f = {
		.opcode = OP(WRITE_ONLY), .psn = p0, .ackreq = true, .sr = true,
		.reth = { .va = (uintptr_t)mem + HELLO, .len = WLEN },
	};
	struct ibv_qp *qp = qp_new(p0, sq);
	const char *err = qp ? NULL : "no QP";

	memset(pay, 0xee, WLEN);
	f.reth.rkey = mr->rkey;
	if (!err)
		err = wire_send(qp, &f, pay, WLEN) ? "send failed" :
		      aeth_is(p0, ACK_OK, true, 1);
	if (err) {
		printf("# the peer's first request with SR: %s\n", err);
		if (qp)
			ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* Counter @name grew from @from by @by (within 10 s): printed either way. */
static int grew(const char *name, long long from, long long by)
{
	long long v = wire_counter_at(name, from + by);

	printf("# %s %lld -> %lld, want +%lld\n", name, from, v, by);
	return v == from + by;
}

#define CHECK_ERR(err, fmt, ...) \
	check(!(err), fmt " (%s)", ##__VA_ARGS__, (err) ? (err) : "ok")

/*
 * A READ with SR at @p0 + @i under R_Key @rkey, of 4 KiB: what a spoofer
 * who guessed the window plants to end the QP.
 */
static int get_key(struct ibv_qp *qp, unsigned int p0, int i, uint32_t rkey)
{
	struct sroce_fields f = {
		.opcode = OP(READ_REQ), .psn = sroce_psn_add(p0, i),
		.ackreq = true, .sr = true,
		.reth = { .va = (uintptr_t)mem, .rkey = rkey, .len = 4096 },
	};

	return wire_send(qp, &f, NULL, 0);
}

/*
 * SR bits from a peer whose in-sequence requests never carried one (or
 * from a spoofer ahead of the window): the IBTA's responder, nothing kept.
 */
static void sr_stranger(void)
{
	unsigned int p = 0x900;
	long long kept0 = counter("ooo_kept");
	struct ibv_qp *qp = qp_new(p, 0x100);
	const char *err;
	int i;

	if (!check(qp != NULL, "stranger: a QP expecting P = %#x", p))
		return;
	model_reset();
	err = put(qp, p, 1, true, true) ? "send failed" :
	      aeth_is(p, NAK_SEQ, false, 0);
	CHECK_ERR(err, "stranger: a WRITE with SR at P+1 before any in sequence: the IBTA's NAK for P, without SR");
	check(!get_key(qp, p, 3, 0) && quiet(),
	      "stranger: a READ with SR under R_Key 0 at P+3: nothing (the gap was NAKed)");
	check(wire_qp_in(qp, IBV_QPS_RTS), "stranger: the QP stays in RTS");
	done(0);
	err = put_answer(qp, p, 0, false, true, p, ACK_OK, 1);
	CHECK_ERR(err, "stranger: then P without SR: ACK for P alone, MSN 1");
	check(quiet(), "stranger: ... nothing else: the planted READ is never done");
	check(wire_qp_in(qp, IBV_QPS_RTS) && mem_as_model(),
	      "stranger: the QP in RTS, only P written (not the WRITE at P+1)");
	/* P+1 expected: a stranger plants at P+2 on. */
	for (i = 2, err = NULL; i < NPLANT + 2 && !err; i++)
		if (put(qp, p, i, true, false))
			err = "send failed";
	if (!err)
		err = aeth_is(sroce_psn_add(p, 1), NAK_SEQ, false, 1);
	CHECK_ERR(err, "stranger: %d WRITEs with SR at P+2 on: one NAK for P+1, without SR",
		  NPLANT);
	/* Answered after all of them: the receive FIFO keeps its order. */
	done(1);
	err = put_answer(qp, p, 1, false, true, sroce_psn_add(p, 1), ACK_OK, 2);
	CHECK_ERR(err, "stranger: then P+1: ACK for P+1 alone, MSN 2");
	check(grew("ooo_kept", kept0, 0) && mem_as_model(),
	      "stranger: none of them was kept or written");
	ibv_destroy_qp(qp);
}

/* SR requests past a gap are kept, NAKed per hole, done in PSN order. */
static void sr_keeps(void)
{
	unsigned int p = 0xfffffe;	/* P+2 is past the PSN wrap */
	long long kept0 = counter("ooo_kept");
	struct ibv_qp *qp = qp_new_sr(p, 0x100);
	const char *err;

	if (!check(qp != NULL, "SR responder: a QP expecting P = %#x, its peer's first request with SR ACKed with SR", p))
		return;
	model_reset();
	err = put_answer(qp, p, 2, true, true, p, NAK_SEQ, ~0u);
	if (!err)
		err = aeth_is(sroce_psn_add(p, 1), NAK_SEQ, true, ~0u);
	CHECK_ERR(err, "WRITE at P+2 with SR: an SR NAK for P, then one for P+1");
	check(quiet(), "... and nothing else (no NAK for P+2, no ACK)");
	check(!put(qp, p, 1, true, false) && quiet(),
	      "WRITE at P+1 with SR: kept, no NAK (P+1 was asked for), no ACK");
	check(!put(qp, p, 2, true, true) && quiet(),
	      "P+2 again: no NAK, no ACK");
	check(mem_as_model(), "nothing of P+1 or P+2 is written yet");
	done(0);
	done(1);
	done(2);
	err = put_answer(qp, p, 0, true, false, sroce_psn_add(p, 2), ACK_OK, 4);
	CHECK_ERR(err, "WRITE at P with SR: P, P+1, P+2 acknowledged at once, ACK for P+2 with SR, MSN 4");
	check(quiet(), "... that ACK alone");
	check(mem_as_model(), "all three written, in PSN order");
	check(grew("ooo_kept", kept0, 2), "ooo_kept counts the two kept");

	/* P+3 expected: a gap of two, then one of one past it. */
	err = put_answer(qp, p, 5, true, false, sroce_psn_add(p, 3), NAK_SEQ, ~0u);
	if (!err)
		err = aeth_is(sroce_psn_add(p, 4), NAK_SEQ, true, ~0u);
	CHECK_ERR(err, "P+3 expected, P+5 with SR: SR NAKs for P+3 and P+4");
	err = put_answer(qp, p, 7, true, false, sroce_psn_add(p, 6), NAK_SEQ, ~0u);
	CHECK_ERR(err, "then P+7: an SR NAK for P+6 alone");
	check(quiet(), "... and nothing else");
	check(!put(qp, p, 6, true, false) && quiet(),
	      "then P+6: kept, no NAK");
	done(3);
	err = put_answer(qp, p, 3, true, true, sroce_psn_add(p, 3), ACK_OK, 5);
	CHECK_ERR(err, "then P+3 with AckReq: ACK for P+3 with SR, MSN 5");
	check(quiet() && mem_as_model(),
	      "... nothing more: P+5 to P+7 wait for P+4, unwritten");
	done(4);
	done(5);
	done(6);
	done(7);
	err = put_answer(qp, p, 4, true, false, sroce_psn_add(p, 7), ACK_OK, 9);
	CHECK_ERR(err, "then P+4: P+4 to P+7 done, ACK for P+7 with SR, MSN 9");
	check(mem_as_model(), "P+3 to P+7 written in PSN order");
	check(grew("ooo_kept", kept0, 5), "ooo_kept counts the three kept since");
	ibv_destroy_qp(qp);
}

/*
 * The IBTA's responder, for requests with SR (@sr, where the device has
 * it off) or without: one NAK without SR for P per gap, what is past it
 * dropped.
 */
static void ibta_gap(const char *what, bool sr)
{
	unsigned int p = 0x200;
	long long kept0 = counter("ooo_kept");
	struct ibv_qp *qp = qp_new(p, 0x100);
	const char *err;

	if (!check(qp != NULL, "%s: a QP", what))
		return;
	model_reset();
	err = put(qp, p, 1, sr, true) ? "send failed" :
	      aeth_is(p, NAK_SEQ, false, 0);
	CHECK_ERR(err, "%s: WRITE at P+1: one NAK for P, without SR", what);
	check(quiet(), "%s: ... and nothing else", what);
	check(!put(qp, p, 1, sr, true) && quiet(),
	      "%s: P+1 again: no second NAK for the same gap", what);
	check(mem_as_model(), "%s: P+1 is not written", what);
	done(0);
	done(1);
	err = put(qp, p, 0, sr, false) ? "send failed" :
	      put(qp, p, 1, sr, true) ? "send failed" :
	      aeth_is(sroce_psn_add(p, 1), ACK_OK, false, 2);
	CHECK_ERR(err, "%s: P, then P+1 again: ACK for P+1 without SR, MSN 2",
		  what);
	check(quiet() && mem_as_model(),
	      "%s: ... that ACK alone, both written", what);
	check(grew("ooo_kept", kept0, 0), "%s: ooo_kept unchanged", what);
	ibv_destroy_qp(qp);
}

/* A signaled WRITE of @len bytes from src + @off to RVA + @off. */
static int post_write(struct ibv_qp *qp, uint64_t id, size_t off,
		      unsigned int len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src + off, .length = len,
		.lkey = smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr = { .rdma = { .remote_addr = RVA + off, .rkey = RKEY } },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* The request req_is() read last. */
static struct wire_got rq;

/*
 * The request read last (rq) is a WRITE @opcode at @psn, with SR (@sr)
 * or without, AckReq @ackreq (-1: either), carrying src + @off for one
 * path MTU (at most to @end); a FIRST or ONLY with the RETH of a WRITE
 * of src + @off to @end: NULL, or why not.
 */
static const char *req_was(int opcode, unsigned int psn, bool sr, int ackreq,
			   size_t off, size_t end)
{
	static char why[200];
	unsigned int len = end - off < MTU ? end - off : MTU;
	const struct sroce_fields *f = &rq.pkt.f;
	int same;

	same = rq.pkt.pay_len == len &&
	       !memcmp(rq.pkt.bth + rq.pkt.pay_off, src + off, len);
	if (f->opcode != opcode || f->psn != psn || f->sr != sr ||
	    (ackreq >= 0 && f->ackreq != ackreq) ||
	    ((opcode == OP(WRITE_FIRST) || opcode == OP(WRITE_ONLY)) &&
	     (f->reth.va != RVA + off || f->reth.rkey != RKEY ||
	      f->reth.len != end - off)) ||
	    f->dqpn != WIRE_PEER_QPN || !rq.icrc_ok || !same) {
		snprintf(why, sizeof(why),
			 "got %s PSN %#x SR %d AckReq %d QPN %#x VA %#llx length %u, %u payload bytes%s, ICRC %s",
			 rq.pkt.info->name, f->psn, f->sr, f->ackreq, f->dqpn,
			 (unsigned long long)f->reth.va, f->reth.len,
			 rq.pkt.pay_len, same ? "" : " not as posted",
			 rq.icrc_ok ? "ok" : "bad");
		return why;
	}
	return NULL;
}

/* sroce's next request is as req_was() wants it: NULL, or why not. */
static const char *req_is(int opcode, unsigned int psn, bool sr, int ackreq,
			  size_t off, size_t end)
{
	if (!wire_recv(&rq, 10000))
		return "nothing came";
	return req_was(opcode, psn, sr, ackreq, off, end);
}

/* The peer's ACK or NAK (@syn) for @psn, with SR (@sr) or without. */
static int answer(struct ibv_qp *qp, unsigned int psn, int syn, bool sr)
{
	struct sroce_fields f = {
		.opcode = OP(ACK), .psn = psn, .sr = sr,
		.aeth = { .syndrome = syn },
	};

	return wire_send(qp, &f, NULL, 0);
}

/* Completions @id, @id + 1, ... @n of them, successful WRITEs. */
static int wcs_ok(uint64_t id, int n)
{
	struct ibv_wc wc;

	for (; n; n--, id++) {
		if (!tap_next_wc(cq, &wc) || wc.wr_id != id ||
		    wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_RDMA_WRITE) {
			printf("# want WC %llu: got %llu, status %s\n",
			       (unsigned long long)id,
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
			return 0;
		}
	}
	return 1;
}

static int no_wc(void)
{
	struct ibv_wc wc;

	return ibv_poll_cq(cq, 1, &wc) == 0;
}

/*
 * A one-packet WRITE (WR @id, at @sq) and one of three (@id + 1): sroce's
 * requests on the wire, as posted, with SR (@sr). src at 0 and 1024 on.
 */
static const char *four_requests(struct ibv_qp *qp, uint64_t id,
				 unsigned int sq, bool sr)
{
	const char *err;

	if (post_write(qp, id, 0, 512) || post_write(qp, id + 1, 1024, 3072))
		return "posting failed";
	err = req_is(OP(WRITE_ONLY), sq, sr, 1, 0, 512);
	if (!err)
		err = req_is(OP(WRITE_FIRST), sq + 1, sr, 0, 1024, 4096);
	if (!err)
		err = req_is(OP(WRITE_MIDDLE), sq + 2, sr, 0, 2048, 4096);
	if (!err)
		err = req_is(OP(WRITE_LAST), sq + 3, sr, 1, 3072, 4096);
	return err;
}

/* The requester resends one PSN for an SR NAK, N for another NAK. */
static void asking(void)
{
	unsigned int sq = 0x41;		/* no AckReq every 32 PSNs in it */
	struct ibv_qp *qp = qp_new(0x100, sq);
	long long sel0, nak0, rex0;
	const char *err;

	if (!check(qp != NULL, "SR requester: a QP, its requests from %#x",
		   sq))
		return;
	err = four_requests(qp, 1, sq, true);
	CHECK_ERR(err, "WRITEs of 1 and 3 packets: ONLY, FIRST, MIDDLE, LAST, each with SR, AckReq on ONLY and LAST, as posted");
	check(quiet_for(200), "... and nothing else");
	sel0 = counter("sel_rexmit");
	nak0 = counter("seq_nak_rcvd");
	rex0 = counter("retransmit");
	err = answer(qp, sq + 2, NAK_SEQ, true) ? "send failed" :
	      req_is(OP(WRITE_MIDDLE), sq + 2, true, 1, 2048, 4096);
	CHECK_ERR(err, "an SR NAK for the MIDDLE: it is sent again, with AckReq and SR, as posted");
	check(quiet_for(200), "... alone: nothing else within 200 ms");
	check(no_wc(), "the SR NAK acknowledges nothing: the WRITE before it is not complete");
	check(grew("sel_rexmit", sel0, 1) && grew("seq_nak_rcvd", nak0, 1) &&
	      grew("retransmit", rex0, 0),
	      "sel_rexmit and seq_nak_rcvd count it, retransmit does not");
	check(!answer(qp, sq + 3, ACK_OK, true) && wcs_ok(1, 2),
	      "an ACK for the LAST completes both WRITEs");
	check(!answer(qp, sq + 2, NAK_SEQ, true) && quiet_for(200),
	      "an SR NAK for a PSN acknowledged since: nothing is sent");
	check(!answer(qp, sq + 9, NAK_SEQ, true) && quiet_for(200),
	      "an SR NAK for a PSN never sent: nothing is sent");

	sq += 4;
	err = four_requests(qp, 3, sq, true);
	CHECK_ERR(err, "two WRITEs more: their four requests");
	sel0 = counter("sel_rexmit");
	rex0 = counter("retransmit");
	err = answer(qp, sq + 2, NAK_SEQ, false) ? "send failed" :
	      req_is(OP(WRITE_MIDDLE), sq + 2, true, -1, 2048, 4096);
	if (!err)
		err = req_is(OP(WRITE_LAST), sq + 3, true, 1, 3072, 4096);
	CHECK_ERR(err, "a NAK without SR for the MIDDLE: go-back-N, MIDDLE and LAST again, in order, as posted");
	check(quiet_for(200), "... and nothing else (nothing before the MIDDLE)");
	check(wcs_ok(3, 1) && no_wc(),
	      "that NAK acknowledges what is before it: the one-packet WRITE completes, the other not");
	check(grew("retransmit", rex0, 1) && grew("sel_rexmit", sel0, 0),
	      "retransmit counts it, sel_rexmit does not");
	check(!answer(qp, sq + 3, ACK_OK, false) && wcs_ok(4, 1),
	      "an ACK for the LAST completes it");
	ibv_destroy_qp(qp);
}

/*
 * Every QP paced at 1 Mb/s (cc_pace_line), one check named after @what:
 * 1 if it is. The line rate and pacing before go in @line and @pace (-1:
 * not read), for pacing_back().
 */
static int paced_slow(const char *what, int *line, int *pace)
{
	*line = knob("line_rate_mbps", 1);
	*pace = knob("pace_line", 1);
	return check(*line > 0 && *pace >= 0,
		     "%spaced at 1 Mb/s (line rate was %d)", what, *line);
}

/* The line rate and pacing paced_slow() found, back; one check. */
static void pacing_back(const char *what, int line, int pace)
{
	check(knob("pace_line", pace < 0 ? 0 : pace) >= 0 &&
	      knob("line_rate_mbps", line < 0 ? 100000 : line) >= 0,
	      "%spacing back to what it was", what);
}

/*
 * A go-back-N NAK inside a WRITE, and an ACK for all of that WRITE right
 * behind it: the resend goes on with the next WRITE from its first byte
 * and PSN. The requester is paced at 1 Mb/s (cc_pace_line), so the ACK
 * comes while the NAK's resend is still in the finished WRITE: sroce
 * once carried the offset reached there over to the next WRITE (a junk
 * MIDDLE at a PSN past it, or its WR failing), seen as an rstream pair
 * that waited for ever under loss, reordering and duplication. Which of
 * the finished WRITE's packets go out again before the ACK is taken is
 * timing: any in order, then the next WRITE whole.
 */
static void rewound_done(void)
{
	unsigned int sq = 0x301;
	struct ibv_qp *qp;
	int line, pace, again = 0;
	const char *err;

	if (!paced_slow("", &line, &pace))
		goto out;
	qp = qp_new(0x100, sq);
	if (!check(qp != NULL, "rewound: a QP, its requests from %#x", sq))
		goto out;
	if (post_write(qp, 31, 1024, 3072) || post_write(qp, 32, 0, 512))
		err = "posting failed";
	else
		err = req_is(OP(WRITE_FIRST), sq, true, 0, 1024, 4096);
	if (!err)
		err = req_is(OP(WRITE_MIDDLE), sq + 1, true, 0, 2048, 4096);
	if (!err)
		err = req_is(OP(WRITE_LAST), sq + 2, true, 1, 3072, 4096);
	if (!err)
		err = req_is(OP(WRITE_ONLY), sq + 3, true, 1, 0, 512);
	CHECK_ERR(err, "rewound: a WRITE of 3 packets and one of 1, as posted");
	if (answer(qp, sq + 1, NAK_SEQ, false) ||
	    answer(qp, sq + 2, ACK_OK, false)) {
		err = "send failed";
	} else {
		err = req_is(OP(WRITE_MIDDLE), sq + 1, true, -1, 2048, 4096);
		if (!err) {
			again++;
			err = req_is(OP(WRITE_LAST), sq + 2, true, -1, 3072,
				     4096);
		}
		if (!err) {
			again++;
			err = req_is(OP(WRITE_ONLY), sq + 3, true, -1, 0, 512);
		} else if (strcmp(err, "nothing came")) {
			err = req_was(OP(WRITE_ONLY), sq + 3, true, -1, 0, 512);
		}
	}
	printf("# %d packet(s) of the first WRITE went again before the ACK\n",
	       again);
	CHECK_ERR(err, "rewound: a NAK for the MIDDLE, an ACK for the LAST: the second WRITE goes again whole, at its own PSN");
	check(wcs_ok(31, 1), "rewound: the ACK completes the first WRITE");
	check(!answer(qp, sq + 3, ACK_OK, false) && wcs_ok(32, 1) && quiet(),
	      "rewound: an ACK completes the second, nothing else is sent");
	ibv_destroy_qp(qp);
out:
	pacing_back("", line, pace);
}

/*
 * A go-back-N NAK inside a long WRITE, and an ACK for part of it right
 * behind: paced at 1 Mb/s, the NAK's resend is still before the PSN the
 * ACK acknowledged when that is taken, and the requester goes on from
 * the first PSN not acknowledged. sroce once took the resend's place,
 * behind the acknowledged PSN, for a full window and sent nothing more
 * until the local ACK timeout; here that is hours (timeout 31), so the
 * rest never came.
 */
static void rewound_inside(void)
{
	unsigned int sq = 0x401, k;
	int line, pace, again = 0;
	const char *err = NULL;
	struct ibv_qp *qp;

	if (!paced_slow("inside: ", &line, &pace))
		goto out;
	qp = qp_new_to(0x100, sq, 31);
	if (!check(qp != NULL,
		   "inside: a QP, its requests from %#x, local ACK timeout 31",
		   sq))
		goto out;
	if (post_write(qp, 33, 0, 8 * MTU))
		err = "posting failed";
	for (k = 0; !err && k < 8; k++)
		err = req_is(k == 0 ? OP(WRITE_FIRST) :
			     k == 7 ? OP(WRITE_LAST) : OP(WRITE_MIDDLE),
			     sq + k, true, k == 7 ? 1 : -1, k * MTU, 8 * MTU);
	CHECK_ERR(err, "inside: a WRITE of 8 packets, as posted");
	if (answer(qp, sq + 1, NAK_SEQ, false) ||
	    answer(qp, sq + 5, ACK_OK, false))
		err = "send failed";
	/* Any of +1 to +5 again, in order, before the ACK is taken. */
	for (k = 1; !err; k++) {
		if (!wire_recv(&rq, 10000)) {
			err = "nothing came";
		} else if (k <= 5 && rq.pkt.f.psn == sq + k) {
			err = req_was(OP(WRITE_MIDDLE), sq + k, true, -1,
				      k * MTU, 8 * MTU);
			again++;
			continue;
		} else {
			err = req_was(OP(WRITE_MIDDLE), sq + 6, true, -1,
				      6 * MTU, 8 * MTU);
		}
		break;
	}
	printf("# %d packet(s) before +6 went again before the ACK\n", again);
	if (!err)
		err = req_is(OP(WRITE_LAST), sq + 7, true, 1, 7 * MTU, 8 * MTU);
	CHECK_ERR(err, "inside: a NAK for +1, an ACK for +5: the resend goes on from +6 to the LAST");
	check(!answer(qp, sq + 7, ACK_OK, false) && wcs_ok(33, 1) && quiet(),
	      "inside: an ACK for the LAST completes the WRITE, nothing else is sent");
	ibv_destroy_qp(qp);
out:
	pacing_back("inside: ", line, pace);
}

/*
 * sroce's requests of one WRITE from @sq: each of PSN @sq + @from to
 * @sq + @from + @n - 1 once, then nothing: 1, or 0 (what came is
 * printed). In any order: sroce's runs of packets leave from either CPU,
 * and the veth's per-CPU queues may swap them.
 */
static int stream(unsigned int sq, unsigned int from, unsigned int n)
{
	static unsigned char seen[SLEN / MTU];
	unsigned int got = 0, d;
	struct wire_got g;

	memset(seen, 0, sizeof(seen));
	while (got < n && wire_recv(&g, 2000)) {
		d = sroce_psn_diff(g.pkt.f.psn, sroce_psn_add(sq, from));
		if (d >= n || seen[d] || g.pkt.info->op != SROCE_OP_WRITE ||
		    !g.pkt.f.sr) {
			printf("# then %s PSN +%d SR %d\n", g.pkt.info->name,
			       sroce_psn_diff(g.pkt.f.psn, sq), g.pkt.f.sr);
			break;
		}
		seen[d] = 1;
		got++;
	}
	printf("# %u of PSN +%u to +%u came\n", got, from, from + n - 1);
	return got == n && quiet();
}

/*
 * The rest of a WRITE from @sq, from PSN +@from on, the first @acked
 * answered: a round at a time, each PSN once and never more than
 * SLOTS outstanding, each round at least the window on from what was
 * answered (WIN_START + @acked, up to WIN_FIXED; or to the last), then
 * an ACK with SR for all that came.
 * 1 once PSN +@n - 1 came and was answered, or 0 (what came is printed).
 */
static int follow(struct ibv_qp *qp, unsigned int sq, unsigned int from,
		  unsigned int acked, unsigned int n)
{
	static unsigned char seen[SLEN / MTU];
	unsigned int d, top = from, most = 0, rounds = 0, least;
	struct wire_got g;

	memset(seen, 0, sizeof(seen));
	while (acked < n) {
		while (wire_recv(&g, 2000)) {
			d = sroce_psn_diff(g.pkt.f.psn, sq);
			if (d < from || d >= n || seen[d] ||
			    d - acked >= SLOTS ||
			    g.pkt.info->op != SROCE_OP_WRITE || !g.pkt.f.sr) {
				printf("# round %u, +%u answered: then %s PSN +%d SR %d\n",
				       rounds, acked, g.pkt.info->name, d,
				       g.pkt.f.sr);
				return 0;
			}
			seen[d] = 1;
		}
		while (top < n && seen[top])
			top++;
		least = WIN_START + acked < WIN_FIXED ? WIN_START + acked :
							  WIN_FIXED;
		if (top - acked < (n - acked < least ? n - acked : least)) {
			printf("# round %u: +%u answered, only up to +%u came\n",
			       rounds, acked, top);
			return 0;
		}
		most = top - acked > most ? top - acked : most;
		if (answer(qp, sroce_psn_add(sq, top - 1), ACK_OK, true))
			return 0;
		acked = top;
		rounds++;
	}
	printf("# %u rounds, at most %u outstanding\n", rounds, most);
	return 1;
}

/*
 * A new QP: WIN_START PSNs outstanding, one more for each acknowledged
 * (slow start), up to WIN_FIXED; then twice the path's bandwidth-delay
 * product, never below WIN_FIXED, at most SLOTS (SROCE_MAX_INFLIGHT_CAP).
 * No CNP comes: the doubling runs its course (cnp_window()).
 */
static void window(void)
{
	unsigned int sq = 0x1000, n = SLEN / MTU;
	struct ibv_qp *qp = qp_new(0x100, sq);

	if (!check(qp != NULL, "window: a QP"))
		return;
	check(!post_write(qp, 9, 0, SLEN) && stream(sq, 0, WIN_START),
	      "a WRITE of %u packets, nothing answered: %d requests, then it waits",
	      n, WIN_START);
	check(!answer(qp, sq, ACK_OK, true) && stream(sq, WIN_START, 2),
	      "an ACK with SR for the first: two more (the window grew by one)");
	check(!answer(qp, sroce_psn_add(sq, 1), ACK_OK, false) &&
	      stream(sq, WIN_START + 2, 2),
	      "an ACK without SR for the second: two more");
	/*
	 * All that came, a = WIN_START + 4, acknowledged: the window is
	 * WIN_START + a from +a, so WIN_START + a more.
	 */
	check(!answer(qp, sroce_psn_add(sq, WIN_START + 3), ACK_OK, true) &&
	      stream(sq, WIN_START + 4, 2 * WIN_START + 4),
	      "an ACK with SR for all %d that came: %d more", WIN_START + 4,
	      2 * WIN_START + 4);
	check(follow(qp, sq, 3 * WIN_START + 8, WIN_START + 4, n),
	      "ACKs with SR for all that came, round by round: the rest, the window growing to at least %d and at most %d outstanding",
	      WIN_FIXED, SLOTS);
	check(wcs_ok(9, 1), "an ACK for the last completes it");
	ibv_destroy_qp(qp);
}

/*
 * A CNP from the peer before the window has grown ends its doubling
 * (struct sroce_start): with WIN_START out and a rate cut, an ACK for
 * the first lets one more out, where the doubling window let two. From
 * then on it grows by one PSN a window acknowledged, and with the path's
 * product: an ACK for all that came brings the rest of a short WRITE.
 * The cut leaves the rate near the line rate (no round trip was
 * measured), so its pacing delays nothing here.
 */
static void cnp_window(void)
{
	unsigned int sq = 0x1800, n = WIN_START + 16;
	struct sroce_fields cnp = { .opcode = SROCE_CNP_OPCODE, .becn = true };
	/* A local ACK timeout of about a minute: no resend between checks. */
	struct ibv_qp *qp = qp_new_to(0x180, sq, 24);
	long long cuts0;

	if (!check(qp != NULL, "cnp window: a QP"))
		return;
	check(!post_write(qp, 51, 0, n * MTU) && stream(sq, 0, WIN_START),
	      "cnp window: a WRITE of %u packets, nothing answered: %d requests",
	      n, WIN_START);
	cuts0 = counter("rate_cuts");
	check(!wire_send(qp, &cnp, NULL, 0) && grew("rate_cuts", cuts0, 1) &&
	      quiet(),
	      "cnp window: a CNP from the peer cuts the rate once, nothing sent");
	check(!answer(qp, sq, ACK_OK, true) && stream(sq, WIN_START, 1),
	      "cnp window: an ACK for the first: one more (the window stays %d)",
	      WIN_START);
	check(!answer(qp, sroce_psn_add(sq, WIN_START), ACK_OK, true) &&
	      stream(sq, WIN_START + 1, n - WIN_START - 1),
	      "cnp window: an ACK for all that came: the other %u",
	      n - WIN_START - 1);
	check(!answer(qp, sroce_psn_add(sq, n - 1), ACK_OK, true) &&
	      wcs_ok(51, 1), "cnp window: an ACK for the last completes it");
	ibv_destroy_qp(qp);
}

/*
 * An ACK for a PSN of a WRITE that has its PSNs but has not sent that
 * one yet (the start window holds it back) acknowledges nothing: only
 * PSNs sent mean anything (rx_stale_resp), as the IBTA's requester drops
 * a response for a PSN it has no request out for. sroce once took it
 * (its PSNs were given out at the WRITE's start) and went on past it.
 */
static void ghost_ack(void)
{
	unsigned int sq = 0x2000;
	struct ibv_qp *qp = qp_new(0x100, sq);
	long long st0;

	if (!check(qp != NULL, "ghost: a QP"))
		return;
	check(!post_write(qp, 41, 0, 64 * MTU) && stream(sq, 0, WIN_START),
	      "ghost: a WRITE of 64 packets, nothing answered: %d requests",
	      WIN_START);
	st0 = counter("rx_stale_resp");
	check(!answer(qp, sroce_psn_add(sq, WIN_START + 8), ACK_OK, true) &&
	      grew("rx_stale_resp", st0, 1) && quiet_for(200) && no_wc(),
	      "ghost: an ACK for +%d, never sent: dropped as rx_stale_resp, nothing sent or completed",
	      WIN_START + 8);
	check(!answer(qp, sroce_psn_add(sq, WIN_START - 1), ACK_OK, true) &&
	      stream(sq, WIN_START, 64 - WIN_START),
	      "ghost: an ACK for all that came: the rest of the WRITE");
	check(!answer(qp, sroce_psn_add(sq, 63), ACK_OK, true) && wcs_ok(41, 1),
	      "ghost: an ACK for the last completes it");
	ibv_destroy_qp(qp);
}

/*
 * With cc_sel_repeat 1, sroce's requests carry no SR to a peer that never
 * sent one, and carry it once the peer's in-sequence request did.
 */
static void asking_stranger(void)
{
	unsigned int sq = 0xc1, rq = 0x100;
	struct ibv_qp *qp = qp_new(rq, sq);
	const char *err;

	if (!check(qp != NULL, "cc_sel_repeat 1: a QP that asks a stranger"))
		return;
	err = four_requests(qp, 21, sq, false);
	CHECK_ERR(err, "cc_sel_repeat 1: to a peer that never sent SR, sroce's requests carry no SR");
	check(!answer(qp, sq + 3, ACK_OK, false) && wcs_ok(21, 2),
	      "cc_sel_repeat 1: an ACK completes them");
	err = put_answer(qp, rq, 0, true, true, rq, ACK_OK, 1);
	CHECK_ERR(err, "cc_sel_repeat 1: the peer's in-sequence WRITE with SR: ACKed with SR");
	err = four_requests(qp, 23, sq + 4, true);
	CHECK_ERR(err, "cc_sel_repeat 1: then sroce's requests carry SR");
	check(!answer(qp, sq + 7, ACK_OK, true) && wcs_ok(23, 2),
	      "cc_sel_repeat 1: an ACK completes them");
	ibv_destroy_qp(qp);
}

/* With cc_sel_repeat 0, sroce's requests carry no SR. */
static void asking_plain(void)
{
	unsigned int sq = 0x81;
	struct ibv_qp *qp = qp_new(0x100, sq);
	const char *err;

	if (!check(qp != NULL, "cc_sel_repeat 0: a QP that asks"))
		return;
	err = four_requests(qp, 5, sq, false);
	CHECK_ERR(err, "cc_sel_repeat 0: sroce's requests carry no SR");
	check(!answer(qp, sq + 3, ACK_OK, false) && wcs_ok(5, 2),
	      "cc_sel_repeat 0: an ACK completes them");
	ibv_destroy_qp(qp);
}

/* The time SO_TIMESTAMPNS gives a packet (CLOCK_REALTIME), now. */
static long long wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The early resend's probe: after an RTO without an answer, sroce's
 * next request is WRITE @opcode at @psn again, alone, with AckReq (as in
 * four_requests(), src + @off to @end). NULL, or why not. It must come an
 * RTO after sroce sent the requests before it: 20 ms at the least, of
 * which a timer may lose a jiffy. They were posted at @posted_ns
 * (wall_ns()), before they were sent, so the probe is at least that long
 * after @posted_ns on any host. The gap after the last request as it
 * arrived is only shown: a busy host may delay that request's arrival
 * and shorten it.
 */
static const char *probe_is(int opcode, unsigned int psn, size_t off,
			    size_t end, long long posted_ns)
{
	long long last_ns = rq.ns, us;
	const char *err = req_is(opcode, psn, true, 1, off, end);

	us = (rq.ns - posted_ns) / 1000;
	printf("# the probe for %#x came %lld us after the requests were posted, %lld us after the last arrived\n",
	       psn, us, (rq.ns - last_ns) / 1000);
	return err ? err : us < 15000 ? "sooner than an RTO" : NULL;
}

/*
 * Early resends on. After an RTO the oldest PSN not answered
 * goes alone (a probe); an ACK for just that PSN makes the rest follow
 * (go-back-N), one past it does not.
 */
static void probing(void)
{
	unsigned int sq = 0x141;
	struct ibv_qp *qp;
	long long ear0, rex0, posted;
	const char *err;
	struct wire_got g;

	if (!check(knob("early_rexmit", 1) == 0, "cc_early_rexmit set to 1"))
		return;
	qp = qp_new(0x100, sq);
	if (!check(qp != NULL, "probe: a QP, its requests from %#x", sq))
		return;
	check(!post_write(qp, 11, 0, 512) &&
	      !req_is(OP(WRITE_ONLY), sq, true, 1, 0, 512) &&
	      !answer(qp, sq, ACK_OK, true) && wcs_ok(11, 1),
	      "probe: a WRITE answered at once, a round trip measured");
	ear0 = counter("early_rexmit");
	rex0 = counter("retransmit");
	posted = wall_ns();
	err = four_requests(qp, 12, sq + 1, true);
	if (!err)
		err = probe_is(OP(WRITE_ONLY), sq + 1, 0, 512, posted);
	CHECK_ERR(err, "probe: four requests unanswered; after an RTO the first again, with AckReq");
	/* Go-back-N comes at once; a probe for sq + 1 again after 2 RTOs. */
	check(!answer(qp, sq + 1, ACK_OK, true) &&
	      !req_is(OP(WRITE_FIRST), sq + 2, true, -1, 1024, 4096) &&
	      !req_is(OP(WRITE_MIDDLE), sq + 3, true, -1, 2048, 4096) &&
	      !req_is(OP(WRITE_LAST), sq + 4, true, 1, 3072, 4096),
	      "probe: an ACK for just its PSN: the rest goes again, in order");
	check(grew("retransmit", rex0, 1) &&
	      wire_counter_at("early_rexmit", ear0 + 1) > ear0,
	      "probe: early_rexmit counts the probe, retransmit the going back");
	check(!answer(qp, sq + 4, ACK_OK, true) && wcs_ok(12, 2),
	      "probe: an ACK for the LAST completes both WRITEs");

	sq += 5;
	posted = wall_ns();
	err = four_requests(qp, 14, sq, true);
	if (!err)
		err = probe_is(OP(WRITE_ONLY), sq, 0, 512, posted);
	CHECK_ERR(err, "probe: four requests more, unanswered: a probe for the first");
	rex0 = counter("retransmit");
	err = answer(qp, sq + 1, ACK_OK, true) ? "send failed" : NULL;
	if (!err && (!wire_recv(&g, QUIET) || g.pkt.f.psn != sq + 2 ||
		     !g.pkt.f.ackreq))
		err = "no probe for the MIDDLE with AckReq";
	while (!err && wire_recv(&g, QUIET))
		if (g.pkt.f.psn != sq + 2 || !g.pkt.f.ackreq)
			err = "more than probes for the MIDDLE";
	CHECK_ERR(err, "probe: an ACK past its PSN: nothing goes back, only probes for the MIDDLE follow, the LAST not again");
	check(grew("retransmit", rex0, 0) && wcs_ok(14, 1),
	      "probe: retransmit unchanged; the one-packet WRITE completes");
	check(!answer(qp, sq + 3, ACK_OK, true) && wcs_ok(15, 1),
	      "probe: an ACK for the LAST completes the other");
	ibv_destroy_qp(qp);
}

/*
 * Early resends off: the local ACK timeout alone (4.096 us << 18, about
 * 1074 ms). An ACK that moves the oldest PSN on moves the deadline too:
 * the request left unanswered goes again a whole timeout after that ACK,
 * not a timeout after it left. (The completer moves a deadline without
 * moving its timer; the timer fires at the old one and starts again for
 * the new.) The ACK goes 300 ms or more after the requests, so a deadline
 * that did not move would bring the resend 300 ms or more before the
 * timeout after the ACK, less the timer wheel's lateness (up to 64
 * jiffies for a timer this far out: 64 ms at HZ 1000); a moved one at
 * most a jiffy before it (the check allows 40 ms). Only a host that
 * delays the ACK past the first deadline, 0.7 s after it was due, could
 * fail a correct driver here.
 */
#define ACK_DEADLINE_TO		18
#define ACK_DEADLINE_MS		((4096LL << ACK_DEADLINE_TO) / 1000000)
static void ack_deadline(void)
{
	unsigned int sq = 0x181;
	long long to0, answered, ms;
	struct ibv_qp *qp;
	const char *err;

	if (!check(knob("early_rexmit", 0) == 1, "cc_early_rexmit set to 0"))
		return;
	qp = qp_new_to(0x100, sq, ACK_DEADLINE_TO);
	if (!check(qp != NULL, "ACK deadline: a QP, its requests from %#x",
		   sq))
		goto out;
	to0 = counter("ack_timeout");
	err = post_write(qp, 41, 0, 512) || post_write(qp, 42, 512, 512) ?
	      "posting failed" : NULL;
	if (!err)
		err = req_is(OP(WRITE_ONLY), sq, true, 1, 0, 512);
	if (!err)
		err = req_is(OP(WRITE_ONLY), sq + 1, true, 1, 512, 1024);
	CHECK_ERR(err, "ACK deadline: two one-packet WRITEs go out");
	usleep(300000);
	answered = wall_ns();
	check(!answer(qp, sq, ACK_OK, true) && wcs_ok(41, 1),
	      "ACK deadline: an ACK for the first, 300 ms later, completes it");
	err = req_is(OP(WRITE_ONLY), sq + 1, true, 1, 512, 1024);
	ms = (rq.ns - answered) / 1000000;
	printf("# the second WRITE went again %lld ms after the ACK\n", ms);
	if (!err && ms < ACK_DEADLINE_MS - 40)
		err = "sooner than a timeout after the ACK";
	CHECK_ERR(err, "ACK deadline: the second goes again a timeout after the ACK, not after it left");
	check(wire_counter_at("ack_timeout", to0 + 1) > to0,
	      "ACK deadline: ack_timeout counts the expiry");
	check(!answer(qp, sq + 1, ACK_OK, true) && wcs_ok(42, 1),
	      "ACK deadline: an ACK for it completes the second");
	ibv_destroy_qp(qp);
out:
	check(knob("early_rexmit", 1) == 0, "cc_early_rexmit back to 1");
}

/* The device's debugfs file @name (sroce/DEVICE/@name) opened for @mode. */
static FILE *dev_debugfs(const char *name, const char *mode)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/kernel/debug/sroce/%s/%s",
		 wire.dev, name);
	return fopen(path, mode);
}

/*
 * The bytes (sk_buff truesize) the device holds past gaps for all its
 * QPs (debugfs sroce/DEVICE/device, ooo_bytes), or -1.
 */
static long long held_bytes(void)
{
	long long v = -1;
	FILE *f = dev_debugfs("device", "r");

	if (!f)
		return -1;
	if (fscanf(f, "ooo_bytes %lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * Active sk_buff heads (/proc/slabinfo's skbuff_head_cache), or -1: a
 * diagnostic only (a KASAN kernel keeps freed objects in quarantine).
 */
static long long skb_heads(void)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	long long act, v = -1;
	char line[512], name[64];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", name, &act) == 2 &&
		    !strcmp(name, "skbuff_head_cache")) {
			v = act;
			break;
		}
	fclose(f);
	return v;
}

/*
 * sroce's next answer is a READ response @opcode at @psn, with an AETH
 * (ACK, MSN @msn) where it has one, carrying mem + @off for one path MTU:
 * NULL, or why not. (Only ACKs say whether the responder keeps what
 * comes past a gap: the SR bit of a response is not looked at.)
 */
static const char *resp_is(int opcode, unsigned int psn, unsigned int msn,
			   size_t off)
{
	static char why[160];
	struct wire_got g;
	const struct sroce_fields *f = &g.pkt.f;
	bool aeth = opcode != OP(READ_RESP_MIDDLE);

	if (!wire_recv(&g, 10000))
		return "nothing came";
	if (f->opcode != opcode || f->psn != psn ||
	    (aeth && (f->aeth.syndrome != ACK_OK || f->aeth.msn != msn)) ||
	    g.pkt.pay_len != MTU || !g.icrc_ok ||
	    memcmp(g.pkt.bth + g.pkt.pay_off, mem + off, MTU)) {
		snprintf(why, sizeof(why),
			 "got %s PSN %#x SR %d syndrome %#x MSN %u, %u payload bytes, ICRC %s",
			 g.pkt.info->name, f->psn, f->sr, f->aeth.syndrome,
			 f->aeth.msn, g.pkt.pay_len, g.icrc_ok ? "ok" : "bad");
		return why;
	}
	return NULL;
}

/*
 * The peer's READ with SR at @p0 + @i of mem + 1024 .. + 4096 (PSNs
 * @p0 + 1 to @p0 + 4), or its rest from @i on, as a requester that goes
 * back into it asks.
 */
static int get(struct ibv_qp *qp, unsigned int p0, int i)
{
	struct sroce_fields f = {
		.opcode = OP(READ_REQ), .psn = sroce_psn_add(p0, i),
		.ackreq = true, .sr = true,
		.reth = { .va = (uintptr_t)mem + 1024 * i, .rkey = mr->rkey,
			  .len = 4096 - 1024 * (i - 1) },
	};

	return wire_send(qp, &f, NULL, 0);
}

/* mem + 1024 .. + 4096, what get() reads, made known. */
static void read_area(void)
{
	memset(mem + 1024, 0x5c, 4096);
	memcpy(model + 1024, mem + 1024, 4096);
}

/*
 * A READ of four PSNs kept past a gap: the PSNs it takes are not missing,
 * and no NAK asks for them; it is answered in its turn.
 */
static void kept_read(void)
{
	unsigned int p = 0x500;
	struct ibv_qp *qp = qp_new_sr(p, 0x100);
	const char *err;

	if (!check(qp != NULL, "kept READ: a QP"))
		return;
	model_reset();
	read_area();
	err = get(qp, p, 1) ? "send failed" : aeth_is(p, NAK_SEQ, true, ~0u);
	CHECK_ERR(err, "kept READ: a READ of 4 KiB at P+1 (PSNs P+1 to P+4) with SR: an SR NAK for P");
	check(!put(qp, p, 5, true, false) && quiet(),
	      "kept READ: then a WRITE at P+5: kept, and no NAK for P+2 to P+4, the READ's");
	done(0);
	done(5);
	err = put(qp, p, 0, true, false) ? "send failed" :
	      resp_is(OP(READ_RESP_FIRST), p + 1, 3, 1024);
	if (!err)
		err = resp_is(OP(READ_RESP_MIDDLE), p + 2, 0, 2048);
	if (!err)
		err = resp_is(OP(READ_RESP_MIDDLE), p + 3, 0, 3072);
	if (!err)
		err = resp_is(OP(READ_RESP_LAST), p + 4, 3, 4096);
	if (!err)
		err = aeth_is(p + 5, ACK_OK, true, 4);
	CHECK_ERR(err, "kept READ: then P: the READ answered at P+1 to P+4, then an ACK for P+5, MSN 4");
	check(quiet() && mem_as_model(),
	      "kept READ: ... nothing else; P and P+5 written");
	ibv_destroy_qp(qp);
}

/*
 * Requests kept at PSNs that a READ kept before them covers (the rest of
 * it, as a requester asks for that goes back into it) are never taken:
 * once the gap before them has filled and the READ is done, they must
 * not count as a hole still open. A later gap is NAKed from the expected
 * PSN, as ever.
 */
static void kept_stale(void)
{
	unsigned int p = 0x700, i;
	struct ibv_qp *qp = qp_new_sr(p, 0x100);
	const char *err = NULL;
	struct wire_got g;
	int acked = 0, none;

	if (!check(qp != NULL, "READ rest kept: a QP"))
		return;
	model_reset();
	read_area();
	if (get(qp, p, 1) || put(qp, p, 5, true, false))
		err = "send failed";
	/* The SR NAKs kept_read() checks. */
	while (wire_recv(&g, QUIET))
		;
	for (i = 2; i <= 4 && !err; i++)
		if (get(qp, p, i))
			err = "send failed";
	done(0);
	done(5);
	if (!err && put(qp, p, 0, true, false))
		err = "send failed";
	/* The READ's answers, then the ACK for P+5 kept_read() checks. */
	while (!err && !acked && wire_recv(&g, QUIET))
		acked = g.pkt.f.opcode == OP(ACK) && g.pkt.f.psn == p + 5;
	if (!err && !acked)
		err = "no ACK for P+5";
	CHECK_ERR(err, "READ rest kept: a READ at P+1 kept, a WRITE at P+5, the READ's rest at P+2 to P+4, then P: all done to P+5");
	for (i = 6; i <= 45 && !err; i++) {
		done(i);
		if (put(qp, p, i, true, i == 45))
			err = "send failed";
	}
	if (!err)
		err = aeth_is(p + 45, ACK_OK, true, ~0u);
	CHECK_ERR(err, "READ rest kept: then P+6 to P+45 in order: an ACK for P+45");
	err = put(qp, p, 47, true, false) ? "send failed" :
	      aeth_is(p + 46, NAK_SEQ, true, ~0u);
	none = quiet();
	check(!err && none, "READ rest kept: then P+47: an SR NAK for P+46 alone (%s)",
	      err ? err : "ok");
	check(mem_as_model(), "READ rest kept: P, P+5 to P+45 written");
	ibv_destroy_qp(qp);
}

/*
 * @n requests kept past a hole, sent from the furthest down (@n 3000:
 * past the 1024 slots of old, as a 20 ms path's window needs): when it
 * fills, all are done in order, in runs of the QP's budget, each run's
 * ACK for the last it did (their order on the veth is not looked at:
 * runs may leave from either CPU). A request at P+SLOTS, past the slots,
 * is not kept: the IBTA's NAK for P. Sent 64 at a time, each 64 kept
 * (ooo_kept) before the next, so that none is lost past the receive
 * FIFO.
 */
/*
 * Wait up to @ms for ooo_kept, plus ooo_refused with @refused, to reach
 * @want: whether it did.
 */
static bool counted_within(bool refused, long long want, int ms)
{
	long long end = tap_now_ms() + ms;

	for (;;) {
		if (counter("ooo_kept") +
		    (refused ? counter("ooo_refused") : 0) >= want)
			return true;
		if (tap_now_ms() > end)
			return false;
		usleep(2000);
	}
}

static void kept_many(unsigned int p, unsigned int n)
{
	unsigned int top = p - 1, i;
	struct ibv_qp *qp = qp_new_sr(p, 0x100);
	long long kept0 = counter("ooo_kept"), t0 = tap_now_ms();
	const char *err = NULL;
	struct wire_got g;

	if (!check(qp != NULL, "kept %u: a QP", n))
		return;
	model_reset();
	for (i = n; i > 0 && !err; i--) {
		if (put(qp, p, i, true, false))
			err = "send failed";
		if (err || (n - i + 1) % 64)
			continue;
		if (!counted_within(false, kept0 + n - i + 1, 20000))
			err = "not kept as sent (ooo_kept, 20 s)";
	}
	/* P+n NAKs P to P+31, what the requester queues; then no more. */
	for (i = 0; i < 32 && !err; i++)
		err = aeth_is(p + i, NAK_SEQ, true, ~0u);
	if (!CHECK_ERR(err, "kept %u: WRITEs at P+%u down to P+1 with SR: SR NAKs for P to P+31",
		       n, n)) {
		ibv_destroy_qp(qp);
		return;
	}
	check(quiet(), "kept %u: ... and nothing else", n);
	printf("# %u sent in %lld ms\n", n, tap_now_ms() - t0);
	check(grew("ooo_kept", kept0, n), "kept %u: all kept (ooo_kept)", n);
	err = put(qp, p, SLOTS, true, false) ? "send failed" :
	      wire_expect(&g, OP(ACK), p, NAK_SEQ, ~0u, -1);
	CHECK_ERR(err, "kept %u: P+%u, past the slots: a NAK for P", n, SLOTS);
	check(quiet() && grew("ooo_kept", kept0, n),
	      "kept %u: ... nothing else, and it is not kept", n);
	for (i = 0; i <= n; i++)
		done(i);
	err = put(qp, p, 0, true, false) ? "send failed" : NULL;
	/* Up to the one for P+n, then until all is quiet. */
	while (!err && wire_recv(&g, top == p + n ? QUIET : 2000)) {
		if (g.pkt.f.opcode != OP(ACK) ||
		    g.pkt.f.aeth.syndrome != ACK_OK || !g.pkt.f.sr ||
		    sroce_psn_diff(g.pkt.f.psn, p) < 0 ||
		    sroce_psn_diff(g.pkt.f.psn, p) > (int)n)
			err = "not an ACK with SR for P to P+n";
		else if (sroce_psn_before(top, g.pkt.f.psn))
			top = g.pkt.f.psn;
	}
	printf("# the highest ACK for P%+d\n", sroce_psn_diff(top, p));
	check(!err && top == p + n,
	      "kept %u: then P: ACKs with SR up to one for P+%u, nothing else",
	      n, n);
	check(mem_as_model(), "kept %u: all %u written, in PSN order", n,
	      n + 1);
	ibv_destroy_qp(qp);
}

/* A kept request that fails is NAKed in its turn; the rest never lands. */
static void kept_fails(void)
{
	unsigned int p = 0x400;
	struct ibv_qp *qp = qp_new_sr(p, 0x100);
	const char *err;
	struct wire_got g;

	if (!check(qp != NULL, "kept and failing: a QP"))
		return;
	model_reset();
	err = put_key(qp, p, 1, true, false, mr->rkey ^ 0x100) ?
	      "send failed" : aeth_is(p, NAK_SEQ, true, ~0u);
	CHECK_ERR(err, "kept and failing: P+1 under an unknown R_Key, with SR: an SR NAK for P");
	check(!put(qp, p, 2, true, true) && quiet(),
	      "kept and failing: P+2: kept, no NAK");
	done(0);
	err = put(qp, p, 0, true, false) ? "send failed" :
	      wire_expect(&g, OP(ACK), sroce_psn_add(p, 1),
			  SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS, 2, -1);
	CHECK_ERR(err, "kept and failing: P: done, then P+1's turn: a Remote Access NAK for P+1, MSN 2");
	check(quiet() && wire_qp_in(qp, IBV_QPS_ERR) &&
	      mem_as_model(),
	      "kept and failing: ... nothing else, the QP in ERR, only P written");
	ibv_destroy_qp(qp);
}

/*
 * A WRITE whose MIDDLE leaves nothing for a LAST (the RETH says two path
 * MTUs, FIRST and MIDDLE carry one each): an Invalid Request NAK for the
 * MIDDLE and the QP in ERR, the IBTA's answer to a message longer than
 * its RETH, not a message left open that no LAST can end (a WRITE with
 * immediate whose receive completion would never come).
 */
static void write_overrun(void)
{
	unsigned int p = 0x700;
	struct ibv_qp *qp = qp_new(p, 0x100);
	unsigned char pay[MTU];
	struct sroce_fields f = {
		.opcode = OP(WRITE_FIRST), .psn = p,
		.reth = { .va = (uintptr_t)mem, .rkey = mr->rkey,
			  .len = 2 * MTU },
	};
	struct wire_got g;
	const char *err;

	if (!check(qp != NULL, "overrun: a QP"))
		return;
	memset(pay, 0x5a, MTU);
	if (wire_send(qp, &f, pay, MTU)) {
		err = "send failed";
	} else {
		f.opcode = OP(WRITE_MIDDLE);
		f.psn = sroce_psn_add(p, 1);
		err = wire_send(qp, &f, pay, MTU) ? "send failed" :
		      wire_expect(&g, OP(ACK), f.psn,
				  SROCE_AETH_NAK | SROCE_NAK_INV_REQ, ~0u, -1);
	}
	CHECK_ERR(err, "overrun: a WRITE of 2 MTUs, FIRST then a MIDDLE: an Invalid Request NAK for the MIDDLE");
	check(wire_qp_in(qp, IBV_QPS_ERR), "overrun: the QP in ERR");
	ibv_destroy_qp(qp);
}

/* What is kept past a hole that never fills goes with a reset, and the QP. */
static void kept_freed(void)
{
	unsigned int p = 0x300;
	long long kept0, a, b, c, sa, sb, end;
	struct ibv_qp *qp = qp_new_sr(p, 0x100);
	const char *err;
	int i;

	if (!check(qp != NULL, "kept and reset: a QP"))
		return;
	model_reset();
	err = put_answer(qp, p, 1, true, false, p, NAK_SEQ, ~0u);
	CHECK_ERR(err, "kept and reset: P+1 with SR kept, an SR NAK for P");
	check(!ibv_modify_qp(qp, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET },
			     IBV_QP_STATE) &&
	      !wire_qp_rts(qp, ACC, 4, p, 0x100, 20),
	      "kept and reset: the QP reset, and in RTS again expecting P");
	done(0);
	err = put_answer(qp, p, 0, true, true, p, ACK_OK, 1);
	CHECK_ERR(err, "kept and reset: P with AckReq: ACK for P alone, MSN 1");
	check(quiet() && mem_as_model(),
	      "kept and reset: ... the P+1 kept before the reset never lands");
	ibv_destroy_qp(qp);

	qp = qp_new_sr(p, 0x100);
	if (!check(qp != NULL, "kept and destroyed: a QP"))
		return;
	kept0 = counter("ooo_kept");
	a = held_bytes();
	sa = skb_heads();
	for (i = 1, err = NULL; i <= NKEEP && !err; i++) {
		if (put(qp, p, i, true, false))
			err = "send failed";
		/* Not past the receive FIFO: let it drain now and then. */
		if (!(i % 64) && wire_counter_at("ooo_kept", kept0 + i) !=
		    kept0 + i)
			err = "not kept";
	}
	if (!err)
		err = aeth_is(p, NAK_SEQ, true, ~0u);
	CHECK_ERR(err, "kept and destroyed: %d WRITEs at P+1 on with SR, one SR NAK for P",
		  NKEEP);
	check(quiet() && grew("ooo_kept", kept0, NKEEP),
	      "kept and destroyed: ... nothing else, all kept");
	b = held_bytes();
	sb = skb_heads();
	ibv_destroy_qp(qp);
	/*
	 * The destroy returns once the QP's task has stopped, which frees
	 * what it kept; other QPs' kept requests may age out meanwhile, so
	 * the device-wide figure ends at most where it began.
	 */
	end = tap_now_ms() + 60000;
	do {
		c = held_bytes();
		if (c <= a)
			break;
		usleep(50000);
	} while (tap_now_ms() < end);
	printf("# ooo_bytes: %lld before, %lld kept, %lld after destroy; skbuff_head_cache active: %lld before, %lld kept, %lld now\n",
	       a, b, c, sa, sb, skb_heads());
	check(a >= 0 && b - a >= NKEEP * 256,
	      "kept and destroyed: the device holds their bytes (ooo_bytes +%lld, at least %d x 256)",
	      b - a, NKEEP);
	check(a >= 0 && c <= a,
	      "kept and destroyed: destroying the QP frees them (ooo_bytes %lld, %lld before)",
	      c, a);
}

/* Set the device's limit of kept bytes (debugfs; 0: the default): 0, -1. */
static int set_held_max(long long v)
{
	FILE *f = dev_debugfs("ooo_max_bytes", "w");

	if (!f)
		return -1;
	fprintf(f, "%lld\n", v);
	return fclose(f) ? -1 : 0;
}

/*
 * @n requests with SR past a hole at @p on @qp, 64 at a time, each 64
 * counted kept or refused before the next (not past the receive FIFO);
 * then the counters' growth: kept into @kept, refused into @ref.
 */
static void put_counted(struct ibv_qp *qp, unsigned int p, int n,
			long long *kept, long long *ref)
{
	long long kept0 = counter("ooo_kept"), ref0 = counter("ooo_refused");
	int i;

	/* A request not sent or not counted leaves kept + refused short. */
	for (i = 1; i <= n; i++) {
		if (put(qp, p, i, true, false))
			break;
		if (i % 64 && i < n)
			continue;
		if (!counted_within(true, kept0 + ref0 + i, 60000))
			break;
	}
	*kept = counter("ooo_kept") - kept0;
	*ref = counter("ooo_refused") - ref0;
}

/*
 * What is kept past gaps is bounded per QP and per device, whatever the
 * peers send: with the device's limit lowered to 128 KiB (the default is
 * 64 MiB, which a test under emulation cannot fill within the 10 s age),
 * 300 requests past a hole on one QP are kept until the QP holds its
 * share, half of the limit, and refused (ooo_refused) after; a
 * second QP still keeps, and the device never holds more than the limit.
 */
static void kept_capped(void)
{
	const long long max = 128 << 10;
	unsigned int p = 0x3456, p2 = 0x5678;
	long long k1, r1, k2, r2, a, b, c;
	struct ibv_qp *qp, *qp2 = NULL;
	int n = 300;

	if (!check(set_held_max(max) == 0,
		   "kept to a limit: debugfs ooo_max_bytes set to %lld", max))
		return;
	qp = qp_new_sr(p, 0x100);
	if (!check(qp != NULL, "kept to a limit: a QP"))
		goto out;
	a = held_bytes();
	put_counted(qp, p, n, &k1, &r1);
	b = held_bytes();
	printf("# one QP: ooo_kept +%lld, ooo_refused +%lld, ooo_bytes %lld -> %lld\n",
	       k1, r1, a, b);
	check(k1 > 0 && r1 > 0 && k1 + r1 == n,
	      "kept to a limit: of %d past a hole on one QP, some are kept and the rest refused (ooo_refused)",
	      n);
	check(a >= 0 && b - a <= max / 2,
	      "kept to a limit: the QP holds no more than half of the limit (%lld <= %lld)",
	      b - a, max / 2);
	qp2 = qp_new_sr(p2, 0x200);
	if (!check(qp2 != NULL, "kept to a limit: a second QP"))
		goto out;
	put_counted(qp2, p2, n, &k2, &r2);
	c = held_bytes();
	printf("# a second QP: ooo_kept +%lld, ooo_refused +%lld, ooo_bytes %lld\n",
	       k2, r2, c);
	check(k2 > 0 && k2 + r2 == n,
	      "kept to a limit: a second QP still keeps past its hole");
	check(c >= 0 && c <= max,
	      "kept to a limit: the device holds no more than the limit (%lld <= %lld)",
	      c, max);
out:
	if (qp2)
		ibv_destroy_qp(qp2);
	if (qp)
		ibv_destroy_qp(qp);
	quiet_for(QUIET);
	check(set_held_max(0) == 0, "kept to a limit: the default limit back");
}

/*
 * What is kept past a hole that never fills goes by itself after 10 s
 * without progress at the expected PSN (SROCE_OOO_AGE): a peer, or
 * whoever guessed its window, holds nothing for long.
 */
static void kept_expire(void)
{
	unsigned int p = 0xa00, n = 100, i;
	long long kept0 = counter("ooo_kept"), exp0 = counter("ooo_expired");
	long long v = exp0, end;
	struct ibv_qp *qp = qp_new_sr(p, 0x100);
	const char *err = NULL;

	if (!check(qp != NULL, "kept and aged: a QP"))
		return;
	model_reset();
	for (i = 1; i <= n && !err; i++)
		if (put(qp, p, i, true, false))
			err = "send failed";
	if (!err)
		err = aeth_is(p, NAK_SEQ, true, ~0u);
	CHECK_ERR(err, "kept and aged: %u WRITEs at P+1 on with SR: an SR NAK for P", n);
	check(grew("ooo_kept", kept0, n), "kept and aged: all %u kept", n);
	end = tap_now_ms() + 60000;
	while (v < exp0 + n && tap_now_ms() < end) {
		usleep(200000);
		v = counter("ooo_expired");
	}
	check(v == exp0 + n, "kept and aged: within 60 s, ooo_expired counts the %u gone (%+lld)",
	      n, v - exp0);
	/* Whatever came meanwhile is not the answer looked for next. */
	end = tap_now_ms() + 10000;
	while (!quiet() && tap_now_ms() < end)
		;
	done(0);
	err = put_answer(qp, p, 0, true, true, p, ACK_OK, 2);
	CHECK_ERR(err, "kept and aged: then P: ACK for P alone, MSN 2");
	check(quiet() && mem_as_model(),
	      "kept and aged: ... nothing else; what aged out never lands");
	ibv_destroy_qp(qp);
}

int main(int argc, char **argv)
{
	int sel, early, i;

	if (!wire_open(argc, argv))
		return tap_done();
	pd = ibv_alloc_pd(wire.ctx);
	cq = ibv_create_cq(wire.ctx, 64, NULL, NULL, 0);
	mem = aligned_alloc(4096, LEN);
	model = malloc(LEN);
	src = aligned_alloc(4096, SLEN);
	if (!check(pd && cq && mem && model && src, "a PD, a CQ, the buffers"))
		return tap_done();
	for (i = 0; i < SLEN; i++)
		src[i] = i * 7 + i / 1024;
	mr = ibv_reg_mr(pd, mem, LEN, ACC);
	smr = ibv_reg_mr(pd, src, SLEN, IBV_ACCESS_LOCAL_WRITE);
	if (!check(mr && smr, "the MRs"))
		return tap_done();
	sel = knob("sel_repeat", 1);
	early = knob("early_rexmit", 0);
	if (!check(sel == 1 && early >= 0,
		   "cc_sel_repeat 1 (its default), cc_early_rexmit off (was %d)",
		   early))
		return tap_done();

	sr_stranger();
	sr_keeps();
	ibta_gap("requests without SR", false);
	check(knob("sel_repeat", 0) == 1, "cc_sel_repeat set to 0");
	ibta_gap("cc_sel_repeat 0, requests with SR", true);
	asking_plain();
	check(knob("sel_repeat", 1) == 0, "cc_sel_repeat back to 1");
	asking_stranger();
	check(knob("sel_repeat", 2) == 1, "cc_sel_repeat set to 2: SR offered to every peer");
	asking();
	rewound_done();
	rewound_inside();
	window();
	cnp_window();
	ghost_ack();
	probing();
	ack_deadline();
	check(knob("sel_repeat", 1) == 2, "cc_sel_repeat back to 1");
	kept_read();
	kept_stale();
	kept_many(0x600, 200);
	kept_many(0x1600, 3000);
	kept_fails();
	write_overrun();
	kept_freed();
	kept_capped();
	kept_expire();

	check(knob("early_rexmit", early) >= 0, "cc_early_rexmit back to %d",
	      early);
	check(!ibv_dereg_mr(mr) && !ibv_dereg_mr(smr) &&
	      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
	      !ibv_close_device(wire.ctx), "everything released");
	return tap_done();
}
