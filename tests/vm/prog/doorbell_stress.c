// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * doorbell_stress DEVICE GID_INDEX [THREADS] [ITERS]: posting from many
 * threads while the requester keeps going idle (SROCE_SQ_IDLE) must never
 * hang. RC pairs a -> b over DEVICE's RoCE v2 GID (loopback); each thread
 * posts ITERS SENDs in bursts with pauses, in phase 1 on a pair of its own,
 * in phase 2 all on ONE QP. Every message is checked for order and content.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define MAX_THREADS	16
#define P1_DEPTH	128	/* phase 1 SQ and RQ entries */
#define P2_CREDIT	24	/* phase 2 SQ entries per poster */
#define P2_RQ		256
#define SIG_EVERY	8
#define MAX_BURST	16
#define WATCHDOG_US	20000000
#define TOTAL_S		240
#define ERR_LEN		160

#define set_err(e, ...) \
	do { if (!(e)[0]) snprintf((e), ERR_LEN, __VA_ARGS__); } while (0)

struct msg {
	uint32_t magic, seq;
	uint16_t phase, thread, rsvd[2];
	uint8_t fill[48];
};

struct pair {
	struct ibv_cq *scq, *rcq;	/* a's SENDs, b's receives */
	struct ibv_qp *qa, *qb;
	uint32_t rdepth;
	struct msg *sbuf, *rbuf;	/* send slots, then rdepth receives */
	struct ibv_mr *mr;
};

struct worker {
	pthread_t tid;
	int id, phase, hang;
	struct pair *p;		/* its own pair (phase 1), the shared one (2) */
	uint32_t rng, limit, sbase;	/* SQ credit, its first send slot */
	uint32_t posted, done, got;	/* done atomic; got in order, intact */
	long long last;		/* us of its last progress (atomic) */
	double secs;
	uint32_t bursts, lists, pauses;
	char err[ERR_LEN], rxerr[ERR_LEN];	/* poster's, receiver's */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx, nthreads, stop;
static uint32_t iters;

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static uint32_t xorshift(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void msg_make(struct msg *m, int phase, int thread, uint32_t seq)
{
	uint32_t x = (seq * 0x9e3779b9u) ^ (phase << 24) ^ (thread << 16) ^ 1;
	size_t i;

	*m = (struct msg){ 0x5d0b5e11u, seq, phase, thread, { 0 }, { 0 } };
	for (i = 0; i < sizeof(m->fill); i++)
		m->fill[i] = xorshift(&x) >> 24;
}

static int qp_connect(struct ibv_qp *qp, uint32_t dqpn, uint32_t sq_psn,
		      uint32_t rq_psn)
{
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				    .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = rq_psn,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1, .grh = {
			.dgid = gid, .sgid_index = gidx, .hop_limit = 64 } },
	};
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .sq_psn = sq_psn,
		.max_rd_atomic = 1 };

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

static int rx_post(struct pair *p, uint32_t slot)
{
	struct ibv_sge sg = { (uintptr_t)&p->rbuf[slot], sizeof(struct msg),
			      p->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sg, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	memset(&p->rbuf[slot], 0, sizeof(struct msg));
	return ibv_post_recv(p->qb, &wr, &bad);
}

/* A connected pair: a sends (@sd entries, @nsend slots), b receives (@rd
 * entries, all posted); a's first PSN is @psn. NULL or what failed. */
static const char *pair_new(struct pair *p, uint32_t sd, uint32_t nsend,
			    uint32_t rd, uint32_t psn)
{
	size_t len = (size_t)(nsend + rd) * sizeof(struct msg);
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC };
	uint32_t i;

	p->rdepth = rd;
	ia.send_cq = p->scq = ibv_create_cq(ctx, sd, NULL, NULL, 0);
	ia.recv_cq = p->rcq = ibv_create_cq(ctx, rd, NULL, NULL, 0);
	if (!p->scq || !p->rcq)
		return "ibv_create_cq failed";
	ia.cap = (struct ibv_qp_cap){ sd, 1, 1, 1, 0 };
	p->qa = ibv_create_qp(pd, &ia);
	ia.cap = (struct ibv_qp_cap){ 1, rd, 1, 1, 0 };
	p->qb = ibv_create_qp(pd, &ia);
	if (!p->qa || !p->qb)
		return "ibv_create_qp failed";
	p->sbuf = calloc(1, len);
	p->mr = p->sbuf ? ibv_reg_mr(pd, p->sbuf, len,
				     IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!p->mr)
		return "buffers or ibv_reg_mr failed";
	p->rbuf = p->sbuf + nsend;
	if (qp_connect(p->qa, p->qb->qp_num, psn, 0x100) ||
	    qp_connect(p->qb, p->qa->qp_num, 0x100, psn))
		return "ibv_modify_qp to RTS failed";
	for (i = 0; i < rd; i++)
		if (rx_post(p, i))
			return "ibv_post_recv failed";
	return NULL;
}

