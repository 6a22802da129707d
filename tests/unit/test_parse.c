// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parser: build -> parse round trips for every valid opcode, every
 * error, and the packets Scapy and a ConnectX-4 Lx built (whose headers
 * Scapy laid out, a second opinion on every field position).
 */
#include <string.h>
#include "tap.h"
#include "proto/parse.h"
#include "proto/icrc.h"
#include "icrc_vectors.h"

#define MTU 256

static u32 rng = 0x2545f491;

static u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static u64 rnd64(void)
{
	return (u64)rnd() << 32 | rnd();
}

/* Random values in the fields the opcode's headers carry, zero elsewhere */
static void random_fields(u8 opcode, struct sroce_fields *f)
{
	const struct sroce_opcode_info *info = sroce_opcode(opcode);
	u32 r = rnd();

	memset(f, 0, sizeof(*f));
	f->opcode = opcode;
	f->se = r & 1;
	f->mig = r & 2;
	f->fecn = r & 4;
	f->becn = r & 8;
	f->ackreq = r & 16;
	f->sr = r & 32;
	f->pkey = rnd();
	f->dqpn = rnd() & SROCE_QPN_MASK;
	f->psn = rnd() & SROCE_PSN_MASK;
	if (info->exts & SROCE_HAS(FETH)) {
		f->feth.type = rnd() & 0xf;
		f->feth.level = rnd() & 3;
	}
	if (info->exts & SROCE_HAS(RETH)) {
		f->reth.va = rnd64();
		f->reth.rkey = rnd();
		f->reth.len = rnd();
	}
	if (info->exts & SROCE_HAS(AETH)) {
		f->aeth.syndrome = rnd();
		f->aeth.msn = rnd() & SROCE_QPN_MASK;
	}
	if (info->exts & SROCE_HAS(ATMETH)) {
		f->atmeth.va = rnd64();
		f->atmeth.rkey = rnd();
		f->atmeth.swap_add = rnd64();
		f->atmeth.compare = rnd64();
	}
	if (info->exts & SROCE_HAS(ATMACK))
		f->atmack_orig = rnd64();
	if (info->exts & SROCE_HAS(IMMDT))
		f->imm = rnd();
	if (info->exts & SROCE_HAS(IETH))
		f->ieth_rkey = rnd();
	if (info->exts & SROCE_HAS(DETH)) {
		f->deth.qkey = rnd();
		f->deth.sqpn = rnd() & SROCE_QPN_MASK;
	}
}

/* A whole packet: headers, @paylen bytes, pad, ICRC (not computed) */
static u32 build(u8 *buf, u32 size, struct sroce_fields *f, u32 paylen)
{
	u32 hlen, pad = sroce_pad(paylen);

	f->pad = pad;
	hlen = sroce_hdrs_encode(buf, size, f);
	if (!hlen || hlen + paylen + pad + 4 > size)
		return 0;
	memset(buf + hlen, 0xa5, paylen);
	memset(buf + hlen + paylen, 0, pad + 4);
	return hlen + paylen + pad + 4;
}

/* Member by member: padding between members may hold anything */
static bool same(const struct sroce_fields *a, const struct sroce_fields *b)
{
	return a->opcode == b->opcode && a->pad == b->pad &&
	       a->tver == b->tver && a->se == b->se && a->mig == b->mig &&
	       a->fecn == b->fecn && a->becn == b->becn &&
	       a->ackreq == b->ackreq && a->sr == b->sr && a->pkey == b->pkey &&
	       a->dqpn == b->dqpn && a->psn == b->psn &&
	       a->feth.type == b->feth.type &&
	       a->feth.level == b->feth.level &&
	       a->reth.va == b->reth.va && a->reth.rkey == b->reth.rkey &&
	       a->reth.len == b->reth.len &&
	       a->aeth.syndrome == b->aeth.syndrome &&
	       a->aeth.msn == b->aeth.msn &&
	       a->atmeth.va == b->atmeth.va &&
	       a->atmeth.rkey == b->atmeth.rkey &&
	       a->atmeth.swap_add == b->atmeth.swap_add &&
	       a->atmeth.compare == b->atmeth.compare &&
	       a->atmack_orig == b->atmack_orig && a->imm == b->imm &&
	       a->ieth_rkey == b->ieth_rkey && a->deth.qkey == b->deth.qkey &&
	       a->deth.sqpn == b->deth.sqpn;
}

