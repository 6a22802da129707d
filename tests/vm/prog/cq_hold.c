// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cq_hold DEVICE: opens DEVICE, creates a few CQs (their rings mapped),
 * prints "ready" and keeps polling them until killed, so a test can
 * remove the device under a live user.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_cq *cq[4];
	struct ibv_wc wc;
	int i, n;

	if (argc != 2)
		return 2;
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return 1;
	for (i = 0; i < 4; i++) {
		cq[i] = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		if (!cq[i])
			return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		for (i = 0; i < 4; i++)
			ibv_poll_cq(cq[i], 1, &wc);
		usleep(1000);
	}
}
