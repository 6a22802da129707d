/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsroce private types: the provider's wrappers around the libibverbs
 * objects. The commands it exchanges with the kernel are in sroce-abi.h.
 */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/driver.h>

#include "sroce-abi.h"

struct sroce_device {
	struct verbs_device	ibv_dev;
};

struct sroce_context {
	struct verbs_context	ibv_ctx;
};

struct sroce_td {
	struct ibv_td		ibv_td;
	atomic_int		refs;	/* parent domains on it */
};

/*
 * A protection domain, or a parent domain (ibv_alloc_parent_domain(3)):
 * a PD for every verb, standing for @protection, with a thread domain
 * and allocators of the application's.
 */
struct sroce_pd {
	struct ibv_pd		ibv_pd;
	/* The kernel's PD number; QPs and MRs will carry it. */
	uint32_t		pdn;
	atomic_int		refs;	/* parent domains or QPs on it */
	struct sroce_pd		*protection;	/* NULL: a PD itself */
	struct sroce_td		*td;
	void			*(*alloc)(struct ibv_pd *pd, void *pd_context,
					  size_t size, size_t alignment,
					  uint64_t resource_type);
	void			(*free)(struct ibv_pd *pd, void *pd_context,
					void *ptr, uint64_t resource_type);
	void			*pd_context;
};

/*
 * What libsroce asks a parent domain's allocator for: the resource_type
 * argument (ibv_alloc_parent_domain(3) leaves the values to the provider).
 * Only the QP's own state is the provider's to allocate; its rings are
 * the kernel's, mapped.
 */
#define SROCE_RES_TYPE_QP	1

struct sroce_ah {
	struct ibv_ah		ibv_ah;
	/* What a UD WQE names it by (sroce_create_ah_resp). */
	uint32_t		ah_num;
};

/*
 * A ring's indices and flags (struct sroce_queue_ctrl) are plain __u32s in
 * the uapi header, shared with a kernel that accesses them with
 * READ_ONCE/WRITE_ONCE and acquire/release; here they are C11 atomics of
 * the same size and alignment, with the orderings sroce-abi.h names.
 */
static_assert(sizeof(_Atomic(__u32)) == sizeof(__u32) &&
	      _Alignof(_Atomic(__u32)) == _Alignof(__u32), "ring index");

static inline _Atomic(__u32) *sroce_ring_u32(__u32 *field)
{
	return (_Atomic(__u32) *)field;
}

struct sroce_cq {
	/* ibv_cq, or ibv_cq_ex for ibv_create_cq_ex(3) */
	struct verbs_cq		vcq;
	/*
	 * Serializes pollers, arming and resize within the process, unless
	 * the application said one thread at a time (lockless).
	 */
	pthread_spinlock_t	lock;
	bool			lockless;
	/* ibv_start_poll() to ibv_end_poll(): the CQE read_* look at. */
	const struct sroce_cqe	*cur;
	struct sroce_queue_ctrl	*ctrl;	/* the mapping starts here */
	struct sroce_cqe	*cqes;
	size_t			map_size;
	uint32_t		mask;
	uint32_t		cons;	/* ours; published to ctrl->cons */
	uint32_t		arm;	/* the last value stored in user_flag */
};

/* One work queue of a QP (the SQ or the RQ): a ring we produce into. */
struct sroce_wq {
	/* Serializes posters within the process. */
	pthread_spinlock_t	lock;
	struct sroce_queue_ctrl	*ctrl;	/* the mapping starts here */
	uint8_t			*slots;
	size_t			map_size;	/* 0: the QP has no such ring */
	uint32_t		mask;
	uint32_t		slot_size;
	/*
	 * WQEs outstanding at most: the max_*_wr the QP reports, not the
	 * ring size, so a CQ sized from the caps cannot overflow.
	 */
	uint32_t		depth;
	uint32_t		prod;	/* ours; published to ctrl->prod */
};

struct sroce_srq {
	struct verbs_srq	vsrq;
	/* The ring we produce into; the kernel's responders consume it. */
	struct sroce_wq		rq;
	uint32_t		max_sge;
};

struct sroce_qp {
	/*
	 * A verbs_qp even without the WR API: ibv_qp_to_qp_ex() reads its
	 * comp_mask from any QP.
	 */
	struct verbs_qp		vqp;
	struct sroce_wq		sq;
	struct sroce_wq		rq;
	uint32_t		ops;	/* 1 << IBV_WR_* valid for the type */
	/*
	 * On a parent domain with a thread domain: the application posts
	 * from one thread at a time, so posting takes no lock.
	 */
	bool			lockless;
	/* The parent domain whose allocator gave this struct, or NULL. */
	struct sroce_pd		*alloc_pd;
	struct sroce_pd		*pd;	/* holds a reference on it */
	uint32_t		max_send_sge;
	uint32_t		max_recv_sge;
	uint32_t		max_inline;
	/* The WR API's batch, from wr_start to wr_complete or wr_abort. */
	struct sroce_send_wqe	*wr_cur;	/* the WQE setters fill */
	uint32_t		wr_start;	/* sq.prod at wr_start */
	int			wr_err;		/* first error; fails the batch */
};

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, ibv_ctx.context);
}

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, ibv_dev.device);
}

