// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dev_hold DEVICE GID_INDEX SECONDS: a process that holds DEVICE open with
 * one of every object (PD, MR, CQ, SRQ, AH, an RC and a UD QP, their rings
 * mapped, a receive posted), prints "ready", and keeps polling until the
 * device is taken from it (moved to another namespace, or removed): then
 * it must get IBV_EVENT_DEVICE_FATAL, commands must fail, and its mapped
 * rings must show nothing new. Prints TAP after "ready"; exits non-zero if
 * a check failed or no event came within SECONDS.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "tap.h"

static int fatal_within(struct ibv_context *ctx, struct ibv_cq *cq, int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct ibv_wc wc;
	int t, fatal = 0;

	for (t = 0; t < ms && !fatal; t += 10) {
		/* The rings stay mapped and quiet; polling must be harmless. */
		ibv_poll_cq(cq, 1, &wc);
		if (poll(&p, 1, 10) != 1 || ibv_get_async_event(ctx, &ev))
			continue;
		fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		ibv_ack_async_event(&ev);
	}
	return fatal;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qi = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qkey = 1 };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_context *ctx;
	struct ibv_qp *rc, *ud;
	struct ibv_srq *srq;
	struct ibv_cq *cq, *cq2;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	static char buf[4096];
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	int ret, n;

	if (argc != 4)
		return 2;
	ctx = open_dev(argv[1]);
	if (!ctx)
		return 1;
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	srq = pd ? ibv_create_srq(pd, &si) : NULL;
	if (!mr || !cq || !srq || ibv_query_gid(ctx, 1, atoi(argv[2]),
						&aa.grh.dgid))
		return 1;
	aa.grh.sgid_index = atoi(argv[2]);
	ah = ibv_create_ah(pd, &aa);
	qi.send_cq = qi.recv_cq = cq;
	qi.qp_type = IBV_QPT_RC;
	rc = ibv_create_qp(pd, &qi);
	qi.qp_type = IBV_QPT_UD;
	ud = ibv_create_qp(pd, &qi);
	if (!ah || !rc || !ud ||
	    ibv_modify_qp(ud, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY))
		return 1;
	sge.lkey = mr->lkey;
	if (ibv_post_recv(ud, &rwr, &rbad) || ibv_post_srq_recv(srq, &rwr, &rbad))
		return 1;
	printf("ready\n");
	fflush(stdout);

	check(fatal_within(ctx, cq, atoi(argv[3]) * 1000),
	      "IBV_EVENT_DEVICE_FATAL when the device is taken away");
	errno = 0;
	cq2 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	check(!cq2 && errno == EIO, "a new CQ fails with EIO (%s)",
	      cq2 ? "created" : strerror(errno));
	qa.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(ud, &qa, IBV_QP_STATE);
	check(ret == EIO, "modify_qp fails with EIO (%s)", strerror(ret));
	n = ibv_poll_cq(cq, 1, &wc);
	check(n == 0, "the CQ ring shows no completion after it (%d)", n);
	/* Tearing down what the kernel already destroyed must not crash. */
	ibv_destroy_qp(ud);
	ibv_destroy_qp(rc);
	ibv_destroy_ah(ah);
	ibv_destroy_srq(srq);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	check(ibv_close_device(ctx) == 0, "the context closes");
	return tap_done();
}
