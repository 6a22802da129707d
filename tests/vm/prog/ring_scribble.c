// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ring_scribble DEVICE GID_INDEX: a hostile process writes garbage into
 * its own QP's shared SQ and RQ rings.
 *
 * libsroce maps each ring from the uverbs device; whatever the process
 * stores there, the kernel must end it in an error completion or a QP in
 * ERR, never a hang or an oops (the suite around this program checks the
 * kernel log). The rings are found by comparing the process's uverbs
 * mappings before and after ibv_create_qp; their geometry comes from the
 * QP's caps, which are the ring sizes. The program writes WQEs and indices
 * there itself and rings the SQ doorbell itself: a post_send command with
 * no work requests, as libsroce does.
 *
 * Each case runs on a fresh pair of RC QPs on DEVICE, a and b, connected
 * to each other through the RoCE v2 GID at GID_INDEX (loopback). Every
 * wait has a deadline. Prints TAP; exits non-zero if a check failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "tap.h"

#define SQ_WR		64	/* SQ and RQ sizes differ: tells the rings apart */
#define RQ_WR		16
#define BUF_LEN		16384
#define WC_MS		5000	/* deadline for one completion */
#define RANDOM_MS	10000	/* ... for random garbage to end in an error */
#define MAX_MAPS	512
#define MAX(a, b)	((a) > (b) ? (a) : (b))

struct map {
	unsigned long start, end;
};

struct ring {
	struct sroce_queue_ctrl *ctrl;
	unsigned char *slots;
	uint32_t entries, slot;
	size_t len;
};

struct end {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ring sq, rq;
};

struct pair {
	struct end a, b;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static struct ibv_device_attr dattr;
static unsigned char *buf;
static union ibv_gid gid;
static int gidx;
static char msg[256];

static __attribute__((format(printf, 1, 2)))
const char *fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return msg;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static uint32_t pow2(uint32_t x)
{
	uint32_t p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

static const char *state_name(int s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s >= 0 && s < 7 ? names[s] : "?";
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia))
		return -1;
	return qa.qp_state;
}

/* Poll until @qp is in @want or @ms pass; the last state seen. */
static int wait_state(struct ibv_qp *qp, int want, int ms)
{
	long long end = now_ms() + ms;
	int s;

	while ((s = qp_state(qp)) != want && now_ms() < end)
		usleep(1000);
	return s;
}

/* 1 with a completion in @wc, 0 after @ms without one, < 0 on error. */
static int poll_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	long long end = now_ms() + ms;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)) && now_ms() < end)
		usleep(100);
	return n;
}

