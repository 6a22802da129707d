// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A kernel consumer of an sroce device, as NVMe-oF or RDS would be. Loading
 * it runs the checks against the device named by "dev" and fails the load
 * with the first error, so `insmod` reports the result; it holds nothing
 * once loaded, and the suite unloads it.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
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

#define KV_MR_PAGES	16

/*
 * Map @nents entries (the first @off bytes into buf, the rest whole pages
 * of buf) into @mr; returns what ib_map_mr_sg() returned.
 */
static int kverbs_map(struct ib_mr *mr, struct scatterlist *sg, int nents,
		      void *buf, unsigned int off)
{
	struct ib_device *ibdev = mr->device;
	int i, mapped, n;

	sg_init_table(sg, nents);
	sg_set_buf(&sg[0], buf + off, PAGE_SIZE - off);
	for (i = 1; i < nents; i++)
		sg_set_buf(&sg[i], buf, PAGE_SIZE);
	mapped = ib_dma_map_sg(ibdev, sg, nents, DMA_BIDIRECTIONAL);
	if (mapped != nents)
		return -EIO;
	n = ib_map_mr_sg(mr, sg, nents, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(ibdev, sg, nents, DMA_BIDIRECTIONAL);
	return n;
}

/* Fast-reg MRs as a ULP makes them, and the unsafe global rkey PD. */
static int kverbs_check_mr(struct ib_device *ibdev)
{
	u32 max = ibdev->attrs.max_fast_reg_page_list_len;
	struct scatterlist *sg;
	struct ib_mr *mr, *bad;
	struct ib_pd *pd;
	void *buf;
	int n, ret = -EINVAL;

	sg = kcalloc(KV_MR_PAGES + 1, sizeof(*sg), GFP_KERNEL);
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	pd = ib_alloc_pd(ibdev, 0);
	if (!sg || !buf || IS_ERR(pd)) {
		ret = IS_ERR(pd) ? PTR_ERR(pd) : -ENOMEM;
		pd = NULL;
		goto out;
	}

	bad = ib_alloc_mr(pd, IB_MR_TYPE_SG_GAPS, KV_MR_PAGES);
	if (!IS_ERR(bad) || PTR_ERR(bad) != -EINVAL) {
		pr_err("sroce_test: SG_GAPS MR: %ld\n", PTR_ERR(bad));
		goto out_bad;
	}
	bad = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max + 1);
	if (!max || !IS_ERR(bad)) {
		pr_err("sroce_test: MR over %u pages: %ld\n", max, PTR_ERR(bad));
		goto out_bad;
	}

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, KV_MR_PAGES);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		pr_err("sroce_test: ib_alloc_mr: %d\n", ret);
		goto out;
	}
	if (!mr->lkey || mr->lkey == ibdev->local_dma_lkey) {
		pr_err("sroce_test: MR lkey %#x\n", mr->lkey);
		goto out_mr;
	}
	n = kverbs_map(mr, sg, 4, buf, 100);
	if (n != 4 || mr->iova != (uintptr_t)buf + 100 ||
	    mr->length != 4 * PAGE_SIZE - 100) {
		pr_err("sroce_test: map 4: %d iova %#llx length %llu\n", n,
		       mr->iova, mr->length);
		goto out_mr;
	}
	/* One page more than the MR takes: the core maps a prefix. */
	n = kverbs_map(mr, sg, KV_MR_PAGES + 1, buf, 0);
	if (n != KV_MR_PAGES) {
		pr_err("sroce_test: map %d: %d\n", KV_MR_PAGES + 1, n);
		goto out_mr;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	ret = 0;
out_mr:
	ib_dereg_mr(mr);
out:
	if (pd)
		ib_dealloc_pd(pd);
	kfree(buf);
	kfree(sg);
	if (ret)
		return ret;

	/* get_dma_mr behind the PD, deregistered by ib_dealloc_pd(). */
	pd = ib_alloc_pd(ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(pd)) {
		pr_err("sroce_test: unsafe global rkey PD: %ld\n", PTR_ERR(pd));
		return PTR_ERR(pd);
	}
	if (!pd->__internal_mr || !pd->unsafe_global_rkey ||
	    pd->local_dma_lkey != ibdev->local_dma_lkey) {
		pr_err("sroce_test: global rkey %#x\n", pd->unsafe_global_rkey);
		ret = -EINVAL;
	}
	ib_dealloc_pd(pd);
	return ret;

out_bad:
	if (!IS_ERR(bad))
		ib_dereg_mr(bad);
	goto out;
}

#define KV_QKEY		0x1234
#define KV_LEN		64
#define KV_GRH		40

/* The first RoCE v2 GID of port 1 that holds an IPv4 address. */
static int kverbs_ipv4_gid(struct ib_device *ibdev, union ib_gid *gid)
{
	int i;

	for (i = 0; i < 16; i++)
		if (!rdma_query_gid(ibdev, 1, i, gid) &&
		    ipv6_addr_v4mapped((struct in6_addr *)gid->raw))
			return i;
	return -ENOENT;
}

