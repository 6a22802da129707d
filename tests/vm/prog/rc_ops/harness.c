// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rc_ops: buffers, completions, async events and QP set-up for the tests. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "rc_ops.h"

const struct opts defaults = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12,
};

const char *skip_why;
const char *todo_why;
int op_ms = OP_MS;
static int ntimeouts;
static char msg[512];
static uint32_t seed_n;

/* ---- small helpers ---------------------------------------------------- */

__attribute__((format(printf, 1, 2)))
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

uint32_t next_seed(void)
{
	return 0x9e3779b9u * ++seed_n;
}

void pattern(unsigned char *p, size_t n, uint32_t seed)
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

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

const char *opname(int op)
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
int buf_new(struct rc *rc, struct buf *b, size_t len, int access)
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

void buf_free(struct buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->raw);
	free(b->exp);
	memset(b, 0, sizeof(*b));
}

/* From now on bytes [off, off + n) of the target range must hold @data. */
void buf_expect(struct buf *b, size_t off, const void *data, size_t n)
{
	memcpy(b->exp + GUARD + off, data, n);
}

/* Whatever the device wrote to [off, off + n) is accepted. */
void buf_accept(struct buf *b, size_t off, size_t n)
{
	memcpy(b->exp + GUARD + off, b->raw + GUARD + off, n);
}

const char *buf_check(const struct buf *b, const char *what)
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

void sge_of(struct ibv_sge *sg, const struct buf *b, size_t off,
	    size_t len)
{
	sg->addr = (uintptr_t)(b->p + off);
	sg->length = len;
	sg->lkey = b->mr->lkey;
}

/* ---- completions -------------------------------------------------------- */

/* 1 with a completion in @wc, 0 after @ms without one, < 0 on error. */
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
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
const char *get_wc(struct ibv_cq *cq, const char *who,
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
const char *recv_check(const struct ibv_wc *wc, const struct ibv_qp *qp,
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
const char *cq_quiet(struct ibv_cq *cq, const char *who, int ms)
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

const char *quiet(struct rc *rc, int ms)
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
const char *get_event(struct rc *rc, enum ibv_event_type type,
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
int drain_events(struct rc *rc, int ms)
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

struct ibv_qp *qp_new(struct rc *rc, struct ibv_cq *scq,
		      struct ibv_cq *rcq, const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.cap = *cap;
	ia.qp_type = rc->qpt;
	ia.sq_sig_all = 0;
	return ibv_create_qp(rc->pd, &ia);
}

void default_cap(struct rc *rc, struct ibv_qp_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = QP_DEPTH;
	cap->max_recv_wr = QP_DEPTH;
	cap->max_send_sge = rc->dev.max_sge < 4 ? rc->dev.max_sge : 4;
	cap->max_recv_sge = cap->max_send_sge;
	cap->max_inline_data = WANT_INLINE;
}

int ep_new(struct rc *rc, struct ep *e, int on_channel, int scq_depth)
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

void ep_free(struct ep *e)
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
int merr(int ret)
{
	return ret < 0 ? errno : ret;
}

int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia))
		return -1;
	return qa.qp_state;
}

const char *state_name(int s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s >= 0 && s < 7 ? names[s] : "?";
}

const char *state_is(struct ibv_qp *qp, int want, const char *who)
{
	int s = qp_state(qp);

	if (s != want)
		return fail("%s QP is in %s (%d), want %s", who, state_name(s),
			    s, state_name(want));
	return NULL;
}

int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr qa = { .qp_state = s };

	return merr(ibv_modify_qp(qp, &qa, IBV_QP_STATE));
}