/* The next message of one of the @nw workers at @w, intact: post again. */
static int rx_one(struct pair *p, struct worker *w, int nw,
		  const struct ibv_wc *wc, char *err)
{
	struct msg *m = &p->rbuf[wc->wr_id % p->rdepth], want;
	uint32_t t = m->thread - w->id;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV ||
	    wc->wr_id >= p->rdepth || wc->byte_len != sizeof(*m) ||
	    t >= (uint32_t)nw) {
		set_err(err, "receive: %s, opcode %d, wr_id %llu, byte_len %u, thread %u",
			ibv_wc_status_str(wc->status), wc->opcode,
			(unsigned long long)wc->wr_id, wc->byte_len, m->thread);
		return -1;
	}
	w += t;
	msg_make(&want, w->phase, w->id, w->got);
	if (memcmp(m, &want, sizeof(want))) {
		set_err(w->rxerr, "message %u: magic %#x phase %u seq %u%s",
			w->got, m->magic, m->phase, m->seq,
			memcmp(m->fill, want.fill, sizeof(want.fill)) ?
			", payload differs" : "");
		return -1;
	}
	w->got++;
	__atomic_store_n(&w->last, now_us(), __ATOMIC_RELAXED);
	if (rx_post(p, wc->wr_id)) {
		set_err(err, "ibv_post_recv failed");
		return -1;
	}
	return 0;
}

/*
 * Reaps @p's CQs for the @nw workers at @w: completions seen, or -1. A
 * signaled SEND's completion also completes the worker's earlier SENDs.
 */
static int reap(struct pair *p, struct worker *w, int nw, char *err)
{
	struct ibv_wc wc[MAX_BURST];
	uint32_t t, seq;
	int i, n, k;

	n = ibv_poll_cq(p->scq, MAX_BURST, wc);
	for (i = 0; i < n; i++) {
		t = (wc[i].wr_id >> 32) - w->id;
		seq = (uint32_t)wc[i].wr_id;
		if (t >= (uint32_t)nw || wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].opcode != IBV_WC_SEND || seq < w[t].done ||
		    seq >= iters) {
			set_err(err, "SEND completion %#llx: %s, opcode %d",
				(unsigned long long)wc[i].wr_id,
				ibv_wc_status_str(wc[i].status), wc[i].opcode);
			return -1;
		}
		__atomic_store_n(&w[t].done, seq + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&w[t].last, now_us(), __ATOMIC_RELAXED);
	}
	k = ibv_poll_cq(p->rcq, MAX_BURST, wc);
	for (i = 0; i < k; i++)
		if (rx_one(p, w, nw, &wc[i], err))
			return -1;
	if (n < 0 || k < 0) {
		set_err(err, "ibv_poll_cq failed");
		return -1;
	}
	return n + k;
}

/* No progress for WATCHDOG_US: a hang. */
static int stalled(struct worker *w)
{
	return w->hang = now_us() - __atomic_load_n(&w->last,
				__ATOMIC_RELAXED) >= WATCHDOG_US;
}

/*
 * Posts w's next burst, then maybe pauses. SEND seq is signaled when
 * seq % SIG_EVERY == SIG_EVERY - 1 or it is the last. A burst waits until
 * it fits in w->limit; as k <= limit - SIG_EVERY + 1, whenever it does not
 * fit at least SIG_EVERY SENDs are outstanding, and the signaled one among
 * them frees the space. Slot seq % limit held SEND seq - limit, which is
 * complete once SEND seq fits. Phase 1 reaps while it waits.
 */
