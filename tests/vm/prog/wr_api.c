// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wr_api DEVICE GID_INDEX: the extended QP verbs (ibv_create_qp_ex(3),
 * ibv_wr_post(3)) on one device whose QPs talk to its own address.
 *
 * An RC pair and a UC pair, a's QPs created with every send operation
 * their type allows. One batch on RC builds every operation: SEND from a
 * list of three SGEs, SEND_WITH_IMM, inline SEND from two buffers, RDMA
 * WRITE, WRITE_WITH_IMM, READ, FETCH_AND_ADD, CMP_AND_SWP; each
 * completion comes in order with its opcode, and every byte (guards
 * around each target included) is what it must be. Then UC through the
 * same builders, an aborted batch (nothing sent), a batch with a bad
 * builder (wr_complete fails it, nothing of it sent, the QP still
 * works), the window builders (wr_bind_mw, wr_local_inv, with a WRITE
 * through the window and one refused after), a READ asked of a UC QP
 * (EINVAL), and send_ops_flags the
 * device does not have (EOPNOTSUPP at creation). Prints TAP; exits
 * non-zero if any test failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define G	64		/* guard bytes around every area */
#define AREA	4096
#define NAREA	8
#define DEPTH	32
#define RC_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define UC_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx;

/* One registered buffer: NAREA areas of AREA bytes, G guard bytes each side. */
struct mem {
	unsigned char *p, *want;
	struct ibv_mr *mr;
};

static size_t mem_len(void)
{
	return NAREA * (AREA + 2 * G);
}

static unsigned char *area(struct mem *m, int i)
{
	return m->p + i * (AREA + 2 * G) + G;
}

static int mem_new(struct mem *m, unsigned char seed)
{
	size_t i;

	m->p = malloc(mem_len());
	m->want = malloc(mem_len());
	if (!m->p || !m->want)
		return -1;
	for (i = 0; i < mem_len(); i++)
		m->p[i] = (unsigned char)(seed + i * 7);
	memcpy(m->want, m->p, mem_len());
	m->mr = ibv_reg_mr(pd, m->p, mem_len(), IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	return m->mr ? 0 : -1;
}

/* From now on area @i of @m holds @n bytes of @src at @off. */
static void mem_expect(struct mem *m, int i, size_t off, const void *src,
		       size_t n)
{
	memcpy(m->want + (area(m, i) - m->p) + off, src, n);
}

/* The first byte where @m is not what it must be, or -1. */
static long mem_diff(const struct mem *m)
{
	size_t i;

	for (i = 0; i < mem_len(); i++)
		if (m->p[i] != m->want[i])
			return i;
	return -1;
}

struct pair {
	struct ibv_cq *scq, *rcq;	/* a's send CQ, b's receive CQ */
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *ax;
};

static int pair_new(struct pair *p, enum ibv_qp_type type, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = type,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};

	p->scq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	p->rcq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	if (!p->scq || !p->rcq)
		return -1;
	ia.send_cq = p->scq;
	ia.recv_cq = p->rcq;
	p->a = ibv_create_qp_ex(ctx, &ia);
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND;
	p->b = ibv_create_qp_ex(ctx, &ia);
	if (!p->a || !p->b)
		return -1;
	p->ax = ibv_qp_to_qp_ex(p->a);
	return rc_qp_to_rts(p->a, p->b->qp_num, gidx, &gid) ||
	       rc_qp_to_rts(p->b, p->a->qp_num, gidx, &gid) ? -1 : 0;
}

static void pair_free(struct pair *p)
{
	ibv_destroy_qp(p->a);
	ibv_destroy_qp(p->b);
	ibv_destroy_cq(p->scq);
	ibv_destroy_cq(p->rcq);
}

/* Nothing arrives on @cq within 50 ms. */
static int quiet(struct ibv_cq *cq)
{
	struct timespec d = { 0, 50 * 1000 * 1000 };
	struct ibv_wc wc;

	nanosleep(&d, NULL);
	return ibv_poll_cq(cq, 1, &wc) == 0;
}

