// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * td_test DEVICE GID_INDEX: thread domains and parent domains
 * (ibv_alloc_td(3), ibv_alloc_parent_domain(3)) on one device whose QPs
 * talk to its own address.
 *
 * Two parent domains on one PD: "a" with a thread domain and an
 * allocator that serves the provider's request, "b" with no thread domain
 * and an allocator that defers (IBV_ALLOCATOR_USE_DEFAULT). An RC QP on
 * each, connected to the other; on "a" with the WR API too. Checked: the
 * argument checks, the allocator's calls (its PD, context, type and the
 * free of what it gave), an MR on a parent domain, SENDs and WRITEs both
 * ways with every byte compared, two threads each posting to a QP of its
 * own thread domain at once (RDMA WRITEs, so each thread touches only
 * its own QP and send CQ), and the references (EBUSY while something is
 * built on a domain). Prints TAP; exits non-zero if any test failed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define MSG	1500
#define NMSG	200
#define DEPTH	32
#define RES_QP	1	/* libsroce's resource type for a QP */

struct alloc_log {
	int allocs, frees, bad;	/* bad: a call with the wrong PD or context */
	void *given;
	uint64_t type;
	size_t size;
	struct ibv_pd *pd;	/* the parent domain it belongs to */
	int defer;		/* answer IBV_ALLOCATOR_USE_DEFAULT */
};

static void *my_alloc(struct ibv_pd *pd, void *ctx, size_t size,
		      size_t align, uint64_t type)
{
	struct alloc_log *l = ctx;
	void *p;

	if (pd != l->pd)
		l->bad++;
	l->allocs++;
	l->type = type;
	l->size = size;
	if (l->defer)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align,
			   size))
		return NULL;
	/* Not zeroed: the provider must not count on it. */
	memset(p, 0x5a, size);
	l->given = p;
	return p;
}

static void my_free(struct ibv_pd *pd, void *ctx, void *ptr, uint64_t type)
{
	struct alloc_log *l = ctx;

	if (pd != l->pd || ptr != l->given || type != l->type)
		l->bad++;
	l->frees++;
	free(ptr);
}

struct end {
	struct ibv_pd *pd;	/* a parent domain */
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;	/* send area, then receive area */
};