static void round_trips(void)
{
	static const u32 lens[] = { 0, 1, 2, 3, 4, 5, 100, MTU - 1, MTU };
	u8 buf[MTU + 128];
	unsigned int op, i, n = 0, bad = 0, bad_off = 0, bad_len = 0;
	struct sroce_fields f;
	struct sroce_pkt pkt;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode(op);
		bool pay = info->flags & SROCE_OPF_PAYLOAD;
		bool full = !(info->pos & SROCE_POS_LAST);
		unsigned int x, rounds = 0;

		if (!sroce_opcode_valid(op))
			continue;
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			u32 plen = lens[i], len;
			enum sroce_parse_err err;

			if ((!pay && plen) || (pay && full && plen != MTU))
				continue;
			random_fields(op, &f);
			len = build(buf, sizeof(buf), &f, plen);
			err = sroce_parse(buf, len, MTU, &pkt);
			n++;
			rounds++;
			if (err != SROCE_PARSE_OK) {
				bad++;
				printf("# %s len %u: %s\n", info->name, plen,
				       sroce_parse_err_name(err));
				continue;
			}
			bad += !same(&pkt.f, &f) || pkt.info != info;
			bad_len += pkt.pay_len != plen ||
				   pkt.pay_off != info->length ||
				   pkt.icrc_off != len - 4 || pkt.len != len ||
				   pkt.bth != buf;
			for (x = 0; x < SROCE_EXT_NUM; x++) {
				const u8 *h = sroce_pkt_ext(&pkt, x);
				u32 off = sroce_ext_off(info, x);

				bad_off += pkt.off[x] != off;
				bad_off += off ? h != buf + off : !!h;
			}
		}
		ok(rounds > 0, "%s: %u round trips", info->name, rounds);
	}
	is(bad, 0, "%u packets parse back to the fields they were built from",
	   n);
	is(bad_len, 0, "payload offset, length and ICRC offset are right");
	is(bad_off, 0, "every header is where the table puts it");
}

static void expect(const u8 *buf, u32 len, u32 mtu, enum sroce_parse_err want,
		   const char *what)
{
	struct sroce_pkt pkt;
	enum sroce_parse_err err = sroce_parse(buf, len, mtu, &pkt);

	ok(err == want, "%s: %s (got %s)", what, sroce_parse_err_name(want),
	   sroce_parse_err_name(err));
}

