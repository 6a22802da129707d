// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * storm_victims DEVICE GID_INDEX N: the QPs a storm attacks (storm.sh).
 * N RC QPs on DEVICE, in RTS towards a peer at 10.99.0.2 that exists only
 * as an address (QPNs 0x777 up), each with receives posted into one MR
 * that grants the peer every remote right, so that a spoofed request that
 * guesses a PSN in the window reaches real buffers. Prints their QPNs as
 * "qpns A,B,...", then waits until stdin closes, drains the CQ, prints
 * "states: R in RTS, E in ERR, O other; C completions" and destroys all.
 * Exits 0 when every object was created and destroyed cleanly: a victim
 * may end in any state, but its resources must still go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define MAXQ		64
#define BUF_LEN		(64 * 1024)
#define RECVS		16

int main(int argc, char **argv)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	int i, j, n, rts = 0, err = 0, other = 0, comps = 0, bad = 0;
	struct ibv_qp *qp[MAXQ] = { 0 };
	struct ibv_qp_init_attr ia = { 0 };
	struct ibv_context *ctx;
	struct ibv_qp_attr a;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc[16];
	char line[16];
	void *buf;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX N\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	n = atoi(argv[3]);
	if (n < 1 || n > MAXQ)
		return 2;
	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = ctx ? ibv_create_cq(ctx, n * (RECVS + 4), NULL, NULL, 0) : NULL;
	buf = calloc(1, BUF_LEN);
	mr = pd && buf ? ibv_reg_mr(pd, buf, BUF_LEN, access) : NULL;
	if (!mr || !cq) {
		fprintf(stderr, "storm_victims: device setup failed\n");
		return 1;
	}
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = RECVS;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	srand(getpid());
	for (i = 0; i < n; i++) {
		struct tap_rts r = {
			.dqpn = 0x777 + i, .gidx = atoi(argv[2]),
			.access = access, .res = 4,
			.rq_psn = rand() & 0xffffff,
			.sq_psn = rand() & 0xffffff, .timeout = 14,
		};
		in_addr_t peer = inet_addr("10.99.0.2");

		r.dgid.raw[10] = 0xff;
		r.dgid.raw[11] = 0xff;
		memcpy(&r.dgid.raw[12], &peer, 4);
		qp[i] = ibv_create_qp(pd, &ia);
		if (!qp[i] || qp_to_rts_with(qp[i], &r)) {
			fprintf(stderr, "storm_victims: QP %d: %m\n", i);
			return 1;
		}
		for (j = 0; j < RECVS; j++) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)buf + j * 4096,
				.length = 4096, .lkey = mr->lkey,
			};
			struct ibv_recv_wr wr = { .sg_list = &sge,
						  .num_sge = 1 }, *badwr;

			if (ibv_post_recv(qp[i], &wr, &badwr)) {
				fprintf(stderr, "storm_victims: post_recv\n");
				return 1;
			}
		}
	}
	printf("qpns ");
	for (i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", qp[i]->qp_num);
	printf("\n");

	while (fgets(line, sizeof(line), stdin))
		;

	while ((j = ibv_poll_cq(cq, 16, wc)) > 0)
		comps += j;
	for (i = 0; i < n; i++) {
		if (ibv_query_qp(qp[i], &a, IBV_QP_STATE, &ia)) {
			bad++;
			continue;
		}
		if (a.qp_state == IBV_QPS_RTS)
			rts++;
		else if (a.qp_state == IBV_QPS_ERR)
			err++;
		else
			other++;
	}
	printf("states: %d in RTS, %d in ERR, %d other; %d completions\n",
	       rts, err, other, comps);
	for (i = 0; i < n; i++)
		bad += !!ibv_destroy_qp(qp[i]);
	bad += !!ibv_destroy_cq(cq);
	bad += !!ibv_dereg_mr(mr);
	bad += !!ibv_dealloc_pd(pd);
	bad += !!ibv_close_device(ctx);
	if (bad)
		fprintf(stderr, "storm_victims: %d objects did not go\n", bad);
	return bad ? 1 : 0;
}
