// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce protection, thread and parent domains.
 *
 * A thread domain (ibv_alloc_td(3)) is the application's promise that the
 * objects on it are used by one thread at a time; it exists only here, the
 * kernel never hears of it. A parent domain (ibv_alloc_parent_domain(3))
 * stands for a PD everywhere (its handle is the PD's), and adds the
 * thread domain and the application's allocator: a QP created on one
 * with a thread domain posts without a lock, and its state comes from the
 * allocator (SROCE_RES_TYPE_QP). The references keep each domain alive
 * while something is built on it: EBUSY until then.
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct sroce_cmd_alloc_pd_resp resp = {};
	struct sroce_cmd_alloc_pd cmd;
	struct sroce_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd.ibv_cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	pd->pdn = resp.pdn;
	return &pd->ibv_pd;
}

int sroce_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_spd(ibpd);
	int ret;

	if (atomic_load_explicit(&pd->refs, memory_order_acquire))
		return EBUSY;
	if (pd->protection) {
		atomic_fetch_sub_explicit(&pd->protection->refs, 1,
					  memory_order_release);
		if (pd->td)
			atomic_fetch_sub_explicit(&pd->td->refs, 1,
						  memory_order_release);
		free(pd);
		return 0;
	}
	/* On failure the kernel still holds the PD, so must we. */
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

struct ibv_td *sroce_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr)
{
	struct sroce_td *td;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->ibv_td.context = ibctx;
	return &td->ibv_td;
}

int sroce_dealloc_td(struct ibv_td *ibtd)
{
	struct sroce_td *td = container_of(ibtd, struct sroce_td, ibv_td);

	if (atomic_load_explicit(&td->refs, memory_order_acquire))
		return EBUSY;
	free(td);
	return 0;
}

struct ibv_pd *sroce_alloc_parent_domain(struct ibv_context *ibctx,
					 struct ibv_parent_domain_init_attr *attr)
{
	const uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	struct sroce_pd *pd, *prot;

	if (ibv_check_alloc_parent_domain(attr))
		return NULL;
	prot = to_spd(attr->pd);
	/* Of this context, a PD itself (not another parent domain). */
	if ((attr->comp_mask & ~known) || attr->pd->context != ibctx ||
	    prot->protection || (attr->td && attr->td->context != ibctx) ||
	    ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	     (!attr->alloc || !attr->free))) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ibv_initialize_parent_domain(&pd->ibv_pd, attr->pd);
	pd->pdn = prot->pdn;
	pd->protection = prot;
	atomic_fetch_add_explicit(&prot->refs, 1, memory_order_relaxed);
	if (attr->td) {
		pd->td = container_of(attr->td, struct sroce_td, ibv_td);
		atomic_fetch_add_explicit(&pd->td->refs, 1,
					  memory_order_relaxed);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	return &pd->ibv_pd;
}
