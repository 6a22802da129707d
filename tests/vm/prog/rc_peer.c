// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_peer -d DEV -g GID_INDEX [-p PORT] [-s SIZE] [-m MTU] [-n ITERS]
 *         [-t TIMEOUT] [-u [-L PERCENT]] [-w] [SERVER]
 *
 * One RC QP on each of two hosts, connected over TCP like ibv_rc_pingpong
 * (the side given SERVER is the client). Both sides run the same steps at
 * once, each towards the other, so every operation crosses the link in
 * both directions with the other's traffic interleaved:
 *
 *   a burst of SENDs with immediates, three SGEs each, arriving in order;
 *   a zero-length SEND; RDMA WRITE with immediate; RDMA WRITE; RDMA READ;
 *   FETCH_AND_ADD and CMP_AND_SWP, each checked by the value returned and
 *   the value left behind.
 *
 * Every byte is patterned per iteration and step and checked where it
 * lands. Steps are separated by TCP barriers, and so is the end: unlike
 * ibv_rc_pingpong, neither side destroys its QP while the other may still
 * need an ACK from it, so a lossy link cannot fail a correct device.
 * Exits 0 when everything arrived intact; otherwise prints why and exits 1.
 *
 * -t sets the QPs' local ACK timeout (4.096 us << TIMEOUT, default 14: 67
 * ms); a slow, lossy link with deep queues wants a longer one, as it does
 * on real networks.
 *
 * -u makes the QPs UC, which nothing retransmits: each iteration is then
 * a burst of SEND_WITH_IMMs both ways, the message's number in the
 * immediate, BURST receives always posted. A message that lost a packet
 * is dropped whole by the responder; every one that arrives must be whole
 * (its length, every byte of the pattern of its number) and arrive once.
 * At least PERCENT of the messages sent must arrive (-L, default 100: a
 * clean link loses none).
 *
 * -A adds IBTA 1.5's ATOMIC WRITE to the RC steps: the QPs are created
 * with ibv_create_qp_ex(), and each side writes 8 patterned bytes over
 * the peer's atomic word with ibv_wr_atomic_write(); they must land as
 * they were sent, and a FETCH_AND_ADD after them must return them.
 *
 * -F (rc_peer56 only: built against rdma-core 56.1, which has
 * ibv_wr_flush) adds FLUSH: after its RDMA WRITE this side flushes the
 * range it wrote, then the peer's whole MR with length 0; both complete
 * as IBV_WC_FLUSH with the length asked for. -G grants FLUSH without
 * posting one (the peer runs with -F): with either, buffers and QPs grant
 * FLUSH for global visibility.
 *
 * -w reaches the peer's memory through a memory window only: each side
 * registers its buffer with no remote right (LOCAL_WRITE | MW_BIND),
 * binds a type 1 window over all of it with remote write, read and atomic
 * once its QP is in RTS, and sends the window's rkey; the RC steps then
 * WRITE, READ and run atomics through the windows.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define BURST		4
#define WAIT_MS		60000
#define ATOMIC_ADD	0x1000001ULL

struct wire {			/* what each side tells the other, big endian */
	uint32_t qpn, psn, rkey, size;
	uint64_t addr;
	uint8_t gid[16];
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_mw *mw;	/* -w: the window over mem */
	unsigned char *mem;
	size_t size, stride;
	int sock;
	uint64_t peer_addr;
	uint32_t peer_rkey;
};

/* Regions of the one registered buffer, @size bytes each, 64-byte aligned. */
enum { R_SEND = 0, R_RECV = BURST, R_TARGET = 2 * BURST, R_READ, R_ATOMIC };

static int ack_timeout = 14;
static enum ibv_qp_type qp_type = IBV_QPT_RC;
static int use_mw;
static int use_aw;
static int use_flush;	/* 1: post FLUSHes; 2: only grant them (-G) */

