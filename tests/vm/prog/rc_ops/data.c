// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rc_ops: every RC operation, byte for byte, and the send flags. */
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

/* ---- data path ----------------------------------------------------------- */

/* SEND or SEND_WITH_IMM of @len bytes into a receive of the same size (16
 * bytes for a zero-length send, which must leave them alone). */
const char *t_send(struct rc *rc, size_t len, int imm)
{
	uint32_t immv = htonl(0xc0de0000u | (len & 0xffff));
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len ? len : 16, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, d.len);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, &ss,
		len ? 1 : 0, IBV_SEND_SIGNALED);
	wr.imm_data = immv;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)) ||
	    (err = recv_check(&wc, rc->b.qp, len, imm ? IBV_WC_WITH_IMM : 0,
			      immv)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "receive buffer")) ||
	    (err = buf_check(&s, "send buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* RDMA WRITE (with immediate: consumes a receive whose buffer stays
 * untouched) of @len bytes. */
const char *t_write(struct rc *rc, size_t len, int imm)
{
	uint32_t immv = htonl(0xfeed0000u | (len & 0xffff));
	struct buf s, d, r;
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len ? len : 16, ACC_REMOTE) ||
	    buf_new(rc, &r, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (imm) {
		sge_of(&rs, &r, 0, r.len);
		if ((ret = post_recv(rc->b.qp, 0x100, &rs, 1))) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
	}
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		&ss, len ? 1 : 0, IBV_SEND_SIGNALED);
	wr.imm_data = immv;
	wr_remote(&wr, &d);
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
			       IBV_WC_RDMA_WRITE)))
		goto out;
	if (imm &&
	    ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			   IBV_WC_RECV_RDMA_WITH_IMM)) ||
	     (err = recv_check(&wc, rc->b.qp, len, IBV_WC_WITH_IMM, immv))))
		goto out;
	/* On UC the requester's completion does not say it was placed. */
	if ((err = placed(rc)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "target buffer")) ||
	    (err = buf_check(&r, "receive buffer")) ||
	    (err = buf_check(&s, "source buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	buf_free(&r);
	return err;
}

const char *t_read(struct rc *rc, size_t len)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ds;
	struct ibv_wc wc;
	const char *err;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_REMOTE) || buf_new(rc, &d, len, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_READ, &ds, 1, IBV_SEND_SIGNALED);
	wr_remote(&wr, &s);
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
			       IBV_WC_RDMA_READ)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "local buffer")) ||
	    (err = buf_check(&s, "remote buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* One atomic on a 64-bit word holding @init: the original value comes
 * back and the word ends as @final. */
const char *t_atomic(struct rc *rc, enum ibv_wr_opcode op,
		     uint64_t init, uint64_t cmp_add, uint64_t swap,
		     uint64_t final)
{
	struct buf t, res;
	struct ibv_send_wr wr;
	struct ibv_sge rs;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&t, 0, sizeof(t));
	memset(&res, 0, sizeof(res));
	if (rc->dev.atomic_cap == IBV_ATOMIC_NONE) {
		skip_why = "atomic_cap is IBV_ATOMIC_NONE";
		return NULL;
	}
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &t, 8, ACC_REMOTE | IBV_ACCESS_REMOTE_ATOMIC) ||
	    buf_new(rc, &res, 8, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	memcpy(t.p, &init, 8);
	buf_expect(&t, 0, &init, 8);
	sge_of(&rs, &res, 0, 8);
	wr_init(&wr, 0x200, op, &rs, 1, IBV_SEND_SIGNALED);
	wr.wr.atomic.remote_addr = (uintptr_t)t.p;
	wr.wr.atomic.rkey = t.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
			  IBV_WC_FETCH_ADD)))
		goto out;
	buf_expect(&res, 0, &init, 8);
	buf_expect(&t, 0, &final, 8);
	if ((err = buf_check(&res, "returned original value")) ||
	    (err = buf_check(&t, "target word")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&t);
	buf_free(&res);
	return err;
}

