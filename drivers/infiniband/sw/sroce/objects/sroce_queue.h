/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Queues shared with userspace (and the same rings for kernel consumers):
 * a struct sroce_queue_ctrl followed by a power-of-two array of entries,
 * in vmalloc_user() memory that userspace maps through an
 * rdma_user_mmap_entry. See include/uapi/rdma/sroce-abi.h.
 *
 * The kernel keeps its own copy of the index it owns and never reads it
 * back from shared memory; the index the other side owns is read once per
 * use and clamped, because userspace may write anything there.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
};

struct sroce_queue {
	struct sroce_queue_ctrl *ctrl;	/* the start of buf */
	void *entries;
	u32 mask;			/* entries - 1 */
	u32 entry_size;
	size_t buf_size;
	/* The index the kernel owns (prod if it produces, else cons). */
	u32 own;
	/* Set for queues userspace maps; owns buf from then on. */
	struct sroce_mmap_entry *mmap;
};

/* A kernel consumer's SGEs, into a WQE's. */
static inline void sroce_sges_fill(struct sroce_sge *sge,
				   const struct ib_sge *sg, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		sge[i].addr = sg[i].addr;
		sge[i].length = sg[i].length;
		sge[i].lkey = sg[i].lkey;
	}
}

/* A kernel consumer's receive work request, into a ring slot. */
static inline int sroce_recv_wqe_fill(struct sroce_recv_wqe *w,
				      const struct ib_recv_wr *wr, u32 max_sge)
{
	if (wr->num_sge > max_sge)
		return -EINVAL;
	w->wr_id = wr->wr_id;
	w->num_sge = wr->num_sge;
	sroce_sges_fill((struct sroce_sge *)(w + 1), wr->sg_list, wr->num_sge);
	return 0;
}

int sroce_queue_post_recv(struct sroce_queue *q, spinlock_t *lock,
			  u32 max_sge, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
int sroce_queue_init(struct sroce_queue *q, u32 num_entries, u32 entry_size,
		     struct ib_ucontext *uctx);
void sroce_queue_destroy(struct sroce_queue *q);
u64 sroce_queue_mmap_offset(const struct sroce_queue *q);

static inline u32 sroce_queue_entries(const struct sroce_queue *q)
{
	return q->mask + 1;
}

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 index)
{
	return q->entries + (size_t)(index & q->mask) * q->entry_size;
}

/* Producer side: the entries in use, as the consumer last published. */
static inline u32 sroce_queue_prod_used(const struct sroce_queue *q)
{
	/* Acquire: the consumer is done with the slots it released. */
	u32 used = q->own - smp_load_acquire(&q->ctrl->cons);

	/* A consumer index ahead of ours, or too far behind, is a lie. */
	return min(used, sroce_queue_entries(q));
}

/* The next free slot, or NULL when the queue is full. */
static inline void *sroce_queue_prod_slot(const struct sroce_queue *q)
{
	if (sroce_queue_prod_used(q) >= sroce_queue_entries(q))
		return NULL;
	return sroce_queue_slot(q, q->own);
}

/* Make the slot from sroce_queue_prod_slot() visible to the consumer. */
static inline void sroce_queue_prod_publish(struct sroce_queue *q)
{
	q->own++;
	/* Release: the entry is written before the consumer can see it. */
	smp_store_release(&q->ctrl->prod, q->own);
}

/* Consumer side (the kernel consumes): the oldest entry or NULL. */
static inline void *sroce_queue_cons_slot(const struct sroce_queue *q)
{
	/* Acquire: the entries up to prod are written. */
	u32 avail = smp_load_acquire(&q->ctrl->prod) - q->own;

	if (!avail || avail > sroce_queue_entries(q))
		return NULL;
	return sroce_queue_slot(q, q->own);
}

static inline void sroce_queue_cons_advance(struct sroce_queue *q)
{
	q->own++;
	/* Release: we are done reading the slot before the producer reuses it. */
	smp_store_release(&q->ctrl->cons, q->own);
}

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

#endif /* SROCE_QUEUE_H */