#ifdef RC_PEER_FLUSH
#define FLUSH_ACCESS	(use_flush ? IBV_ACCESS_FLUSH_GLOBAL : 0)
#define FLUSH_OPS	(use_flush ? IBV_QP_EX_WITH_FLUSH : 0)
#else
#define FLUSH_ACCESS	0
#define FLUSH_OPS	0
#endif

static unsigned char *region(struct side *s, int r)
{
	return s->mem + (size_t)r * s->stride;
}

static uint64_t region_addr(struct side *s, int r)
{
	return (uintptr_t)region(s, r);
}

static __attribute__((noreturn, format(printf, 1, 2)))
void fail(const char *fmt, ...)
{
	va_list ap;

	printf("rc_peer: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

/* Bytes no shift, truncation or stale copy can reproduce. */
static unsigned char fill_byte(uint32_t seed, size_t i)
{
	uint32_t x = seed ^ (uint32_t)(i * 0x9e3779b1u);

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x;
}

static void fill(unsigned char *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = fill_byte(seed, i);
}

static void expect(const unsigned char *p, size_t n, uint32_t seed,
		   const char *what, int iter)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != fill_byte(seed, i))
			fail("iteration %d, %s: byte %zu of %zu is 0x%02x, not 0x%02x",
			     iter, what, i, n, p[i], fill_byte(seed, i));
}

/* The seed of what host @who writes in @step of @iter. */
static uint32_t seed_of(int who, int iter, int step)
{
	return 0x5eed0000u ^ (uint32_t)who << 28 ^ (uint32_t)iter << 8 ^ step;
}

static void full_io(int fd, void *buf, size_t n, int out)
{
	unsigned char *p = buf;

	while (n) {
		ssize_t r = out ? write(fd, p, n) : read(fd, p, n);

		if (r <= 0)
			fail("TCP %s to the peer failed: %s", out ? "write" : "read",
			     r ? strerror(errno) : "peer closed");
		p += r;
		n -= r;
	}
}

/* Neither side goes on until both have arrived. */
static void barrier(struct side *s)
{
	char c = 'b';

	full_io(s->sock, &c, 1, 1);
	full_io(s->sock, &c, 1, 0);
}

static int tcp_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
	int fd = -1;

	if (getaddrinfo(host, port, &hints, &res))
		fail("cannot resolve %s", host);
	for (a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd >= 0 && !connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		/* The words the test scripts' connect_retry looks for. */
		printf("Couldn't connect to %s:%s\n", host, port);
		exit(1);
	}
	return fd;
}

static int tcp_accept(const char *port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
				   .sin6_port = htons(atoi(port)) };
	int one = 1, lfd, fd;

	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		fail("cannot listen on port %s: %s", port, strerror(errno));
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		fail("accept: %s", strerror(errno));
	close(lfd);
	return fd;
}

static enum ibv_mtu mtu_of(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	}
	fail("path MTU %d is not one of 256..4096", bytes);
}

static void setup(struct side *s, const char *dev, size_t size)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = qp_type,
		.cap = { .max_send_wr = 2 * BURST, .max_recv_wr = 2 * BURST,
			 .max_send_sge = 3, .max_recv_sge = 1 },
	};
	size_t len;

	s->size = size;
	s->stride = (size + 63) & ~(size_t)63;
	len = (size_t)(R_ATOMIC + 1) * s->stride;
	s->ctx = open_dev(dev);
	if (!s->ctx)
		fail("no RDMA device %s", dev);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 4 * BURST, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		fail("cannot allocate a PD and a CQ on %s", dev);
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	if (use_aw || use_flush) {
		struct ibv_qp_init_attr_ex iax = {
			.qp_type = ia.qp_type, .cap = ia.cap, .pd = s->pd,
			.send_cq = s->cq, .recv_cq = s->cq,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE |
					  FLUSH_OPS,
		};

		s->qp = ibv_create_qp_ex(s->ctx, &iax);
	} else {
		s->qp = ibv_create_qp(s->pd, &ia);
	}
	if (!s->qp)
		fail("ibv_create_qp: %s", strerror(errno));
	if (posix_memalign((void **)&s->mem, 4096, len))
		fail("out of memory");
	memset(s->mem, 0, len);
	s->mr = ibv_reg_mr(s->pd, s->mem, len, use_mw ?
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND :
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			   FLUSH_ACCESS);
	if (!s->mr)
		fail("ibv_reg_mr: %s", strerror(errno));
	if (use_mw && !(s->mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_1)))
		fail("ibv_alloc_mw(type 1): %s", strerror(errno));
}

