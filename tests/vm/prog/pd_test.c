// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pd_test DEVICE: the first end-to-end check of libsroce through the public
 * libibverbs API only. Opens DEVICE, queries it, allocates and frees PDs and
 * checks that verbs not built yet fail with EOPNOTSUPP rather than pretend.
 * Prints TAP; exits non-zero if any test failed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define NPDS	16

static int ntest;
static int nfail;

static __attribute__((format(printf, 2, 3)))
int check(int cond, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	printf("%s %d - ", cond ? "ok" : "not ok", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		nfail++;
	return cond;
}

/* Later tests need the earlier ones; stop with a plan that says so. */
static int bail(void)
{
	printf("1..%d\n", ntest);
	return 1;
}

int main(int argc, char **argv)
{
	struct ibv_pd *pds[NPDS] = {};
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
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

	/* Until CQs exist the provider must refuse, not fake one. */
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	check(cq == NULL && errno == EOPNOTSUPP,
	      "ibv_create_cq fails with EOPNOTSUPP (%s)",
	      cq ? "succeeded" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);

	ret = ibv_close_device(ctx);
	check(ret == 0, "ibv_close_device returns 0 (%d)", ret);
	ibv_free_device_list(list);

	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
