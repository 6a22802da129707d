/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: a software RoCEv2 NIC. Device-wide definitions shared by the
 * parts of the driver.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/completion.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "sroce_mcast.h"
#include "mr_check.h"
#include "sroce_counters.h"
#include "sroce_cc.h"

#define SROCE_DRV_NAME		"sroce"
#define SROCE_PORT		1
#define SROCE_VENDOR_ID		0xffffff	/* no IEEE OUI of our own */
#define SROCE_VENDOR_PART_ID	0x5e0c
#define SROCE_HW_REV		1
#define SROCE_FW_MAJOR		1
#define SROCE_MAX_PD		0x10000
#define SROCE_GID_TBL_LEN	1024
#define SROCE_MAX_CQ		0x10000
#define SROCE_MAX_CQE		0x10000
/* Completion vectors: one per online CPU, up to this many. */
#define SROCE_MAX_COMP_VECTORS	64
#define SROCE_PKEY_TBL_LEN	1
/*
 * Reserved for kernel consumers: the lkey that names all kernel memory
 * (IBK_LOCAL_DMA_LKEY). MR keys are allocated from 1 upwards and never
 * take it.
 */
#define SROCE_LOCAL_DMA_LKEY	0
/* Every index of the 24-bit key table but 0. */
#define SROCE_MAX_MR		SROCE_KEY_INDEX_MAX
/* Bounds the page array of a user MR (8 MiB of pointers at 4 KiB pages). */
#define SROCE_MAX_MR_SIZE	SZ_4G
#define SROCE_MAX_FRMR_PAGES	512
/* Fast-reg pages: any power of two from PAGE_SIZE up to 2 GiB. */
#define SROCE_PAGE_SIZE_CAP	GENMASK_ULL(31, PAGE_SHIFT)

/* The device's memory keys: sroce_mr.c. */
struct sroce_mr_table {
	/* index -> struct sroce_mr; loads under RCU, stores under xa_lock */
	struct xarray xa;
	u32 next;		/* xa_alloc_cyclic()'s cursor */
	atomic_t variant;	/* low byte of the next key */
};

/*
 * A device's object pools (QPs, CQs, SRQs, AHs) are shared by all its
 * users: userspace (@user) may fill at most 15/16 of pool @max, so that a
 * local user who exhausts one leaves room for the kernel's consumers (the
 * RDMA CM's address handles, the ULPs' QPs and CQs). The RDMA core also
 * charges every userspace object to the rdma cgroup (hca_object), where
 * an administrator caps it per group.
 */
static inline u32 sroce_pool_limit(u32 max, bool user)
{
	return user ? max - max / 16 : max;
}

struct sroce_dev {
	struct ib_device ibdev;
	struct ib_device_attr attr;
	/* Held (netdev_hold) for the lifetime of the ib_device. */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	/* Last port state reported, so that events fire only on change. */
	enum ib_port_state port_state;
	struct ida pd_ida;
	struct sroce_mr_table mrs;
	/* QPN -> struct sroce_qp; loads under RCU, stores under xa_lock */
	struct xarray qps;
	u32 qp_next;		/* xa_alloc_cyclic()'s cursor */
	atomic_t num_qp;
	/* AH number -> struct sroce_ah (sroce_ah.c); BH-safe xa_lock */
	struct xarray ahs;
	u32 ah_next;		/* xa_alloc_cyclic()'s cursor */
	atomic_t num_ah;
	atomic_t num_srq;
	/* Makes every atomic on this device's memory one indivisible step. */
	spinlock_t atomic_lock;
	atomic_t num_cq;
	struct sroce_mcast_table mcast;
	struct sroce_counters __percpu *counters;
	/* Congestion control's parameters (sroce_cc.c), in sysfs cc_*. */
	struct sroce_cc_params cc;
	/* Bytes (truesize) of requests kept past gaps (sroce_ooo.c). */
	atomic_long_t ooo_bytes;
	/* Their limit; 0: the default. Lowered only through debugfs. */
	unsigned long ooo_max;
	/*
	 * Fault injection (debugfs, 0: off): a responder's worker sleeps
	 * this long after the copies an invalidation waited for ended, so
	 * that a test can act in between (sroce_task.c).
	 */
	u32 fault_inv_wake_ms;
	/* ... and an access through an FRMR lasts this much longer. */
	u32 fault_copy_us;
	/* sroce/<name> in debugfs, from registration (sroce_debugfs.c) */
	struct dentry *debugfs;
	/* The UDP port in the netdev's namespace (sroce_sock.c). */
	struct sroce_sock *sock;
	/* Set by dealloc_driver; protected by sroce_devices_lock. */
	bool dead;
	/* On receive's device list (sroce_rx.c) from add to dealloc_driver. */
	struct list_head rx_node;
	bool rx_listed;
	/*
	 * Entry in sroce_devices, which holds a reference on ibdev.dev;
	 * protected by sroce_devices_lock.
	 */
	struct list_head list;
};

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
	u32 pdn;
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

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