/* Exchange addresses over TCP and take the QP through INIT, RTR and RTS. */
static void connect_qp(struct side *s, int port_num, int gid_index, enum ibv_mtu mtu)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = port_num,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC | FLUSH_ACCESS,
	};
	/* UC takes no read/atomic resources, timers or retry counts. */
	int uc = qp_type == IBV_QPT_UC;
	struct wire me = { 0 }, peer;
	union ibv_gid gid;
	uint32_t psn;

	srand48(getpid() ^ time(NULL));
	psn = lrand48() & 0xffffff;
	if (ibv_query_gid(s->ctx, port_num, gid_index, &gid))
		fail("no GID at index %d", gid_index);
	me.qpn = htobe32(s->qp->qp_num);
	me.psn = htobe32(psn);
	me.rkey = htobe32(s->mr->rkey);
	me.size = htobe32(s->size);
	me.addr = htobe64((uintptr_t)s->mem);
	memcpy(me.gid, gid.raw, 16);
	full_io(s->sock, &me, sizeof(me), 1);
	full_io(s->sock, &peer, sizeof(peer), 0);
	if (be32toh(peer.size) != s->size)
		fail("the peer runs with -s %u, this side with -s %zu",
		     be32toh(peer.size), s->size);
	s->peer_addr = be64toh(peer.addr);
	s->peer_rkey = be32toh(peer.rkey);

	if (uc)
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		fail("modify to INIT failed");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = be32toh(peer.qpn);
	a.rq_psn = be32toh(peer.psn);
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = port_num;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = gid_index;
	memcpy(a.ah_attr.grh.dgid.raw, peer.gid, 16);
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  (uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER)))
		fail("modify to RTR failed: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = ack_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  (uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)))
		fail("modify to RTS failed: %s", strerror(errno));
}

/*
 * -w: bind the window over the whole buffer (the QP is in RTS), then trade
 * rkeys over TCP: from now on the peer reaches us through the window.
 */
static void bind_window(struct side *s)
{
	struct ibv_mw_bind b = {
		.wr_id = 0x3d, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = s->mr, .addr = (uintptr_t)s->mem,
			.length = (size_t)(R_ATOMIC + 1) * s->stride,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_ATOMIC,
		},
	};
	uint32_t mine, peer;
	struct ibv_wc wc;
	int ret = ibv_bind_mw(s->qp, s->mw, &b);

	if (ret)
		fail("ibv_bind_mw: %s", strerror(ret));
	do {
		ret = ibv_poll_cq(s->cq, 1, &wc);
	} while (!ret);
	if (ret < 0 || wc.status != IBV_WC_SUCCESS || wc.wr_id != 0x3d ||
	    wc.opcode != IBV_WC_BIND_MW)
		fail("the bind completed with %s, opcode %d",
		     ibv_wc_status_str(wc.status), wc.opcode);
	mine = htobe32(s->mw->rkey);
	full_io(s->sock, &mine, sizeof(mine), 1);
	full_io(s->sock, &peer, sizeof(peer), 0);
	s->peer_rkey = be32toh(peer);
}

static void post_recv(struct side *s, int slot)
{
	struct ibv_sge sg = { .addr = region_addr(s, R_RECV + slot),
			      .length = s->size, .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sg, .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		fail("ibv_post_recv: %s", strerror(errno));
}

static void post_send(struct side *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(s->qp, wr, &bad))
		fail("ibv_post_send: %s", strerror(errno));
}

