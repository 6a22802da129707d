// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ud_ops DEVICE GID_INDEX [UNREACHABLE_IPV4]: UD queue pairs and address
 * handles through the public libibverbs API, on one device whose QPs send
 * to its own address. Data is checked byte for byte with guard bytes
 * after every receive buffer, and every error case ends in the completion
 * or errno the IBTA and libibverbs define. Q_Key and missing-receive drops
 * are read back from the device's counters. With UNREACHABLE_IPV4 (an
 * address the caller made unroutable), creating an AH to it must fail.
 * Prints TAP; exits non-zero if any test failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define GRH_LEN		40
#define QKEY		0x11111111u
#define BUF_SIZE	16384
#define RECV_OFF	8192
#define GUARD		0xa5
#define POLL_MS		30000	/* deadline for an event */
/* How long a datagram that must not arrive is waited for. */
#define SILENT_MS	300

static const char *devname;
static struct ibv_context *ctx;
static union ibv_gid gid;
static int gidx;
static uint32_t mtu;

struct end {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* A device counter (rdma statistic), or -1. */
static long long counter(const char *name)
{
	return hw_counter(devname, name);
}

static int end_make(struct end *e, struct ibv_pd *pd, uint32_t qkey)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};

	memset(e, 0, sizeof(*e));
	e->buf = aligned_alloc(4096, BUF_SIZE);
	e->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!e->buf || !e->cq)
		return -1;
	e->mr = ibv_reg_mr(pd, e->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(pd, &ia);
	if (!e->mr || !e->qp)
		return -1;
	return ud_qp_to_rts(e->qp, qkey);
}

static void end_free(struct end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	free(e->buf);
}

/* A receive of @len bytes at RECV_OFF, the bytes after it guards. */
static int post_recv(struct end *e, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + RECV_OFF,
		.length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	memset(e->buf + RECV_OFF, GUARD, BUF_SIZE - RECV_OFF);
	return ibv_post_recv(e->qp, &wr, &bad);
}

static int post_send(struct end *e, struct ibv_ah *ah, uint32_t qpn,
		     uint32_t qkey, uint32_t len, enum ibv_wr_opcode op,
		     int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf,
		.length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
		.imm_data = htonl(0xfeedbeef),
	};
	struct ibv_send_wr *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(e->qp, &wr, &bad);
}

static void pattern(uint8_t *p, uint32_t len, unsigned int seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + 1);
}

/* The payload after the GRH area is the pattern, and the guard follows. */
static int data_ok(struct end *r, uint32_t len, unsigned int seed)
{
	uint8_t want[BUF_SIZE];
	const uint8_t *p = r->buf + RECV_OFF + GRH_LEN;

	pattern(want, len, seed);
	return !memcmp(p, want, len) && p[len] == GUARD &&
	       p[len + 1] == GUARD;
}

/* The GRH area holds our own address as source and destination. */
static int grh_ok(struct end *r)
{
	const uint8_t *g = r->buf + RECV_OFF;
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(gid.raw, v4mapped, sizeof(v4mapped)))
		return (g[20] >> 4) == 4 && g[29] == 17 /* UDP */ &&
		       !memcmp(g + 32, gid.raw + 12, 4) &&
		       !memcmp(g + 36, gid.raw + 12, 4);
	return (g[0] >> 4) == 6 && g[6] == 17 &&
	       !memcmp(g + 8, gid.raw, 16) && !memcmp(g + 24, gid.raw, 16);
}

/* One datagram from @s to @r; the receive completion in @wc. */
static int xfer(struct end *s, struct end *r, struct ibv_ah *ah,
		uint32_t qkey, uint32_t len, enum ibv_wr_opcode op, int flags,
		unsigned int seed, struct ibv_wc *wc)
{
	struct ibv_wc sw;

	pattern(s->buf, len, seed);
	if (post_recv(r, GRH_LEN + len + 64) ||
	    post_send(s, ah, r->qp->qp_num, qkey, len, op, flags))
		return 0;
	if (!tap_wait_wc(s->cq, 1, &sw, POLL_MS) || sw.status != IBV_WC_SUCCESS ||
	    sw.opcode != IBV_WC_SEND)
		return 0;
	return tap_wait_wc(r->cq, 2, wc, POLL_MS);
}

