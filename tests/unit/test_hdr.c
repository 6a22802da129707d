// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Header layouts byte by byte, against the bit pictures of IBTA vol 1
 * ch. 9.2-9.3; the field helpers; RoCEv2 constants; source-port entropy.
 */
#include <stddef.h>
#include <string.h>
#include "tap.h"
#include "proto/hdr.h"
#include "proto/parse.h"

static void check_layouts(void)
{
	is(sizeof(struct sroce_bth), 12, "BTH is 12 bytes");
	is(offsetof(struct sroce_bth, flags), 1, "BTH SE/M/Pad/TVer byte 1");
	is(offsetof(struct sroce_bth, pkey), 2, "BTH P_Key bytes 2-3");
	is(offsetof(struct sroce_bth, ecn), 4, "BTH FECN/BECN byte 4");
	is(offsetof(struct sroce_bth, dqpn), 5, "BTH DestQP bytes 5-7");
	is(offsetof(struct sroce_bth, ackreq), 8, "BTH AckReq byte 8");
	is(offsetof(struct sroce_bth, psn), 9, "BTH PSN bytes 9-11");
	is(sizeof(struct sroce_reth), 16, "RETH is 16 bytes");
	is(offsetof(struct sroce_reth, rkey), 8, "RETH R_Key at 8");
	is(offsetof(struct sroce_reth, len), 12, "RETH DMA length at 12");
	is(sizeof(struct sroce_aeth), 4, "AETH is 4 bytes");
	is(offsetof(struct sroce_aeth, msn), 1, "AETH MSN at 1");
	is(sizeof(struct sroce_atmeth), 28, "AtomicETH is 28 bytes");
	is(offsetof(struct sroce_atmeth, rkey), 8, "AtomicETH R_Key at 8");
	is(offsetof(struct sroce_atmeth, swap_add), 12,
	   "AtomicETH swap/add at 12");
	is(offsetof(struct sroce_atmeth, compare), 20,
	   "AtomicETH compare at 20");
	is(sizeof(struct sroce_atmack), 8, "AtomicAckETH is 8 bytes");
	is(sizeof(struct sroce_immdt), 4, "ImmDt is 4 bytes");
	is(sizeof(struct sroce_ieth), 4, "IETH is 4 bytes");
	is(sizeof(struct sroce_deth), 8, "DETH is 8 bytes");
	is(offsetof(struct sroce_deth, sqpn), 5, "DETH SrcQP bytes 5-7");
	is(sizeof(struct sroce_cnp), 16, "CNP reserved part is 16 bytes");
}

static void check_constants(void)
{
	is(SROCE_UDP_DPORT, 4791, "RoCEv2 UDP destination port 4791");
	is(SROCE_TVER, 0, "BTH transport version 0");
	is(SROCE_DEFAULT_PKEY, 0xffff, "default P_Key 0xffff");
	is(SROCE_CNP_OPCODE, 0x81, "CNP opcode 0x81");
	is(SROCE_ICRC_LEN, 4, "ICRC is 4 bytes");
	is(sroce_pad(0), 0, "pad of 0");
	is(sroce_pad(1), 3, "pad of 1");
	is(sroce_pad(2), 2, "pad of 2");
	is(sroce_pad(3), 1, "pad of 3");
	is(sroce_pad(4096), 0, "pad of 4096");
	is(sroce_pad(4095), 1, "pad of 4095");
}

