// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cq_ex_test DEVICE GID_INDEX: extended CQs (ibv_create_cq_ex(3)),
 * completion timestamps and the device clock (ibv_query_rt_values_ex(3)),
 * on one device whose QPs talk to its own address.
 *
 * ibv_query_device_ex reports the clock (hca_core_clock, a timestamp
 * mask); an RC pair's CQs are extended CQs that stamp every completion.
 * Checked: what creation refuses, every accessor on SEND_WITH_IMM and
 * WRITE completions, ENOENT on an empty CQ, a batch read with next_poll in
 * order, each timestamp between two readings of the device clock taken
 * around the work, and in the order the work completed; a single-threaded
 * CQ and one on a parent domain with a thread domain work the same.
 * Prints TAP; exits non-zero if any test failed.
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

#define NMSG	8
#define MSG	2000
#define WC_ALL	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
		 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
		 IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)

static struct ibv_context *ctx;
static struct ibv_pd *pd;

/* The device clock in ns (its hca_core_clock is 1 GHz); 0 on failure. */
static uint64_t dev_clock(void)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	if (ibv_query_rt_values_ex(ctx, &v) ||
	    !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	return (uint64_t)v.raw_clock.tv_sec * 1000000000ull +
	       v.raw_clock.tv_nsec;
}

static struct ibv_cq_ex *cqx_new(uint64_t wc_flags, uint32_t comp_mask,
				 uint32_t flags, struct ibv_pd *parent)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64, .wc_flags = wc_flags, .comp_mask = comp_mask,
		.flags = flags, .parent_domain = parent,
	};

	errno = 0;
	return ibv_create_cq_ex(ctx, &a);
}

/* Completions of @cq, polled in one batch within 10 s: how many. */
static int take(struct ibv_cq_ex *cq, int want, uint64_t *wr_id,
		int *status, int *opcode, uint32_t *len, uint32_t *imm,
		unsigned int *flags, uint32_t *qpn, uint64_t *ts)
{
	struct ibv_poll_cq_attr pa = { 0 };
	time_t end = time(NULL) + 10;
	int n = 0, ret;

	while (n < want && time(NULL) < end) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT)
			continue;
		if (ret)
			return -1;
		do {
			wr_id[n] = cq->wr_id;
			status[n] = cq->status;
			opcode[n] = ibv_wc_read_opcode(cq);
			len[n] = ibv_wc_read_byte_len(cq);
			flags[n] = ibv_wc_read_wc_flags(cq);
			imm[n] = flags[n] & IBV_WC_WITH_IMM ?
				 ntohl(ibv_wc_read_imm_data(cq)) : 0;
			qpn[n] = ibv_wc_read_qp_num(cq);
			ts[n] = ibv_wc_read_completion_ts(cq);
			n++;
		} while (n < want && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return n;
}

/* An RC pair on extended CQs @s (a's sends) and @r (b's receives). */
static int pair(struct ibv_cq_ex *s, struct ibv_cq_ex *r, struct ibv_pd *qpd,
		struct ibv_qp **a, struct ibv_qp **b, int gidx,
		const union ibv_gid *gid)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = ibv_cq_ex_to_cq(s), .recv_cq = ibv_cq_ex_to_cq(r),
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	*a = ibv_create_qp(qpd, &ia);
	*b = ibv_create_qp(qpd, &ia);
	return *a && *b && !rc_qp_to_rts(*a, (*b)->qp_num, gidx, gid) &&
	       !rc_qp_to_rts(*b, (*a)->qp_num, gidx, gid) ? 0 : -1;
}

/*
 * NMSG messages a -> b, SEND_WITH_IMM and RDMA WRITE in turn, then every
 * completion read through the extended CQs and checked.
 */