static void errors(void)
{
	u8 buf[1024];
	struct sroce_fields f;
	struct sroce_pkt pkt;
	unsigned int op, i, bad;
	u32 len;

	/* Too short for a BTH and an ICRC, whatever the bytes */
	memset(buf, 0, sizeof(buf));
	buf[0] = SROCE_OPCODE(RC, SEND_ONLY);
	for (bad = 0, i = 0; i < 16; i++) {
		struct sroce_pkt p;

		bad += sroce_parse(buf, i, 0, &p) != SROCE_PARSE_SHORT;
	}
	is(bad, 0, "lengths 0..15: short");
	expect(buf, 16, 0, SROCE_PARSE_OK, "empty SEND_ONLY");

	for (bad = 0, i = 1; i < 16; i++) {
		buf[1] = i;
		bad += sroce_parse(buf, 16, 0, &pkt) != SROCE_PARSE_TVER;
	}
	is(bad, 0, "transport versions 1..15: bad version");
	buf[1] = 0;

	for (bad = 0, op = 0; op < 256; op++) {
		if (sroce_opcode_valid(op))
			continue;
		buf[0] = op;
		bad += sroce_parse(buf, 64, 0, &pkt) != SROCE_PARSE_OPCODE;
	}
	is(bad, 0, "every invalid opcode: invalid opcode");

	/* One word short of the opcode's headers */
	for (bad = 0, op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode(op);

		if (!sroce_opcode_valid(op) || info->length == SROCE_BTH_LEN)
			continue;
		random_fields(op, &f);
		len = build(buf, sizeof(buf), &f, 0);
		bad += sroce_parse(buf, info->length, 0, &pkt) !=
			SROCE_PARSE_HDR_SHORT;
		bad += sroce_parse(buf, len - 1, 0, &pkt) !=
			SROCE_PARSE_HDR_SHORT;
	}
	is(bad, 0, "headers cut short: header short");

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, SEND_ONLY);
	len = build(buf, sizeof(buf), &f, 8);
	expect(buf, len, 0, SROCE_PARSE_OK, "8-byte SEND_ONLY");
	expect(buf, len + 1, 0, SROCE_PARSE_UNALIGNED, "one byte more");
	expect(buf, len + 2, 0, SROCE_PARSE_UNALIGNED, "two bytes more");
	expect(buf, len - 1, 0, SROCE_PARSE_UNALIGNED, "one byte less");

	/* Payload where the opcode has none */
	for (bad = 0, op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode(op);

		if (!sroce_opcode_valid(op) ||
		    (info->flags & SROCE_OPF_PAYLOAD))
			continue;
		random_fields(op, &f);
		len = build(buf, sizeof(buf), &f, 0);
		bad += sroce_parse(buf, len, 0, &pkt) != SROCE_PARSE_OK;
		bad += sroce_parse(buf, len + 4, 0, &pkt) !=
			SROCE_PARSE_PAYLOAD;
		/* pad count on an opcode without payload */
		buf[1] |= 1 << SROCE_BTH_PAD_SHIFT;
		bad += sroce_parse(buf, len, 0, &pkt) != SROCE_PARSE_PAD;
	}
	is(bad, 0, "read req, acks, atomics, CNP: no payload, no pad");

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(UD, SEND_ONLY);
	len = build(buf, sizeof(buf), &f, 0);
	for (i = 1; i <= 3; i++) {
		buf[1] = i << SROCE_BTH_PAD_SHIFT;
		expect(buf, len, 0, SROCE_PARSE_PAD, "empty payload with pad");
	}
	len = build(buf, sizeof(buf), &f, 1);
	expect(buf, len, 0, SROCE_PARSE_OK, "1 byte + 3 pad");
	ok(sroce_parse(buf, len, 0, &pkt) == SROCE_PARSE_OK &&
	   pkt.pay_len == 1 && pkt.f.pad == 3, "pay_len 1, pad 3");

	/* Path MTU */
	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, SEND_ONLY);
	len = build(buf, sizeof(buf), &f, MTU + 4);
	expect(buf, len, MTU, SROCE_PARSE_TOO_BIG, "only: MTU + 4");
	expect(buf, len, 0, SROCE_PARSE_OK, "only: MTU + 4, MTU unknown");
	ok(sroce_parse(buf, len, 0, &pkt) == SROCE_PARSE_OK &&
	   sroce_parse_check_mtu(&pkt, MTU) == SROCE_PARSE_TOO_BIG &&
	   sroce_parse_check_mtu(&pkt, 1024) == SROCE_PARSE_OK,
	   "MTU checked after the QP is known");
	len = build(buf, sizeof(buf), &f, MTU + 1);
	expect(buf, len, MTU, SROCE_PARSE_TOO_BIG, "only: MTU + 1 (+3 pad)");
	len = build(buf, sizeof(buf), &f, MTU);
	expect(buf, len, MTU, SROCE_PARSE_OK, "only: exactly MTU");

	f.opcode = SROCE_OPCODE(RC, SEND_FIRST);
	len = build(buf, sizeof(buf), &f, MTU - 4);
	expect(buf, len, MTU, SROCE_PARSE_NOT_MTU, "first: MTU - 4");
	len = build(buf, sizeof(buf), &f, MTU + 4);
	expect(buf, len, MTU, SROCE_PARSE_TOO_BIG, "first: MTU + 4");
	f.opcode = SROCE_OPCODE(UC, WRITE_MIDDLE);
	len = build(buf, sizeof(buf), &f, 0);
	expect(buf, len, MTU, SROCE_PARSE_NOT_MTU, "middle: empty");
	f.opcode = SROCE_OPCODE(RC, READ_RESP_MIDDLE);
	len = build(buf, sizeof(buf), &f, MTU);
	expect(buf, len, MTU, SROCE_PARSE_OK, "read resp middle: MTU");
	f.opcode = SROCE_OPCODE(RC, READ_RESP_LAST);
	len = build(buf, sizeof(buf), &f, 1);
	expect(buf, len, MTU, SROCE_PARSE_OK, "read resp last: 1 byte");
	f.opcode = SROCE_OPCODE(RC, WRITE_LAST_IMM);
	len = build(buf, sizeof(buf), &f, 0);
	expect(buf, len, MTU, SROCE_PARSE_OK, "write last imm: empty");

	/* The builder refuses what it cannot build */
	memset(&f, 0, sizeof(f));
	f.opcode = 0x15;
	is(sroce_hdrs_encode(buf, sizeof(buf), &f), 0, "encode: bad opcode");
	f.opcode = SROCE_OPCODE(RC, CMP_SWAP);
	memset(buf, 0xee, sizeof(buf));
	is(sroce_hdrs_encode(buf, 39, &f), 0, "encode: buffer too small");
	is(buf[0], 0xee, "encode: nothing written when refused");
	is(sroce_hdrs_encode(buf, 40, &f), 40, "encode: exact buffer");

	for (bad = 0, i = 0; i < SROCE_PARSE_NUM; i++) {
		unsigned int j;

		bad += !sroce_parse_err_name(i);
		for (j = 0; j < i; j++)
			bad += !strcmp(sroce_parse_err_name(i),
				       sroce_parse_err_name(j));
	}
	is(bad, 0, "every error has its own name");
	ok(!strcmp(sroce_parse_err_name(SROCE_PARSE_NUM), "unknown"),
	   "out-of-range error is unknown");
}

