// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A kernel consumer of an sroce device, as NVMe-oF or RDS would be. Loading
 * it runs the checks against the device named by "dev" and fails the load
 * with the first error, so `insmod` reports the result; it holds nothing
 * once loaded, and the suite unloads it.
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>

static char *dev = "sroce0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "name of the RDMA device to test");

static int npd = 64;
module_param(npd, int, 0444);
MODULE_PARM_DESC(npd, "protection domains to hold at once");

static int kverbs_check_pds(struct ib_device *ibdev)
{
	struct ib_pd **pds;
	int i, ret = 0;

	pds = kcalloc(npd, sizeof(*pds), GFP_KERNEL);
	if (!pds)
		return -ENOMEM;
	for (i = 0; i < npd; i++) {
		pds[i] = ib_alloc_pd(ibdev, 0);
		if (IS_ERR(pds[i])) {
			ret = PTR_ERR(pds[i]);
			pr_err("sroce_test: ib_alloc_pd %d: %d\n", i, ret);
			break;
		}
		/*
		 * The device offers an all-memory lkey, so the core must
		 * hand it out and not build a DMA MR per PD.
		 */
		if (!(ibdev->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY) ||
		    pds[i]->local_dma_lkey != ibdev->local_dma_lkey ||
		    pds[i]->__internal_mr) {
			pr_err("sroce_test: pd %d local_dma_lkey %u\n", i,
			       pds[i]->local_dma_lkey);
			ib_dealloc_pd(pds[i]);
			ret = -EINVAL;
			break;
		}
	}
	while (--i >= 0)
		ib_dealloc_pd(pds[i]);
	kfree(pds);
	return ret;
}

/* A CQ as a ULP makes one: polled directly, armed, freed. */
static int kverbs_check_cq(struct ib_device *ibdev)
{
	struct ib_wc wc;
	struct ib_cq *cq;
	int ret = 0;

	cq = ib_alloc_cq(ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		pr_err("sroce_test: ib_alloc_cq: %ld\n", PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	if (cq->cqe < 16 || ib_poll_cq(cq, 1, &wc) != 0 ||
	    ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) != 0) {
		pr_err("sroce_test: empty CQ misbehaves (cqe %d)\n", cq->cqe);
		ret = -EINVAL;
	}
	ib_free_cq(cq);
	return ret;
}

static int __init kverbs_test_init(void)
{
	struct ib_device *ibdev;
	struct ib_port_attr attr;
	int ret;

	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return -ENODEV;

	ret = ib_query_port(ibdev, 1, &attr);
	if (!ret && rdma_port_get_link_layer(ibdev, 1) != IB_LINK_LAYER_ETHERNET)
		ret = -EPROTO;
	if (!ret)
		ret = kverbs_check_pds(ibdev);
	if (!ret)
		ret = kverbs_check_cq(ibdev);

	ib_device_put(ibdev);
	if (!ret)
		pr_info("sroce_test: %s: kernel verbs ok\n", dev);
	return ret;
}

static void __exit kverbs_test_exit(void)
{
}

module_init(kverbs_test_init);
module_exit(kverbs_test_exit);
MODULE_DESCRIPTION("sroce test: kernel verbs consumer");
MODULE_LICENSE("Dual BSD/GPL");