/* The [start, end) of every mapping of a uverbs device, at most @max. */
static int uverbs_maps(struct map *m, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	while (f && n < max && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%lx-%lx", &m[n].start, &m[n].end) == 2)
			n++;
	if (f)
		fclose(f);
	return n;
}

static void ring_set(struct ring *r, const struct map *m, uint32_t entries,
		     uint32_t slot)
{
	r->ctrl = (struct sroce_queue_ctrl *)m->start;
	r->slots = (unsigned char *)m->start + sizeof(struct sroce_queue_ctrl);
	r->len = m->end - m->start;
	r->entries = entries;
	r->slot = slot;
}

static unsigned char *ring_slot(struct ring *r, uint32_t idx)
{
	return r->slots + (size_t)(idx & (r->entries - 1)) * r->slot;
}

#define ring_prod(r)	__atomic_load_n(&(r)->ctrl->prod, __ATOMIC_RELAXED)
/* Publish WQEs up to @v as a producer does: a release store. */
#define ring_publish(r, v) \
	__atomic_store_n(&(r)->ctrl->prod, (v), __ATOMIC_RELEASE)

static void fill_random(unsigned char *p, size_t n)
{
	while (n--)
		*p++ = rand() & 0xff;
}

/* The SQ doorbell: the legacy post_send command with no work requests. */
static int doorbell(struct ibv_qp *qp)
{
	struct ib_uverbs_post_send_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req = {
		.hdr.command = IB_USER_VERBS_CMD_POST_SEND,
		.hdr.in_words = sizeof(req) / 4,
		.hdr.out_words = sizeof(resp) / 4,
		.cmd.response = (uintptr_t)&resp,
		.cmd.qp_handle = qp->handle,
		.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr),
	};

	static_assert(sizeof(req) == 32, "no padding in the command");
	errno = 0;
	if (write(qp->context->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno ? errno : EIO;
	return 0;
}

/* A QP and its CQs, and where its rings are mapped. */
static const char *end_new(struct end *e)
{
	static struct map before[MAX_MAPS], after[MAX_MAPS];
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SQ_WR, .max_recv_wr = RQ_WR,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa;
	struct map found[2];
	int nb, na, i, j, n = 0, big;

	e->scq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	e->rcq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!e->scq || !e->rcq)
		return fail("ibv_create_cq: %s", strerror(errno));
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	nb = uverbs_maps(before, MAX_MAPS);
	e->qp = ibv_create_qp(pd, &ia);
	if (!e->qp)
		return fail("ibv_create_qp: %s", strerror(errno));
	na = uverbs_maps(after, MAX_MAPS);
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb; j++)
			if (after[i].start == before[j].start &&
			    after[i].end == before[j].end)
				break;
		if (j == nb && n++ < 2)
			found[n - 1] = after[i];
	}
	if (n != 2)
		return fail("%d new uverbs mappings, want 2", n);
	if (ibv_query_qp(e->qp, &qa, IBV_QP_CAP, &ia))
		return fail("ibv_query_qp: %s", strerror(errno));
	/* 64 big slots against 16 small ones: the SQ is the bigger. */
	big = found[0].end - found[0].start < found[1].end - found[1].start;
	/* The caps are the rings; slots are sized as sroce-abi.h says. */
	ring_set(&e->sq, &found[big], ia.cap.max_send_wr,
		 pow2(sizeof(struct sroce_send_wqe) +
		      MAX(MAX(ia.cap.max_send_sge * 16, ia.cap.max_inline_data),
			  16u)));
	ring_set(&e->rq, &found[!big], ia.cap.max_recv_wr,
		 pow2(sizeof(struct sroce_recv_wqe) +
		      MAX(ia.cap.max_recv_sge, 1u) * 16));
	if (e->sq.len < sizeof(*e->sq.ctrl) + e->sq.entries * e->sq.slot ||
	    e->rq.len < sizeof(*e->rq.ctrl) + e->rq.entries * e->rq.slot)
		return fail("mappings of %zu and %zu B for an SQ of %u x %u B and an RQ of %u x %u B",
			    e->sq.len, e->rq.len, e->sq.entries, e->sq.slot,
			    e->rq.entries, e->rq.slot);
	return NULL;
}

static int end_free(struct end *e)
{
	int ret = 0;

	if (e->qp)
		ret |= ibv_destroy_qp(e->qp);
	if (e->scq)
		ret |= ibv_destroy_cq(e->scq);
	if (e->rcq)
		ret |= ibv_destroy_cq(e->rcq);
	return ret;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	return ret < 0 ? errno : ret;
}

