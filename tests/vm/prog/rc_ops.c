// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_ops [-k ID=REASON]... DEVICE GID_INDEX: RC conformance on one device.
 *
 * Two RC QPs on DEVICE, "a" (the requester) and "b" (the responder), are
 * connected to each other through the RoCE v2 GID at GID_INDEX (loopback:
 * both use the same GID), path MTU 1024. Every RC operation, the send
 * flags, message sizes around the MTU and the error paths are checked
 * against the IBTA spec, each as one TAP test named "ID: what". Every
 * destination buffer is patterned and surrounded by guard bytes, and the
 * whole of it (guards included) is compared with what it must hold.
 *
 * -k ID=REASON reports test ID as "# SKIP REASON" (it still runs, and a
 * diagnostic says whether it passed): for known deviations of a reference
 * device, never for sroce.
 *
 * Every wait has a deadline, so a broken device gives "not ok", not a hang.
 * Prints TAP; exits non-zero if anything failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define GUARD		256		/* guard bytes on each side */
#define OP_MS		10000		/* deadline for one completion */
#define OP_MS_DEAD	1000		/* ... once the device seems dead */
#define MAX_TIMEOUTS	3		/* timeouts before that */
#define QUIET_MS	20		/* how long "no more completions" waits */
#define CQ_DEPTH	256
#define QP_DEPTH	64
#define WANT_INLINE	256
/* a's send PSNs wrap past 0xffffff within the first multi-packet message. */
#define PSN_A		0xfffff0
#define PSN_B		0x000100
#define MAX_KNOWN	32
#define MAX_EVQ		16		/* async events kept for later */

struct opts {
	uint8_t timeout;	/* local ACK timeout, 4.096 us * 2^timeout */
	uint8_t retry_cnt;
	uint8_t rnr_retry;	/* 7: infinite */
	uint8_t min_rnr_timer;
};

static const struct opts defaults = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12,
};

struct ep {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
};

struct rc {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;	/* b's receive CQ reports here */
	struct ibv_device_attr dev;
	union ibv_gid gid;
	int gidx;
	int acc_atomic;			/* IBV_ACCESS_REMOTE_ATOMIC or 0 */
	int dirty;			/* reconnect before the next test */
	struct ep a, b;
	/* Async events read while waiting for another, not yet asked for. */
	struct { enum ibv_event_type type; void *obj; } evq[MAX_EVQ];
	int nevq;
};

struct buf {
	unsigned char *raw;		/* GUARD, len bytes, GUARD */
	unsigned char *exp;		/* what raw must hold */
	unsigned char *p;		/* raw + GUARD */
	size_t len, total;
	struct ibv_mr *mr;
};

static struct { const char *id, *why; } known[MAX_KNOWN];
static int nknown;
static const char *skip_why;		/* set by a test that cannot run */
static struct rc *cur_rc;
static char msg[512];
static uint32_t seed_n;
static int op_ms = OP_MS, ntimeouts;

/* ---- small helpers ---------------------------------------------------- */

static __attribute__((format(printf, 1, 2)))
const char *fail(const char *fmt, ...)
{
	char tmp[sizeof(msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	memcpy(msg, tmp, sizeof(msg));
	return msg;
}

static const char *known_why(const char *id)
{
	int i;

	for (i = 0; i < nknown; i++)
		if (!strcmp(known[i].id, id))
			return known[i].why;
	return NULL;
}

/* One TAP line for test @id; @err is NULL when it passed. */
static __attribute__((format(printf, 3, 4)))
void report(const char *id, const char *err, const char *fmt, ...)
{
	char name[256];
	const char *why;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (err && cur_rc)
		cur_rc->dirty = 1;
	if (skip_why) {
		ntest++;
		printf("ok %d - %s: %s # SKIP %s\n", ntest, id, name, skip_why);
		skip_why = NULL;
		return;
	}
	why = known_why(id);
	if (why) {
		ntest++;
		printf("ok %d - %s: %s # SKIP %s\n", ntest, id, name, why);
		if (err)
			printf("# %s still fails: %s\n", id, err);
		else
			printf("# %s passes now: the skip is stale\n", id);
		return;
	}
	check(!err, "%s: %s%s%s", id, name, err ? ": " : "", err ? err : "");
}

static uint32_t next_seed(void)
{
	return 0x9e3779b9u * ++seed_n;
}

static void pattern(unsigned char *p, size_t n, uint32_t seed)
{
	uint32_t x = seed ? seed : 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x >> 24;
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const char *opname(int op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_BIND_MW: return "BIND_MW";
	case IBV_WC_LOCAL_INV: return "LOCAL_INV";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

/* ---- buffers ------------------------------------------------------------ */

/* A patterned buffer of @len bytes between guards, registered with
 * @access over its whole extent (guards included) unless @access < 0. */
static int buf_new(struct rc *rc, struct buf *b, size_t len, int access)
{
	memset(b, 0, sizeof(*b));
	b->len = len;
	b->total = len + 2 * GUARD;
	b->raw = aligned_alloc(4096, (b->total + 4095) & ~(size_t)4095);
	b->exp = malloc(b->total);
	if (!b->raw || !b->exp)
		return -1;
	pattern(b->raw, b->total, next_seed());
	memcpy(b->exp, b->raw, b->total);
	b->p = b->raw + GUARD;
	if (access >= 0) {
		b->mr = ibv_reg_mr(rc->pd, b->raw, b->total, access);
		if (!b->mr)
			return -1;
	}
	return 0;
}

static void buf_free(struct buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->raw);
	free(b->exp);
	memset(b, 0, sizeof(*b));
}

/* From now on bytes [off, off + n) of the target range must hold @data. */
static void buf_expect(struct buf *b, size_t off, const void *data, size_t n)
{
	memcpy(b->exp + GUARD + off, data, n);
}

/* Whatever the device wrote to [off, off + n) is accepted. */
static void buf_accept(struct buf *b, size_t off, size_t n)
{
	memcpy(b->exp + GUARD + off, b->raw + GUARD + off, n);
}

static const char *buf_check(const struct buf *b, const char *what)
{
	size_t i, first = 0, bad = 0;
	long off;

	if (!memcmp(b->raw, b->exp, b->total))
		return NULL;
	for (i = 0; i < b->total; i++)
		if (b->raw[i] != b->exp[i] && !bad++)
			first = i;
	off = (long)first - GUARD;
	return fail("%s: %zu byte(s) differ, first at offset %ld%s (0x%02x, want 0x%02x)",
		    what, bad, off,
		    off < 0 || off >= (long)b->len ? ", in the guard" : "",
		    b->raw[first], b->exp[first]);
}

static void sge_of(struct ibv_sge *sg, const struct buf *b, size_t off,
		   size_t len)
{
	sg->addr = (uintptr_t)(b->p + off);
	sg->length = len;
	sg->lkey = b->mr->lkey;
}

/* ---- completions -------------------------------------------------------- */

/* 1 with a completion in @wc, 0 after @ms without one, < 0 on error. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	long long end = now_ms() + ms;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		if (now_ms() >= end)
			return 0;
		usleep(50);
	}
}

/* The next completion on @cq must be @wr_id with status @st and (for a
 * successful one, when @op >= 0) opcode @op. */
static const char *get_wc(struct ibv_cq *cq, const char *who,
			  struct ibv_wc *wc, uint64_t wr_id,
			  enum ibv_wc_status st, int op)
{
	int n = poll_one(cq, wc, op_ms);

	if (n < 0)
		return fail("%s: ibv_poll_cq returned %d", who, n);
	if (n == 0) {
		/* A device that completes nothing must not take 10 s a test. */
		if (++ntimeouts == MAX_TIMEOUTS) {
			printf("# %d completions timed out: waiting %d ms from now on\n",
			       ntimeouts, OP_MS_DEAD);
			op_ms = OP_MS_DEAD;
		}
		return fail("%s: no completion within %d ms", who,
			    ntimeouts > MAX_TIMEOUTS ? OP_MS_DEAD : OP_MS);
	}
	if (wc->status != st)
		return fail("%s: status %s, want %s (wr_id %#llx, vendor_err %#x)",
			    who, ibv_wc_status_str(wc->status),
			    ibv_wc_status_str(st),
			    (unsigned long long)wc->wr_id, wc->vendor_err);
	if (wc->wr_id != wr_id)
		return fail("%s: wr_id %#llx, want %#llx", who,
			    (unsigned long long)wc->wr_id,
			    (unsigned long long)wr_id);
	if (st == IBV_WC_SUCCESS && op >= 0 && (int)wc->opcode != op)
		return fail("%s: opcode %s (%d), want %s", who,
			    opname(wc->opcode), wc->opcode, opname(op));
	return NULL;
}

/* A receive completion's details: @flags is the expected set of
 * IBV_WC_WITH_IMM / IBV_WC_WITH_INV, @val the immediate (network order)
 * or the invalidated rkey. */
static const char *recv_check(const struct ibv_wc *wc, const struct ibv_qp *qp,
			      size_t len, unsigned int flags, uint32_t val)
{
	unsigned int got = wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV);

	if (wc->byte_len != len)
		return fail("responder: byte_len %u, want %zu", wc->byte_len,
			    len);
	if (wc->qp_num != qp->qp_num)
		return fail("responder: qp_num %#x, want %#x", wc->qp_num,
			    qp->qp_num);
	if (got != flags)
		return fail("responder: wc_flags %#x, want IMM/INV bits %#x",
			    wc->wc_flags, flags);
	if ((flags & IBV_WC_WITH_IMM) && wc->imm_data != val)
		return fail("responder: imm_data %#x, want %#x",
			    ntohl(wc->imm_data), ntohl(val));
	if ((flags & IBV_WC_WITH_INV) && wc->invalidated_rkey != val)
		return fail("responder: invalidated_rkey %#x, want %#x",
			    wc->invalidated_rkey, val);
	return NULL;
}

/* No completion may arrive on @cq within @ms. */
static const char *cq_quiet(struct ibv_cq *cq, const char *who, int ms)
{
	struct ibv_wc wc;
	int n = poll_one(cq, &wc, ms);

	if (n < 0)
		return fail("%s: ibv_poll_cq returned %d", who, n);
	if (n > 0)
		return fail("%s: unexpected completion: wr_id %#llx, %s, opcode %s",
			    who, (unsigned long long)wc.wr_id,
			    ibv_wc_status_str(wc.status), opname(wc.opcode));
	return NULL;
}

static const char *quiet(struct rc *rc, int ms)
{
	const char *err;

	if ((err = cq_quiet(rc->a.scq, "requester send CQ", ms)) ||
	    (err = cq_quiet(rc->a.rcq, "requester recv CQ", 0)) ||
	    (err = cq_quiet(rc->b.scq, "responder send CQ", 0)) ||
	    (err = cq_quiet(rc->b.rcq, "responder recv CQ", 0)))
		return err;
	return NULL;
}

/*
 * The async event @type for @obj (a QP or a CQ) within @ms. Every event
 * read is acknowledged at once (a QP or CQ with an event read and not
 * acknowledged cannot be destroyed); one that is not the one asked for is
 * kept for a later call, so the order the device raises them in is free.
 */
static const char *get_event(struct rc *rc, enum ibv_event_type type,
			     const void *obj, const char *who, int ms)
{
	struct pollfd pfd = { .fd = rc->ctx->async_fd, .events = POLLIN };
	long long end = now_ms() + ms, left;
	struct ibv_async_event ev;
	char seen[256] = "";
	size_t n = 0;
	int i;

	for (;;) {
		for (i = 0; i < rc->nevq; i++) {
			if (rc->evq[i].type == type && rc->evq[i].obj == obj) {
				rc->evq[i] = rc->evq[--rc->nevq];
				return NULL;
			}
		}
		left = end - now_ms();
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		if (ibv_get_async_event(rc->ctx, &ev))
			return fail("ibv_get_async_event: %s", strerror(errno));
		ibv_ack_async_event(&ev);
		if (rc->nevq == MAX_EVQ)
			return fail("%d async events unasked for", MAX_EVQ);
		rc->evq[rc->nevq].type = ev.event_type;
		/* element is a union: qp and cq share the pointer. */
		rc->evq[rc->nevq++].obj = ev.element.qp;
	}
	for (i = 0; i < rc->nevq && n < sizeof(seen); i++)
		n += snprintf(seen + n, sizeof(seen) - n, "%s%s",
			      i ? ", " : "; other events: ",
			      ibv_event_type_str(rc->evq[i].type));
	return fail("%s: no %s within %d ms%s", who, ibv_event_type_str(type),
		    ms, seen);
}

/* Completion events already queued on the channel, acknowledged. */
static int drain_events(struct rc *rc, int ms)
{
	struct pollfd pfd = { .fd = rc->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;
	int n = 0;

	while (poll(&pfd, 1, ms) == 1) {
		if (ibv_get_cq_event(rc->ch, &cq, &cq_ctx))
			break;
		ibv_ack_cq_events(cq, 1);
		n++;
		ms = 0;
	}
	return n;
}

/* ---- queue pairs -------------------------------------------------------- */

static struct ibv_qp *qp_new(struct rc *rc, struct ibv_cq *scq,
			     struct ibv_cq *rcq, const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.cap = *cap;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0;
	return ibv_create_qp(rc->pd, &ia);
}

static void default_cap(struct rc *rc, struct ibv_qp_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = QP_DEPTH;
	cap->max_recv_wr = QP_DEPTH;
	cap->max_send_sge = rc->dev.max_sge < 4 ? rc->dev.max_sge : 4;
	cap->max_recv_sge = cap->max_send_sge;
	cap->max_inline_data = WANT_INLINE;
}

static int ep_new(struct rc *rc, struct ep *e, int on_channel, int scq_depth)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	unsigned int want[] = { WANT_INLINE, 64, 0 };
	unsigned int i;

	memset(e, 0, sizeof(*e));
	e->scq = ibv_create_cq(rc->ctx, scq_depth, NULL, NULL, 0);
	e->rcq = ibv_create_cq(rc->ctx, CQ_DEPTH, NULL,
			       on_channel ? rc->ch : NULL, 0);
	if (!e->scq || !e->rcq)
		return -1;
	for (i = 0; i < sizeof(want) / sizeof(want[0]) && !e->qp; i++) {
		default_cap(rc, &e->cap);
		e->cap.max_inline_data = want[i];
		e->qp = qp_new(rc, e->scq, e->rcq, &e->cap);
	}
	if (!e->qp)
		return -1;
	/* What the QP really got. */
	if (ibv_query_qp(e->qp, &qa, IBV_QP_CAP, &ia) == 0)
		e->cap = ia.cap;
	return 0;
}

static void ep_free(struct ep *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	memset(e, 0, sizeof(*e));
}

/* ibv_modify_qp returns an errno value; older libraries -1 and errno. */
static int merr(int ret)
{
	return ret < 0 ? errno : ret;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia))
		return -1;
	return qa.qp_state;
}

