// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_ops: UC queue pairs. The SEND and RDMA WRITE checks of data.c run
 * again on a UC pair; then what only UC does (IBTA 9.7.5.1, 9.9.3): no
 * response ever comes, so READ, atomics and SEND_WITH_INV are refused at
 * post, and a message the responder cannot take (no receive posted, a
 * bad rkey, longer than its receive) is dropped whole: the requester
 * completes it successfully, the responder raises no completion and stays
 * in RTS, and the next message arrives whole (into the same receive).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"
#include "../tap.h"

/* A device counter of port 1, or -1 if the device has no such counter. */
static long long counter(struct rc *rc, const char *name)
{
	return hw_counter(ibv_get_device_name(rc->ctx->device), name);
}

/*
 * Device counter @name of port 1 once it reached @want, polled for up to
 * EVENT_MS: what it holds then (>= @want), or what it last held.
 */
static long long counter_reaches(struct rc *rc, const char *name,
				 long long want)
{
	long long end = now_ms() + EVENT_MS, v;

	for (;;) {
		v = counter(rc, name);
		if (v >= want || now_ms() >= end)
			return v;
		usleep(1000);
	}
}

static const char *uc_query(struct rc *rc)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	const char *err;

	if ((err = ready(rc)))
		return err;
	if (ibv_query_qp(rc->a.qp, &qa, IBV_QP_STATE | IBV_QP_PATH_MTU |
			 IBV_QP_DEST_QPN | IBV_QP_SQ_PSN, &ia))
		return fail("ibv_query_qp: %s", strerror(errno));
	if (ia.qp_type != IBV_QPT_UC || qa.qp_state != IBV_QPS_RTS ||
	    qa.path_mtu != IBV_MTU_1024 || qa.dest_qp_num != rc->b.qp->qp_num)
		return fail("type %d state %s MTU %d peer %#x", ia.qp_type,
			    state_name(qa.qp_state), qa.path_mtu,
			    qa.dest_qp_num);
	return NULL;
}

/* READ, both atomics and SEND_WITH_INV: EINVAL at post, nothing sent. */
static const char *uc_refused(struct rc *rc)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV,
	};
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	const char *err;
	struct buf b;
	unsigned int i;
	int ret;

	memset(&b, 0, sizeof(b));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &b, 8, ACC_REMOTE))
		return fail("buffers: %s", strerror(errno));
	sge_of(&sg, &b, 0, 8);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !err; i++) {
		wr_init(&wr, 0x300 + i, ops[i], &sg, 1, IBV_SEND_SIGNALED);
		wr_remote(&wr, &b);
		wr.wr.atomic.remote_addr = (uintptr_t)b.p;
		wr.wr.atomic.rkey = b.mr->rkey;
		ret = post(rc->a.qp, &wr);
		if (ret != EINVAL)
			err = fail("%s on UC: ibv_post_send returned %d (%s), want EINVAL",
				   opname(ops[i]), ret, strerror(ret));
	}
	if (!err)
		err = quiet(rc, QUIET_MS);
	buf_free(&b);
	return err;
}

enum uc_drop_kind { UC_NO_RECV, UC_BAD_RKEY, UC_NO_PERM, UC_TOO_LONG };

/*
 * One message the responder must drop (@kind), then one it takes: the
 * dropped one completes at the requester, raises nothing at the
 * responder, changes no byte of a WRITE's target or past the receive
 * buffer, and is counted in rx_drop_uc_msg where the
 * device has that counter (sroce).
 */
