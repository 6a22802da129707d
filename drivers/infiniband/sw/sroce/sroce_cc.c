// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: congestion control, the notification point (DCQCN, as RoCE NICs
 * run it). Receive notes a packet that came marked Congestion Experienced
 * on its QP (SROCE_CC_CE) and counts it; the QP's next pass, of either
 * task, sends one CNP to the QP at the other end of the connection, the
 * one whose packets met the congestion, unless it sent one less than
 * cnp_interval_us ago: marks in between are folded into it. Datagram QPs
 * have no one peer to tell: their marks are counted only.
 *
 * The reaction point (rate cuts on a CNP) is not built yet: a CNP
 * received is counted (rx_cnp) and dropped, as rdma_rxe drops it.
 */
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/sysfs.h>

#include "sroce.h"
#include "sroce_qp.h"

/* A CNP to the peer of @qp (Annex A17.9: BTH with BECN, 16 zero bytes). */
static void sroce_cc_send_cnp(struct sroce_qp *qp)
{
	struct sroce_fields f = {
		.opcode = SROCE_CNP_OPCODE,
		.becn = true,
		.pkey = SROCE_DEFAULT_PKEY,
		.dqpn = qp->attr.dest_qp_num,
	};

	sroce_tx(qp, &f, 0, NULL, NULL);
	atomic64_inc(&qp->cc.cnp_sent);
	sroce_count(qp->sdev, SROCE_CNT_TX_CNP, 1);
}

/*
 * Called by a pass of either task of @qp when a CE mark is pending: both
 * may, each with BH off, so the interval is claimed with a cmpxchg.
 */
void sroce_cc_np(struct sroce_qp *qp)
{
	u64 gap = (u64)READ_ONCE(qp->sdev->cc.cnp_interval_us) * NSEC_PER_USEC;
	u64 now, last;

	if (!test_and_clear_bit(SROCE_CC_CE, &qp->cc.flags))
		return;
	switch (sroce_qp_state(qp)) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		break;
	default:
		return;
	}
	now = ktime_get_ns();
	last = atomic64_read(&qp->cc.last_cnp_ns);
	if (last && now - last < gap)
		return;
	if (atomic64_cmpxchg(&qp->cc.last_cnp_ns, last, now) != last)
		return;
	sroce_cc_send_cnp(qp);
}

static struct sroce_dev *sroce_cc_dev(struct device *device)
{
	return rdma_device_to_drv_device(device, struct sroce_dev, ibdev);
}

static ssize_t cc_ecn_show(struct device *device, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(sroce_cc_dev(device)->cc.ecn));
}

static ssize_t cc_ecn_store(struct device *device,
			    struct device_attribute *attr, const char *buf,
			    size_t count)
{
	bool v;
	int ret = kstrtobool(buf, &v);

	if (ret)
		return ret;
	WRITE_ONCE(sroce_cc_dev(device)->cc.ecn, v);
	return count;
}
DEVICE_ATTR_RW(cc_ecn);

static ssize_t cc_cnp_dscp_show(struct device *device,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(sroce_cc_dev(device)->cc.cnp_dscp));
}

static ssize_t cc_cnp_dscp_store(struct device *device,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	u8 v;
	int ret = kstrtou8(buf, 0, &v);

	if (ret)
		return ret;
	if (v > 63)
		return -EINVAL;
	WRITE_ONCE(sroce_cc_dev(device)->cc.cnp_dscp, v);
	return count;
}
DEVICE_ATTR_RW(cc_cnp_dscp);

static ssize_t cc_cnp_interval_us_show(struct device *device,
				       struct device_attribute *attr,
				       char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(sroce_cc_dev(device)->cc.cnp_interval_us));
}

static ssize_t cc_cnp_interval_us_store(struct device *device,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	u32 v;
	int ret = kstrtou32(buf, 0, &v);

	if (ret)
		return ret;
	/* Up to a second: beyond it a CE mark would be news of the past. */
	if (v > USEC_PER_SEC)
		return -EINVAL;
	WRITE_ONCE(sroce_cc_dev(device)->cc.cnp_interval_us, v);
	return count;
}
DEVICE_ATTR_RW(cc_cnp_interval_us);
