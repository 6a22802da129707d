/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* TAP output and device opening shared by the in-VM test programs. */
#ifndef SROCE_PROG_TAP_H
#define SROCE_PROG_TAP_H

#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

static int ntest, nfail;

/* The next result line, without its end: "ok N - " or "not ok N - ", @fmt. */
static void tap_vline(int cond, const char *fmt, va_list ap)
{
	ntest++;
	printf("%s %d - ", cond ? "ok" : "not ok", ntest);
	vprintf(fmt, ap);
}

static __attribute__((format(printf, 2, 3), unused))
int check(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(cond, fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		nfail++;
	return cond;
}

/*
 * A check of a known deviation, reported with "# TODO @why": its failure
 * is expected and not counted, and a pass shows the deviation mended.
 */
static __attribute__((format(printf, 3, 4), unused))
int check_todo(int cond, const char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(cond, fmt, ap);
	va_end(ap);
	printf(" # TODO %s\n", why);
	return cond;
}

/* Print the plan and the exit status for main() to return. */
static __attribute__((unused)) int tap_done(void)
{
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}

/* Open the RDMA device called @name, or NULL. */
static __attribute__((unused)) struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/*
 * For the programs called DEVICE GID_INDEX: stdout line-buffered, the
 * device opened and the GID read, as the first check. The context, or
 * NULL (the check failed); a wrong command line exits with 2.
 */
static __attribute__((unused)) struct ibv_context *
open_dev_gid(int argc, char **argv, int *gidx, union ibv_gid *gid)
{
	struct ibv_context *ctx;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
		exit(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	*gidx = atoi(argv[2]);
	ctx = open_dev(argv[1]);
	if (!check(ctx && !ibv_query_gid(ctx, 1, *gidx, gid),
		   "open %s and its GID %d", argv[1], *gidx))
		return NULL;
	return ctx;
}

/* Counter @name of port 1 of device @dev, or -1 if it has no such counter. */
static __attribute__((unused)) long long hw_counter(const char *dev,
						    const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* A UD QP from RESET to RTS on port 1 with Q_Key @qkey: 0, or -1. */
static __attribute__((unused)) int ud_qp_to_rts(struct ibv_qp *qp,
						unsigned int qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = qkey,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x123;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 : 0;
}

/* How qp_to_rts_with() takes an RC or UC QP to RTS, on port 1. */
struct tap_rts {
	uint32_t dqpn;			/* towards this QP */
	int gidx;			/* from this GID */
	union ibv_gid dgid;		/* at this one */
	int access, res;		/* the peer's rights, responder resources */
	uint32_t rq_psn, sq_psn;
	int timeout;			/* the local ACK timeout */
};

/* @qp from RESET to RTS as @r says, path MTU 1024: 0, or -1. */
static __attribute__((unused)) int qp_to_rts_with(struct ibv_qp *qp,
						  const struct tap_rts *r)
{
	int uc = qp->qp_type == IBV_QPT_UC;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = r->access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = r->dqpn;
	a.rq_psn = r->rq_psn;
	a.max_dest_rd_atomic = r->res;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = r->gidx;
	a.ah_attr.grh.dgid = r->dgid;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  (uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER)))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = r->sq_psn;
	a.timeout = r->timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     (uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY |
				       IBV_QP_MAX_QP_RD_ATOMIC)) ? -1 : 0;
}

/*
 * An RC (or UC) QP from RESET to RTS on port 1, towards QP @dqpn at @dgid
 * through GID @gidx, path MTU 1024, both PSNs 0x100, the peer allowed
 * @access, with @res responder resources (RC): 0, or -1.
 */
static __attribute__((unused)) int qp_to_rts(struct ibv_qp *qp, uint32_t dqpn,
					     int gidx,
					     const union ibv_gid *dgid,
					     int access, int res)
{
	struct tap_rts r = {
		.dqpn = dqpn, .gidx = gidx, .dgid = *dgid,
		.access = access, .res = res,
		.rq_psn = 0x100, .sq_psn = 0x100, .timeout = 14,
	};

	return qp_to_rts_with(qp, &r);
}

/* qp_to_rts() letting the peer write (and for RC read and do atomics). */
static __attribute__((unused)) int rc_qp_to_rts(struct ibv_qp *qp,
						uint32_t dqpn, int gidx,
						const union ibv_gid *dgid)
{
	int uc = qp->qp_type == IBV_QPT_UC;

	return qp_to_rts(qp, dqpn, gidx, dgid,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 (uc ? 0 : IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC), 4);
}

/* Two RC QPs of one device that talk to each other through one CQ. */
struct tap_pair {
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;		/* a asks, b answers */
	struct ibv_qp_ex *ax;		/* a, for the ibv_wr_* API */
};

/*
 * A pair with send_ops_flags @ops, @depth send WRs each, in RTS over GID
 * @gidx (@gid); b allows @b_access and has @b_res responder resources:
 * 0, or -1 (tap_pair_free() still frees what was made).
 */
static __attribute__((unused)) int
tap_pair_new(struct tap_pair *p, struct ibv_pd *pd, int gidx,
	     const union ibv_gid *gid, uint64_t ops, int depth, int b_access,
	     int b_res)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};

	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(pd->context, 2 * depth, NULL, NULL, 0);
	if (!p->cq)
		return -1;
	ia.send_cq = p->cq;
	ia.recv_cq = p->cq;
	p->a = ibv_create_qp_ex(pd->context, &ia);
	p->b = ibv_create_qp_ex(pd->context, &ia);
	if (!p->a || !p->b)
		return -1;
	p->ax = ibv_qp_to_qp_ex(p->a);
	return qp_to_rts(p->a, p->b->qp_num, gidx, gid,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
			 4) ||
	       qp_to_rts(p->b, p->a->qp_num, gidx, gid, b_access, b_res) ?
	       -1 : 0;
}

static __attribute__((unused)) void tap_pair_free(struct tap_pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->cq)
		ibv_destroy_cq(p->cq);
}

/* CLOCK_MONOTONIC in milliseconds. */
static __attribute__((unused)) long long tap_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Device counter @name of @dev once it reached @want, polled for up to
 * @ms: what it holds then, or what it last held. A datagram's send
 * completion says nothing of the receiver; its drop being counted is the
 * event that says the receiver is done with it.
 */
static __attribute__((unused)) long long
tap_counter_reaches(const char *dev, const char *name, long long want, int ms)
{
	long long end = tap_now_ms() + ms, v;

	for (;;) {
		v = hw_counter(dev, name);
		if (v >= want || tap_now_ms() >= end)
			return v;
		poll(NULL, 0, 1);
	}
}

/* The next completion of @cq within 10 s, into @wc: 1, else 0. */
static __attribute__((unused)) int tap_next_wc(struct ibv_cq *cq,
					       struct ibv_wc *wc)
{
	long long end = tap_now_ms() + 10000;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0;
	} while (tap_now_ms() < end);
	return 0;
}

/*
 * The next completion of @cq with wr_id @id within @ms, into @wc: 1, else
 * 0. Completions with other IDs are polled and dropped.
 */
static __attribute__((unused)) int tap_wait_wc(struct ibv_cq *cq, uint64_t id,
					       struct ibv_wc *wc, int ms)
{
	long long end = tap_now_ms() + ms;
	struct ibv_wc w;

	while (tap_now_ms() < end) {
		if (ibv_poll_cq(cq, 1, &w) == 1) {
			if (w.wr_id != id)
				continue;
			*wc = w;
			return 1;
		}
		poll(NULL, 0, 1);
	}
	return 0;
}

#endif /* SROCE_PROG_TAP_H */
