/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: a software RoCEv2 NIC. Device-wide definitions shared by the
 * parts of the driver.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/idr.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "sroce_counters.h"

#define SROCE_DRV_NAME		"sroce"
#define SROCE_PORT		1
#define SROCE_VENDOR_ID		0xffffff	/* no IEEE OUI of our own */
#define SROCE_VENDOR_PART_ID	0x5e0c
#define SROCE_HW_REV		1
#define SROCE_FW_MAJOR		1
#define SROCE_MAX_PD		0x10000
#define SROCE_GID_TBL_LEN	1024
#define SROCE_MAX_CQ		0x10000
#define SROCE_MAX_CQE		0x100000
#define SROCE_PKEY_TBL_LEN	1
/*
 * Reserved for kernel consumers: the lkey that names all kernel memory
 * (IBK_LOCAL_DMA_LKEY). MR keys are allocated from 1 upwards and never
 * take it.
 */
#define SROCE_LOCAL_DMA_LKEY	0

struct sroce_dev {
	struct ib_device ibdev;
	struct ib_device_attr attr;
	/* Held (netdev_hold) for the lifetime of the ib_device. */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	/* Last port state reported, so that events fire only on change. */
	enum ib_port_state port_state;
	struct ida pd_ida;
	atomic_t num_cq;
	struct sroce_counters __percpu *counters;
	/* The UDP port in the netdev's namespace (sroce_net.c). */
	struct sroce_sock *sock;
	/* Set by dealloc_driver; protected by sroce_devices_lock. */
	bool dead;
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

/* sroce_verbs.c: the ib_device_ops entry points */
extern const struct ib_device_ops sroce_dev_ops;
enum ib_port_state sroce_port_state(struct sroce_dev *sdev);

#endif /* SROCE_H */