static inline struct sroce_pd *to_spd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibv_pd);
}

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibv_ah);
}

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_cq *to_scq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq_ex);
}

static inline void sroce_cq_lock(struct sroce_cq *cq)
{
	if (!cq->lockless)
		pthread_spin_lock(&cq->lock);
}

static inline void sroce_cq_unlock(struct sroce_cq *cq)
{
	if (!cq->lockless)
		pthread_spin_unlock(&cq->lock);
}

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp);
}

/* Posters of one QP exclude each other, unless a thread domain says so. */
static inline void sroce_wq_lock(struct sroce_qp *qp, struct sroce_wq *wq)
{
	if (!qp->lockless)
		pthread_spin_lock(&wq->lock);
}

static inline void sroce_wq_unlock(struct sroce_qp *qp, struct sroce_wq *wq)
{
	if (!qp->lockless)
		pthread_spin_unlock(&wq->lock);
}

/* sroce_cq.c */
struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
int sroce_destroy_cq(struct ibv_cq *ibcq);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
void sroce_cq_clean(struct sroce_cq *cq, uint32_t qpn);
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
struct sroce_cq *sroce_cq_new(void);
bool sroce_cq_ready(struct sroce_cq *cq, int ret, int cmd_fd,
		    const struct sroce_cq_resp *r);
void sroce_cq_delete(struct sroce_cq *cq);

/* sroce_cq_ex.c */
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int sroce_query_rt_values(struct ibv_context *ibctx,
			  struct ibv_values_ex *values);

/* The operations each transport has (IBTA 9.7.x; no invalidate on UC). */
#define SROCE_OPS_UD	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define SROCE_OPS_UC	(SROCE_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE |	\
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)
#define SROCE_OPS_RC	(SROCE_OPS_UC |				\
			 IBV_QP_EX_WITH_SEND_WITH_INV |		\
			 IBV_QP_EX_WITH_RDMA_READ |		\
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |	\
			 IBV_QP_EX_WITH_ATOMIC_WRITE)

/*
 * IBV_QP_EX_WITH_* bits to 1 << IBV_WR_*: the same bit but for ATOMIC
 * WRITE's and FLUSH's.
 */
static inline uint32_t sroce_ops_opcodes(uint32_t with)
{
	uint32_t ops = with & ~(IBV_QP_EX_WITH_ATOMIC_WRITE |
				IBV_QP_EX_WITH_FLUSH);

	if (with & IBV_QP_EX_WITH_ATOMIC_WRITE)
		ops |= 1u << IBV_WR_ATOMIC_WRITE;
	if (with & IBV_QP_EX_WITH_FLUSH)
		ops |= 1u << IBV_WR_FLUSH;
	return ops;
}

/* sroce_post.c: does this libibverbs have struct ibv_qp_ex's wr_flush? */
bool sroce_has_wr_flush(void);
/* Inline data is payload we send: not for reads, atomics, local ops. */
#define SROCE_OPS_INLINE (SROCE_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE |	\
			  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			  IBV_QP_EX_WITH_SEND_WITH_INV)

/* sroce_mw.c */
struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int sroce_dealloc_mw(struct ibv_mw *mw);

/* sroce_domain.c */
struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx);
int sroce_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_td *sroce_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr);
int sroce_dealloc_td(struct ibv_td *ibtd);
struct ibv_pd *sroce_alloc_parent_domain(struct ibv_context *ibctx,
					 struct ibv_parent_domain_init_attr *attr);

/* sroce_srq.c */
struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int sroce_destroy_srq(struct ibv_srq *ibsrq);

/* sroce_qp.c */
int sroce_wq_map(struct sroce_wq *wq, int cmd_fd, uint64_t offset,
		 uint64_t size, uint32_t entries, uint32_t slot_size);
void sroce_wq_unmap(struct sroce_wq *wq);
bool sroce_ring_ok(uint64_t map_size, uint32_t entries, uint32_t slot_size,
		   uint32_t depth, uint64_t min_slot);
struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int sroce_destroy_qp(struct ibv_qp *ibqp);

/* sroce_post.c */
void sroce_qp_init_wr_api(struct sroce_qp *qp);
int sroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *bind);
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

#endif /* SROCE_PROVIDER_H */
