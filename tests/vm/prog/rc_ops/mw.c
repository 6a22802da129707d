// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_ops: memory windows beyond data.c's type 2B walk-through (IBTA
 * 10.6.7). Windows live on b, over an MR that grants no remote right of
 * its own (LOCAL_WRITE | MW_BIND), so whatever a reaches, it reaches
 * through the window: type 1 windows bound with ibv_bind_mw(), type 2B
 * ones with BIND_MW work requests; remote WRITE, READ and atomics inside
 * the window, byte for byte with the guards; and every refusal: outside
 * the window or its rights, an old or invalidated rkey, another QP's type
 * 2B window, binds the MR does not allow, dereg of an MR with a window.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"
#include "../tap.h"

#define MW_MR_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)
#define MW_LEN		1000
#define MW_OFF		100	/* the window starts this far into d */
#define MW_ATOMIC_OFF	112	/* in the window, 8-byte aligned (d.p is) */
#define WR_BIND		0x400

struct mwt {
	struct rc *rc;
	struct buf s, d;	/* a's source, b's target */
	struct ibv_mw *mw;
	uint32_t rkey;		/* the window's, once bound */
};

static const char *mwt_init(struct rc *rc, struct mwt *t,
			    enum ibv_mw_type type, int mr_access)
{
	const char *err;

	memset(t, 0, sizeof(*t));
	t->rc = rc;
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &t->s, 2 * MW_LEN, ACC_LOCAL) ||
	    buf_new(rc, &t->d, 2 * MW_LEN, mr_access))
		return fail("buffers: %s", strerror(errno));
	t->mw = ibv_alloc_mw(rc->pd, type);
	if (!t->mw)
		return fail("ibv_alloc_mw(type %d): %s", type, strerror(errno));
	return NULL;
}

/*
 * The window goes before the QPs: rdma_rxe 6.1 keeps a reference on the
 * QP a type 2B window is bound to, and destroying that QP first WARNs in
 * its cleanup and frees it under the window.
 */
static void mwt_free(struct mwt *t)
{
	if (t->mw)
		ibv_dealloc_mw(t->mw);
	pair_down(t->rc);
	t->rc->dirty = 1;
	buf_free(&t->s);
	buf_free(&t->d);
}

/*
 * Bind t->mw on @qp (one of b's, on b's send CQ) over [off, off + len)
 * of d (len 0: unbind a type 1 window; the MR is named all the same, as
 * libibverbs allows: rdma-core's rxe provider dereferences it) and take
 * the completion, which must have status @st.
 * Type 1 through ibv_bind_mw(), which gives the window its next rkey;
 * type 2B with a BIND_MW work request under the next rkey, which we then
 * keep in the window as the consumer of a type 2B window does.
 */
static struct ibv_mw_bind_info mw_info(struct mwt *t, size_t off, size_t len,
				       int access)
{
	return (struct ibv_mw_bind_info){
		.mr = t->d.mr,
		.addr = len ? (uintptr_t)t->d.p + off : 0,
		.length = len,
		.mw_access_flags = access,
	};
}

static const char *mw_bind_on(struct mwt *t, struct ibv_qp *qp, size_t off,
			      size_t len, int access, enum ibv_wc_status st)
{
	struct ibv_mw_bind_info info = mw_info(t, off, len, access);
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	const char *err;
	uint32_t rkey;
	int ret;

	if (t->mw->type == IBV_MW_TYPE_1) {
		struct ibv_mw_bind b = {
			.wr_id = WR_BIND,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = info,
		};

		rkey = t->mw->rkey;
		ret = ibv_bind_mw(qp, t->mw, &b);
		if (ret)
			return fail("ibv_bind_mw: %s", strerror(ret));
		if (t->mw->rkey == rkey)
			return fail("ibv_bind_mw left the rkey at %#x", rkey);
		rkey = t->mw->rkey;
	} else {
		rkey = ibv_inc_rkey(t->mw->rkey);
		wr_init(&wr, WR_BIND, IBV_WR_BIND_MW, NULL, 0,
			IBV_SEND_SIGNALED);
		wr.bind_mw.mw = t->mw;
		wr.bind_mw.rkey = rkey;
		wr.bind_mw.bind_info = info;
		ret = post(qp, &wr);
		if (ret)
			return fail("ibv_post_send(BIND_MW): %s", strerror(ret));
	}
	err = get_wc(t->rc->b.scq, "binder", &wc, WR_BIND, st,
		     st == IBV_WC_SUCCESS ? IBV_WC_BIND_MW : -1);
	if (err)
		return err;
	if (st == IBV_WC_SUCCESS) {
		t->mw->rkey = rkey;
		t->rkey = rkey;
	} else {
		t->rc->dirty = 1;
	}
	return NULL;
}

