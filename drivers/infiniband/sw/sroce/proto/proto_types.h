/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one shim between proto/ and its host: the same proto/ files build in
 * the module, in the host unit tests and in the fuzzers.
 */
#ifndef SROCE_PROTO_TYPES_H
#define SROCE_PROTO_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/string.h>
#else
#include <linux/types.h>
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
#define U32_MAX	((u32)~0U)
static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}
#endif

#endif /* SROCE_PROTO_TYPES_H */
