// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * a19_ops DEVICE GID_INDEX: IBTA 1.5's ATOMIC WRITE and FLUSH (Annex A19)
 * through the verbs, on one device whose RC QPs talk to its own address.
 *
 * ATOMIC WRITE (ibv_wr_atomic_write): 8 bytes land as they were in the
 * caller's buffer, guards untouched, completion IBV_WC_ATOMIC_WRITE with
 * byte_len 8; it follows a WRITE of the same batch and a FETCH_ADD after
 * it sees its value; more of them than max_rd_atomic all complete. The
 * responder's refusals, each on a new pair: a VA not 8-byte aligned and a
 * QP without remote write or without responder resources (REM_INV_REQ),
 * an MR without remote write or a VA past its end (REM_ACCESS); the
 * target is untouched. Refused at post: ibv_post_send (no room for the
 * bytes: EINVAL); at creation on UC and UD: wr_api.
 * FLUSH (libibverbs 44 has no wr_flush: wr_api; a19_wire and flush_ops,
 * under libibverbs 56.1, send them): the device
 * capabilities, a QP that allows both kinds of FLUSH, and which MRs may
 * grant them on this kernel. Prints TAP; exits non-zero if a check failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "tap.h"

/* rdma-core 45's names, not in Debian 12's headers; the values are ABI. */
#define ACC_FLUSH_GLOBAL	(1 << 8)
#define ACC_FLUSH_PERSISTENT	(1 << 9)
#define DEV_FLUSH_GLOBAL	(1ULL << 38)
#define DEV_FLUSH_PERSISTENT	(1ULL << 39)
#define DEV_ATOMIC_WRITE	(1ULL << 40)

#define G	64		/* guard bytes around the target */
#define LEN	4096
#define DEPTH	32
#define ACC_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx;

/* LEN bytes between guards, and what every byte of it must hold. */
struct mem {
	unsigned char *raw, *want, *p;
	struct ibv_mr *mr;
};

static int mem_new(struct mem *m, unsigned char seed, int access)
{
	size_t i;

	m->raw = malloc(LEN + 2 * G);
	m->want = malloc(LEN + 2 * G);
	if (!m->raw || !m->want)
		return -1;
	for (i = 0; i < LEN + 2 * G; i++)
		m->raw[i] = (unsigned char)(seed + i * 13);
	memcpy(m->want, m->raw, LEN + 2 * G);
	m->p = m->raw + G;
	m->mr = ibv_reg_mr(pd, m->p, LEN, access);
	return m->mr ? 0 : -1;
}

static void mem_free(struct mem *m)
{
	if (m->mr)
		ibv_dereg_mr(m->mr);
	free(m->raw);
	free(m->want);
}

static void mem_expect(struct mem *m, size_t off, const void *src, size_t n)
{
	memcpy(m->want + G + off, src, n);
}

/* The first byte (from the start of the guard) that is wrong, or -1. */
static long mem_diff(const struct mem *m)
{
	size_t i;

	for (i = 0; i < LEN + 2 * G; i++)
		if (m->raw[i] != m->want[i])
			return i;
	return -1;
}

/* Responder b: its access flags and responder resources. */
struct resp_cfg {
	int access;
	uint8_t max_dest_rd_atomic;
};

static const struct resp_cfg full = { ACC_ALL, 4 };

#define A19_OPS	(IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_RDMA_WRITE | \
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_BIND_MW)

static int pair_new(struct tap_pair *p, const struct resp_cfg *bc)
{
	return tap_pair_new(p, pd, gidx, &gid, A19_OPS, DEPTH, bc->access,
			    bc->max_dest_rd_atomic);
}


static const unsigned char bytes8[8] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

/* One signaled ATOMIC WRITE of @src to @raddr under @rkey, posted alone. */
static int post_aw(struct tap_pair *p, uint64_t wr_id, uint32_t rkey,
		   uint64_t raddr, const void *src)
{
	ibv_wr_start(p->ax);
	p->ax->wr_id = wr_id;
	p->ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(p->ax, rkey, raddr, src);
	return ibv_wr_complete(p->ax);
}

