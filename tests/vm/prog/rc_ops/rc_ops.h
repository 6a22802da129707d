/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the parts of rc_ops share. ../rc_ops.c has main(), the TAP output
 * and the -k list; harness.c the buffers, completions, async events and
 * QP set-up; data.c, errors.c, events.c, flush.c, limits.c, mr.c, mw.c,
 * rnr.c and uc.c the tests, each returning NULL when it passed or why it
 * failed (fail()).
 */
#ifndef SROCE_RC_OPS_H
#define SROCE_RC_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

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
#define MARK_ID		0x7a7a		/* wr_id of placed()'s marker SEND */
#define EVENT_MS	60000		/* deadline for an event polled for */

struct opts {
	uint8_t timeout;	/* local ACK timeout, 4.096 us * 2^timeout */
	uint8_t retry_cnt;
	uint8_t rnr_retry;	/* 7: infinite */
	uint8_t min_rnr_timer;
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
	enum ibv_qp_type qpt;		/* the pair's type: RC, or UC (uc.c) */
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

#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
/* UC has no responses: no read resources, timers or retries (IBTA 11.2.5). */
#define UC_RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
		     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define UC_RTS_MASK (IBV_QP_STATE | IBV_QP_SQ_PSN)

#define ACC_LOCAL	IBV_ACCESS_LOCAL_WRITE
#define ACC_REMOTE	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

extern const struct opts defaults;
extern const char *skip_why;		/* set by a test that cannot run */
extern const char *todo_why;		/* set for a capability not built */
extern int op_ms;			/* deadline for one completion now */

/* rc_ops.c */
int selected(const char *id);
__attribute__((format(printf, 3, 4)))
void report_result(const char *id, const char *err, const char *fmt, ...);
/* Runs test @id (the expression @err) only if -t selected it. */
#define report(id, err, ...) \
	do { \
		if (selected(id)) \
			report_result(id, err, __VA_ARGS__); \
	} while (0)

/* harness.c */
__attribute__((format(printf, 1, 2)))
const char *fail(const char *fmt, ...);
uint32_t next_seed(void);
void pattern(unsigned char *p, size_t n, uint32_t seed);
long long now_ms(void);
const char *opname(int op);
int buf_new(struct rc *rc, struct buf *b, size_t len, int access);
void buf_free(struct buf *b);
void buf_expect(struct buf *b, size_t off, const void *data, size_t n);
void buf_accept(struct buf *b, size_t off, size_t n);
const char *buf_check(const struct buf *b, const char *what);
void sge_of(struct ibv_sge *sg, const struct buf *b, size_t off,
	    size_t len);
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms);
const char *get_wc(struct ibv_cq *cq, const char *who,
		   struct ibv_wc *wc, uint64_t wr_id,
		   enum ibv_wc_status st, int op);
const char *recv_check(const struct ibv_wc *wc, const struct ibv_qp *qp,
		       size_t len, unsigned int flags, uint32_t val);
const char *cq_quiet(struct ibv_cq *cq, const char *who, int ms);
const char *quiet(struct rc *rc, int ms);
const char *get_event(struct rc *rc, enum ibv_event_type type,
		      const void *obj, const char *who, int ms);
int drain_events(struct rc *rc, int ms);
struct ibv_qp *qp_new(struct rc *rc, struct ibv_cq *scq,
		      struct ibv_cq *rcq, const struct ibv_qp_cap *cap);
void default_cap(struct rc *rc, struct ibv_qp_cap *cap);
int ep_new(struct rc *rc, struct ep *e, int on_channel, int scq_depth);
void ep_free(struct ep *e);
int merr(int ret);
int qp_state(struct ibv_qp *qp);
const char *state_name(int s);
const char *state_is(struct ibv_qp *qp, int want, const char *who);
int to_state(struct ibv_qp *qp, enum ibv_qp_state s);
int to_init(struct rc *rc, struct ibv_qp *qp);
void rtr_attr(struct rc *rc, struct ibv_qp_attr *qa, uint32_t dqpn,
	      uint32_t rq_psn, const struct opts *o);
int to_rtr(struct rc *rc, struct ibv_qp *qp, uint32_t dqpn,
	   uint32_t rq_psn, const struct opts *o);
void rts_attr(struct rc *rc, struct ibv_qp_attr *qa, uint32_t sq_psn,
	      const struct opts *o);
int to_rts(struct rc *rc, struct ibv_qp *qp, uint32_t sq_psn,
	   const struct opts *o);
void pair_down(struct rc *rc);
const char *pair_rtr(struct rc *rc, const struct opts *oa,
		     const struct opts *ob, int a_scq);
const char *pair_up(struct rc *rc, const struct opts *oa,
		    const struct opts *ob);
const char *ready(struct rc *rc);
const char *placed(struct rc *rc);
int post(struct ibv_qp *qp, struct ibv_send_wr *wr);
const char *post_wait(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_cq *cq, const char *who, struct ibv_wc *wc,
		      int op);
int post_recv(struct ibv_qp *qp, uint64_t id, struct ibv_sge *sg,
	      int n);
void wr_init(struct ibv_send_wr *wr, uint64_t id,
	     enum ibv_wr_opcode op, struct ibv_sge *sg, int n,
	     unsigned int flags);
void wr_remote(struct ibv_send_wr *wr, const struct buf *b);
const char *want_errno(int got, int want, const char *what);

/* data.c */
const char *t_send(struct rc *rc, size_t len, int imm);
const char *t_write(struct rc *rc, size_t len, int imm);
const char *t_read(struct rc *rc, size_t len);
const char *t_atomic(struct rc *rc, enum ibv_wr_opcode op,
		     uint64_t init, uint64_t cmp_add, uint64_t swap,
		     uint64_t final);
const char *t_inline(struct rc *rc, size_t len, int write);
const char *t_sge(struct rc *rc, int kind);
const char *t_unsignaled(struct rc *rc, int n);
const char *t_fence(struct rc *rc);
const char *t_solicited(struct rc *rc, int solicited);
void t_mw(struct rc *rc);
/* mw.c */
void t_mw_more(struct rc *rc);

/* errors.c */
const char *t_err_access(struct rc *rc, int kind, int event);
const char *t_err_len(struct rc *rc);
const char *t_err_flush(struct rc *rc, int kind);
const char *t_reset_cleans_cq(struct rc *rc);
const char *t_err_retry(struct rc *rc, int kind);
const char *t_err_rnr(struct rc *rc);
const char *t_post_limit(struct rc *rc, int kind);
struct ibv_qp *spare(struct rc *rc);
const char *t_sm(struct rc *rc, int kind);
const char *t_sm_post(struct rc *rc, int kind);
const char *t_sm_caps(struct rc *rc, int kind);
const char *t_query(struct rc *rc);

/* mr.c */
const char *t_rereg(struct rc *rc, int kind);

/* flush.c */
const char *t_err_flush_big(struct rc *rc, int kind);

/* limits.c */
const char *t_max_msg(struct rc *rc, int kind);

/* rnr.c */
const char *t_write_imm_rnr(struct rc *rc, size_t len);

/* uc.c */
void t_uc(struct rc *rc);

/* events.c */
const char *t_ev_comm_est(struct rc *rc);
const char *t_ev_sq_drained(struct rc *rc);
const char *t_ev_cq_overrun(struct rc *rc, int kind);

#endif