/* @n completions in order, wr_id 1..n, with these opcodes: NULL, or why not. */
static const char *expect_wcs(struct ibv_cq *cq, int n, const int *ops,
			      char *why, size_t len)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		if (!tap_next_wc(cq, &wc)) {
			snprintf(why, len, "completion %d of %d missing", i + 1, n);
			return why;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i + 1 ||
		    (int)wc.opcode != ops[i]) {
			snprintf(why, len, "completion %d: wr_id %llu, %s, opcode %d (want %d, opcode %d)",
				 i + 1, (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status), wc.opcode, i + 1, ops[i]);
			return why;
		}
	}
	return NULL;
}

static void post_recvs(struct pair *p, struct mem *m, int first, int n)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge sg = { (uintptr_t)area(m, first + i), AREA,
				      m->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sg,
					  .num_sge = 1 }, *bad;

		ibv_post_recv(p->b, &wr, &bad);
	}
}

/*
 * Receive completions 100.. of b, with these byte counts and immediates
 * (0: none): NULL, or why not.
 */
static const char *expect_recvs(struct pair *p, int n, const uint32_t *len,
				const uint32_t *imm, char *why, size_t wl)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		if (!tap_next_wc(p->rcq, &wc) || wc.status != IBV_WC_SUCCESS ||
		    wc.wr_id != 100u + i || wc.byte_len != len[i] ||
		    !!(wc.wc_flags & IBV_WC_WITH_IMM) != !!imm[i] ||
		    (imm[i] && ntohl(wc.imm_data) != imm[i])) {
			snprintf(why, wl, "receive %d: wr_id %llu, %s, %u bytes, flags 0x%x, imm 0x%x",
				 i, (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status), wc.byte_len,
				 wc.wc_flags, ntohl(wc.imm_data));
			return why;
		}
	}
	return NULL;
}