/* @n successful completions from @cq within 10 s: 0, or -1. */
static int reap(struct ibv_cq *cq, int n)
{
	time_t end = time(NULL) + 10;
	struct ibv_wc wc[8];
	int got;

	while (n > 0 && time(NULL) < end) {
		got = ibv_poll_cq(cq, n < 8 ? n : 8, wc);
		if (got < 0)
			return -1;
		for (int i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				return -1;
		n -= got;
	}
	return n ? -1 : 0;
}

static unsigned char pat(int who, int i, size_t k)
{
	return (unsigned char)(who * 131 + i * 7 + k * 13);
}

/*
 * @from sends NMSG SENDs of MSG bytes to @to (with the WR API when @wr),
 * each receive checked; then one RDMA WRITE of the whole area. True when
 * every byte arrived.
 */
static int stream(struct end *from, struct end *to, int who, int wr)
{
	unsigned char *src = from->buf, *dst = to->buf + MSG;
	struct ibv_sge ss = { (uintptr_t)src, MSG, from->mr->lkey };
	struct ibv_sge rs = { (uintptr_t)dst, MSG, to->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(from->qp);
	size_t k;

	for (int i = 0; i < NMSG; i++) {
		for (k = 0; k < MSG; k++)
			src[k] = pat(who, i, k);
		memset(dst, 0, MSG);
		if (ibv_post_recv(to->qp, &rwr, &rbad))
			return 0;
		if (wr) {
			ibv_wr_start(qpx);
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_send(qpx);
			ibv_wr_set_sge(qpx, from->mr->lkey, (uintptr_t)src, MSG);
			if (ibv_wr_complete(qpx))
				return 0;
		} else if (ibv_post_send(from->qp, &swr, &sbad)) {
			return 0;
		}
		if (reap(from->scq, 1) || reap(to->rcq, 1))
			return 0;
		for (k = 0; k < MSG; k++)
			if (dst[k] != pat(who, i, k))
				return 0;
	}
	swr.opcode = IBV_WR_RDMA_WRITE;
	swr.wr.rdma.remote_addr = (uintptr_t)dst;
	swr.wr.rdma.rkey = to->mr->rkey;
	memset(dst, 0, MSG);
	return !ibv_post_send(from->qp, &swr, &sbad) && !reap(from->scq, 1) &&
	       !memcmp(src, dst, MSG);
}

/*
 * NMSG RDMA WRITEs from @from to @to, each checked where it landed: only
 * @from's QP and send CQ are used, so a thread may run it on a QP of its
 * own thread domain while another does the same the other way.
 */
static int writes(struct end *from, struct end *to, int who)
{
	unsigned char *src = from->buf, *dst = to->buf + MSG;
	struct ibv_sge ss = { (uintptr_t)src, MSG, from->mr->lkey };
	struct ibv_send_wr swr = { .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	size_t k;

	swr.wr.rdma.remote_addr = (uintptr_t)dst;
	swr.wr.rdma.rkey = to->mr->rkey;
	for (int i = 0; i < NMSG; i++) {
		for (k = 0; k < MSG; k++)
			src[k] = pat(who, i, k);
		if (ibv_post_send(from->qp, &swr, &sbad) || reap(from->scq, 1) ||
		    memcmp(src, dst, MSG))
			return 0;
	}
	return 1;
}

struct worker {
	struct end *from, *to;
	int who, ok;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	w->ok = writes(w->from, w->to, w->who);
	return NULL;
}

static int end_qp(struct ibv_context *ctx, struct end *e, int wr_api)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = e->pd,
	};

	e->scq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	e->rcq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	if (!e->scq || !e->rcq)
		return -1;
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	if (wr_api) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND;
	}
	e->qp = ibv_create_qp_ex(ctx, &ia);
	return e->qp ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct alloc_log la = { 0 }, lb = { .defer = 1 };
	struct ibv_parent_domain_init_attr pa = { 0 };
	struct ibv_td_init_attr ta = { 0 };
	struct end a = { 0 }, b = { 0 };
	struct worker wa, wb;
	struct ibv_context *ctx;
	struct ibv_td *td, *td2;
	struct ibv_pd *pd, *bad;
	pthread_t t1, t2;
	union ibv_gid gid;
	int gidx, ret;

	ctx = open_dev_gid(argc, argv, &gidx, &gid);
	if (!ctx)
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	check(pd != NULL, "a PD");

	ta.comp_mask = 1;
	errno = 0;
	td = ibv_alloc_td(ctx, &ta);
	check(!td && errno == EINVAL, "ibv_alloc_td with an unknown comp_mask bit: EINVAL (errno %d)", errno);
	ta.comp_mask = 0;
	td = ibv_alloc_td(ctx, &ta);
	td2 = ibv_alloc_td(ctx, &ta);
	check(td && td2, "two thread domains");

	pa.pd = pd;
	pa.comp_mask = 1u << 7;
	errno = 0;
	bad = ibv_alloc_parent_domain(ctx, &pa);
	check(!bad && errno == EINVAL, "a parent domain with an unknown comp_mask bit: EINVAL (errno %d)", errno);
	pa.pd = NULL;
	pa.comp_mask = 0;
	errno = 0;
	bad = ibv_alloc_parent_domain(ctx, &pa);
	check(!bad && errno == EINVAL, "a parent domain without a PD: EINVAL (errno %d)", errno);
	pa.pd = pd;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	errno = 0;
	bad = ibv_alloc_parent_domain(ctx, &pa);
	check(!bad && errno == EINVAL, "allocators asked for without the functions: EINVAL (errno %d)", errno);

	pa.td = td;
	pa.alloc = my_alloc;
	pa.free = my_free;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
		       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = &la;
	a.pd = ibv_alloc_parent_domain(ctx, &pa);
	pa.td = td2;
	pa.pd_context = &lb;
	b.pd = ibv_alloc_parent_domain(ctx, &pa);
	la.pd = a.pd;
	lb.pd = b.pd;
	if (!check(a.pd && b.pd && a.pd->context == ctx,
		   "two parent domains on the PD, each with a thread domain and an allocator"))
		return tap_done();
	pa.pd = a.pd;
	pa.td = NULL;
	pa.comp_mask = 0;
	errno = 0;
	bad = ibv_alloc_parent_domain(ctx, &pa);
	check(!bad && errno == EINVAL, "a parent domain of a parent domain: EINVAL (errno %d)", errno);

	a.buf = calloc(2, MSG);
	b.buf = calloc(2, MSG);
	a.mr = ibv_reg_mr(a.pd, a.buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE);
	b.mr = ibv_reg_mr(b.pd, b.buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE);
	check(a.mr && b.mr && a.mr->pd == a.pd, "ibv_reg_mr on a parent domain");

	ret = end_qp(ctx, &a, 1);
	check(!ret, "an RC QP with the WR API on parent domain a");
	check(la.allocs == 1 && la.type == RES_QP && la.size > 0 && !la.bad,
	      "its state came from a's allocator (%d call(s), type %llu, %zu B, %d wrong argument(s))",
	      la.allocs, (unsigned long long)la.type, la.size, la.bad);
	ret = end_qp(ctx, &b, 0);
	check(!ret && lb.allocs == 1 && !lb.bad,
	      "an RC QP on parent domain b, whose allocator defers to the provider's");
	if (!check(a.qp && b.qp &&
		   !rc_qp_to_rts(a.qp, b.qp->qp_num, gidx, &gid) &&
		   !rc_qp_to_rts(b.qp, a.qp->qp_num, gidx, &gid),
		   "the two QPs connected"))
		return tap_done();

	check(stream(&a, &b, 1, 1), "%d SENDs of %d B (WR API) and a WRITE, a to b, every byte", NMSG, MSG);
	check(stream(&b, &a, 2, 0), "%d SENDs of %d B and a WRITE, b to a, every byte", NMSG, MSG);
	/* Each thread posts only to the QP of its own thread domain. */
	wa = (struct worker){ &a, &b, 3, 0 };
	wb = (struct worker){ &b, &a, 4, 0 };
	ret = pthread_create(&t1, NULL, work, &wa) ||
	      pthread_create(&t2, NULL, work, &wb);
	if (!ret) {
		pthread_join(t1, NULL);
		pthread_join(t2, NULL);
	}
	check(!ret && wa.ok && wb.ok, "two threads, each writing %d times through its own thread domain's QP at once, every byte", NMSG);

	check(ibv_dealloc_pd(pd) == EBUSY, "the PD under parent domains: EBUSY");
	check(ibv_dealloc_td(td) == EBUSY, "a thread domain under a parent domain: EBUSY");
	check(ibv_dealloc_pd(a.pd) == EBUSY, "a parent domain with a QP on it: EBUSY");
	/* Called first: the messages show the counts after the calls. */
	ret = ibv_destroy_qp(a.qp);
	check(!ret && la.frees == 1 && !la.bad,
	      "destroying a's QP gives its state back to a's free (%d call(s), %d wrong)", la.frees, la.bad);
	ret = ibv_destroy_qp(b.qp);
	check(!ret && lb.frees == 0,
	      "b's QP, from the provider's allocator, is not given to b's free (%d call(s))", lb.frees);
	check(!ibv_dereg_mr(a.mr) && !ibv_dereg_mr(b.mr) &&
	      !ibv_destroy_cq(a.scq) && !ibv_destroy_cq(b.scq) &&
	      !ibv_destroy_cq(a.rcq) && !ibv_destroy_cq(b.rcq), "MRs and CQs released");
	check(!ibv_dealloc_pd(a.pd) && !ibv_dealloc_pd(b.pd), "the parent domains released");
	check(!ibv_dealloc_td(td) && !ibv_dealloc_td(td2), "the thread domains released");
	check(!ibv_dealloc_pd(pd) && !ibv_close_device(ctx), "the PD and the device released");
	free(a.buf);
	free(b.buf);
	return tap_done();
}