/* The next completion, which must be a success. */
static void next_ok(struct side *s, struct ibv_wc *wc, const char *what, int iter)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(n = ibv_poll_cq(s->cq, 1, wc))) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 > WAIT_MS)
			fail("iteration %d, %s: no completion in %d s",
			     iter, what, WAIT_MS / 1000);
	}
	if (n < 0)
		fail("iteration %d, %s: ibv_poll_cq failed", iter, what);
	if (wc->status != IBV_WC_SUCCESS)
		fail("iteration %d, %s: completion status %s (wr_id %llu)", iter, what,
		     ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id);
}

/* The next completion, which must be a success of @opcode. */
static void next_wc(struct side *s, struct ibv_wc *wc, enum ibv_wc_opcode opcode,
		    const char *what, int iter)
{
	next_ok(s, wc, what, iter);
	if (wc->opcode != opcode)
		fail("iteration %d, %s: completion opcode %d, not %d",
		     iter, what, wc->opcode, opcode);
}

/*
 * The send completions and receive completions of one step share a CQ
 * and may come in any order between the two kinds, but each kind comes
 * in the order it was posted. @sends and @recvs count what is expected.
 */
static void reap(struct side *s, int sends, int recvs, enum ibv_wc_opcode send_op,
		 enum ibv_wc_opcode recv_op, struct ibv_wc *rwc, const char *what, int iter)
{
	struct ibv_wc wc;
	int next_send = 0, next_recv = 0;

	while (next_send < sends || next_recv < recvs) {
		int is_send;

		next_ok(s, &wc, what, iter);
		is_send = !(wc.opcode & IBV_WC_RECV);
		if (is_send ? next_send >= sends : next_recv >= recvs)
			fail("iteration %d, %s: an extra %s completion", iter, what,
			     is_send ? "send" : "receive");
		if (wc.opcode != (is_send ? send_op : recv_op))
			fail("iteration %d, %s: completion opcode %d", iter, what, wc.opcode);
		if (is_send) {
			if (wc.wr_id != (uint64_t)next_send)
				fail("iteration %d, %s: send %llu completed before send %d",
				     iter, what, (unsigned long long)wc.wr_id, next_send);
			next_send++;
		} else {
			if (wc.wr_id != (uint64_t)next_recv)
				fail("iteration %d, %s: receive %llu completed before %d",
				     iter, what, (unsigned long long)wc.wr_id, next_recv);
			rwc[next_recv++] = wc;
		}
	}
}

/* BURST SENDs with immediates, three SGEs each; they must land in order. */
static void step_send_burst(struct side *s, int me, int iter)
{
	struct ibv_wc rwc[BURST];
	size_t third = s->size / 3;
	int k;

	for (k = 0; k < BURST; k++) {
		fill(region(s, R_SEND + k), s->size, seed_of(me, iter, k));
		memset(region(s, R_RECV + k), 0, s->size);
		post_recv(s, k);
	}
	barrier(s);
	for (k = 0; k < BURST; k++) {
		uint64_t base = region_addr(s, R_SEND + k);
		struct ibv_sge sg[3] = {
			{ base, third, s->mr->lkey },
			{ base + third, third, s->mr->lkey },
			{ base + 2 * third, s->size - 2 * third, s->mr->lkey },
		};
		struct ibv_send_wr wr = {
			.wr_id = k, .sg_list = sg, .num_sge = 3,
			.opcode = IBV_WR_SEND_WITH_IMM,
			.imm_data = htonl(iter * BURST + k),
		};

		post_send(s, &wr);
	}
	reap(s, BURST, BURST, IBV_WC_SEND, IBV_WC_RECV, rwc, "SEND burst", iter);
	for (k = 0; k < BURST; k++) {
		if (!(rwc[k].wc_flags & IBV_WC_WITH_IMM) ||
		    ntohl(rwc[k].imm_data) != (uint32_t)(iter * BURST + k))
			fail("iteration %d, SEND %d: immediate 0x%x, not 0x%x", iter, k,
			     ntohl(rwc[k].imm_data), iter * BURST + k);
		if (rwc[k].byte_len != s->size)
			fail("iteration %d, SEND %d: %u bytes arrived, not %zu",
			     iter, k, rwc[k].byte_len, s->size);
		expect(region(s, R_RECV + k), s->size, seed_of(!me, iter, k), "SEND", iter);
	}
}

