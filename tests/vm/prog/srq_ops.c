// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq_ops DEVICE GID_INDEX: shared receive queues through the public
 * libibverbs API, on one device whose QPs talk to its own address. An RC
 * QP and a UD QP take their receives from one SRQ; the data is checked
 * byte for byte with guard bytes; the limit event fires once, below the
 * limit; an empty SRQ makes the RC sender wait (RNR) until a receive is
 * posted; a UC message too long for its SRQ receive completes that
 * receive in error and the UC QP goes on; an SRQ in use cannot be
 * destroyed; a QP that goes to ERR says Last WQE Reached and leaves the
 * SRQ's receives to the others; a resize keeps the receives waiting, in
 * order, and refuses to shrink below them.
 * Prints TAP; exits non-zero if any test failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define QKEY		0x11111111u
#define BUF_SIZE	65536
#define SLOT		2048	/* each SRQ receive buffer */
#define NSLOTS		16
#define GRH_LEN		40
#define GUARD		0xa5
#define POLL_MS		30000	/* deadline for an event */
#define SILENT_MS	300

static struct ibv_context *ctx;
static union ibv_gid gid;
static int gidx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *buf;		/* send area, then the receive slots */
static struct ibv_cq *scq, *rcq;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static uint8_t *slot(int i)
{
	return buf + SLOT * (NSLOTS + i);
}

static int post_srq(struct ibv_srq *srq, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot(i),
		.length = SLOT - 16,	/* the last 16 bytes guard */
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	memset(slot(i), GUARD, SLOT);
	return ibv_post_srq_recv(srq, &wr, &bad);
}

static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	long long end = now_ms() + ms;

	while (now_ms() < end) {
		if (ibv_poll_cq(cq, 1, wc) == 1)
			return 1;
		poll(NULL, 0, 1);
	}
	return 0;
}

/* The next async event of @type within @ms, acknowledged: 1, else 0. */
static int wait_event(enum ibv_event_type type, void *elem, int ms)
{
	long long end = now_ms() + ms;
	struct ibv_async_event ev;
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	int hit;

	while (now_ms() < end) {
		if (poll(&p, 1, 10) != 1)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		hit = ev.event_type == type &&
		      (type == IBV_EVENT_SRQ_LIMIT_REACHED ?
		       (void *)ev.element.srq : (void *)ev.element.qp) == elem;
		ibv_ack_async_event(&ev);
		if (hit)
			return 1;
	}
	return 0;
}

static void pattern(uint8_t *p, uint32_t len, unsigned int seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 13 + i * 7 + 1);
}

/* Slot @i got @len bytes of pattern @seed at @off, its guard untouched. */
static int slot_ok(int i, uint32_t off, uint32_t len, unsigned int seed)
{
	uint8_t want[SLOT];
	int j;

	pattern(want, len, seed);
	if (memcmp(slot(i) + off, want, len))
		return 0;
	for (j = SLOT - 16; j < SLOT; j++)
		if (slot(i)[j] != GUARD)
			return 0;
	return 1;
}

static struct ibv_qp *make_qp(enum ibv_qp_type t, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = t,
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
	};

	return ibv_create_qp(pd, &ia);
}

/* @len bytes of pattern @seed from @qp (to @ah/@dqpn if UD). */
static int send_msg(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn,
		    uint32_t len, unsigned int seed)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seed, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	pattern(buf, len, seed);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = QKEY;
	if (ibv_post_send(qp, &wr, &bad))
		return 0;
	return wait_wc(scq, &wc, POLL_MS) && wc.status == IBV_WC_SUCCESS;
}

/* The next receive completion: which slot, for which QP. */
static int recv_done(struct ibv_wc *wc)
{
	return wait_wc(rcq, wc, POLL_MS) && wc->status == IBV_WC_SUCCESS &&
	       wc->opcode == IBV_WC_RECV && wc->wr_id >= 100 &&
	       wc->wr_id < 100 + NSLOTS;
}

/* @n messages from @x, each into the SRQ's next receive, slots @first on. */
static int recv_in_order(struct ibv_qp *x, int first, int n, unsigned int seed)
{
	struct ibv_wc wc;
	int i, got = 0;

	for (i = 0; i < n; i++)
		got += send_msg(x, NULL, 0, 300, seed + i) && recv_done(&wc) &&
		       wc.wr_id == 100 + (uint64_t)(first + i) &&
		       slot_ok(first + i, 0, 300, seed + i);
	return got;
}

/*
 * Resize (IBV_DEVICE_SRQ_RESIZE): an SRQ of 4 with 3 receives waiting
 * grows to 64, the 3 first in line, 12 more fit; shrinking below the 15
 * waiting is refused; once they are taken, 2 waiting survive a shrink to 4.
 */
