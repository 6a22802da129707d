// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rc_ops: the port's largest message (max_msg_sz), at every path MTU. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"

/* The largest message actually moved: enough to span many packets. */
#define MSG_MOVED	(8u << 20)

/* a and b back through RESET to RTS, now with path MTU @mtu. */
static const char *reconnect(struct rc *rc, enum ibv_mtu mtu)
{
	struct ibv_qp *qp[2] = { rc->a.qp, rc->b.qp };
	struct ibv_qp_attr qa;
	int i, ret;

	for (i = 0; i < 2; i++) {
		if ((ret = to_state(qp[i], IBV_QPS_RESET)) ||
		    (ret = to_init(rc, qp[i])))
			return fail("to INIT: %s", strerror(ret));
	}
	for (i = 0; i < 2; i++) {
		rtr_attr(rc, &qa, qp[!i]->qp_num, i ? PSN_A : PSN_B,
			 &defaults);
		qa.path_mtu = mtu;
		if ((ret = merr(ibv_modify_qp(qp[i], &qa, RTR_MASK))))
			return fail("to RTR: %s", strerror(ret));
	}
	for (i = 0; i < 2; i++)
		if ((ret = to_rts(rc, qp[i], i ? PSN_B : PSN_A, &defaults)))
			return fail("to RTS: %s", strerror(ret));
	return NULL;
}

/*
 * An RDMA READ of @len bytes at path MTU @mtu into a 4 KiB local buffer,
 * from a 4 KiB remote one: the request is accepted or not on its length
 * alone. Accepted, it fails on the remote range (REM_ACCESS_ERR) or on
 * the local one (LOC_PROT_ERR); refused, it ends in LOC_LEN_ERR. No byte
 * moves either way, so a 1 GiB message costs nothing.
 */
static const char *read_len(struct rc *rc, enum ibv_mtu mtu, uint32_t len,
			    int accepted)
{
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct buf l, r;
	const char *err;
	int ret;

	memset(&l, 0, sizeof(l));
	memset(&r, 0, sizeof(r));
	if ((err = pair_up(rc, &defaults, &defaults)) ||
	    (err = reconnect(rc, mtu)))
		goto out;
	if (buf_new(rc, &l, 4096, ACC_LOCAL) ||
	    buf_new(rc, &r, 4096, ACC_REMOTE)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&sg, &l, 0, 4096);
	sg.length = len;
	wr_init(&wr, 0x200, IBV_WR_RDMA_READ, &sg, 1, IBV_SEND_SIGNALED);
	wr_remote(&wr, &r);
	ret = post(rc->a.qp, &wr);
	if (!accepted && ret == EINVAL)
		goto out;
	if (ret) {
		err = fail("ibv_post_send of %u B: %s", len, strerror(ret));
		goto out;
	}
	if (poll_one(rc->a.scq, &wc, op_ms) != 1) {
		err = fail("READ of %u B at MTU %d: no completion", len,
			   128 << mtu);
		goto out;
	}
	if (accepted ? wc.status != IBV_WC_REM_ACCESS_ERR &&
		       wc.status != IBV_WC_LOC_PROT_ERR :
		       wc.status != IBV_WC_LOC_LEN_ERR)
		err = fail("READ of %u B at MTU %d: %s, want %s", len,
			   128 << mtu, ibv_wc_status_str(wc.status),
			   accepted ? "accepted (then an access error)" :
				      "LOC_LEN_ERR");
	else if (!(err = buf_check(&l, "local buffer")))
		err = buf_check(&r, "remote buffer");
out:
	rc->dirty = 1;
	buf_free(&l);
	buf_free(&r);
	return err;
}

/*
 * @kind 0: ibv_query_port's max_msg_sz is more than a page, and a WRITE
 * of that size (up to MSG_MOVED) arrives intact. 1: at path MTU 256 (the
 * most PSNs per byte) a message of exactly max_msg_sz is accepted; 2: one
 * byte more is refused with LOC_LEN_ERR (or EINVAL at post time).
 */
const char *t_max_msg(struct rc *rc, int kind)
{
	struct ibv_port_attr port;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct buf s, d;
	const char *err;
	size_t len;

	if (ibv_query_port(rc->ctx, 1, &port))
		return fail("ibv_query_port: %s", strerror(errno));
	if (kind == 0)
		printf("# max_msg_sz %u\n", port.max_msg_sz);
	if (port.max_msg_sz <= 4096)
		return fail("max_msg_sz %u", port.max_msg_sz);
	if (kind == 1)
		return read_len(rc, IBV_MTU_256, port.max_msg_sz, 1);
	if (kind == 2) {
		if (port.max_msg_sz == UINT32_MAX) {
			skip_why = "max_msg_sz is 2^32 - 1: nothing is longer";
			return NULL;
		}
		return read_len(rc, IBV_MTU_256, port.max_msg_sz + 1, 0);
	}

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	len = port.max_msg_sz < MSG_MOVED ? port.max_msg_sz : MSG_MOVED;
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len, ACC_REMOTE)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&sg, &s, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, &sg, 1, IBV_SEND_SIGNALED);
	wr_remote(&wr, &d);
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester", &wc,
			       IBV_WC_RDMA_WRITE)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	err = buf_check(&d, "target buffer");
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}
