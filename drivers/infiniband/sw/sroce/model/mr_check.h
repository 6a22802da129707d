/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rules of memory access, as pure functions: which access flags a
 * registration may ask for, and whether one access (key, PD, permission,
 * range) may touch a memory region. The kernel's gate (sroce_mr_check() in
 * sroce_mr.c) looks the key up and asks these; the host unit tests ask
 * them directly (tests/unit/test_mr_check.c).
 */
#ifndef SROCE_MR_CHECK_H
#define SROCE_MR_CHECK_H

#include "proto/proto_types.h"

/* The IB_ACCESS_* bits (ib_verbs.h; sroce_mr.c asserts they agree). */
#define SROCE_ACC_LOCAL_WRITE	0x01u
#define SROCE_ACC_REMOTE_WRITE	0x02u
#define SROCE_ACC_REMOTE_READ	0x04u
#define SROCE_ACC_REMOTE_ATOMIC	0x08u
#define SROCE_ACC_MW_BIND	0x10u
/*
 * FLUSH for global visibility and for persistence (Annex A19); only MRs
 * over persistent memory may grant PERSISTENT (sroce_pmem.c).
 */
#define SROCE_ACC_FLUSH_GLOBAL	0x100u
#define SROCE_ACC_FLUSH_PERSISTENT	0x200u
/* IB_ACCESS_OPTIONAL: hints a device may ignore (relaxed ordering). */
#define SROCE_ACC_OPTIONAL	0x3ff00000u

#define SROCE_ACC_LOCAL		(SROCE_ACC_LOCAL_WRITE | SROCE_ACC_MW_BIND)
#define SROCE_ACC_REMOTE	(SROCE_ACC_REMOTE_WRITE | \
				 SROCE_ACC_REMOTE_READ | \
				 SROCE_ACC_REMOTE_ATOMIC | \
				 SROCE_ACC_FLUSH_GLOBAL | \
				 SROCE_ACC_FLUSH_PERSISTENT)
/*
 * Not a right but a way to check, in a bit no IB_ACCESS_* flag uses (a
 * registration or bind never carries it): the key, PD, state and rights
 * even of an access of length 0, and no range (a FLUSH of a whole MR,
 * A19).
 */
#define SROCE_ACC_KEY_ONLY	0x8000u
#define SROCE_ACC_ALL		(SROCE_ACC_LOCAL | SROCE_ACC_REMOTE)

/*
 * key = index << 8 | variant. The index (24 bits) names the slot in the
 * device's key table; the variant tells registrations of one slot apart
 * and, for fast-register MRs, is the byte the consumer owns
 * (ib_update_fast_reg_key()). Index 0 is never allocated, so no MR key is
 * 0, the local DMA lkey.
 */
#define SROCE_KEY_VARIANT_BITS	8
#define SROCE_KEY_VARIANT_MASK	0xffu
#define SROCE_KEY_INDEX_MAX	0xffffffu

static inline u32 sroce_key_index(u32 key)
{
	return key >> SROCE_KEY_VARIANT_BITS;
}

static inline u32 sroce_key_make(u32 index, u32 variant)
{
	return index << SROCE_KEY_VARIANT_BITS |
	       (variant & SROCE_KEY_VARIANT_MASK);
}

enum sroce_mr_state {
	SROCE_MR_INVALID,	/* fast-reg MR not (or no longer) registered */
	SROCE_MR_VALID,
	SROCE_MR_FREE,		/* being deregistered */
};

/*
 * Why an access was refused; the gate returns the negated value. One
 * reason per check so the data path can count and report each.
 */
enum sroce_mr_fault {
	SROCE_MR_OK,
	SROCE_MR_NO_KEY,	/* no MR at the index, or key 0 not allowed */
	SROCE_MR_BAD_VARIANT,	/* the slot holds another registration */
	SROCE_MR_NOT_VALID,	/* invalidated, never registered, or freed */
	SROCE_MR_BAD_PD,
	SROCE_MR_NO_ACCESS,	/* the MR does not grant the permission */
	SROCE_MR_OVERFLOW,	/* addr + len wraps around 2^64 */
	SROCE_MR_OUT_OF_BOUNDS,
	SROCE_MR_NR_FAULTS
};

/* What the gate compares against; one per MR. */
struct sroce_mr_attr {
	u64 iova;
	u64 length;
	u32 key;
	u32 access;	/* SROCE_ACC_* */
	u32 state;	/* enum sroce_mr_state */
};

