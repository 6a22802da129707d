// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The memory access rules: keys, registration flags, bounds, permissions. */
#include <stdint.h>

#include "tap.h"
#include "model/mr_check.h"

#define LW	SROCE_ACC_LOCAL_WRITE
#define RW	SROCE_ACC_REMOTE_WRITE
#define RR	SROCE_ACC_REMOTE_READ
#define RA	SROCE_ACC_REMOTE_ATOMIC
#define MW	SROCE_ACC_MW_BIND
#define FG	SROCE_ACC_FLUSH_GLOBAL
#define FP	SROCE_ACC_FLUSH_PERSISTENT
#define KEY	SROCE_ACC_KEY_ONLY
#define MAX64	UINT64_MAX

static void test_keys(void)
{
	is(sroce_key_make(1, 0), 0x100, "index 1 variant 0 is key 0x100");
	is(sroce_key_make(SROCE_KEY_INDEX_MAX, 0x1ff), 0xffffffff,
	   "the variant keeps 8 bits");
	is(sroce_key_index(0x123456ab), 0x123456, "index from key");
	is(sroce_key_index(0xff), 0, "keys below 0x100 have index 0");
}

static void test_registration_flags(void)
{
	int bad_known = 0, bad_consistent = 0;
	u32 acc;

	for (acc = 0; acc < 32; acc++) {
		bool want = !(acc & (RW | RA)) || (acc & LW);

		bad_known += !sroce_mr_access_known(acc);
		bad_consistent += sroce_mr_access_consistent(acc) != want;
	}
	is(bad_known, 0, "all 32 combinations of the five rights are known");
	is(bad_consistent, 0,
	   "consistent exactly when remote write/atomic come with local write");
	ok(!sroce_mr_access_consistent(RW), "remote write alone is refused");
	ok(!sroce_mr_access_consistent(RA | RR), "remote atomic + read refused");
	ok(sroce_mr_access_consistent(LW | RW | RR | RA | MW), "all rights");
	ok(sroce_mr_access_consistent(0), "no rights (local read only)");
	ok(sroce_mr_access_known(LW | (1u << 20)),
	   "relaxed ordering (optional) is known");
	ok(!sroce_mr_access_known(1u << 5), "zero-based is not offered");
	ok(!sroce_mr_access_known(1u << 6), "on-demand paging is not offered");
	ok(sroce_mr_access_known(LW | FG), "FLUSH for global visibility is known");
	ok(sroce_mr_access_consistent(FG), "FLUSH alone needs no local write");
	ok(sroce_mr_access_known(LW | SROCE_ACC_FLUSH_PERSISTENT),
	   "FLUSH for persistence is known");
	ok(sroce_mr_access_consistent(SROCE_ACC_FLUSH_PERSISTENT),
	   "persistent FLUSH alone needs no local write");
}

static void test_region_valid(void)
{
	ok(!sroce_mr_range_valid(0x1000, 0, 1ull << 32), "empty region refused");
	ok(sroce_mr_range_valid(0x1000, 1, 1ull << 32), "one byte");
	ok(sroce_mr_range_valid(0, 1ull << 32, 1ull << 32), "exactly max size");
	ok(!sroce_mr_range_valid(0, (1ull << 32) + 1, 1ull << 32),
	   "one byte over max size");
	ok(sroce_mr_range_valid(MAX64 - 4095, 4096, MAX64),
	   "a region may end exactly at 2^64");
	ok(!sroce_mr_range_valid(MAX64 - 4095, 4097, MAX64),
	   "a region that wraps is refused");
	ok(!sroce_mr_range_valid(MAX64, MAX64, MAX64), "huge wrap refused");
}

static void test_bounds(void)
{
	const u64 iova = 0x10000, len = 0x3000;

	is(sroce_mr_range_check(iova, len, iova, len), SROCE_MR_OK,
	   "the whole region");
	is(sroce_mr_range_check(iova, len, iova, 1), SROCE_MR_OK, "first byte");
	is(sroce_mr_range_check(iova, len, iova + len - 1, 1), SROCE_MR_OK,
	   "last byte (exact end)");
	is(sroce_mr_range_check(iova, len, iova + 8, len - 8), SROCE_MR_OK,
	   "ends exactly at the end");
	is(sroce_mr_range_check(iova, len, iova + len, 1),
	   SROCE_MR_OUT_OF_BOUNDS, "one past the end");
	is(sroce_mr_range_check(iova, len, iova + 8, len - 7),
	   SROCE_MR_OUT_OF_BOUNDS, "one byte too long");
	is(sroce_mr_range_check(iova, len, iova - 1, 2), SROCE_MR_OUT_OF_BOUNDS,
	   "starts one before");
	is(sroce_mr_range_check(iova, len, iova, len + 1),
	   SROCE_MR_OUT_OF_BOUNDS, "longer than the region");
	is(sroce_mr_range_check(iova, len, 0, 1), SROCE_MR_OUT_OF_BOUNDS,
	   "address 0");
	is(sroce_mr_range_check(iova, len, iova + 0x1000, MAX64),
	   SROCE_MR_OVERFLOW, "addr + len wraps");
	is(sroce_mr_range_check(iova, len, MAX64, 2), SROCE_MR_OVERFLOW,
	   "last address + 2 wraps");
	is(sroce_mr_range_check(iova, len, iova + 4, MAX64 - iova - 3),
	   SROCE_MR_OUT_OF_BOUNDS, "ends exactly at 2^64: no wrap, but out");
	is(sroce_mr_range_check(MAX64 - 4095, 4096, MAX64, 1), SROCE_MR_OK,
	   "last byte of a region ending at 2^64");
	is(sroce_mr_range_check(MAX64 - 4095, 4096, MAX64 - 4095, 4096),
	   SROCE_MR_OK, "all of a region ending at 2^64");
	is(sroce_mr_range_check(0, MAX64, 0x1234, 0x100000), SROCE_MR_OK,
	   "the DMA MR covers everything below 2^64 - 1");
}