/* IBV_SEND_INLINE SEND or RDMA WRITE of @len bytes from unregistered
 * memory that is overwritten as soon as ibv_post_send returns. */
const char *t_inline(struct rc *rc, size_t len, int write)
{
	unsigned char *src = NULL, *orig = NULL;
	struct buf d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (len > rc->a.cap.max_inline_data || !len) {
		skip_why = "the QP has no inline data";
		return NULL;
	}
	src = malloc(len);
	orig = malloc(len);
	if (!src || !orig ||
	    buf_new(rc, &d, len, write ? ACC_REMOTE : ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	pattern(src, len, next_seed());
	memcpy(orig, src, len);
	if (!write) {
		sge_of(&ds, &d, 0, len);
		if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
	}
	ss.addr = (uintptr_t)src;
	ss.length = len;
	ss.lkey = 0;
	wr_init(&wr, 0x200, write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND, &ss, 1,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	wr_remote(&wr, &d);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	memset(src, 0x5a, len);
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND)))
		goto out;
	if (!write &&
	    ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			   IBV_WC_RECV)) ||
	     (err = recv_check(&wc, rc->b.qp, len, 0, 0))))
		goto out;
	buf_expect(&d, 0, orig, len);
	if ((err = buf_check(&d, "destination")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	free(src);
	free(orig);
	buf_free(&d);
	return err;
}

static const size_t gather_len[] = { 7, 1001, 333 };	/* 1341 */
static const size_t scatter_len[] = { 5, 600, 1, 900 };	/* 1506 */
static const size_t read_len[] = { 500, 1, 840 };	/* 1341 */
#define NGATHER		3
#define NSCATTER	4
#define NREAD		3
#define GATHER_TOTAL	1341

/* @kind 0: SEND from 3 SGEs into a receive of 4 SGEs; 1: RDMA WRITE
 * gathered from 3 SGEs; 2: RDMA READ scattered into 3 SGEs. */
const char *t_sge(struct rc *rc, int kind)
{
	struct buf s[NGATHER], r[NSCATTER], d;
	struct ibv_sge ss[NSCATTER], rs[NSCATTER];
	unsigned char *all = NULL;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	const char *err;
	size_t off, n;
	int i, ret;

	memset(s, 0, sizeof(s));
	memset(r, 0, sizeof(r));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (rc->a.cap.max_send_sge < 3 || rc->b.cap.max_recv_sge < 4) {
		skip_why = "the QPs have fewer than 3 send / 4 receive SGEs";
		return NULL;
	}
	all = malloc(GATHER_TOTAL);
	if (!all) {
		err = fail("malloc");
		goto out;
	}
	if (kind == 2) {
		/* Remote source d, local scatter list r[0..2]. */
		if (buf_new(rc, &d, GATHER_TOTAL, ACC_REMOTE)) {
			err = fail("buffers: %s", strerror(errno));
			goto out;
		}
		for (i = 0; i < NREAD; i++) {
			if (buf_new(rc, &r[i], read_len[i], ACC_LOCAL)) {
				err = fail("buffers: %s", strerror(errno));
				goto out;
			}
			sge_of(&rs[i], &r[i], 0, read_len[i]);
		}
		wr_init(&wr, 0x200, IBV_WR_RDMA_READ, rs, NREAD,
			IBV_SEND_SIGNALED);
		wr_remote(&wr, &d);
		if ((ret = post(rc->a.qp, &wr))) {
			err = fail("ibv_post_send: %s", strerror(ret));
			goto out;
		}
		if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200,
				  IBV_WC_SUCCESS, IBV_WC_RDMA_READ)))
			goto out;
		for (i = 0, off = 0; i < NREAD; off += read_len[i++]) {
			buf_expect(&r[i], 0, d.p + off, read_len[i]);
			if ((err = buf_check(&r[i], "a scatter buffer")))
				goto out;
		}
		err = quiet(rc, QUIET_MS);
		goto out;
	}
	for (i = 0, off = 0; i < NGATHER; off += gather_len[i++]) {
		if (buf_new(rc, &s[i], gather_len[i], ACC_LOCAL)) {
			err = fail("buffers: %s", strerror(errno));
			goto out;
		}
		sge_of(&ss[i], &s[i], 0, gather_len[i]);
		memcpy(all + off, s[i].p, gather_len[i]);
	}
	if (kind == 0) {
		for (i = 0; i < NSCATTER; i++) {
			if (buf_new(rc, &r[i], scatter_len[i], ACC_LOCAL)) {
				err = fail("buffers: %s", strerror(errno));
				goto out;
			}
			sge_of(&rs[i], &r[i], 0, scatter_len[i]);
		}
		ret = ibv_post_recv(rc->b.qp, &(struct ibv_recv_wr){
			.wr_id = 0x100, .sg_list = rs, .num_sge = NSCATTER },
			&(struct ibv_recv_wr *){ NULL });
		if (ret) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
		wr_init(&wr, 0x200, IBV_WR_SEND, ss, NGATHER, IBV_SEND_SIGNALED);
	} else {
		if (buf_new(rc, &d, GATHER_TOTAL, ACC_REMOTE)) {
			err = fail("buffers: %s", strerror(errno));
			goto out;
		}
		wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, ss, NGATHER,
			IBV_SEND_SIGNALED);
		wr_remote(&wr, &d);
	}
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  kind ? IBV_WC_RDMA_WRITE : IBV_WC_SEND)))
		goto out;
	if (kind == 1) {
		if ((err = placed(rc)))
			goto out;
		buf_expect(&d, 0, all, GATHER_TOTAL);
		if ((err = buf_check(&d, "target buffer")))
			goto out;
	} else {
		if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
				  IBV_WC_SUCCESS, IBV_WC_RECV)) ||
		    (err = recv_check(&wc, rc->b.qp, GATHER_TOTAL, 0, 0)))
			goto out;
		for (i = 0, off = 0; i < NSCATTER; off += n, i++) {
			n = GATHER_TOTAL - off;
			if (n > scatter_len[i])
				n = scatter_len[i];
			buf_expect(&r[i], 0, all + off, n);
			if ((err = buf_check(&r[i], "a scatter buffer")))
				goto out;
		}
	}
	err = quiet(rc, QUIET_MS);