/* RESET to RTS, connected to @dqpn through the GID. An errno value. */
static int connect_qp(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	}, rtr = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .min_rnr_timer = 12,
		.max_dest_rd_atomic = dattr.max_qp_rd_atom ? 1 : 0,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = gid, .sgid_index = gidx,
				      .hop_limit = 64 } },
	}, rts = {
		.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 3,
		.rnr_retry = 3,
		.max_rd_atomic = dattr.max_qp_init_rd_atom ? 1 : 0,
	};
	int ret;

	if ((ret = modify(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) ||
	    (ret = modify(qp, &rtr, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		return ret;
	return modify(qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT |
		      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		      IBV_QP_MAX_QP_RD_ATOMIC);
}

/* A fresh connected pair with its rings found, as the case's first check. */
static int pair_up(const char *name, struct pair *p)
{
	const char *err = NULL;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!(err = end_new(&p->a)) && !(err = end_new(&p->b)) &&
	    ((ret = connect_qp(p->a.qp, p->b.qp->qp_num)) ||
	     (ret = connect_qp(p->b.qp, p->a.qp->qp_num))))
		err = fail("connect: %s", strerror(ret));
	if (check(!err, "%s: two connected RC QPs, rings found%s%s", name,
		  err ? ": " : "", err ? err : "")) {
		printf("# %s: QPs %#x -> %#x; SQ %u x %u B, RQ %u x %u B\n",
		       name, p->a.qp->qp_num, p->b.qp->qp_num,
		       p->a.sq.entries, p->a.sq.slot, p->a.rq.entries,
		       p->a.rq.slot);
		return 1;
	}
	end_free(&p->a);
	end_free(&p->b);
	return 0;
}

static void pair_down(const char *name, struct pair *p)
{
	int a = end_free(&p->a), b = end_free(&p->b);

	check(!a && !b, "%s: QPs and CQs destroyed", name);
}

static void ring_doorbell(const char *name, struct ibv_qp *qp)
{
	int ret = doorbell(qp);

	check(!ret, "%s: doorbell (post_send with no work requests)%s%s",
	      name, ret ? ": " : "", ret ? strerror(ret) : "");
}

/* A SEND of @len bytes from a into a posted receive on b, data checked. */
static const char *send_recv(struct pair *p, uint32_t len, uint64_t id)
{
	unsigned char *src = buf, *dst = buf + BUF_LEN / 2;
	struct ibv_sge ss = { (uintptr_t)src, len, mr->lkey };
	struct ibv_sge ds = { (uintptr_t)dst, len, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = id + 1, .sg_list = &ds,
				   .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .wr_id = id, .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_wc wc;
	int ret;

	fill_random(src, len);
	memset(dst, 0, len);
	if ((ret = ibv_post_recv(p->b.qp, &rwr, &rbad)))
		return fail("ibv_post_recv: %s", strerror(ret));
	if ((ret = ibv_post_send(p->a.qp, &swr, &sbad)))
		return fail("ibv_post_send: %s", strerror(ret));
	if (poll_wc(p->a.scq, &wc, WC_MS) <= 0)
		return fail("no send completion within %d ms", WC_MS);
	if (wc.wr_id != id || wc.status != IBV_WC_SUCCESS)
		return fail("send completion %#llx: %s",
			    (unsigned long long)wc.wr_id,
			    ibv_wc_status_str(wc.status));
	if (poll_wc(p->b.rcq, &wc, WC_MS) <= 0)
		return fail("no receive completion within %d ms", WC_MS);
	if (wc.wr_id != id + 1 || wc.status != IBV_WC_SUCCESS ||
	    wc.byte_len != len)
		return fail("receive completion %#llx: %s, %u B",
			    (unsigned long long)wc.wr_id,
			    ibv_wc_status_str(wc.status), wc.byte_len);
	if (memcmp(src, dst, len))
		return fail("the received bytes differ from those sent");
	return NULL;
}

/* Cases 1-4: one invalid send WQE, written into the ring by hand. */
static void t_bad_send(const char *name, const struct sroce_send_wqe *h,
		       const struct sroce_sge *sg, enum ibv_wc_status want)
{
	struct ibv_wc wc;
	struct pair p;
	unsigned char *slot;
	uint32_t prod;
	int n, s;

	if (!pair_up(name, &p))
		return;
	prod = ring_prod(&p.a.sq);
	slot = ring_slot(&p.a.sq, prod);
	memset(slot, 0, p.a.sq.slot);
	memcpy(slot, h, sizeof(*h));
	if (sg)
		memcpy(slot + sizeof(*h), sg, sizeof(*sg));
	ring_publish(&p.a.sq, prod + 1);
	ring_doorbell(name, p.a.qp);
	n = poll_wc(p.a.scq, &wc, WC_MS);
	if (n > 0)
		printf("# %s: completion wr_id %#llx, %s, vendor_err %#x\n",
		       name, (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), wc.vendor_err);
	else
		printf("# %s: no completion within %d ms\n", name, WC_MS);
	check(n > 0 && wc.wr_id == h->wr_id && wc.status == want,
	      "%s: send completion wr_id %#llx with %s", name,
	      (unsigned long long)h->wr_id, ibv_wc_status_str(want));
	s = wait_state(p.a.qp, IBV_QPS_ERR, 1000);
	check(s == IBV_QPS_ERR, "%s: QP a in ERR (%s)", name, state_name(s));
	pair_down(name, &p);
}

/* Case 5: eight slots of random bytes. */
static void t_random_sq(const char *name)
{
	int n, s = -1, ncomp = 0, nerr = 0;
	long long end;
	struct ibv_wc wc;
	struct pair p;
	uint32_t prod, i;

	if (!pair_up(name, &p))
		return;
	srand(1);
	prod = ring_prod(&p.a.sq);
	for (i = 0; i < 8; i++)
		fill_random(ring_slot(&p.a.sq, prod + i), p.a.sq.slot);
	ring_publish(&p.a.sq, prod + 8);
	ring_doorbell(name, p.a.qp);
	end = now_ms() + RANDOM_MS;
	for (;;) {
		while ((n = ibv_poll_cq(p.a.scq, 1, &wc)) > 0) {
			ncomp++;
			nerr += wc.status != IBV_WC_SUCCESS;
			printf("# %s: completion wr_id %#llx, %s\n", name,
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
		}
		s = qp_state(p.a.qp);
		if (n < 0 || nerr || s == IBV_QPS_ERR || now_ms() >= end)
			break;
		usleep(1000);
	}
	printf("# %s: %d completion(s), %d with an error; QP a in %s\n",
	       name, ncomp, nerr, state_name(s));
	check(nerr || s == IBV_QPS_ERR,
	      "%s: an error completion or QP a in ERR within %d ms", name,
	      RANDOM_MS);
	pair_down(name, &p);
}

/* Case 6: producer and consumer indices that lie. */
static void t_indices(const char *name)
{
	struct sroce_queue_ctrl *c;
	const char *err;
	struct pair p;
	uint32_t prod, cons;
	long long end;
	int s;

	if (!pair_up(name, &p))
		return;
	c = p.a.sq.ctrl;
	prod = ring_prod(&p.a.sq);
	__atomic_store_n(&c->cons, 0x12345678, __ATOMIC_RELAXED);
	ring_publish(&p.a.sq, 0x80000000);
	ring_doorbell(name, p.a.qp);
	/* The kernel owns cons: it writes its own value back when it runs. */
	end = now_ms() + 2000;
	while ((cons = __atomic_load_n(&c->cons, __ATOMIC_ACQUIRE)) != prod &&
	       now_ms() < end)
		usleep(1000);
	printf("# %s: after the doorbell: prod %#x, cons %#x, kern_flag %#x\n",
	       name, ring_prod(&p.a.sq), cons,
	       __atomic_load_n(&c->kern_flag, __ATOMIC_RELAXED));
	if (!check(cons == prod, "%s: the kernel republished SQ cons (%#x)",
		   name, prod)) {
		printf("# %s: writing cons back so that libsroce can post\n",
		       name);
		__atomic_store_n(&c->cons, prod, __ATOMIC_RELEASE);
	}
	/* libsroce publishes prod from its own copy, over the lie. */
	err = send_recv(&p, 64, 0x6666);
	check(!err, "%s: a SEND posted after them completes, data intact%s%s",
	      name, err ? ": " : "", err ? err : "");
	s = qp_state(p.a.qp);
	check(s == IBV_QPS_RTS, "%s: QP a still in RTS (%s)", name,
	      state_name(s));
	pair_down(name, &p);
}

/* What a requester may see when its peer's receive WQE is garbage. */
static int remote_err(enum ibv_wc_status st)
{
	return st == IBV_WC_REM_OP_ERR || st == IBV_WC_REM_INV_REQ_ERR ||
	       st == IBV_WC_REM_ACCESS_ERR || st == IBV_WC_RETRY_EXC_ERR ||
	       st == IBV_WC_RNR_RETRY_EXC_ERR;
}

/* Case 7: four receive WQEs of random bytes on b; a sends into them. */
static void t_random_rq(const char *name)
{
	struct ibv_sge sg = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x7777, .sg_list = &sg,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int n = 0, ret, sb, berr = 0;
	struct ibv_wc wc;
	struct pair p;
	uint32_t prod, i;
	long long end;

	if (!pair_up(name, &p))
		return;
	srand(7);
	prod = ring_prod(&p.b.rq);
	for (i = 0; i < 4; i++)
		fill_random(ring_slot(&p.b.rq, prod + i), p.b.rq.slot);
	ring_publish(&p.b.rq, prod + 4);
	ret = ibv_post_send(p.a.qp, &wr, &bad);
	check(!ret, "%s: ibv_post_send of a 64 B SEND on a%s%s", name,
	      ret ? ": " : "", ret ? strerror(ret) : "");
	if (!ret && (n = poll_wc(p.a.scq, &wc, RANDOM_MS)) > 0)
		printf("# %s: a: completion wr_id %#llx, %s\n", name,
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
	else if (!ret)
		printf("# %s: a: no completion within %d ms\n", name, RANDOM_MS);
	check(n > 0 && wc.wr_id == 0x7777 && remote_err(wc.status),
	      "%s: a's SEND completes with a remote, retry or RNR error",
	      name);
	for (end = now_ms() + 2000; now_ms() < end;) {
		if (ibv_poll_cq(p.b.rcq, 1, &wc) <= 0) {
			if (berr)
				break;
			usleep(1000);
			continue;
		}
		berr += wc.status != IBV_WC_SUCCESS;
		printf("# %s: b: receive completion wr_id %#llx, %s\n", name,
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
	}
	sb = wait_state(p.b.qp, IBV_QPS_ERR, 1000);
	printf("# %s: QP a in %s, QP b in %s\n", name,
	       state_name(qp_state(p.a.qp)), state_name(sb));
	check(berr || sb == IBV_QPS_ERR,
	      "%s: b has an error receive completion or is in ERR", name);
	pair_down(name, &p);
}

/* Case 8: a normal SEND on fresh QPs: the device still works. */
static void t_works(const char *name)
{
	const char *err;
	struct pair p;

	if (!pair_up(name, &p))
		return;
	err = send_recv(&p, 4096, 0x8888);
	check(!err, "%s: SEND of 4096 B, data intact%s%s", name,
	      err ? ": " : "", err ? err : "");
	pair_down(name, &p);
}

static int setup(const char *name)
{
	ctx = open_dev(name);
	if (!check(ctx != NULL, "setup: open %s", name))
		return -1;
	if (!check(ibv_query_device(ctx, &dattr) == 0 &&
		   ibv_query_gid(ctx, 1, gidx, &gid) == 0 &&
		   (gid.global.subnet_prefix || gid.global.interface_id),
		   "setup: device and GID %d queried", gidx))
		return -1;
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, BUF_LEN);
	mr = pd && buf ? ibv_reg_mr(pd, buf, BUF_LEN,
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!check(mr != NULL, "setup: a PD and a %d B MR", BUF_LEN))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sroce_sge sg = { .length = 64, .lkey = 0xdeadbe00 };

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	gidx = atoi(argv[2]);
	if (setup(argv[1]))
		return tap_done();

	t_bad_send("bad-opcode", &(struct sroce_send_wqe){
		.wr_id = 0x1111, .opcode = 200,
		.send_flags = IBV_SEND_SIGNALED }, NULL, IBV_WC_LOC_QP_OP_ERR);
	t_bad_send("inline-too-long", &(struct sroce_send_wqe){
		.wr_id = 0x2222, .opcode = IBV_WR_SEND, .inline_len = 1u << 30,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED }, NULL,
		IBV_WC_LOC_LEN_ERR);
	t_bad_send("too-many-sges", &(struct sroce_send_wqe){
		.wr_id = 0x3333, .opcode = IBV_WR_SEND, .num_sge = 255,
		.send_flags = IBV_SEND_SIGNALED }, NULL, IBV_WC_LOC_QP_OP_ERR);
	/*
	 * A kernel-only opcode, whose WQE carries a kernel pointer (here a
	 * non-canonical one: a kernel that used it would fault, not corrupt).
	 */
	t_bad_send("kernel-opcode", &(struct sroce_send_wqe){
		.wr_id = 0x5555, .opcode = 0x20 /* IB_WR_REG_MR */,
		.rdma.remote_addr = 0xdead000000000000ull,
		.send_flags = IBV_SEND_SIGNALED }, NULL, IBV_WC_LOC_QP_OP_ERR);
	sg.addr = (uintptr_t)buf;
	printf("# bad-lkey: lkey %#x (the MR's is %#x)\n", sg.lkey, mr->lkey);
	t_bad_send("bad-lkey", &(struct sroce_send_wqe){
		.wr_id = 0x4444, .opcode = IBV_WR_SEND, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED }, &sg, IBV_WC_LOC_PROT_ERR);
	t_random_sq("random-sq");
	t_random_rq("random-rq");
	/* Last of the hostile cases: a requester that trusts prod may spin. */
	t_indices("hostile-indices");
	t_works("still-works");

	check(ibv_dereg_mr(mr) == 0 && ibv_dealloc_pd(pd) == 0 &&
	      ibv_close_device(ctx) == 0, "teardown: MR, PD, device released");
	free(buf);
	return tap_done();
}