/* Bind through b's QP, whose send CQ takes the completion. */
static const char *mw_bind(struct mwt *t, size_t off, size_t len, int access,
			   enum ibv_wc_status st)
{
	return mw_bind_on(t, t->rc->b.qp, off, len, access, st);
}

static int wc_op(enum ibv_wr_opcode op)
{
	if (op == IBV_WR_RDMA_WRITE)
		return IBV_WC_RDMA_WRITE;
	if (op == IBV_WR_RDMA_READ)
		return IBV_WC_RDMA_READ;
	return IBV_WC_FETCH_ADD;
}

/*
 * From a: @op of @len bytes at d + @off under @rkey (s at the same offset
 * is the other end), completing with @st. A WRITE or atomic that lands
 * is expected in d, one that fails leaves d as it was; a READ that lands
 * must bring d's bytes.
 */
static const char *mw_access(struct mwt *t, enum ibv_wr_opcode op, size_t off,
			     size_t len, uint32_t rkey, enum ibv_wc_status st)
{
	struct rc *rc = t->rc;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	const char *err;
	int ret;

	pattern(t->s.p + off, len, next_seed());
	memcpy(t->s.exp + GUARD + off, t->s.p + off, len);
	sge_of(&sg, &t->s, off, len);
	wr_init(&wr, 0x500, op, &sg, 1, IBV_SEND_SIGNALED);
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)t->d.p + off;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)t->d.p + off;
		wr.wr.rdma.rkey = rkey;
	}
	ret = post(rc->a.qp, &wr);
	if (ret)
		return fail("ibv_post_send(%s): %s", opname(op), strerror(ret));
	err = get_wc(rc->a.scq, "requester", &wc, 0x500, st,
		     st == IBV_WC_SUCCESS ? wc_op(op) : -1);
	if (err)
		return err;
	if (st != IBV_WC_SUCCESS) {
		rc->dirty = 1;
		/* A refused access changed nothing on either side. */
		if ((err = buf_check(&t->d, "target")))
			return err;
		return state_is(rc->a.qp, IBV_QPS_ERR, "requester");
	}
	if (op == IBV_WR_RDMA_WRITE) {
		buf_expect(&t->d, off, t->s.p + off, len);
	} else if (op == IBV_WR_RDMA_READ) {
		buf_expect(&t->s, off, t->d.p + off, len);
	} else {
		uint64_t old, now;

		memcpy(&old, t->d.exp + GUARD + off, sizeof(old));
		buf_expect(&t->s, off, &old, sizeof(old));
		now = old + 5;
		buf_expect(&t->d, off, &now, sizeof(now));
	}
	if ((err = buf_check(&t->d, "target")) ||
	    (err = buf_check(&t->s, "source")))
		return err;
	return quiet(rc, QUIET_MS);
}

