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

static struct wire_rc rc;

/* The peer's WRITE ONLY of @fill bytes at @psn into rc.mem, P_Key @pkey. */
static int write_in(unsigned int psn, unsigned int pkey, int fill)
{
	unsigned char pay[WLEN];
	struct sroce_fields f = {
		.opcode = OP(WRITE_ONLY), .psn = psn, .ackreq = true,
		.pkey = pkey,
		.reth = { .va = (uintptr_t)rc.mem, .rkey = rc.mr->rkey,
			  .len = WLEN },
	};

	memset(pay, fill, WLEN);
	return wire_send(rc.qp, &f, pay, WLEN);
}

/* The first @n bytes of rc.mem are all @fill. */
static int filled(int n, int fill)
{
	int i;

	for (i = 0; i < n; i++)
		if (rc.mem[i] != fill)
			return 0;
	return 1;
}

static void responder(void)
{
	long long bad0 = hw_counter(wire.dev, "rx_drop_bad");
	struct wire_got g;
	const char *why;

	memset(rc.mem, 0, WLEN);
	check(!write_in(RQ0, OTHER_PKEY, 0xa5) &&
	      wire_grew("rx_drop_bad", bad0, 1) && filled(WLEN, 0),
	      "a WRITE with P_Key %#x is dropped as rx_drop_bad, nothing written",
	      OTHER_PKEY);
	why = write_in(RQ0, LIMITED_PKEY, 0x5a) ? "not sent" :
	      wire_expect(&g, OP(ACK), RQ0, ACK_OK, 1, -1);
	check(!why, "the same WRITE with P_Key %#x: ACKed with MSN 1%s%s",
	      LIMITED_PKEY, why ? ": " : "", why ? why : "");
	check(filled(WLEN, 0x5a), "... and its bytes are in the MR");
}

static void completer(void)
{
	long long bad0 = hw_counter(wire.dev, "rx_drop_bad");
	struct ibv_sge sge = {
		.addr = (uintptr_t)rc.mem + WLEN, .length = WLEN,
		.lkey = rc.mr->lkey,
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

	if (!check(!ibv_post_send(rc.qp, &wr, &bad), "sroce posts a WRITE"))
		return;
	/* What the responder answered before may still be on its way. */
	while ((got = wire_recv(&g, 10000)) &&
	       g.pkt.f.opcode != OP(WRITE_ONLY))
		;
	check(got && g.pkt.f.psn == SQ0, "it reaches the peer at PSN %#x",
	      SQ0);
	ack.pkey = OTHER_PKEY;
	check(!wire_send(rc.qp, &ack, NULL, 0) &&
	      wire_grew("rx_drop_bad", bad0, 1) &&
	      ibv_poll_cq(rc.cq, 1, &wc) == 0,
	      "its ACK with P_Key %#x is dropped as rx_drop_bad, nothing completes",
	      OTHER_PKEY);
	ack.pkey = SROCE_DEFAULT_PKEY;
	check(!wire_send(rc.qp, &ack, NULL, 0) &&
	      tap_wait_wc(rc.cq, 7, &wc, 10000) &&
	      wc.status == IBV_WC_SUCCESS,
	      "the same ACK with P_Key %#x completes the WRITE",
	      SROCE_DEFAULT_PKEY);
}

int main(int argc, char **argv)
{
	if (!wire_open(argc, argv) || wire_rc_open(&rc, LEN, ACC, RQ0, SQ0))
		return tap_done();
	responder();
	completer();
	wire_rc_close(&rc);
	return tap_done();
}