static const char *state_name(int s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s >= 0 && s < 7 ? names[s] : "?";
}

static const char *state_is(struct ibv_qp *qp, int want, const char *who)
{
	int s = qp_state(qp);

	if (s != want)
		return fail("%s QP is in %s (%d), want %s", who, state_name(s),
			    s, state_name(want));
	return NULL;
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr qa = { .qp_state = s };

	return merr(ibv_modify_qp(qp, &qa, IBV_QP_STATE));
}

static int to_init(struct rc *rc, struct ibv_qp *qp)
{
	struct ibv_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = 1;
	qa.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | rc->acc_atomic;
	return merr(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
}

#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)

static void rtr_attr(struct rc *rc, struct ibv_qp_attr *qa, uint32_t dqpn,
		     uint32_t rq_psn, const struct opts *o)
{
	memset(qa, 0, sizeof(*qa));
	qa->qp_state = IBV_QPS_RTR;
	qa->path_mtu = IBV_MTU_1024;
	qa->dest_qp_num = dqpn;
	qa->rq_psn = rq_psn;
	qa->max_dest_rd_atomic = rc->dev.max_qp_rd_atom < 16 ?
				 rc->dev.max_qp_rd_atom : 16;
	qa->min_rnr_timer = o->min_rnr_timer;
	qa->ah_attr.is_global = 1;
	qa->ah_attr.grh.dgid = rc->gid;
	qa->ah_attr.grh.sgid_index = rc->gidx;
	qa->ah_attr.grh.hop_limit = 64;
	qa->ah_attr.port_num = 1;
}

static int to_rtr(struct rc *rc, struct ibv_qp *qp, uint32_t dqpn,
		  uint32_t rq_psn, const struct opts *o)
{
	struct ibv_qp_attr qa;

	rtr_attr(rc, &qa, dqpn, rq_psn, o);
	return merr(ibv_modify_qp(qp, &qa, RTR_MASK));
}

static void rts_attr(struct rc *rc, struct ibv_qp_attr *qa, uint32_t sq_psn,
		     const struct opts *o)
{
	memset(qa, 0, sizeof(*qa));
	qa->qp_state = IBV_QPS_RTS;
	qa->timeout = o->timeout;
	qa->retry_cnt = o->retry_cnt;
	qa->rnr_retry = o->rnr_retry;
	qa->sq_psn = sq_psn;
	qa->max_rd_atomic = rc->dev.max_qp_init_rd_atom < 16 ?
			    rc->dev.max_qp_init_rd_atom : 16;
}

static int to_rts(struct rc *rc, struct ibv_qp *qp, uint32_t sq_psn,
		  const struct opts *o)
{
	struct ibv_qp_attr qa;

	rts_attr(rc, &qa, sq_psn, o);
	return merr(ibv_modify_qp(qp, &qa, RTS_MASK));
}

static void pair_down(struct rc *rc)
{
	if (rc->ch)
		drain_events(rc, 0);
	ep_free(&rc->a);
	ep_free(&rc->b);
	/* Their events went with them. */
	rc->nevq = 0;
}

/* Fresh QPs a and b, both in RTR: @oa applies to a, @ob to b; a's send
 * CQ is created with @a_scq entries. */
static const char *pair_rtr(struct rc *rc, const struct opts *oa,
			    const struct opts *ob, int a_scq)
{
	int ret;

	pair_down(rc);
	rc->dirty = 1;
	if (ep_new(rc, &rc->a, 0, a_scq) || ep_new(rc, &rc->b, 1, CQ_DEPTH))
		return fail("create CQs and QPs: %s", strerror(errno));
	if ((ret = to_init(rc, rc->a.qp)) || (ret = to_init(rc, rc->b.qp)))
		return fail("RESET->INIT: %s", strerror(ret));
	if ((ret = to_rtr(rc, rc->a.qp, rc->b.qp->qp_num, PSN_B, oa)) ||
	    (ret = to_rtr(rc, rc->b.qp, rc->a.qp->qp_num, PSN_A, ob)))
		return fail("INIT->RTR: %s", strerror(ret));
	return NULL;
}

/* Fresh QPs a and b, connected: @oa applies to a, @ob to b. */
static const char *pair_up(struct rc *rc, const struct opts *oa,
			   const struct opts *ob)
{
	const char *err;
	int ret;

	if ((err = pair_rtr(rc, oa, ob, CQ_DEPTH)))
		return err;
	if ((ret = to_rts(rc, rc->a.qp, PSN_A, oa)) ||
	    (ret = to_rts(rc, rc->b.qp, PSN_B, ob)))
		return fail("RTR->RTS: %s", strerror(ret));
	rc->dirty = 0;
	return NULL;
}

/* A connected pair with default options and empty CQs. */
static const char *ready(struct rc *rc)
{
	const char *err;

	if (!rc->dirty && rc->a.qp && rc->b.qp &&
	    qp_state(rc->a.qp) == IBV_QPS_RTS &&
	    qp_state(rc->b.qp) == IBV_QPS_RTS) {
		if ((err = quiet(rc, 0)))
			return fail("stale: %s", err);
		return NULL;
	}
	return pair_up(rc, &defaults, &defaults);
}

static int post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, wr, &bad);
}

