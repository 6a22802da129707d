// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * a19_wire DEVICE GID_INDEX PEER_IFACE: FLUSH and ATOMIC WRITE (IBTA 1.5,
 * Annex A19) on the wire, against an RC peer this program plays. DEVICE
 * (sroce, 10.99.0.1) has its QPs talk to 10.99.0.2, QPN 0x777, which is
 * PEER_IFACE, the other end of its veth: frames are sent and captured
 * there raw (AF_PACKET), built and read with the driver's proto/ code
 * (wire_peer.h).
 *
 * sroce answering: an ATOMIC WRITE lands and gets an empty READ_RESP_ONLY
 * (ACK syndrome, the request's PSN, MSN + 1); its duplicate gets the same
 * answer and is not done again; FLUSH of a range, of a whole MR with
 * length 0, and a duplicate FLUSH likewise (Linux >= 6.2, where an MR can
 * grant FLUSH; on 6.1 the NAK is Remote Access). Refusals, each NAKed
 * and the QP in ERR: ATOMIC WRITE to a VA not aligned, with a RETH length
 * not 8, through an MR without remote write, to a QP without responder
 * resources; FLUSH of persistence (of an MR of ordinary memory), with a
 * reserved level, naming no placement type, to a QP without the FLUSH
 * right, under an unknown R_Key at length 0. A FLUSH with a payload is
 * dropped at parse. sroce asking: the ATOMIC WRITE packet byte
 * by byte (ICRC included); completed by its READ_RESP_ONLY and by a plain
 * ACK; resent unchanged (its VA too) when nothing answers; an atomic ACK
 * for it is BAD_RESP_ERR. Prints TAP; exits non-zero if a check failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "wire_peer.h"

#define ACC_FLUSH_GLOBAL	(1 << 8)	/* rdma-core 45's names */
#define ACC_FLUSH_PERSISTENT	(1 << 9)
#define RQ0		0x10		/* what the peer's requests start at */
#define SQ0		0x20		/* what sroce's requests start at */
#define LEN		4096
#define ACK_OK		(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID)
#define NAK_INV		(SROCE_AETH_NAK | SROCE_NAK_INV_REQ)
#define NAK_ACC		(SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS)

static struct ibv_pd *pd;
static struct ibv_cq *cq;
static int has_flush;

/* The target: LEN bytes, an MR that grants all it may, one without write */
static unsigned char *mem;
static struct ibv_mr *mr, *mr_ro;

static const unsigned char bytes8[8] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

/* An answer from sroce: this opcode, PSN, AETH syndrome and MSN, no SR. */
static const char *expect(struct wire_got *g, int opcode, unsigned int psn,
			  int syn, unsigned int msn)
{
	return wire_expect(g, opcode, psn, syn, msn, 0);
}

/* An RC QP in RTS with the peer; @res: its max_dest_rd_atomic. */
static struct ibv_qp *qp_new(int access, int res)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr_ex iax = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = ia.cap, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(wire.ctx, &iax);

	if (!qp)
		return NULL;
	/* About 1 s: the peer answers well within it, but for the resend. */
	if (wire_qp_rts(qp, access, res, RQ0, SQ0, 18)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

#define ACC_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define ACC_QP	(ACC_ALL | ACC_FLUSH_GLOBAL | ACC_FLUSH_PERSISTENT)

static void aw_fields(struct sroce_fields *f, unsigned int psn,
		      struct ibv_mr *m, size_t off, unsigned int len)
{
	memset(f, 0, sizeof(*f));
	f->opcode = SROCE_OPCODE(RC, ATOMIC_WRITE);
	f->psn = psn;
	f->ackreq = true;
	f->reth.va = (uintptr_t)mem + off;
	f->reth.rkey = m->rkey;
	f->reth.len = len;
}

static void flush_fields(struct sroce_fields *f, unsigned int psn,
			 unsigned int type, unsigned int level, size_t off,
			 unsigned int len)
{
	memset(f, 0, sizeof(*f));
	f->opcode = SROCE_OPCODE(RC, FLUSH);
	f->psn = psn;
	f->ackreq = true;
	f->feth.type = type;
	f->feth.level = level;
	f->reth.va = (uintptr_t)mem + off;
	f->reth.rkey = mr->rkey;
	f->reth.len = len;
}

#define RR	SROCE_OPCODE(RC, READ_RESP_ONLY)

/* Requests to sroce that it carries out, on one QP, in PSN order. */
static void answered(void)
{
	struct sroce_fields aw, fl, fm, wr;
	unsigned char zero8[8] = { 0 };
	struct ibv_qp *qp = qp_new(ACC_QP, 4);
	long long dup0 = hw_counter(wire.dev, "rx_dup_req"), dup1;
	const char *err;
	struct wire_got g;

	if (!check(qp != NULL, "a QP in RTS with the peer"))
		return;
	memset(mem, 0x5a, LEN);
	aw_fields(&aw, RQ0, mr, 8, 8);
	err = wire_send(qp, &aw, bytes8, 8) ? "send failed" :
	      expect(&g, RR, RQ0, ACK_OK, 1);
	check(!err, "ATOMIC WRITE: an empty READ_RESP_ONLY, its PSN, ACK syndrome, MSN 1 (%s)",
	      err ? err : "ok");
	check(!memcmp(mem + 8, bytes8, 8) && mem[7] == 0x5a && mem[16] == 0x5a,
	      "ATOMIC WRITE: its 8 bytes landed as sent, neighbours untouched");

	memcpy(mem + 8, zero8, 8);
	err = wire_send(qp, &aw, bytes8, 8) ? "send failed" :
	      expect(&g, RR, RQ0, ACK_OK, 1);
	check(!err, "the same ATOMIC WRITE again: the same answer (%s)",
	      err ? err : "ok");
	check(!memcmp(mem + 8, zero8, 8),
	      "the duplicate ATOMIC WRITE is not done again");
	dup1 = wire_counter_at("rx_dup_req", dup0 + 1);
	check(dup1 == dup0 + 1, "rx_dup_req counts it (%lld -> %lld)", dup0,
	      dup1);

	flush_fields(&fl, RQ0 + 1, SROCE_FLUSH_GLOBAL, SROCE_FLUSH_RANGE, 0, 64);
	if (!has_flush) {
		err = wire_send(qp, &fl, NULL, 0) ? "send failed" :
		      expect(&g, SROCE_OPCODE(RC, ACK), RQ0 + 1, NAK_ACC, ~0u);
		check(!err, "FLUSH on 6.1 (no MR grants it): Remote Access NAK (%s)",
		      err ? err : "ok");
		goto out;
	}
	err = wire_send(qp, &fl, NULL, 0) ? "send failed" :
	      expect(&g, RR, RQ0 + 1, ACK_OK, 2);
	check(!err, "FLUSH of a range: an empty READ_RESP_ONLY, MSN 2 (%s)",
	      err ? err : "ok");
	flush_fields(&fm, RQ0 + 2, SROCE_FLUSH_GLOBAL, SROCE_FLUSH_MR, 0, 0);
	err = wire_send(qp, &fm, NULL, 0) ? "send failed" :
	      expect(&g, RR, RQ0 + 2, ACK_OK, 3);
	check(!err, "FLUSH of the whole MR, length 0: answered, MSN 3 (%s)",
	      err ? err : "ok");
	err = wire_send(qp, &fl, NULL, 0) ? "send failed" :
	      expect(&g, RR, RQ0 + 1, ACK_OK, 2);
	check(!err, "the first FLUSH again: its own answer, MSN 2 (%s)",
	      err ? err : "ok");

	/* The sequence goes on after them. */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = SROCE_OPCODE(RC, WRITE_ONLY);
	wr.psn = RQ0 + 3;
	wr.ackreq = true;
	wr.reth.va = (uintptr_t)mem + 64;
	wr.reth.rkey = mr->rkey;
	wr.reth.len = 8;
	err = wire_send(qp, &wr, bytes8, 8) ? "send failed" :
	      expect(&g, SROCE_OPCODE(RC, ACK), RQ0 + 3, ACK_OK, 4);
	check(!err, "a WRITE after them is acknowledged, MSN 4 (%s)",
	      err ? err : "ok");
out:
	check(wire_qp_in(qp, has_flush ? IBV_QPS_RTS : IBV_QPS_ERR),
	      "the QP is in %s", has_flush ? "RTS" : "ERR");
	ibv_destroy_qp(qp);
}

/* One request sroce refuses: NAKed with @syn, the QP in ERR, mem intact. */
static void refused(const char *what, int access, int res,
		    struct sroce_fields *f, const void *pay, int paylen,
		    int syn)
{
	struct ibv_qp *qp = qp_new(access, res);
	unsigned char before[LEN];
	const char *err;
	struct wire_got g;

	if (!check(qp != NULL, "%s: a QP", what))
		return;
	memcpy(before, mem, LEN);
	err = wire_send(qp, f, pay, paylen) ? "send failed" :
	      expect(&g, SROCE_OPCODE(RC, ACK), RQ0, syn, 0);
	check(!err, "%s: NAK %#x (%s)", what, syn, err ? err : "ok");
	check(wire_qp_in(qp, IBV_QPS_ERR) && !memcmp(before, mem, LEN),
	      "%s: the QP is in ERR, the memory untouched", what);
	ibv_destroy_qp(qp);
}

static void refusals(void)
{
	struct sroce_fields f;
	long long hdr0;
	struct ibv_qp *qp;

	aw_fields(&f, RQ0, mr, 12, 8);
	refused("ATOMIC WRITE to a VA not 8-byte aligned", ACC_QP, 4, &f,
		bytes8, 8, NAK_INV);
	aw_fields(&f, RQ0, mr, 16, 16);
	refused("ATOMIC WRITE with a RETH length of 16", ACC_QP, 4, &f,
		bytes8, 8, NAK_INV);
	aw_fields(&f, RQ0, mr_ro, 16, 8);
	refused("ATOMIC WRITE through an MR without remote write", ACC_QP, 4,
		&f, bytes8, 8, NAK_ACC);
	aw_fields(&f, RQ0, mr, 16, 8);
	refused("ATOMIC WRITE to a QP with max_dest_rd_atomic 0", ACC_QP, 0,
		&f, bytes8, 8, NAK_INV);
	flush_fields(&f, RQ0, SROCE_FLUSH_GLOBAL, 2, 0, 64);
	refused("FLUSH with the reserved level 2", ACC_QP, 4, &f, NULL, 0,
		NAK_INV);
	flush_fields(&f, RQ0, 0, SROCE_FLUSH_MR, 0, 0);
	refused("FLUSH that names no placement type", ACC_QP, 4, &f, NULL, 0,
		NAK_INV);
	flush_fields(&f, RQ0, SROCE_FLUSH_GLOBAL, SROCE_FLUSH_RANGE, 0, 64);
	refused("FLUSH to a QP without the FLUSH right", ACC_ALL, 4, &f, NULL,
		0, NAK_INV);
	flush_fields(&f, RQ0, SROCE_FLUSH_PERSISTENT, SROCE_FLUSH_RANGE, 0, 64);
	refused("FLUSH for persistence (the MR is not pmem)", ACC_QP, 4, &f, NULL,
		0, NAK_ACC);
	flush_fields(&f, RQ0, SROCE_FLUSH_GLOBAL, SROCE_FLUSH_MR, 0, 0);
	f.reth.rkey = mr->rkey ^ 0x100;
	refused("FLUSH of a whole MR, length 0, under an unknown R_Key",
		ACC_QP, 4, &f, NULL, 0, NAK_ACC);

	qp = qp_new(ACC_QP, 4);
	if (!check(qp != NULL, "a QP for a FLUSH with a payload"))
		return;
	hdr0 = hw_counter(wire.dev, "rx_drop_hdr");
	flush_fields(&f, RQ0, SROCE_FLUSH_GLOBAL, SROCE_FLUSH_RANGE, 0, 64);
	check(!wire_send(qp, &f, bytes8, 8) && wire_silence(300) &&
	      wire_counter_at("rx_drop_hdr", hdr0 + 1) == hdr0 + 1 &&
	      wire_qp_in(qp, IBV_QPS_RTS),
	      "a FLUSH with a payload (oA19-2) is dropped unanswered and counted (rx_drop_hdr), the QP in RTS");
	ibv_destroy_qp(qp);
}

/* sroce's ATOMIC WRITE, on the wire: post it, capture it. */
static const char *capture_aw(struct ibv_qp *qp, uint64_t wr_id,
			      unsigned int psn, struct wire_got *g)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	static char why[200];
	const struct sroce_fields *f = &g->pkt.f;

	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, 0xabcd, 0x1122334455667780ull, bytes8);
	if (ibv_wr_complete(qx))
		return "posting failed";
	if (!wire_recv(g, 2000))
		return "nothing on the wire";
	if (f->opcode != SROCE_OPCODE(RC, ATOMIC_WRITE) ||
	    f->dqpn != WIRE_PEER_QPN || f->psn != psn || !f->ackreq || f->se ||
	    f->pad || f->pkey != SROCE_DEFAULT_PKEY ||
	    f->reth.va != 0x1122334455667780ull || f->reth.rkey != 0xabcd ||
	    f->reth.len != 8 || g->pkt.len != 40 || g->pkt.pay_off != 28 ||
	    g->pkt.pay_len != 8 ||
	    memcmp(g->pkt.bth + g->pkt.pay_off, bytes8, 8) || !g->icrc_ok) {
		snprintf(why, sizeof(why),
			 "%s QPN %#x PSN %#x ackreq %d VA %#llx R_Key %#x len %u, %u bytes, ICRC %s",
			 g->pkt.info->name, f->dqpn, f->psn, f->ackreq,
			 (unsigned long long)f->reth.va, f->reth.rkey,
			 f->reth.len, g->pkt.len, g->icrc_ok ? "ok" : "bad");
		return why;
	}
	return NULL;
}

