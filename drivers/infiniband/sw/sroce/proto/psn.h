/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Packet sequence numbers are 24 bits and wrap (IBTA 9.7.1). Two PSNs are
 * ordered by their distance modulo 2^24: the later one is less than half
 * the space (2^23) ahead.
 */
#ifndef SROCE_PROTO_PSN_H
#define SROCE_PROTO_PSN_H

#include "proto_types.h"

#define SROCE_PSN_BITS	24
#define SROCE_PSN_MASK	((1u << SROCE_PSN_BITS) - 1)

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* Signed distance from @b to @a, in [-2^23, 2^23). */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & SROCE_PSN_MASK;

	return d >= (1u << (SROCE_PSN_BITS - 1)) ?
		(s32)d - (s32)(1u << SROCE_PSN_BITS) : (s32)d;
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

/* @psn lies in the window of @len PSNs that starts at @start. */
static inline bool sroce_psn_in_window(u32 psn, u32 start, u32 len)
{
	return ((psn - start) & SROCE_PSN_MASK) < len;
}

#endif /* SROCE_PROTO_PSN_H */