static struct ibv_ah *make_ah(struct ibv_pd *pd, const union ibv_gid *dgid)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = gidx, .hop_limit = 64 },
	};

	return ibv_create_ah(pd, &a);
}

static void test_data(struct end *a, struct end *b, struct ibv_ah *ah)
{
	struct ibv_wc wc;
	int got;

	got = xfer(a, b, ah, QKEY, 256, IBV_WR_SEND, 0, 3, &wc);
	check(got && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV,
	      "a 256-byte datagram arrives (%s)",
	      got ? ibv_wc_status_str(wc.status) : "no completion");
	check(got && wc.byte_len == GRH_LEN + 256,
	      "byte_len counts the GRH area: %u", got ? wc.byte_len : 0);
	check(got && wc.src_qp == a->qp->qp_num && wc.qp_num == b->qp->qp_num,
	      "src_qp is the sender's QPN (%u, want %u)",
	      got ? wc.src_qp : 0, a->qp->qp_num);
	check(got && (wc.wc_flags & IBV_WC_GRH) && !(wc.wc_flags &
							IBV_WC_WITH_IMM),
	      "the completion says a GRH is present, no immediate");
	check(got && data_ok(b, 256, 3), "the payload is intact, guard bytes untouched");
	check(got && grh_ok(b), "the GRH area holds the IP header (our address both ways)");

	got = xfer(a, b, ah, QKEY, 100, IBV_WR_SEND_WITH_IMM, 0, 4, &wc);
	check(got && wc.status == IBV_WC_SUCCESS &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      wc.imm_data == htonl(0xfeedbeef) && data_ok(b, 100, 4),
	      "SEND_WITH_IMM: the immediate and the data arrive");
	got = xfer(a, b, ah, QKEY, 0, IBV_WR_SEND_WITH_IMM, 0, 0, &wc);
	check(got && wc.status == IBV_WC_SUCCESS && wc.byte_len == GRH_LEN,
	      "a zero-length datagram carries the GRH only (byte_len %u)",
	      got ? wc.byte_len : 0);
	got = xfer(a, b, ah, QKEY, 48, IBV_WR_SEND, IBV_SEND_INLINE, 5, &wc);
	check(got && wc.status == IBV_WC_SUCCESS && data_ok(b, 48, 5),
	      "an inline datagram arrives intact");
	got = xfer(a, b, ah, QKEY, mtu, IBV_WR_SEND, 0, 6, &wc);
	check(got && wc.status == IBV_WC_SUCCESS && data_ok(b, mtu, 6),
	      "a datagram of the port MTU (%u) arrives intact", mtu);
	/* A controlled Q_Key in the WR means: the sending QP's own. */
	got = xfer(a, b, ah, 0x80000000u, 64, IBV_WR_SEND, 0, 7, &wc);
	check(got && wc.status == IBV_WC_SUCCESS && data_ok(b, 64, 7),
	      "a controlled Q_Key in the WR sends with the QP's own");
}

static void test_drops(struct end *a, struct end *b, struct ibv_ah *ah)
{
	long long before;
	struct ibv_wc wc;
	int got;

	before = counter("rx_drop_qkey");
	pattern(a->buf, 64, 8);
	got = !post_recv(b, 256) &&
	      !post_send(a, ah, b->qp->qp_num, 0x22222222, 64, IBV_WR_SEND, 0) &&
	      tap_wait_wc(a->cq, 1, &wc, POLL_MS) && wc.status == IBV_WC_SUCCESS;
	check(got, "a send with the wrong Q_Key completes at the sender");
	/* The send completion says nothing of b: its drop is the event. */
	check(tap_counter_reaches(devname, "rx_drop_qkey", before + 1,
				  POLL_MS) == before + 1,
	      "rx_drop_qkey counts it (%lld -> %lld)", before,
	      counter("rx_drop_qkey"));
	check(!tap_wait_wc(b->cq, 2, &wc, SILENT_MS),
	      "the receiver gets nothing with the wrong Q_Key");
	/* The receive posted above is still there for the next datagram. */
	pattern(a->buf, 64, 9);
	got = !post_send(a, ah, b->qp->qp_num, QKEY, 64, IBV_WR_SEND, 0) &&
	      tap_wait_wc(a->cq, 1, &wc, POLL_MS) && tap_wait_wc(b->cq, 2, &wc, POLL_MS);
	check(got && wc.status == IBV_WC_SUCCESS && data_ok(b, 64, 9),
	      "the next datagram with the right Q_Key takes that receive");

	before = counter("rx_drop_no_recv");
	got = !post_send(a, ah, b->qp->qp_num, QKEY, 64, IBV_WR_SEND, 0) &&
	      tap_wait_wc(a->cq, 1, &wc, POLL_MS) && wc.status == IBV_WC_SUCCESS;
	check(got, "a datagram to a QP with no receive posted completes at the sender");
	check(tap_counter_reaches(devname, "rx_drop_no_recv", before + 1,
				  POLL_MS) == before + 1 &&
	      !tap_wait_wc(b->cq, 2, &wc, SILENT_MS),
	      "it is dropped and counted in rx_drop_no_recv (%lld -> %lld)",
	      before, counter("rx_drop_no_recv"));
	got = xfer(a, b, ah, QKEY, 32, IBV_WR_SEND, 0, 10, &wc);
	check(got && wc.status == IBV_WC_SUCCESS && data_ok(b, 32, 10),
	      "the QP receives the next one whole");
}

