// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs_fuzz DEVICE GID_INDEX SECONDS WORKERS SEED: random sequences of
 * verbs from WORKERS processes for SECONDS. Each worker runs episodes, one
 * child process each: the child opens DEVICE and for a few hundred steps
 * picks at random among creating and destroying PDs, CQs, QPs (RC, UC,
 * UD), SRQs, MRs and AHs; moving QPs through states (towards a QP of the
 * same episode, so RC and UC pairs carry traffic on the device's own
 * address, or to a state the spec forbids); posting sends of every opcode
 * with real or made-up keys and addresses, and receives; polling and
 * resizing CQs; re-registering MRs and deregistering them while work that
 * names them is queued; forking a child that touches the inherited objects
 * and exits. A quarter of the episodes end with _exit() mid-traffic (the
 * kernel must clean up after the process); the others destroy everything,
 * dependents first, and each such destroy must succeed.
 * Exits 0 when every episode ended by itself (no signal) and no clean-up
 * destroy failed; each worker prints "worker W: episodes E (abrupt A),
 * bad B, crashed C", and at the end how many sends were posted, QPs moved
 * to RTS and completions polled (with errors) in all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define NPD	3
#define NCQ	4
#define NQP	6
#define NSRQ	2
#define NMR	6
#define NAH	3

struct ep {
	struct ibv_context *ctx;
	int gidx;
	union ibv_gid gid;
	struct ibv_pd *pd[NPD];
	struct ibv_cq *cq[NCQ];
	struct ibv_qp *qp[NQP];
	struct ibv_srq *srq[NSRQ];
	struct ibv_mr *mr[NMR];
	void *buf[NMR];
	size_t len[NMR];
	struct ibv_ah *ah[NAH];
	unsigned long forks, bad;
};

/* What the episodes of all workers did, in memory they share. */
static struct stats {
	unsigned long posts, wcs, wc_errors, rts;
} *stats;

static void stat_add(unsigned long *v, unsigned long n)
{
	__atomic_fetch_add(v, n, __ATOMIC_RELAXED);
}

static unsigned int rnd(unsigned int n)
{
	return n ? (unsigned int)rand() % n : 0;
}

static struct ibv_pd *any_pd(struct ep *e)
{
	return e->pd[rnd(NPD)];
}

static struct ibv_cq *any_cq(struct ep *e)
{
	return e->cq[rnd(NCQ)];
}

static struct ibv_mr *any_mr(struct ep *e)
{
	return e->mr[rnd(NMR)];
}

static int rnd_access(void)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND,
	};
	int a = 0, i;

	for (i = 0; i < 5; i++)
		if (rand() & 1)
			a |= bits[i];
	/* Remote write or atomic without local write is invalid: sometimes. */
	if (rnd(8))
		a |= (a & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) ?
			IBV_ACCESS_LOCAL_WRITE : 0;
	return a;
}