/* Every builder RC has, in one batch; every byte and completion checked. */
static void rc_batch(void)
{
	static const int ops[] = {
		IBV_WC_SEND, IBV_WC_SEND, IBV_WC_SEND, IBV_WC_RDMA_WRITE,
		IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD,
		IBV_WC_COMP_SWAP,
	};
	static const uint32_t lens[] = { 3000, 100, 40, 512 };
	static const uint32_t imms[] = { 0, 0xabc1, 0, 0xabc2 };
	const uint64_t w0 = 0x1122334455667788ull, add = 0x100000001ull;
	unsigned char hdr[16] = "inline-header:", body[24];
	struct ibv_data_buf inl[2] = { { hdr, 16 }, { body, 24 } };
	struct mem s = { 0 }, d = { 0 };
	struct ibv_sge sgl[3];
	uint64_t v1, v2;
	struct pair p;
	char why[160];
	const char *err;
	int ret;

	memset(body, 0x3c, sizeof(body));
	if (!check(!pair_new(&p, IBV_QPT_RC, RC_OPS) && !mem_new(&s, 1) &&
		   !mem_new(&d, 2), "RC pair, a with every RC builder; buffers"))
		return;
	post_recvs(&p, &d, 0, 4);
	/* The atomic word in d's area 6: w0; results land in s's area 7. */
	memcpy(area(&d, 6), &w0, 8);
	mem_expect(&d, 6, 0, &w0, 8);
	sgl[0] = (struct ibv_sge){ (uintptr_t)area(&s, 0), 1000, s.mr->lkey };
	sgl[1] = (struct ibv_sge){ (uintptr_t)area(&s, 0) + 2000, 1500, s.mr->lkey };
	sgl[2] = (struct ibv_sge){ (uintptr_t)area(&s, 1), 500, s.mr->lkey };

	ibv_wr_start(p.ax);
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	p.ax->wr_id = 1;
	ibv_wr_send(p.ax);
	ibv_wr_set_sge_list(p.ax, 3, sgl);
	p.ax->wr_id = 2;
	ibv_wr_send_imm(p.ax, htonl(0xabc1));
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 2), 100);
	p.ax->wr_id = 3;
	ibv_wr_send(p.ax);
	ibv_wr_set_inline_data_list(p.ax, 2, inl);
	p.ax->wr_id = 4;
	ibv_wr_rdma_write(p.ax, d.mr->rkey, (uintptr_t)area(&d, 4) + 8);
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 3), 1025);
	p.ax->wr_id = 5;
	ibv_wr_rdma_write_imm(p.ax, d.mr->rkey, (uintptr_t)area(&d, 5),
			      htonl(0xabc2));
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 4), 512);
	p.ax->wr_id = 6;
	ibv_wr_rdma_read(p.ax, d.mr->rkey, (uintptr_t)area(&d, 7) + 1);
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 5), 2049);
	p.ax->wr_id = 7;
	ibv_wr_atomic_fetch_add(p.ax, d.mr->rkey, (uintptr_t)area(&d, 6), add);
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 7), 8);
	p.ax->wr_id = 8;
	ibv_wr_atomic_cmp_swp(p.ax, d.mr->rkey, (uintptr_t)area(&d, 6),
			      w0 + add, ~w0);
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 7) + 8, 8);
	ret = ibv_wr_complete(p.ax);
	check(!ret, "one batch of 8 WRs through every RC builder: wr_complete %d", ret);

	err = expect_wcs(p.scq, 8, ops, why, sizeof(why));
	check(!err, "8 completions in order with their opcodes%s%s",
	      err ? ": " : "", err ? err : "");
	err = expect_recvs(&p, 4, lens, imms, why, sizeof(why));
	check(!err, "4 receives: the SGE list, SEND_WITH_IMM, the inline SEND, WRITE_WITH_IMM%s%s",
	      err ? ": " : "", err ? err : "");
	/* What every byte must be now. */
	mem_expect(&d, 0, 0, area(&s, 0), 1000);
	mem_expect(&d, 0, 1000, area(&s, 0) + 2000, 1500);
	mem_expect(&d, 0, 2500, area(&s, 1), 500);
	mem_expect(&d, 1, 0, area(&s, 2), 100);
	mem_expect(&d, 2, 0, hdr, 16);
	mem_expect(&d, 2, 16, body, 24);
	mem_expect(&d, 4, 8, area(&s, 3), 1025);
	mem_expect(&d, 5, 0, area(&s, 4), 512);
	mem_expect(&s, 5, 0, area(&d, 7) + 1, 2049);
	v1 = w0;
	v2 = w0 + add;
	mem_expect(&s, 7, 0, &v1, 8);
	mem_expect(&s, 7, 8, &v2, 8);
	v2 = ~w0;
	mem_expect(&d, 6, 0, &v2, 8);
	check(mem_diff(&d) < 0 && mem_diff(&s) < 0,
	      "every byte: targets, the READ's and atomics' results, guards (first difference %ld / %ld)",
	      mem_diff(&d), mem_diff(&s));

	/* An aborted batch sends nothing. */
	ibv_wr_start(p.ax);
	p.ax->wr_id = 9;
	ibv_wr_rdma_write(p.ax, d.mr->rkey, (uintptr_t)area(&d, 3));
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 0), 64);
	ibv_wr_abort(p.ax);
	check(quiet(p.scq) && mem_diff(&d) < 0, "wr_abort: nothing sent, no completion");

	/* A builder that fails fails the batch: nothing of it is sent. */
	ibv_wr_start(p.ax);
	p.ax->wr_id = 10;
	ibv_wr_rdma_write(p.ax, d.mr->rkey, (uintptr_t)area(&d, 3));
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 0), 64);
	p.ax->wr_id = 11;
	ibv_wr_send(p.ax);
	ibv_wr_set_inline_data(p.ax, area(&s, 0), AREA);
	ret = ibv_wr_complete(p.ax);
	check(ret == EINVAL && quiet(p.scq) && mem_diff(&d) < 0,
	      "a batch with inline data past max_inline_data: wr_complete EINVAL (%d), nothing of it sent", ret);

	ibv_wr_start(p.ax);
	p.ax->wr_id = 1;
	ibv_wr_rdma_write(p.ax, d.mr->rkey, (uintptr_t)area(&d, 3));
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 6), 300);
	ret = ibv_wr_complete(p.ax);
	mem_expect(&d, 3, 0, area(&s, 6), 300);
	err = ret ? "wr_complete failed" : expect_wcs(p.scq, 1, ops + 3, why, sizeof(why));
	check(!err && mem_diff(&d) < 0, "the QP still works after: a WRITE lands%s%s",
	      err ? ": " : "", err ? err : "");
	pair_free(&p);
	ibv_dereg_mr(s.mr);
	ibv_dereg_mr(d.mr);
}

