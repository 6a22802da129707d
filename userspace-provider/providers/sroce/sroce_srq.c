// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce shared receive queues: a receive ring mapped from the kernel,
 * which sroce_post.c posts to without a system call. Query and modify of
 * the limit are plain commands; a resize maps the kernel's new ring.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sroce.h"

struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct sroce_cmd_create_srq_resp resp = {};
	struct sroce_create_srq_resp *r = &resp.drv_payload;
	struct sroce_cmd_create_srq cmd;
	struct sroce_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_lock;
	/* attr->attr now holds what the kernel gave. */
	if (!sroce_ring_ok(r->mmap_size, r->num_entries, r->entry_size,
			   attr->attr.max_wr,
			   sizeof(struct sroce_recv_wqe) +
			   (uint64_t)attr->attr.max_sge *
			   sizeof(struct sroce_sge))) {
		ret = EPROTO;
		goto err_destroy;
	}
	ret = sroce_wq_map(&srq->rq, pd->context->cmd_fd, r->mmap_offset,
			   r->mmap_size, r->num_entries, r->entry_size);
	if (ret)
		goto err_destroy;
	srq->rq.depth = attr->attr.max_wr;
	srq->max_sge = attr->attr.max_sge;
	return &srq->vsrq.srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_lock:
	pthread_spin_destroy(&srq->rq.lock);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/*
 * IBV_SRQ_MAX_WR: the kernel moves the WQEs not yet taken into a new ring,
 * at the same indices, and writes where it is into resp; we hold the
 * producer lock throughout, so no WQE goes into the old ring meanwhile.
 */
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_create_srq_resp r = {};
	struct sroce_cmd_modify_srq cmd = {};
	struct sroce_queue_ctrl *old;
	size_t old_size;
	int ret;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd.ibv_cmd));
	cmd.resp_addr = (uintptr_t)&r;
	pthread_spin_lock(&srq->rq.lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (ret)
		goto out;
	if (!sroce_ring_ok(r.mmap_size, r.num_entries, r.entry_size,
			   r.num_entries, srq->rq.slot_size)) {
		ret = EPROTO;
		goto out;
	}
	old = srq->rq.ctrl;
	old_size = srq->rq.map_size;
	ret = sroce_wq_map(&srq->rq, ibsrq->context->cmd_fd, r.mmap_offset,
			   r.mmap_size, r.num_entries, r.entry_size);
	if (ret)
		goto out;
	munmap(old, old_size);
	srq->rq.depth = r.num_entries;
out:
	pthread_spin_unlock(&srq->rq.lock);
	return ret;
}

int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	/* On failure (QPs still use it) the kernel keeps it, and so do we. */
	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sroce_wq_unmap(&srq->rq);
	pthread_spin_destroy(&srq->rq.lock);
	free(srq);
	return 0;
}
