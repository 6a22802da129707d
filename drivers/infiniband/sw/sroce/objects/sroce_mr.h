/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: memory regions and windows, and the key table that names them
 * (sroce_key.c, sroce_mr.c, sroce_mw.c, sroce_pmem.c). The data path
 * reaches MR memory only through net/sroce_dma.c, which asks here.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "model/mr_check.h"

struct sroce_dev;
struct sroce_pd;
struct sroce_qp;
struct sroce_send_wqe;

/* The device's memory keys: sroce_mr.c. */
struct sroce_mr_table {
	/* index -> struct sroce_mr; loads under RCU, stores under xa_lock */
	struct xarray xa;
	u32 next;		/* xa_alloc_cyclic()'s cursor */
	atomic_t variant;	/* low byte of the next key */
};

enum sroce_mr_type {
	SROCE_MR_USER,		/* reg_user_mr: pinned user pages */
	SROCE_MR_DMA,		/* get_dma_mr: all kernel memory */
	SROCE_MR_FAST_REG,	/* alloc_mr: pages from map_mr_sg */
	SROCE_MR_WINDOW,	/* alloc_mw: a memory window (sroce_mw.c) */
};

/* The pinned pages of a user MR; a rereg that keeps them shares them. */
struct sroce_umap {
	struct kref ref;
	struct ib_umem *umem;
	unsigned int offset;	/* of the region's first byte in pages[0] */
	unsigned long npages;
	bool pmem;		/* every page is persistent memory */
	struct page *pages[];
};

/* A fast-reg page list; addresses are kernel virtual (virt DMA). */
struct sroce_pagelist {
	u64 *addrs;
	u32 npages;
	u32 shift;		/* log2 of the page size */
};

/*
 * attr is what the gate checks. For user and DMA MRs it never changes once
 * the MR is in the key table (rereg makes a new MR, which takes the slot
 * and the key) except state, which dereg, or the rereg that replaced the
 * MR, sets to FREE. Lookups take ref with refcount_inc_not_zero() under
 * RCU; dereg drops the table's reference and waits on done.
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_mr_attr attr;
	struct sroce_pd *pd;
	enum sroce_mr_type type;
	u32 index;
	/* Fast-reg MRs: REG_MR and invalidation change attr under it. */
	spinlock_t lock;
	/* Lifetime: the key table's and every lookup's; dereg waits. */
	refcount_t ref;
	/* Fast-reg: accesses past the gate (copies) not yet ended. */
	atomic_t copies;
	/*
	 * Under lock: invalidated, with copies under the old key running;
	 * and how many invalidations wait for them (each finishes once).
	 * inv_pending stays until the last has finished, so that the last
	 * copy to end always wakes them (sroce_mr_access_end()), even when
	 * a REG_MR has let copies under a new key start meanwhile.
	 */
	bool inv_pending;
	u32 inv_waiters;
	/* User MRs, under lock: windows bound; dereg or rereg began. */
	bool mw_closed;
	u32 num_mw;
	struct completion done;
	struct rcu_head rcu;
	union {
		struct sroce_umap *umap;
		struct {
			/* map_mr_sg fills map; REG_MR will make it active */
			struct sroce_pagelist map;
			struct sroce_pagelist active;
			u32 max_pages;
		} frmr;
		/* Windows, under lock: what they are bound to. */
		struct {
			struct sroce_mr *mr;	/* referenced; NULL: unbound */
			u32 qpn;		/* type 2B: the QP bound to */
			enum ib_mw_type type;
		} mw;
	};
};

/* A memory window: its entry in the key table is win. */
struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_mr *win;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

/* sroce_key.c: the key table of MRs and windows */
void sroce_mr_table_init(struct sroce_dev *sdev);
void sroce_mr_table_destroy(struct sroce_dev *sdev);
int sroce_mr_udata_ok(struct ib_udata *udata);
struct sroce_mr *sroce_mr_alloc(struct sroce_pd *pd, enum sroce_mr_type type);
int sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr);
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);

/* sroce_mr.c: memory registration and the access gate */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);

/*
 * One access to MR memory as the gate sees it: by a QP of @pd (@qpn, for
 * a type 2B window; 0 for a local access), under @key, from the wire
 * (@remote: an rkey) or from a local SGE (an lkey), of @len bytes at
 * @addr, needing @rights (IB_ACCESS_*, with SROCE_ACC_KEY_ONLY: every
 * check but the range's).
 */
struct sroce_access {
	struct sroce_pd *pd;
	u32 qpn;
	u32 key;
	bool remote;
	u64 addr;
	u64 len;
	int rights;
};

int sroce_mr_check(struct sroce_dev *sdev, const struct sroce_access *acc,
		   struct sroce_mr **out);
void sroce_mr_access_end(struct sroce_mr *mr);
int sroce_mr_key_range(struct sroce_dev *sdev, u32 key, u64 *iova, u64 *len);
const char *sroce_mr_fault_name(int reason);
int sroce_mr_fast_reg(struct sroce_pd *pd, struct ib_mr *ibmr, u32 key,
		      int access);
int sroce_mr_inv_begin(struct sroce_dev *sdev, struct sroce_pd *pd, u32 qpn,
		       u32 key, struct sroce_mr **mrp);
bool sroce_mr_inv_finish(struct sroce_mr *mr);
void sroce_mr_inv_wait(struct sroce_mr *mr);

/* sroce_mw.c: memory windows */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);
struct sroce_qp;
struct sroce_send_wqe;
int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_send_wqe *h);
int sroce_mw_gate(struct sroce_mr *win, const struct sroce_access *acc,
		  struct sroce_mr **out);
void sroce_mw_qp_gone(struct sroce_qp *qp);
int sroce_mw_invalidate(struct sroce_mr *win, struct sroce_pd *pd, u32 key,
			u32 qpn);

/* sroce_pmem.c: persistent memory for FLUSH PERSISTENT */
bool sroce_pmem_pages(struct sg_table *sgt);
int sroce_pmem_write_back(void *va, size_t len, void *priv);

#endif /* SROCE_MR_H */
