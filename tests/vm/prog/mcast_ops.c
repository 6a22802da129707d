// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mcast_ops DEVICE GID_INDEX: UD multicast through the public libibverbs
 * API on one device (ibv_attach_mcast, ibv_detach_mcast). Datagrams sent
 * to a group (QPN 0xffffff, an AH to the group's GID) reach every QP
 * attached on this host, byte for byte with guard bytes, and no QP that
 * is not; a QP leaves with detach or with its destruction; the error
 * cases give the errno the RDMA core expects. The group is an IPv4 one
 * for an IPv4 GID, an IPv6 one otherwise. Prints TAP.
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

#define NQP		3
#define GRH_LEN		40
#define QKEY		0x1234567u
#define BUF_SIZE	8192
#define GUARD		0x5a
#define MCAST_QPN	0xffffffu
#define POLL_MS		30000	/* deadline for an event */
/* How long a datagram that must not arrive is waited for. */
#define SILENT_MS	300

static const char *devname;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid, mgid;
static int gidx, v4;

struct end {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static struct end e[NQP];

static int end_make(struct end *x)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	x->buf = aligned_alloc(4096, BUF_SIZE);
	x->cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	if (!x->buf || !x->cq)
		return -1;
	x->mr = ibv_reg_mr(pd, x->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	ia.send_cq = x->cq;
	ia.recv_cq = x->cq;
	x->qp = x->mr ? ibv_create_qp(pd, &ia) : NULL;
	return x->qp ? ud_qp_to_rts(x->qp, QKEY) : -1;
}

static void end_free(struct end *x)
{
	if (x->qp)
		ibv_destroy_qp(x->qp);
	if (x->mr)
		ibv_dereg_mr(x->mr);
	if (x->cq)
		ibv_destroy_cq(x->cq);
	free(x->buf);
	memset(x, 0, sizeof(*x));
}

/* A receive for @len payload bytes after the GRH area; guards after it. */
static int post_recv(struct end *x, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)x->buf + BUF_SIZE / 2,
		.length = GRH_LEN + len,
		.lkey = x->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	memset(x->buf + BUF_SIZE / 2, GUARD, BUF_SIZE / 2);
	return ibv_post_recv(x->qp, &wr, &bad);
}

static void pattern(uint8_t *p, uint32_t len, unsigned int seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 13 + i * 3 + 1);
}

/* @x got @len bytes of pattern @seed from the sender, sent to the group. */
static int got_ok(struct end *x, const struct ibv_wc *wc, uint32_t len,
		  unsigned int seed)
{
	const uint8_t *g = x->buf + BUF_SIZE / 2, *p = g + GRH_LEN;
	uint8_t want[BUF_SIZE / 2];
	int dst_ok;

	pattern(want, len, seed);
	/* The GRH area's destination address is the group's. */
	dst_ok = v4 ? !memcmp(g + 36, mgid.raw + 12, 4) :
		      !memcmp(g + 24, mgid.raw, 16);
	return wc->status == IBV_WC_SUCCESS && wc->opcode == IBV_WC_RECV &&
	       wc->byte_len == GRH_LEN + len && wc->src_qp == e[0].qp->qp_num &&
	       (wc->wc_flags & IBV_WC_GRH) && dst_ok &&
	       !memcmp(p, want, len) && p[len] == GUARD;
}

/* From e[0] to the group: 0 once the send completed. */
static int send_group(struct ibv_ah *ah, uint32_t qkey, uint32_t len,
		      unsigned int seed)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e[0].buf,
		.length = len,
		.lkey = e[0].mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	pattern(e[0].buf, len, seed);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = MCAST_QPN;
	wr.wr.ud.remote_qkey = qkey;
	if (ibv_post_send(e[0].qp, &wr, &bad))
		return -1;
	return tap_wait_wc(e[0].cq, 1, &wc, POLL_MS) &&
	       wc.status == IBV_WC_SUCCESS ? 0 : -1;
}

/*
 * Send one datagram to the group with a receive posted on every QP: bit i
 * of the result is set when e[i] got it intact. @bad gets the bits of QPs
 * that completed anything else. The QPs of @want (those that should get
 * it) are waited for first, up to POLL_MS each: the send completion says
 * nothing of the receivers. The others, which the device reached in the
 * same pass if at all, then get SILENT_MS.
 */
static int round_trip(struct ibv_ah *ah, uint32_t qkey, uint32_t len,
		      unsigned int seed, int want, int *bad)
{
	int i, pass, got = 0;
	struct ibv_wc wc;

	*bad = 0;
	for (i = 0; i < NQP; i++)
		if (e[i].qp && post_recv(&e[i], BUF_SIZE / 4))
			*bad |= 1 << i;
	if (send_group(ah, qkey, len, seed))
		return -1;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < NQP; i++) {
			/* pass 0: the QPs of @want; pass 1: the others */
			if (!e[i].qp || !!(want & (1 << i)) != !pass)
				continue;
			if (!tap_wait_wc(e[i].cq, 2, &wc,
					 pass ? SILENT_MS : POLL_MS))
				continue;
			if (got_ok(&e[i], &wc, len, seed))
				got |= 1 << i;
			else
				*bad |= 1 << i;
		}
	}
	return got;
}