/*
 * UC through the same builders; a READ is refused in its batch. The WRITE
 * goes first: a UC send completion comes when the packets leave, so only
 * the SEND behind it, received, says the WRITE's bytes were placed.
 */
static void uc_batch(void)
{
	static const int ops[] = { IBV_WC_RDMA_WRITE, IBV_WC_SEND };
	static const uint32_t lens[] = { 2000 }, imms[] = { 0xdef0 };
	struct mem s = { 0 }, d = { 0 };
	struct pair p;
	char why[160];
	const char *err;
	int ret;

	if (!check(!pair_new(&p, IBV_QPT_UC, UC_OPS) && !mem_new(&s, 3) &&
		   !mem_new(&d, 4), "UC pair, a with every UC builder; buffers"))
		return;
	post_recvs(&p, &d, 0, 1);
	ibv_wr_start(p.ax);
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	p.ax->wr_id = 1;
	ibv_wr_rdma_write(p.ax, d.mr->rkey, (uintptr_t)area(&d, 2) + 3);
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 1), 3001);
	p.ax->wr_id = 2;
	ibv_wr_send_imm(p.ax, htonl(0xdef0));
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 0), 2000);
	ret = ibv_wr_complete(p.ax);
	err = ret ? "wr_complete failed" : expect_wcs(p.scq, 2, ops, why, sizeof(why));
	if (!err)
		err = expect_recvs(&p, 1, lens, imms, why, sizeof(why));
	mem_expect(&d, 0, 0, area(&s, 0), 2000);
	mem_expect(&d, 2, 3, area(&s, 1), 3001);
	check(!err && mem_diff(&d) < 0,
	      "UC batch: a 3001 B WRITE and a SEND_WITH_IMM, completions, receive, every byte%s%s",
	      err ? ": " : "", err ? err : "");

	ibv_wr_start(p.ax);
	p.ax->wr_id = 3;
	ibv_wr_rdma_read(p.ax, d.mr->rkey, (uintptr_t)area(&d, 0));
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)area(&s, 2), 8);
	ret = ibv_wr_complete(p.ax);
	check(ret == EINVAL && quiet(p.scq), "a READ built on a UC QP: wr_complete EINVAL (%d), nothing sent", ret);
	pair_free(&p);
	ibv_dereg_mr(s.mr);
	ibv_dereg_mr(d.mr);
}

/* b WRITEs @n bytes of d's area 0 into a's area 2 under @rkey: its status. */
static int b_write(struct pair *p, struct mem *s, struct mem *d, uint32_t rkey,
		   uint32_t n)
{
	struct ibv_sge sg = { (uintptr_t)area(d, 0), n, d->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 31, .sg_list = &sg, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)area(s, 2), rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(p->b, &wr, &bad) || !tap_next_wc(p->scq, &wc) ||
	    wc.wr_id != 31)
		return -1;
	return wc.status;
}

/*
 * The window builders: wr_bind_mw binds a type 2B window over a's memory
 * (an MR with no remote right of its own) to a's QP, b WRITEs through it;
 * wr_local_inv ends it, and b's next WRITE is refused.
 */