static int send_burst(struct worker *w)
{
	struct ibv_send_wr wr[MAX_BURST], *bad;
	struct ibv_sge sg[MAX_BURST];
	uint32_t k = 1 + xorshift(&w->rng) % MAX_BURST, i, seq, r;
	int list = xorshift(&w->rng) & 1, ret = 0, n;
	struct msg *m;

	if (k > iters - w->posted)
		k = iters - w->posted;
	if (k > w->limit - SIG_EVERY + 1)
		k = w->limit - SIG_EVERY + 1;
	while (w->posted + k - __atomic_load_n(&w->done, __ATOMIC_ACQUIRE) >
	       w->limit) {
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED) || stalled(w))
			return -1;
		n = w->phase == 1 ? reap(w->p, w, 1, w->err) : 0;
		if (n < 0)
			return -1;
		if (!n)
			usleep(20);
	}
	for (i = 0; i < k; i++) {
		seq = w->posted + i;
		m = &w->p->sbuf[w->sbase + seq % w->limit];
		msg_make(m, w->phase, w->id, seq);
		sg[i] = (struct ibv_sge){ (uintptr_t)m, sizeof(*m),
					  w->p->mr->lkey };
		wr[i] = (struct ibv_send_wr){ .opcode = IBV_WR_SEND,
			.wr_id = (uint64_t)w->id << 32 | seq,
			.sg_list = &sg[i], .num_sge = 1 };
		if (seq % SIG_EVERY == SIG_EVERY - 1 || seq == iters - 1)
			wr[i].send_flags = IBV_SEND_SIGNALED;
		if (list && i)
			wr[i - 1].next = &wr[i];
	}
	for (i = 0; i < k && !ret; i += list ? k : 1)
		if ((ret = ibv_post_send(w->p->qa, &wr[i], &bad)))
			set_err(w->err, "ibv_post_send of %u: %s",
				w->posted + i, strerror(ret));
	if (ret)
		return -1;
	w->posted += k;
	w->bursts++;
	w->lists += list && k > 1;
	__atomic_store_n(&w->last, now_us(), __ATOMIC_RELAXED);
	r = xorshift(&w->rng) % 8;	/* 3/8: none, 1/8: 1-3 ms, <300 us */
	w->pauses += r >= 3;
	if (r >= 3)
		usleep(r == 7 ? 1000 + xorshift(&w->rng) % 2000 :
				xorshift(&w->rng) % 300);
	return 0;
}

/* A poster thread; in phase 1 it also reaps its own pair. */
static void *poster(void *arg)
{
	struct worker *w = arg;
	long long t0 = now_us();
	int n;

	while (w->posted < iters && !send_burst(w) &&
	       (w->phase == 2 || reap(w->p, w, 1, w->err) >= 0))
		;
	while (w->phase == 1 && w->posted == iters &&
	       (w->done < iters || w->got < iters)) {
		n = reap(w->p, w, 1, w->err);
		if (n < 0 || (!n && stalled(w)))
			break;
		if (!n)
			usleep(20);
	}
	if (w->phase == 2 && (w->err[0] || w->hang))
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	else if (w->posted < iters && !w->hang)
		set_err(w->err, "stopped after %u SENDs", w->posted);
	w->secs = (now_us() - t0) / 1e6;
	return NULL;
}

/* Phase 2's receiver: reaps the shared pair until every message and every
 * SEND completion is in; stops the posters on an error or a hang. */
static void p2_reap(struct pair *p, struct worker *w, char *err)
{
	uint32_t total = 0, want = iters * nthreads;
	long long last = now_us();
	int t, n;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		n = reap(p, w, nthreads, err);
		if (n < 0)
			break;
		for (t = 0, total = 0; t < nthreads; t++)
			total += w[t].got + __atomic_load_n(&w[t].done,
							    __ATOMIC_RELAXED);
		if (total == 2 * want)
			return;
		if (n)
			last = now_us();
		else if (now_us() - last < WATCHDOG_US)
			usleep(20);
		else
			break;
	}
	set_err(err, "%s with %u of %u receives and SENDs complete",
		__atomic_load_n(&stop, __ATOMIC_RELAXED) ? "stopped" : "hang",
		total, 2 * want);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* Runs a phase on @p (phase 1: an array of pairs, one a thread). */