static void resize_checks(void)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq_attr sa = { 0 };
	struct ibv_qp *x = NULL, *y = NULL;
	struct ibv_device_attr da;
	struct ibv_srq *s;
	int i;

	check(!ibv_query_device(ctx, &da) &&
	      (da.device_cap_flags & IBV_DEVICE_SRQ_RESIZE),
	      "the device says IBV_DEVICE_SRQ_RESIZE");
	s = ibv_create_srq(pd, &si);
	if (s) {
		x = make_qp(IBV_QPT_RC, NULL);
		y = make_qp(IBV_QPT_RC, s);
	}
	if (!check(s && x && y && !rc_qp_to_rts(x, y->qp_num, gidx, &gid) &&
		   !rc_qp_to_rts(y, x->qp_num, gidx, &gid),
		   "an SRQ of 4 and an RC pair onto it"))
		goto out;
	for (i = 0; i < 3; i++)
		post_srq(s, i);
	sa.max_wr = 64;
	check(!ibv_modify_srq(s, &sa, IBV_SRQ_MAX_WR),
	      "with 3 receives waiting, it grows to 64");
	check(!ibv_query_srq(s, &sa) && sa.max_wr >= 64, "query: max_wr %u",
	      sa.max_wr);
	for (i = 3; i < 15; i++)
		if (post_srq(s, i))
			break;
	check(i == 15, "12 more receives fit (%d)", i - 3);
	sa.max_wr = 8;
	check(ibv_modify_srq(s, &sa, IBV_SRQ_MAX_WR) == EINVAL,
	      "shrinking to 8 below the 15 waiting: EINVAL");
	check(recv_in_order(x, 0, 15, 40) == 15,
	      "15 messages take the 15 receives in their order, intact");
	post_srq(s, 0);
	post_srq(s, 1);
	sa.max_wr = 4;
	check(!ibv_modify_srq(s, &sa, IBV_SRQ_MAX_WR) &&
	      !ibv_query_srq(s, &sa) && sa.max_wr >= 4 && sa.max_wr < 64,
	      "with 2 waiting, it shrinks to 4 (max_wr %u)", sa.max_wr);
	check(recv_in_order(x, 0, 2, 60) == 2, "the 2 are taken, in order");