/* FLUSH and ATOMIC WRITE (IBTA 1.5, Annex A19), byte by byte */
static void annex_a19(void)
{
	static const u8 want_feth[4] = { 0, 0, 0, 0x13 };
	struct sroce_fields f;
	struct sroce_pkt pkt;
	u8 buf[128];
	u32 len;

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, FLUSH);
	f.feth.type = SROCE_FLUSH_GLOBAL | SROCE_FLUSH_PERSISTENT;
	f.feth.level = SROCE_FLUSH_MR;
	f.reth.va = 0x1122334455667788ull;
	f.reth.rkey = 0xa0b0c0d0;
	f.reth.len = 0x10000;
	len = build(buf, sizeof(buf), &f, 0);
	is(len, 36, "FLUSH: BTH + FETH + RETH + ICRC is 36 bytes");
	ok(!memcmp(buf + 12, want_feth, 4),
	   "FETH: level 1 in bits 5:4, type 3 in bits 3:0, big-endian");
	ok(buf[16] == 0x11 && buf[23] == 0x88 && buf[24] == 0xa0 &&
	   buf[29] == 1 && buf[31] == 0, "FLUSH: the RETH follows the FETH");
	ok(sroce_parse(buf, len, MTU, &pkt) == SROCE_PARSE_OK &&
	   pkt.info->op == SROCE_OP_FLUSH && pkt.f.feth.type == 3 &&
	   pkt.f.feth.level == 1 && pkt.f.reth.len == 0x10000 &&
	   pkt.pay_len == 0, "FLUSH parses back");
	buf[12] = 0xff;
	buf[13] = 0xff;
	buf[14] = 0xff;
	buf[15] = 0xc2;
	ok(sroce_parse(buf, len, MTU, &pkt) == SROCE_PARSE_OK &&
	   pkt.f.feth.type == 2 && pkt.f.feth.level == 0,
	   "FETH: reserved bits are ignored");
	expect(buf, len + 8, MTU, SROCE_PARSE_PAYLOAD,
	       "FLUSH with a payload (oA19-2)");

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OPCODE(RC, ATOMIC_WRITE);
	f.reth.len = SROCE_ATOMIC_WRITE_LEN;
	len = build(buf, sizeof(buf), &f, SROCE_ATOMIC_WRITE_LEN);
	is(len, 40, "ATOMIC WRITE: BTH + RETH + 8 bytes + ICRC is 40 bytes");
	ok(sroce_parse(buf, len, MTU, &pkt) == SROCE_PARSE_OK &&
	   pkt.info->op == SROCE_OP_ATOMIC_WRITE && pkt.pay_off == 28 &&
	   pkt.pay_len == 8 && pkt.f.ackreq == false,
	   "ATOMIC WRITE parses: payload at 28, 8 bytes");
}

static const struct icrc_vector *vec(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++)
		if (!strcmp(icrc_vectors[i].name, name))
			return &icrc_vectors[i];
	return NULL;
}