static void run(struct worker *w, int phase, struct pair *p, uint32_t limit)
{
	long long t0 = now_us();
	char err[ERR_LEN] = "";
	int i, started;

	for (i = 0; i < nthreads; i++)
		w[i] = (struct worker){ .id = i, .phase = phase, .limit = limit,
			.p = phase == 1 ? &p[i] : p, .last = now_us(),
			.rng = 0x2545f491u * (i + 1) + phase,
			.sbase = phase == 1 ? 0 : i * limit };
	for (started = 0; started < nthreads; started++)
		if (pthread_create(&w[started].tid, NULL, poster, &w[started]))
			break;
	if (phase == 2) {
		if (started == nthreads)
			p2_reap(p, w, err);
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	printf("# phase %d: %d threads x %u messages in %.2f s, %.0f msg/s\n",
	       phase, nthreads, iters, (now_us() - t0) / 1e6,
	       nthreads * iters * 1e6 / (now_us() - t0));
	if (!check(started == nthreads, "phase %d: %d threads started", phase,
		   nthreads))
		return;
	for (i = 0; i < nthreads; i++) {
		check(w[i].got == iters && !w[i].err[0] && !w[i].rxerr[0],
		      "phase %d thread %d: all %u messages arrived in order, intact%s%s%s%s",
		      phase, i, iters, w[i].err[0] ? ": " : "", w[i].err,
		      w[i].rxerr[0] ? ": " : "", w[i].rxerr);
		check(!w[i].hang, "phase %d thread %d: no hang (%u posted, %u SENDs complete, %u received)",
		      phase, i, w[i].posted, w[i].done, w[i].got);
		printf("# phase %d thread %d: %.2f s, %.0f msg/s, %u bursts (%u as one list), %u pauses\n",
		       phase, i, w[i].secs, w[i].got / (w[i].secs + 1e-9),
		       w[i].bursts, w[i].lists, w[i].pauses);
	}
	if (phase == 2)
		check(!err[0], "phase 2: the receiver got all %u messages and every SEND completion, no hang%s%s",
		      iters * nthreads, err[0] ? ": " : "", err);
}

static void on_alarm(int sig __attribute__((unused)))
{
	static const char m[] = "not ok - timeout\n";
	ssize_t r __attribute__((unused)) = write(1, m, sizeof(m) - 1);

	_exit(1);
}

int main(int argc, char **argv)
{
	static struct pair pairs[MAX_THREADS], shared;
	static struct worker w[MAX_THREADS];
	const char *err = NULL;
	int i;

	nthreads = argc > 3 ? atoi(argv[3]) : 4;
	iters = argc > 4 ? strtoul(argv[4], NULL, 0) : 2000;
	if (argc < 3 || argc > 5 || nthreads < 1 || nthreads > MAX_THREADS ||
	    !iters) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX [THREADS (1..%d)] [ITERS]\n",
			argv[0], MAX_THREADS);
		return 2;
	}
	gidx = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(TOTAL_S);

	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!check(pd && !ibv_query_gid(ctx, 1, gidx, &gid) &&
		   (gid.global.subnet_prefix || gid.global.interface_id),
		   "open %s, a PD, GID %d", argv[1], gidx))
		return tap_done();
	printf("# %d threads x %u messages of %zu bytes, every %dth signaled\n",
	       nthreads, iters, sizeof(struct msg), SIG_EVERY);

	for (i = 0; i < nthreads && !err; i++)
		err = pair_new(&pairs[i], P1_DEPTH, P1_DEPTH - SIG_EVERY,
			       P1_DEPTH, 0xffffc0 - 16 * i);
	if (check(!err, "phase 1: %d RC pairs connected%s%s", nthreads,
		  err ? ": " : "", err ? err : ""))
		run(w, 1, pairs, P1_DEPTH - SIG_EVERY);

	err = pair_new(&shared, nthreads * P2_CREDIT + SIG_EVERY,
		       nthreads * P2_CREDIT, P2_RQ, 0xfffff0);
	if (check(!err, "phase 2: one RC pair for %d posters%s%s", nthreads,
		  err ? ": " : "", err ? err : ""))
		run(w, 2, &shared, P2_CREDIT);
	return tap_done();
}