/* A WRITE, then two ATOMIC WRITEs, one batch; then a FETCH_ADD. */
static void happy(void)
{
	unsigned char data[256], v2[8];
	struct ibv_device_attr dev;
	uint64_t got = 0, v;
	struct mem t = {}, s = {};
	struct ibv_wc wc[3];
	struct tap_pair p = {};
	int i, ok_wc = 1;

	if (!check(!mem_new(&t, 0x11, ACC_ALL) && !mem_new(&s, 0x77, ACC_ALL) &&
		   !pair_new(&p, &full), "an RC pair and two MRs"))
		goto out;
	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (unsigned char)(i * 3 + 1);
	memcpy(s.p, data, sizeof(data));
	for (i = 0; i < 8; i++)
		v2[i] = (unsigned char)(0xf0 + i);
	ibv_wr_start(p.ax);
	p.ax->wr_id = 1;
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(p.ax, t.mr->rkey, (uintptr_t)t.p);
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)s.p, sizeof(data));
	p.ax->wr_id = 2;
	ibv_wr_atomic_write(p.ax, t.mr->rkey, (uintptr_t)t.p + 512, bytes8);
	p.ax->wr_id = 3;
	ibv_wr_atomic_write(p.ax, t.mr->rkey, (uintptr_t)t.p + LEN - 8, v2);
	/* Copied at post: changing the source now changes nothing. */
	memset(v2, 0, sizeof(v2));
	if (!check(!ibv_wr_complete(p.ax), "a batch of WRITE and 2 ATOMIC WRITEs posts"))
		goto out;
	for (i = 0; i < 3; i++) {
		if (!tap_next_wc(p.cq, &wc[i]) || wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].wr_id != (uint64_t)i + 1) {
			ok_wc = 0;
			break;
		}
	}
	check(ok_wc, "three completions, in order, successful");
	check(ok_wc && wc[0].opcode == IBV_WC_RDMA_WRITE &&
	      wc[1].opcode == IBV_WC_ATOMIC_WRITE &&
	      wc[2].opcode == IBV_WC_ATOMIC_WRITE,
	      "opcodes RDMA_WRITE, ATOMIC_WRITE, ATOMIC_WRITE (%d %d %d)",
	      wc[0].opcode, wc[1].opcode, wc[2].opcode);
	check(ok_wc && wc[1].byte_len == 8 && wc[2].byte_len == 8,
	      "an ATOMIC WRITE's byte_len is 8 (%u)", wc[1].byte_len);
	mem_expect(&t, 0, data, sizeof(data));
	mem_expect(&t, 512, bytes8, 8);
	for (i = 0; i < 8; i++)
		v2[i] = (unsigned char)(0xf0 + i);
	mem_expect(&t, LEN - 8, v2, 8);
	check(mem_diff(&t) < 0,
	      "the WRITE's 256 bytes and both ATOMIC WRITEs' 8 bytes landed as they were, guards intact (first bad byte %ld)",
	      mem_diff(&t));

	/* A FETCH_ADD after it sees what it wrote. */
	memcpy(&v, bytes8, 8);
	ibv_wr_start(p.ax);
	p.ax->wr_id = 4;
	ibv_wr_atomic_fetch_add(p.ax, t.mr->rkey, (uintptr_t)t.p + 512, 5);
	ibv_wr_set_sge(p.ax, s.mr->lkey, (uintptr_t)s.p + 1024, 8);
	check(!ibv_wr_complete(p.ax) && tap_next_wc(p.cq, &wc[0]) &&
	      wc[0].status == IBV_WC_SUCCESS &&
	      !memcmp(s.p + 1024, &v, 8) &&
	      (memcpy(&got, t.p + 512, 8), got == v + 5),
	      "a FETCH_ADD after it returns its value; the sum lands");
	v += 5;
	mem_expect(&t, 512, &v, 8);

	/* More than max_rd_atomic (4) of them: each credit comes back. */
	ibv_wr_start(p.ax);
	for (i = 0; i < 10; i++) {
		p.ax->wr_id = 10 + i;
		p.ax->wr_flags = IBV_SEND_SIGNALED;
		memcpy(&v, bytes8, 8);
		v += i;
		ibv_wr_atomic_write(p.ax, t.mr->rkey,
				    (uintptr_t)t.p + 2048 + 8 * i, &v);
		mem_expect(&t, 2048 + 8 * i, &v, 8);
	}
	ok_wc = !ibv_wr_complete(p.ax);
	for (i = 0; ok_wc && i < 10; i++)
		ok_wc = tap_next_wc(p.cq, &wc[0]) &&
			wc[0].status == IBV_WC_SUCCESS &&
			wc[0].wr_id == 10u + i;
	check(ok_wc && mem_diff(&t) < 0,
	      "10 ATOMIC WRITEs with max_rd_atomic 4: all complete, in order, all land");
	check(!ibv_query_device(ctx, &dev) && dev.atomic_cap == IBV_ATOMIC_HCA,
	      "atomic_cap is ATOMIC_HCA: ATOMIC WRITE is atomic with the others too");
