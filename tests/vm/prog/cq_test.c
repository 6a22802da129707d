// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cq_test DEVICE: completion queues through the public libibverbs API:
 * sizes and limits, polling an empty CQ, arming, completion channels,
 * resize, many CQs at once. Prints TAP; exits non-zero on any failure.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "tap.h"

#define MANY	1000

static void check_sizes(struct ibv_context *ctx, int max_cqe)
{
	static const int sizes[] = { 1, 2, 3, 100, 4095, 4096 };
	struct ibv_cq *cq;
	struct ibv_wc wc[4];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		cq = ibv_create_cq(ctx, sizes[i], NULL, NULL, 0);
		if (!check(cq != NULL, "create a CQ of %d (%s)", sizes[i],
			   cq ? "ok" : strerror(errno)))
			continue;
		check(cq->cqe >= sizes[i], "it holds %d >= %d", cq->cqe,
		      sizes[i]);
		check(ibv_poll_cq(cq, 4, wc) == 0, "an empty CQ polls 0");
		check(ibv_destroy_cq(cq) == 0, "destroy it");
	}
	cq = ibv_create_cq(ctx, max_cqe, NULL, NULL, 0);
	check(cq != NULL, "a CQ of max_cqe (%d)", max_cqe);
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(ctx, max_cqe + 1, NULL, NULL, 0);
	check(!cq && errno == EINVAL, "max_cqe + 1 fails with EINVAL (%s)",
	      cq ? "succeeded" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(ctx, 0, NULL, NULL, 0);
	check(!cq && errno == EINVAL, "a CQ of 0 fails with EINVAL (%s)",
	      cq ? "succeeded" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	/* One vector per CPU: the last one works, the one past it does not. */
	cq = ibv_create_cq(ctx, 16, NULL, NULL, ctx->num_comp_vectors - 1);
	check(cq != NULL, "a CQ on the last of %d completion vectors (%s)",
	      ctx->num_comp_vectors, cq ? "ok" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, ctx->num_comp_vectors);
	check(!cq && errno == EINVAL,
	      "comp_vector %d, past the last, fails with EINVAL (%s)",
	      ctx->num_comp_vectors, cq ? "succeeded" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
}

static void check_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch;
	struct pollfd pfd;
	struct ibv_cq *cq;
	struct ibv_wc wc;

	ch = ibv_create_comp_channel(ctx);
	if (!check(ch != NULL, "create a completion channel"))
		return;
	cq = ibv_create_cq(ctx, 64, NULL, ch, 0);
	if (check(cq != NULL, "a CQ on the channel")) {
		check(ibv_req_notify_cq(cq, 0) == 0, "arm for the next CQE");
		check(ibv_req_notify_cq(cq, 1) == 0, "arm for solicited CQEs");
		pfd.fd = ch->fd;
		pfd.events = POLLIN;
		check(poll(&pfd, 1, 200) == 0,
		      "no completion event without a completion");
		check(ibv_poll_cq(cq, 1, &wc) == 0, "still empty after arming");
		check(ibv_destroy_cq(cq) == 0, "destroy the armed CQ");
	}
	check(ibv_destroy_comp_channel(ch) == 0, "destroy the channel");
}

static void check_resize(struct ibv_context *ctx)
{
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int ret;

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!check(cq != NULL, "a CQ to resize"))
		return;
	ret = ibv_resize_cq(cq, 1000);
	check(ret == 0 && cq->cqe >= 1000, "grow it to 1000 (%d)", cq->cqe);
	check(ibv_poll_cq(cq, 1, &wc) == 0, "the grown CQ polls");
	check(ibv_req_notify_cq(cq, 0) == 0, "the grown CQ arms");
	ret = ibv_resize_cq(cq, 8);
	check(ret == 0 && cq->cqe >= 8 && cq->cqe < 1000,
	      "shrink it to 8 (%d)", cq->cqe);
	ret = ibv_resize_cq(cq, 0);
	check(ret != 0, "resize to 0 fails");
	check(cq->cqe >= 8, "a failed resize keeps the CQ (%d)", cq->cqe);
	check(ibv_poll_cq(cq, 1, &wc) == 0, "it still polls");
	check(ibv_destroy_cq(cq) == 0, "destroy the resized CQ");
}

/*
 * A user CQ's ring is the process's to scribble on, so the kernel must not
 * poll or arm it for the process through the old uverbs commands.
 */
static void check_raw_commands(struct ibv_context *ctx)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_poll_cq cmd;
	} poll_req = {};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_req_notify_cq cmd;
	} arm_req = {};
	struct {
		struct ib_uverbs_poll_cq_resp hdr;
		struct ib_uverbs_wc wc[1];
	} resp;
	struct ibv_cq *cq;
	ssize_t r;

	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!check(cq != NULL, "a CQ for raw commands"))
		return;
	poll_req.hdr.command = IB_USER_VERBS_CMD_POLL_CQ;
	poll_req.hdr.in_words = sizeof(poll_req) / 4;
	poll_req.hdr.out_words = sizeof(resp) / 4;
	poll_req.cmd.response = (uintptr_t)&resp;
	poll_req.cmd.cq_handle = cq->handle;
	poll_req.cmd.ne = 1;
	errno = 0;
	r = write(ctx->cmd_fd, &poll_req, sizeof(poll_req));
	check(r < 0 && errno == EOPNOTSUPP,
	      "the kernel refuses to poll a user CQ (%s)",
	      r < 0 ? strerror(errno) : "it polled");
	arm_req.hdr.command = IB_USER_VERBS_CMD_REQ_NOTIFY_CQ;
	arm_req.hdr.in_words = sizeof(arm_req) / 4;
	arm_req.cmd.cq_handle = cq->handle;
	errno = 0;
	r = write(ctx->cmd_fd, &arm_req, sizeof(arm_req));
	check(r < 0 && errno == EOPNOTSUPP,
	      "the kernel refuses to arm a user CQ (%s)",
	      r < 0 ? strerror(errno) : "it armed");
	check(ibv_destroy_cq(cq) == 0, "destroy it");
}

static void check_many(struct ibv_context *ctx)
{
	static struct ibv_cq *cqs[MANY];
	int i, n, freed = 0;

	for (n = 0; n < MANY; n++) {
		cqs[n] = ibv_create_cq(ctx, 8, NULL, NULL, 0);
		if (!cqs[n])
			break;
	}
	check(n == MANY, "%d CQs at once (%d)", MANY, n);
	for (i = 0; i < n; i++)
		freed += ibv_destroy_cq(cqs[i]) == 0;
	check(freed == n, "all of them destroyed");
}

int main(int argc, char **argv)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!check(ctx != NULL, "open %s", argv[1]))
		return tap_done();
	memset(&attr, 0, sizeof(attr));
	ret = ibv_query_device(ctx, &attr);
	check(ret == 0 && attr.max_cq > 0 && attr.max_cqe > 0,
	      "max_cq %d, max_cqe %d advertised", attr.max_cq, attr.max_cqe);
	check_sizes(ctx, attr.max_cqe);
	check_channel(ctx);
	check_resize(ctx);
	check_raw_commands(ctx);
	check_many(ctx);
	check(ibv_close_device(ctx) == 0, "close the device");
	return tap_done();
}
