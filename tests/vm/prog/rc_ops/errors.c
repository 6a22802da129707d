// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rc_ops: the error paths, the QP state machine and the posting limits. */
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

/* ---- error paths -------------------------------------------------------- */

/* @kind 0: RDMA WRITE with an rkey that names no MR; 1: RDMA READ past
 * the end of the MR; 2: RDMA WRITE to an MR without REMOTE_WRITE; 3: an
 * atomic on an address that is not 8-byte aligned. With @event, b must
 * also raise QP_ACCESS_ERR (0-2) or QP_REQ_ERR (3) and be in ERR (IBTA
 * 11.6.3: no receive reports the error to b's consumer). */
const char *t_err_access(struct rc *rc, int kind, int event)
{
	static const int want[] = {
		IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR,
		IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR,
	};
	const size_t len = 4096;
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	struct ibv_wc wc;
	const char *err;
	int ret, acc;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if (kind == 3 && rc->dev.atomic_cap == IBV_ATOMIC_NONE) {
		skip_why = "atomic_cap is IBV_ATOMIC_NONE";
		return NULL;
	}
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	acc = kind == 2 ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ :
			  ACC_REMOTE | rc->acc_atomic;
	if (buf_new(rc, &s, len, ACC_LOCAL) || buf_new(rc, &d, len, acc)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, kind == 1 ? 64 : kind == 3 ? 8 : 256);
	switch (kind) {
	case 0:
	case 2:
		wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, &ss, 1,
			IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)d.p;
		wr.wr.rdma.rkey = kind ? d.mr->rkey : ~d.mr->rkey;
		break;
	case 1:
		/* The last 32 bytes of the MR and 32 beyond it. */
		wr_init(&wr, 0x200, IBV_WR_RDMA_READ, &ss, 1,
			IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)d.mr->addr +
					 d.mr->length - 32;
		wr.wr.rdma.rkey = d.mr->rkey;
		break;
	default:
		wr_init(&wr, 0x200, IBV_WR_ATOMIC_FETCH_AND_ADD, &ss, 1,
			IBV_SEND_SIGNALED);
		wr.wr.atomic.remote_addr = (uintptr_t)d.p + 4;
		wr.wr.atomic.rkey = d.mr->rkey;
		wr.wr.atomic.compare_add = 1;
		break;
	}
	ret = post(rc->a.qp, &wr);
	if (kind == 3 && ret == EINVAL && event) {
		skip_why = "ibv_post_send refuses the unaligned atomic";
		goto out;
	}
	if (kind == 3 && ret == EINVAL) {
		/* Refused at post time (an immediate error) is fine too:
		 * nothing may happen and the QP stays usable. */
		printf("# err-atomic-align: refused by ibv_post_send (EINVAL)\n");
		if (!(err = buf_check(&d, "target buffer")) &&
		    !(err = cq_quiet(rc->a.scq, "requester send CQ", QUIET_MS)))
			err = state_is(rc->a.qp, IBV_QPS_RTS, "requester");
		goto out;
	}
	if (ret) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, want[kind], -1)) ||
	    (err = buf_check(&d, "target buffer")) ||
	    (err = buf_check(&s, "local buffer")) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
	if ((err = cq_quiet(rc->b.rcq, "responder recv CQ", QUIET_MS)) ||
	    !event)
		goto out;
	/* No receive tells b's consumer why: an affiliated event must. */
	if ((err = get_event(rc, want[kind] == IBV_WC_REM_ACCESS_ERR ?
			     IBV_EVENT_QP_ACCESS_ERR : IBV_EVENT_QP_REQ_ERR,
			     rc->b.qp, "responder", op_ms)))
		goto out;
	err = state_is(rc->b.qp, IBV_QPS_ERR, "responder");
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* A 200-byte SEND into a 100-byte receive. */
const char *t_err_len(struct rc *rc)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	if (buf_new(rc, &s, 200, ACC_LOCAL) || buf_new(rc, &d, 100, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, 100);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 200);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	/* Both sides complete; report both when either is wrong. */
	err = get_wc(rc->a.scq, "requester", &wc, 0x200,
		     IBV_WC_REM_INV_REQ_ERR, -1);
	if (err) {
		char first[256];

		snprintf(first, sizeof(first), "%s", err);
		err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
			     IBV_WC_LOC_LEN_ERR, -1);
		err = fail("%s; %s", first, err ? err : "responder: LOC_LEN_ERR");
		goto out;
	}
	if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
			  IBV_WC_LOC_LEN_ERR, -1)))
		goto out;
	/* The receive buffer's content is undefined, but not its guards. */
	buf_accept(&d, 0, 100);
	if ((err = buf_check(&d, "receive buffer")) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* b moved to ERR: @kind 0: its 3 outstanding receives flush; 1: a receive
 * posted in ERR flushes; 2: a send posted in ERR flushes. */
const char *t_err_flush(struct rc *rc, int kind)
{
	struct buf d;
	struct ibv_send_wr wr;
	struct ibv_sge ds;
	struct ibv_wc wc;
	const char *err;
	int i, ret;

	memset(&d, 0, sizeof(d));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	if (buf_new(rc, &d, 300, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (kind == 0) {
		for (i = 0; i < 3; i++) {
			sge_of(&ds, &d, 100 * i, 100);
			if ((ret = post_recv(rc->b.qp, 0x100 + i, &ds, 1))) {
				err = fail("ibv_post_recv: %s", strerror(ret));
				goto out;
			}
		}
	}
	if ((ret = to_state(rc->b.qp, IBV_QPS_ERR))) {
		err = fail("modify to ERR: %s", strerror(ret));
		goto out;
	}
	if ((err = state_is(rc->b.qp, IBV_QPS_ERR, "the flushed")))
		goto out;
	sge_of(&ds, &d, 0, 100);
	if (kind == 1 && (ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv in ERR: %s", strerror(ret));
		goto out;
	}
	if (kind == 2) {
		wr_init(&wr, 0x200, IBV_WR_SEND, &ds, 1, IBV_SEND_SIGNALED);
		if ((ret = post(rc->b.qp, &wr))) {
			err = fail("ibv_post_send in ERR: %s", strerror(ret));
			goto out;
		}
		if ((err = get_wc(rc->b.scq, "send queue", &wc, 0x200,
				  IBV_WC_WR_FLUSH_ERR, -1)))
			goto out;
	} else {
		for (i = 0; i < (kind ? 1 : 3); i++) {
			if ((err = get_wc(rc->b.rcq, "receive queue", &wc,
					  0x100 + i, IBV_WC_WR_FLUSH_ERR, -1)))
				goto out;
			if (wc.qp_num != rc->b.qp->qp_num) {
				err = fail("qp_num %#x, want %#x", wc.qp_num,
					   rc->b.qp->qp_num);
				goto out;
			}
		}
	}
	if ((err = buf_check(&d, "receive buffers")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	rc->dirty = 1;
	buf_free(&d);
	return err;
}

/*
 * A QP moved to RESET takes its completions off its CQs, which another
 * QP shares; the other's stay, in order (rdma-core's tests reuse a CQ
 * after a reset, as mlx5 cleans it). x flushes a receive into b's receive
 * CQ, then b flushes three, then x one more: after b's reset the CQ holds
 * x's two.
 */
const char *t_reset_cleans_cq(struct rc *rc)
{
	struct ibv_qp *x = NULL;
	struct ibv_qp_cap cap;
	struct ibv_sge ds;
	struct ibv_wc wc;
	struct buf d;
	const char *err;
	int i, ret;

	memset(&d, 0, sizeof(d));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	default_cap(rc, &cap);
	x = qp_new(rc, rc->b.scq, rc->b.rcq, &cap);
	if (!x || to_init(rc, x) || buf_new(rc, &d, 300, ACC_LOCAL)) {
		err = fail("a second QP on b's CQs, buffers: %s",
			   strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, 100);
	if ((ret = post_recv(x, 0x300, &ds, 1)) ||
	    (ret = to_state(x, IBV_QPS_ERR))) {
		err = fail("x: a receive, then ERR: %s", strerror(ret));
		goto out;
	}
	for (i = 0; i < 3; i++) {
		sge_of(&ds, &d, 100 * i, 100);
		if ((ret = post_recv(rc->b.qp, 0x100 + i, &ds, 1))) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
	}
	if ((ret = to_state(rc->b.qp, IBV_QPS_ERR)) ||
	    (ret = post_recv(x, 0x301, &ds, 1))) {
		err = fail("b to ERR, x's receive in ERR: %s", strerror(ret));
		goto out;
	}
	/* Every flush is on the CQ before b's reset takes some away. */
	usleep(QUIET_MS * 1000);
	if ((ret = to_state(rc->b.qp, IBV_QPS_RESET))) {
		err = fail("b to RESET: %s", strerror(ret));
		goto out;
	}
	for (i = 0; i < 2; i++) {
		if ((err = get_wc(rc->b.rcq, "the shared receive CQ", &wc,
				  0x300 + i, IBV_WC_WR_FLUSH_ERR, -1)))
			goto out;
	}
	err = cq_quiet(rc->b.rcq, "the shared receive CQ", QUIET_MS);
out:
	if (x)
		ibv_destroy_qp(x);
	rc->dirty = 1;
	buf_free(&d);
	return err;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * Round trips that give the requester its RTT estimate (and with it
 * early resends, where the device has them): @n SENDs from a to b.
 */
static const char *round_trips(struct rc *rc, struct buf *s, struct buf *d,
			       int n)
{
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int i, ret;

	sge_of(&ss, s, 0, 64);
	sge_of(&ds, d, 0, 64);
	for (i = 0; i < n; i++) {
		if ((ret = post_recv(rc->b.qp, 0x100 + i, &ds, 1)))
			return fail("ibv_post_recv: %s", strerror(ret));
		wr_init(&wr, 0x100 + i, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
		if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
				     IBV_WC_SEND)) ||
		    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100 + i,
				  IBV_WC_SUCCESS, IBV_WC_RECV)))
			return err;
	}
	return NULL;
}

/*
 * A SEND to a peer that is gone (@kind 0: QP destroyed, 1: in RESET, 2:
 * in ERR), retry_cnt 1 and a ~16 ms timeout: RETRY_EXC_ERR. @kind 3: the
 * QP destroyed after round trips were measured, so a device that resends
 * before the local ACK timeout does (sroce: after an RTO of 20 ms, then
 * 40, 80): with a ~134 ms timeout the error still comes no sooner than
 * the two local ACK timeouts retry_cnt 1 allows, 2 x 4.096 us x 2^15,
 * as no early resend is charged.
 */
const char *t_err_retry(struct rc *rc, int kind)
{
	const double least_ms = 2 * 4.096e-3 * (1 << 15);
	struct opts oa = defaults;
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	struct ibv_wc wc;
	const char *err;
	double t0, ms;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	oa.retry_cnt = 1;
	oa.timeout = kind == 3 ? 15 : 12;
	if ((err = pair_up(rc, &oa, &defaults)))
		return err;
	if (buf_new(rc, &s, 64, ACC_LOCAL) || buf_new(rc, &d, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (kind == 3 && (err = round_trips(rc, &s, &d, 20)))
		goto out;
	if (kind == 0 || kind == 3) {
		ret = ibv_destroy_qp(rc->b.qp);
		rc->b.qp = NULL;
	} else {
		ret = to_state(rc->b.qp, kind == 1 ? IBV_QPS_RESET : IBV_QPS_ERR);
	}
	if (ret) {
		err = fail("take the peer down: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	t0 = mono_ms();
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200,
			  IBV_WC_RETRY_EXC_ERR, -1)) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
	ms = mono_ms() - t0;
	if (kind == 3 && ms < least_ms)
		err = fail("RETRY_EXC_ERR after %.1f ms, before the %.1f ms two local ACK timeouts take",
			   ms, least_ms);
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* No receive posted and rnr_retry 0: RNR_RETRY_EXC_ERR. */
const char *t_err_rnr(struct rc *rc)
{
	struct opts oa = defaults, ob = defaults;
	struct buf s;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	oa.rnr_retry = 0;
	ob.min_rnr_timer = 1;
	if ((err = pair_up(rc, &oa, &ob)))
		return err;
	if (buf_new(rc, &s, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200,
			  IBV_WC_RNR_RETRY_EXC_ERR, -1)) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
	err = cq_quiet(rc->b.rcq, "responder recv CQ", QUIET_MS);
out:
	rc->dirty = 1;
	buf_free(&s);
	return err;
}

/* ---- QP state machine and limits ------------------------------------ */

/*
 * The limits the QP advertised, at post time: @kind 0: a send with one
 * SGE more than max_send_sge; 1: inline data one byte past
 * max_inline_data; 2: a receive with one SGE more than max_recv_sge: each
 * fails with EINVAL, bad_wr names it, nothing completes, the QP stays in
 * RTS. 3: max_send_wr SENDs held up by RNR fill the send queue and one
 * more fails with ENOMEM; once b posts receives all complete, in order.
 * 4: max_recv_wr receives fill the receive queue; one more: ENOMEM.
 */
const char *t_post_limit(struct rc *rc, int kind)
{
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge *sg = NULL;
	struct ibv_wc wc;
	struct buf s;
	const char *err = NULL;
	unsigned int i, n = 0;
	int ret;

	memset(&s, 0, sizeof(s));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	switch (kind) {
	case 0:
		n = rc->a.cap.max_send_sge + 1;
		break;
	case 1:
		n = rc->a.cap.max_inline_data + 1;
		break;
	case 2:
		n = rc->b.cap.max_recv_sge + 1;
		break;
	case 3:
		n = rc->a.cap.max_send_wr;
		if (rc->b.cap.max_recv_wr < n) {
			skip_why = "the receive queue is shorter than the send queue";
			goto out;
		}
		break;
	default:
		n = rc->b.cap.max_recv_wr;
		break;
	}
	sg = calloc(n + 1, sizeof(*sg));
	if (!sg || buf_new(rc, &s, n + 1, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i <= n; i++)
		sge_of(&sg[i], &s, i, 1);
	if (kind <= 2) {
		if (kind == 1)
			sge_of(&sg[0], &s, 0, n);
		wr_init(&wr, 0x200, IBV_WR_SEND, sg, kind ? 1 : n,
			IBV_SEND_SIGNALED | (kind ? IBV_SEND_INLINE : 0));
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 0x100;
		rwr.sg_list = sg;
		rwr.num_sge = n;
		ret = kind == 2 ? ibv_post_recv(rc->b.qp, &rwr, &rbad) :
				  ibv_post_send(rc->a.qp, &wr, &bad);
		if ((err = want_errno(ret, EINVAL, kind == 2 ?
				      "ibv_post_recv" : "ibv_post_send")))
			goto out;
		if (kind == 2 ? rbad != &rwr : bad != &wr) {
			err = fail("bad_wr does not name the work request");
			goto out;
		}
		if ((err = quiet(rc, QUIET_MS)) ||
		    (err = state_is(rc->a.qp, IBV_QPS_RTS, "requester")))
			goto out;
		err = state_is(rc->b.qp, IBV_QPS_RTS, "responder");
		goto out;
	}
	for (i = 0; i <= n; i++) {
		if (kind == 3) {
			wr_init(&wr, 0x200 + i, IBV_WR_SEND, &sg[i], 1,
				IBV_SEND_SIGNALED);
			ret = post(rc->a.qp, &wr);
		} else {
			ret = post_recv(rc->b.qp, 0x100 + i, &sg[i], 1);
		}
		if (i < n && ret) {
			err = fail("post %u of %u: %s", i + 1, n, strerror(ret));
			goto out;
		}
	}
	if ((err = want_errno(ret, ENOMEM, "one work request more than the queue holds")))
		goto out;
	if (kind == 4)
		goto out;
	/* b has no receive: the SENDs wait on RNR NAKs (rnr_retry 7). */
	for (i = 0; i < n; i++) {
		if ((ret = post_recv(rc->b.qp, 0x100 + i, &sg[i], 1))) {
			err = fail("ibv_post_recv %u: %s", i, strerror(ret));
			goto out;
		}
	}
	for (i = 0; i < n && !err; i++)
		err = get_wc(rc->a.scq, "requester", &wc, 0x200 + i,
			     IBV_WC_SUCCESS, IBV_WC_SEND);
	for (i = 0; i < n && !err; i++)
		err = get_wc(rc->b.rcq, "responder", &wc, 0x100 + i,
			     IBV_WC_SUCCESS, IBV_WC_RECV);
out:
	rc->dirty = 1;
	buf_free(&s);
	free(sg);
	return err;
}

/* A throwaway QP on a's CQs, in RESET. */
struct ibv_qp *spare(struct rc *rc)
{
	struct ibv_qp_cap cap;

	default_cap(rc, &cap);
	cap.max_inline_data = 0;
	return qp_new(rc, rc->a.scq, rc->a.rcq, &cap);
}

/* @kind selects one illegal transition or missing attribute. */
const char *t_sm(struct rc *rc, int kind)
{
	struct ibv_qp_attr qa;
	struct ibv_qp *qp;
	const char *err;
	int ret;

	if ((err = ready(rc)))
		return err;
	qp = spare(rc);
	if (!qp)
		return fail("create a spare QP: %s", strerror(errno));
	switch (kind) {
	case 0: /* RESET -> RTR */
		rtr_attr(rc, &qa, qp->qp_num, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTR_MASK));
		err = want_errno(ret, EINVAL, "RESET->RTR");
		if (!err)
			err = state_is(qp, IBV_QPS_RESET, "the spare");
		break;
	case 1: /* RESET -> RTS */
		rts_attr(rc, &qa, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTS_MASK));
		err = want_errno(ret, EINVAL, "RESET->RTS");
		if (!err)
			err = state_is(qp, IBV_QPS_RESET, "the spare");
		break;
	case 2: /* RESET -> INIT without port, pkey and access flags */
		ret = to_state(qp, IBV_QPS_INIT);
		err = want_errno(ret, EINVAL, "RESET->INIT with IBV_QP_STATE only");
		break;
	case 3: /* INIT -> RTR without the address vector */
		if ((ret = to_init(rc, qp))) {
			err = fail("RESET->INIT: %s", strerror(ret));
			break;
		}
		rtr_attr(rc, &qa, qp->qp_num, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTR_MASK & ~IBV_QP_AV));
		err = want_errno(ret, EINVAL, "INIT->RTR without IBV_QP_AV");
		if (!err)
			err = state_is(qp, IBV_QPS_INIT, "the spare");
		break;
	case 4: /* RTS -> RTR, then ERR -> RTS, ERR -> RESET -> INIT */
		if ((ret = to_init(rc, qp)) ||
		    (ret = to_rtr(rc, qp, qp->qp_num, 0, &defaults)) ||
		    (ret = to_rts(rc, qp, 0, &defaults))) {
			err = fail("connect the spare to itself: %s",
				   strerror(ret));
			break;
		}
		rtr_attr(rc, &qa, qp->qp_num, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTR_MASK));
		if ((err = want_errno(ret, EINVAL, "RTS->RTR")) ||
		    (err = state_is(qp, IBV_QPS_RTS, "the spare")))
			break;
		if ((ret = to_state(qp, IBV_QPS_ERR))) {
			err = fail("RTS->ERR: %s", strerror(ret));
			break;
		}
		rts_attr(rc, &qa, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTS_MASK));
		if ((err = want_errno(ret, EINVAL, "ERR->RTS")) ||
		    (err = state_is(qp, IBV_QPS_ERR, "the spare")))
			break;
		if ((ret = to_state(qp, IBV_QPS_RESET)) ||
		    (ret = to_init(rc, qp))) {
			err = fail("ERR->RESET->INIT: %s", strerror(ret));
			break;
		}
		err = state_is(qp, IBV_QPS_INIT, "the spare");
		break;
	}
	ibv_destroy_qp(qp);
	/* The spare shared a's CQs. */
	rc->dirty = 1;
	return err;
}

/* Posting to a QP that cannot take the work request: @kind 0: a send in
 * RESET, 1: a send in INIT, 2: a send in RTR, 3: a receive in RESET. */
const char *t_sm_post(struct rc *rc, int kind)
{
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_qp *qp;
	struct buf b;
	const char *err = NULL;
	int ret;

	memset(&b, 0, sizeof(b));
	if ((err = ready(rc)))
		return err;
	qp = spare(rc);
	if (!qp)
		return fail("create a spare QP: %s", strerror(errno));
	if (buf_new(rc, &b, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (kind == 1 || kind == 2) {
		ret = to_init(rc, qp);
		if (!ret && kind == 2)
			ret = to_rtr(rc, qp, qp->qp_num, 0, &defaults);
		if (ret) {
			err = fail("modify the spare: %s", strerror(ret));
			goto out;
		}
	}
	sge_of(&sg, &b, 0, 64);
	if (kind == 3) {
		ret = post_recv(qp, 0x100, &sg, 1);
	} else {
		wr_init(&wr, 0x200, IBV_WR_SEND, &sg, 1, IBV_SEND_SIGNALED);
		ret = post(qp, &wr);
	}
	if (!ret) {
		err = fail("ibv_post_%s succeeded", kind == 3 ? "recv" : "send");
		goto out;
	}
	err = cq_quiet(rc->a.scq, "send CQ", QUIET_MS);
	if (!err)
		err = cq_quiet(rc->a.rcq, "recv CQ", 0);
	if (!err)
		err = buf_check(&b, "buffer");
out:
	ibv_destroy_qp(qp);
	buf_free(&b);
	rc->dirty = 1;
	return err;
}

/* Creating a QP beyond the device's limits: @kind 0: max_send_wr, 1:
 * max_recv_wr, 2: max_send_sge. */
const char *t_sm_caps(struct rc *rc, int kind)
{
	struct ibv_qp_cap cap;
	struct ibv_qp *qp;
	const char *err;
	int e;

	if ((err = ready(rc)))
		return err;
	default_cap(rc, &cap);
	cap.max_inline_data = 0;
	if (kind == 0)
		cap.max_send_wr = rc->dev.max_qp_wr + 1;
	else if (kind == 1)
		cap.max_recv_wr = rc->dev.max_qp_wr + 1;
	else
		cap.max_send_sge = rc->dev.max_sge + 1;
	errno = 0;
	qp = qp_new(rc, rc->a.scq, rc->a.rcq, &cap);
	e = errno;
	if (qp) {
		ibv_destroy_qp(qp);
		return fail("the QP was created");
	}
	return want_errno(e, EINVAL, "ibv_create_qp");
}

/* The connected pair reads back what it was given. */
const char *t_query(struct rc *rc)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		   IBV_QP_RNR_RETRY | IBV_QP_ACCESS_FLAGS | IBV_QP_CAP;
	const char *err;
	int ret;

	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	memset(&qa, 0, sizeof(qa));
	if ((ret = merr(ibv_query_qp(rc->a.qp, &qa, mask, &ia))))
		return fail("ibv_query_qp: %s", strerror(ret));
	if (qa.qp_state != IBV_QPS_RTS)
		return fail("state %s", state_name(qa.qp_state));
	if (qa.path_mtu != IBV_MTU_1024)
		return fail("path_mtu %d", qa.path_mtu);
	if (qa.dest_qp_num != rc->b.qp->qp_num)
		return fail("dest_qp_num %#x, want %#x", qa.dest_qp_num,
			    rc->b.qp->qp_num);
	if (qa.timeout != defaults.timeout || qa.retry_cnt != defaults.retry_cnt ||
	    qa.rnr_retry != defaults.rnr_retry)
		return fail("timeout/retry_cnt/rnr_retry %d/%d/%d", qa.timeout,
			    qa.retry_cnt, qa.rnr_retry);
	if (!qa.ah_attr.is_global || qa.ah_attr.grh.sgid_index != rc->gidx ||
	    memcmp(&qa.ah_attr.grh.dgid, &rc->gid, sizeof(rc->gid)))
		return fail("address vector: is_global %d, sgid_index %d",
			    qa.ah_attr.is_global, qa.ah_attr.grh.sgid_index);
	if (ia.qp_type != IBV_QPT_RC || ia.cap.max_send_wr < QP_DEPTH ||
	    ia.cap.max_recv_wr < QP_DEPTH)
		return fail("init attributes: type %d, %u send / %u recv WRs",
			    ia.qp_type, ia.cap.max_send_wr, ia.cap.max_recv_wr);
	return NULL;
}