static void traffic(const char *what, struct ibv_cq_ex *s, struct ibv_cq_ex *r,
		    struct ibv_qp *a, struct ibv_qp *b)
{
	uint64_t wr_id[NMSG], ts[NMSG], t0, t1;
	uint32_t len[NMSG], imm[NMSG], qpn[NMSG];
	int status[NMSG], op[NMSG], n, i, ok;
	unsigned int fl[NMSG];
	unsigned char *buf = calloc(2, MSG * NMSG);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 2 * MSG * NMSG,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE);
	struct ibv_poll_cq_attr pa = { 0 };

	if (!check(buf && mr, "%s: a buffer", what))
		return;
	check(ibv_start_poll(s, &pa) == ENOENT, "%s: start_poll on an empty CQ: ENOENT", what);
	for (i = 0; i < NMSG / 2; i++) {
		struct ibv_sge rs = { (uintptr_t)buf + MSG * (NMSG + i), MSG, mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 100 + i, .sg_list = &rs,
					  .num_sge = 1 }, *rbad;

		ibv_post_recv(b, &rw, &rbad);
	}
	t0 = dev_clock();
	for (i = 0; i < NMSG; i++) {
		struct ibv_sge ss = { (uintptr_t)buf + MSG * i, MSG - i, mr->lkey };
		struct ibv_send_wr w = {
			.wr_id = i + 1, .sg_list = &ss, .num_sge = 1,
			.opcode = i % 2 ? IBV_WR_RDMA_WRITE : IBV_WR_SEND_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED,
			.imm_data = htonl(0x5000 + i),
		}, *bad;

		w.wr.rdma.remote_addr = (uintptr_t)buf + MSG * (NMSG + NMSG / 2 + i / 2);
		w.wr.rdma.rkey = mr->rkey;
		memset(buf + MSG * i, 0x40 + i, MSG - i);
		ibv_post_send(a, &w, &bad);
	}
	n = take(s, NMSG, wr_id, status, op, len, imm, fl, qpn, ts);
	t1 = dev_clock();
	ok = n == NMSG;
	for (i = 0; ok && i < NMSG; i++)
		ok = wr_id[i] == (uint64_t)i + 1 && status[i] == IBV_WC_SUCCESS &&
		     op[i] == (i % 2 ? IBV_WC_RDMA_WRITE : IBV_WC_SEND) &&
		     qpn[i] == a->qp_num;
	check(ok, "%s: %d send completions read in batches: wr_id, status, opcode, qp_num in order", what, n);
	ok = n == NMSG && t0 && t1;
	for (i = 0; ok && i < NMSG; i++)
		ok = ts[i] >= t0 && ts[i] <= t1 && (!i || ts[i] >= ts[i - 1]);
	check(ok, "%s: send timestamps in order, between the device clock before and after (%llu..%llu, first %llu, last %llu)",
	      what, (unsigned long long)t0, (unsigned long long)t1,
	      (unsigned long long)(n ? ts[0] : 0),
	      (unsigned long long)(n ? ts[n - 1] : 0));
	n = take(r, NMSG / 2, wr_id, status, op, len, imm, fl, qpn, ts);
	ok = n == NMSG / 2;
	for (i = 0; ok && i < NMSG / 2; i++)
		ok = wr_id[i] == 100u + i && status[i] == IBV_WC_SUCCESS &&
		     op[i] == IBV_WC_RECV && len[i] == (uint32_t)(MSG - 2 * i) &&
		     (fl[i] & IBV_WC_WITH_IMM) && imm[i] == 0x5000u + 2 * i &&
		     qpn[i] == b->qp_num && ts[i] >= t0 && ts[i] <= t1;
	check(ok, "%s: %d receives: byte_len, WITH_IMM and the immediate, qp_num, timestamp", what, n);
	ok = 1;
	for (i = 0; i < NMSG; i++)
		if (buf[MSG * (NMSG + (i % 2 ? NMSG / 2 : 0) + i / 2)] != 0x40 + i)
			ok = 0;
	check(ok, "%s: the data of every SEND and WRITE landed", what);
	ibv_dereg_mr(mr);
	free(buf);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex dx;
	struct ibv_cq_ex *s, *r, *bad;
	struct ibv_qp *a = NULL, *b = NULL;
	union ibv_gid gid;
	struct ibv_td *td;
	struct ibv_pd *par;
	uint64_t c0, c1;
	int gidx, ret;

	ctx = open_dev_gid(argc, argv, &gidx, &gid);
	if (!ctx || !check((pd = ibv_alloc_pd(ctx)) != NULL, "a PD"))
		return tap_done();
	/* Queried first: the message shows what it read. */
	memset(&dx, 0, sizeof(dx));
	ret = ibv_query_device_ex(ctx, NULL, &dx);
	check(!ret && dx.hca_core_clock == 1000000 &&
	      dx.completion_timestamp_mask == UINT64_MAX,
	      "ibv_query_device_ex: hca_core_clock %llu kHz, completion_timestamp_mask 0x%llx",
	      (unsigned long long)dx.hca_core_clock,
	      (unsigned long long)dx.completion_timestamp_mask);
	c0 = dev_clock();
	c1 = dev_clock();
	check(c0 && c1 >= c0, "ibv_query_rt_values_ex: the raw clock, not going back (%llu, %llu)",
	      (unsigned long long)c0, (unsigned long long)c1);

	bad = cqx_new(IBV_WC_EX_WITH_FLOW_TAG, 0, 0, NULL);
	check(!bad && errno == EOPNOTSUPP, "a CQ asked for flow tags: EOPNOTSUPP (errno %d)", errno);
	bad = cqx_new(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 0, 0, NULL);
	check(!bad && errno == EOPNOTSUPP, "a CQ asked for wall-clock timestamps: EOPNOTSUPP (errno %d)", errno);
	bad = cqx_new(0, IBV_CQ_INIT_ATTR_MASK_FLAGS, IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN, NULL);
	check(!bad && errno == EOPNOTSUPP, "a CQ that ignores overruns: EOPNOTSUPP (errno %d)", errno);
	bad = cqx_new(0, IBV_CQ_INIT_ATTR_MASK_PD, 0, pd);
	check(!bad && errno == EINVAL, "a CQ on a PD that is not a parent domain: EINVAL (errno %d)", errno);

	s = cqx_new(WC_ALL, 0, 0, NULL);
	r = cqx_new(WC_ALL, 0, 0, NULL);
	if (check(s && r && !pair(s, r, pd, &a, &b, gidx, &gid),
		  "two timestamping extended CQs, an RC pair on them")) {
		traffic("shared", s, r, a, b);
		ibv_destroy_qp(a);
		ibv_destroy_qp(b);
	}
	check(s && r && !ibv_destroy_cq(ibv_cq_ex_to_cq(s)) &&
	      !ibv_destroy_cq(ibv_cq_ex_to_cq(r)), "the CQs destroyed");

	s = cqx_new(WC_ALL, IBV_CQ_INIT_ATTR_MASK_FLAGS, IBV_CREATE_CQ_ATTR_SINGLE_THREADED, NULL);
	td = ibv_alloc_td(ctx, &(struct ibv_td_init_attr){ 0 });
	par = td ? ibv_alloc_parent_domain(ctx, &(struct ibv_parent_domain_init_attr){
					   .pd = pd, .td = td }) : NULL;
	r = par ? cqx_new(WC_ALL, IBV_CQ_INIT_ATTR_MASK_PD, 0, par) : NULL;
	if (check(s && r && !pair(s, r, par, &a, &b, gidx, &gid),
		  "a single-threaded CQ, a CQ on a parent domain with a thread domain, an RC pair on them")) {
		traffic("single-threaded", s, r, a, b);
		ibv_destroy_qp(a);
		ibv_destroy_qp(b);
	}
	check(s && r && !ibv_destroy_cq(ibv_cq_ex_to_cq(s)) &&
	      !ibv_destroy_cq(ibv_cq_ex_to_cq(r)) && !ibv_dealloc_pd(par) &&
	      !ibv_dealloc_td(td), "the CQs, the parent and thread domains released");
	check(!ibv_dealloc_pd(pd) && !ibv_close_device(ctx), "the PD and the device released");
	return tap_done();
}