out:
	for (i = 0; i < NGATHER; i++)
		buf_free(&s[i]);
	for (i = 0; i < NSCATTER; i++)
		buf_free(&r[i]);
	buf_free(&d);
	free(all);
	return err;
}

/* @n unsignaled SENDs and a signaled one: n + 1 receives complete, the
 * requester sees exactly one completion. */
const char *t_unsignaled(struct rc *rc, int n)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int i, ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, 100 * (n + 1), ACC_LOCAL) ||
	    buf_new(rc, &d, 100 * (n + 1), ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i <= n; i++) {
		sge_of(&ds, &d, 100 * i, 100);
		if ((ret = post_recv(rc->b.qp, 0x100 + i, &ds, 1))) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
	}
	for (i = 0; i <= n; i++) {
		sge_of(&ss, &s, 100 * i, 100);
		wr_init(&wr, 0x200 + i, IBV_WR_SEND, &ss, 1,
			i == n ? IBV_SEND_SIGNALED : 0);
		if ((ret = post(rc->a.qp, &wr))) {
			err = fail("ibv_post_send %d: %s", i, strerror(ret));
			goto out;
		}
	}
	for (i = 0; i <= n; i++)
		if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100 + i,
				  IBV_WC_SUCCESS, IBV_WC_RECV)) ||
		    (err = recv_check(&wc, rc->b.qp, 100, 0, 0)))
			goto out;
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200 + n,
			  IBV_WC_SUCCESS, IBV_WC_SEND)))
		goto out;
	buf_expect(&d, 0, s.p, s.len);
	if ((err = buf_check(&d, "receive buffers")))
		goto out;
	err = quiet(rc, 200);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* RDMA READ into L, then a fenced SEND from L: the send must carry the
 * data the read brought. */