static void step_zero_send(struct side *s, int iter)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
	struct ibv_wc rwc;

	post_recv(s, 0);
	barrier(s);
	post_send(s, &wr);
	reap(s, 1, 1, IBV_WC_SEND, IBV_WC_RECV, &rwc, "zero-length SEND", iter);
	if (rwc.byte_len)
		fail("iteration %d, zero-length SEND: %u bytes arrived", iter, rwc.byte_len);
}

/* RDMA WRITE, with an immediate when @imm, into the peer's target region. */
static void step_write(struct side *s, int me, int iter, int imm)
{
	int step = BURST + imm;
	struct ibv_sge sg = { region_addr(s, R_SEND), s->size, s->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sg, .num_sge = 1,
		.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.imm_data = htonl(~iter),
		.wr.rdma = { s->peer_addr + (size_t)R_TARGET * s->stride, s->peer_rkey },
	};
	const char *what = imm ? "WRITE_WITH_IMM" : "WRITE";
	struct ibv_wc rwc;

	fill(region(s, R_SEND), s->size, seed_of(me, iter, step));
	memset(region(s, R_TARGET), 0, s->size);
	if (imm)
		post_recv(s, 0);
	barrier(s);
	post_send(s, &wr);
	reap(s, 1, imm, IBV_WC_RDMA_WRITE, IBV_WC_RECV_RDMA_WITH_IMM, &rwc, what, iter);
	if (imm && (!(rwc.wc_flags & IBV_WC_WITH_IMM) ||
		    ntohl(rwc.imm_data) != (uint32_t)~iter))
		fail("iteration %d, WRITE_WITH_IMM: immediate 0x%x", iter,
		     ntohl(rwc.imm_data));
	/* The peer's completion means our target holds all it wrote. */
	barrier(s);
	expect(region(s, R_TARGET), s->size, seed_of(!me, iter, step), what, iter);
}

static void step_read(struct side *s, int me, int iter)
{
	int step = BURST + 2;
	struct ibv_sge sg = { region_addr(s, R_READ), s->size, s->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.wr.rdma = { s->peer_addr + (size_t)R_TARGET * s->stride, s->peer_rkey },
	};
	struct ibv_wc wc;

	fill(region(s, R_TARGET), s->size, seed_of(me, iter, step));
	memset(region(s, R_READ), 0, s->size);
	barrier(s);
	post_send(s, &wr);
	next_wc(s, &wc, IBV_WC_RDMA_READ, "READ", iter);
	expect(region(s, R_READ), s->size, seed_of(!me, iter, step), "READ", iter);
	barrier(s);	/* the peer has read our target: it may change now */
}

static void atomic_op(struct side *s, enum ibv_wr_opcode op, uint64_t add_or_cmp,
		      uint64_t swap, uint64_t want_old, const char *what, int iter)
{
	uint64_t *old = (uint64_t *)region(s, R_READ);
	struct ibv_sge sg = { (uintptr_t)old, 8, s->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sg, .num_sge = 1, .opcode = op,
		.wr.atomic = { s->peer_addr + (size_t)R_ATOMIC * s->stride,
			       add_or_cmp, swap, s->peer_rkey },
	};
	struct ibv_wc wc;

	*old = 0;
	post_send(s, &wr);
	next_wc(s, &wc, op == IBV_WR_ATOMIC_FETCH_AND_ADD ? IBV_WC_FETCH_ADD :
		IBV_WC_COMP_SWAP, what, iter);
	if (*old != want_old)
		fail("iteration %d, %s: returned 0x%llx, not 0x%llx", iter, what,
		     (unsigned long long)*old, (unsigned long long)want_old);
}