static int post_recv(struct ibv_qp *qp, uint64_t id, struct ibv_sge *sg,
		     int n)
{
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = sg, .num_sge = n };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static void wr_init(struct ibv_send_wr *wr, uint64_t id,
		    enum ibv_wr_opcode op, struct ibv_sge *sg, int n,
		    unsigned int flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = id;
	wr->opcode = op;
	wr->sg_list = sg;
	wr->num_sge = n;
	wr->send_flags = flags;
}

#define ACC_LOCAL	IBV_ACCESS_LOCAL_WRITE
#define ACC_REMOTE	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

/* ---- data path ----------------------------------------------------------- */

/* SEND or SEND_WITH_IMM of @len bytes into a receive of the same size (16
 * bytes for a zero-length send, which must leave them alone). */
static const char *t_send(struct rc *rc, size_t len, int imm)
{
	uint32_t immv = htonl(0xc0de0000u | (len & 0xffff));
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len ? len : 16, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, d.len);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, &ss,
		len ? 1 : 0, IBV_SEND_SIGNALED);
	wr.imm_data = immv;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)) ||
	    (err = recv_check(&wc, rc->b.qp, len, imm ? IBV_WC_WITH_IMM : 0,
			      immv)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "receive buffer")) ||
	    (err = buf_check(&s, "send buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* RDMA WRITE (with immediate: consumes a receive whose buffer stays
 * untouched) of @len bytes. */
static const char *t_write(struct rc *rc, size_t len, int imm)
{
	uint32_t immv = htonl(0xfeed0000u | (len & 0xffff));
	struct buf s, d, r;
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len ? len : 16, ACC_REMOTE) ||
	    buf_new(rc, &r, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (imm) {
		sge_of(&rs, &r, 0, r.len);
		if ((ret = post_recv(rc->b.qp, 0x100, &rs, 1))) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
	}
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		&ss, len ? 1 : 0, IBV_SEND_SIGNALED);
	wr.imm_data = immv;
	wr.wr.rdma.remote_addr = (uintptr_t)d.p;
	wr.wr.rdma.rkey = d.mr->rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE)))
		goto out;
	if (imm &&
	    ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			   IBV_WC_RECV_RDMA_WITH_IMM)) ||
	     (err = recv_check(&wc, rc->b.qp, len, IBV_WC_WITH_IMM, immv))))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "target buffer")) ||
	    (err = buf_check(&r, "receive buffer")) ||
	    (err = buf_check(&s, "source buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	buf_free(&r);
	return err;
}

static const char *t_read(struct rc *rc, size_t len)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, len, ACC_REMOTE) || buf_new(rc, &d, len, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_READ, &ds, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)s.p;
	wr.wr.rdma.rkey = s.mr->rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_READ)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "local buffer")) ||
	    (err = buf_check(&s, "remote buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* One atomic on a 64-bit word holding @init: the original value comes
 * back and the word ends as @final. */
static const char *t_atomic(struct rc *rc, enum ibv_wr_opcode op,
			    uint64_t init, uint64_t cmp_add, uint64_t swap,
			    uint64_t final)
{
	struct buf t, res;
	struct ibv_send_wr wr;
	struct ibv_sge rs;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&t, 0, sizeof(t));
	memset(&res, 0, sizeof(res));
	if (rc->dev.atomic_cap == IBV_ATOMIC_NONE) {
		skip_why = "atomic_cap is IBV_ATOMIC_NONE";
		return NULL;
	}
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &t, 8, ACC_REMOTE | IBV_ACCESS_REMOTE_ATOMIC) ||
	    buf_new(rc, &res, 8, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	memcpy(t.p, &init, 8);
	buf_expect(&t, 0, &init, 8);
	sge_of(&rs, &res, 0, 8);
	wr_init(&wr, 0x200, op, &rs, 1, IBV_SEND_SIGNALED);
	wr.wr.atomic.remote_addr = (uintptr_t)t.p;
	wr.wr.atomic.rkey = t.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
			  IBV_WC_FETCH_ADD)))
		goto out;
	buf_expect(&res, 0, &init, 8);
	buf_expect(&t, 0, &final, 8);
	if ((err = buf_check(&res, "returned original value")) ||
	    (err = buf_check(&t, "target word")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&t);
	buf_free(&res);
	return err;
}

/* IBV_SEND_INLINE SEND or RDMA WRITE of @len bytes from unregistered
 * memory that is overwritten as soon as ibv_post_send returns. */
static const char *t_inline(struct rc *rc, size_t len, int write)
{
	unsigned char *src = NULL, *orig = NULL;
	struct buf d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (len > rc->a.cap.max_inline_data || !len) {
		skip_why = "the QP has no inline data";
		return NULL;
	}
	src = malloc(len);
	orig = malloc(len);
	if (!src || !orig ||
	    buf_new(rc, &d, len, write ? ACC_REMOTE : ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	pattern(src, len, next_seed());
	memcpy(orig, src, len);
	if (!write) {
		sge_of(&ds, &d, 0, len);
		if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
	}
	ss.addr = (uintptr_t)src;
	ss.length = len;
	ss.lkey = 0;
	wr_init(&wr, 0x200, write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND, &ss, 1,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	wr.wr.rdma.remote_addr = (uintptr_t)d.p;
	wr.wr.rdma.rkey = d.mr->rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	memset(src, 0x5a, len);
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND)))
		goto out;
	if (!write &&
	    ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			   IBV_WC_RECV)) ||
	     (err = recv_check(&wc, rc->b.qp, len, 0, 0))))
		goto out;
	buf_expect(&d, 0, orig, len);
	if ((err = buf_check(&d, "destination")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	free(src);
	free(orig);
	buf_free(&d);
	return err;
}

static const size_t gather_len[] = { 7, 1001, 333 };	/* 1341 */
static const size_t scatter_len[] = { 5, 600, 1, 900 };	/* 1506 */
static const size_t read_len[] = { 500, 1, 840 };	/* 1341 */
#define NGATHER		3
#define NSCATTER	4
#define NREAD		3
#define GATHER_TOTAL	1341

/* @kind 0: SEND from 3 SGEs into a receive of 4 SGEs; 1: RDMA WRITE
 * gathered from 3 SGEs; 2: RDMA READ scattered into 3 SGEs. */
static const char *t_sge(struct rc *rc, int kind)
{
	struct buf s[NGATHER], r[NSCATTER], d;
	struct ibv_sge ss[NSCATTER], rs[NSCATTER];
	unsigned char *all = NULL;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	const char *err;
	size_t off, n;
	int i, ret;

	memset(s, 0, sizeof(s));
	memset(r, 0, sizeof(r));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (rc->a.cap.max_send_sge < 3 || rc->b.cap.max_recv_sge < 4) {
		skip_why = "the QPs have fewer than 3 send / 4 receive SGEs";
		return NULL;
	}
	all = malloc(GATHER_TOTAL);
	if (!all) {
		err = fail("malloc");
		goto out;
	}
	if (kind == 2) {
		/* Remote source d, local scatter list r[0..2]. */
		if (buf_new(rc, &d, GATHER_TOTAL, ACC_REMOTE)) {
			err = fail("buffers: %s", strerror(errno));
			goto out;
		}
		for (i = 0; i < NREAD; i++) {
			if (buf_new(rc, &r[i], read_len[i], ACC_LOCAL)) {
				err = fail("buffers: %s", strerror(errno));
				goto out;
			}
			sge_of(&rs[i], &r[i], 0, read_len[i]);
		}
		wr_init(&wr, 0x200, IBV_WR_RDMA_READ, rs, NREAD,
			IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)d.p;
		wr.wr.rdma.rkey = d.mr->rkey;
		if ((ret = post(rc->a.qp, &wr))) {
			err = fail("ibv_post_send: %s", strerror(ret));
			goto out;
		}
		if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200,
				  IBV_WC_SUCCESS, IBV_WC_RDMA_READ)))
			goto out;
		for (i = 0, off = 0; i < NREAD; off += read_len[i++]) {
			buf_expect(&r[i], 0, d.p + off, read_len[i]);
			if ((err = buf_check(&r[i], "a scatter buffer")))
				goto out;
		}
		err = quiet(rc, QUIET_MS);
		goto out;
	}
	for (i = 0, off = 0; i < NGATHER; off += gather_len[i++]) {
		if (buf_new(rc, &s[i], gather_len[i], ACC_LOCAL)) {
			err = fail("buffers: %s", strerror(errno));
			goto out;
		}
		sge_of(&ss[i], &s[i], 0, gather_len[i]);
		memcpy(all + off, s[i].p, gather_len[i]);
	}
	if (kind == 0) {
		for (i = 0; i < NSCATTER; i++) {
			if (buf_new(rc, &r[i], scatter_len[i], ACC_LOCAL)) {
				err = fail("buffers: %s", strerror(errno));
				goto out;
			}
			sge_of(&rs[i], &r[i], 0, scatter_len[i]);
		}
		ret = ibv_post_recv(rc->b.qp, &(struct ibv_recv_wr){
			.wr_id = 0x100, .sg_list = rs, .num_sge = NSCATTER },
			&(struct ibv_recv_wr *){ NULL });
		if (ret) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
		wr_init(&wr, 0x200, IBV_WR_SEND, ss, NGATHER, IBV_SEND_SIGNALED);
	} else {
		if (buf_new(rc, &d, GATHER_TOTAL, ACC_REMOTE)) {
			err = fail("buffers: %s", strerror(errno));
			goto out;
		}
		wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, ss, NGATHER,
			IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)d.p;
		wr.wr.rdma.rkey = d.mr->rkey;
	}
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  kind ? IBV_WC_RDMA_WRITE : IBV_WC_SEND)))
		goto out;
	if (kind == 1) {
		buf_expect(&d, 0, all, GATHER_TOTAL);
		if ((err = buf_check(&d, "target buffer")))
			goto out;
	} else {
		if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
				  IBV_WC_SUCCESS, IBV_WC_RECV)) ||
		    (err = recv_check(&wc, rc->b.qp, GATHER_TOTAL, 0, 0)))
			goto out;
		for (i = 0, off = 0; i < NSCATTER; off += n, i++) {
			n = GATHER_TOTAL - off;
			if (n > scatter_len[i])
				n = scatter_len[i];
			buf_expect(&r[i], 0, all + off, n);
			if ((err = buf_check(&r[i], "a scatter buffer")))
				goto out;
		}
	}
	err = quiet(rc, QUIET_MS);
