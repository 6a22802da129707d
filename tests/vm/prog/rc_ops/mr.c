// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_ops: memory registration changed under traffic (ibv_rereg_mr).
 *
 * The peer learnt the rkey (and the local side its lkey) before the
 * rereg, as applications exchange keys once at connection time; those
 * keys must keep naming the region, now with its new attributes, and the
 * old attributes must be gone. rdma-core's own tests (tests/test_mr.py)
 * expect the same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"

/* What the other side was told before the rereg. */
struct keys {
	uint32_t lkey, rkey;
};

/*
 * One signaled RDMA WRITE or READ of @len bytes between @loc at offset 0
 * (lkey @lk) and @rem at offset 0 (rkey @rk), ending in @st.
 */
static const char *rdma_op(struct rc *rc, enum ibv_wr_opcode op,
			   struct buf *loc, uint32_t lk, struct buf *rem,
			   uint32_t rk, size_t len, enum ibv_wc_status st)
{
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	int ret;

	sg.addr = (uintptr_t)loc->p;
	sg.length = len;
	sg.lkey = lk;
	wr_init(&wr, 0x300, op, &sg, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)rem->p;
	wr.wr.rdma.rkey = rk;
	ret = post(rc->a.qp, &wr);
	if (ret)
		return fail("ibv_post_send: %s", strerror(ret));
	return get_wc(rc->a.scq, "requester", &wc, 0x300, st,
		      op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE :
						IBV_WC_RDMA_READ);
}

/* A WRITE from @s into @d and a READ of @d back into @s: the bytes
 * arrive. */
static const char *rdma_both(struct rc *rc, struct buf *s, uint32_t lk,
			     struct buf *d, uint32_t rk, size_t len)
{
	const char *err;

	if ((err = rdma_op(rc, IBV_WR_RDMA_WRITE, s, lk, d, rk, len,
			   IBV_WC_SUCCESS)))
		return err;
	buf_expect(d, 0, s->p, len);
	if ((err = buf_check(d, "target of the WRITE")))
		return err;
	pattern(d->p, len, next_seed());
	buf_expect(d, 0, d->p, len);
	if ((err = rdma_op(rc, IBV_WR_RDMA_READ, s, lk, d, rk, len,
			   IBV_WC_SUCCESS)))
		return err;
	buf_expect(s, 0, d->p, len);
	return buf_check(s, "target of the READ");
}

/* A SEND of @len bytes from @s (lkey @slk) into a receive on @d (lkey
 * @dlk). */
static const char *send_into(struct rc *rc, struct buf *s, uint32_t slk,
			     struct buf *d, uint32_t dlk, size_t len)
{
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	ds.addr = (uintptr_t)d->p;
	ds.length = len;
	ds.lkey = dlk;
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1)))
		return fail("ibv_post_recv: %s", strerror(ret));
	ss.addr = (uintptr_t)s->p;
	ss.length = len;
	ss.lkey = slk;
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post(rc->a.qp, &wr)))
		return fail("ibv_post_send: %s", strerror(ret));
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		return err;
	buf_expect(d, 0, s->p, len);
	return buf_check(d, "receive buffer");
}

/* ibv_rereg_mr; a device without it skips the test (as rdma-core's do). */
static const char *rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			 void *addr, size_t len, int access)
{
	int ret = ibv_rereg_mr(mr, flags, pd, addr, len, access);

	if (ret && errno == EOPNOTSUPP) {
		skip_why = "ibv_rereg_mr is not supported";
		return "skip";
	}
	if (ret)
		return fail("ibv_rereg_mr(flags %#x): %d (%s)", flags, ret,
			    strerror(errno));
	return NULL;
}

/*
 * ibv_rereg_mr, then RDMA through the keys known before it. @kind 0:
 * access, local only -> remote read/write (WRITE and READ work) -> no
 * remote write (READ works, WRITE: REM_ACCESS_ERR, target untouched). 1:
 * translation to another buffer: the rkey writes and reads there, the
 * lkey is the local side of a READ, the old range is out of bounds. 2:
 * PD, to another PD and back (works), then to another PD (WRITE:
 * REM_ACCESS_ERR). 3: the local side: the source of a WRITE reregistered
 * to another buffer and PD and back. 4: pinned read-only (REMOTE_READ
 * alone), then made writable: a SEND lands through the lkey, WRITE and
 * READ through the rkey.
 */