/* Each side's word starts at a value of its own; the peer adds, then swaps. */
static void step_atomics(struct side *s, int me, int iter)
{
	volatile uint64_t *word = (uint64_t *)region(s, R_ATOMIC);
	uint64_t mine = (uint64_t)seed_of(me, iter, 9) << 32 | 0xfffffff0u;
	uint64_t theirs = (uint64_t)seed_of(!me, iter, 9) << 32 | 0xfffffff0u;

	*word = mine;
	barrier(s);
	atomic_op(s, IBV_WR_ATOMIC_FETCH_AND_ADD, ATOMIC_ADD, 0, theirs,
		  "FETCH_AND_ADD", iter);
	/* A compare that fails must leave the word alone ... */
	atomic_op(s, IBV_WR_ATOMIC_CMP_AND_SWP, theirs, ~theirs, theirs + ATOMIC_ADD,
		  "CMP_AND_SWP (unequal)", iter);
	/* ... and one that matches must swap. */
	atomic_op(s, IBV_WR_ATOMIC_CMP_AND_SWP, theirs + ATOMIC_ADD, ~theirs,
		  theirs + ATOMIC_ADD, "CMP_AND_SWP (equal)", iter);
	barrier(s);
	if (*word != ~mine)
		fail("iteration %d, atomics: the word holds 0x%llx, not 0x%llx", iter,
		     (unsigned long long)*word, (unsigned long long)~mine);
}

/*
 * -A: 8 bytes over the peer's word with ATOMIC WRITE, landing as sent
 * (a byte string); then a FETCH_AND_ADD there returns them.
 */
static void step_atomic_write(struct side *s, int me, int iter)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(s->qp);
	unsigned char *word = region(s, R_ATOMIC), out[8];
	uint64_t sent;
	struct ibv_wc wc;

	fill(out, 8, seed_of(me, iter, 10));
	memset(word, 0, 8);
	barrier(s);
	ibv_wr_start(qx);
	qx->wr_id = 0;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, s->peer_rkey,
			    s->peer_addr + (size_t)R_ATOMIC * s->stride, out);
	if (ibv_wr_complete(qx))
		fail("iteration %d, ATOMIC WRITE: posting failed", iter);
	next_wc(s, &wc, IBV_WC_ATOMIC_WRITE, "ATOMIC WRITE", iter);
	barrier(s);	/* the peer's word holds ours, ours the peer's */
	expect(word, 8, seed_of(!me, iter, 10), "ATOMIC WRITE", iter);
	barrier(s);	/* checked: the peer may add to it now */
	memcpy(&sent, out, 8);
	atomic_op(s, IBV_WR_ATOMIC_FETCH_AND_ADD, 1, 0, sent,
		  "FETCH_AND_ADD after ATOMIC WRITE", iter);
	barrier(s);
}

#ifdef RC_PEER_FLUSH
static void flush_one(struct side *s, uint64_t addr, size_t len,
		      uint8_t level, const char *what, int iter)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(s->qp);
	struct ibv_wc wc;

	ibv_wr_start(qx);
	qx->wr_id = 0;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(qx, s->peer_rkey, addr, len, IBV_FLUSH_GLOBAL, level);
	if (ibv_wr_complete(qx))
		fail("iteration %d, %s: posting failed", iter, what);
	next_wc(s, &wc, IBV_WC_FLUSH, what, iter);
	if (wc.byte_len != len)
		fail("iteration %d, %s: byte_len %u, not %zu", iter, what,
		     wc.byte_len, len);
}

/* -F: the range this side just wrote, then the peer's whole MR. */
static void step_flush(struct side *s, int iter)
{
	if (use_flush == 1) {
		flush_one(s, s->peer_addr + (size_t)R_TARGET * s->stride,
			  s->size, IBV_FLUSH_RANGE,
			  "FLUSH of the range written", iter);
		flush_one(s, s->peer_addr, 0, IBV_FLUSH_MR,
			  "FLUSH of the whole MR", iter);
	}
	barrier(s);
}
#endif