static void op_create(struct ep *e)
{
	struct ibv_qp_init_attr ia = { 0 };
	struct ibv_srq_init_attr sa = { 0 };
	struct ibv_ah_attr aa = { 0 };
	struct ibv_pd *pd = any_pd(e);
	unsigned int i;

	switch (rnd(6)) {
	case 0:
		i = rnd(NPD);
		if (!e->pd[i])
			e->pd[i] = ibv_alloc_pd(e->ctx);
		break;
	case 1:
		i = rnd(NCQ);
		if (!e->cq[i])
			e->cq[i] = ibv_create_cq(e->ctx, 1 + rnd(rnd(2) ? 64 : 4096),
						 NULL, NULL, 0);
		break;
	case 2:
		i = rnd(NQP);
		if (e->qp[i] || !pd)
			break;
		ia.send_cq = any_cq(e);
		ia.recv_cq = any_cq(e);
		if (!ia.send_cq || !ia.recv_cq)
			break;
		ia.srq = rnd(3) ? NULL : e->srq[rnd(NSRQ)];
		ia.qp_type = (enum ibv_qp_type[]){ IBV_QPT_RC, IBV_QPT_UC,
						   IBV_QPT_UD }[rnd(3)];
		ia.cap.max_send_wr = 1 + rnd(rnd(2) ? 16 : 1024);
		ia.cap.max_recv_wr = 1 + rnd(64);
		ia.cap.max_send_sge = 1 + rnd(4);
		ia.cap.max_recv_sge = 1 + rnd(4);
		ia.cap.max_inline_data = rnd(2) ? 0 : rnd(512);
		ia.sq_sig_all = rand() & 1;
		e->qp[i] = ibv_create_qp(pd, &ia);
		break;
	case 3:
		i = rnd(NSRQ);
		if (e->srq[i] || !pd)
			break;
		sa.attr.max_wr = 1 + rnd(128);
		sa.attr.max_sge = 1 + rnd(4);
		e->srq[i] = ibv_create_srq(pd, &sa);
		break;
	case 4:
		i = rnd(NMR);
		if (e->mr[i] || !pd)
			break;
		e->len[i] = 1 + rnd(rnd(2) ? 8192 : 1 << 20);
		e->buf[i] = malloc(e->len[i]);
		if (!e->buf[i])
			break;
		memset(e->buf[i], 0x5a, e->len[i]);
		e->mr[i] = ibv_reg_mr(pd, e->buf[i], e->len[i],
				      rnd_access());
		if (!e->mr[i]) {
			free(e->buf[i]);
			e->buf[i] = NULL;
		}
		break;
	default:
		i = rnd(NAH);
		if (e->ah[i] || !pd)
			break;
		aa.is_global = 1;
		aa.port_num = 1;
		aa.grh.dgid = e->gid;
		aa.grh.sgid_index = e->gidx;
		aa.grh.hop_limit = 1 + rnd(255);
		e->ah[i] = ibv_create_ah(pd, &aa);
		break;
	}
}

/* Destroy one object at random; it may still be in use (EBUSY). */
static void op_destroy(struct ep *e)
{
	unsigned int i;

	switch (rnd(6)) {
	case 0:
		i = rnd(NPD);
		if (e->pd[i] && !ibv_dealloc_pd(e->pd[i]))
			e->pd[i] = NULL;
		break;
	case 1:
		i = rnd(NCQ);
		if (e->cq[i] && !ibv_destroy_cq(e->cq[i]))
			e->cq[i] = NULL;
		break;
	case 2:
		i = rnd(NQP);
		if (e->qp[i] && !ibv_destroy_qp(e->qp[i]))
			e->qp[i] = NULL;
		break;
	case 3:
		i = rnd(NSRQ);
		if (e->srq[i] && !ibv_destroy_srq(e->srq[i]))
			e->srq[i] = NULL;
		break;
	case 4:
		/* Deregistered while sends that name it may be queued. */
		i = rnd(NMR);
		if (e->mr[i] && !ibv_dereg_mr(e->mr[i])) {
			e->mr[i] = NULL;
			/* The pages stay: queued work may still name them. */
		}
		break;
	default:
		i = rnd(NAH);
		if (e->ah[i] && !ibv_destroy_ah(e->ah[i]))
			e->ah[i] = NULL;
		break;
	}
}

