// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cq_resize_race DEVICE GID_INDEX: several threads resize one CQ at once
 * while an RC QP (connected to itself) completes RDMA WRITEs into it.
 *
 * libsroce serializes resizes of a CQ within a process, so the threads
 * send the uverbs RESIZE_CQ command themselves (write() on the command
 * fd): two resizes then really meet in the kernel. Each thread asks for a
 * ring size of its own, and the driver's reply must describe the ring
 * that call made, not another thread's (the core's cqe is read after the
 * driver returns, so it may tell of a later resize). Half the resizes
 * meet an empty CQ (quick, so they collide often), half a CQ that WRITEs
 * fill. At the end libsroce resizes once more and maps the ring, and
 * every WRITE must have completed there, in order. The VM harness fails
 * the run on any splat (slub_debug catches a ring freed twice or used
 * after free).
 * Prints TAP; exits non-zero if anything failed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "tap.h"

#define NRESIZERS	4
#define RESIZES		200	/* per thread */
#define NWRITES		1500	/* fewer than the smallest ring holds */
#define MIN_ENTRIES	2048

static struct ibv_context *ctx;
static struct ibv_cq *cq;
static int stop;

struct resizer {
	pthread_t tid;
	uint32_t entries;	/* what this thread asks for */
	int done, failed;
	char err[160];
};

static int qp_self(struct ibv_qp *qp, int gidx)
{
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE };
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = qp->qp_num, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .sgid_index = gidx, .hop_limit = 64 } },
	};
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1 };

	if (ibv_query_gid(ctx, 1, gidx, &rtr.ah_attr.grh.dgid))
		return -1;
	return ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ||
	       ibv_modify_qp(qp, &rtr, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER) ||
	       ibv_modify_qp(qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* One RESIZE_CQ command, past libsroce; 0 or an errno. */
static int raw_resize(uint32_t cqe, struct ib_uverbs_resize_cq_resp *core,
		      struct sroce_cq_resp *drv)
{
	struct {
		struct ib_uverbs_resize_cq_resp core;
		struct sroce_cq_resp drv;
	} resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_resize_cq cmd;
	} req;

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.hdr.command = IB_USER_VERBS_CMD_RESIZE_CQ;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.cq_handle = cq->handle;
	req.cmd.cqe = cqe;
	if (write(ctx->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno;
	*core = resp.core;
	*drv = resp.drv;
	return 0;
}

static void *resizer(void *arg)
{
	struct resizer *r = arg;
	struct ib_uverbs_resize_cq_resp core = { 0 };
	struct sroce_cq_resp drv = { 0 };
	int i, ret;

	for (i = 0; i < RESIZES && !stop && !r->failed; i++) {
		ret = raw_resize(r->entries - 1, &core, &drv);
		if (ret) {
			snprintf(r->err, sizeof(r->err), "resize %d: %s", i,
				 strerror(ret));
			r->failed = 1;
		} else if (drv.num_entries != r->entries) {
			/*
			 * Only the driver's part: the core fills in cqe from
			 * the CQ after the driver returned, when a resize of
			 * another thread may have changed it already.
			 */
			snprintf(r->err, sizeof(r->err),
				 "resize %d to %u entries: reply says %u entries",
				 i, r->entries, drv.num_entries);
			r->failed = 1;
		}
		r->done++;
	}
	return NULL;
}

/* NWRITES signaled WRITEs of 64 bytes, posted in bursts. */
static int writes(struct ibv_qp *qp, struct ibv_mr *mr)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sg = { .addr = (uintptr_t)mr->addr, .length = 64,
			      .lkey = mr->lkey };
	int i, ret;

	for (i = 0; i < NWRITES; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)mr->addr + 64;
		wr.wr.rdma.rkey = mr->rkey;
		ret = ibv_post_send(qp, &wr, &bad);
		if (ret)
			return ret;
		if (i % 50 == 49)
			usleep(1000);
	}
	return 0;
}

/* Every WRITE's completion, in order, on the ring libsroce maps now. */
static int reap(char *err, size_t n)
{
	struct ibv_wc wc;
	int got = 0, tries = 0, k;

	while (got < NWRITES && tries < 20000) {
		k = ibv_poll_cq(cq, 1, &wc);
		if (k < 0) {
			snprintf(err, n, "ibv_poll_cq: %d", k);
			return got;
		}
		if (!k) {
			tries++;
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)got) {
			snprintf(err, n, "completion %d: wr_id %llu, %s", got,
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
			return got;
		}
		got++;
	}
	if (got < NWRITES)
		snprintf(err, n, "%d of %d completions", got, NWRITES);
	return got;
}

int main(int argc, char **argv)
{
	struct resizer rz[NRESIZERS];
	struct ibv_qp_init_attr ia;
	struct ibv_cq *rcq;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char err[160] = "";
	void *buf;
	int i, ret, bad = 0, total = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = ctx ? ibv_create_cq(ctx, MIN_ENTRIES - 1, NULL, NULL, 0) : NULL;
	rcq = ctx ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	buf = aligned_alloc(4096, 4096);
	mr = pd && buf ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!check(pd && cq && rcq && mr, "open %s: a PD, two CQs, an MR",
		   argv[1]))
		return tap_done();
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = NWRITES;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &ia);
	if (!check(qp && !qp_self(qp, atoi(argv[2])),
		   "an RC QP connected to itself through GID %s", argv[2]))
		return tap_done();

	for (i = 0; i < NRESIZERS; i++) {
		memset(&rz[i], 0, sizeof(rz[i]));
		rz[i].entries = MIN_ENTRIES << (i % 3);
		pthread_create(&rz[i].tid, NULL, resizer, &rz[i]);
	}
	/* Resizes of an empty CQ first: each is quick, so they meet often. */
	while (rz[0].done < RESIZES / 2 && !rz[0].failed)
		usleep(1000);
	ret = writes(qp, mr);
	check(!ret, "%d signaled WRITEs posted while the CQ is resized (%s)",
	      NWRITES, ret ? strerror(ret) : "ok");
	for (i = 0; i < NRESIZERS; i++) {
		pthread_join(rz[i].tid, NULL);
		total += rz[i].done;
		if (rz[i].failed) {
			printf("# thread %d: %s\n", i, rz[i].err);
			bad++;
		}
	}
	check(!bad, "%d resizes from %d threads at once, each reply describes its own ring",
	      total, NRESIZERS);

	ret = ibv_resize_cq(cq, MIN_ENTRIES - 1);
	check(!ret, "libsroce resizes once more and maps the ring (%s)",
	      ret ? strerror(ret) : "ok");
	if (!ret) {
		i = reap(err, sizeof(err));
		check(i == NWRITES, "all %d WRITEs completed, in order (%s)",
		      NWRITES, err[0] ? err : "ok");
	}
	check(!ibv_destroy_qp(qp) && !ibv_dereg_mr(mr) &&
	      !ibv_destroy_cq(cq) && !ibv_destroy_cq(rcq) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
	      "everything released");
	free(buf);
	return tap_done();
}