/* Errors that end a QP: each on a QP of its own. */
static void test_errors(struct ibv_pd *pd, struct end *b, struct ibv_ah *ah)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	long long before;
	struct ibv_pd *pd2;
	struct ibv_ah *ah2;
	struct ibv_wc wc;
	struct end c;
	int got;

	got = !end_make(&c, pd, QKEY) &&
	      !post_send(&c, ah, b->qp->qp_num, QKEY, mtu + 1, IBV_WR_SEND, 0) &&
	      tap_wait_wc(c.cq, 1, &wc, POLL_MS);
	check(got && wc.status == IBV_WC_LOC_LEN_ERR,
	      "a datagram longer than the MTU fails with LOC_LEN_ERR (%s)",
	      got ? ibv_wc_status_str(wc.status) : "no completion");
	end_free(&c);

	/*
	 * Too long for the receive: dropped and counted, as IBTA 9.9.3 has a
	 * UD responder do, so no sender can end a QP by sending to it.
	 */
	before = counter("rx_drop_len");
	got = !end_make(&c, pd, QKEY) && !post_recv(&c, GRH_LEN + 8) &&
	      !post_send(b, ah, c.qp->qp_num, QKEY, 64, IBV_WR_SEND, 0) &&
	      tap_wait_wc(b->cq, 1, &wc, POLL_MS) && wc.status == IBV_WC_SUCCESS;
	check(got && !tap_wait_wc(c.cq, 2, &wc, SILENT_MS),
	      "a datagram longer than the receive buffer completes nothing there");
	check(counter("rx_drop_len") == before + 1,
	      "it is dropped and counted in rx_drop_len (%lld -> %lld)", before,
	      counter("rx_drop_len"));
	check(c.buf[RECV_OFF] == GUARD && c.buf[RECV_OFF + GRH_LEN + 8] == GUARD,
	      "nothing was written into or past the receive buffer");
	check(!ibv_query_qp(c.qp, &qa, IBV_QP_STATE, &qi) &&
	      qa.qp_state == IBV_QPS_RTS, "the receiving QP stays in RTS");
	pattern(b->buf, 8, 11);
	got = !post_send(b, ah, c.qp->qp_num, QKEY, 8, IBV_WR_SEND, 0) &&
	      tap_wait_wc(b->cq, 1, &wc, POLL_MS) && tap_wait_wc(c.cq, 2, &wc, POLL_MS);
	check(got && wc.status == IBV_WC_SUCCESS && data_ok(&c, 8, 11),
	      "the next datagram that fits takes that receive, intact");
	end_free(&c);

	pd2 = ibv_alloc_pd(ctx);
	ah2 = pd2 ? make_ah(pd2, &gid) : NULL;
	got = ah2 && !end_make(&c, pd, QKEY) &&
	      !post_send(&c, ah2, b->qp->qp_num, QKEY, 16, IBV_WR_SEND, 0) &&
	      tap_wait_wc(c.cq, 1, &wc, POLL_MS);
	check(got && wc.status == IBV_WC_LOC_QP_OP_ERR,
	      "an AH of another PD fails the send with LOC_QP_OP_ERR (%s)",
	      got ? ibv_wc_status_str(wc.status) : "no completion");
	end_free(&c);
	if (ah2)
		ibv_destroy_ah(ah2);
	if (pd2)
		ibv_dealloc_pd(pd2);
}