struct op {
	const char *name;
	bool remote;
	u32 needed;
	u32 right;	/* the one right that grants it; 0: always */
};

static void test_permissions(void)
{
	static const struct op ops[] = {
		{ "local read", false, 0, 0 },
		{ "local write", false, LW, LW },
		{ "window bind", false, MW, MW },
		{ "remote read", true, RR, RR },
		{ "remote write", true, RW, RW },
		{ "remote atomic", true, RA, RA },
		{ "remote flush", true, FG, FG },
	};
	size_t i;
	u32 acc;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		int wrong = 0;

		for (acc = 0; acc < 64; acc++) {
			u32 a = (acc & 0x1f) | ((acc & 0x20) ? FG : 0);
			bool want = !ops[i].right || (a & ops[i].right);

			wrong += sroce_mr_access_ok(a, ops[i].remote,
						    ops[i].needed) != want;
		}
		is(wrong, 0, "%s: allowed exactly when %s (64 combinations)",
		   ops[i].name, ops[i].right ? "its right is granted" :
		   "always");
	}
	ok(!sroce_mr_access_ok(LW | RW | RR | RA, false, RR),
	   "a local access cannot ask for a remote right");
	ok(!sroce_mr_access_ok(LW | RW | RR | RA, true, LW),
	   "a remote access cannot ask for local write");
	ok(!sroce_mr_access_ok(LW | RR, true, RR | RW),
	   "read + write needs both rights");
	ok(sroce_mr_access_ok(LW | RR | RW, true, RR | RW),
	   "read + write with both rights");
	ok(sroce_mr_access_ok(0, false, 0), "a region with no rights is readable");
}

static void test_gate(void)
{
	const struct sroce_mr_attr mr = {
		.iova = 0x7000, .length = 0x2000, .key = 0x1234ab,
		.access = LW | RR, .state = SROCE_MR_VALID,
	};
	struct sroce_mr_attr m;

	is(sroce_mr_attr_check(&mr, 0x1234ab, true, true, 0x7000, 0x2000, RR),
	   SROCE_MR_OK, "a valid remote read");
	is(sroce_mr_attr_check(&mr, 0x1234ac, true, true, 0x7000, 8, RR),
	   SROCE_MR_BAD_VARIANT, "another variant of the key");
	is(sroce_mr_attr_check(&mr, 0x1234ab, false, true, 0x7000, 8, RR),
	   SROCE_MR_BAD_PD, "another PD");
	is(sroce_mr_attr_check(&mr, 0x1234ab, true, true, 0x7000, 8, RW),
	   SROCE_MR_NO_ACCESS, "remote write on a read-only region");
	is(sroce_mr_attr_check(&mr, 0x1234ab, true, true, 0x8fff, 2, RR),
	   SROCE_MR_OUT_OF_BOUNDS, "one byte over the end");
	is(sroce_mr_attr_check(&mr, 0x1234ab, true, true, 0x8000, MAX64, RR),
	   SROCE_MR_OVERFLOW, "addr + len wraps");
	m = mr;
	m.state = SROCE_MR_INVALID;
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0x7000, 8, RR),
	   SROCE_MR_NOT_VALID, "an invalidated region");
	m.state = SROCE_MR_FREE;
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0x7000, 8, RR),
	   SROCE_MR_NOT_VALID, "a region being freed");
	is(sroce_mr_attr_check(&m, 0x99, false, true, MAX64, 0, RW),
	   SROCE_MR_OK, "zero length: nothing is checked");
	is(sroce_mr_attr_check(&mr, 0x1234ac, false, false, 0, 8, RW),
	   SROCE_MR_BAD_VARIANT, "the key is checked first");
	is(sroce_mr_attr_check(&m, 0x1234ab, false, false, 0, 8, RW),
	   SROCE_MR_NOT_VALID, "then the state");
	is(sroce_mr_attr_check(&mr, 0x1234ab, false, false, 0, 8, RW),
	   SROCE_MR_BAD_PD, "then the PD");
	is(sroce_mr_attr_check(&mr, 0x1234ab, true, false, 0, 8, RW),
	   SROCE_MR_NO_ACCESS, "then the rights, before the bounds");

	/* FLUSH: the key always, the range only for a non-empty RANGE. */
	m = mr;
	m.access = LW | FG;
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0, 0, FG | KEY),
	   SROCE_MR_OK, "key only, length 0: a FLUSH-capable region passes");
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, MAX64, MAX64,
			       FG | KEY),
	   SROCE_MR_OK, "key only: no range is checked");
	is(sroce_mr_attr_check(&mr, 0x1234ab, true, true, 0x7000, 0, FG | KEY),
	   SROCE_MR_NO_ACCESS, "key only, length 0: the rights are checked");
	is(sroce_mr_attr_check(&m, 0x1234ac, true, true, 0x7000, 0, FG | KEY),
	   SROCE_MR_BAD_VARIANT, "key only, length 0: the key is checked");
	is(sroce_mr_attr_check(&m, 0x1234ab, false, true, 0x7000, 0, KEY),
	   SROCE_MR_BAD_PD, "key only, length 0: the PD is checked");
	m.state = SROCE_MR_INVALID;
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0x7000, 0, KEY),
	   SROCE_MR_NOT_VALID, "key only, length 0: the state is checked");
	m.state = SROCE_MR_VALID;
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0x8fff, 2, FG),
	   SROCE_MR_OUT_OF_BOUNDS, "a FLUSH of a range is range-checked");
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0x7000, 8, FG | FP),
	   SROCE_MR_NO_ACCESS, "a GLOBAL-only region refuses persistence");
	m.access = FP;
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0x7000, 0, FP | KEY),
	   SROCE_MR_OK, "a PERSISTENT region takes a FLUSH of itself");
	is(sroce_mr_attr_check(&m, 0x1234ab, true, true, 0x7000, 8, FG),
	   SROCE_MR_NO_ACCESS, "a PERSISTENT-only region refuses GLOBAL");
}