static int kverbs_ud_rts(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = KV_QKEY,
	};
	int ret;

	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	a.qp_state = IB_QPS_RTR;
	if (!ret)
		ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	if (!ret)
		ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	return ret;
}

/* Up to @n completions within 2 s, receive ones into @rwc. */
static int kverbs_poll(struct ib_cq *cq, int n, struct ib_wc *rwc)
{
	struct ib_wc wc;
	int got = 0, t;

	for (t = 0; t < 2000 && got < n; t++) {
		while (got < n && ib_poll_cq(cq, 1, &wc) == 1) {
			got++;
			if (wc.opcode & IB_WC_RECV)
				*rwc = wc;
			else if (wc.status != IB_WC_SUCCESS)
				return -EIO;
		}
		if (got < n)
			usleep_range(1000, 2000);
	}
	return got == n ? 0 : -ETIMEDOUT;
}

/* A datagram @send from @qp, to @recv of @qp; the receive's CQE in @rwc. */
static int kverbs_ud_xfer(struct ib_qp *qp, const struct ib_recv_wr *recv,
			  const struct ib_send_wr *send, struct ib_cq *cq,
			  struct ib_wc *rwc)
{
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *bad;
	int ret;

	ret = ib_post_recv(qp, recv, &rbad);
	if (!ret)
		ret = ib_post_send(qp, send, &bad);
	if (!ret)
		ret = kverbs_poll(cq, 2, rwc);
	return ret;
}

/*
 * Multicast as a kernel consumer uses it: a datagram to a group reaches
 * the QP attached to it; a unicast GID is refused; an attached QP cannot
 * be destroyed (the core's rule); the last QP detached leaves the group
 * (the suite checks the netdev left it), which then takes a new QP.
 */
static int kverbs_mcast_one(struct ib_pd *pd, struct ib_cq *cq, int idx,
			    u8 *buf, u64 dma)
{
	union ib_gid group = { .raw = { [10] = 0xff, [11] = 0xff,
					239, 9, 9, 9 } }, *mgid = &group;
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD, .sq_sig_type = IB_SIGNAL_ALL_WR,
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_ROCE };
	struct ib_sge ssge = { .addr = dma, .length = KV_LEN,
			       .lkey = pd->local_dma_lkey };
	struct ib_sge rsge = { .addr = dma + 512, .length = KV_GRH + KV_LEN,
			       .lkey = pd->local_dma_lkey };
	struct ib_ud_wr uwr = { .wr = { .opcode = IB_WR_SEND,
					.sg_list = &ssge, .num_sge = 1 },
				.remote_qpn = 0xffffff,
				.remote_qkey = KV_QKEY };
	struct ib_recv_wr recv = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_wc rwc = {};
	struct ib_qp *qp;
	struct ib_ah *ah;
	int ret;

	qp = ib_create_qp(pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = kverbs_ud_rts(qp);
	if (!ret)
		ret = ib_attach_mcast(qp, mgid, 0);
	if (ret) {
		pr_err("sroce_test: ib_attach_mcast: %d\n", ret);
		goto out_qp;
	}
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, mgid, 0, idx, 1, 0);
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto out_qp;
	}
	uwr.ah = ah;
	memset(buf + 512, 0, KV_GRH + KV_LEN);
	ret = kverbs_ud_xfer(qp, &recv, &uwr.wr, cq, &rwc);
	if (!ret && (rwc.status != IB_WC_SUCCESS ||
		     rwc.byte_len != KV_GRH + KV_LEN ||
		     memcmp(buf, buf + 512 + KV_GRH, KV_LEN))) {
		pr_err("sroce_test: multicast receive: status %d len %u\n",
		       rwc.status, rwc.byte_len);
		ret = -EINVAL;
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	/* The core holds an attached QP (usecnt): it must be detached. */
	if (!ret && !ib_destroy_qp(qp)) {
		pr_err("sroce_test: an attached QP was destroyed\n");
		return -EINVAL;
	}
	if (ib_detach_mcast(qp, mgid, 0) && !ret) {
		pr_err("sroce_test: ib_detach_mcast failed\n");
		ret = -EINVAL;
	}
out_qp:
	ib_destroy_qp(qp);
	return ret;
}

/*
 * UD as kernel ULPs use it through the CM: a datagram to our own QP
 * through an AH made and destroyed with interrupts off (ib_cm does so
 * under its spin_lock_irq()), a completion that ib_create_ah_from_wc()
 * accepts, and a work request that is not a SEND refused at post, before
 * the UD fields it does not have are read.
 */