static void op_modify(struct ep *e)
{
	struct ibv_qp *qp = e->qp[rnd(NQP)], *peer = e->qp[rnd(NQP)];
	struct ibv_qp_attr a = { 0 };
	int mask = IBV_QP_STATE;

	struct ibv_qp_init_attr ia;

	if (!qp)
		return;
	/* Mostly the next state, so pairs reach RTS and carry traffic. */
	if (rnd(4) && !ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) &&
	    a.qp_state < IBV_QPS_RTS) {
		a.qp_state++;
	} else {
		a.qp_state = (enum ibv_qp_state)rnd(7);	/* RESET .. ERR */
	}
	switch (a.qp_state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (qp->qp_type == IBV_QPT_UD) {
			a.qkey = 0x11111111;
			mask |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = rnd_access();
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		break;
	case IBV_QPS_RTR:
		if (qp->qp_type == IBV_QPT_UD)
			break;
		a.path_mtu = (enum ibv_mtu)(1 + rnd(5));
		a.dest_qp_num = peer ? peer->qp_num : rnd(1 << 24);
		a.rq_psn = rnd(1 << 24);
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = e->gid;
		a.ah_attr.grh.sgid_index = e->gidx;
		a.ah_attr.grh.hop_limit = 64;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (qp->qp_type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = rnd(17);
			a.min_rnr_timer = rnd(32);
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
		break;
	case IBV_QPS_RTS:
		a.sq_psn = rnd(1 << 24);
		mask |= IBV_QP_SQ_PSN;
		if (qp->qp_type == IBV_QPT_RC) {
			a.timeout = rnd(8) + 8;
			a.retry_cnt = rnd(8);
			a.rnr_retry = rnd(8);
			a.max_rd_atomic = rnd(17);
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	/* Now and then, attributes the state does not take. */
	if (!rnd(10))
		mask |= 1 << rnd(21);
	if (!ibv_modify_qp(qp, &a, mask) && a.qp_state == IBV_QPS_RTS)
		stat_add(&stats->rts, 1);
}

/*
 * An SGE into a registered buffer, or (unless @real) now and then made
 * up. Inline data is read by the library in this process: a made-up
 * address there would be our own segfault, not a test of the device.
 */
static void fill_sge(struct ep *e, struct ibv_sge *sge, int real)
{
	struct ibv_mr *mr = any_mr(e);

	if (real && !mr) {
		memset(sge, 0, sizeof(*sge));
	} else if (mr && (real || rnd(8))) {
		size_t len = mr->length;

		sge->addr = (uintptr_t)mr->addr + rnd(len);
		sge->length = rnd(len - (sge->addr - (uintptr_t)mr->addr) + 1);
		sge->lkey = mr->lkey;
	} else {
		sge->addr = (uintptr_t)rand() << 12;
		sge->length = rnd(1 << 16);
		sge->lkey = rand();
	}
}

static void op_post_send(struct ep *e)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV,
	};
	struct ibv_qp *qp = e->qp[rnd(NQP)], *peer;
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sge[4][2];
	struct ibv_mr *rmr;
	int n = 1 + rnd(4), i, j;

	if (!qp)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rand();
		wr[i].opcode = ops[rnd(sizeof(ops) / sizeof(ops[0]))];
		wr[i].num_sge = rnd(3);
		wr[i].sg_list = sge[i];
		wr[i].send_flags = (rand() & 1 ? IBV_SEND_SIGNALED : 0) |
				   (rnd(8) ? 0 : IBV_SEND_INLINE) |
				   (rnd(4) ? 0 : IBV_SEND_FENCE);
		for (j = 0; j < wr[i].num_sge; j++)
			fill_sge(e, &sge[i][j],
				 wr[i].send_flags & IBV_SEND_INLINE);
		rmr = any_mr(e);
		if (wr[i].opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr[i].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr[i].wr.atomic.remote_addr = rmr ?
				((uintptr_t)rmr->addr + rnd(rmr->length)) & ~7ul :
				(uint64_t)rand();
			wr[i].wr.atomic.rkey = rmr ? rmr->rkey : (uint32_t)rand();
			wr[i].wr.atomic.compare_add = rand();
			wr[i].wr.atomic.swap = rand();
		} else if (wr[i].opcode == IBV_WR_SEND_WITH_INV ||
			   wr[i].opcode == IBV_WR_LOCAL_INV) {
			wr[i].invalidate_rkey = rmr ? rmr->rkey : (uint32_t)rand();
		} else {
			wr[i].wr.rdma.remote_addr = rmr ?
				(uintptr_t)rmr->addr + rnd(rmr->length) :
				(uint64_t)rand();
			wr[i].wr.rdma.rkey = rmr ? rmr->rkey : (uint32_t)rand();
		}
		if (qp->qp_type == IBV_QPT_UD) {
			wr[i].opcode = IBV_WR_SEND;
			wr[i].wr.ud.ah = e->ah[rnd(NAH)];
			peer = e->qp[rnd(NQP)];
			wr[i].wr.ud.remote_qpn = peer ? peer->qp_num :
				rand() & 0xffffff;
			wr[i].wr.ud.remote_qkey = 0x11111111;
			if (!wr[i].wr.ud.ah)
				return;
		}
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	if (!ibv_post_send(qp, wr, &bad))
		stat_add(&stats->posts, n);
}

static void op_post_recv(struct ep *e)
{
	struct ibv_recv_wr wr = { .wr_id = rand() }, *bad;
	struct ibv_sge sge[2];
	int j;

	wr.num_sge = rnd(3);
	wr.sg_list = sge;
	for (j = 0; j < wr.num_sge; j++)
		fill_sge(e, &sge[j], 0);
	if (rand() & 1) {
		struct ibv_qp *qp = e->qp[rnd(NQP)];

		if (qp)
			ibv_post_recv(qp, &wr, &bad);
	} else {
		struct ibv_srq *srq = e->srq[rnd(NSRQ)];

		if (srq)
			ibv_post_srq_recv(srq, &wr, &bad);
	}
}

static void op_cq(struct ep *e)
{
	struct ibv_cq *cq = any_cq(e);
	struct ibv_wc wc[16];
	int n, i;

	if (!cq)
		return;
	if (rnd(4)) {
		while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
			stat_add(&stats->wcs, n);
			for (i = 0; i < n; i++)
				if (wc[i].status != IBV_WC_SUCCESS)
					stat_add(&stats->wc_errors, 1);
		}
	} else {
		ibv_resize_cq(cq, 1 + rnd(rnd(2) ? 64 : 8192));
	}
}

