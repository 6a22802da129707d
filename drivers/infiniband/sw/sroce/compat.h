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

#endif /* SROCE_COMPAT_H */