static struct ibv_ah *make_ah(const union ibv_gid *dgid)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = gidx, .hop_limit = 1 },
	};

	return ibv_create_ah(pd, &a);
}

static void test_delivery(struct ibv_ah *ah)
{
	long long before;
	int got, bad;

	check(!ibv_attach_mcast(e[1].qp, &mgid, 0) &&
	      !ibv_attach_mcast(e[2].qp, &mgid, 0),
	      "two QPs attach to the group");
	check(!ibv_attach_mcast(e[1].qp, &mgid, 0),
	      "attaching a QP again changes nothing and succeeds");
	got = round_trip(ah, QKEY, 1000, 1, 6, &bad);
	check(got == 6 && !bad,
	      "a datagram to the group reaches both attached QPs intact, the sender's (not attached) nothing (got 0x%x, bad 0x%x)",
	      got, bad);
	check(!ibv_attach_mcast(e[0].qp, &mgid, 0),
	      "the sending QP attaches too");
	got = round_trip(ah, QKEY, 64, 2, 7, &bad);
	check(got == 7 && !bad,
	      "then it gets its own datagram as well (got 0x%x, bad 0x%x)",
	      got, bad);

	before = hw_counter(devname, "rx_drop_qkey");
	got = round_trip(ah, QKEY + 1, 64, 3, 0, &bad);
	check(got == 0 && !bad, "with the wrong Q_Key no QP gets it (got 0x%x)",
	      got);
	check(tap_counter_reaches(devname, "rx_drop_qkey", before + 3,
				  POLL_MS) == before + 3,
	      "rx_drop_qkey counts one drop per attached QP (%lld -> %lld)",
	      before, hw_counter(devname, "rx_drop_qkey"));
	/* The receives posted are still there: drain them with a datagram. */
	got = round_trip(ah, QKEY, 16, 4, 7, &bad);
	check(got == 7, "the next datagram takes the receives left (got 0x%x)",
	      got);

	check(!ibv_detach_mcast(e[2].qp, &mgid, 0), "one QP detaches");
	got = round_trip(ah, QKEY, 200, 5, 3, &bad);
	check(got == 3 && !bad,
	      "the datagram reaches the two still attached only (got 0x%x)", got);
	check(ibv_detach_mcast(e[2].qp, &mgid, 0) == EINVAL,
	      "detaching it again is EINVAL");
	check(!ibv_detach_mcast(e[0].qp, &mgid, 0), "the sender detaches");
	/* e[2] posted a receive that nothing took: give it one. */
	check(!ibv_attach_mcast(e[2].qp, &mgid, 0), "the QP attaches again");
	got = round_trip(ah, QKEY, 300, 6, 6, &bad);
	check((got & 6) == 6 && !bad,
	      "both attached QPs get the next one intact (got 0x%x)", got);
}

static void test_destroy(struct ibv_ah *ah)
{
	int got, bad;

	/* uverbs wants a user's QP detached before it is destroyed. */
	check(ibv_destroy_qp(e[2].qp) == EBUSY,
	      "destroying a QP still attached is EBUSY");
	got = round_trip(ah, QKEY, 128, 7, 6, &bad);
	check(got == 6 && !bad,
	      "and the QP still gets the group's datagrams (got 0x%x)", got);
	check(!ibv_detach_mcast(e[2].qp, &mgid, 0), "once detached,");
	check(!ibv_destroy_qp(e[2].qp), "it is destroyed");
	e[2].qp = NULL;
	end_free(&e[2]);
	got = round_trip(ah, QKEY, 128, 8, 2, &bad);
	check(got == 2 && !bad,
	      "the group still reaches the QP left (got 0x%x)", got);
	check(!ibv_detach_mcast(e[1].qp, &mgid, 0), "the last QP detaches");
	/* The host left the group with it: the stack loops nothing back. */
	got = round_trip(ah, QKEY, 128, 9, 0, &bad);
	check(got == 0 && !bad, "a datagram to a group with no QP reaches none");
	/* Take the receives left back. */
	check(!ibv_attach_mcast(e[1].qp, &mgid, 0) &&
	      !ibv_attach_mcast(e[0].qp, &mgid, 0) &&
	      round_trip(ah, QKEY, 8, 10, 3, &bad) == 3 &&
	      !ibv_detach_mcast(e[1].qp, &mgid, 0) &&
	      !ibv_detach_mcast(e[0].qp, &mgid, 0),
	      "attach, one more datagram, detach");
}