/* -u: what the UC stream saw, over all iterations. */
struct uc_tally {
	unsigned char *seen;	/* one per message number the peer sends */
	int nseen, max;
	bool all;		/* a clean link: every message must come */
};

/* A UC message arrived in receive @slot: whole, and not seen before. */
static void uc_take(struct side *s, struct uc_tally *t, const struct ibv_wc *wc,
		    int me)
{
	uint32_t n = ntohl(wc->imm_data);
	int slot = wc->wr_id;

	if (wc->opcode != IBV_WC_RECV || !(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    n >= (uint32_t)t->max)
		fail("UC: a receive completion with opcode %d, flags 0x%x, number %u",
		     wc->opcode, wc->wc_flags, n);
	if (t->seen[n])
		fail("UC: message %u arrived twice", n);
	if (wc->byte_len != s->size)
		fail("UC: message %u: %u bytes arrived, not %zu", n, wc->byte_len,
		     s->size);
	expect(region(s, R_RECV + slot), s->size,
	       seed_of(!me, n / BURST, n % BURST), "UC SEND", n / BURST);
	t->seen[n] = 1;
	t->nseen++;
	memset(region(s, R_RECV + slot), 0, s->size);
	post_recv(s, slot);
}

/*
 * One UC burst each way. Send completions come as the packets leave; the
 * peer's messages may still be on the link after the barrier, so receive
 * completions are taken until every message sent so far has come (on a
 * clean link, t->all: up to 60 s), or, where the link may lose them,
 * until none came for 300 ms.
 */
static void step_uc_burst(struct side *s, struct uc_tally *t, int me, int iter)
{
	struct timespec t0, now;
	int k, sends = 0, n;
	struct ibv_wc wc;

	for (k = 0; k < BURST; k++)
		fill(region(s, R_SEND + k), s->size, seed_of(me, iter, k));
	barrier(s);
	for (k = 0; k < BURST; k++) {
		struct ibv_sge sg = { region_addr(s, R_SEND + k), s->size,
				      s->mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = k, .sg_list = &sg, .num_sge = 1,
			.opcode = IBV_WR_SEND_WITH_IMM,
			.imm_data = htonl(iter * BURST + k),
		};

		post_send(s, &wr);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sends < BURST) {
		next_ok(s, &wc, "UC burst", iter);
		if (wc.opcode & IBV_WC_RECV) {
			uc_take(s, t, &wc, me);
			continue;
		}
		if (wc.opcode != IBV_WC_SEND || wc.wr_id != (uint64_t)sends)
			fail("iteration %d, UC burst: send completion %llu (opcode %d), want %d",
			     iter, (unsigned long long)wc.wr_id, wc.opcode, sends);
		sends++;
	}
	barrier(s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(s->cq, 1, &wc);
		if (n < 0)
			fail("iteration %d, UC burst: ibv_poll_cq failed", iter);
		if (n && wc.status != IBV_WC_SUCCESS)
			fail("iteration %d, UC burst: receive status %s", iter,
			     ibv_wc_status_str(wc.status));
		if (n) {
			uc_take(s, t, &wc, me);
			if (!t->all)
				clock_gettime(CLOCK_MONOTONIC, &t0);
		}
		if (t->all && t->nseen == (iter + 1) * BURST)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - t0.tv_sec) * 1000 +
		 (now.tv_nsec - t0.tv_nsec) / 1000000 < (t->all ? 60000 : 300));
}