/* Type 1: WRITE and READ inside the window, through an MR with no rights. */
static const char *mw1_data(struct rc *rc, int atomic)
{
	int acc = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct mwt t;
	const char *err;

	if (atomic && !rc->acc_atomic) {
		skip_why = "no remote atomics on this device";
		return NULL;
	}
	if (atomic)
		acc = IBV_ACCESS_REMOTE_ATOMIC;
	if (!(err = mwt_init(rc, &t, IBV_MW_TYPE_1, MW_MR_ACCESS)) &&
	    !(err = mw_bind(&t, MW_OFF, MW_LEN, acc, IBV_WC_SUCCESS))) {
		if (atomic)
			err = mw_access(&t, IBV_WR_ATOMIC_FETCH_AND_ADD,
					MW_ATOMIC_OFF, 8, t.rkey,
					IBV_WC_SUCCESS);
		else if (!(err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF,
					   MW_LEN, t.rkey, IBV_WC_SUCCESS)))
			err = mw_access(&t, IBV_WR_RDMA_READ, MW_OFF + 1,
					MW_LEN - 1, t.rkey, IBV_WC_SUCCESS);
	}
	mwt_free(&t);
	return err;
}

/*
 * Refused accesses through a type 1 window: 0 one byte past its end (the
 * MR goes on), 1 a WRITE through a read-only window, 2 the rkey of the
 * binding before a rebind, 3 after an unbind.
 */
static const char *mw1_refused(struct rc *rc, int how)
{
	int rw = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct mwt t;
	const char *err;
	uint32_t old;

	if ((err = mwt_init(rc, &t, IBV_MW_TYPE_1, MW_MR_ACCESS)) ||
	    (err = mw_bind(&t, MW_OFF, MW_LEN,
			   how == 1 ? IBV_ACCESS_REMOTE_READ : rw,
			   IBV_WC_SUCCESS)))
		goto out;
	old = t.rkey;
	switch (how) {
	case 0:
		err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF + MW_LEN - 10, 11,
				t.rkey, IBV_WC_REM_ACCESS_ERR);
		break;
	case 1:
		err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 10, t.rkey,
				IBV_WC_REM_ACCESS_ERR);
		break;
	case 2:
		if (!(err = mw_bind(&t, MW_OFF + MW_LEN, 64, rw,
				    IBV_WC_SUCCESS)) &&
		    !(err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF + MW_LEN,
				      64, t.rkey, IBV_WC_SUCCESS)))
			err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 10, old,
					IBV_WC_REM_ACCESS_ERR);
		break;
	default:
		if (!(err = mw_bind(&t, 0, 0, 0, IBV_WC_SUCCESS)))
			err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 10,
					t.rkey, IBV_WC_REM_ACCESS_ERR);
		break;
	}
out:
	mwt_free(&t);
	return err;
}

/*
 * Type 2B: 0 LOCAL_INV kills the rkey; 1 a second bind of a valid window
 * fails (o10-37.2.30); 2 dealloc of a bound window kills its rkey.
 */
static const char *mw2_life(struct rc *rc, int how)
{
	int rw = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	struct mwt t;
	const char *err;
	uint32_t rkey;
	int ret;

	if ((err = mwt_init(rc, &t, IBV_MW_TYPE_2, MW_MR_ACCESS)) ||
	    (err = mw_bind(&t, MW_OFF, MW_LEN, rw, IBV_WC_SUCCESS)))
		goto out;
	rkey = t.rkey;
	switch (how) {
	case 0:
		wr_init(&wr, 0x401, IBV_WR_LOCAL_INV, NULL, 0,
			IBV_SEND_SIGNALED);
		wr.invalidate_rkey = rkey;
		ret = post(rc->b.qp, &wr);
		if (ret) {
			err = fail("ibv_post_send(LOCAL_INV): %s",
				   strerror(ret));
			break;
		}
		if (!(err = get_wc(rc->b.scq, "invalidator", &wc, 0x401,
				   IBV_WC_SUCCESS, IBV_WC_LOCAL_INV)))
			err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 10, rkey,
					IBV_WC_REM_ACCESS_ERR);
		break;
	case 1:
		if (!(err = mw_bind(&t, MW_OFF, 10, rw, IBV_WC_MW_BIND_ERR)))
			err = state_is(rc->b.qp, IBV_QPS_ERR, "binder");
		break;
	default:
		ret = ibv_dealloc_mw(t.mw);
		t.mw = NULL;
		if (ret)
			err = fail("ibv_dealloc_mw of a bound window: %s",
				   strerror(ret));
		else
			err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 10,
					rkey, IBV_WC_REM_ACCESS_ERR);
		break;
	}
