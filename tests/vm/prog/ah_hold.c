// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ah_hold DEVICE GID_INDEX: a local user who takes every address handle
 * the device gives userspace. It creates AHs to the device's own GID
 * until one is refused, which must be with ENOMEM after at least 60000
 * (the pool is 64Ki; userspace may fill 15/16 of it), prints "# holding
 * N AHs", and keeps them until its standard input closes: meanwhile the
 * caller checks that the kernel's consumers (the RDMA CM) still get
 * theirs. Then every AH is destroyed. Prints TAP; exits non-zero if a
 * check failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define MAX_TRY		0x10000
#define AT_LEAST	60000

int main(int argc, char **argv)
{
	struct ibv_ah **ahs = calloc(MAX_TRY, sizeof(*ahs));
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_context *ctx;
	union ibv_gid gid;
	struct ibv_pd *pd;
	int gidx, n, err = 0, bad = 0;
	char c;

	ctx = open_dev_gid(argc, argv, &gidx, &gid);
	if (!ctx)
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	if (!check(pd && ahs, "a PD"))
		return tap_done();
	aa.grh.dgid = gid;
	aa.grh.sgid_index = gidx;
	aa.grh.hop_limit = 64;
	for (n = 0; n < MAX_TRY; n++) {
		ahs[n] = ibv_create_ah(pd, &aa);
		if (!ahs[n]) {
			err = errno;
			break;
		}
	}
	check(n >= AT_LEAST && n < MAX_TRY && err == ENOMEM,
	      "AHs until one is refused: %d, then %s", n, strerror(err));
	printf("# holding %d AHs\n", n);
	/* The caller's checks run now; it closes our input when done. */
	while (read(0, &c, 1) > 0)
		;
	while (n--)
		bad |= ibv_destroy_ah(ahs[n]);
	check(!bad && !ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
	      "every AH destroyed, everything released");
	free(ahs);
	return tap_done();
}
