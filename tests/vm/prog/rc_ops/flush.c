// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rc_ops: the error flush of queues filled to the device's limit. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"

#define BIG_WR	16384		/* WQEs per queue, if max_qp_wr allows */

/* @e: one QP of @n send and @n receive WQEs, CQs that hold them all. */
static int ep_big(struct rc *rc, struct ep *e, uint32_t n)
{
	struct ibv_qp_cap cap;

	memset(e, 0, sizeof(*e));
	e->scq = ibv_create_cq(rc->ctx, n, NULL, NULL, 0);
	e->rcq = ibv_create_cq(rc->ctx, n, NULL, NULL, 0);
	if (!e->scq || !e->rcq)
		return -1;
	memset(&cap, 0, sizeof(cap));
	cap.max_send_wr = n;
	cap.max_recv_wr = n;
	cap.max_send_sge = 1;
	cap.max_recv_sge = 1;
	e->qp = qp_new(rc, e->scq, e->rcq, &cap);
	if (!e->qp)
		return -1;
	e->cap = cap;
	return 0;
}

/* @n completions on @cq: WR_FLUSH_ERR, wr_ids @id0, @id0 + 1, ... */
static const char *flushed(struct ibv_cq *cq, const char *who, uint64_t id0,
			   uint32_t n)
{
	struct ibv_wc wc;
	const char *err;
	uint32_t i;

	for (i = 0; i < n; i++) {
		err = get_wc(cq, who, &wc, id0 + i, IBV_WC_WR_FLUSH_ERR, -1);
		if (err)
			return fail("completion %u of %u: %s", i + 1, n, err);
	}
	return cq_quiet(cq, who, QUIET_MS);
}

/*
 * @kind 0: a's send queue full of SENDs that b cannot take (no receive,
 * rnr_retry 7), then a to ERR; 1: b's receive queue full, then b to ERR.
 * Every WQE completes with WR_FLUSH_ERR, in order, none lost or doubled;
 * the run-time flush is bounded per run (the VM fails on a soft lockup
 * or an RCU stall).
 */
const char *t_err_flush_big(struct rc *rc, int kind)
{
	struct ibv_send_wr wr;
	struct ibv_qp *qp;
	const char *err;
	uint32_t n, i;
	int ret;

	n = rc->dev.max_qp_wr < BIG_WR ? rc->dev.max_qp_wr : BIG_WR;
	pair_down(rc);
	rc->dirty = 1;
	if (ep_big(rc, &rc->a, n) || ep_big(rc, &rc->b, n))
		return fail("QPs of %u WQEs: %s", n, strerror(errno));
	if ((ret = to_init(rc, rc->a.qp)) || (ret = to_init(rc, rc->b.qp)) ||
	    (ret = to_rtr(rc, rc->a.qp, rc->b.qp->qp_num, PSN_B, &defaults)) ||
	    (ret = to_rtr(rc, rc->b.qp, rc->a.qp->qp_num, PSN_A, &defaults)) ||
	    (ret = to_rts(rc, rc->a.qp, PSN_A, &defaults)) ||
	    (ret = to_rts(rc, rc->b.qp, PSN_B, &defaults)))
		return fail("connect: %s", strerror(ret));
	qp = kind ? rc->b.qp : rc->a.qp;
	for (i = 0; i < n; i++) {
		if (kind) {
			ret = post_recv(qp, 0x10000 + i, NULL, 0);
		} else {
			wr_init(&wr, 0x10000 + i, IBV_WR_SEND, NULL, 0,
				IBV_SEND_SIGNALED);
			ret = post(qp, &wr);
		}
		if (ret)
			return fail("post %u of %u: %s", i + 1, n,
				    strerror(ret));
	}
	if ((ret = to_state(qp, IBV_QPS_ERR)))
		return fail("modify to ERR: %s", strerror(ret));
	printf("# %u %s flushed\n", n, kind ? "receives" : "sends");
	if (kind)
		err = flushed(rc->b.rcq, "receive queue", 0x10000, n);
	else
		err = flushed(rc->a.scq, "send queue", 0x10000, n);
	if (!err && !kind)
		err = cq_quiet(rc->b.rcq, "responder recv CQ", 0);
	return err;
}