out:
	mwt_free(&t);
	return err;
}

/*
 * A type 2B window serves only the QP it is bound to: bound through x, a
 * second QP of the PD (connected to itself), it is refused to a, whose
 * requests arrive on b.
 */
/*
 * A type 2B window bound through *x, a new QP of b's connected to
 * itself, over [MW_OFF, MW_OFF + MW_LEN) of d for remote writes; its
 * rkey is kept in t->rkey and the window.
 */
static const char *mw2_bind_on_self(struct rc *rc, struct mwt *t,
				    struct ibv_qp **x)
{
	struct ibv_qp_cap cap;

	default_cap(rc, &cap);
	*x = qp_new(rc, rc->b.scq, rc->b.rcq, &cap);
	if (!*x || to_init(rc, *x) ||
	    to_rtr(rc, *x, (*x)->qp_num, 0, &defaults) ||
	    to_rts(rc, *x, 0, &defaults))
		return fail("a QP connected to itself: %s", strerror(errno));
	return mw_bind_on(t, *x, MW_OFF, MW_LEN, IBV_ACCESS_REMOTE_WRITE,
			  IBV_WC_SUCCESS);
}

static const char *mw2_other_qp(struct rc *rc)
{
	struct ibv_qp *x = NULL;
	struct mwt t;
	const char *err;

	if (!(err = mwt_init(rc, &t, IBV_MW_TYPE_2, MW_MR_ACCESS)) &&
	    !(err = mw2_bind_on_self(rc, &t, &x)))
		err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 10, t.rkey,
				IBV_WC_REM_ACCESS_ERR);
	/* The window first (mwt_free()). */
	if (t.mw)
		ibv_dealloc_mw(t.mw);
	t.mw = NULL;
	if (x)
		ibv_destroy_qp(x);
	mwt_free(&t);
	return err;
}

/*
 * A type 2B window bound through a QP that is then destroyed is invalid
 * (as after a LOCAL_INV): b binds it again, and a WRITE through it lands.
 * While it stayed valid, a QP given the same QPN later could use it.
 */
static const char *mw2_qp_gone(struct rc *rc)
{
	struct ibv_qp *x = NULL;
	struct mwt t;
	const char *err;
	int ret;

	if ((err = mwt_init(rc, &t, IBV_MW_TYPE_2, MW_MR_ACCESS)) ||
	    (err = mw2_bind_on_self(rc, &t, &x)))
		goto out;
	ret = ibv_destroy_qp(x);
	x = NULL;
	if (ret) {
		err = fail("ibv_destroy_qp(x): %s", strerror(ret));
		goto out;
	}
	if (!(err = mw_bind(&t, MW_OFF, MW_LEN, IBV_ACCESS_REMOTE_WRITE,
			    IBV_WC_SUCCESS)))
		err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 10, t.rkey,
				IBV_WC_SUCCESS);
out:
	if (x)
		ibv_destroy_qp(x);
	mwt_free(&t);
	return err;
}

/*
 * Binds the MR or the window refuse, each completing with MW_BIND_ERR
 * and taking the QP to ERR: 0 an MR without MW_BIND (C10-73); 1 a window
 * past the MR's end (C10-75); 2 a writable window on an MR without
 * LOCAL_WRITE (C10-74); 3 a window of another PD (C10-72).
 */
