// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * flush_ops DEVICE GID_INDEX: ibv_wr_flush (IBTA 1.5 FLUSH) through
 * libsroce, on one device whose RC QPs talk to its own address. Built
 * against rdma-core 56.1 and run under its libibverbs (Debian 12's 44 has
 * no wr_flush): see tests/vm/lib/roce.sh, rc56.
 *
 * A QP takes IBV_QP_EX_WITH_FLUSH here. After a WRITE: FLUSH of its
 * range, of the whole MR with length 0 and with a length past the MR
 * (the level ignores it), each completing as IBV_WC_FLUSH with the
 * length asked for as byte_len, the data untouched; an ATOMIC WRITE
 * still works beside them. The responder's refusals, each on a new pair:
 * persistence asked of an MR that grants global visibility only, a range
 * past the MR (REM_ACCESS_ERR), a QP without the FLUSH right
 * (REM_INV_REQ_ERR). Refused at post (EINVAL): no placement type, an
 * unknown one, level 2, a length over 32 bits, and ibv_post_send().
 * On Linux 6.1 no MR can grant FLUSH: the core refuses the flag, and a
 * FLUSH is REM_ACCESS_ERR. Prints TAP; exits non-zero if a check failed.
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

#define LEN	8192
#define DEPTH	16
#define ACC_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define ACC_QP	(ACC_ALL | IBV_ACCESS_FLUSH_GLOBAL | \
		 IBV_ACCESS_FLUSH_PERSISTENT)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx, has_flush;
static unsigned char *mem, *src;
static struct ibv_mr *mr, *mr_src;

static int pair_new(struct tap_pair *p, int b_access)
{
	return tap_pair_new(p, pd, gidx, &gid, IBV_QP_EX_WITH_FLUSH |
			    IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_ATOMIC_WRITE, DEPTH, b_access, 4);
}

/* One FLUSH, posted alone: 0, or the errno of ibv_wr_complete(). */
static int post_flush(struct tap_pair *p, uint64_t wr_id, uint32_t rkey,
		      uint64_t addr, size_t len, uint8_t type, uint8_t level)
{
	ibv_wr_start(p->ax);
	p->ax->wr_id = wr_id;
	p->ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(p->ax, rkey, addr, len, type, level);
	return ibv_wr_complete(p->ax);
}