/*
 * Access flags a registration may carry. Known: what this device
 * implements, plus optional hints (relaxed ordering) that it may ignore.
 * Consistent: remote write and remote atomic need local write, the IBTA
 * rule the RDMA core's ib_check_mr_access() enforces for userspace.
 */
static inline bool sroce_mr_access_known(u32 access)
{
	return !(access & ~(SROCE_ACC_ALL | SROCE_ACC_OPTIONAL));
}

static inline bool sroce_mr_access_consistent(u32 access)
{
	return !(access & (SROCE_ACC_REMOTE_WRITE | SROCE_ACC_REMOTE_ATOMIC)) ||
	       (access & SROCE_ACC_LOCAL_WRITE);
}

/* A region registration may cover: not empty, not too big, no wrap. */
static inline bool sroce_mr_range_valid(u64 iova, u64 length, u64 max)
{
	return length && length <= max && iova + (length - 1) >= iova;
}

/*
 * [addr, addr + len) inside [iova, iova + length)? Written so that no sum
 * can wrap: the region itself may end exactly at 2^64.
 */
static inline int sroce_mr_range_check(u64 iova, u64 length, u64 addr,
				       u64 len)
{
	u64 off;

	if (addr + len < addr && addr + len != 0)
		return SROCE_MR_OVERFLOW;
	if (addr < iova)
		return SROCE_MR_OUT_OF_BOUNDS;
	off = addr - iova;
	if (off > length || len > length - off)
		return SROCE_MR_OUT_OF_BOUNDS;
	return SROCE_MR_OK;
}

/*
 * Every local access may read; writing needs LOCAL_WRITE, binding a window
 * MW_BIND. A remote access needs the matching REMOTE_* right. A request
 * for a right of the other side is refused.
 */
static inline bool sroce_mr_access_ok(u32 mr_access, bool remote, u32 needed)
{
	u32 side = remote ? SROCE_ACC_REMOTE : SROCE_ACC_LOCAL;

	return !(needed & ~side) && (mr_access & needed) == needed;
}

/*
 * The whole decision for an MR found at key's index; pd_ok says whether
 * the accessing QP's PD is the MR's. A zero-length access touches no
 * memory and is allowed without any check: the IBTA has the responder skip
 * R_Key and VA validation for an RDMA READ or WRITE with a DMA length of
 * zero, and sroce treats local SGEs of length 0 the same way. With
 * SROCE_ACC_KEY_ONLY in @needed, every check but the range's is made.
 * Returns SROCE_MR_OK or the first failing reason, in the order below.
 */
static inline int sroce_mr_attr_check(const struct sroce_mr_attr *mr,
				      u32 key, bool pd_ok, bool remote,
				      u64 addr, u64 len, u32 needed)
{
	bool key_only = needed & SROCE_ACC_KEY_ONLY;

	needed &= ~SROCE_ACC_KEY_ONLY;
	if (!len && !key_only)
		return SROCE_MR_OK;
	if (mr->key != key)
		return SROCE_MR_BAD_VARIANT;
	if (mr->state != SROCE_MR_VALID)
		return SROCE_MR_NOT_VALID;
	if (!pd_ok)
		return SROCE_MR_BAD_PD;
	if (!sroce_mr_access_ok(mr->access, remote, needed))
		return SROCE_MR_NO_ACCESS;
	if (key_only)
		return SROCE_MR_OK;
	return sroce_mr_range_check(mr->iova, mr->length, addr, len);
}

/* Where a byte of a region lives in its page list. */
struct sroce_mr_pos {
	u64 idx;	/* page */
	u64 off;	/* byte in that page */
	u64 n;		/* bytes from there to the end of the page or len */
};

/*
 * For the dma engine's walk: the region starts first_off bytes into page
 * 0 (a user MR: the user address's page offset; a fast-reg MR: iova's
 * offset in its first page), pages are 1 << shift bytes, and [addr,
 * addr + len) has passed sroce_mr_range_check(). len is not 0.
 */
static inline struct sroce_mr_pos sroce_mr_locate(u64 first_off, u32 shift,
						  u64 iova, u64 addr, u64 len)
{
	u64 mask = (1ULL << shift) - 1;
	u64 pos = first_off + (addr - iova);
	struct sroce_mr_pos p = {
		.idx = pos >> shift,
		.off = pos & mask,
	};

	p.n = mask + 1 - p.off < len ? mask + 1 - p.off : len;
	return p;
}

#endif /* SROCE_MR_CHECK_H */
