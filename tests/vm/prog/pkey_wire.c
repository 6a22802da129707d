// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pkey_wire DEVICE GID_INDEX PEER_IFACE: the BTH's P_Key on a connected
 * QP, against a peer played on the wire (wire_peer.h). The port's only
 * P_Key is the default partition's, 0xffff, a full member: a packet
 * matches it when its low 15 bits are 0x7fff (IBTA 10.9.3), and one that
 * does not is dropped (rx_drop_bad) before its QP sees it.
 *
 * - Responder: the peer's WRITE at the expected PSN with P_Key 0x1234 is
 *   dropped and writes nothing; the same WRITE with 0x7fff (a limited
 *   member of the default partition) is written and ACKed with MSN 1.
 * - Completer: the ACK of sroce's WRITE with P_Key 0x1234 is dropped and
 *   completes nothing; the same ACK with 0xffff completes it.
 *
 * Prints TAP; exits non-zero if a check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "wire_peer.h"

#define LEN		4096
#define RQ0		0x40		/* the peer's requests start here */
#define SQ0		0x100		/* sroce's */
#define WLEN		64
#define OTHER_PKEY	0x1234		/* another partition */
#define LIMITED_PKEY	0x7fff		/* the default one, limited member */
#define ACK_OK		(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID)
#define ACC		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
#define OP(x)		SROCE_OPCODE(RC, x)

static struct ibv_pd *pd;
static struct ibv_cq *cq;
static unsigned char *mem;
static struct ibv_mr *mr;

/* Counter @name reached @from + @by: printed either way. */
static int grew(const char *name, long long from, long long by)
{
	long long v = wire_counter_at(name, from + by);

	printf("# %s %lld -> %lld, want +%lld\n", name, from, v, by);
	return v == from + by;
}

/* The peer's WRITE ONLY of @fill bytes at @psn into mem, P_Key @pkey. */
static int write_in(struct ibv_qp *qp, unsigned int psn, unsigned int pkey,
		    int fill)
{
	unsigned char pay[WLEN];
	struct sroce_fields f = {
		.opcode = OP(WRITE_ONLY), .psn = psn, .ackreq = true,
		.pkey = pkey,
		.reth = { .va = (uintptr_t)mem, .rkey = mr->rkey,
			  .len = WLEN },
	};

	memset(pay, fill, WLEN);
	return wire_send(qp, &f, pay, WLEN);
}

/* The first @n bytes of mem are all @fill. */
static int filled(int n, int fill)
{
	int i;

	for (i = 0; i < n; i++)
		if (mem[i] != fill)
			return 0;
	return 1;
}

static void responder(struct ibv_qp *qp)
{
	long long bad0 = hw_counter(wire.dev, "rx_drop_bad");
	struct wire_got g;
	const char *why;

	memset(mem, 0, WLEN);
	check(!write_in(qp, RQ0, OTHER_PKEY, 0xa5) &&
	      grew("rx_drop_bad", bad0, 1) && filled(WLEN, 0),
	      "a WRITE with P_Key %#x is dropped as rx_drop_bad, nothing written",
	      OTHER_PKEY);
	why = write_in(qp, RQ0, LIMITED_PKEY, 0x5a) ? "not sent" :
	      wire_expect(&g, OP(ACK), RQ0, ACK_OK, 1, -1);
	check(!why, "the same WRITE with P_Key %#x: ACKed with MSN 1%s%s",
	      LIMITED_PKEY, why ? ": " : "", why ? why : "");
	check(filled(WLEN, 0x5a), "... and its bytes are in the MR");
}

static void completer(struct ibv_qp *qp)
{
	long long bad0 = hw_counter(wire.dev, "rx_drop_bad");
	struct ibv_sge sge = {
		.addr = (uintptr_t)mem + WLEN, .length = WLEN, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = 0x10000, .rkey = 0x1234 },
	}, *bad;
	struct sroce_fields ack = {
		.opcode = OP(ACK), .psn = SQ0,
		.aeth = { .syndrome = ACK_OK, .msn = 1 },
	};
	struct wire_got g;
	struct ibv_wc wc;
	int got;

	if (!check(!ibv_post_send(qp, &wr, &bad), "sroce posts a WRITE"))
		return;
	/* What the responder answered before may still be on its way. */
	while ((got = wire_recv(&g, 10000)) &&
	       g.pkt.f.opcode != OP(WRITE_ONLY))
		;
	check(got && g.pkt.f.psn == SQ0, "it reaches the peer at PSN %#x",
	      SQ0);
	ack.pkey = OTHER_PKEY;
	check(!wire_send(qp, &ack, NULL, 0) && grew("rx_drop_bad", bad0, 1) &&
	      ibv_poll_cq(cq, 1, &wc) == 0,
	      "its ACK with P_Key %#x is dropped as rx_drop_bad, nothing completes",
	      OTHER_PKEY);
	ack.pkey = SROCE_DEFAULT_PKEY;
	check(!wire_send(qp, &ack, NULL, 0) &&
	      tap_wait_wc(cq, 7, &wc, 10000) && wc.status == IBV_WC_SUCCESS,
	      "the same ACK with P_Key %#x completes the WRITE",
	      SROCE_DEFAULT_PKEY);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	if (!wire_open(argc, argv))
		return tap_done();
	pd = ibv_alloc_pd(wire.ctx);
	cq = ibv_create_cq(wire.ctx, 16, NULL, NULL, 0);
	mem = aligned_alloc(4096, LEN);
	if (!check(pd && cq && mem, "a PD, a CQ, the buffer"))
		return tap_done();
	mr = ibv_reg_mr(pd, mem, LEN, ACC);
	ia.send_cq = cq;
	ia.recv_cq = cq;
	qp = mr ? ibv_create_qp(pd, &ia) : NULL;
	if (!check(qp && !wire_qp_rts(qp, ACC, 4, RQ0, SQ0, 20),
		   "an MR, an RC QP in RTS with the peer"))
		return tap_done();
	responder(qp);
	completer(qp);
	check(wire_qp_in(qp, IBV_QPS_RTS), "the QP is still in RTS");
	check(!ibv_destroy_qp(qp) && !ibv_dereg_mr(mr) &&
	      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
	      !ibv_close_device(wire.ctx), "everything released");
	return tap_done();
}