/* Parse the UDP payload of a vector */
static bool parse_vec(const char *name, struct sroce_pkt *pkt)
{
	const struct icrc_vector *v = vec(name);
	u32 off;

	if (!v)
		return false;
	off = ((v->pkt[0] >> 4) == 4 ? SROCE_IPV4_HLEN : SROCE_IPV6_HLEN) +
		SROCE_UDP_HLEN;
	return sroce_parse(v->pkt + off, v->len - off, 4096, pkt) ==
		SROCE_PARSE_OK;
}

/* The fields gen_icrc_vectors.py gave Scapy, read back by our parser */
static void foreign_packets(void)
{
	static const char * const fam[] = { "v4", "v6" };
	struct sroce_pkt p;
	char name[64];
	unsigned int i;
	u8 imm[4];

	ok(parse_vec("cx4_cnp_v4", &p), "ConnectX-4 Lx CNP parses");
	ok(p.f.opcode == 0x81 && p.info->op == SROCE_OP_CNP &&
	   p.f.becn && !p.f.fecn && p.f.dqpn == 0x118 && p.f.psn == 0 &&
	   p.f.pkey == 0xffff && p.pay_len == 0,
	   "CNP: BECN, QPN 0x118, P_Key 0xffff, no payload");

	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "rc_send_only_pad3_%s", fam[i]);
		ok(parse_vec(name, &p), "%s parses", name);
		ok(p.f.opcode == 0x04 && p.f.se && !p.f.mig && p.f.pad == 3 &&
		   p.f.pkey == 0xffff && p.f.fecn && !p.f.becn &&
		   p.f.dqpn == 0x123 && p.f.ackreq && p.f.psn == 0xabcdef &&
		   p.pay_len == 5 && !memcmp(p.bth + p.pay_off, "hello", 5),
		   "%s: every BTH field where Scapy put it", name);

		snprintf(name, sizeof(name), "rc_write_only_imm_%s", fam[i]);
		memcpy(imm, "\xde\xad\xbe\xef", 4);
		ok(parse_vec(name, &p) && p.f.opcode == 0x0b &&
		   p.f.pkey == 0x8001 && p.f.dqpn == 0xabcd && p.f.psn == 1 &&
		   p.f.reth.va == 0x00007f0012345678ull &&
		   p.f.reth.rkey == 0x1234abcd && p.f.reth.len == 16 &&
		   !memcmp(&p.f.imm, imm, 4) && p.pay_len == 16,
		   "%s: RETH and ImmDt", name);

		snprintf(name, sizeof(name), "rc_ack_%s", fam[i]);
		ok(parse_vec(name, &p) && p.f.opcode == 0x11 && p.f.becn &&
		   p.f.dqpn == 0x11 && p.f.psn == 0xffffff &&
		   p.f.aeth.syndrome == 0x1f && p.f.aeth.msn == 7,
		   "%s: AETH", name);

		snprintf(name, sizeof(name), "rc_cmp_swap_%s", fam[i]);
		ok(parse_vec(name, &p) && p.f.opcode == 0x13 &&
		   p.f.atmeth.va == 0x1000 && p.f.atmeth.rkey == 0x55aa &&
		   p.f.atmeth.swap_add == 0x0102030405060708ull &&
		   p.f.atmeth.compare == 0x1112131415161718ull,
		   "%s: AtomicETH", name);

		snprintf(name, sizeof(name), "ud_send_only_%s", fam[i]);
		ok(parse_vec(name, &p) && p.f.opcode == 0x64 &&
		   p.f.dqpn == 1 && p.f.psn == 0x100 &&
		   p.f.deth.qkey == 0x80010000 && p.f.deth.sqpn == 1 &&
		   p.pay_len == 256, "%s: DETH, 256-byte payload", name);
	}
	ok(parse_vec("scapy_uts_uc_send_only_v6", &p) && p.f.opcode == 0x24 &&
	   p.f.mig && p.f.pad == 2 && p.f.dqpn == 211 &&
	   p.f.psn == 13571856 && p.pay_len == 18,
	   "Scapy's UC packet: MigReq, pad 2, 18-byte payload");
}

int main(void)
{
	round_trips();
	errors();
	annex_a19();
	foreign_packets();
	return tap_done();
}
