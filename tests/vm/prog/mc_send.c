// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mc_send: the sending half of librdmacm's mckey, but one that waits for
 * its datagrams to leave. mckey -s posts its sends unsignaled and leaves
 * the group and destroys its QP straight away: a device that sends from
 * a work queue (rdma_rxe on 6.12) then drops most of them with the QP,
 * and the receiving mckey waits for ever. Like mckey it joins the group
 * through the RDMA CM and sends SEND_WITH_IMM datagrams to it, with the
 * address handle, QPN and Q_Key the join returns; unlike it, every send
 * is signaled and must complete with success before it leaves.
 *
 *   mc_send -b BIND_ADDR -m GROUP [-C count] [-S size]
 *
 * Exit status 0 when every send completed with success.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "mc_send: %s: %s\n", what, strerror(err));
	return 1;
}

static int addr_of(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo *ai, hint = { .ai_flags = AI_NUMERICHOST };
	int ret = getaddrinfo(s, NULL, &hint, &ai);

	if (ret) {
		fprintf(stderr, "mc_send: %s: %s\n", s, gai_strerror(ret));
		return -1;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* The next CM event, which must be @want; its copy in @out. */
static int cm_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		    struct rdma_cm_event *out)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		return fail("rdma_get_cm_event", errno);
	*out = *ev;
	rdma_ack_cm_event(ev);
	if (out->event != want) {
		fprintf(stderr, "mc_send: CM event %s (status %d), want %s\n",
			rdma_event_str(out->event), out->status,
			rdma_event_str(want));
		return 1;
	}
	return 0;
}

/* Every completion of @n signaled sends, within 30 s. */
static int reap(struct ibv_cq *cq, int n)
{
	time_t end = time(NULL) + 30;
	struct ibv_wc wc[16];
	int got = 0, i, k;

	while (got < n) {
		k = ibv_poll_cq(cq, 16, wc);
		if (k < 0)
			return fail("ibv_poll_cq", -k);
		for (i = 0; i < k; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "mc_send: send %d: %s\n",
					got + i, ibv_wc_status_str(wc[i].status));
				return 1;
			}
		}
		got += k;
		if (!k && time(NULL) > end) {
			fprintf(stderr, "mc_send: %d of %d sends completed in 30 s\n",
				got, n);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qpa = { .qp_type = IBV_QPT_UD };
	struct sockaddr_storage src, dst;
	const char *bind = NULL, *group = NULL;
	struct rdma_event_channel *ch;
	struct ibv_send_wr wr, *bad;
	struct rdma_cm_event ev;
	struct rdma_cm_id *id;
	int count = 10, size = 100, op, i, ret;
	struct ibv_sge sge;
	struct ibv_ah *ah;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;

	while ((op = getopt(argc, argv, "b:m:C:S:")) != -1) {
		switch (op) {
		case 'b':
			bind = optarg;
			break;
		case 'm':
			group = optarg;
			break;
		case 'C':
			count = atoi(optarg);
			break;
		case 'S':
			size = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!bind || !group || count < 1 || size < 1)
		goto usage;
	if (addr_of(bind, &src) || addr_of(group, &dst))
		return 1;

	ch = rdma_create_event_channel();
	if (!ch)
		return fail("rdma_create_event_channel", errno);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		return fail("rdma_create_id", errno);
	if (rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, 2000))
		return fail("rdma_resolve_addr", errno);
	if (cm_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev))
		return 1;

	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, count, NULL, NULL, 0) : NULL;
	buf = calloc(1, size);
	mr = cq && buf ? ibv_reg_mr(pd, buf, size, 0) : NULL;
	if (!mr)
		return fail("PD, CQ or MR", errno);
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.cap.max_send_wr = count;
	qpa.cap.max_recv_wr = 1;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &qpa))
		return fail("rdma_create_qp", errno);

	if (rdma_join_multicast(id, (struct sockaddr *)&dst, NULL))
		return fail("rdma_join_multicast", errno);
	if (cm_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, &ev))
		return 1;
	ah = ibv_create_ah(pd, &ev.param.ud.ah_attr);
	if (!ah)
		return fail("ibv_create_ah", errno);

	memset(buf, 0x5a, size);
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = size,
				.lkey = mr->lkey };
	wr = (struct ibv_send_wr){
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(id->qp->qp_num),
		.wr.ud = { .ah = ah, .remote_qpn = ev.param.ud.qp_num,
			   .remote_qkey = ev.param.ud.qkey },
	};
	for (i = 0; i < count; i++) {
		wr.wr_id = i;
		ret = ibv_post_send(id->qp, &wr, &bad);
		if (ret)
			return fail("ibv_post_send", ret);
	}
	ret = reap(cq, count);
	if (!ret)
		printf("mc_send: %d datagrams of %d bytes to %s sent\n", count,
		       size, group);

	rdma_leave_multicast(id, (struct sockaddr *)&dst);
	ibv_destroy_ah(ah);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	free(buf);
	return ret;
usage:
	fprintf(stderr, "usage: mc_send -b BIND_ADDR -m GROUP [-C count] [-S size]\n");
	return 2;
}