/* One FLUSH and its completion: NULL, or why it was not @want. */
static const char *flush_wc(struct tap_pair *p, uint64_t wr_id, uint32_t rkey,
			    uint64_t addr, size_t len, uint8_t type,
			    uint8_t level, enum ibv_wc_status want)
{
	static char why[128];
	struct ibv_wc wc;

	if (post_flush(p, wr_id, rkey, addr, len, type, level))
		return "posting failed";
	if (!tap_next_wc(p->cq, &wc))
		return "no completion";
	if (wc.wr_id != wr_id || wc.status != want ||
	    (want == IBV_WC_SUCCESS &&
	     (wc.opcode != IBV_WC_FLUSH || wc.byte_len != (uint32_t)len))) {
		snprintf(why, sizeof(why), "wr_id %llu, %s, opcode %d, byte_len %u",
			 (unsigned long long)wc.wr_id,
			 ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
		return why;
	}
	return NULL;
}

static void flushes(void)
{
	unsigned char want[256], v[8] = { 9, 8, 7, 6, 5, 4, 3, 2 };
	const char *err;
	struct ibv_wc wc;
	struct tap_pair p = {};
	int i;

	if (!check(!pair_new(&p, ACC_QP),
		   "an RC pair with IBV_QP_EX_WITH_FLUSH (libibverbs 56.1)"))
		goto out;
	for (i = 0; i < (int)sizeof(want); i++)
		src[i] = want[i] = (unsigned char)(i * 7 + 3);
	ibv_wr_start(p.ax);
	p.ax->wr_id = 1;
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(p.ax, mr->rkey, (uintptr_t)mem + 512);
	ibv_wr_set_sge(p.ax, mr_src->lkey, (uintptr_t)src, sizeof(want));
	check(!ibv_wr_complete(p.ax) && tap_next_wc(p.cq, &wc) &&
	      wc.status == IBV_WC_SUCCESS, "a WRITE of 256 bytes");
	check(post_flush(&p, 6, mr->rkey, (uintptr_t)mem, 8, 0,
			 IBV_FLUSH_RANGE) == EINVAL,
	      "no placement type: EINVAL at post");
	check(post_flush(&p, 6, mr->rkey, (uintptr_t)mem, 8, 4,
			 IBV_FLUSH_RANGE) == EINVAL,
	      "an unknown placement type: EINVAL at post");
	check(post_flush(&p, 6, mr->rkey, (uintptr_t)mem, 8,
			 IBV_FLUSH_GLOBAL, 2) == EINVAL,
	      "level 2: EINVAL at post");
	check(post_flush(&p, 6, mr->rkey, (uintptr_t)mem, 1ULL << 32,
			 IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE) == EINVAL,
	      "a length of 2^32: EINVAL at post");
	{
		struct ibv_send_wr wr = { .opcode = IBV_WR_FLUSH }, *bad;

		check(ibv_post_send(p.a, &wr, &bad) == EINVAL,
		      "ibv_post_send of a FLUSH (no room for its type): EINVAL");
	}
	check(!ibv_poll_cq(p.cq, 1, &wc), "nothing refused at post completes");
	if (!has_flush) {
		err = flush_wc(&p, 2, mr->rkey, (uintptr_t)mem + 512, 256,
			       IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE,
			       IBV_WC_REM_ACCESS_ERR);
		check(!err, "Linux 6.1: no MR grants FLUSH, so REM_ACCESS_ERR (%s)",
		      err ? err : "ok");
		goto out;
	}
	err = flush_wc(&p, 2, mr->rkey, (uintptr_t)mem + 512, 256,
		       IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE, IBV_WC_SUCCESS);
	check(!err, "FLUSH of the range written: IBV_WC_FLUSH, byte_len 256 (%s)",
	      err ? err : "ok");
	err = flush_wc(&p, 3, mr->rkey, (uintptr_t)mem, 0, IBV_FLUSH_GLOBAL,
		       IBV_FLUSH_MR, IBV_WC_SUCCESS);
	check(!err, "FLUSH of the whole MR, length 0 (%s)", err ? err : "ok");
	err = flush_wc(&p, 4, mr->rkey, (uintptr_t)mem, 12345678,
		       IBV_FLUSH_GLOBAL, IBV_FLUSH_MR, IBV_WC_SUCCESS);
	check(!err, "FLUSH of the whole MR, a length past it: byte_len 12345678 (%s)",
	      err ? err : "ok");
	check(!memcmp(mem + 512, want, sizeof(want)),
	      "the data flushed is what was written");
	ibv_wr_start(p.ax);
	p.ax->wr_id = 5;
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(p.ax, mr->rkey, (uintptr_t)mem + 1024, v);
	check(!ibv_wr_complete(p.ax) && tap_next_wc(p.cq, &wc) &&
	      wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_ATOMIC_WRITE && !memcmp(mem + 1024, v, 8),
	      "an ATOMIC WRITE beside them, under libibverbs 56.1");
out:
	tap_pair_free(&p);
}

static void refused(const char *what, int b_access, struct ibv_mr *m,
		    uint64_t addr, size_t len, uint8_t type,
		    enum ibv_wc_status want)
{
	struct tap_pair p = {};
	const char *err;

	if (!check(!pair_new(&p, b_access), "%s: a pair", what))
		goto out;
	err = flush_wc(&p, 9, m->rkey, addr, len, type, IBV_FLUSH_RANGE, want);
	check(!err, "%s: %s (%s)", what, ibv_wc_status_str(want),
	      err ? err : "ok");
out:
	tap_pair_free(&p);
}

int main(int argc, char **argv)
{
	struct utsname u;
	int maj = 0, min = 0;

	ctx = open_dev_gid(argc, argv, &gidx, &gid);
	if (!ctx || !check((pd = ibv_alloc_pd(ctx)) != NULL, "a PD"))
		return tap_done();
	if (!uname(&u) && sscanf(u.release, "%d.%d", &maj, &min) == 2)
		has_flush = maj > 6 || (maj == 6 && min >= 2);
	mem = aligned_alloc(4096, LEN);
	src = aligned_alloc(4096, LEN);
	mr = mem ? ibv_reg_mr(pd, mem, LEN, ACC_ALL |
			      (has_flush ? IBV_ACCESS_FLUSH_GLOBAL : 0)) : NULL;
	mr_src = src ? ibv_reg_mr(pd, src, LEN, ACC_ALL) : NULL;
	if (!check(mr && mr_src, "the MRs (FLUSH_GLOBAL granted: %s)",
		   has_flush ? "yes" : "no, Linux 6.1"))
		return tap_done();
	flushes();
	if (has_flush) {
		refused("FLUSH for persistence, the MR grants global visibility only",
			ACC_QP, mr, (uintptr_t)mem, 64,
			IBV_FLUSH_PERSISTENT, IBV_WC_REM_ACCESS_ERR);
		refused("FLUSH of a range past the MR", ACC_QP, mr,
			(uintptr_t)mem + LEN - 8, 64, IBV_FLUSH_GLOBAL,
			IBV_WC_REM_ACCESS_ERR);
		refused("FLUSH of an MR without FLUSH rights", ACC_QP, mr_src,
			(uintptr_t)src, 64, IBV_FLUSH_GLOBAL,
			IBV_WC_REM_ACCESS_ERR);
	}
	refused("FLUSH to a QP without the FLUSH right", ACC_ALL, mr,
		(uintptr_t)mem, 64, IBV_FLUSH_GLOBAL, IBV_WC_REM_INV_REQ_ERR);
	check(!ibv_dereg_mr(mr) && !ibv_dereg_mr(mr_src) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
	      "everything released");
	return tap_done();
}
