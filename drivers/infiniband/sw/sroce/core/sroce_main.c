// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: module entry, the "sroce" rdma link type and netdev events.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "core/sroce_sock.h"
#include "net/sroce_net.h"
#include "obs/sroce_debugfs.h"
#include "proto/icrc.h"
#include "sched/sroce_task.h"

static int sroce_newlink(const char *name, struct net_device *ndev)
{
	return sroce_dev_add(name, ndev);
}

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_DRV_NAME,
	.newlink = sroce_newlink,
};

/*
 * Runs under RTNL. The ib_device keeps a reference on its netdev, so on
 * NETDEV_UNREGISTER the device must go or the netdev can never be freed.
 */
static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct sroce_dev *sdev;

	switch (event) {
	case NETDEV_UNREGISTER:
		sroce_dev_netdev_gone(ndev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sdev = sroce_dev_get_by_netdev(ndev);
		if (sdev) {
			sroce_dev_port_update(sdev);
			ib_device_put(&sdev->ibdev);
		}
		break;
	default:
		/* MTU and address changes are read live or handled by the core. */
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

static int __init sroce_init(void)
{
	int ret;

	sroce_icrc_init();
	ret = sroce_sched_init();
	if (ret)
		return ret;
	sroce_tx_init();
	ret = sroce_sock_init();
	if (ret)
		goto err_tx;
	ret = register_netdevice_notifier(&sroce_netdev_nb);
	if (ret)
		goto err_net;
	sroce_debugfs_init();
	rdma_link_register(&sroce_link_ops);
	return 0;
err_net:
	sroce_sock_exit();
err_tx:
	sroce_tx_exit();
	sroce_sched_exit();
	return ret;
}

static void __exit sroce_exit(void)
{
	/*
	 * No new devices from here on; then take down the ones there are,
	 * before the notifier goes: unregistering it replays NETDEV_DOWN and
	 * NETDEV_UNREGISTER for every netdev, which would queue removals.
	 */
	rdma_link_unregister(&sroce_link_ops);
	sroce_dev_remove_all();
	unregister_netdevice_notifier(&sroce_netdev_nb);
	sroce_debugfs_exit();
	sroce_sock_exit();
	sroce_tx_exit();
	sroce_sched_exit();
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("The sroce developers");
MODULE_DESCRIPTION("sroce: software RoCEv2 RDMA device");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK(SROCE_DRV_NAME);
