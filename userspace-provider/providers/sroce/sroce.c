// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce: the rdma-core (libibverbs) provider for sroce, the software
 * RoCEv2 NIC kernel module.
 *
 * Built in rdma-core's tree like any provider (sroce's
 * scripts/build-provider.sh uses 56.1's) and loaded by the libibverbs of the
 * system, which may be older (Debian bookworm: 44): both have provider ABI
 * IBVERBS_PRIVATE_34, and the build fails if the library uses a symbol the
 * system's libibverbs does not have.
 *
 * Device matching: sroce is out of tree, so its devices report
 * RDMA_DRIVER_UNKNOWN and may have any name. libibverbs then offers every
 * unclaimed device to every loaded provider in turn, calling a provider's
 * match_device() unconditionally (after its match_table, which we do not
 * have). We claim a device only if it carries the sroce sysfs attribute, so
 * we never take another driver's device (rxe, siw, ...).
 *
 * This provides contexts, device/port queries, PDs, thread and parent
 * domains (sroce_domain.c), CQs, MRs, memory windows, AHs, SRQs, QPs (RC,
 * UC, UD) and multicast attachment (the kernel's, unchanged).
 * Every verb we do not set in sroce_ctx_ops falls through to libibverbs'
 * verbs_dummy_ops, which fail with EOPNOTSUPP (NULL + errno for object
 * creation, the error as return value otherwise), which is the honest
 * answer until each object lands here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

static bool sroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char buf[16] = {};
	unsigned long ver;
	char *end;

	/* No attribute: not ours. This is the common case for other devices. */
	if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
				      SROCE_SYSFS_MATCH_ATTR) <= 0)
		return false;

	errno = 0;
	ver = strtoul(buf, &end, 10);
	if (errno || end == buf || *end)
		return false;

	/*
	 * It is a sroce device but from a module we cannot talk to. Say so:
	 * otherwise the user only sees the device silently missing.
	 */
	if (ver != SROCE_ABI_VERSION) {
		fprintf(stderr,
			"libsroce: device %s has sroce ABI %lu, this library supports %d\n",
			sysfs_dev->ibdev_name, ver, SROCE_ABI_VERSION);
		return false;
	}
	return true;
}

static struct verbs_device *sroce_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sroce_device *dev;

	(void)sysfs_dev;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free(to_sdev(&vdev->device));
}

static int sroce_query_device(struct ibv_context *ibctx,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/*
	 * The kernel only passes a u64; the string is ours to make. Use the
	 * major.minor.sub 16-bit-field convention the software drivers share.
	 */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

static int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

/*
 * Memory regions: plain commands, no driver data either way. The kernel
 * pins the pages and hands back lkey == rkey; a rereg answers with a new
 * key (it registers anew and drops the old MR), which libibverbs copies
 * into the ibv_mr.
 */
static struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int ret;

	ret = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret)
		return ret;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		vmr->access = access;
	return 0;
}

static int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	/* On failure the kernel still holds the MR, so must we. */
	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
	return 0;
}

/*
 * Address handles: the kernel resolves the route and the neighbour once,
 * and answers with the number UD WQEs carry; posting needs no syscall.
 */
static struct ibv_ah *sroce_create_ah(struct ibv_pd *pd,
				      struct ibv_ah_attr *attr)
{
	struct sroce_cmd_create_ah_resp resp = {};
	struct sroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.ah_num;
	return &ah->ibv_ah;
}

static int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(to_sah(ibah));
	return 0;
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

/* Only what exists; see the top of the file for everything else. */
static const struct verbs_context_ops sroce_ctx_ops = {
	.alloc_mw	 = sroce_alloc_mw,
	.alloc_parent_domain = sroce_alloc_parent_domain,
	.alloc_pd	 = sroce_alloc_pd,
	.alloc_td	 = sroce_alloc_td,
	.attach_mcast	 = ibv_cmd_attach_mcast,
	.bind_mw	 = sroce_bind_mw,
	.create_ah	 = sroce_create_ah,
	.create_cq	 = sroce_create_cq,
	.create_cq_ex	 = sroce_create_cq_ex,
	.create_qp	 = sroce_create_qp,
	.create_qp_ex	 = sroce_create_qp_ex,
	.create_srq	 = sroce_create_srq,
	.dealloc_mw	 = sroce_dealloc_mw,
	.dealloc_pd	 = sroce_dealloc_pd,
	.dealloc_td	 = sroce_dealloc_td,
	.dereg_mr	 = sroce_dereg_mr,
	.destroy_ah	 = sroce_destroy_ah,
	.destroy_cq	 = sroce_destroy_cq,
	.destroy_qp	 = sroce_destroy_qp,
	.destroy_srq	 = sroce_destroy_srq,
	.detach_mcast	 = ibv_cmd_detach_mcast,
	.free_context	 = sroce_free_context,
	.modify_qp	 = sroce_modify_qp,
	.modify_srq	 = sroce_modify_srq,
	.poll_cq	 = sroce_poll_cq,
	.post_recv	 = sroce_post_recv,
	.post_send	 = sroce_post_send,
	.post_srq_recv	 = sroce_post_srq_recv,
	.query_device_ex = sroce_query_device,
	.query_port	 = sroce_query_port,
	.query_qp	 = sroce_query_qp,
	.query_rt_values = sroce_query_rt_values,
	.query_srq	 = sroce_query_srq,
	.reg_mr		 = sroce_reg_mr,
	.req_notify_cq	 = sroce_req_notify_cq,
	.rereg_mr	 = sroce_rereg_mr,
	.resize_cq	 = sroce_resize_cq,
};

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd, void *private_data)
{
	struct sroce_cmd_get_context_resp resp = {};
	struct sroce_cmd_get_context cmd;
	struct sroce_context *ctx;
	int ret;

	(void)private_data;

	/*
	 * The driver id goes into every ioctl header and the kernel rejects a
	 * mismatch, so it must be what sroce reports: UNKNOWN.
	 */
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err;

	/*
	 * The uverbs ABI version was checked at match time, but a module that
	 * answers with another layout would corrupt every later command.
	 */
	if (resp.abi_version != SROCE_ABI_VERSION) {
		fprintf(stderr,
			"libsroce: %s: kernel sroce ABI %u, this library supports %d\n",
			ibdev->name, resp.abi_version, SROCE_ABI_VERSION);
		ret = EPROTONOSUPPORT;
		goto err;
	}

	verbs_set_ops(&ctx->ibv_ctx, &sroce_ctx_ops);
	return &ctx->ibv_ctx;

err:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = ret;
	return NULL;
}

static const struct verbs_device_ops sroce_dev_ops = {
	.name			= "sroce",
	/* libibverbs checks the device's uverbs abi_version against these. */
	.match_min_abi_version	= SROCE_ABI_VERSION,
	.match_max_abi_version	= SROCE_ABI_VERSION,
	/* No match_table: no name, modalias or driver id identifies sroce. */
	.match_device		= sroce_match_device,
	.alloc_device		= sroce_alloc_device,
	.uninit_device		= sroce_uninit_device,
	.alloc_context		= sroce_alloc_context,
};

PROVIDER_DRIVER(sroce, sroce_dev_ops);