const char *t_rereg(struct rc *rc, int kind)
{
	const size_t len = 3000;
	struct ibv_pd *pd2 = NULL;
	struct buf s, d, d2;
	struct keys sk, dk;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&d2, 0, sizeof(d2));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	pd2 = ibv_alloc_pd(rc->ctx);
	if (!pd2 || buf_new(rc, &s, len, kind == 1 ? ACC_REMOTE : ACC_LOCAL) ||
	    buf_new(rc, &d, len, kind == 4 ? IBV_ACCESS_REMOTE_READ :
			kind ? ACC_REMOTE : ACC_LOCAL) ||
	    buf_new(rc, &d2, len, -1)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sk = (struct keys){ s.mr->lkey, s.mr->rkey };
	dk = (struct keys){ d.mr->lkey, d.mr->rkey };
	switch (kind) {
	case 0:
		if ((err = rereg(d.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				 0, ACC_REMOTE)) ||
		    (err = rdma_both(rc, &s, sk.lkey, &d, dk.rkey, len)) ||
		    (err = rereg(d.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				 0, ACC_LOCAL | IBV_ACCESS_REMOTE_READ)) ||
		    (err = rdma_op(rc, IBV_WR_RDMA_READ, &s, sk.lkey, &d,
				   dk.rkey, len, IBV_WC_SUCCESS)))
			goto out;
		buf_expect(&s, 0, d.p, len);
		if ((err = buf_check(&s, "target of the READ")))
			goto out;
		pattern(s.p, len, next_seed());
		buf_accept(&s, 0, len);
		if ((err = rdma_op(rc, IBV_WR_RDMA_WRITE, &s, sk.lkey, &d,
				   dk.rkey, len, IBV_WC_REM_ACCESS_ERR)))
			goto out;
		err = buf_check(&d, "target of the refused WRITE");
		goto out;
	case 1:
		if ((err = rereg(d.mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				 d2.raw, d2.total, 0)))
			goto out;
		d2.mr = d.mr;
		d.mr = NULL;
		if ((err = rdma_both(rc, &s, sk.lkey, &d2, dk.rkey, len)) ||
		    (err = rdma_op(rc, IBV_WR_RDMA_READ, &d2, dk.lkey, &s,
				   sk.rkey, len, IBV_WC_SUCCESS)))
			goto out;
		buf_expect(&d2, 0, s.p, len);
		if ((err = buf_check(&d2, "local side of the READ")))
			goto out;
		/* The old range through the rkey: out of bounds now. */
		if ((err = rdma_op(rc, IBV_WR_RDMA_WRITE, &s, sk.lkey, &d,
				   dk.rkey, len, IBV_WC_REM_ACCESS_ERR)) ||
		    (err = buf_check(&d, "old range")))
			goto out;
		err = buf_check(&d2, "new range");
		goto out;
	case 2:
		if ((err = rereg(d.mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0,
				 0)) ||
		    (err = rereg(d.mr, IBV_REREG_MR_CHANGE_PD, rc->pd, NULL, 0,
				 0)) ||
		    (err = rdma_both(rc, &s, sk.lkey, &d, dk.rkey, len)) ||
		    (err = rereg(d.mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0,
				 0)) ||
		    (err = rdma_op(rc, IBV_WR_RDMA_WRITE, &s, sk.lkey, &d,
				   dk.rkey, len, IBV_WC_REM_ACCESS_ERR)))
			goto out;
		err = buf_check(&d, "target of the refused WRITE");
		goto out;
	case 3:
		if ((err = rereg(s.mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				 IBV_REREG_MR_CHANGE_PD, pd2, d2.raw, d2.total,
				 0)) ||
		    (err = rereg(s.mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				 IBV_REREG_MR_CHANGE_PD |
				 IBV_REREG_MR_CHANGE_ACCESS, rc->pd, s.raw,
				 s.total, ACC_LOCAL)))
			goto out;
		err = rdma_both(rc, &s, sk.lkey, &d, dk.rkey, len);
		goto out;
	default:
		if ((err = rereg(d.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
				 0, ACC_REMOTE)) ||
		    (err = send_into(rc, &s, sk.lkey, &d, dk.lkey, len)))
			goto out;
		err = rdma_both(rc, &s, sk.lkey, &d, dk.rkey, len);
		goto out;
	}
out:
	if (err && skip_why)
		err = NULL;
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	buf_free(&d2);
	if (pd2) {
		ret = ibv_dealloc_pd(pd2);
		if (ret && !err)
			err = fail("the second PD: %s", strerror(ret));
	}
	return err;
}