static void mw_batch(void)
{
	static const int bind_op[] = { IBV_WC_BIND_MW };
	static const int inv_op[] = { IBV_WC_LOCAL_INV };
	struct mem s = { 0 }, d = { 0 };
	struct ibv_mw_bind_info info;
	struct ibv_mw *mw = NULL;
	struct ibv_mr *wmr = NULL;
	uint32_t rkey = 0;
	struct pair p;
	char why[160];
	const char *err;
	int ret;

	if (!check(!pair_new(&p, IBV_QPT_RC, RC_OPS | IBV_QP_EX_WITH_BIND_MW |
			     IBV_QP_EX_WITH_LOCAL_INV) &&
		   !mem_new(&s, 5) && !mem_new(&d, 6) &&
		   (wmr = ibv_reg_mr(pd, s.p, mem_len(), IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_MW_BIND)) &&
		   (mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2)),
		   "RC pair with the window builders, an MR with MW_BIND, a type 2 window"))
		return;
	info = (struct ibv_mw_bind_info){
		.mr = wmr, .addr = (uintptr_t)area(&s, 2), .length = 512,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	rkey = ibv_inc_rkey(mw->rkey);
	ibv_wr_start(p.ax);
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	p.ax->wr_id = 1;
	ibv_wr_bind_mw(p.ax, mw, rkey, &info);
	ret = ibv_wr_complete(p.ax);
	err = ret ? "wr_complete failed" : expect_wcs(p.scq, 1, bind_op, why, sizeof(why));
	check(!err, "wr_bind_mw: the window is bound (IBV_WC_BIND_MW)%s%s",
	      err ? ": " : "", err ? err : "");
	ret = b_write(&p, &s, &d, rkey, 512);
	mem_expect(&s, 2, 0, area(&d, 0), 512);
	check(ret == IBV_WC_SUCCESS && mem_diff(&s) < 0,
	      "a WRITE through the window lands, every byte (status %d, first difference %ld)",
	      ret, mem_diff(&s));

	ibv_wr_start(p.ax);
	p.ax->wr_id = 1;
	ibv_wr_local_inv(p.ax, rkey);
	ret = ibv_wr_complete(p.ax);
	err = ret ? "wr_complete failed" : expect_wcs(p.scq, 1, inv_op, why, sizeof(why));
	check(!err, "wr_local_inv of the window's rkey: IBV_WC_LOCAL_INV%s%s",
	      err ? ": " : "", err ? err : "");
	memset(area(&d, 0), 0x5a, 16);
	ret = b_write(&p, &s, &d, rkey, 16);
	check(ret == IBV_WC_REM_ACCESS_ERR && mem_diff(&s) < 0,
	      "a WRITE through the invalidated window: REM_ACCESS_ERR (status %d), nothing lands",
	      ret);
	pair_free(&p);
	ibv_dealloc_mw(mw);
	ibv_dereg_mr(wmr);
	ibv_dereg_mr(s.mr);
	ibv_dereg_mr(d.mr);
}

/* send_ops_flags a QP cannot have are refused when it is created. */
static void refused(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
	};
	struct { enum ibv_qp_type t; uint64_t ops; const char *what; } c[] = {
		{ IBV_QPT_RC, IBV_QP_EX_WITH_TSO, "TSO on RC" },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_BIND_MW, "BIND_MW on UD" },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_RDMA_READ, "RDMA_READ on UC" },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE, "RDMA_WRITE on UD" },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_WRITE, "ATOMIC_WRITE on UC" },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_ATOMIC_WRITE, "ATOMIC_WRITE on UD" },
		/* rdma-core 45's WITH_FLUSH: libibverbs 44 has no wr_flush */
		{ IBV_QPT_RC, 1 << 11, "FLUSH on RC under libibverbs 44" },
	};
	struct ibv_qp *qp;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ia.qp_type = c[i].t;
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND | c[i].ops;
		errno = 0;
		qp = ibv_create_qp_ex(ctx, &ia);
		check(!qp && errno == EOPNOTSUPP, "send_ops_flags with %s: EOPNOTSUPP (errno %d)",
		      c[i].what, errno);
		if (qp)
			ibv_destroy_qp(qp);
	}
	ibv_destroy_cq(cq);
}

int main(int argc, char **argv)
{
	ctx = open_dev_gid(argc, argv, &gidx, &gid);
	if (!ctx || !check((pd = ibv_alloc_pd(ctx)) != NULL, "a PD"))
		return tap_done();
	rc_batch();
	mw_batch();
	uc_batch();
	refused();
	check(!ibv_dealloc_pd(pd) && !ibv_close_device(ctx), "the PD and the device released");
	return tap_done();
}
