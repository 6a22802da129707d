/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The uverbs commands that carry sroce's own data: each is the core's
 * request or response with sroce's part (include/uapi/rdma/sroce-abi.h)
 * right after it, where the kernel puts or looks for it. DECLARE_DRV_CMD
 * lays the pairs out and fails the build if padding would come between.
 * Commands with no driver data (MRs, MWs, queries) use the core's alone.
 */
#ifndef SROCE_PROVIDER_ABI_H
#define SROCE_PROVIDER_ABI_H

#include <infiniband/kern-abi.h>
#include <rdma/sroce-abi.h>
#include <kernel-abi/sroce-abi.h>

DECLARE_DRV_CMD(sroce_cmd_get_context, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, sroce_alloc_ucontext_resp);
DECLARE_DRV_CMD(sroce_cmd_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, sroce_alloc_pd_resp);
DECLARE_DRV_CMD(sroce_cmd_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, sroce_create_ah_resp);
DECLARE_DRV_CMD(sroce_cmd_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		empty, sroce_cq_resp);
DECLARE_DRV_CMD(sroce_cmd_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		empty, sroce_cq_resp);
DECLARE_DRV_CMD(sroce_cmd_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		empty, sroce_cq_resp);
DECLARE_DRV_CMD(sroce_cmd_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		empty, sroce_create_srq_resp);
/* A resize's reply goes to resp_addr: the command has none (sroce-abi.h). */
DECLARE_DRV_CMD(sroce_cmd_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		sroce_modify_srq_cmd, empty);
DECLARE_DRV_CMD(sroce_cmd_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		empty, sroce_create_qp_resp);
DECLARE_DRV_CMD(sroce_cmd_create_qp_ex, IB_USER_VERBS_EX_CMD_CREATE_QP,
		empty, sroce_create_qp_resp);

#endif /* SROCE_PROVIDER_ABI_H */