static void check_helpers(void)
{
	u8 b[16];
	unsigned int off, bad = 0;
	static const u8 want[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	/* At every alignment: ASan/UBSan watch the accesses. */
	for (off = 0; off < 8; off++) {
		memset(b, 0xee, sizeof(b));
		sroce_put_be64(b + off, 0x0102030405060708ull);
		bad += memcmp(b + off, want, 8) != 0;
		bad += sroce_get_be64(b + off) != 0x0102030405060708ull;
		bad += b[off + 8] != 0xee || (off && b[off - 1] != 0xee);
		sroce_put_be32(b + off, 0xa1b2c3d4);
		bad += b[off] != 0xa1 || b[off + 3] != 0xd4;
		bad += sroce_get_be32(b + off) != 0xa1b2c3d4;
		sroce_put_be24(b + off, 0xfffe0102);
		bad += b[off] != 0xfe || b[off + 2] != 0x02;
		bad += sroce_get_be24(b + off) != 0xfe0102;
		sroce_put_be16(b + off, 0xbeef);
		bad += b[off] != 0xbe || b[off + 1] != 0xef;
		bad += sroce_get_be16(b + off) != 0xbeef;
	}
	is(bad, 0, "big-endian get/put at every alignment");
}

/* Headers built from fields equal the bytes assembled by hand. */
static void check_bytes(void)
{
	struct sroce_fields f;
	u8 b[64];

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, WRITE_ONLY_IMM);
	f.se = true;
	f.mig = true;
	f.pad = 2;
	f.pkey = 0x8001;
	f.fecn = true;
	f.dqpn = 0x123456;
	f.ackreq = true;
	f.psn = 0xfedcba;
	f.reth.va = 0x1122334455667788ull;
	f.reth.rkey = 0x99aabbcc;
	f.reth.len = 0x00010000;
	f.imm = 0;
	memcpy(&f.imm, "\xde\xad\xbe\xef", 4);
	{
		static const u8 want[32] = {
			0x0b, 0xe0, 0x80, 0x01, 0x80, 0x12, 0x34, 0x56,
			0x80, 0xfe, 0xdc, 0xba,
			0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
			0x99, 0xaa, 0xbb, 0xcc, 0x00, 0x01, 0x00, 0x00,
			0xde, 0xad, 0xbe, 0xef,
		};

		is(sroce_hdrs_encode(b, sizeof(b), &f), 32,
		   "BTH+RETH+ImmDt is 32 bytes");
		ok(!memcmp(b, want, 32), "BTH, RETH, ImmDt bytes");
	}

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, ATOMIC_ACK);
	f.pkey = 0xffff;
	f.becn = true;
	f.dqpn = 0xabcdef;
	f.psn = 1;
	f.aeth.syndrome = SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS;
	f.aeth.msn = 0x010203;
	f.atmack_orig = 0xf0e0d0c0b0a09080ull;
	{
		static const u8 want[24] = {
			0x12, 0x00, 0xff, 0xff, 0x40, 0xab, 0xcd, 0xef,
			0x00, 0x00, 0x00, 0x01,
			0x62, 0x01, 0x02, 0x03,
			0xf0, 0xe0, 0xd0, 0xc0, 0xb0, 0xa0, 0x90, 0x80,
		};

		is(sroce_hdrs_encode(b, sizeof(b), &f), 24,
		   "BTH+AETH+AtomicAckETH is 24 bytes");
		ok(!memcmp(b, want, 24), "BTH, AETH, AtomicAckETH bytes");
	}

	/* Selective repeat's bit: resv7's first, beside AckReq, both ways. */
	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, ACK);
	f.sr = true;
	f.psn = 0x10;
	{
		struct sroce_pkt p;

		is(sroce_hdrs_encode(b, sizeof(b), &f), 16, "BTH+AETH");
		is(b[8], 0x40, "SR alone is 0x40 in byte 8");
		f.ackreq = true;
		sroce_hdrs_encode(b, sizeof(b), &f);
		is(b[8], 0xc0, "SR with AckReq is 0xc0");
		memset(b + 16, 0, 4);
		ok(sroce_parse(b, 20, 4096, &p) == SROCE_PARSE_OK &&
		   p.f.sr && p.f.ackreq && p.f.psn == 0x10,
		   "SR and AckReq parsed back");
		b[8] = 0x80;
		ok(sroce_parse(b, 20, 4096, &p) == SROCE_PARSE_OK && !p.f.sr,
		   "no SR without the bit");
	}

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, FETCH_ADD);
	f.pkey = 0xffff;
	f.dqpn = 0x11;
	f.psn = 0x22;
	f.atmeth.va = 0x0000000100002000ull;
	f.atmeth.rkey = 0xcafef00d;
	f.atmeth.swap_add = 0x8000000000000001ull;
	f.atmeth.compare = 0x0102030405060708ull;
	{
		static const u8 want[40] = {
			0x14, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
			0x00, 0x00, 0x00, 0x22,
			0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x20, 0x00,
			0xca, 0xfe, 0xf0, 0x0d,
			0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
			0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		};

		is(sroce_hdrs_encode(b, sizeof(b), &f), 40,
		   "BTH+AtomicETH is 40 bytes");
		ok(!memcmp(b, want, 40), "BTH, AtomicETH bytes");
	}

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(UD, SEND_ONLY_IMM);
	f.se = true;
	f.pad = 3;
	f.pkey = 0xffff;
	f.dqpn = 1;
	f.psn = 0;
	f.deth.qkey = 0x80010000;
	f.deth.sqpn = 0xfedcba;
	memcpy(&f.imm, "\x01\x02\x03\x04", 4);
	{
		static const u8 want[24] = {
			0x65, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
			0x00, 0x00, 0x00, 0x00,
			0x80, 0x01, 0x00, 0x00, 0x00, 0xfe, 0xdc, 0xba,
			0x01, 0x02, 0x03, 0x04,
		};

		is(sroce_hdrs_encode(b, sizeof(b), &f), 24,
		   "BTH+DETH+ImmDt is 24 bytes");
		ok(!memcmp(b, want, 24), "BTH, DETH, ImmDt bytes");
	}

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, SEND_ONLY_INV);
	f.pkey = 0x7fff;
	f.dqpn = 0xffffff;
	f.ackreq = true;
	f.psn = 0xffffff;
	f.ieth_rkey = 0x00c0ffee;
	{
		static const u8 want[16] = {
			0x17, 0x00, 0x7f, 0xff, 0x00, 0xff, 0xff, 0xff,
			0x80, 0xff, 0xff, 0xff,
			0x00, 0xc0, 0xff, 0xee,
		};

		is(sroce_hdrs_encode(b, sizeof(b), &f), 16,
		   "BTH+IETH is 16 bytes");
		ok(!memcmp(b, want, 16), "BTH, IETH bytes");
	}

	/* Out-of-range values are cut to their fields, not spilled over. */
	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_CNP_OPCODE;
	f.pad = 0xff;
	f.tver = 0xff;
	f.dqpn = 0xff000001;
	f.psn = 0xff000002;
	memset(b, 0xee, sizeof(b));
	{
		static const u8 want[28] = {
			0x81, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
			0x00, 0x00, 0x00, 0x02,
		};

		is(sroce_hdrs_encode(b, sizeof(b), &f), 28, "CNP is 28 bytes");
		ok(!memcmp(b, want, 28), "CNP: fields masked, reserved zero");
		is(b[28], 0xee, "CNP: nothing written past its headers");
	}
}

