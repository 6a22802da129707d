// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: completion queues. The engines produce CQEs into a ring that
 * userspace polls without a syscall (or the kernel's poll_cq, for kernel
 * consumers); arming is a flag in the ring's shared control block. The
 * protocol is in include/uapi/rdma/sroce-abi.h.
 */
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "objects/sroce_cq.h"

/* A ring of at least @cqe + 1 entries: a full ring of @cqe must fit. */
static int sroce_cq_ring_entries(int cqe, u32 *entries)
{
	if (cqe < 1 || cqe > SROCE_MAX_CQE)
		return -EINVAL;
	*entries = roundup_pow_of_two(cqe + 1);
	return 0;
}

static int sroce_cq_respond(struct sroce_cq *cq, struct ib_udata *udata)
{
	struct sroce_cq_resp resp = {
		.mmap_offset = sroce_queue_mmap_offset(&cq->q),
		.mmap_size = cq->q.buf_size,
		.num_entries = sroce_queue_entries(&cq->q),
	};

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static int sroce_cq_alloc_ring(struct sroce_queue *q, u32 entries,
			       struct ib_udata *udata)
{
	struct sroce_ucontext *uc;

	uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	return sroce_queue_init(q, entries, sizeof(struct sroce_cqe),
				uc ? &uc->ibuc : NULL);
}

/*
 * A consumer that keeps up takes at most a send's CQE and its answer's
 * per interrupt (a CQ shared by both sides of a ping-pong); one interrupt
 * in SROCE_CQ_IRQ_PROBE of those is steered all the same.
 */
#define SROCE_CQ_IRQ_KEEPUP	2
#define SROCE_CQ_IRQ_PROBE	32

/* The interrupt handler on the vector's CPU, IRQs off: the comp handler. */
static void sroce_cq_irq(void *arg)
{
	struct sroce_cq *cq = arg;

	/* The csd was released before this call: a poster may queue it. */
	clear_bit(0, &cq->irq_queued);
	/*
	 * Pairs with the test_and_set_bit() in sroce_cq_interrupt(): a
	 * poster that saw the bit still set wrote its CQE before it, and
	 * the handler, after the clear, sees that CQE.
	 */
	smp_mb__after_atomic();
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	/* The last access: destroy may free the CQ from here on. */
	atomic_dec_return_release(&cq->irq_inflight);
}

/*
 * The CPU a steered interrupt goes to: the vector's (the vector-th online
 * CPU), unless that is the producer's own CPU. Steering is there to run
 * the consumer beside its producer; taken on the producer's CPU, it would
 * stop the producing until the consumer is done, which is what made the
 * consumer fall behind. The next online CPU takes it then. nr_cpu_ids:
 * no other CPU is online.
 */
static int sroce_cq_irq_cpu(struct sroce_cq *cq, int this)
{
	int cpu = cpumask_local_spread(cq->ibcq.comp_vector, NUMA_NO_NODE);

	if (cpu != this)
		return cpu;
	cpu = cpumask_next(this, cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	return cpu == this ? nr_cpu_ids : cpu;
}

/*
 * Raise the CQ's completion interrupt. A steered one (sroce_cq_post():
 * a kernel CQ whose consumer is behind, or a probe) is taken, as a NIC's
 * MSI-X vector is, on another CPU (sroce_cq_irq_cpu()), so its handler
 * works through its queue in parallel with whoever produces it; any other
 * is taken here, with no wake-up of another CPU. A call still queued
 * covers this one, as an interrupt not yet taken: posters on several
 * CPUs (cq->lock is dropped before this) race for irq_queued, and only
 * the winner may hand irq_csd to smp_call_function_single_async(),
 * whose contract wants its callers serialised. A CPU that went offline
 * meanwhile (-ENXIO) leaves it to this one.
 */
static void sroce_cq_interrupt(struct sroce_cq *cq, bool steer)
{
	int cpu, ret;

	if (steer) {
		cpu = sroce_cq_irq_cpu(cq, get_cpu());
		if (cpu < nr_cpu_ids && test_and_set_bit(0, &cq->irq_queued)) {
			put_cpu();
			return;
		}
		if (cpu < nr_cpu_ids) {
			atomic_inc(&cq->irq_inflight);
			ret = smp_call_function_single_async(cpu, &cq->irq_csd);
			if (ret) {
				atomic_dec(&cq->irq_inflight);
				clear_bit(0, &cq->irq_queued);
			}
			if (ret != -ENXIO) {
				put_cpu();
				return;
			}
		}
		put_cpu();
	}
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_arg *arg)
{
	struct ib_udata *udata = sroce_create_cq_udata(arg);
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	u32 entries;
	int ret;

	/* Completion timestamps are the one creation flag we honour. */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	ret = sroce_cq_ring_entries(attr->cqe, &entries);
	if (ret)
		return ret;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_cq) >
	    sroce_pool_limit(SROCE_MAX_CQ, !!udata)) {
		ret = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->is_user = !!udata;
	cq->stamp = attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	INIT_CSD(&cq->irq_csd, sroce_cq_irq, cq);
	cq->irq_queued = 0;
	atomic_set(&cq->irq_inflight, 0);
	ret = sroce_cq_alloc_ring(&cq->q, entries, udata);
	if (ret)
		goto err_count;
	if (udata) {
		ret = sroce_cq_respond(cq, udata);
		if (ret)
			goto err_ring;
	}
	/* Tell the consumer how many it may rely on, not the ring size. */
	ibcq->cqe = entries - 1;
	return 0;

err_ring:
	sroce_queue_destroy(&cq->q);
err_count:
	atomic_dec(&sdev->num_cq);
	return ret;
}

int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	/* Nothing posts any more; an interrupt on its way is taken soon. */
	while (atomic_read_acquire(&cq->irq_inflight))
		cpu_relax();
	/*
	 * ib_free_cq() cancelled its poll work before calling us, but an
	 * interrupt still on its way then may have queued it again: its
	 * consumer polled the CQE first (a re-arm that reported a missed
	 * event). Every interrupt is delivered, even such a late one: it
	 * took the arm, and only a delivered event re-arms the consumer.
	 */
	if (!cq->is_user && (ibcq->poll_ctx == IB_POLL_WORKQUEUE ||
			     ibcq->poll_ctx == IB_POLL_UNBOUND_WORKQUEUE))
		cancel_work_sync(&ibcq->work);
	sroce_queue_destroy(&cq->q);
	mutex_destroy(&cq->resize_mutex);
	atomic_dec(&to_sdev(ibcq->device)->num_cq);
	return 0;
}