static void test_refusals(struct ibv_pd *pd, struct end *a, struct ibv_ah *ah,
			  const char *unreach)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.send_cq = a->cq,
		.recv_cq = a->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qkey = QKEY };
	union ibv_gid bad = { .raw = { [10] = 0xff, [11] = 0xff } };
	struct ibv_ah *uah;
	struct ibv_qp *qp;
	int ret;

	ret = post_send(a, ah, a->qp->qp_num, QKEY, 8, IBV_WR_RDMA_WRITE, 0);
	check(ret == EINVAL, "RDMA WRITE on a UD QP is refused at post (%s)",
	      strerror(ret));
	qp = ibv_create_qp(pd, &ia);
	check(qp != NULL, "a second UD QP");
	if (!qp)
		return;
	ret = post_send(&(struct end){ .qp = qp, .mr = a->mr, .buf = a->buf },
			ah, 1, QKEY, 8, IBV_WR_SEND, 0);
	check(ret == EINVAL, "posting a send in RESET is refused (%s)",
	      strerror(ret));
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_QKEY);
	check(ret != 0, "INIT without a P_Key index is refused");
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_QKEY);
	check(ret == 0, "INIT with P_Key index, port and Q_Key");
	qa.qp_state = IBV_QPS_RTR;
	qa.dest_qp_num = 5;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_DEST_QPN);
	check(ret != 0, "RTR with a destination QPN (a connected attribute) is refused");
	ibv_destroy_qp(qp);

	if (!unreach)
		return;
	if (inet_pton(AF_INET, unreach, bad.raw + 12) != 1) {
		check(0, "%s is an IPv4 address", unreach);
		return;
	}
	errno = 0;
	uah = make_ah(pd, &bad);
	check(!uah && errno, "an AH to unreachable %s fails (%s)", unreach,
	      uah ? "created" : strerror(errno));
	if (uah)
		ibv_destroy_ah(uah);
}

/* Many datagrams in a row, each checked: nothing lost, nothing reordered. */
static void test_stream(struct end *a, struct end *b, struct ibv_ah *ah)
{
	int i, good = 0;
	struct ibv_wc wc;

	for (i = 0; i < 200; i++) {
		if (!xfer(a, b, ah, QKEY, 512, IBV_WR_SEND, 0, 100 + i, &wc) ||
		    wc.status != IBV_WC_SUCCESS || !data_ok(b, 512, 100 + i))
			break;
		good++;
	}
	check(good == 200, "200 datagrams in a row arrive intact (%d)", good);
}

int main(int argc, char **argv)
{
	struct ibv_port_attr pa;
	struct end a, b;
	struct ibv_pd *pd;
	struct ibv_ah *ah;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX [UNREACHABLE_IPV4]\n",
			argv[0]);
		return 2;
	}
	devname = argv[1];
	gidx = atoi(argv[2]);
	ctx = open_dev(devname);
	if (!check(ctx != NULL, "open %s", devname))
		return tap_done();
	if (!check(!ibv_query_port(ctx, 1, &pa) &&
		   !ibv_query_gid(ctx, 1, gidx, &gid), "query port and GID %d",
		   gidx))
		return tap_done();
	mtu = 128u << pa.active_mtu;
	pd = ibv_alloc_pd(ctx);
	if (!check(pd && !end_make(&a, pd, QKEY) && !end_make(&b, pd, QKEY),
		   "two UD QPs in RTS (qkey 0x%x)", QKEY))
		return tap_done();
	ah = make_ah(pd, &gid);
	if (!check(ah != NULL, "an AH to our own GID (%s)",
		   ah ? "ok" : strerror(errno)))
		return tap_done();

	test_data(&a, &b, ah);
	test_drops(&a, &b, ah);
	test_stream(&a, &b, ah);
	test_errors(pd, &b, ah);
	test_refusals(pd, &a, ah, argc > 3 ? argv[3] : NULL);

	check(!ibv_destroy_ah(ah), "the AH is destroyed");
	end_free(&a);
	end_free(&b);
	check(!ibv_dealloc_pd(pd), "the PD frees after it");
	ibv_close_device(ctx);
	return tap_done();
}
