// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cc_wire DEVICE GID_INDEX PEER_IFACE: congestion notification on the
 * wire from the QP's peer and from a stranger (wire_peer.h: the peer is
 * 10.99.0.2; the stranger, 10.99.0.3, sends from the same interface with
 * its own source address). Only the peer may slow a QP down or make it
 * send CNPs:
 *
 * - CNPs from the stranger to the QP are dropped as rx_drop_bad and cut
 *   no rate: after them one CNP from the peer makes rate_cuts grow by
 *   exactly one.
 * - A request marked CE (ECN 11) from the stranger is dropped as
 *   rx_drop_bad and leaves no CE pending: the peer's next request, not
 *   marked, is ACKed and followed by no CNP, its marked one after that
 *   by exactly one (tx_cnp grows by one in all).
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
#define WLEN		64
#define NCNP		5
#define ECN_CE		3
#define ACK_OK		(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID)
#define ACC		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
#define OP(x)		SROCE_OPCODE(RC, x)

static struct wire_rc rc;
static in_addr_t stranger;

static long long counter(const char *name)
{
	return hw_counter(wire.dev, name);
}

/* A CNP to @qp from @sip. */
static int cnp_from(struct ibv_qp *qp, in_addr_t sip)
{
	struct sroce_fields f = { .opcode = SROCE_CNP_OPCODE, .becn = true };

	return wire_send_as(qp, &f, NULL, 0, sip, 0);
}

/* A WRITE ONLY at @psn with AckReq from @sip, ECN @ecn. */
static int write_from(struct ibv_qp *qp, unsigned int psn, in_addr_t sip,
		      int ecn)
{
	unsigned char pay[WLEN];
	struct sroce_fields f = {
		.opcode = OP(WRITE_ONLY), .psn = psn, .ackreq = true,
		.reth = { .va = (uintptr_t)rc.mem, .rkey = rc.mr->rkey,
			  .len = WLEN },
	};

	memset(pay, psn & 0xff, WLEN);
	/* ECT(0) unless marked, as a sender that speaks ECN sends. */
	return wire_send_as(qp, &f, pay, WLEN, sip, ecn ? ecn : 2);
}

/* Forged CNPs cut nothing; the peer's does, once. */
static void cnps(struct ibv_qp *qp)
{
	long long cnp0 = counter("rx_cnp"), bad0 = counter("rx_drop_bad");
	long long cuts0 = counter("rate_cuts");
	int i, err = 0;

	for (i = 0; i < NCNP; i++)
		err |= cnp_from(qp, stranger);
	check(!err && wire_grew("rx_cnp", cnp0, NCNP) &&
	      wire_grew("rx_drop_bad", bad0, NCNP),
	      "%d CNPs from a stranger arrive and are dropped as rx_drop_bad",
	      NCNP);
	check(!cnp_from(qp, wire.peer_ip) &&
	      wire_grew("rx_cnp", cnp0, NCNP + 1) &&
	      wire_grew("rate_cuts", cuts0, 1),
	      "then one from the peer: rate_cuts grows by one, the stranger's cut nothing");
}

/*
 * A CE mark from a stranger leaves nothing pending; the peer's marked
 * request makes one CNP, which reaches the peer.
 */
static void ce_marks(struct ibv_qp *qp)
{
	long long cnp0 = counter("tx_cnp"), bad0 = counter("rx_drop_bad");
	unsigned int psn = RQ0;
	struct wire_got g;
	int acked = 0, cnp = 0;

	check(!write_from(qp, psn, stranger, ECN_CE) &&
	      wire_grew("rx_drop_bad", bad0, 1),
	      "a WRITE marked CE from a stranger is dropped as rx_drop_bad");
	check(!write_from(qp, psn, wire.peer_ip, 0) &&
	      !wire_expect(&g, OP(ACK), psn, ACK_OK, 1, -1),
	      "the peer's WRITE at the same PSN, not marked: ACKed, MSN 1");
	psn++;
	if (write_from(qp, psn, wire.peer_ip, ECN_CE))
		cnp = -1;
	/* The ACK and the CNP, in either order. */
	while (cnp >= 0 && !(acked && cnp) && wire_recv(&g, 10000)) {
		if (g.pkt.f.opcode == SROCE_CNP_OPCODE)
			cnp++;
		else if (g.pkt.f.opcode == OP(ACK) && g.pkt.f.psn == psn)
			acked = 1;
	}
	check(acked && cnp == 1,
	      "then its WRITE marked CE: ACKed, and a CNP comes to the peer");
	check(wire_grew("tx_cnp", cnp0, 1),
	      "tx_cnp grew by one: the stranger's mark made no CNP");
}

int main(int argc, char **argv)
{
	if (!wire_open(argc, argv))
		return tap_done();
	stranger = inet_addr("10.99.0.3");
	if (wire_rc_open(&rc, LEN, ACC, RQ0, 0x100))
		return tap_done();
	cnps(rc.qp);
	ce_marks(rc.qp);
	wire_rc_close(&rc);
	return tap_done();
}