static int kverbs_check_ud(struct ib_device *ibdev)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD, .sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_ROCE };
	struct ib_sge ssge, rsge;
	struct ib_ud_wr uwr = { .wr = { .opcode = IB_WR_SEND,
					.sg_list = &ssge, .num_sge = 1 } };
	struct ib_rdma_wr rwr = { .wr = { .opcode = IB_WR_RDMA_WRITE,
					  .sg_list = &ssge, .num_sge = 1 } };
	struct ib_recv_wr recv = { .sg_list = &rsge, .num_sge = 1 };
	const struct ib_send_wr *bad;
	struct ib_ah *ah, *ah2;
	struct ib_wc rwc = {};
	unsigned long flags;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ib_pd *pd;
	union ib_gid gid;
	int i, idx, ret;
	u64 dma;
	u8 *buf;

	idx = kverbs_ipv4_gid(ibdev, &gid);
	if (idx < 0)
		return idx;
	buf = kzalloc(1024, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd)) {
		ret = PTR_ERR(pd);
		goto out_buf;
	}
	cq = ib_alloc_cq(ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto out_pd;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(pd, &init);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out_cq;
	}
	ret = kverbs_ud_rts(qp);
	if (ret)
		goto out_qp;

	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &gid, 0, idx, 64, 0);
	local_irq_save(flags);
	ah = rdma_create_ah(pd, &attr, 0);
	ah2 = IS_ERR(ah) ? NULL : rdma_create_ah(pd, &attr, 0);
	if (!IS_ERR_OR_NULL(ah2))
		rdma_destroy_ah(ah2, 0);
	local_irq_restore(flags);
	if (IS_ERR(ah) || IS_ERR(ah2)) {
		pr_err("sroce_test: rdma_create_ah with IRQs off: %ld\n",
		       PTR_ERR(IS_ERR(ah) ? ah : ah2));
		ret = -EINVAL;
		if (!IS_ERR(ah))
			rdma_destroy_ah(ah, 0);
		goto out_qp;
	}

	dma = ib_dma_map_single(ibdev, buf, 1024, DMA_BIDIRECTIONAL);
	for (i = 0; i < KV_LEN; i++)
		buf[i] = i * 3 + 1;
	ssge = (struct ib_sge){ .addr = dma, .length = KV_LEN,
				.lkey = pd->local_dma_lkey };
	rsge = (struct ib_sge){ .addr = dma + 512, .length = KV_GRH + KV_LEN,
				.lkey = pd->local_dma_lkey };
	uwr.ah = ah;
	uwr.remote_qpn = qp->qp_num;
	uwr.remote_qkey = KV_QKEY;
	ret = kverbs_ud_xfer(qp, &recv, &uwr.wr, cq, &rwc);
	if (!ret && (rwc.status != IB_WC_SUCCESS ||
		     rwc.byte_len != KV_GRH + KV_LEN ||
		     rwc.src_qp != qp->qp_num ||
		     !(rwc.wc_flags & IB_WC_GRH) ||
		     !(rwc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) ||
		     rwc.network_hdr_type != RDMA_NETWORK_IPV4 ||
		     memcmp(buf, buf + 512 + KV_GRH, KV_LEN))) {
		pr_err("sroce_test: UD receive: status %d len %u src %u flags 0x%x\n",
		       rwc.status, rwc.byte_len, rwc.src_qp, rwc.wc_flags);
		ret = -EINVAL;
	}
	if (!ret) {
		/* What the CM does with a MAD's completion. */
		ah2 = ib_create_ah_from_wc(pd, &rwc, (void *)(buf + 512), 1);
		if (IS_ERR(ah2)) {
			pr_err("sroce_test: ib_create_ah_from_wc: %ld\n",
			       PTR_ERR(ah2));
			ret = PTR_ERR(ah2);
		} else {
			rdma_destroy_ah(ah2, RDMA_DESTROY_AH_SLEEPABLE);
		}
	}
	if (!ret && ib_post_send(qp, &rwr.wr, &bad) != -EINVAL) {
		pr_err("sroce_test: RDMA WRITE on a UD QP was not refused\n");
		ret = -EINVAL;
	}
	if (!ret && ib_attach_mcast(qp, &gid, 0) != -EINVAL) {
		pr_err("sroce_test: attaching to a unicast GID was not refused\n");
		ib_detach_mcast(qp, &gid, 0);
		ret = -EINVAL;
	}
	/* Twice: the group, left by the first QP, takes the second. */
	for (i = 0; !ret && i < 2; i++)
		ret = kverbs_mcast_one(pd, cq, idx, buf, dma);
	ib_dma_unmap_single(ibdev, dma, 1024, DMA_BIDIRECTIONAL);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out_qp:
	ib_destroy_qp(qp);
out_cq:
	ib_free_cq(cq);
out_pd:
	ib_dealloc_pd(pd);
out_buf:
	kfree(buf);
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
	if (!ret)
		ret = kverbs_check_mr(ibdev);
	if (!ret)
		ret = kverbs_check_ud(ibdev);

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
