// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the ib_device_ops entry points. Verbs that are not built yet are
 * left out of the table: the RDMA core then answers -EOPNOTSUPP for them,
 * and keeps kernel ULPs off the device until the data-path verbs exist.
 */
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "core/sroce_ah.h"
#include "core/sroce_qp.h"
#include "core/sroce_srq.h"
#include "core/sroce_verbs.h"
#include "objects/sroce_cq.h"
#include "objects/sroce_queue.h"

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

/*
 * The netdev's link speed as an IB speed and width: the slowest pair at
 * least as fast. Unknown speeds (dummy, loopback, many virtual NICs) and a
 * netdev already unregistering report SDR 1X, quietly: ib_get_eth_speed()
 * would warn on every query and fail for a dying netdev, and a failed
 * query_port makes the core drop the port event being delivered.
 */
static void sroce_port_speed(struct sroce_dev *sdev, u16 *speed, u8 *width)
{
	static const struct {
		u32 mbps;
		u16 speed;
		u8 width;
	} map[] = {
		{ 2500, IB_SPEED_SDR, IB_WIDTH_1X },
		{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
		{ 10000, IB_SPEED_QDR, IB_WIDTH_1X },
		{ 14000, IB_SPEED_FDR, IB_WIDTH_1X },
		{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
		{ 50000, IB_SPEED_HDR, IB_WIDTH_1X },
		{ 100000, IB_SPEED_EDR, IB_WIDTH_4X },
		{ 200000, IB_SPEED_HDR, IB_WIDTH_4X },
	};
	struct ethtool_link_ksettings ks;
	u32 mbps = 0;
	int i, ret;

	rtnl_lock();
	ret = __ethtool_get_link_ksettings(sdev->ndev, &ks);
	rtnl_unlock();
	if (!ret && ks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = ks.base.speed;

	*speed = IB_SPEED_SDR;
	*width = IB_WIDTH_1X;
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		*speed = map[i].speed;
		*width = map[i].width;
		if (mbps <= map[i].mbps)
			break;
	}
	if (!mbps) {
		*speed = IB_SPEED_SDR;
		*width = IB_WIDTH_1X;
	}
}

static int sroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	enum ib_mtu mtu;

	/* The core zeroes *attr first. */
	attr->state = sroce_port_state(sdev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (netif_running(sdev->ndev))
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	/*
	 * The largest IB MTU whose packets, with every RoCEv2 header, fit the
	 * netdev's MTU; the same rule the RDMA CM uses for the path.
	 */
	mtu = iboe_get_mtu(READ_ONCE(sdev->ndev->mtu));
	attr->active_mtu = mtu ? mtu : IB_MTU_256;
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	attr->max_msg_sz = SROCE_MAX_MSG;
	/* QP1 runs the MAD layer, so the port takes CM connections. */
	attr->port_cap_flags = IB_PORT_CM_SUP;
	sroce_port_speed(sdev, &attr->active_speed, &attr->active_width);
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	immutable->gid_tbl_len = SROCE_GID_TBL_LEN;
	/* RoCEv2 only: the core lists RoCE v2 GIDs and no v1 ones. */
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
	int ret;

	ret = sroce_check_udata(udata, sizeof(resp));
	if (ret)
		return ret;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
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

	if (udata) {
		ret = sroce_check_udata(udata, sizeof(resp));
		if (ret)
			return ret;
	}
	id = ida_alloc_range(&sdev->pd_ida, 1, SROCE_MAX_PD, GFP_KERNEL);
	if (id < 0)
		return id == -ENOSPC ? -ENOMEM : id;
	pd->pdn = id;

	if (udata) {
		resp.pdn = pd->pdn;
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
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
}

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SROCE_ABI_VERSION,

	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.alloc_mr = sroce_alloc_mr,
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.create_cq = sroce_create_cq,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.alloc_ucontext = sroce_alloc_ucontext,
	.attach_mcast = sroce_attach_mcast,
	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.query_ah = sroce_query_ah,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dereg_mr = sroce_dereg_mr,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_detach_mcast,
	.device_group = &sroce_dev_attr_group,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.get_dma_mr = sroce_get_dma_mr,
	.get_hw_stats = sroce_get_hw_stats,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.map_mr_sg = sroce_map_mr_sg,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_user_mr = sroce_reg_user_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.rereg_user_mr = sroce_rereg_user_mr,
	.resize_cq = sroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};