static void teardown(struct side *s)
{
	if (ibv_destroy_qp(s->qp) || (s->mw && ibv_dealloc_mw(s->mw)) ||
	    ibv_dereg_mr(s->mr) ||
	    ibv_destroy_cq(s->cq) || ibv_dealloc_pd(s->pd) ||
	    ibv_close_device(s->ctx))
		fail("teardown failed");
	free(s->mem);
	close(s->sock);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *port = "18515", *server = NULL;
	int gid_index = 0, mtu = 1024, iters = 3, opt, iter, me, min_pct = 100;
	struct uc_tally tally = { 0 };
	size_t size = 4096;
	struct side s = { 0 };

	while ((opt = getopt(argc, argv, "d:g:p:s:m:n:t:uL:wAFG")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'p': port = optarg; break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'm': mtu = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 't': ack_timeout = atoi(optarg); break;
		case 'u': qp_type = IBV_QPT_UC; break;
		case 'L': min_pct = atoi(optarg); break;
		case 'w': use_mw = 1; break;
		case 'A': use_aw = 1; break;
#ifdef RC_PEER_FLUSH
		case 'F': use_flush = 1; break;
		case 'G': use_flush = 2; break;
#endif
		default: fail("usage: rc_peer -d DEV -g GID_INDEX [-p PORT] [-s SIZE] [-m MTU] [-n ITERS] [-t TIMEOUT] [-u [-L PERCENT]] [-w] [-A] [SERVER]");
		}
	}
	if (!dev || !size || size > (1u << 30) || iters < 1 ||
	    ack_timeout < 0 || ack_timeout > 31 || min_pct < 0 || min_pct > 100 ||
	    ((use_mw || use_aw || use_flush) && qp_type == IBV_QPT_UC) ||
	    (use_mw && use_flush))
		fail("usage: rc_peer -d DEV -g GID_INDEX [-p PORT] [-s 1..1G] [-m MTU] [-n ITERS] [-t 0..31] [-u [-L 0..100] | -w | -A] [SERVER]");
	if (optind < argc)
		server = argv[optind];
	me = !!server;

	setup(&s, dev, size);
	s.sock = server ? tcp_connect(server, port) : tcp_accept(port);
	connect_qp(&s, 1, gid_index, mtu_of(mtu));
	if (use_mw)
		bind_window(&s);
	if (qp_type == IBV_QPT_UC) {
		tally.max = iters * BURST;
		tally.seen = calloc(tally.max, 1);
		tally.all = min_pct == 100;
		if (!tally.seen)
			fail("out of memory");
		for (iter = 0; iter < BURST; iter++)
			post_recv(&s, iter);
		for (iter = 0; iter < iters; iter++)
			step_uc_burst(&s, &tally, me, iter);
		barrier(&s);
		teardown(&s);
		printf("rc_peer: UC, %d messages of %zu B, MTU %d: %d arrived, each whole and once\n",
		       tally.max, size, mtu, tally.nseen);
		if (tally.nseen * 100 < tally.max * min_pct)
			fail("UC: %d of %d messages arrived, fewer than %d%%",
			     tally.nseen, tally.max, min_pct);
		return 0;
	}
	for (iter = 0; iter < iters; iter++) {
		step_send_burst(&s, me, iter);
		step_zero_send(&s, iter);
		step_write(&s, me, iter, 1);
		step_write(&s, me, iter, 0);
#ifdef RC_PEER_FLUSH
		if (use_flush)
			step_flush(&s, iter);
#endif
		step_read(&s, me, iter);
		step_atomics(&s, me, iter);
		if (use_aw)
			step_atomic_write(&s, me, iter);
	}
	/* Both sides have every completion: no ACK is owed any more. */
	barrier(&s);
	teardown(&s);
	printf("rc_peer: %d iterations of SEND x%d, zero SEND, WRITE_WITH_IMM, WRITE, READ, atomics%s%s, %zu B, MTU %d: all data intact\n",
	       iters, BURST, use_aw && use_flush == 1 ? ", ATOMIC WRITE, FLUSH" :
	       use_aw ? ", ATOMIC WRITE" : use_flush == 1 ? ", FLUSH" : "",
	       use_mw ? " (through memory windows)" : "", size, mtu);
	return 0;
}