static const char *mw_bind_refused(struct rc *rc, int how)
{
	static const int mr_acc[] = {
		IBV_ACCESS_LOCAL_WRITE, MW_MR_ACCESS, IBV_ACCESS_MW_BIND,
		MW_MR_ACCESS,
	};
	struct ibv_pd *pd2 = NULL;
	struct mwt t;
	const char *err;

	if ((err = mwt_init(rc, &t, IBV_MW_TYPE_2, mr_acc[how])))
		goto out;
	if (how == 3) {
		pd2 = ibv_alloc_pd(rc->ctx);
		ibv_dealloc_mw(t.mw);
		t.mw = pd2 ? ibv_alloc_mw(pd2, IBV_MW_TYPE_2) : NULL;
		if (!t.mw) {
			err = fail("a window on a second PD: %s",
				   strerror(errno));
			goto out;
		}
	}
	/* d spans GUARD + 2 * MW_LEN + GUARD bytes from d.raw. */
	err = mw_bind(&t, how == 1 ? 2 * MW_LEN : MW_OFF,
		      how == 1 ? GUARD + 1 : MW_LEN, IBV_ACCESS_REMOTE_WRITE,
		      IBV_WC_MW_BIND_ERR);
	if (!err)
		err = state_is(rc->b.qp, IBV_QPS_ERR, "binder");
out:
	mwt_free(&t);
	if (pd2)
		ibv_dealloc_pd(pd2);
	return err;
}

/*
 * An MR with a window bound is not deregistered (the window goes on
 * working); once the window is gone it is.
 */
static const char *mw_dereg_busy(struct rc *rc)
{
	struct mwt t;
	const char *err;
	int ret;

	if ((err = mwt_init(rc, &t, IBV_MW_TYPE_1, MW_MR_ACCESS)) ||
	    (err = mw_bind(&t, MW_OFF, MW_LEN, IBV_ACCESS_REMOTE_WRITE,
			   IBV_WC_SUCCESS)))
		goto out;
	ret = ibv_dereg_mr(t.d.mr);
	if (!ret) {
		t.d.mr = NULL;
		err = fail("ibv_dereg_mr of an MR with a window succeeded");
		goto out;
	}
	if ((err = mw_access(&t, IBV_WR_RDMA_WRITE, MW_OFF, 64, t.rkey,
			     IBV_WC_SUCCESS)))
		goto out;
	ret = ibv_dealloc_mw(t.mw);
	t.mw = NULL;
	if (ret) {
		err = fail("ibv_dealloc_mw: %s", strerror(ret));
		goto out;
	}
	ret = ibv_dereg_mr(t.d.mr);
	if (ret)
		err = fail("ibv_dereg_mr once the window is gone: %s",
			   strerror(ret));
	else
		t.d.mr = NULL;
out:
	mwt_free(&t);
	return err;
}

/*
 * Refused at post: 0 ibv_post_send(BIND_MW) of a type 1 window (those are
 * bound with ibv_bind_mw()), 1 a zero-based type 1 window. Both EINVAL.
 */