static void op_rereg(struct ep *e)
{
	struct ibv_pd *pd = any_pd(e);
	unsigned int i = rnd(NMR);
	int flags = 0;

	if (!e->mr[i])
		return;
	if (rand() & 1)
		flags |= IBV_REREG_MR_CHANGE_ACCESS;
	if (pd && rand() & 1)
		flags |= IBV_REREG_MR_CHANGE_PD;
	/* Same buffer, maybe a shorter range: the old one stays allocated. */
	if (rand() & 1)
		flags |= IBV_REREG_MR_CHANGE_TRANSLATION;
	ibv_rereg_mr(e->mr[i], flags, pd, e->buf[i],
		     1 + rnd(e->len[i]), rnd_access());
}

/* A child that touches the inherited objects, then leaves. */
static void op_fork(struct ep *e)
{
	struct ibv_wc wc;
	pid_t pid;

	e->forks++;
	pid = fork();
	if (pid == 0) {
		struct ibv_cq *cq = any_cq(e);

		/*
		 * Only what leaves nothing behind: an object the child made
		 * would belong to the parent's context (the file is shared)
		 * and hold its PD past the parent's clean-up.
		 */
		if (cq)
			ibv_poll_cq(cq, 1, &wc);
		op_post_send(e);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* Everything, dependents first; each destroy must succeed now. */
static void teardown(struct ep *e)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (e->qp[i] && ibv_destroy_qp(e->qp[i]))
			e->bad++, fprintf(stderr, "destroy_qp: %m\n");
	for (i = 0; i < NSRQ; i++)
		if (e->srq[i] && ibv_destroy_srq(e->srq[i]))
			e->bad++, fprintf(stderr, "destroy_srq: %m\n");
	for (i = 0; i < NAH; i++)
		if (e->ah[i] && ibv_destroy_ah(e->ah[i]))
			e->bad++, fprintf(stderr, "destroy_ah: %m\n");
	for (i = 0; i < NMR; i++)
		if (e->mr[i] && ibv_dereg_mr(e->mr[i]))
			e->bad++, fprintf(stderr, "dereg_mr: %m\n");
	for (i = 0; i < NCQ; i++)
		if (e->cq[i] && ibv_destroy_cq(e->cq[i]))
			e->bad++, fprintf(stderr, "destroy_cq: %m\n");
	for (i = 0; i < NPD; i++)
		if (e->pd[i] && ibv_dealloc_pd(e->pd[i]))
			e->bad++, fprintf(stderr, "dealloc_pd: %m\n");
	if (ibv_close_device(e->ctx))
		e->bad++, fprintf(stderr, "close_device: %m\n");
}

/*
 * One episode in this (child) process. Exit status: 0 clean, 3 abrupt,
 * 4 a clean-up destroy failed, 1 setup failed. Low bits of the status
 * carry nothing else: the parent counts.
 */
static int episode(const char *dev, int gidx)
{
	unsigned long steps = 50 + rnd(400), s;
	int abrupt = !rnd(4);
	struct ep e = { 0 };

	e.ctx = open_dev(dev);
	e.gidx = gidx;
	if (!e.ctx || ibv_query_gid(e.ctx, 1, gidx, &e.gid))
		return 1;
	for (s = 0; s < steps; s++) {
		switch (rnd(20)) {
		case 0: case 1: case 2: case 3: case 4:
			op_create(&e);
			break;
		case 5: case 6:
			op_destroy(&e);
			break;
		case 7: case 8: case 9:
			op_modify(&e);
			break;
		case 10: case 11: case 12: case 13:
			op_post_send(&e);
			break;
		case 14: case 15:
			op_post_recv(&e);
			break;
		case 16: case 17:
			op_cq(&e);
			break;
		case 18:
			op_rereg(&e);
			break;
		default:
			if (!rnd(8))
				op_fork(&e);
			else
				op_cq(&e);
			break;
		}
		if (abrupt && s == steps / 2)
			_exit(3);
	}
	teardown(&e);
	return e.bad ? 4 : 0;
}

int main(int argc, char **argv)
{
	unsigned long episodes = 0, abrupt = 0, crashed = 0, bad = 0;
	int secs, workers, seed, gidx, w, st;
	long long end;
	pid_t pid;

	if (argc != 6) {
		fprintf(stderr,
			"usage: %s DEVICE GID_INDEX SECONDS WORKERS SEED\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	gidx = atoi(argv[2]);
	secs = atoi(argv[3]);
	workers = atoi(argv[4]);
	seed = atoi(argv[5]);
	end = tap_now_ms() + secs * 1000LL;
	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return 1;

	for (w = 0; w < workers; w++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid)
			continue;
		/* A worker: episodes, one child each, until the deadline. */
		while (tap_now_ms() < end) {
			srand(seed * 7919 + w * 104729 + episodes);
			pid = fork();
			if (pid == 0)
				_exit(episode(argv[1], gidx));
			if (pid < 0 || waitpid(pid, &st, 0) != pid) {
				crashed++;
				break;
			}
			episodes++;
			if (WIFSIGNALED(st)) {
				fprintf(stderr, "episode %lu of worker %d: signal %d\n",
					episodes, w, WTERMSIG(st));
				crashed++;
			} else if (WEXITSTATUS(st) == 3) {
				abrupt++;
			} else if (WEXITSTATUS(st)) {
				fprintf(stderr, "episode %lu of worker %d: status %d\n",
					episodes, w, WEXITSTATUS(st));
				bad++;
			}
		}
		printf("worker %d: episodes %lu (abrupt %lu), bad %lu, crashed %lu\n",
		       w, episodes, abrupt, bad, crashed);
		_exit(crashed || bad ? 1 : 0);
	}
	st = 0;
	for (w = 0; w < workers; w++) {
		int s;

		if (wait(&s) < 0 || !WIFEXITED(s) || WEXITSTATUS(s))
			st = 1;
	}
	printf("all: %lu sends posted, %lu QPs to RTS, %lu completions (%lu with errors)\n",
	       stats->posts, stats->rts, stats->wcs, stats->wc_errors);
	return st;
}
