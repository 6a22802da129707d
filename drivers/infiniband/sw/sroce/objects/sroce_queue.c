// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: memory for queues shared with userspace, and its mmap.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "objects/sroce_queue.h"

static inline struct sroce_mmap_entry *
to_smmap(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct sroce_mmap_entry, rdma);
}

/*
 * @num_entries must be a power of two. Its size is the caller's choice, so
 * the buffer is charged to the caller's memory cgroup (__GFP_ACCOUNT);
 * vmalloc_user() cannot be asked to, so the buffer is plain vmalloc memory
 * and sroce_mmap() inserts its pages itself. With @uctx the buffer is
 * offered to userspace through an mmap entry and is vfree()d when the
 * entry's last reference goes, at queue destroy (mappings hold no entry
 * reference). A process that still maps the queue then keeps the pages
 * themselves: vm_insert_page() took a page reference for each, so nothing
 * is freed under it. Device disassociation does not zap these mappings.
 */
int sroce_queue_init(struct sroce_queue *q, u32 num_entries, u32 entry_size,
		     struct ib_ucontext *uctx)
{
	size_t size;
	void *buf;
	int ret;

	if (!is_power_of_2(num_entries))
		return -EINVAL;
	size = PAGE_ALIGN(sizeof(struct sroce_queue_ctrl) +
			  (size_t)num_entries * entry_size);
	/* Zeroed: userspace must see nothing the pages held before. */
	buf = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!buf)
		return -ENOMEM;

	q->ctrl = buf;
	q->entries = buf + sizeof(struct sroce_queue_ctrl);
	q->mask = num_entries - 1;
	q->entry_size = entry_size;
	q->buf_size = size;
	q->own = 0;
	q->mmap = NULL;
	if (!uctx)
		return 0;

	q->mmap = kzalloc(sizeof(*q->mmap), GFP_KERNEL_ACCOUNT);
	if (!q->mmap) {
		ret = -ENOMEM;
		goto err_buf;
	}
	q->mmap->buf = buf;
	ret = rdma_user_mmap_entry_insert(uctx, &q->mmap->rdma, size);
	if (ret)
		goto err_entry;
	return 0;

err_entry:
	kfree(q->mmap);
	q->mmap = NULL;
err_buf:
	vfree(buf);
	return ret;
}

void sroce_queue_destroy(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->ctrl);
	q->ctrl = NULL;
	q->entries = NULL;
	q->mmap = NULL;
}

u64 sroce_queue_mmap_offset(const struct sroce_queue *q)
{
	return rdma_user_mmap_get_offset(&q->mmap->rdma);
}

/* What remap_vmalloc_range() does, for a buffer without VM_USERMAP. */
static int sroce_mmap_pages(struct vm_area_struct *vma, void *buf)
{
	unsigned long uaddr;
	int ret;

	for (uaddr = vma->vm_start; uaddr < vma->vm_end; uaddr += PAGE_SIZE) {
		ret = vm_insert_page(vma, uaddr, vmalloc_to_page(buf));
		if (ret)
			return ret;
		buf += PAGE_SIZE;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct sroce_mmap_entry *entry;
	int ret;

	rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_smmap(rdma_entry);
	/* The whole queue or nothing: a partial map has no use. */
	if (vma->vm_end - vma->vm_start != rdma_entry->npages << PAGE_SHIFT)
		ret = -EINVAL;
	else
		ret = sroce_mmap_pages(vma, entry->buf);
	rdma_user_mmap_entry_put(rdma_entry);
	return ret;
}

/* The entry's last reference went (queue destroyed); see above. */
void sroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct sroce_mmap_entry *entry = to_smmap(rdma_entry);

	vfree(entry->buf);
	kfree(entry);
}

/*
 * A kernel consumer's receive work requests into a receive ring (a QP's
 * RQ or an SRQ) whose producers @lock serializes; those before a bad one
 * stay posted, *@bad_wr names it.
 */
int sroce_queue_post_recv(struct sroce_queue *q, spinlock_t *lock,
			  u32 max_sge, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct sroce_recv_wqe *w;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(lock, flags);
	for (; wr; wr = wr->next) {
		w = sroce_queue_prod_slot(q);
		if (!w) {
			ret = -ENOMEM;
			break;
		}
		ret = sroce_recv_wqe_fill(w, wr, max_sge);
		if (ret)
			break;
		sroce_queue_prod_publish(q);
	}
	spin_unlock_irqrestore(lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}
