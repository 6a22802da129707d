// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pd_test DEVICE: the first end-to-end check of libsroce through the public
 * libibverbs API only. Opens DEVICE, queries it, allocates and frees PDs and
 * checks that verbs not built yet fail with EOPNOTSUPP rather than pretend.
 * Prints TAP; exits non-zero if any test failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define NPDS	16

/* Later tests need the earlier ones; stop with a plan that says so. */
static int bail(void)
{
	tap_done();
	return 1;
}

static void check_unbuilt(struct ibv_context *ctx)
{
	/* Raw packet QPs are not built (nor are XRC's); RC, UC and UD work. */
	struct ibv_qp_init_attr qp_attr = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_xrcd_init_attr xa = { 0 };
	struct ibv_xrcd *xrcd;
	struct ibv_mw *mw;
	struct ibv_pd *pd;

	pd = ibv_alloc_pd(ctx);
	if (!check(pd != NULL, "a PD for the unbuilt-verb checks"))
		return;

	/* Windows exist now: both types, held by the PD until freed. */
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	check(mw && mw->type == IBV_MW_TYPE_1 && mw->pd == pd,
	      "ibv_alloc_mw(type 1) (%s)", mw ? "ok" : strerror(errno));
	check(ibv_dealloc_pd(pd) == EBUSY,
	      "a PD with a window refuses ibv_dealloc_pd with EBUSY");
	check(mw && ibv_dealloc_mw(mw) == 0, "ibv_dealloc_mw");
	xa.fd = -1;
	xa.oflags = O_CREAT;
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	errno = 0;
	xrcd = ibv_open_xrcd(ctx, &xa);
	check(!xrcd && errno == EOPNOTSUPP, "ibv_open_xrcd fails with EOPNOTSUPP (%s)",
	      xrcd ? "succeeded" : strerror(errno));
	if (xrcd)
		ibv_close_xrcd(xrcd);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	check(cq != NULL, "a CQ for the raw packet QP");
	qp_attr.send_cq = cq;
	qp_attr.recv_cq = cq;
	errno = 0;
	qp = ibv_create_qp(pd, &qp_attr);
	check(!qp && errno == EOPNOTSUPP,
	      "ibv_create_qp of a raw packet QP fails with EOPNOTSUPP (%s)",
	      qp ? "succeeded" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	check(ibv_dealloc_pd(pd) == 0, "the PD frees after the refusals");
}

int main(int argc, char **argv)
{
	struct ibv_pd *pds[NPDS] = {};
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	int ndev, i, ret, npd, nfreed;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}

	list = ibv_get_device_list(&ndev);
	if (!check(list != NULL, "ibv_get_device_list (%s)",
		   list ? "ok" : strerror(errno)))
		return bail();
	for (i = 0; i < ndev; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			dev = list[i];
	if (!check(dev != NULL, "device %s is listed (%d devices)", argv[1],
		   ndev)) {
		ibv_free_device_list(list);
		return bail();
	}

	ctx = ibv_open_device(dev);
	if (!check(ctx != NULL, "ibv_open_device (%s)",
		   ctx ? "ok" : strerror(errno))) {
		ibv_free_device_list(list);
		return bail();
	}

	memset(&dattr, 0, sizeof(dattr));
	ret = ibv_query_device(ctx, &dattr);
	check(ret == 0, "ibv_query_device returns 0 (%d)", ret);
	check(ret == 0 && dattr.node_guid != 0, "node_guid is non-zero");
	check(ret == 0 && dattr.phys_port_cnt == 1, "phys_port_cnt == 1 (%u)",
	      dattr.phys_port_cnt);

	memset(&pattr, 0, sizeof(pattr));
	ret = ibv_query_port(ctx, 1, &pattr);
	check(ret == 0, "ibv_query_port(1) returns 0 (%d)", ret);
	check(ret == 0 && pattr.link_layer == IBV_LINK_LAYER_ETHERNET,
	      "port 1 link_layer is Ethernet (%u)", pattr.link_layer);

	for (npd = 0; npd < NPDS; npd++) {
		pds[npd] = ibv_alloc_pd(ctx);
		if (!pds[npd])
			break;
	}
	check(npd == NPDS, "allocated %d of %d PDs%s%s", npd, NPDS,
	      npd == NPDS ? "" : ": ", npd == NPDS ? "" : strerror(errno));
	nfreed = 0;
	for (i = 0; i < npd; i++)
		if (ibv_dealloc_pd(pds[i]) == 0)
			nfreed++;
	check(nfreed == npd, "freed %d of %d PDs", nfreed, npd);

	check_unbuilt(ctx);
	ret = ibv_close_device(ctx);
	check(ret == 0, "ibv_close_device returns 0 (%d)", ret);
	ibv_free_device_list(list);

	return tap_done();
}
