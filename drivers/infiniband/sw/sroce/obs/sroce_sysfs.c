// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the device's own files in /sys/class/infiniband/<device>/: the
 * ABI version libsroce matches on, and congestion control's parameters
 * (cc_*, Documentation/sroce-cc.rst), each a u32 with its range, read and
 * written at any time: the data path reads them with READ_ONCE().
 */
#include <linux/kstrtox.h>
#include <linux/stddef.h>
#include <linux/sysfs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

/* What libsroce matches on: see SROCE_SYSFS_MATCH_ATTR. */
static ssize_t sroce_abi_version_show(struct device *device,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", SROCE_ABI_VERSION);
}
static DEVICE_ATTR_RO(sroce_abi_version);

struct sroce_cc_attr {
	struct device_attribute attr;
	size_t off;		/* of the u32 in struct sroce_cc_params */
	u32 min, max;
};

static u32 *sroce_cc_param(struct device *device, struct device_attribute *a)
{
	struct sroce_dev *sdev = rdma_device_to_drv_device(device,
							   struct sroce_dev,
							   ibdev);
	struct sroce_cc_attr *ca = container_of(a, struct sroce_cc_attr, attr);

	return (u32 *)((u8 *)&sdev->cc + ca->off);
}

static ssize_t sroce_cc_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*sroce_cc_param(device, attr)));
}

static ssize_t sroce_cc_store(struct device *device,
			      struct device_attribute *attr, const char *buf,
			      size_t count)
{
	struct sroce_cc_attr *ca = container_of(attr, struct sroce_cc_attr,
						attr);
	u32 v;
	int ret = kstrtou32(buf, 0, &v);

	if (ret)
		return ret;
	if (v < ca->min || v > ca->max)
		return -EINVAL;
	WRITE_ONCE(*sroce_cc_param(device, attr), v);
	return count;
}

#define SROCE_CC_ATTR(_name, _min, _max)				\
	static struct sroce_cc_attr sroce_cc_attr_##_name = {		\
		.attr = __ATTR(cc_##_name, 0644, sroce_cc_show,		\
			       sroce_cc_store),				\
		.off = offsetof(struct sroce_cc_params, _name),		\
		.min = _min,						\
		.max = _max,						\
	}

/* Times up to a second, rates up to 400 Gb/s, alpha's gain up to 1. */
SROCE_CC_ATTR(ecn, 0, 1);
SROCE_CC_ATTR(cnp_dscp, 0, 63);
SROCE_CC_ATTR(cnp_interval_us, 0, USEC_PER_SEC);
SROCE_CC_ATTR(rp, 0, 1);
SROCE_CC_ATTR(line_rate_mbps, 1, 400000);
SROCE_CC_ATTR(min_rate_mbps, 1, 400000);
SROCE_CC_ATTR(g, 0, 1024);
SROCE_CC_ATTR(alpha_us, 1, USEC_PER_SEC);
SROCE_CC_ATTR(rate_timer_us, 1, USEC_PER_SEC);
SROCE_CC_ATTR(byte_counter_kb, 1, 1U << 30);
SROCE_CC_ATTR(fast_recovery, 0, 64);
SROCE_CC_ATTR(ai_mbps, 0, 400000);
SROCE_CC_ATTR(hai_mbps, 0, 400000);
SROCE_CC_ATTR(pace_line, 0, 1);
SROCE_CC_ATTR(early_rexmit, 0, 1);
SROCE_CC_ATTR(sel_repeat, SROCE_SR_OFF, SROCE_SR_OFFER);

static struct attribute *sroce_dev_attrs[] = {
	&dev_attr_sroce_abi_version.attr,
	&sroce_cc_attr_ecn.attr.attr,
	&sroce_cc_attr_cnp_dscp.attr.attr,
	&sroce_cc_attr_cnp_interval_us.attr.attr,
	&sroce_cc_attr_rp.attr.attr,
	&sroce_cc_attr_line_rate_mbps.attr.attr,
	&sroce_cc_attr_min_rate_mbps.attr.attr,
	&sroce_cc_attr_g.attr.attr,
	&sroce_cc_attr_alpha_us.attr.attr,
	&sroce_cc_attr_rate_timer_us.attr.attr,
	&sroce_cc_attr_byte_counter_kb.attr.attr,
	&sroce_cc_attr_fast_recovery.attr.attr,
	&sroce_cc_attr_ai_mbps.attr.attr,
	&sroce_cc_attr_hai_mbps.attr.attr,
	&sroce_cc_attr_pace_line.attr.attr,
	&sroce_cc_attr_early_rexmit.attr.attr,
	&sroce_cc_attr_sel_repeat.attr.attr,
	NULL,
};

const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};