out:
	if (x)
		ibv_destroy_qp(x);
	if (y)
		ibv_destroy_qp(y);
	if (s)
		ibv_destroy_srq(s);
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp *a, *b, *c, *d;
	struct ibv_srq_attr sa;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *bad;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int i, ret, got, n, flags;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	ctx = open_dev(argv[1]);
	if (!check(ctx && !ibv_query_gid(ctx, 1, gidx, &gid), "open %s, GID %d",
		   argv[1], gidx))
		return tap_done();
	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	buf = aligned_alloc(4096, BUF_SIZE);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!check(mr && scq && rcq, "PD, MR and CQs"))
		return tap_done();

	si.attr.max_wr = 1 << 20;
	errno = 0;
	srq = ibv_create_srq(pd, &si);
	check(!srq && errno == EINVAL, "an SRQ deeper than max_srq_wr is refused (%s)",
	      srq ? "created" : strerror(errno));
	si.attr.max_wr = 8;
	srq = ibv_create_srq(pd, &si);
	if (!check(srq != NULL, "an SRQ of 8 (%s)", srq ? "ok" : strerror(errno)))
		return tap_done();
	ret = ibv_query_srq(srq, &sa);
	check(!ret && sa.max_wr >= 8 && sa.max_sge >= 1 && sa.srq_limit == 0,
	      "query: max_wr %u, max_sge %u, limit %u", sa.max_wr, sa.max_sge,
	      sa.srq_limit);
	sa.srq_limit = sa.max_wr + 1;
	check(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT) != 0,
	      "a limit above max_wr is refused");

	/* a -> b: RC, b on the SRQ; d -> c: UD, c on the SRQ. */
	a = make_qp(IBV_QPT_RC, NULL);
	b = make_qp(IBV_QPT_RC, srq);
	c = make_qp(IBV_QPT_UD, srq);
	d = make_qp(IBV_QPT_UD, NULL);
	aa.grh.dgid = gid;
	aa.grh.sgid_index = gidx;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	if (!check(a && b && c && d && ah && !rc_qp_to_rts(a, b->qp_num, gidx, &gid) &&
		   !rc_qp_to_rts(b, a->qp_num, gidx, &gid) && !ud_qp_to_rts(c, QKEY) &&
		   !ud_qp_to_rts(d, QKEY),
		   "an RC pair and two UD QPs, one of each on the SRQ, in RTS"))
		return tap_done();
	check(ibv_post_recv(b, &rwr, &bad) == EINVAL,
	      "ibv_post_recv on a QP with an SRQ is refused");

	for (i = 0; i < 8; i++)
		if (post_srq(srq, i))
			break;
	check(i == 8, "8 receives posted to the SRQ (%d)", i);
	check(post_srq(srq, 8) == ENOMEM, "a ninth does not fit: ENOMEM");
	sa.srq_limit = 6;
	check(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "limit armed at 6");

	/* Three RC messages and two datagrams, in the SRQ's order. */
	got = 0;
	for (i = 0; i < 5; i++) {
		int rc = i < 3;

		if (!(rc ? send_msg(a, NULL, 0, 1000, i) :
			   send_msg(d, ah, c->qp_num, 500, i)) ||
		    !recv_done(&wc) || wc.wr_id != 100 + (uint64_t)i ||
		    wc.qp_num != (rc ? b : c)->qp_num ||
		    !slot_ok(i, rc ? 0 : GRH_LEN, rc ? 1000 : 500, i))
			break;
		got++;
		if (i == 2)
			check(wait_event(IBV_EVENT_SRQ_LIMIT_REACHED, srq,
					 POLL_MS),
			      "the third receive taken, 5 left < 6: SRQ_LIMIT_REACHED");
	}
	check(got == 5, "RC and UD messages arrive through one SRQ, in order, intact (%d of 5)",
	      got);
	check(!ibv_query_srq(srq, &sa) && sa.srq_limit == 0,
	      "the limit is disarmed after its event (%u)", sa.srq_limit);
	check(!wait_event(IBV_EVENT_SRQ_LIMIT_REACHED, srq, SILENT_MS),
	      "no second limit event");

	/* Three left: use them up, then the RC sender waits for a fourth. */
	n = 0;
	for (i = 5; i < 8; i++)
		n += send_msg(a, NULL, 0, 64, i) && recv_done(&wc) &&
		     slot_ok(wc.wr_id - 100, 0, 64, i);
	check(n == 3, "the SRQ's last three receives (%d)", n);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 300,
				       .lkey = mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 77, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr *sbad;

		pattern(buf, 300, 9);
		ret = ibv_post_send(a, &wr, &sbad);
		check(!ret && !wait_wc(scq, &wc, SILENT_MS),
		      "with the SRQ empty the RC send waits (RNR), no completion");
		check(!post_srq(srq, 9), "a receive posted to the SRQ");
		got = wait_wc(scq, &wc, POLL_MS) && wc.status == IBV_WC_SUCCESS &&
		      recv_done(&wc) && wc.wr_id == 109 && slot_ok(9, 0, 300, 9);
		check(got, "the waiting send completes into it, intact");
	}

	/*
	 * UC on the SRQ: a message too long for the receive it took is
	 * dropped, and that receive, the SRQ's, completes in error (IBTA
	 * 9.9.3, class E) while the QP stays in RTS; the next one lands.
	 */
	{
		struct ibv_qp *e = make_qp(IBV_QPT_UC, NULL);
		struct ibv_qp *f = make_qp(IBV_QPT_UC, srq);
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		if (check(e && f && !rc_qp_to_rts(e, f->qp_num, gidx, &gid) &&
			  !rc_qp_to_rts(f, e->qp_num, gidx, &gid),
			  "a UC pair, the receiver on the SRQ")) {
			post_srq(srq, 10);
			post_srq(srq, 11);
			got = send_msg(e, NULL, 0, 3000, 30) &&
			      wait_wc(rcq, &wc, POLL_MS) && wc.wr_id == 110 &&
			      wc.status == IBV_WC_LOC_LEN_ERR && wc.qp_num == f->qp_num &&
			      !ibv_query_qp(f, &qa, IBV_QP_STATE, &qi) &&
			      qa.qp_state == IBV_QPS_RTS;
			check(got, "UC, 3000 B into a %d B SRQ receive: it completes with LOC_LEN_ERR, the QP stays in RTS",
			      SLOT - 16);
			got = send_msg(e, NULL, 0, 1000, 31) && recv_done(&wc) &&
			      wc.wr_id == 111 && wc.qp_num == f->qp_num &&
			      slot_ok(11, 0, 1000, 31);
			check(got, "the next UC message lands in the SRQ's next receive, intact");
		}
		if (e)
			ibv_destroy_qp(e);
		if (f)
			ibv_destroy_qp(f);
	}

	resize_checks();

	errno = 0;
	ret = ibv_destroy_srq(srq);
	check(ret == EBUSY, "an SRQ with QPs on it is not destroyed (%s)",
	      strerror(ret));

	/* b leaves: Last WQE Reached; the SRQ's receives stay for c. */
	for (i = 0; i < 4; i++)
		post_srq(srq, i);
	{
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

		check(!ibv_modify_qp(b, &qa, IBV_QP_STATE), "b to ERR");
	}
	check(wait_event(IBV_EVENT_QP_LAST_WQE_REACHED, b, POLL_MS),
	      "b raises QP_LAST_WQE_REACHED");
	check(!wait_wc(rcq, &wc, SILENT_MS),
	      "b's error flushes none of the SRQ's receives");
	n = 0;
	for (i = 0; i < 4; i++)
		n += send_msg(d, ah, c->qp_num, 200, 20 + i) && recv_done(&wc) &&
		     wc.qp_num == c->qp_num &&
		     slot_ok(wc.wr_id - 100, GRH_LEN, 200, 20 + i);
	check(n == 4, "c still receives all four through the SRQ (%d)", n);

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_qp(c);
	ibv_destroy_qp(d);
	check(!ibv_destroy_srq(srq), "the SRQ is destroyed once its QPs are");
	ibv_destroy_ah(ah);
	ibv_destroy_cq(scq);
	ibv_destroy_cq(rcq);
	ibv_dereg_mr(mr);
	check(!ibv_dealloc_pd(pd), "the PD frees after it");
	ibv_close_device(ctx);
	free(buf);
	return tap_done();
}