static const char *uc_drop(struct rc *rc, enum uc_drop_kind kind)
{
	const size_t len = 3000, good = 2000, rlen = 100;
	int write = kind == UC_BAD_RKEY || kind == UC_NO_PERM;
	size_t dlen = kind == UC_TOO_LONG ? rlen : len;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	long long c0, c1;
	struct buf s, d;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, dlen, kind == UC_NO_PERM ? ACC_LOCAL : ACC_REMOTE)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	c0 = counter(rc, "rx_drop_uc_msg");
	sge_of(&ds, &d, 0, dlen);
	if (kind == UC_TOO_LONG && (ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, kind == UC_TOO_LONG ? 2 * rlen : len);
	wr_init(&wr, 0x200, write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND, &ss, 1,
		IBV_SEND_SIGNALED);
	wr_remote(&wr, &d);
	if (kind == UC_BAD_RKEY)
		wr.wr.rdma.rkey ^= 0x5a00;
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
			     write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND)))
		goto out;
	/*
	 * A receive buffer holds nothing defined until its completion: a
	 * dropped message may have filled part of it (as a UC message that
	 * loses its last packet does). Not a byte past it, though.
	 */
	/*
	 * The requester completes a UC message once sent: the responder's
	 * drop is the event to wait for. A WRITE's is the marker SEND
	 * behind it arriving; a SEND's (which a marker could land in) is
	 * rx_drop_uc_msg counting it, where the device has the counter.
	 */
	if (write && (err = placed(rc)))
		goto out;
	c1 = c0 >= 0 ? counter_reaches(rc, "rx_drop_uc_msg", c0 + 1) : -1;
	if (c0 >= 0 && c1 != c0 + 1) {
		err = fail("rx_drop_uc_msg went %lld -> %lld within %d ms, want +1",
			   c0, c1, EVENT_MS);
		goto out;
	}
	if (c0 < 0)
		printf("# no rx_drop_uc_msg counter on this device: not checked\n");
	if (kind == UC_TOO_LONG)
		buf_accept(&d, 0, rlen);
	if ((err = cq_quiet(rc->b.rcq, "responder", 5 * QUIET_MS)) ||
	    (err = state_is(rc->b.qp, IBV_QPS_RTS, "responder")) ||
	    (err = buf_check(&d, "target of the dropped message")))
		goto out;

	/* The next message, whole: a WRITE with a good key, else a SEND. */
	if (kind == UC_NO_PERM) {
		err = quiet(rc, QUIET_MS);
		goto out;
	}
	if (kind == UC_NO_RECV && (ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	if (kind == UC_TOO_LONG)
		sge_of(&ss, &s, 0, rlen / 2);
	else
		sge_of(&ss, &s, 0, good);
	wr_init(&wr, 0x201, write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND, &ss, 1,
		IBV_SEND_SIGNALED);
	wr_remote(&wr, &d);
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
			     write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND)))
		goto out;
	if (!write &&
	    ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			   IBV_WC_RECV)) ||
	     (err = recv_check(&wc, rc->b.qp, ss.length, 0, 0))))
		goto out;
	if (write && (err = placed(rc)))
		goto out;
	buf_expect(&d, 0, s.p, ss.length);
	if ((err = buf_check(&d, "target of the next message")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

void t_uc(struct rc *rc)
{
	static const size_t sizes[] = { 1, 1024, 1025, 65536 };
	char id[32];
	unsigned int i;

	rc->qpt = IBV_QPT_UC;
	rc->dirty = 1;
	report("uc-qp-query", uc_query(rc), "a UC pair connects (no RC attributes) and reads back UC, RTS, MTU 1024, its peer");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(id, sizeof(id), "uc-send-%zu", sizes[i]);
		report(id, t_send(rc, sizes[i], 0), "UC SEND of %zu B", sizes[i]);
		snprintf(id, sizeof(id), "uc-write-%zu", sizes[i]);
		report(id, t_write(rc, sizes[i], 0), "UC RDMA WRITE of %zu B", sizes[i]);
	}
	report("uc-send-0", t_send(rc, 0, 0), "zero-length UC SEND");
	report("uc-send-imm", t_send(rc, 1500, 1), "UC SEND_WITH_IMM of 1500 B: IBV_WC_WITH_IMM and the immediate");
	report("uc-write-imm", t_write(rc, 4097, 1), "UC RDMA WRITE_WITH_IMM of 4097 B: RECV_RDMA_WITH_IMM, byte_len");
	report("uc-write-imm-0", t_write(rc, 0, 1), "zero-length UC RDMA WRITE_WITH_IMM");
	report("uc-sge-send", t_sge(rc, 0), "UC SEND from 3 SGEs into a receive of 4");
	report("uc-unsignaled", t_unsignaled(rc, 4), "4 unsignaled UC SENDs and a signaled one: 5 receives, 1 send completion");
	report("uc-refused", uc_refused(rc), "READ, CMP_AND_SWP, FETCH_AND_ADD and SEND_WITH_INV on UC: EINVAL at post, nothing sent");
	report("uc-no-recv", uc_drop(rc, UC_NO_RECV), "UC SEND of 3000 B with no receive: dropped whole (no RNR), responder in RTS; the next SEND arrives whole");
	report("uc-bad-rkey", uc_drop(rc, UC_BAD_RKEY), "UC WRITE of 3000 B with a bad rkey: dropped, target untouched, responder in RTS; the next WRITE lands");
	report("uc-write-perm", uc_drop(rc, UC_NO_PERM), "UC WRITE to an MR without REMOTE_WRITE: dropped, untouched, responder in RTS");
	report("uc-too-long", uc_drop(rc, UC_TOO_LONG), "UC SEND of 200 B into a 100 B receive: dropped, no completion; the same receive takes the next 50 B SEND");
	rc->qpt = IBV_QPT_RC;
	rc->dirty = 1;
}