/* The peer answers sroce's request at @psn with @opcode. */
static int peer_answer(struct ibv_qp *qp, int opcode, unsigned int psn,
		       unsigned int msn)
{
	struct sroce_fields f = {
		.opcode = opcode, .psn = psn,
		.aeth = { .syndrome = ACK_OK, .msn = msn },
	};

	return wire_send(qp, &f, NULL, 0);
}

static int one_wc(struct ibv_wc *wc)
{
	long long end = tap_now_ms() + 5000;
	int n;

	while (tap_now_ms() < end) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0;
	}
	return 0;
}

static void asking(void)
{
	struct ibv_qp *qp = qp_new(ACC_QP, 4);
	long long t0, rx0;
	const char *err;
	struct ibv_wc wc;
	struct wire_got g;

	if (!check(qp != NULL, "a QP that asks the peer"))
		return;
	err = capture_aw(qp, 1, SQ0, &g);
	check(!err, "sroce's ATOMIC WRITE: opcode 0x1d, AckReq, RETH (VA, R_Key, length 8), the 8 bytes as posted, 40 bytes with a good ICRC (%s)",
	      err ? err : "ok");
	check(!peer_answer(qp, RR, SQ0, 1) && one_wc(&wc) && wc.wr_id == 1 &&
	      wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_ATOMIC_WRITE && wc.byte_len == 8,
	      "an empty READ_RESP_ONLY completes it: ATOMIC_WRITE, 8 bytes");

	err = capture_aw(qp, 2, SQ0 + 1, &g);
	check(!err && !peer_answer(qp, SROCE_OPCODE(RC, ACK), SQ0 + 1, 2) &&
	      one_wc(&wc) && wc.wr_id == 2 && wc.status == IBV_WC_SUCCESS,
	      "a plain ACK completes one too (%s)", err ? err : "ok");

	rx0 = hw_counter(wire.dev, "retransmit");
	err = capture_aw(qp, 3, SQ0 + 2, &g);
	t0 = tap_now_ms();
	check(!err && wire_recv(&g, 3000) &&
	      g.pkt.f.opcode == SROCE_OPCODE(RC, ATOMIC_WRITE) &&
	      g.pkt.f.psn == SQ0 + 2 &&
	      g.pkt.f.reth.va == 0x1122334455667780ull &&
	      !memcmp(g.pkt.bth + g.pkt.pay_off, bytes8, 8),
	      "unanswered, it is resent as it was, VA included (%s)",
	      err ? err : "ok");
	printf("# resent after %lld ms; retransmit %lld -> %lld\n", tap_now_ms() - t0,
	       rx0, hw_counter(wire.dev, "retransmit"));
	check(!peer_answer(qp, RR, SQ0 + 2, 3) && one_wc(&wc) &&
	      wc.wr_id == 3 && wc.status == IBV_WC_SUCCESS,
	      "... and the answer to the resend completes it");

	err = capture_aw(qp, 4, SQ0 + 3, &g);
	check(!err && !peer_answer(qp, SROCE_OPCODE(RC, ATOMIC_ACK), SQ0 + 3, 4) &&
	      one_wc(&wc) && wc.wr_id == 4 &&
	      wc.status == IBV_WC_BAD_RESP_ERR,
	      "an atomic ACK for it: BAD_RESP_ERR (%s)", err ? err : "ok");
	ibv_destroy_qp(qp);
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		;
}

int main(int argc, char **argv)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (!wire_open(argc, argv))
		return tap_done();
	if (!uname(&u) && sscanf(u.release, "%d.%d", &maj, &min) == 2)
		has_flush = maj > 6 || (maj == 6 && min >= 2);
	pd = ibv_alloc_pd(wire.ctx);
	cq = ibv_create_cq(wire.ctx, 64, NULL, NULL, 0);
	mem = aligned_alloc(4096, LEN);
	if (!check(pd && cq && mem, "a PD, a CQ, the target"))
		return tap_done();
	mr = ibv_reg_mr(pd, mem, LEN, ACC_ALL |
			(has_flush ? ACC_FLUSH_GLOBAL : 0));
	mr_ro = ibv_reg_mr(pd, mem, LEN, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	if (!check(mr && mr_ro, "the MRs (FLUSH_GLOBAL granted: %s)",
		   has_flush ? "yes" : "no, Linux 6.1"))
		return tap_done();
	answered();
	refusals();
	asking();
	check(!ibv_dereg_mr(mr) && !ibv_dereg_mr(mr_ro) &&
	      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
	      !ibv_close_device(wire.ctx), "everything released");
	return tap_done();
}
