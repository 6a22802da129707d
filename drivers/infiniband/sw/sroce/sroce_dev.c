// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: creating and removing devices, one ib_device per netdev.
 *
 * Lifetime: a device is on sroce_devices from just before registration
 * until the RDMA core calls dealloc_driver, whatever removes it (rdma link
 * delete, netdev unregister, rmmod). Lookups take a registration reference
 * with ib_device_try_get(), which fails for a device not (or no longer)
 * registered, so no caller ever sees a half-built or dying device.
 */
#include <linux/if_arp.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <net/addrconf.h>

#include "sroce.h"

static LIST_HEAD(sroce_devices);
static DEFINE_MUTEX(sroce_devices_lock);
static atomic_t sroce_num_devices = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(sroce_devices_gone);

/* RoCE needs Ethernet framing; loopback carries it too. */
static bool sroce_netdev_supported(const struct net_device *ndev)
{
	return ndev->type == ARPHRD_ETHER || ndev->type == ARPHRD_LOOPBACK;
}

static void sroce_init_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *attr = &sdev->attr;

	/*
	 * Only what works is advertised; queue pairs, CQs and memory
	 * registration report zero until their verbs exist.
	 */
	/* major << 32 | minor << 16 | sub, as rdma-core formats it */
	attr->fw_ver = (u64)SROCE_FW_MAJOR << 32;
	attr->sys_image_guid = sdev->ibdev.node_guid;
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = SROCE_VENDOR_PART_ID;
	attr->hw_ver = SROCE_HW_REV;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_pkeys = SROCE_PKEY_TBL_LEN;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG | IBK_LOCAL_DMA_LKEY;
}

struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev, *found = NULL;

	mutex_lock(&sroce_devices_lock);
	list_for_each_entry(sdev, &sroce_devices, list) {
		if (sdev->ndev == ndev && ib_device_try_get(&sdev->ibdev)) {
			found = sdev;
			break;
		}
	}
	mutex_unlock(&sroce_devices_lock);
	return found;
}

void sroce_dev_netdev_gone(struct net_device *ndev)
{
	struct sroce_dev *sdev, *found = NULL;

	mutex_lock(&sroce_devices_lock);
	list_for_each_entry(sdev, &sroce_devices, list) {
		if (sdev->ndev != ndev)
			continue;
		if (ib_device_try_get(&sdev->ibdev))
			found = sdev;
		else
			sdev->ndev_gone = true;
		break;
	}
	mutex_unlock(&sroce_devices_lock);

	if (found) {
		ib_unregister_device_queued(&found->ibdev);
		ib_device_put(&found->ibdev);
	}
}

void sroce_dev_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state(sdev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT,
	};

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

	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sdev->ndev = ndev;
	ida_init(&sdev->pd_ida);
	INIT_LIST_HEAD(&sdev->list);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->local_dma_lkey = SROCE_LOCAL_DMA_LKEY;
	strscpy(ibdev->node_desc, SROCE_DRV_NAME, sizeof(ibdev->node_desc));
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);
	ib_set_device_ops(ibdev, &sroce_dev_ops);

	sroce_init_attr(sdev);
	sdev->port_state = sroce_port_state(sdev);
	return sdev;
}

/*
 * Undoes sroce_dev_alloc(), from dealloc_driver: the RDMA core calls that
 * for every device it frees, registered or not, and frees the memory after.
 */
void sroce_dev_release(struct sroce_dev *sdev)
{
	ida_destroy(&sdev->pd_ida);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
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

int sroce_dev_add(const char *name, struct net_device *ndev)
{
	struct sroce_dev *sdev, *other;
	bool gone;
	int ret;

	if (!sroce_netdev_supported(ndev) || !sroce_name_ok(name))
		return -EINVAL;
	if (sroce_name_taken(name))
		return -EEXIST;

	sdev = sroce_dev_alloc(ndev);
	if (!sdev)
		return -ENOMEM;

	mutex_lock(&sroce_devices_lock);
	list_for_each_entry(other, &sroce_devices, list) {
		if (other->ndev == ndev) {
			mutex_unlock(&sroce_devices_lock);
			ret = -EEXIST;
			goto err_free;
		}
	}
	list_add_tail(&sdev->list, &sroce_devices);
	atomic_inc(&sroce_num_devices);
	mutex_unlock(&sroce_devices_lock);

	ret = ib_device_set_netdev(&sdev->ibdev, ndev, SROCE_PORT);
	if (ret)
		goto err_free;
	ret = ib_register_device(&sdev->ibdev, name, NULL);
	if (ret)
		goto err_free;

	mutex_lock(&sroce_devices_lock);
	gone = sdev->ndev_gone;
	mutex_unlock(&sroce_devices_lock);
	if (gone) {
		/* The netdev went while we registered; nobody else saw us. */
		ib_unregister_device(&sdev->ibdev);
		return -ENODEV;
	}
	return 0;

err_free:
	/* Calls dealloc_driver, which undoes all of the above. */
	ib_dealloc_device(&sdev->ibdev);
	return ret;
}

/* From dealloc_driver: whether or not @sdev ever made it onto the list. */
void sroce_dev_unlist(struct sroce_dev *sdev)
{
	bool listed;

	mutex_lock(&sroce_devices_lock);
	listed = !list_empty(&sdev->list);
	list_del_init(&sdev->list);
	mutex_unlock(&sroce_devices_lock);
	if (listed && atomic_dec_and_test(&sroce_num_devices))
		wake_up(&sroce_devices_gone);
}

/*
 * Module unload: unregister every device and wait for those that others
 * (netdev events, rdma link delete) are unregistering right now.
 */
void sroce_dev_remove_all(void)
{
	struct sroce_dev *sdev, *found;

	do {
		found = NULL;
		mutex_lock(&sroce_devices_lock);
		list_for_each_entry(sdev, &sroce_devices, list) {
			if (ib_device_try_get(&sdev->ibdev)) {
				found = sdev;
				break;
			}
		}
		mutex_unlock(&sroce_devices_lock);
		if (found)
			ib_unregister_device_and_put(&found->ibdev);
	} while (found);

	wait_event(sroce_devices_gone, !atomic_read(&sroce_num_devices));
}