static void check_entropy(void)
{
	static u8 seen[0x4000];
	unsigned int i, distinct = 0, out = 0, asym = 0, zero = 0, wide = 0;
	u32 fl;
	u16 sp;

	for (i = 0; i < 4096; i++) {
		u32 s = 0x11 + (i & 63), d = 0x400 + (i >> 6) * 3;

		fl = sroce_flow_label(s, d);
		zero += fl == 0;
		wide += fl > SROCE_FLOW_LABEL_MASK;
		asym += fl != sroce_flow_label(d, s);
		sp = sroce_udp_sport(fl);
		out += sp < 0xc000;
		distinct += !seen[sp - 0xc000];
		seen[sp - 0xc000] = 1;
	}
	is(out, 0, "source ports lie in 0xC000..0xFFFF");
	is(zero, 0, "flow label is never 0");
	is(wide, 0, "flow label fits 20 bits");
	is(asym, 0, "flow label is the same in both directions");
	/* 4096 QP pairs into 16384 ports: about 3600 distinct if uniform */
	ok(distinct > 3300, "4096 QP pairs spread over %u source ports",
	   distinct);
	is(sroce_flow_label(5, 9), sroce_flow_label(5, 9),
	   "flow label is stable");
	ok(sroce_flow_label(5, 9) == sroce_flow_label(0xff000005, 9),
	   "flow label ignores bits above the QPN");
	is(sroce_udp_sport(0), 0xc000, "label 0 maps to 0xC000");
	ok(sroce_udp_sport(0xfffff) >= 0xc000, "label 0xfffff in range");
}

int main(void)
{
	check_layouts();
	check_constants();
	check_helpers();
	check_bytes();
	check_entropy();
	return tap_done();
}
