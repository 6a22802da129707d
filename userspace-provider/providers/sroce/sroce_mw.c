// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce: memory windows. The kernel keeps them (its sroce_mw.c);
 * binding is a BIND_MW WQE on the send queue (sroce_post.c), for type 1
 * windows posted here by ibv_bind_mw(), for type 2B ones by the consumer.
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int sroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}