static void test_refusals(void)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = e[0].cq,
		.recv_cq = e[0].cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union ibv_gid other = mgid;
	struct ibv_qp *rc;
	int ret;

	ret = ibv_attach_mcast(e[0].qp, &gid, 0);
	check(ret == EINVAL, "attaching to a unicast GID is EINVAL (%s)",
	      strerror(ret));
	rc = ibv_create_qp(pd, &ia);
	ret = rc ? ibv_attach_mcast(rc, &mgid, 0) : -1;
	check(ret == EINVAL, "attaching an RC QP is EINVAL (%s)",
	      ret < 0 ? "no RC QP" : strerror(ret));
	if (rc)
		ibv_destroy_qp(rc);
	other.raw[15] ^= 1;
	ret = ibv_detach_mcast(e[0].qp, &other, 0);
	check(ret == EINVAL, "detaching from a group never attached is EINVAL (%s)",
	      strerror(ret));
}

static void test_limits(void)
{
	struct ibv_device_attr a = { 0 };
	int ret = ibv_query_device(ctx, &a);

	check(!ret && a.max_mcast_grp >= 8192 &&
	      a.max_mcast_qp_attach >= 56 &&
	      a.max_total_mcast_qp_attach >= 8192 * 56,
	      "ibv_query_device: max_mcast_grp %d, max_mcast_qp_attach %d, max_total_mcast_qp_attach %d",
	      a.max_mcast_grp, a.max_mcast_qp_attach,
	      a.max_total_mcast_qp_attach);
}

/* A group takes max_mcast_qp_attach QPs; the next one is ENOMEM. */
static void test_group_full(void)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.send_cq = e[0].cq,
		.recv_cq = e[0].cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union ibv_gid full = mgid;
	struct ibv_device_attr a = { 0 };
	struct ibv_qp **qps;
	int i, n, made = 0, attached = 0, ret = -1;

	full.raw[14] ^= 1;
	if (ibv_query_device(ctx, &a) || a.max_mcast_qp_attach <= 0) {
		check(0, "ibv_query_device for max_mcast_qp_attach");
		return;
	}
	n = a.max_mcast_qp_attach + 1;
	qps = calloc(n, sizeof(*qps));
	for (i = 0; qps && i < n; i++) {
		qps[i] = ibv_create_qp(pd, &ia);
		if (!qps[i])
			break;
		made++;
	}
	if (!check(made == n, "%d UD QPs for one group", n))
		goto out;
	for (i = 0; i < n - 1; i++)
		attached += !ibv_attach_mcast(qps[i], &full, 0);
	ret = ibv_attach_mcast(qps[n - 1], &full, 0);
	check(attached == n - 1 && ret == ENOMEM,
	      "%d QPs attach to one group, the next gets ENOMEM (%d attached, %s)",
	      n - 1, attached, strerror(ret));
	for (i = 0; i < n; i++)
		ibv_detach_mcast(qps[i], &full, 0);
out:
	for (i = 0; i < made; i++)
		ibv_destroy_qp(qps[i]);
	free(qps);
}

int main(int argc, char **argv)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_ah *ah;
	int i, ok = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
		return 2;
	}
	devname = argv[1];
	gidx = atoi(argv[2]);
	ctx = open_dev(devname);
	if (!check(ctx && !ibv_query_gid(ctx, 1, gidx, &gid), "open %s, GID %d",
		   devname, gidx))
		return tap_done();
	v4 = !memcmp(gid.raw, v4mapped, sizeof(v4mapped));
	memset(&mgid, 0, sizeof(mgid));
	if (v4) {
		memcpy(mgid.raw, v4mapped, sizeof(v4mapped));
		inet_pton(AF_INET, "239.7.7.7", mgid.raw + 12);
	} else {
		inet_pton(AF_INET6, "ff12::7:7", mgid.raw);
	}
	pd = ibv_alloc_pd(ctx);
	for (i = 0; i < NQP; i++)
		ok = ok && pd && !end_make(&e[i]);
	if (!check(ok, "%d UD QPs in RTS", NQP))
		return tap_done();
	ah = make_ah(&mgid);
	if (!check(ah != NULL, "an AH to the group %s (%s)", v4 ? "239.7.7.7" :
		   "ff12::7:7", ah ? "ok" : strerror(errno)))
		return tap_done();

	test_limits();
	test_refusals();
	test_group_full();
	test_delivery(ah);
	test_destroy(ah);

	check(!ibv_destroy_ah(ah), "the AH is destroyed");
	for (i = 0; i < NQP; i++)
		end_free(&e[i]);
	check(!ibv_dealloc_pd(pd), "the PD frees after it");
	ibv_close_device(ctx);
	return tap_done();
}
