// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: creating and removing devices, one ib_device per netdev.
 *
 * Lifetime: a device is on sroce_devices from just before registration
 * until module unload or the next rdma link add prunes it, and the list
 * holds a reference on its struct device so the memory outlives the RDMA
 * core's own teardown. dealloc_driver (whatever removed the device: rdma
 * link delete, netdev unregister, rmmod) only marks the entry dead. Lookups
 * take a registration reference with ib_device_try_get(), which fails for
 * a device not (or no longer) registered, so no caller ever sees a
 * half-built or dying device.
 */
#include <linux/if_arp.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>

#include "sroce.h"
#include "core/sroce_ah.h"
#include "core/sroce_qp.h"
#include "core/sroce_sock.h"
#include "core/sroce_srq.h"
#include "net/sroce_rx.h"
#include "obs/sroce_debugfs.h"

static LIST_HEAD(sroce_devices);
static DEFINE_MUTEX(sroce_devices_lock);
/* RoCE needs Ethernet framing; loopback carries it too. */
static bool sroce_netdev_supported(const struct net_device *ndev)
{
	return ndev->type == ARPHRD_ETHER || ndev->type == ARPHRD_LOOPBACK;
}

static void sroce_init_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *attr = &sdev->attr;

	/* major << 32 | minor << 16 | sub, as rdma-core formats it */
	attr->fw_ver = (u64)SROCE_FW_MAJOR << 32;
	attr->sys_image_guid = sdev->ibdev.node_guid;
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = SROCE_VENDOR_PART_ID;
	attr->hw_ver = SROCE_HW_REV;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_MR;
	/* Windows take slots of the MRs' key table (sroce_mw.c). */
	attr->max_mw = SROCE_MAX_MR;
	attr->max_mr_size = SROCE_MAX_MR_SIZE;
	attr->page_size_cap = SROCE_PAGE_SIZE_CAP;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FRMR_PAGES;
	attr->max_pkeys = SROCE_PKEY_TBL_LEN;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_QP_WR;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_TOTAL_MCAST_QP_ATTACH;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SROCE_MAX_QP * SROCE_MAX_RD_ATOMIC;
	/* Atomic against every other atomic this device performs. */
	attr->atomic_cap = IB_ATOMIC_HCA;
	/* Completion timestamps: CLOCK_MONOTONIC ns, so a 1 GHz clock. */
	attr->timestamp_mask = U64_MAX;
	attr->hca_core_clock = 1000000;	/* kHz */
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_SRQ_RESIZE |
				 SROCE_DEVICE_A19_CAPS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG | IBK_LOCAL_DMA_LKEY;
}

struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev, *found = NULL;

	mutex_lock(&sroce_devices_lock);
	list_for_each_entry(sdev, &sroce_devices, list) {
		if (!sdev->dead && sdev->ndev == ndev &&
		    ib_device_try_get(&sdev->ibdev)) {
			found = sdev;
			break;
		}
	}
	mutex_unlock(&sroce_devices_lock);
	return found;
}

/*
 * NETDEV_UNREGISTER: the netdev goes, or moves to another namespace. A
 * device that is still registering then is not missed: for a netdev that
 * goes, our netdev reference keeps it waiting and the netdev core repeats
 * the event until every reference is gone; a move (sent once) is caught
 * by sroce_dev_add() itself (sroce_dev_netdev_moved()).
 */
void sroce_dev_netdev_gone(struct net_device *ndev)
{
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(ndev);

	if (sdev) {
		ib_unregister_device_queued(&sdev->ibdev);
		ib_device_put(&sdev->ibdev);
	}
}

