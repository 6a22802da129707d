/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one shim between proto/ and its host: the same proto/ files build in
 * the module, in the host unit tests and in the fuzzers.
 */
#ifndef SROCE_PROTO_TYPES_H
#define SROCE_PROTO_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
#endif

#endif /* SROCE_PROTO_TYPES_H */
