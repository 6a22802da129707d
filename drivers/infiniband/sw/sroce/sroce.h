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
#include "sroce_param.h"
#include "objects/sroce_mr.h"
#include "net/sroce_mcast.h"
#include "obs/sroce_counters.h"
#include "net/sroce_cc.h"

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
	/* Non-zero: packet buffers skip the page pools (sroce_tx.c). */
	u32 fault_tx_nopool;
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

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

/* sroce_dev.c: one ib_device per netdev */
int sroce_dev_add(const char *name, struct net_device *ndev);
void sroce_dev_port_update(struct sroce_dev *sdev);
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);
void sroce_dev_netdev_gone(struct net_device *ndev);
void sroce_dev_remove_all(void);
void sroce_dev_release(struct sroce_dev *sdev);
enum ib_port_state sroce_port_state(struct sroce_dev *sdev);

/* sroce_sysfs.c: the device's files, ABI version and cc_* */
extern const struct attribute_group sroce_dev_attr_group;

/* sroce_verbs.c: the ib_device_ops entry points */
extern const struct ib_device_ops sroce_dev_ops;
#endif /* SROCE_H */