/* sroce_dev.c: one ib_device per netdev */
int sroce_dev_add(const char *name, struct net_device *ndev);
void sroce_dev_port_update(struct sroce_dev *sdev);
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);
void sroce_dev_netdev_gone(struct net_device *ndev);
void sroce_dev_remove_all(void);
void sroce_dev_release(struct sroce_dev *sdev);
enum ib_port_state sroce_port_state(struct sroce_dev *sdev);

/* sroce_debugfs.c: /sys/kernel/debug/sroce */
void sroce_debugfs_init(void);
void sroce_debugfs_exit(void);
void sroce_debugfs_dev_add(struct sroce_dev *sdev);
void sroce_debugfs_dev_del(struct sroce_dev *sdev);

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
int sroce_mr_check(struct sroce_dev *sdev, u32 key, bool remote,
		   struct sroce_pd *pd, u32 qpn, u64 addr, u64 len,
		   int access_needed, struct sroce_mr **out);
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
int sroce_mw_gate(struct sroce_mr *win, u32 key, bool remote,
		  struct sroce_pd *pd, u32 qpn, u64 addr, u64 len,
		  int access_needed, struct sroce_mr **out);
void sroce_mw_qp_gone(struct sroce_qp *qp);
int sroce_mw_invalidate(struct sroce_mr *win, struct sroce_pd *pd, u32 key,
			u32 qpn);

/* sroce_dma.c: payload between MR memory and kernel buffers */
enum sroce_dma_dir {
	SROCE_DMA_TO_MR,
	SROCE_DMA_FROM_MR,
};

typedef int (*sroce_dma_fn)(void *va, size_t len, void *priv);
int sroce_dma_walk(struct sroce_mr *mr, u64 addr, u64 len, sroce_dma_fn fn,
		   void *priv);
int sroce_dma_copy(struct sroce_mr *mr, u64 addr, void *buf, u64 len,
		   enum sroce_dma_dir dir);
int sroce_dma_gather_crc(struct sroce_mr *mr, u64 addr, void *buf, u64 len,
			 u32 *crc);
struct sroce_sge;
int sroce_sge_copy(struct sroce_dev *sdev, struct sroce_pd *pd,
		   const struct sroce_sge *sge, u32 nsge, u64 off, void *buf,
		   u64 len, bool to_sge, u32 *crc);

/* sroce_pmem.c: persistent memory for FLUSH PERSISTENT */
bool sroce_pmem_pages(struct sg_table *sgt);
int sroce_pmem_write_back(void *va, size_t len, void *priv);

/* sroce_sysfs.c: the device's files, ABI version and cc_* */
extern const struct attribute_group sroce_dev_attr_group;

/* sroce_verbs.c: the ib_device_ops entry points */
extern const struct ib_device_ops sroce_dev_ops;
int sroce_check_udata(struct ib_udata *udata, size_t resp_len);

#endif /* SROCE_H */
