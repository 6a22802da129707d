/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every difference between the kernels sroce supports (Debian's 6.1 and
 * 6.12) is bridged here, so the rest of the driver is written once against
 * one API.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * create_cq's last argument: the udata itself on 6.1, the whole uverbs
 * attribute bundle (NULL for kernel consumers) from 6.10 on.
 */
#if KERNEL_VERSION(6, 10, 0) <= LINUX_VERSION_CODE
#define sroce_create_cq_arg uverbs_attr_bundle

static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define sroce_create_cq_arg ib_udata

static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/* vm_flags became write-protected behind helpers in 6.3. */
#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * IBTA 1.5's FLUSH and ATOMIC WRITE (Annex A19) came with Linux 6.2; 6.1
 * has none of their names. Their uverbs values are the same ABI in every
 * kernel, so sroce names them itself, and 6.12 checks they agree. 6.1's
 * core refuses the FLUSH access bits in reg_mr: there FLUSH can only be
 * answered (with a Remote Access NAK), never granted.
 */
#define SROCE_WR_FLUSH			14
#define SROCE_WR_ATOMIC_WRITE		15
#define SROCE_WC_FLUSH			8
#define SROCE_WC_ATOMIC_WRITE		9
#define SROCE_ACCESS_FLUSH_GLOBAL	0x100
#define SROCE_ACCESS_FLUSH_PERSISTENT	0x200
#define SROCE_DEVICE_FLUSH_GLOBAL	BIT_ULL(38)
#define SROCE_DEVICE_FLUSH_PERSISTENT	BIT_ULL(39)
#define SROCE_DEVICE_ATOMIC_WRITE	BIT_ULL(40)

/*
 * Offered: ATOMIC WRITE everywhere, FLUSH where an MR can grant it, and
 * PERSISTENT where the CPU can write a cache line back (sroce_pmem.c).
 */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define SROCE_DEVICE_A19_CAPS	(SROCE_DEVICE_ATOMIC_WRITE | \
				 SROCE_DEVICE_FLUSH_GLOBAL | \
				 (IS_ENABLED(CONFIG_ARCH_HAS_PMEM_API) ? \
				  SROCE_DEVICE_FLUSH_PERSISTENT : 0))
static_assert(SROCE_WR_FLUSH == IB_WR_FLUSH);
static_assert(SROCE_WR_ATOMIC_WRITE == IB_WR_ATOMIC_WRITE);
static_assert(SROCE_WC_FLUSH == IB_UVERBS_WC_FLUSH);
static_assert(SROCE_WC_ATOMIC_WRITE == IB_UVERBS_WC_ATOMIC_WRITE);
static_assert(SROCE_ACCESS_FLUSH_GLOBAL == IB_ACCESS_FLUSH_GLOBAL);
static_assert(SROCE_ACCESS_FLUSH_PERSISTENT == IB_ACCESS_FLUSH_PERSISTENT);
static_assert(SROCE_DEVICE_FLUSH_GLOBAL == IB_DEVICE_FLUSH_GLOBAL);
static_assert(SROCE_DEVICE_FLUSH_PERSISTENT == IB_DEVICE_FLUSH_PERSISTENT);
static_assert(SROCE_DEVICE_ATOMIC_WRITE == IB_DEVICE_ATOMIC_WRITE);
/* Rights a registration or bind may not grant here. */
#define SROCE_ACC_UNOFFERED	(IS_ENABLED(CONFIG_ARCH_HAS_PMEM_API) ? 0 : \
				 SROCE_ACCESS_FLUSH_PERSISTENT)
#else
#define SROCE_DEVICE_A19_CAPS	SROCE_DEVICE_ATOMIC_WRITE
/* 6.1's core knows no FLUSH right: nothing may grant one (windows too). */
#define SROCE_ACC_UNOFFERED	(SROCE_ACCESS_FLUSH_GLOBAL | \
				 SROCE_ACCESS_FLUSH_PERSISTENT)
#endif

/*
 * The page pool's calls moved to their own headers in 6.6; 6.1's pools
 * split pages into fragments only when asked to (PP_FLAG_PAGE_FRAG, a
 * flag later kernels dropped: every pool may).
 */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif
#ifdef PP_FLAG_PAGE_FRAG
#define SROCE_PP_FLAG_FRAG	PP_FLAG_PAGE_FRAG
#else
#define SROCE_PP_FLAG_FRAG	0
#endif

#endif /* SROCE_COMPAT_H */