out:
	for (i = 0; i < NGATHER; i++)
		buf_free(&s[i]);
	for (i = 0; i < NSCATTER; i++)
		buf_free(&r[i]);
	buf_free(&d);
	free(all);
	return err;
}

/* @n unsignaled SENDs and a signaled one: n + 1 receives complete, the
 * requester sees exactly one completion. */
static const char *t_unsignaled(struct rc *rc, int n)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int i, ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &s, 100 * (n + 1), ACC_LOCAL) ||
	    buf_new(rc, &d, 100 * (n + 1), ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i <= n; i++) {
		sge_of(&ds, &d, 100 * i, 100);
		if ((ret = post_recv(rc->b.qp, 0x100 + i, &ds, 1))) {
			err = fail("ibv_post_recv: %s", strerror(ret));
			goto out;
		}
	}
	for (i = 0; i <= n; i++) {
		sge_of(&ss, &s, 100 * i, 100);
		wr_init(&wr, 0x200 + i, IBV_WR_SEND, &ss, 1,
			i == n ? IBV_SEND_SIGNALED : 0);
		if ((ret = post(rc->a.qp, &wr))) {
			err = fail("ibv_post_send %d: %s", i, strerror(ret));
			goto out;
		}
	}
	for (i = 0; i <= n; i++)
		if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100 + i,
				  IBV_WC_SUCCESS, IBV_WC_RECV)) ||
		    (err = recv_check(&wc, rc->b.qp, 100, 0, 0)))
			goto out;
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200 + n,
			  IBV_WC_SUCCESS, IBV_WC_SEND)))
		goto out;
	buf_expect(&d, 0, s.p, s.len);
	if ((err = buf_check(&d, "receive buffers")))
		goto out;
	err = quiet(rc, 200);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* RDMA READ into L, then a fenced SEND from L: the send must carry the
 * data the read brought. */
static const char *t_fence(struct rc *rc)
{
	const size_t len = 8192;
	struct buf r, l, d;
	struct ibv_send_wr rd, sd;
	struct ibv_sge ls, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&r, 0, sizeof(r));
	memset(&l, 0, sizeof(l));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	if (buf_new(rc, &r, len, ACC_REMOTE) || buf_new(rc, &l, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, len);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ls, &l, 0, len);
	wr_init(&rd, 0x200, IBV_WR_RDMA_READ, &ls, 1, IBV_SEND_SIGNALED);
	rd.wr.rdma.remote_addr = (uintptr_t)r.p;
	rd.wr.rdma.rkey = r.mr->rkey;
	wr_init(&sd, 0x201, IBV_WR_SEND, &ls, 1,
		IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	rd.next = &sd;
	if ((ret = post(rc->a.qp, &rd))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester (read)", &wc, 0x200,
			  IBV_WC_SUCCESS, IBV_WC_RDMA_READ)) ||
	    (err = get_wc(rc->a.scq, "requester (send)", &wc, 0x201,
			  IBV_WC_SUCCESS, IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)) ||
	    (err = recv_check(&wc, rc->b.qp, len, 0, 0)))
		goto out;
	buf_expect(&l, 0, r.p, len);
	buf_expect(&d, 0, r.p, len);
	if ((err = buf_check(&l, "read buffer")) ||
	    (err = buf_check(&d, "the fenced send's data")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&r);
	buf_free(&l);
	buf_free(&d);
	return err;
}

/* b's receive CQ armed for solicited completions only: @solicited 0
 * sends a plain SEND (no event may come), 1 a SOLICITED one (the event
 * must come). */
static const char *t_solicited(struct rc *rc, int solicited)
{
	struct pollfd pfd = { .events = POLLIN };
	struct ibv_cq *cq;
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	void *cq_ctx;
	int ret, n;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = ready(rc)))
		return err;
	drain_events(rc, 0);
	if (buf_new(rc, &s, 64, ACC_LOCAL) || buf_new(rc, &d, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if ((ret = ibv_req_notify_cq(rc->b.rcq, 1))) {
		err = fail("ibv_req_notify_cq(solicited): %s", strerror(ret));
		goto out;
	}
	sge_of(&ds, &d, 0, 64);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1,
		IBV_SEND_SIGNALED | (solicited ? IBV_SEND_SOLICITED : 0));
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_SEND)))
		goto out;
	pfd.fd = rc->ch->fd;
	if (!solicited) {
		/* The receive completes, but raises no event. */
		if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
				  IBV_WC_SUCCESS, IBV_WC_RECV)))
			goto out;
		n = drain_events(rc, 300);
		if (n)
			err = fail("%d completion event(s) for an unsolicited receive",
				   n);
		goto out;
	}
	ret = poll(&pfd, 1, op_ms);
	if (ret != 1) {
		err = fail("no completion event within %d ms", op_ms);
		goto out;
	}
	if (ibv_get_cq_event(rc->ch, &cq, &cq_ctx)) {
		err = fail("ibv_get_cq_event: %s", strerror(errno));
		goto out;
	}
	ibv_ack_cq_events(cq, 1);
	if (cq != rc->b.rcq) {
		err = fail("the event names another CQ");
		goto out;
	}
	if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	buf_expect(&d, 0, s.p, 64);
	if ((err = buf_check(&d, "receive buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* Memory window type 2 on b, SEND_WITH_INV from a: four tests. */
static void t_mw(struct rc *rc)
{
	static const char *const ids[] = {
		"mw-bind", "mw-write", "send-inv", "mw-invalidated",
	};
	static const char *const names[] = {
		"bind a type 2 memory window with a BIND_MW work request",
		"RDMA WRITE through the window",
		"SEND_WITH_INV: IBV_WC_WITH_INV and the invalidated rkey",
		"RDMA WRITE through the invalidated window: REM_ACCESS_ERR",
	};
	const size_t len = 2000;
	struct buf s, d, r;
	struct ibv_mw *mw = NULL;
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	struct ibv_wc wc;
	const char *err = NULL;
	uint32_t rkey = 0;
	int step = 0, ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	printf("# device_cap_flags %#x: MEM_MGT_EXTENSIONS %d, MW %d, MW 2A %d, MW 2B %d\n",
	       rc->dev.device_cap_flags,
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS),
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW),
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2A),
	       !!(rc->dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B));
	if ((err = ready(rc)))
		goto out;
	errno = 0;
	mw = ibv_alloc_mw(rc->pd, IBV_MW_TYPE_2);
	if (!mw) {
		if (errno == EOPNOTSUPP || errno == ENOSYS ||
		    !(rc->dev.device_cap_flags &
		      (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
		       IBV_DEVICE_MEM_WINDOW_TYPE_2B))) {
			for (step = 0; step < 4; step++) {
				skip_why = "no type 2 memory windows (ibv_alloc_mw fails), so no SEND_WITH_INV";
				report(ids[step], NULL, "%s", names[step]);
			}
			return;
		}
		err = fail("ibv_alloc_mw(type 2): %s", strerror(errno));
		goto out;
	}
	if (buf_new(rc, &s, len, ACC_LOCAL) ||
	    buf_new(rc, &d, len, ACC_REMOTE | IBV_ACCESS_MW_BIND) ||
	    buf_new(rc, &r, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}

	/* Step 0: bind the window over d's target range, on b's QP. */
	rkey = ibv_inc_rkey(mw->rkey);
	wr_init(&wr, 0x300, IBV_WR_BIND_MW, NULL, 0, IBV_SEND_SIGNALED);
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = d.mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)d.p;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if ((ret = post(rc->b.qp, &wr))) {
		err = fail("ibv_post_send(BIND_MW): %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->b.scq, "binder", &wc, 0x300, IBV_WC_SUCCESS,
			  IBV_WC_BIND_MW)) ||
	    (err = quiet(rc, QUIET_MS)))
		goto out;
	report(ids[step], NULL, "%s", names[step]);
	step++;

	/* Step 1: write through it. */
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, &ss, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)d.p;
	wr.wr.rdma.rkey = rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	if ((err = buf_check(&d, "target buffer")) ||
	    (err = quiet(rc, QUIET_MS)))
		goto out;
	report(ids[step], NULL, "%s", names[step]);
	step++;

	/* Step 2: SEND_WITH_INV of the window's rkey. */
	sge_of(&rs, &r, 0, 64);
	if ((ret = post_recv(rc->b.qp, 0x100, &rs, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x201, IBV_WR_SEND_WITH_INV, &ss, 1, IBV_SEND_SIGNALED);
	wr.invalidate_rkey = rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x201, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	/* The send went through: whatever its details, try the rkey next. */
	buf_expect(&r, 0, s.p, 64);
	if (!(err = recv_check(&wc, rc->b.qp, 64, IBV_WC_WITH_INV, rkey)) &&
	    !(err = buf_check(&r, "receive buffer")))
		err = quiet(rc, QUIET_MS);
	report(ids[step], err, "%s", names[step]);
	err = NULL;
	step++;

	/* Step 3: the rkey is dead. */
	pattern(s.p, len, next_seed());
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x202, IBV_WR_RDMA_WRITE, &ss, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)d.p;
	wr.wr.rdma.rkey = rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x202,
			  IBV_WC_REM_ACCESS_ERR, -1)) ||
	    (err = buf_check(&d, "target buffer")) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
	rc->dirty = 1;
	report(ids[step], NULL, "%s", names[step]);
	step++;
