// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rc_ops: requests that meet an RNR NAK and are retried until they fit. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"

/*
 * RDMA WRITE_WITH_IMM of @len bytes while b has no receive posted:
 * rnr_retry 7 keeps the requester trying; 50 ms later b posts the receive
 * and the write must complete on both sides, data intact, with
 * RECV_RDMA_WITH_IMM and the immediate (IBTA 9.7.5.2.8: an RNR NAK
 * leaves the responder as if the request never came).
 */
const char *t_write_imm_rnr(struct rc *rc, size_t len)
{
	uint32_t immv = htonl(0x5eed0000u | (len & 0xffff));
	struct opts ob = defaults;
	struct buf s, d, r;
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	ob.min_rnr_timer = 1;		/* 0.01 ms: retried many times */
	if ((err = pair_up(rc, &defaults, &ob)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len, ACC_REMOTE) ||
	    buf_new(rc, &r, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE_WITH_IMM, &ss, 1,
		IBV_SEND_SIGNALED);
	wr.imm_data = immv;
	wr_remote(&wr, &d);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = cq_quiet(rc->a.scq, "requester before the receive", 50)))
		goto out;
	sge_of(&rs, &r, 0, r.len);
	if ((ret = post_recv(rc->b.qp, 0x100, &rs, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV_RDMA_WITH_IMM)) ||
	    (err = recv_check(&wc, rc->b.qp, len, IBV_WC_WITH_IMM, immv)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "target buffer")) ||
	    (err = buf_check(&r, "receive buffer")))
		goto out;
	if ((err = quiet(rc, QUIET_MS)) ||
	    (err = state_is(rc->a.qp, IBV_QPS_RTS, "requester")))
		goto out;
	err = state_is(rc->b.qp, IBV_QPS_RTS, "responder");
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	buf_free(&r);
	return err;
}