out:
	tap_pair_free(&p);
	mem_free(&t);
	mem_free(&s);
}

/*
 * One ATOMIC WRITE the responder refuses, on a pair of its own (the pair
 * goes to the error state): the completion's status, the target intact.
 */
static void refused_by_responder(const char *what, const struct resp_cfg *bc,
				 int mr_access, size_t off,
				 enum ibv_wc_status want)
{
	struct mem t = {};
	struct ibv_wc wc = {};
	struct tap_pair p = {};
	int got;

	if (!check(!mem_new(&t, 0x33, mr_access) && !pair_new(&p, bc),
		   "%s: a pair and the target MR", what))
		goto out;
	got = !post_aw(&p, 7, t.mr->rkey, (uintptr_t)t.p + off, bytes8) &&
	      tap_next_wc(p.cq, &wc);
	check(got && wc.wr_id == 7 && wc.status == want,
	      "%s: %s (got %s)", what, ibv_wc_status_str(want),
	      got ? ibv_wc_status_str(wc.status) : "no completion");
	check(mem_diff(&t) < 0, "%s: the target is untouched", what);
out:
	tap_pair_free(&p);
	mem_free(&t);
}

static void refusals(void)
{
	static const struct resp_cfg no_write = {
		ACC_ALL & ~IBV_ACCESS_REMOTE_WRITE, 4 };
	static const struct resp_cfg no_res = { ACC_ALL, 0 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_ATOMIC_WRITE }, *bad;
	struct tap_pair p = {};

	refused_by_responder("VA not 8-byte aligned", &full, ACC_ALL, 516,
			     IBV_WC_REM_INV_REQ_ERR);
	refused_by_responder("MR without remote write",
			     &full, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_READ, 512,
			     IBV_WC_REM_ACCESS_ERR);
	refused_by_responder("VA past the MR's end", &full, ACC_ALL, LEN,
			     IBV_WC_REM_ACCESS_ERR);
	refused_by_responder("QP without remote write", &no_write, ACC_ALL,
			     512, IBV_WC_REM_INV_REQ_ERR);
	refused_by_responder("QP with max_dest_rd_atomic 0", &no_res, ACC_ALL,
			     512, IBV_WC_REM_INV_REQ_ERR);

	if (check(!pair_new(&p, &full), "a pair for ibv_post_send"))
		check(ibv_post_send(p.a, &wr, &bad) == EINVAL && bad == &wr,
		      "ibv_post_send of an ATOMIC WRITE (no room for its bytes): EINVAL");
	tap_pair_free(&p);
}

/* Linux 6.2 brought FLUSH's access flags: the core refuses them before. */
static int kernel_has_flush(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return -1;
	return maj > 6 || (maj == 6 && min >= 2);
}

