/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: the device's limits, in one place. Each is what query_device or
 * query_port reports, or a bound on what a user or a remote peer can make
 * the device hold.
 */
#ifndef SROCE_PARAM_H
#define SROCE_PARAM_H

#include <linux/bits.h>
#include <linux/sizes.h>

#include "model/mr_check.h"

#define SROCE_DRV_NAME		"sroce"
#define SROCE_PORT		1
#define SROCE_VENDOR_ID		0xffffff	/* no IEEE OUI of our own */
#define SROCE_VENDOR_PART_ID	0x5e0c
#define SROCE_HW_REV		1
#define SROCE_FW_MAJOR		1
#define SROCE_MAX_PD		0x10000
#define SROCE_GID_TBL_LEN	1024
#define SROCE_MAX_CQ		0x10000
#define SROCE_MAX_CQE		0x10000
/* Completion vectors: one per online CPU, up to this many. */
#define SROCE_MAX_COMP_VECTORS	64
#define SROCE_PKEY_TBL_LEN	1
/*
 * Reserved for kernel consumers: the lkey that names all kernel memory
 * (IBK_LOCAL_DMA_LKEY). MR keys are allocated from 1 upwards and never
 * take it.
 */
#define SROCE_LOCAL_DMA_LKEY	0
/* Every index of the 24-bit key table but 0. */
#define SROCE_MAX_MR		SROCE_KEY_INDEX_MAX
/* Bounds the page array of a user MR (8 MiB of pointers at 4 KiB pages). */
#define SROCE_MAX_MR_SIZE	SZ_4G
#define SROCE_MAX_FRMR_PAGES	512
/* Fast-reg pages: any power of two from PAGE_SIZE up to 2 GiB. */
#define SROCE_PAGE_SIZE_CAP	GENMASK_ULL(31, PAGE_SHIFT)

#define SROCE_MAX_QP		0x10000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_SGE		32
#define SROCE_MAX_INLINE	512
/*
 * Reads and atomics in flight per QP, either way. As many as rdma_rxe:
 * perftest gives a QP the initiator depth its peer advertises.
 */
#define SROCE_MAX_RD_ATOMIC	128
/* Packets waiting in a QP's receive FIFOs before receive drops. */
#define SROCE_RX_FIFO_LEN	1024
/*
 * Single resends waiting for the requester: a round trip at 1% loss
 * holds a couple of gaps; beyond this many, the timers recover the rest.
 */
#define SROCE_RESEND_ONE_MAX	32
/*
 * A message takes at most SROCE_MAX_MSG_PSNS PSNs, so PSN order holds with
 * a 24-bit PSN. The largest message this device sends (the port's
 * max_msg_sz) is what that allows at the smallest path MTU, 256: 1 GiB,
 * at every MTU alike. Requests from a peer may be longer where the MTU
 * keeps them within the PSNs.
 */
#define SROCE_MAX_MSG_PSNS	BIT(22)
#define SROCE_MAX_MSG		(SROCE_MAX_MSG_PSNS * 256)
#endif /* SROCE_PARAM_H */
