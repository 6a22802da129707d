/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The interface between the sroce kernel module and its rdma-core provider
 * (libsroce). Both sides build from this one file. Every structure is made of
 * fixed-width little-endian fields with explicit padding; sizes are pinned by
 * static asserts so a change that moves a field fails to build.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

/*
 * Reported as the device's uverbs ABI version; libsroce accepts only the
 * versions it was built for.
 */
#define SROCE_ABI_VERSION	1

/*
 * The device's sysfs attribute (under /sys/class/infiniband/<name>/) that
 * libsroce matches on: out-of-tree drivers report RDMA_DRIVER_UNKNOWN, so the
 * driver id cannot tell sroce devices apart. It holds SROCE_ABI_VERSION.
 */
#define SROCE_SYSFS_MATCH_ATTR	"sroce_abi_version"

struct sroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 reserved;
};

struct sroce_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

static_assert(sizeof(struct sroce_alloc_ucontext_resp) == 8, "ABI size");
static_assert(sizeof(struct sroce_alloc_pd_resp) == 8, "ABI size");

#endif /* SROCE_ABI_USER_H */