static const char *mw_post_refused(struct rc *rc, int how)
{
	struct ibv_mw_bind b = {
		.wr_id = WR_BIND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr wr;
	struct mwt t;
	const char *err;
	int ret;

	if ((err = mwt_init(rc, &t, IBV_MW_TYPE_1, MW_MR_ACCESS)))
		goto out;
	b.bind_info = mw_info(&t, 0, MW_LEN, IBV_ACCESS_REMOTE_WRITE);
	if (how == 0) {
		wr_init(&wr, WR_BIND, IBV_WR_BIND_MW, NULL, 0,
			IBV_SEND_SIGNALED);
		wr.bind_mw.mw = t.mw;
		wr.bind_mw.rkey = ibv_inc_rkey(t.mw->rkey);
		wr.bind_mw.bind_info = b.bind_info;
		ret = post(rc->b.qp, &wr);
	} else {
		b.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
		ret = ibv_bind_mw(rc->b.qp, t.mw, &b);
	}
	if (!(err = want_errno(ret, EINVAL, how ? "ibv_bind_mw(ZERO_BASED)" :
			       "ibv_post_send(BIND_MW, type 1)")))
		err = quiet(rc, QUIET_MS);
out:
	mwt_free(&t);
	return err;
}

/* A bind posted on a QP in ERR completes with WR_FLUSH_ERR. */
static const char *mw_bind_flushed(struct rc *rc)
{
	struct mwt t;
	const char *err;

	if (!(err = mwt_init(rc, &t, IBV_MW_TYPE_2, MW_MR_ACCESS))) {
		if (to_state(rc->b.qp, IBV_QPS_ERR))
			err = fail("modify to ERR: %s", strerror(errno));
		else
			err = mw_bind(&t, MW_OFF, MW_LEN,
				      IBV_ACCESS_REMOTE_WRITE,
				      IBV_WC_WR_FLUSH_ERR);
	}
	mwt_free(&t);
	return err;
}

void t_mw_more(struct rc *rc)
{
	report("mw1-write-read", mw1_data(rc, 0), "type 1 window over an MR with no remote rights: RDMA WRITE and READ inside it, byte for byte");
	report("mw1-atomic", mw1_data(rc, 1), "type 1 window with REMOTE_ATOMIC: FETCH_AND_ADD through it");
	report("mw1-bounds", mw1_refused(rc, 0), "WRITE one byte past the window's end, inside the MR: REM_ACCESS_ERR, untouched");
	report("mw1-rights", mw1_refused(rc, 1), "WRITE through a read-only window: REM_ACCESS_ERR");
	report("mw1-rebind", mw1_refused(rc, 2), "type 1 window bound again elsewhere: the new rkey works there, the old one is REM_ACCESS_ERR");
	report("mw1-unbind", mw1_refused(rc, 3), "type 1 window unbound (length 0): its rkey is REM_ACCESS_ERR");
	report("mw2-local-inv", mw2_life(rc, 0), "LOCAL_INV of a type 2B window: IBV_WC_LOCAL_INV, then its rkey is REM_ACCESS_ERR");
	report("mw2-bind-valid", mw2_life(rc, 1), "BIND_MW of a type 2B window still valid: MW_BIND_ERR, QP in ERR");
	report("mw2-dealloc-bound", mw2_life(rc, 2), "ibv_dealloc_mw of a bound type 2B window succeeds; its rkey is REM_ACCESS_ERR");
	report("mw2-other-qp", mw2_other_qp(rc), "type 2B window bound through another QP of the PD: REM_ACCESS_ERR on this one");
	report("mw2-qp-gone", mw2_qp_gone(rc), "type 2B window whose QP was destroyed: invalid, bound again through b, a WRITE through it lands");
	report("mw-bind-no-mw-bind", mw_bind_refused(rc, 0), "bind over an MR without MW_BIND access: MW_BIND_ERR, QP in ERR");
	report("mw-bind-outside-mr", mw_bind_refused(rc, 1), "bind of a range past the MR's end: MW_BIND_ERR");
	report("mw-bind-no-local-write", mw_bind_refused(rc, 2), "writable window over an MR without LOCAL_WRITE: MW_BIND_ERR");
	report("mw-bind-other-pd", mw_bind_refused(rc, 3), "bind of a window of another PD: MW_BIND_ERR");
	report("mw-dereg-busy", mw_dereg_busy(rc), "ibv_dereg_mr of an MR with a bound window fails, the window still works; after ibv_dealloc_mw it succeeds");
	report("mw1-post-send", mw_post_refused(rc, 0), "ibv_post_send(BIND_MW) of a type 1 window: EINVAL, nothing posted");
	report("mw1-zero-based", mw_post_refused(rc, 1), "ibv_bind_mw of a zero-based window: EINVAL");
	report("mw-bind-flushed", mw_bind_flushed(rc), "BIND_MW posted on a QP in ERR: WR_FLUSH_ERR");
}