enum ib_port_state sroce_port_state(struct sroce_dev *sdev)
{
	return netif_running(sdev->ndev) && netif_carrier_ok(sdev->ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/* Called under RTNL, the only context that changes port_state. */
void sroce_dev_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state(sdev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT,
	};

	ASSERT_RTNL();
	if (state == sdev->port_state)
		return;
	sdev->port_state = state;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

static struct sroce_dev *sroce_dev_alloc(struct net_device *ndev)
{
	struct sroce_dev *sdev;
	struct ib_device *ibdev;

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev)
		return NULL;
	ibdev = &sdev->ibdev;
	sdev->counters = alloc_percpu(struct sroce_counters);
	if (!sdev->counters) {
		ib_dealloc_device(ibdev);
		return NULL;
	}

	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sdev->ndev = ndev;
	ida_init(&sdev->pd_ida);
	sroce_mr_table_init(sdev);
	sroce_rx_table_init(sdev);
	sroce_ah_table_init(sdev);
	sroce_mcast_table_init(&sdev->mcast);
	spin_lock_init(&sdev->atomic_lock);
	sroce_cc_params_init(&sdev->cc);
	INIT_LIST_HEAD(&sdev->list);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = clamp_t(unsigned int, num_online_cpus(), 1,
					  SROCE_MAX_COMP_VECTORS);
	ibdev->local_dma_lkey = SROCE_LOCAL_DMA_LKEY;
	strscpy(ibdev->node_desc, SROCE_DRV_NAME, sizeof(ibdev->node_desc));
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);
	ib_set_device_ops(ibdev, &sroce_dev_ops);
	/*
	 * The post commands are libsroce's doorbells (no work requests):
	 * the core leaves them off unless the driver asks. Poll and arm stay
	 * off: user CQs are polled and armed in shared memory.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV);

	sroce_init_attr(sdev);
	sdev->port_state = sroce_port_state(sdev);
	return sdev;
}

/*
 * From dealloc_driver: the RDMA core calls it for every device it frees,
 * registered or not, and frees the memory once the last reference (ours,
 * from the list, among them) is gone.
 */
void sroce_dev_release(struct sroce_dev *sdev)
{
	mutex_lock(&sroce_devices_lock);
	sdev->dead = true;
	sroce_rx_dev_del(sdev);
	mutex_unlock(&sroce_devices_lock);
	sroce_debugfs_dev_del(sdev);
	if (sdev->sock)
		sroce_sock_put(sdev->sock);
	ida_destroy(&sdev->pd_ida);
	sroce_mr_table_destroy(sdev);
	sroce_rx_table_destroy(sdev);
	sroce_ah_table_destroy(sdev);
	sroce_mcast_table_destroy(&sdev->mcast);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	free_percpu(sdev->counters);
}

/*
 * rdma-core's rxe provider claims any device whose name starts with "rxe",
 * whichever driver it belongs to, so such a name would hand an sroce
 * device to the wrong userspace driver.
 */
static bool sroce_name_ok(const char *name)
{
	return strncmp(name, "rxe", 3) != 0;
}

static bool sroce_name_taken(const char *name)
{
	struct ib_device *ibdev;

	/* UNKNOWN matches a device of any driver by that name. */
	ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return false;
	ib_device_put(ibdev);
	return true;
}

/* Drop the list's hold on devices the core has finished with. */
static void sroce_dev_prune(void)
{
	struct sroce_dev *sdev, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&sroce_devices_lock);
	list_for_each_entry_safe(sdev, tmp, &sroce_devices, list)
		if (sdev->dead)
			list_move(&sdev->list, &dead);
	mutex_unlock(&sroce_devices_lock);

	list_for_each_entry_safe(sdev, tmp, &dead, list) {
		list_del(&sdev->list);
		put_device(&sdev->ibdev.dev);
	}
}

/* Add @sdev unless its netdev already has a live device. */
static int sroce_dev_list_add(struct sroce_dev *sdev)
{
	struct sroce_dev *other;
	int ret = 0;

	mutex_lock(&sroce_devices_lock);
	list_for_each_entry(other, &sroce_devices, list) {
		if (!other->dead && other->ndev == sdev->ndev) {
			ret = -EEXIST;
			break;
		}
	}
	if (!ret) {
		get_device(&sdev->ibdev.dev);
		list_add_tail(&sdev->list, &sroce_devices);
		sroce_rx_dev_add(sdev);
	}
	mutex_unlock(&sroce_devices_lock);
	return ret;
}

