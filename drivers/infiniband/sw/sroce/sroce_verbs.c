// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the ib_device_ops entry points. Verbs that are not built yet are
 * left out of the table: the RDMA core then answers -EOPNOTSUPP for them,
 * and keeps kernel ULPs off the device until the data-path verbs exist.
 */
#include <linux/sysfs.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

enum ib_port_state sroce_port_state(struct sroce_dev *sdev)
{
	return netif_running(sdev->ndev) && netif_carrier_ok(sdev->ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/* No driver-specific extension is defined. */
	if (udata->inlen || udata->outlen)
		return -EINVAL;
	*attr = to_sdev(ibdev)->attr;
	return 0;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	enum ib_mtu mtu;

	/* The core zeroes *attr first. */
	attr->state = sroce_port_state(sdev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
		IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	/*
	 * The largest IB MTU whose packets, with every RoCEv2 header, fit the
	 * netdev's MTU; the same rule the RDMA CM uses for the path.
	 */
	mtu = iboe_get_mtu(READ_ONCE(sdev->ndev->mtu));
	attr->active_mtu = mtu ? mtu : IB_MTU_256;
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	immutable->gid_tbl_len = SROCE_GID_TBL_LEN;
	/* RoCEv2 on the wire; the core also lists RoCE v1 GIDs for it. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void sroce_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u64 fw = to_sdev(ibdev)->attr.fw_ver;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u", (u32)(fw >> 32),
		 (u32)(fw >> 16) & 0xffff, (u32)fw & 0xffff);
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp = {
		.abi_version = SROCE_ABI_VERSION,
	};

	return ib_copy_to_udata(udata, &resp,
				min_t(size_t, udata->outlen, sizeof(resp)));
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * Having this op lets the core remove a device (rdma link delete, netdev
 * gone, rmmod) while processes still hold it open: it destroys their
 * objects through the ordinary destroy verbs, sends them
 * IB_EVENT_DEVICE_FATAL and then calls here. Nothing of ours outlives
 * those objects, so there is nothing left to release.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_pd *pd = to_spd(ibpd);
	struct sroce_alloc_pd_resp resp = {};
	int id, ret;

	id = ida_alloc_range(&sdev->pd_ida, 1, SROCE_MAX_PD, GFP_KERNEL);
	if (id < 0)
		return id == -ENOSPC ? -ENOMEM : id;
	pd->pdn = id;

	if (udata) {
		resp.pdn = pd->pdn;
		ret = ib_copy_to_udata(udata, &resp,
				       min_t(size_t, udata->outlen,
					     sizeof(resp)));
		if (ret) {
			ida_free(&sdev->pd_ida, id);
			return ret;
		}
	}
	return 0;
}

static int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	ida_free(&to_sdev(ibpd->device)->pd_ida, to_spd(ibpd)->pdn);
	return 0;
}

static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	sroce_dev_release(sdev);
	sroce_dev_unlist(sdev);
}

/* What libsroce matches on: see SROCE_SYSFS_MATCH_ATTR. */
static ssize_t sroce_abi_version_show(struct device *device,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", SROCE_ABI_VERSION);
}
static DEVICE_ATTR_RO(sroce_abi_version);

static struct attribute *sroce_dev_attrs[] = {
	&dev_attr_sroce_abi_version.attr,
	NULL,
};

static const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SROCE_ABI_VERSION,

	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.device_group = &sroce_dev_attr_group,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};