const char *t_fence(struct rc *rc)
{
	const size_t len = 8192;
	struct buf r, l, d;
	struct ibv_send_wr rd, sd;
	struct ibv_sge ls, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(&l, 0, sizeof(l));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &r, len, ACC_REMOTE) || buf_new(rc, &l, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, len);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ls, &l, 0, len);
	wr_init(&rd, 0x200, IBV_WR_RDMA_READ, &ls, 1, IBV_SEND_SIGNALED);
	wr_remote(&rd, &r);
	wr_init(&sd, 0x201, IBV_WR_SEND, &ls, 1,
		IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	rd.next = &sd;
	if ((ret = post(rc->a.qp, &rd))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester (read)", &wc, 0x200,
			  IBV_WC_SUCCESS, IBV_WC_RDMA_READ)) ||
	    (err = get_wc(rc->a.scq, "requester (send)", &wc, 0x201,
			  IBV_WC_SUCCESS, IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)) ||
	    (err = recv_check(&wc, rc->b.qp, len, 0, 0)))
		goto out;
	buf_expect(&l, 0, r.p, len);
	buf_expect(&d, 0, r.p, len);
	if ((err = buf_check(&l, "read buffer")) ||
	    (err = buf_check(&d, "the fenced send's data")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&r);
	buf_free(&l);
	buf_free(&d);
	return err;
}

/* b's receive CQ armed for solicited completions only: @solicited 0
 * sends a plain SEND (no event may come), 1 a SOLICITED one (the event
 * must come). */