/* Walk [addr, addr + len) as the dma engine does; count pieces and bytes. */
static void walk(u64 first_off, u32 shift, u64 iova, u64 addr, u64 len,
		 u64 *pieces, u64 *bytes, u64 *last_idx, int *bad)
{
	u64 size = 1ull << shift;

	*pieces = 0;
	*bytes = 0;
	*bad = 0;
	while (len) {
		struct sroce_mr_pos p = sroce_mr_locate(first_off, shift, iova,
							addr, len);

		/* Contiguous: each piece stays in its page and follows on. */
		*bad += p.off + p.n > size || !p.n;
		*bad += (p.idx * size + p.off) != first_off + (addr - iova);
		*last_idx = p.idx;
		(*pieces)++;
		*bytes += p.n;
		addr += p.n;
		len -= p.n;
	}
}

static void test_locate(void)
{
	/* A user MR: iova 0x7f0000 maps user address ...07b (offset 123). */
	const u64 iova = 0x7f0000, off = 123;
	u64 pieces, bytes, last;
	struct sroce_mr_pos p;
	int bad;

	p = sroce_mr_locate(off, 12, iova, iova, 1);
	ok(p.idx == 0 && p.off == 123 && p.n == 1, "first byte: page 0 at 123");
	p = sroce_mr_locate(off, 12, iova, iova, 10000);
	is(p.n, 4096 - 123, "first piece ends at the page end");
	p = sroce_mr_locate(off, 12, iova, iova + 4096 - 123, 10);
	ok(p.idx == 1 && p.off == 0 && p.n == 10, "next page starts at 0");
	p = sroce_mr_locate(off, 12, iova, iova + 4095 - 123, 2);
	ok(p.idx == 0 && p.off == 4095 && p.n == 1, "a 2-byte access splits");

	walk(off, 12, iova, iova, 3 * 4096, &pieces, &bytes, &last, &bad);
	ok(!bad && pieces == 4 && bytes == 3 * 4096 && last == 3,
	   "3 pages from an unaligned start: 4 pieces, pages 0..3");
	walk(off, 12, iova, iova + 5000, 1, &pieces, &bytes, &last, &bad);
	ok(!bad && pieces == 1 && last == 1, "one byte inside page 1");

	/* A fast-reg MR of 2 MiB pages, iova 0x1000 into its first page. */
	walk(0x1000, 21, 0xffff888000201000ull, 0xffff888000201000ull,
	     (4ull << 20) - 0x1000, &pieces, &bytes, &last, &bad);
	ok(!bad && pieces == 2 && last == 1 &&
	   bytes == (4ull << 20) - 0x1000,
	   "fast-reg, 2 MiB pages: the region in 2 pieces");
	walk(0, 12, 0, 0, 1ull << 20, &pieces, &bytes, &last, &bad);
	ok(!bad && pieces == 256 && last == 255, "1 MiB aligned: 256 pages");
}

int main(void)
{
	test_keys();
	test_registration_flags();
	test_region_valid();
	test_bounds();
	test_permissions();
	test_gate();
	test_locate();
	return tap_done();
}
