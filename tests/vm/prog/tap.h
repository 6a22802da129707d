/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* TAP output and device opening shared by the in-VM test programs. */
#ifndef SROCE_PROG_TAP_H
#define SROCE_PROG_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>

static int ntest, nfail;

static __attribute__((format(printf, 2, 3), unused))
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

/* Print the plan and the exit status for main() to return. */
static __attribute__((unused)) int tap_done(void)
{
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}

/* Open the RDMA device called @name, or NULL. */
static __attribute__((unused)) struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/* A UD QP from RESET to RTS on port 1 with Q_Key @qkey: 0, or -1. */
static __attribute__((unused)) int ud_qp_to_rts(struct ibv_qp *qp,
						unsigned int qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = qkey,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x123;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 : 0;
}

#endif /* SROCE_PROG_TAP_H */
