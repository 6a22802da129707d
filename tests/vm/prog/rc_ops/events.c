// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rc_ops: the QP and CQ asynchronous events. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"

/* ---- asynchronous events ------------------------------------------------ */

/*
 * COMM_EST (IBTA 11.6.3.1): the first packet a QP in RTR receives. b stays
 * in RTR while a, in RTS, sends to it; b answers all the same.
 */
const char *t_ev_comm_est(struct rc *rc)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = pair_rtr(rc, &defaults, &defaults, CQ_DEPTH)))
		return err;
	if ((ret = to_rts(rc, rc->a.qp, PSN_A, &defaults))) {
		err = fail("a RTR->RTS: %s", strerror(ret));
		goto out;
	}
	if (buf_new(rc, &s, 64, ACC_LOCAL) || buf_new(rc, &d, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, 64);
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1)) ||
	    (ret = post(rc->a.qp, &wr))) {
		err = fail("post: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	buf_expect(&d, 0, s.p, 64);
	if ((err = buf_check(&d, "receive buffer")) ||
	    (err = get_event(rc, IBV_EVENT_COMM_EST, rc->b.qp, "responder",
			     op_ms)))
		goto out;
	err = state_is(rc->b.qp, IBV_QPS_RTR, "responder");
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

/*
 * RTS->SQD with en_sqd_async_notify just after a 64 KiB WRITE was posted:
 * SQ_DRAINED once no message is in progress (IBTA 10.3.1: one that had
 * started completes, none starts). A SEND posted in SQD is not sent; back
 * in RTS both complete, in order.
 */
const char *t_ev_sq_drained(struct rc *rc)
{
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1,
	};
	const size_t len = 65536;
	struct buf s, d, r;
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) || buf_new(rc, &d, len, ACC_REMOTE) ||
	    buf_new(rc, &r, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, &ss, 1, IBV_SEND_SIGNALED);
	wr_remote(&wr, &d);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((ret = merr(ibv_modify_qp(rc->a.qp, &qa, IBV_QP_STATE |
				      IBV_QP_EN_SQD_ASYNC_NOTIFY)))) {
		err = fail("RTS->SQD: %s", strerror(ret));
		goto out;
	}
	if ((err = get_event(rc, IBV_EVENT_SQ_DRAINED, rc->a.qp, "requester",
			     op_ms)) ||
	    (err = state_is(rc->a.qp, IBV_QPS_SQD, "requester")))
		goto out;

	sge_of(&rs, &r, 0, 64);
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x201, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post_recv(rc->b.qp, 0x100, &rs, 1)) ||
	    (ret = post(rc->a.qp, &wr))) {
		err = fail("post in SQD: %s", strerror(ret));
		goto out;
	}
	if ((err = cq_quiet(rc->b.rcq, "responder recv CQ (a in SQD)",
			    QUIET_MS)))
		goto out;
	if ((ret = to_state(rc->a.qp, IBV_QPS_RTS))) {
		err = fail("SQD->RTS: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE)) ||
	    (err = get_wc(rc->a.scq, "requester", &wc, 0x201, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	buf_expect(&r, 0, s.p, 64);
	if ((err = buf_check(&d, "target buffer")) ||
	    (err = buf_check(&r, "receive buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	buf_free(&r);
	return err;
}

/*
 * A send CQ overrun: a's send CQ, created for 1 entry, gets signaled
 * WRITEs well past what it holds (at least cq->cqe, maybe more), and
 * nothing polls it. @kind 0: CQ_ERR on the CQ; 1: a goes to ERR with
 * QP_FATAL.
 */
const char *t_ev_cq_overrun(struct rc *rc, int kind)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	const char *err;
	int i, n, ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = pair_rtr(rc, &defaults, &defaults, 1)))
		return err;
	if ((ret = to_rts(rc, rc->a.qp, PSN_A, &defaults)) ||
	    (ret = to_rts(rc, rc->b.qp, PSN_B, &defaults))) {
		err = fail("RTR->RTS: %s", strerror(ret));
		goto out;
	}
	n = 2 * (rc->a.scq->cqe + 1);
	if (n > (int)rc->a.cap.max_send_wr) {
		skip_why = "the smallest CQ holds more than the send queue";
		goto out;
	}
	if (buf_new(rc, &s, 8, ACC_LOCAL) || buf_new(rc, &d, 8, ACC_REMOTE)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, 8);
	for (i = 0; i < n; i++) {
		wr_init(&wr, 0x200 + i, IBV_WR_RDMA_WRITE, &ss, 1,
			IBV_SEND_SIGNALED);
		wr_remote(&wr, &d);
		if ((ret = post(rc->a.qp, &wr))) {
			err = fail("ibv_post_send %d of %d: %s", i + 1, n,
				   strerror(ret));
			goto out;
		}
	}
	if (kind == 0) {
		err = get_event(rc, IBV_EVENT_CQ_ERR, rc->a.scq,
				"requester send CQ", op_ms);
		goto out;
	}
	if ((err = get_event(rc, IBV_EVENT_QP_FATAL, rc->a.qp, "requester",
			     op_ms)))
		goto out;
	err = state_is(rc->a.qp, IBV_QPS_ERR, "requester");
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}