int to_init(struct rc *rc, struct ibv_qp *qp)
{
	struct ibv_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = 1;
	qa.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (rc->qpt == IBV_QPT_RC)
		qa.qp_access_flags |= IBV_ACCESS_REMOTE_READ | rc->acc_atomic;
	return merr(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
}

void rtr_attr(struct rc *rc, struct ibv_qp_attr *qa, uint32_t dqpn,
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

int to_rtr(struct rc *rc, struct ibv_qp *qp, uint32_t dqpn,
	   uint32_t rq_psn, const struct opts *o)
{
	struct ibv_qp_attr qa;

	rtr_attr(rc, &qa, dqpn, rq_psn, o);
	return merr(ibv_modify_qp(qp, &qa, rc->qpt == IBV_QPT_UC ? UC_RTR_MASK :
								RTR_MASK));
}

void rts_attr(struct rc *rc, struct ibv_qp_attr *qa, uint32_t sq_psn,
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

int to_rts(struct rc *rc, struct ibv_qp *qp, uint32_t sq_psn,
	   const struct opts *o)
{
	struct ibv_qp_attr qa;

	rts_attr(rc, &qa, sq_psn, o);
	return merr(ibv_modify_qp(qp, &qa, rc->qpt == IBV_QPT_UC ? UC_RTS_MASK :
								RTS_MASK));
}

void pair_down(struct rc *rc)
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
const char *pair_rtr(struct rc *rc, const struct opts *oa,
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
const char *pair_up(struct rc *rc, const struct opts *oa,
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

/*
 * The event that says an RDMA WRITE a posted before now was placed at b.
 * On RC that is its own completion: the requester completes a WRITE only
 * once ACKed, and the responder ACKs only what it placed. On UC the
 * requester completes a WRITE as soon as it is sent, so the target may not
 * hold a byte yet: a zero-length SEND behind it on the same QP, received at
 * b, is the event (a responder handles a QP's messages in order, IBTA
 * 9.5). Takes a receive of its own and both completions.
 */
const char *placed(struct rc *rc)
{
	struct ibv_send_wr wr;
	struct ibv_sge rs;
	struct ibv_wc wc;
	const char *err;
	struct buf m;
	int ret;

	if (rc->qpt != IBV_QPT_UC)
		return NULL;
	if (buf_new(rc, &m, 16, ACC_LOCAL))
		return fail("marker buffer: %s", strerror(errno));
	sge_of(&rs, &m, 0, m.len);
	if ((ret = post_recv(rc->b.qp, MARK_ID, &rs, 1))) {
		err = fail("ibv_post_recv (marker): %s", strerror(ret));
		goto out;
	}
	wr_init(&wr, MARK_ID, IBV_WR_SEND, NULL, 0, IBV_SEND_SIGNALED);
	if ((err = post_wait(rc->a.qp, &wr, rc->a.scq, "requester (marker SEND)",
			     &wc, IBV_WC_SEND)) ||
	    (err = get_wc(rc->b.rcq, "responder (marker SEND behind the WRITE)",
			  &wc, MARK_ID, IBV_WC_SUCCESS, IBV_WC_RECV)) ||
	    (err = recv_check(&wc, rc->b.qp, 0, 0, 0)))
		goto out;
	err = buf_check(&m, "marker receive buffer");
out:
	buf_free(&m);
	return err;
}

/* A connected pair with default options and empty CQs. */
const char *ready(struct rc *rc)
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

int post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, wr, &bad);
}

/* Post @wr on @qp and take its successful @op completion from @cq. */
const char *post_wait(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_cq *cq, const char *who, struct ibv_wc *wc,
		      int op)
{
	int ret = post(qp, wr);

	if (ret)
		return fail("ibv_post_send: %s", strerror(ret));
	return get_wc(cq, who, wc, wr->wr_id, IBV_WC_SUCCESS, op);
}

int post_recv(struct ibv_qp *qp, uint64_t id, struct ibv_sge *sg,
	      int n)
{
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = sg, .num_sge = n };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

void wr_init(struct ibv_send_wr *wr, uint64_t id,
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

/* An RDMA WRITE or READ @wr aims at the start of @b, through its rkey. */
void wr_remote(struct ibv_send_wr *wr, const struct buf *b)
{
	wr->wr.rdma.remote_addr = (uintptr_t)b->p;
	wr->wr.rdma.rkey = b->mr->rkey;
}

const char *want_errno(int got, int want, const char *what)
{
	if (got == want)
		return NULL;
	return fail("%s: %s (%d), want %s", what,
		    got ? strerror(got) : "succeeded", got, strerror(want));
}