static void flush_setup(void)
{
	int has = kernel_has_flush();
	struct ibv_device_attr_ex dx = {};
	struct ibv_qp_init_attr qa = {};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = ACC_ALL | ACC_FLUSH_GLOBAL |
				   ACC_FLUSH_PERSISTENT,
	};
	struct ibv_qp_attr got = {};
	struct ibv_mr *mr;
	struct tap_pair p = {};
	void *buf = malloc(LEN);
	uint64_t caps;

	if (!check(has >= 0 && buf && !ibv_query_device_ex(ctx, NULL, &dx),
		   "the kernel's version and the device's capabilities"))
		goto out;
	caps = dx.device_cap_flags_ex;
	check(!!(caps & DEV_ATOMIC_WRITE),
	      "device_cap_flags_ex: ATOMIC_WRITE (bit 40) (0x%llx)",
	      (unsigned long long)caps);
	check(!!(caps & DEV_FLUSH_GLOBAL) == has,
	      "device_cap_flags_ex: FLUSH_GLOBAL (bit 38) %s", has ? "set" : "clear on 6.1");
	check(!!(caps & DEV_FLUSH_PERSISTENT) == has,
	      "device_cap_flags_ex: FLUSH_PERSISTENT (bit 39) %s",
	      has ? "set" : "clear on 6.1");

	mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | ACC_FLUSH_GLOBAL);
	check(has ? mr != NULL : !mr && errno == EINVAL,
	      "reg_mr with FLUSH_GLOBAL: %s (errno %d)",
	      has ? "registered" : "EINVAL from the 6.1 core", mr ? 0 : errno);
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE |
			ACC_FLUSH_PERSISTENT);
	check(!mr && errno == EINVAL,
	      "reg_mr with FLUSH_PERSISTENT: EINVAL (%s) (errno %d)",
	      has ? "not persistent memory" : "from the 6.1 core", errno);
	if (mr)
		ibv_dereg_mr(mr);

	/* rdma-core's own tests give every RC QP both FLUSH rights. */
	if (!check(!pair_new(&p, &full), "a pair"))
		goto out;
	check(!ibv_modify_qp(p.b, &a, IBV_QP_ACCESS_FLAGS) &&
	      !ibv_query_qp(p.b, &got, IBV_QP_ACCESS_FLAGS, &qa) &&
	      (got.qp_access_flags & (ACC_FLUSH_GLOBAL | ACC_FLUSH_PERSISTENT)) ==
	      (ACC_FLUSH_GLOBAL | ACC_FLUSH_PERSISTENT),
	      "a QP in RTS takes both FLUSH rights, and query_qp shows them (0x%x)",
	      got.qp_access_flags);
out:
	tap_pair_free(&p);
	free(buf);
}

/*
 * A type 2B window may grant FLUSH where an MR may (6.2 on); on 6.1
 * nothing may, windows included: the bind is MW_BIND_ERR.
 */
static void flush_window(void)
{
	int has = kernel_has_flush();
	struct ibv_mw_bind_info info = {
		.length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE | ACC_FLUSH_GLOBAL,
	};
	struct tap_pair p = {};
	struct ibv_mr *mr = NULL;
	struct ibv_mw *mw = NULL;
	struct ibv_wc wc = {};
	void *buf = malloc(LEN);
	int got;

	if (!check(buf && !pair_new(&p, &full) &&
		   (mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_MW_BIND)) &&
		   (mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2)),
		   "a pair, an MR that allows binds, a type 2B window"))
		goto out;
	info.mr = mr;
	info.addr = (uintptr_t)buf;
	ibv_wr_start(p.ax);
	p.ax->wr_id = 3;
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(p.ax, mw, ibv_inc_rkey(mw->rkey), &info);
	got = !ibv_wr_complete(p.ax) && tap_next_wc(p.cq, &wc);
	check(got && wc.status == (has ? IBV_WC_SUCCESS : IBV_WC_MW_BIND_ERR),
	      "a type 2B window granting FLUSH_GLOBAL: %s (got %s)",
	      has ? "bound" : "MW_BIND_ERR on 6.1",
	      got ? ibv_wc_status_str(wc.status) : "no completion");
out:
	if (mw)
		ibv_dealloc_mw(mw);
	tap_pair_free(&p);
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
}

int main(int argc, char **argv)
{
	ctx = open_dev_gid(argc, argv, &gidx, &gid);
	if (!ctx || !check((pd = ibv_alloc_pd(ctx)) != NULL, "a PD"))
		return tap_done();
	happy();
	refusals();
	flush_setup();
	flush_window();
	check(!ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
	      "the PD and the device released");
	return tap_done();
}