/*
 * The kernel reads the old ring's consumer index once, clamped, and moves
 * what is left into the new ring from index 0; libsroce holds its CQ lock
 * across the call and then maps the new ring. Under resize_mutex: the
 * reply describes cq->q after the unlock, when only another resize could
 * replace (and free) it.
 */
static int sroce_cq_resize_locked(struct sroce_cq *cq, int cqe,
				  struct ib_udata *udata)
{
	struct ib_cq *ibcq = &cq->ibcq;
	struct sroce_queue nq, old;
	u32 entries, cons, used, i;
	unsigned long flags;
	int ret;

	lockdep_assert_held(&cq->resize_mutex);
	ret = sroce_cq_ring_entries(cqe, &entries);
	if (ret)
		return ret;
	if (udata && udata->outlen < sizeof(struct sroce_cq_resp))
		return -EINVAL;
	ret = sroce_cq_alloc_ring(&nq, entries, udata);
	if (ret)
		return ret;

	spin_lock_irqsave(&cq->lock, flags);
	cons = cq->is_user ? READ_ONCE(cq->q.ctrl->cons) : cq->kcons;
	used = cq->q.own - cons;
	if (used > sroce_queue_entries(&cq->q)) {
		/* A consumer index no honest consumer could have written. */
		used = 0;
	}
	if (used > entries - 1) {
		spin_unlock_irqrestore(&cq->lock, flags);
		sroce_queue_destroy(&nq);
		return -EINVAL;
	}
	for (i = 0; i < used; i++)
		memcpy(sroce_queue_slot(&nq, i),
		       sroce_queue_slot(&cq->q, cons + i),
		       sizeof(struct sroce_cqe));
	nq.own = used;
	nq.ctrl->prod = used;
	cq->kcons = 0;
	/* The arm state carries over: an armed CQ stays armed. */
	nq.ctrl->user_flag = READ_ONCE(cq->q.ctrl->user_flag);
	nq.ctrl->kern_flag = cq->arm_seen;
	old = cq->q;
	cq->q = nq;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (udata) {
		ret = sroce_cq_respond(cq, udata);
		if (ret) {
			/*
			 * The new ring is in place and the old one is gone
			 * for the kernel; the caller learns of the failure
			 * and must destroy the CQ, which frees both.
			 */
			sroce_queue_destroy(&old);
			return ret;
		}
	}
	sroce_queue_destroy(&old);
	ibcq->cqe = entries - 1;
	return 0;
}

int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int ret;

	mutex_lock(&cq->resize_mutex);
	ret = sroce_cq_resize_locked(cq, cqe, udata);
	mutex_unlock(&cq->resize_mutex);
	return ret;
}