const char *t_solicited(struct rc *rc, int solicited)
{
	struct pollfd pfd = { .events = POLLIN };
	struct ibv_cq *cq;
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	void *cq_ctx;
	int ret, n;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	drain_events(rc, 0);
	if (buf_new(rc, &s, 64, ACC_LOCAL) || buf_new(rc, &d, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if ((ret = ibv_req_notify_cq(rc->b.rcq, 1))) {
		err = fail("ibv_req_notify_cq(solicited): %s", strerror(ret));
		goto out;
	}
	sge_of(&ds, &d, 0, 64);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1,
		IBV_SEND_SIGNALED | (solicited ? IBV_SEND_SOLICITED : 0));
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
			       IBV_WC_SEND)))
		goto out;
	pfd.fd = rc->ch->fd;
	if (!solicited) {
		/* The receive completes, but raises no event. */
		if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
				  IBV_WC_SUCCESS, IBV_WC_RECV)))
			goto out;
		n = drain_events(rc, 300);
		if (n)
			err = fail("%d completion event(s) for an unsolicited receive",
				   n);
		goto out;
	}
	ret = poll(&pfd, 1, op_ms);
	if (ret != 1) {
		err = fail("no completion event within %d ms", op_ms);
		goto out;
	}
	if (ibv_get_cq_event(rc->ch, &cq, &cq_ctx)) {
		err = fail("ibv_get_cq_event: %s", strerror(errno));
		goto out;
	}
	ibv_ack_cq_events(cq, 1);
	if (cq != rc->b.rcq) {
		err = fail("the event names another CQ");
		goto out;
	}
	if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	buf_expect(&d, 0, s.p, 64);
	if ((err = buf_check(&d, "receive buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* Memory window type 2 on b, SEND_WITH_INV from a: four tests. */
void t_mw(struct rc *rc)
{
	static const char *const ids[] = {
		"mw-bind", "mw-write", "send-inv", "mw-invalidated",
	};
	static const char *const names[] = {
		"bind a type 2 memory window with a BIND_MW work request",
		"RDMA WRITE through the window",
		"SEND_WITH_INV: IBV_WC_WITH_INV and the invalidated rkey",
		"RDMA WRITE through the invalidated window: REM_ACCESS_ERR",
	};
	const size_t len = 2000;
	struct buf s, d, r;
	struct ibv_mw *mw = NULL;
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	struct ibv_wc wc;
	const char *err = NULL;
	uint32_t rkey = 0;
	int step = 0, ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	printf("# device_cap_flags %#x: MEM_MGT_EXTENSIONS %d, MW %d, MW 2A %d, MW 2B %d\n",
	       rc->dev.device_cap_flags,
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS),
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW),
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2A),
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B));
	if ((err = ready(rc)))
		goto out;
	errno = 0;
	mw = ibv_alloc_mw(rc->pd, IBV_MW_TYPE_2);
	if (!mw) {
		if (errno == EOPNOTSUPP || errno == ENOSYS ||
		    !(rc->dev.device_cap_flags &
		      (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
		       IBV_DEVICE_MEM_WINDOW_TYPE_2B))) {
			for (step = 0; step < 4; step++) {
				todo_why = "not built: no type 2 memory windows (ibv_alloc_mw fails), so no SEND_WITH_INV";
				report(ids[step], "not built", "%s", names[step]);
			}
			return;
		}
		err = fail("ibv_alloc_mw(type 2): %s", strerror(errno));
		goto out;
	}
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len, ACC_REMOTE | IBV_ACCESS_MW_BIND) ||
	    buf_new(rc, &r, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}

	/* Step 0: bind the window over d's target range, on b's QP. */
	rkey = ibv_inc_rkey(mw->rkey);
	wr_init(&wr, 0x300, IBV_WR_BIND_MW, NULL, 0, IBV_SEND_SIGNALED);
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = d.mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)d.p;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if ((ret = post(rc->b.qp, &wr))) {
		err = fail("ibv_post_send(BIND_MW): %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->b.scq, "binder", &wc, 0x300, IBV_WC_SUCCESS,
			  IBV_WC_BIND_MW)) ||
	    (err = quiet(rc, QUIET_MS)))
		goto out;
	report(ids[step], NULL, "%s", names[step]);
	step++;

	/* Step 1: write through it. */
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, &ss, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)d.p;
	wr.wr.rdma.rkey = rkey;
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
			       IBV_WC_RDMA_WRITE)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "target buffer")) ||
	    (err = quiet(rc, QUIET_MS)))
		goto out;
	report(ids[step], NULL, "%s", names[step]);
	step++;

	/* Step 2: SEND_WITH_INV of the window's rkey. */
	sge_of(&rs, &r, 0, 64);
	if ((ret = post_recv(rc->b.qp, 0x100, &rs, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x201, IBV_WR_SEND_WITH_INV, &ss, 1, IBV_SEND_SIGNALED);
	wr.invalidate_rkey = rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x201, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	/* The send went through: whatever its details, try the rkey next. */
	buf_expect(&r, 0, s.p, 64);
	if (!(err = recv_check(&wc, rc->b.qp, 64, IBV_WC_WITH_INV, rkey)) &&
	    !(err = buf_check(&r, "receive buffer")))
		err = quiet(rc, QUIET_MS);
	report(ids[step], err, "%s", names[step]);
	err = NULL;
	step++;

	/* Step 3: the rkey is dead. */
	pattern(s.p, len, next_seed());
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x202, IBV_WR_RDMA_WRITE, &ss, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)d.p;
	wr.wr.rdma.rkey = rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x202,
			  IBV_WC_REM_ACCESS_ERR, -1)) ||
	    (err = buf_check(&d, "target buffer")) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
	rc->dirty = 1;
	report(ids[step], NULL, "%s", names[step]);
	step++;
out:
	rc->dirty = 1;
	for (; step < 4; step++) {
		report(ids[step], err ? err : "not reached", "%s", names[step]);
		err = "an earlier step failed";
	}
	/* The QPs may still reference the window: drop them first. */
	pair_down(rc);
	if (mw)
		ibv_dealloc_mw(mw);
	buf_free(&s);
	buf_free(&d);
	buf_free(&r);
}