out:
	rc->dirty = 1;
	for (; step < 4; step++) {
		report(ids[step], err ? err : "not reached", "%s", names[step]);
		err = "an earlier step failed";
	}
	/* The QPs may still reference the window: drop them first. */
	pair_down(rc);
	if (mw)
		ibv_dealloc_mw(mw);
	buf_free(&s);
	buf_free(&d);
	buf_free(&r);
}

/* ---- error paths -------------------------------------------------------- */

/* @kind 0: RDMA WRITE with an rkey that names no MR; 1: RDMA READ past
 * the end of the MR; 2: RDMA WRITE to an MR without REMOTE_WRITE; 3: an
 * atomic on an address that is not 8-byte aligned. With @event, b must
 * also raise QP_ACCESS_ERR (0-2) or QP_REQ_ERR (3) and be in ERR (IBTA
 * 11.6.3: no receive reports the error to b's consumer). */
static const char *t_err_access(struct rc *rc, int kind, int event)
{
	static const int want[] = {
		IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR,
		IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR,
	};
	const size_t len = 4096;
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	struct ibv_wc wc;
	const char *err;
	int ret, acc;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if (kind == 3 && rc->dev.atomic_cap == IBV_ATOMIC_NONE) {
		skip_why = "atomic_cap is IBV_ATOMIC_NONE";
		return NULL;
	}
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	acc = kind == 2 ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ :
			  ACC_REMOTE | rc->acc_atomic;
	if (buf_new(rc, &s, len, ACC_LOCAL) || buf_new(rc, &d, len, acc)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, kind == 1 ? 64 : kind == 3 ? 8 : 256);
	switch (kind) {
	case 0:
	case 2:
		wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, &ss, 1,
			IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)d.p;
		wr.wr.rdma.rkey = kind ? d.mr->rkey : ~d.mr->rkey;
		break;
	case 1:
		/* The last 32 bytes of the MR and 32 beyond it. */
		wr_init(&wr, 0x200, IBV_WR_RDMA_READ, &ss, 1,
			IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)d.mr->addr +
					 d.mr->length - 32;
		wr.wr.rdma.rkey = d.mr->rkey;
		break;
	default:
		wr_init(&wr, 0x200, IBV_WR_ATOMIC_FETCH_AND_ADD, &ss, 1,
			IBV_SEND_SIGNALED);
		wr.wr.atomic.remote_addr = (uintptr_t)d.p + 4;
		wr.wr.atomic.rkey = d.mr->rkey;
		wr.wr.atomic.compare_add = 1;
		break;
	}
	ret = post(rc->a.qp, &wr);
	if (kind == 3 && ret == EINVAL && event) {
		skip_why = "ibv_post_send refuses the unaligned atomic";
		goto out;
	}
	if (kind == 3 && ret == EINVAL) {
		/* Refused at post time (an immediate error) is fine too:
		 * nothing may happen and the QP stays usable. */
		printf("# err-atomic-align: refused by ibv_post_send (EINVAL)\n");
		if (!(err = buf_check(&d, "target buffer")) &&
		    !(err = cq_quiet(rc->a.scq, "requester send CQ", QUIET_MS)))
			err = state_is(rc->a.qp, IBV_QPS_RTS, "requester");
		goto out;
	}
	if (ret) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, want[kind], -1)) ||
	    (err = buf_check(&d, "target buffer")) ||
	    (err = buf_check(&s, "local buffer")) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
	if ((err = cq_quiet(rc->b.rcq, "responder recv CQ", QUIET_MS)) ||
	    !event)
		goto out;
	/* No receive tells b's consumer why: an affiliated event must. */
	if ((err = get_event(rc, want[kind] == IBV_WC_REM_ACCESS_ERR ?
			     IBV_EVENT_QP_ACCESS_ERR : IBV_EVENT_QP_REQ_ERR,
			     rc->b.qp, "responder", op_ms)))
		goto out;
	err = state_is(rc->b.qp, IBV_QPS_ERR, "responder");
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* A 200-byte SEND into a 100-byte receive. */
static const char *t_err_len(struct rc *rc)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	if (buf_new(rc, &s, 200, ACC_LOCAL) || buf_new(rc, &d, 100, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, 100);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 200);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	/* Both sides complete; report both when either is wrong. */
	err = get_wc(rc->a.scq, "requester", &wc, 0x200,
		     IBV_WC_REM_INV_REQ_ERR, -1);
	if (err) {
		char first[256];

		snprintf(first, sizeof(first), "%s", err);
		err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
			     IBV_WC_LOC_LEN_ERR, -1);
		err = fail("%s; %s", first, err ? err : "responder: LOC_LEN_ERR");
		goto out;
	}
	if ((err = get_wc(rc->b.rcq, "responder", &wc, 0x100,
			  IBV_WC_LOC_LEN_ERR, -1)))
		goto out;
	/* The receive buffer's content is undefined, but not its guards. */
	buf_accept(&d, 0, 100);
	if ((err = buf_check(&d, "receive buffer")) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

/* b moved to ERR: @kind 0: its 3 outstanding receives flush; 1: a receive
 * posted in ERR flushes; 2: a send posted in ERR flushes. */
static const char *t_err_flush(struct rc *rc, int kind)
{
	struct buf d;
	struct ibv_send_wr wr;
	struct ibv_sge ds;
	struct ibv_wc wc;
	const char *err;
	int i, ret;

	memset(&d, 0, sizeof(d));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	if (buf_new(rc, &d, 300, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (kind == 0) {
		for (i = 0; i < 3; i++) {
			sge_of(&ds, &d, 100 * i, 100);
			if ((ret = post_recv(rc->b.qp, 0x100 + i, &ds, 1))) {
				err = fail("ibv_post_recv: %s", strerror(ret));
				goto out;
			}
		}
	}
	if ((ret = to_state(rc->b.qp, IBV_QPS_ERR))) {
		err = fail("modify to ERR: %s", strerror(ret));
		goto out;
	}
	if ((err = state_is(rc->b.qp, IBV_QPS_ERR, "the flushed")))
		goto out;
	sge_of(&ds, &d, 0, 100);
	if (kind == 1 && (ret = post_recv(rc->b.qp, 0x100, &ds, 1))) {
		err = fail("ibv_post_recv in ERR: %s", strerror(ret));
		goto out;
	}
	if (kind == 2) {
		wr_init(&wr, 0x200, IBV_WR_SEND, &ds, 1, IBV_SEND_SIGNALED);
		if ((ret = post(rc->b.qp, &wr))) {
			err = fail("ibv_post_send in ERR: %s", strerror(ret));
			goto out;
		}
		if ((err = get_wc(rc->b.scq, "send queue", &wc, 0x200,
				  IBV_WC_WR_FLUSH_ERR, -1)))
			goto out;
	} else {
		for (i = 0; i < (kind ? 1 : 3); i++) {
			if ((err = get_wc(rc->b.rcq, "receive queue", &wc,
					  0x100 + i, IBV_WC_WR_FLUSH_ERR, -1)))
				goto out;
			if (wc.qp_num != rc->b.qp->qp_num) {
				err = fail("qp_num %#x, want %#x", wc.qp_num,
					   rc->b.qp->qp_num);
				goto out;
			}
		}
	}
	if ((err = buf_check(&d, "receive buffers")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	rc->dirty = 1;
	buf_free(&d);
	return err;
}

/* A SEND to a peer that is gone (@kind 0: QP destroyed, 1: in RESET, 2:
 * in ERR), retry_cnt 1 and a ~16 ms timeout: RETRY_EXC_ERR. */
static const char *t_err_retry(struct rc *rc, int kind)
{
	struct opts oa = defaults;
	struct buf s;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	oa.retry_cnt = 1;
	oa.timeout = 12;
	if ((err = pair_up(rc, &oa, &defaults)))
		return err;
	if (buf_new(rc, &s, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (kind == 0) {
		ret = ibv_destroy_qp(rc->b.qp);
		rc->b.qp = NULL;
	} else {
		ret = to_state(rc->b.qp, kind == 1 ? IBV_QPS_RESET : IBV_QPS_ERR);
	}
	if (ret) {
		err = fail("take the peer down: %s", strerror(ret));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200,
			  IBV_WC_RETRY_EXC_ERR, -1)) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
out:
	rc->dirty = 1;
	buf_free(&s);
	return err;
}

/* No receive posted and rnr_retry 0: RNR_RETRY_EXC_ERR. */
static const char *t_err_rnr(struct rc *rc)
{
	struct opts oa = defaults, ob = defaults;
	struct buf s;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	oa.rnr_retry = 0;
	ob.min_rnr_timer = 1;
	if ((err = pair_up(rc, &oa, &ob)))
		return err;
	if (buf_new(rc, &s, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200,
			  IBV_WC_RNR_RETRY_EXC_ERR, -1)) ||
	    (err = state_is(rc->a.qp, IBV_QPS_ERR, "requester")))
		goto out;
	err = cq_quiet(rc->b.rcq, "responder recv CQ", QUIET_MS);
out:
	rc->dirty = 1;
	buf_free(&s);
	return err;
}

/* ---- QP state machine --------------------------------------------------- */

/* ---- asynchronous events ------------------------------------------------ */

/*
 * COMM_EST (IBTA 11.6.3.1): the first packet a QP in RTR receives. b stays
 * in RTR while a, in RTS, sends to it; b answers all the same.
 */
static const char *t_ev_comm_est(struct rc *rc)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss, ds;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = pair_rtr(rc, &defaults, &defaults, CQ_DEPTH)))
		return err;
	if ((ret = to_rts(rc, rc->a.qp, PSN_A, &defaults))) {
		err = fail("a RTR->RTS: %s", strerror(ret));
		goto out;
	}
	if (buf_new(rc, &s, 64, ACC_LOCAL) || buf_new(rc, &d, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ds, &d, 0, 64);
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x200, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post_recv(rc->b.qp, 0x100, &ds, 1)) ||
	    (ret = post(rc->a.qp, &wr))) {
		err = fail("post: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	buf_expect(&d, 0, s.p, 64);
	if ((err = buf_check(&d, "receive buffer")) ||
	    (err = get_event(rc, IBV_EVENT_COMM_EST, rc->b.qp, "responder",
			     op_ms)))
		goto out;
	err = state_is(rc->b.qp, IBV_QPS_RTR, "responder");
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

/*
 * RTS->SQD with en_sqd_async_notify just after a 64 KiB WRITE was posted:
 * SQ_DRAINED once no message is in progress (IBTA 10.3.1: one that had
 * started completes, none starts). A SEND posted in SQD is not sent; back
 * in RTS both complete, in order.
 */
static const char *t_ev_sq_drained(struct rc *rc)
{
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1,
	};
	const size_t len = 65536;
	struct buf s, d, r;
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	struct ibv_wc wc;
	const char *err;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	if (buf_new(rc, &s, len, ACC_LOCAL) || buf_new(rc, &d, len, ACC_REMOTE) ||
	    buf_new(rc, &r, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, len);
	wr_init(&wr, 0x200, IBV_WR_RDMA_WRITE, &ss, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)d.p;
	wr.wr.rdma.rkey = d.mr->rkey;
	if ((ret = post(rc->a.qp, &wr))) {
		err = fail("ibv_post_send: %s", strerror(ret));
		goto out;
	}
	if ((ret = merr(ibv_modify_qp(rc->a.qp, &qa, IBV_QP_STATE |
				      IBV_QP_EN_SQD_ASYNC_NOTIFY)))) {
		err = fail("RTS->SQD: %s", strerror(ret));
		goto out;
	}
	if ((err = get_event(rc, IBV_EVENT_SQ_DRAINED, rc->a.qp, "requester",
			     op_ms)) ||
	    (err = state_is(rc->a.qp, IBV_QPS_SQD, "requester")))
		goto out;

	sge_of(&rs, &r, 0, 64);
	sge_of(&ss, &s, 0, 64);
	wr_init(&wr, 0x201, IBV_WR_SEND, &ss, 1, IBV_SEND_SIGNALED);
	if ((ret = post_recv(rc->b.qp, 0x100, &rs, 1)) ||
	    (ret = post(rc->a.qp, &wr))) {
		err = fail("post in SQD: %s", strerror(ret));
		goto out;
	}
	if ((err = cq_quiet(rc->b.rcq, "responder recv CQ (a in SQD)",
			    QUIET_MS)))
		goto out;
	if ((ret = to_state(rc->a.qp, IBV_QPS_RTS))) {
		err = fail("SQD->RTS: %s", strerror(ret));
		goto out;
	}
	if ((err = get_wc(rc->a.scq, "requester", &wc, 0x200, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE)) ||
	    (err = get_wc(rc->a.scq, "requester", &wc, 0x201, IBV_WC_SUCCESS,
			  IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder", &wc, 0x100, IBV_WC_SUCCESS,
			  IBV_WC_RECV)))
		goto out;
	buf_expect(&d, 0, s.p, len);
	buf_expect(&r, 0, s.p, 64);
	if ((err = buf_check(&d, "target buffer")) ||
	    (err = buf_check(&r, "receive buffer")))
		goto out;
	err = quiet(rc, QUIET_MS);
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	buf_free(&r);
	return err;
}

/*
 * A send CQ overrun: a's send CQ, created for 1 entry, gets signaled
 * WRITEs well past what it holds (at least cq->cqe, maybe more), and
 * nothing polls it. @kind 0: CQ_ERR on the CQ; 1: a goes to ERR with
 * QP_FATAL.
 */
static const char *t_ev_cq_overrun(struct rc *rc, int kind)
{
	struct buf s, d;
	struct ibv_send_wr wr;
	struct ibv_sge ss;
	const char *err;
	int i, n, ret;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if ((err = pair_rtr(rc, &defaults, &defaults, 1)))
		return err;
	if ((ret = to_rts(rc, rc->a.qp, PSN_A, &defaults)) ||
	    (ret = to_rts(rc, rc->b.qp, PSN_B, &defaults))) {
		err = fail("RTR->RTS: %s", strerror(ret));
		goto out;
	}
	n = 2 * (rc->a.scq->cqe + 1);
	if (n > (int)rc->a.cap.max_send_wr) {
		skip_why = "the smallest CQ holds more than the send queue";
		goto out;
	}
	if (buf_new(rc, &s, 8, ACC_LOCAL) || buf_new(rc, &d, 8, ACC_REMOTE)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	sge_of(&ss, &s, 0, 8);
	for (i = 0; i < n; i++) {
		wr_init(&wr, 0x200 + i, IBV_WR_RDMA_WRITE, &ss, 1,
			IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)d.p;
		wr.wr.rdma.rkey = d.mr->rkey;
		if ((ret = post(rc->a.qp, &wr))) {
			err = fail("ibv_post_send %d of %d: %s", i + 1, n,
				   strerror(ret));
			goto out;
		}
	}
	if (kind == 0) {
		err = get_event(rc, IBV_EVENT_CQ_ERR, rc->a.scq,
				"requester send CQ", op_ms);
		goto out;
	}
	if ((err = get_event(rc, IBV_EVENT_QP_FATAL, rc->a.qp, "requester",
			     op_ms)))
		goto out;
	err = state_is(rc->a.qp, IBV_QPS_ERR, "requester");
out:
	rc->dirty = 1;
	buf_free(&s);
	buf_free(&d);
	return err;
}

static const char *want_errno(int got, int want, const char *what)
{
	if (got == want)
		return NULL;
	return fail("%s: %s (%d), want %s", what,
		    got ? strerror(got) : "succeeded", got, strerror(want));
}

/*
 * The limits the QP advertised, at post time: @kind 0: a send with one
 * SGE more than max_send_sge; 1: inline data one byte past
 * max_inline_data; 2: a receive with one SGE more than max_recv_sge: each
 * fails with EINVAL, bad_wr names it, nothing completes, the QP stays in
 * RTS. 3: max_send_wr SENDs held up by RNR fill the send queue and one
 * more fails with ENOMEM; once b posts receives all complete, in order.
 * 4: max_recv_wr receives fill the receive queue; one more: ENOMEM.
 */
static const char *t_post_limit(struct rc *rc, int kind)
{
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge *sg = NULL;
	struct ibv_wc wc;
	struct buf s;
	const char *err = NULL;
	unsigned int i, n = 0;
	int ret;

	memset(&s, 0, sizeof(s));
	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	switch (kind) {
	case 0:
		n = rc->a.cap.max_send_sge + 1;
		break;
	case 1:
		n = rc->a.cap.max_inline_data + 1;
		break;
	case 2:
		n = rc->b.cap.max_recv_sge + 1;
		break;
	case 3:
		n = rc->a.cap.max_send_wr;
		if (rc->b.cap.max_recv_wr < n) {
			skip_why = "the receive queue is shorter than the send queue";
			goto out;
		}
		break;
	default:
		n = rc->b.cap.max_recv_wr;
		break;
	}
	sg = calloc(n + 1, sizeof(*sg));
	if (!sg || buf_new(rc, &s, n + 1, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i <= n; i++)
		sge_of(&sg[i], &s, i, 1);
	if (kind <= 2) {
		if (kind == 1)
			sge_of(&sg[0], &s, 0, n);
		wr_init(&wr, 0x200, IBV_WR_SEND, sg, kind ? 1 : n,
			IBV_SEND_SIGNALED | (kind ? IBV_SEND_INLINE : 0));
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 0x100;
		rwr.sg_list = sg;
		rwr.num_sge = n;
		ret = kind == 2 ? ibv_post_recv(rc->b.qp, &rwr, &rbad) :
				  ibv_post_send(rc->a.qp, &wr, &bad);
		if ((err = want_errno(ret, EINVAL, kind == 2 ?
				      "ibv_post_recv" : "ibv_post_send")))
			goto out;
		if (kind == 2 ? rbad != &rwr : bad != &wr) {
			err = fail("bad_wr does not name the work request");
			goto out;
		}
		if ((err = quiet(rc, QUIET_MS)) ||
		    (err = state_is(rc->a.qp, IBV_QPS_RTS, "requester")))
			goto out;
		err = state_is(rc->b.qp, IBV_QPS_RTS, "responder");
		goto out;
	}
	for (i = 0; i <= n; i++) {
		if (kind == 3) {
			wr_init(&wr, 0x200 + i, IBV_WR_SEND, &sg[i], 1,
				IBV_SEND_SIGNALED);
			ret = post(rc->a.qp, &wr);
		} else {
			ret = post_recv(rc->b.qp, 0x100 + i, &sg[i], 1);
		}
		if (i < n && ret) {
			err = fail("post %u of %u: %s", i + 1, n, strerror(ret));
			goto out;
		}
	}
	if ((err = want_errno(ret, ENOMEM, "one work request more than the queue holds")))
		goto out;
	if (kind == 4)
		goto out;
	/* b has no receive: the SENDs wait on RNR NAKs (rnr_retry 7). */
	for (i = 0; i < n; i++) {
		if ((ret = post_recv(rc->b.qp, 0x100 + i, &sg[i], 1))) {
			err = fail("ibv_post_recv %u: %s", i, strerror(ret));
			goto out;
		}
	}
	for (i = 0; i < n && !err; i++)
		err = get_wc(rc->a.scq, "requester", &wc, 0x200 + i,
			     IBV_WC_SUCCESS, IBV_WC_SEND);
	for (i = 0; i < n && !err; i++)
		err = get_wc(rc->b.rcq, "responder", &wc, 0x100 + i,
			     IBV_WC_SUCCESS, IBV_WC_RECV);
out:
	rc->dirty = 1;
	buf_free(&s);
	free(sg);
	return err;
}

/* A throwaway QP on a's CQs, in RESET. */
static struct ibv_qp *spare(struct rc *rc)
{
	struct ibv_qp_cap cap;

	default_cap(rc, &cap);
	cap.max_inline_data = 0;
	return qp_new(rc, rc->a.scq, rc->a.rcq, &cap);
}

/* @kind selects one illegal transition or missing attribute. */
static const char *t_sm(struct rc *rc, int kind)
{
	struct ibv_qp_attr qa;
	struct ibv_qp *qp;
	const char *err;
	int ret;

	if ((err = ready(rc)))
		return err;
	qp = spare(rc);
	if (!qp)
		return fail("create a spare QP: %s", strerror(errno));
	switch (kind) {
	case 0: /* RESET -> RTR */
		rtr_attr(rc, &qa, qp->qp_num, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTR_MASK));
		err = want_errno(ret, EINVAL, "RESET->RTR");
		if (!err)
			err = state_is(qp, IBV_QPS_RESET, "the spare");
		break;
	case 1: /* RESET -> RTS */
		rts_attr(rc, &qa, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTS_MASK));
		err = want_errno(ret, EINVAL, "RESET->RTS");
		if (!err)
			err = state_is(qp, IBV_QPS_RESET, "the spare");
		break;
	case 2: /* RESET -> INIT without port, pkey and access flags */
		ret = to_state(qp, IBV_QPS_INIT);
		err = want_errno(ret, EINVAL, "RESET->INIT with IBV_QP_STATE only");
		break;
	case 3: /* INIT -> RTR without the address vector */
		if ((ret = to_init(rc, qp))) {
			err = fail("RESET->INIT: %s", strerror(ret));
			break;
		}
		rtr_attr(rc, &qa, qp->qp_num, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTR_MASK & ~IBV_QP_AV));
		err = want_errno(ret, EINVAL, "INIT->RTR without IBV_QP_AV");
		if (!err)
			err = state_is(qp, IBV_QPS_INIT, "the spare");
		break;
	case 4: /* RTS -> RTR, then ERR -> RTS, ERR -> RESET -> INIT */
		if ((ret = to_init(rc, qp)) ||
		    (ret = to_rtr(rc, qp, qp->qp_num, 0, &defaults)) ||
		    (ret = to_rts(rc, qp, 0, &defaults))) {
			err = fail("connect the spare to itself: %s",
				   strerror(ret));
			break;
		}
		rtr_attr(rc, &qa, qp->qp_num, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTR_MASK));
		if ((err = want_errno(ret, EINVAL, "RTS->RTR")) ||
		    (err = state_is(qp, IBV_QPS_RTS, "the spare")))
			break;
		if ((ret = to_state(qp, IBV_QPS_ERR))) {
			err = fail("RTS->ERR: %s", strerror(ret));
			break;
		}
		rts_attr(rc, &qa, 0, &defaults);
		ret = merr(ibv_modify_qp(qp, &qa, RTS_MASK));
		if ((err = want_errno(ret, EINVAL, "ERR->RTS")) ||
		    (err = state_is(qp, IBV_QPS_ERR, "the spare")))
			break;
		if ((ret = to_state(qp, IBV_QPS_RESET)) ||
		    (ret = to_init(rc, qp))) {
			err = fail("ERR->RESET->INIT: %s", strerror(ret));
			break;
		}
		err = state_is(qp, IBV_QPS_INIT, "the spare");
		break;
	}
	ibv_destroy_qp(qp);
	/* The spare shared a's CQs. */
	rc->dirty = 1;
	return err;
}

/* Posting to a QP that cannot take the work request: @kind 0: a send in
 * RESET, 1: a send in INIT, 2: a send in RTR, 3: a receive in RESET. */
static const char *t_sm_post(struct rc *rc, int kind)
{
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct ibv_qp *qp;
	struct buf b;
	const char *err = NULL;
	int ret;

	memset(&b, 0, sizeof(b));
	if ((err = ready(rc)))
		return err;
	qp = spare(rc);
	if (!qp)
		return fail("create a spare QP: %s", strerror(errno));
	if (buf_new(rc, &b, 64, ACC_LOCAL)) {
		err = fail("buffers: %s", strerror(errno));
		goto out;
	}
	if (kind == 1 || kind == 2) {
		ret = to_init(rc, qp);
		if (!ret && kind == 2)
			ret = to_rtr(rc, qp, qp->qp_num, 0, &defaults);
		if (ret) {
			err = fail("modify the spare: %s", strerror(ret));
			goto out;
		}
	}
	sge_of(&sg, &b, 0, 64);
	if (kind == 3) {
		ret = post_recv(qp, 0x100, &sg, 1);
	} else {
		wr_init(&wr, 0x200, IBV_WR_SEND, &sg, 1, IBV_SEND_SIGNALED);
		ret = post(qp, &wr);
	}
	if (!ret) {
		err = fail("ibv_post_%s succeeded", kind == 3 ? "recv" : "send");
		goto out;
	}
	err = cq_quiet(rc->a.scq, "send CQ", QUIET_MS);
	if (!err)
		err = cq_quiet(rc->a.rcq, "recv CQ", 0);
	if (!err)
		err = buf_check(&b, "buffer");
out:
	ibv_destroy_qp(qp);
	buf_free(&b);
	rc->dirty = 1;
	return err;
}

/* Creating a QP beyond the device's limits: @kind 0: max_send_wr, 1:
 * max_recv_wr, 2: max_send_sge. */
static const char *t_sm_caps(struct rc *rc, int kind)
{
	struct ibv_qp_cap cap;
	struct ibv_qp *qp;
	const char *err;
	int e;

	if ((err = ready(rc)))
		return err;
	default_cap(rc, &cap);
	cap.max_inline_data = 0;
	if (kind == 0)
		cap.max_send_wr = rc->dev.max_qp_wr + 1;
	else if (kind == 1)
		cap.max_recv_wr = rc->dev.max_qp_wr + 1;
	else
		cap.max_send_sge = rc->dev.max_sge + 1;
	errno = 0;
	qp = qp_new(rc, rc->a.scq, rc->a.rcq, &cap);
	e = errno;
	if (qp) {
		ibv_destroy_qp(qp);
		return fail("the QP was created");
	}
	return want_errno(e, EINVAL, "ibv_create_qp");
}

/* The connected pair reads back what it was given. */
static const char *t_query(struct rc *rc)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		   IBV_QP_RNR_RETRY | IBV_QP_ACCESS_FLAGS | IBV_QP_CAP;
	const char *err;
	int ret;

	if ((err = pair_up(rc, &defaults, &defaults)))
		return err;
	memset(&qa, 0, sizeof(qa));
	if ((ret = merr(ibv_query_qp(rc->a.qp, &qa, mask, &ia))))
		return fail("ibv_query_qp: %s", strerror(ret));
	if (qa.qp_state != IBV_QPS_RTS)
		return fail("state %s", state_name(qa.qp_state));
	if (qa.path_mtu != IBV_MTU_1024)
		return fail("path_mtu %d", qa.path_mtu);
	if (qa.dest_qp_num != rc->b.qp->qp_num)
		return fail("dest_qp_num %#x, want %#x", qa.dest_qp_num,
			    rc->b.qp->qp_num);
	if (qa.timeout != defaults.timeout || qa.retry_cnt != defaults.retry_cnt ||
	    qa.rnr_retry != defaults.rnr_retry)
		return fail("timeout/retry_cnt/rnr_retry %d/%d/%d", qa.timeout,
			    qa.retry_cnt, qa.rnr_retry);
	if (!qa.ah_attr.is_global || qa.ah_attr.grh.sgid_index != rc->gidx ||
	    memcmp(&qa.ah_attr.grh.dgid, &rc->gid, sizeof(rc->gid)))
		return fail("address vector: is_global %d, sgid_index %d",
			    qa.ah_attr.is_global, qa.ah_attr.grh.sgid_index);
	if (ia.qp_type != IBV_QPT_RC || ia.cap.max_send_wr < QP_DEPTH ||
	    ia.cap.max_recv_wr < QP_DEPTH)
		return fail("init attributes: type %d, %u send / %u recv WRs",
			    ia.qp_type, ia.cap.max_send_wr, ia.cap.max_recv_wr);
	return NULL;
}

/* ---- main --------------------------------------------------------------- */

static int setup(struct rc *rc, const char *name, int gidx)
{
	struct ibv_port_attr port;
	const char *err;

	memset(rc, 0, sizeof(*rc));
	rc->gidx = gidx;
	rc->ctx = open_dev(name);
	if (!check(rc->ctx != NULL, "setup: open %s", name))
		return -1;
	if (!check(ibv_query_device(rc->ctx, &rc->dev) == 0 &&
		   ibv_query_port(rc->ctx, 1, &port) == 0 &&
		   port.state == IBV_PORT_ACTIVE,
		   "setup: device and port 1 (ACTIVE) queried"))
		return -1;
	if (!check(ibv_query_gid(rc->ctx, 1, gidx, &rc->gid) == 0 &&
		   (rc->gid.global.subnet_prefix || rc->gid.global.interface_id),
		   "setup: GID %d", gidx))
		return -1;
	rc->pd = ibv_alloc_pd(rc->ctx);
	rc->ch = ibv_create_comp_channel(rc->ctx);
	if (!check(rc->pd && rc->ch, "setup: a PD and a completion channel"))
		return -1;
	if (rc->dev.atomic_cap != IBV_ATOMIC_NONE)
		rc->acc_atomic = IBV_ACCESS_REMOTE_ATOMIC;
	printf("# %s: max_qp_wr %d, max_sge %d, atomic_cap %d, max_qp_rd_atom %d, max_qp_init_rd_atom %d, active_mtu %d\n",
	       name, rc->dev.max_qp_wr, rc->dev.max_sge, rc->dev.atomic_cap,
	       rc->dev.max_qp_rd_atom, rc->dev.max_qp_init_rd_atom,
	       port.active_mtu);
	err = pair_up(rc, &defaults, &defaults);
	if (!check(!err, "setup: two RC QPs connected through GID %d%s%s", gidx,
		   err ? ": " : "", err ? err : ""))
		return -1;
	printf("# QPs %#x and %#x, max_inline_data %u, send/recv SGEs %u/%u\n",
	       rc->a.qp->qp_num, rc->b.qp->qp_num, rc->a.cap.max_inline_data,
	       rc->a.cap.max_send_sge, rc->a.cap.max_recv_sge);
	return 0;
}

static void usage(const char *me)
{
	fprintf(stderr, "usage: %s [-k ID=REASON]... DEVICE GID_INDEX\n", me);
	exit(2);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 1023, 1024, 1025, 65536, 1 << 20 };
	static struct rc rc;
	const uint64_t x = 0x0123456789abcdefull, y = 0xfedcba98ffffffffull;
	char id[32];
	unsigned int i;
	size_t n;
	char *eq;
	int c;

	while ((c = getopt(argc, argv, "k:")) != -1) {
		if (c != 'k' || nknown == MAX_KNOWN)
			usage(argv[0]);
		eq = strchr(optarg, '=');
		if (!eq)
			usage(argv[0]);
		*eq = '\0';
		known[nknown].id = optarg;
		known[nknown++].why = eq + 1;
	}
	if (argc - optind != 2)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup(&rc, argv[optind], atoi(argv[optind + 1])))
		return tap_done();
	cur_rc = &rc;

	/* State machine and limits. */
	report("qp-query", t_query(&rc), "the connected QP reads back RTS, MTU 1024, its peer, timers, AV");
	report("sm-reset-rtr", t_sm(&rc, 0), "RESET->RTR fails with EINVAL");
	report("sm-reset-rts", t_sm(&rc, 1), "RESET->RTS fails with EINVAL");
	report("sm-init-attrs", t_sm(&rc, 2), "RESET->INIT without its required attributes fails with EINVAL");
	report("sm-rtr-av", t_sm(&rc, 3), "INIT->RTR without an address vector fails with EINVAL");
	report("sm-backward", t_sm(&rc, 4), "RTS->RTR and ERR->RTS fail with EINVAL, ERR->RESET->INIT works");
	report("sm-max-send-wr", t_sm_caps(&rc, 0), "create with max_send_wr = max_qp_wr + 1 fails with EINVAL");
	report("sm-max-recv-wr", t_sm_caps(&rc, 1), "create with max_recv_wr = max_qp_wr + 1 fails with EINVAL");
	report("sm-max-sge", t_sm_caps(&rc, 2), "create with max_send_sge = max_sge + 1 fails with EINVAL");
	report("post-send-reset", t_sm_post(&rc, 0), "ibv_post_send on a RESET QP fails, no completion");
	report("post-send-init", t_sm_post(&rc, 1), "ibv_post_send on an INIT QP fails, no completion");
	report("post-send-rtr", t_sm_post(&rc, 2), "ibv_post_send on an RTR QP fails, no completion");
	report("post-recv-reset", t_sm_post(&rc, 3), "ibv_post_recv on a RESET QP fails, no completion");
	report("post-send-sge", t_post_limit(&rc, 0), "a send with max_send_sge + 1 SGEs fails with EINVAL, nothing sent");
	report("post-send-inline", t_post_limit(&rc, 1), "inline data of max_inline_data + 1 bytes fails with EINVAL, nothing sent");
	report("post-recv-sge", t_post_limit(&rc, 2), "a receive with max_recv_sge + 1 SGEs fails with EINVAL");
	report("post-send-full", t_post_limit(&rc, 3), "max_send_wr SENDs waiting on RNR fill the SQ, one more fails with ENOMEM; all complete in order");
	report("post-recv-full", t_post_limit(&rc, 4), "max_recv_wr receives fill the RQ, one more fails with ENOMEM");

	/* Operations and sizes. */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(id, sizeof(id), "send-%zu", sizes[i]);
		report(id, t_send(&rc, sizes[i], 0), "SEND of %zu B", sizes[i]);
	}
	report("send-0", t_send(&rc, 0, 0), "zero-length SEND: byte_len 0, receive buffer untouched");
	report("send-imm", t_send(&rc, 1500, 1), "SEND_WITH_IMM of 1500 B: IBV_WC_WITH_IMM and the immediate");
	report("send-imm-0", t_send(&rc, 0, 1), "zero-length SEND_WITH_IMM");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(id, sizeof(id), "write-%zu", sizes[i]);
		report(id, t_write(&rc, sizes[i], 0), "RDMA WRITE of %zu B", sizes[i]);
	}
	report("write-0", t_write(&rc, 0, 0), "zero-length RDMA WRITE: target untouched");
	report("write-imm", t_write(&rc, 4097, 1), "RDMA WRITE_WITH_IMM of 4097 B: RECV_RDMA_WITH_IMM, byte_len, receive buffer untouched");
	report("write-imm-0", t_write(&rc, 0, 1), "zero-length RDMA WRITE_WITH_IMM");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(id, sizeof(id), "read-%zu", sizes[i]);
		report(id, t_read(&rc, sizes[i]), "RDMA READ of %zu B", sizes[i]);
	}
	report("cas-swap", t_atomic(&rc, IBV_WR_ATOMIC_CMP_AND_SWP, x, x, y, y),
	       "ATOMIC_CMP_AND_SWP that matches: swapped, original returned");
	report("cas-noswap", t_atomic(&rc, IBV_WR_ATOMIC_CMP_AND_SWP, x, x ^ 1, y, x),
	       "ATOMIC_CMP_AND_SWP that does not match: unchanged, original returned");
	report("fetch-add", t_atomic(&rc, IBV_WR_ATOMIC_FETCH_AND_ADD, y, 1, 0, y + 1),
	       "ATOMIC_FETCH_AND_ADD with a carry across bit 32, original returned");

	/* Send flags and scatter/gather. */
	n = rc.a.cap.max_inline_data;
	report("inline-send-1", t_inline(&rc, 1, 0), "inline SEND of 1 B");
	report("inline-send-max", t_inline(&rc, n, 0), "inline SEND of max_inline_data (%zu B)", n);
	report("inline-write-odd", t_inline(&rc, n / 2 | 1, 1), "inline RDMA WRITE of %zu B", n / 2 | 1);
	report("inline-write-max", t_inline(&rc, n, 1), "inline RDMA WRITE of max_inline_data (%zu B)", n);
	report("sge-send", t_sge(&rc, 0), "SEND from 3 SGEs (7+1001+333 B) into a receive of 4 (5+600+1+900 B)");
	report("sge-write", t_sge(&rc, 1), "RDMA WRITE gathered from 3 SGEs");
	report("sge-read", t_sge(&rc, 2), "RDMA READ scattered into 3 SGEs (500+1+840 B)");
	report("unsignaled", t_unsignaled(&rc, 4), "4 unsignaled SENDs and a signaled one: 5 receives, 1 send completion");
	report("fence", t_fence(&rc), "RDMA READ then a FENCEd SEND of the read buffer carries the read data");
	report("solicited-no-event", t_solicited(&rc, 0), "an unsolicited SEND raises no event on a CQ armed for solicited");
	report("solicited-event", t_solicited(&rc, 1), "a SOLICITED SEND raises the completion event");
	t_mw(&rc);

	/* Error paths: each on fresh QPs. */
	report("err-bad-rkey", t_err_access(&rc, 0, 0), "RDMA WRITE with a bad rkey: REM_ACCESS_ERR, target untouched, QP in ERR");
	report("err-read-bounds", t_err_access(&rc, 1, 0), "RDMA READ past the end of the MR: REM_ACCESS_ERR, QP in ERR");
	report("err-write-perm", t_err_access(&rc, 2, 0), "RDMA WRITE to an MR without REMOTE_WRITE: REM_ACCESS_ERR, untouched");
	report("err-atomic-align", t_err_access(&rc, 3, 0), "atomic on an address not 8-byte aligned: REM_INV_REQ_ERR");
	report("err-len", t_err_len(&rc), "200 B SEND into a 100 B receive: REM_INV_REQ_ERR and LOC_LEN_ERR, guards intact");
	report("err-flush-rq", t_err_flush(&rc, 0), "modify to ERR flushes 3 outstanding receives with WR_FLUSH_ERR");
	report("err-flush-post-recv", t_err_flush(&rc, 1), "a receive posted in ERR completes with WR_FLUSH_ERR");
	report("err-flush-post-send", t_err_flush(&rc, 2), "a send posted in ERR completes with WR_FLUSH_ERR");
	report("err-retry-destroyed", t_err_retry(&rc, 0), "SEND to a destroyed peer, retry_cnt 1: RETRY_EXC_ERR");
	report("err-retry-reset", t_err_retry(&rc, 1), "SEND to a peer in RESET, retry_cnt 1: RETRY_EXC_ERR");
	report("err-retry-err", t_err_retry(&rc, 2), "SEND to a peer in ERR, retry_cnt 1: RETRY_EXC_ERR");
	report("err-rnr", t_err_rnr(&rc), "SEND with no receive posted, rnr_retry 0: RNR_RETRY_EXC_ERR");

	/* Asynchronous events. */
	report("ev-comm-est", t_ev_comm_est(&rc), "a QP in RTR that receives a SEND raises COMM_EST and answers it");
	report("ev-sq-drained", t_ev_sq_drained(&rc), "RTS->SQD just after a WRITE: SQ_DRAINED; a SEND posted in SQD waits; after SQD->RTS both complete, in order");
	report("ev-cq-overrun", t_ev_cq_overrun(&rc, 0), "signaled WRITEs past what the send CQ holds: CQ_ERR on that CQ");
	report("ev-cq-overrun-qp", t_ev_cq_overrun(&rc, 1), "... and QP_FATAL on the QP, which goes to ERR");
	report("ev-access-err", t_err_access(&rc, 0, 1), "RDMA WRITE with a bad rkey: the responder QP raises QP_ACCESS_ERR and goes to ERR");
	report("ev-req-err", t_err_access(&rc, 3, 1), "unaligned atomic: the responder QP raises QP_REQ_ERR and goes to ERR");

	/* Data still flows after all that. */
	report("send-after-errors", t_send(&rc, 1025, 0), "SEND of 1025 B on fresh QPs after the error tests");

	pair_down(&rc);
	check(ibv_destroy_comp_channel(rc.ch) == 0 &&
	      ibv_dealloc_pd(rc.pd) == 0 && ibv_close_device(rc.ctx) == 0,
	      "teardown: channel, PD, device released");
	return tap_done();
}