/*
 * The socket goes in the namespace the netdev is in now. The namespace is
 * read under RTNL, which every move takes, and held while the socket is
 * made: a namespace already on its way out cannot get one.
 */
static int sroce_dev_sock(struct sroce_dev *sdev, struct net_device *ndev)
{
	struct net *net;
	int ret;

	rtnl_lock();
	net = maybe_get_net(dev_net(ndev));
	rtnl_unlock();
	if (!net)
		return -ENODEV;
	ret = sroce_sock_get(net, &sdev->sock);
	put_net(net);
	return ret;
}

/*
 * A move to another namespace sends NETDEV_UNREGISTER once, and the
 * notifier finds a device only once it is registered (ib_device_try_get()).
 * So a move while the device was being added is found here, under RTNL:
 * the netdev is gone or in another namespace than the socket, whose
 * namespace would wait for it for ever on exit. After this, the notifier
 * sees every move.
 */
static bool sroce_dev_netdev_moved(struct sroce_dev *sdev)
{
	ASSERT_RTNL();
	return sdev->ndev->reg_state != NETREG_REGISTERED ||
	       !net_eq(dev_net(sdev->ndev), sdev->sock->net);
}

int sroce_dev_add(const char *name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	bool moved;
	int ret;

	if (!sroce_netdev_supported(ndev) || !sroce_name_ok(name))
		return -EINVAL;
	if (sroce_name_taken(name))
		return -EEXIST;
	sroce_dev_prune();

	sdev = sroce_dev_alloc(ndev);
	if (!sdev)
		return -ENOMEM;
	ret = sroce_dev_list_add(sdev);
	if (ret)
		goto err_dealloc;
	ret = sroce_dev_sock(sdev, ndev);
	if (ret)
		goto err_dealloc;
	ret = ib_device_set_netdev(&sdev->ibdev, ndev, SROCE_PORT);
	if (ret)
		goto err_dealloc;
	ret = ib_register_device(&sdev->ibdev, name, NULL);
	if (ret)
		goto err_dealloc;
	sroce_debugfs_dev_add(sdev);

	/*
	 * The link may have changed between the first look at it and the
	 * moment events could be delivered; report what it is now. The list's
	 * reference keeps sdev valid even if the device is already going.
	 */
	rtnl_lock();
	moved = sroce_dev_netdev_moved(sdev);
	if (!moved && ib_device_try_get(&sdev->ibdev)) {
		sroce_dev_port_update(sdev);
		ib_device_put(&sdev->ibdev);
	}
	rtnl_unlock();
	if (moved) {
		/* Calls dealloc_driver; the list still holds the memory. */
		ib_unregister_device(&sdev->ibdev);
		return -ENODEV;
	}
	return 0;

err_dealloc:
	/* Calls dealloc_driver, which undoes sroce_dev_alloc(). */
	ib_dealloc_device(&sdev->ibdev);
	sroce_dev_prune();
	return ret;
}

/*
 * Module unload, after the link type is gone (no add can run). A device
 * that another path (netdev event, rdma link delete) is unregistering
 * right now makes ib_unregister_device() wait on the core's
 * unregistration lock until that path has returned from dealloc_driver,
 * so no CPU is left in this module's code when unload completes.
 */
void sroce_dev_remove_all(void)
{
	struct sroce_dev *sdev;

	for (;;) {
		mutex_lock(&sroce_devices_lock);
		sdev = list_first_entry_or_null(&sroce_devices,
						struct sroce_dev, list);
		if (sdev)
			list_del_init(&sdev->list);
		mutex_unlock(&sroce_devices_lock);
		if (!sdev)
			break;
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}