static void sroce_cqe_to_wc(const struct sroce_cqe *cqe, struct ib_qp *qp,
			    struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = qp;
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->sl = cqe->sl;
	wc->port_num = cqe->port_num;
	if (cqe->flags & SROCE_CQE_WITH_IMM) {
		wc->ex.imm_data = cqe->imm_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (cqe->flags & SROCE_CQE_WITH_INV) {
		wc->ex.invalidate_rkey = cqe->invalidated_rkey;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (cqe->flags & SROCE_CQE_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE |
				IB_WC_WITH_SMAC;
		wc->network_hdr_type = cqe->network_hdr_type;
		memcpy(wc->smac, cqe->smac, ETH_ALEN);
	}
	if (cqe->flags & SROCE_CQE_WITH_VLAN) {
		wc->wc_flags |= IB_WC_WITH_VLAN;
		wc->vlan_id = cqe->vlan_id;
	}
}

/*
 * Kernel consumers only. Userspace polls its ring itself, and must not
 * reach this through the uverbs POLL_CQ command: its ring is not to be
 * trusted (kctx above all).
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	const struct sroce_cqe *cqe;
	unsigned long flags;
	int n;

	if (cq->is_user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && cq->kcons != cq->q.own; n++) {
		cqe = sroce_queue_slot(&cq->q, cq->kcons);
		sroce_cqe_to_wc(cqe, (struct ib_qp *)(uintptr_t)cqe->kctx,
				&wc[n]);
		cq->kcons++;
	}
	/* The producer's fullness check reads the consumer index here. */
	smp_store_release(&cq->q.ctrl->cons, cq->kcons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static u32 sroce_cq_next_arm(u32 cur, u32 mode)
{
	return (((cur >> SROCE_CQ_ARM_SEQ_SHIFT) + 1) <<
		SROCE_CQ_ARM_SEQ_SHIFT) | mode;
}

/* Kernel consumers; libsroce arms through the shared flag itself. */
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	u32 mode;
	int ret = 0;

	/* libsroce arms in shared memory; a raw command would race it. */
	if (cq->is_user)
		return -EOPNOTSUPP;
	mode = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		SROCE_CQ_ARM_SOLICITED : SROCE_CQ_ARM_NEXT;
	spin_lock_irqsave(&cq->lock, irqflags);
	WRITE_ONCE(cq->q.ctrl->user_flag,
		   sroce_cq_next_arm(cq->q.ctrl->user_flag, mode));
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->kcons != cq->q.own)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

static void sroce_cq_overflow(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * Has the consumer taken the CQE sroce_cq_post() put at @pos? Under the
 * lock: a resize swaps the ring, and numbers the CQEs it keeps from 0, so
 * an answer about a CQE from before a resize is a guess. A hint only.
 */
bool sroce_cq_taken(struct sroce_cq *cq, u32 pos)
{
	unsigned long flags;
	bool taken;

	spin_lock_irqsave(&cq->lock, flags);
	/* Acquire, as the producer reads it (sroce_queue_prod_used()). */
	taken = (s32)(smp_load_acquire(&cq->q.ctrl->cons) - pos) > 0;
	spin_unlock_irqrestore(&cq->lock, flags);
	return taken;
}

/*
 * The one way a CQE enters a CQ, from any engine and any context, at a
 * position it writes to @pos (sroce_cq_taken()). Returns -ENOSPC once the
 * CQ has overflowed: it then stays in error, as the IBTA requires
 * (11.4.2.1), and the caller moves its QP to error.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  struct ib_qp *qp, bool solicited, u32 *pos)
{
	struct sroce_queue_ctrl *ctrl;
	bool notify = false, overflow = false, steer = false;
	unsigned long flags;
	u32 arm, mode;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflowed) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	slot = sroce_queue_prod_slot(&cq->q);
	if (!slot) {
		cq->overflowed = true;
		overflow = true;
		goto out;
	}
	memcpy(slot, cqe, sizeof(*cqe));
	/* Kernel pointers go only into rings userspace cannot see. */
	((struct sroce_cqe *)slot)->kctx = cq->is_user ? 0 : (uintptr_t)qp;
	/* A clock read only for a CQ that asked: it costs under emulation. */
	if (cq->stamp)
		((struct sroce_cqe *)slot)->timestamp = ktime_get_ns();
	*pos = cq->q.own;
	sroce_queue_prod_publish(&cq->q);
	cq->irq_cqes++;

	/*
	 * Full barrier between publishing prod and reading the arm flag;
	 * pairs with the consumer's between arming and polling again, so
	 * either we see the arm or the consumer sees the CQE.
	 */
	smp_mb();
	ctrl = cq->q.ctrl;
	arm = READ_ONCE(ctrl->user_flag);
	mode = arm & SROCE_CQ_ARM_MODE_MASK;
	if (arm != cq->arm_seen &&
	    (mode == SROCE_CQ_ARM_NEXT ||
	     (mode == SROCE_CQ_ARM_SOLICITED &&
	      (solicited || cqe->status != IB_WC_SUCCESS)))) {
		cq->arm_seen = arm;
		WRITE_ONCE(ctrl->kern_flag, arm);
		notify = true;
		steer = !cq->is_user &&
			(cq->irq_cqes > SROCE_CQ_IRQ_KEEPUP ||
			 !(++cq->irq_probe % SROCE_CQ_IRQ_PROBE));
		cq->irq_cqes = 0;
	}
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	if (overflow) {
		sroce_cq_overflow(cq);
		return -ENOSPC;
	}
	if (notify && cq->ibcq.comp_handler)
		sroce_cq_interrupt(cq, steer);
	return 0;
}
