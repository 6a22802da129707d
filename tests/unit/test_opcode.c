// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The opcode table against a second transcription of the IBTA opcode table
 * (vol 1 ch. 9.2.1, table "OpCode field"), written out below in a different
 * form: headers as text, lengths added by hand.
 */
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "proto/opcode.h"

struct spec_row {
	u8 opcode;
	const char *name;
	const char *hdrs;	/* extension headers in wire order */
	unsigned int length;	/* BTH + extension headers */
	const char *kind;	/* "req", "resp" or "cnp" */
	const char *pos;	/* F, M, L, O */
	int payload;
};

static const struct spec_row spec[] = {
	{ 0x00, "RC_SEND_FIRST", "", 12, "req", "F", 1 },
	{ 0x01, "RC_SEND_MIDDLE", "", 12, "req", "M", 1 },
	{ 0x02, "RC_SEND_LAST", "", 12, "req", "L", 1 },
	{ 0x03, "RC_SEND_LAST_IMM", "ImmDt", 16, "req", "L", 1 },
	{ 0x04, "RC_SEND_ONLY", "", 12, "req", "O", 1 },
	{ 0x05, "RC_SEND_ONLY_IMM", "ImmDt", 16, "req", "O", 1 },
	{ 0x06, "RC_WRITE_FIRST", "RETH", 28, "req", "F", 1 },
	{ 0x07, "RC_WRITE_MIDDLE", "", 12, "req", "M", 1 },
	{ 0x08, "RC_WRITE_LAST", "", 12, "req", "L", 1 },
	{ 0x09, "RC_WRITE_LAST_IMM", "ImmDt", 16, "req", "L", 1 },
	{ 0x0a, "RC_WRITE_ONLY", "RETH", 28, "req", "O", 1 },
	{ 0x0b, "RC_WRITE_ONLY_IMM", "RETH ImmDt", 32, "req", "O", 1 },
	{ 0x0c, "RC_READ_REQ", "RETH", 28, "req", "O", 0 },
	{ 0x0d, "RC_READ_RESP_FIRST", "AETH", 16, "resp", "F", 1 },
	{ 0x0e, "RC_READ_RESP_MIDDLE", "", 12, "resp", "M", 1 },
	{ 0x0f, "RC_READ_RESP_LAST", "AETH", 16, "resp", "L", 1 },
	{ 0x10, "RC_READ_RESP_ONLY", "AETH", 16, "resp", "O", 1 },
	{ 0x11, "RC_ACK", "AETH", 16, "resp", "O", 0 },
	{ 0x12, "RC_ATOMIC_ACK", "AETH AtomicAckETH", 24, "resp", "O", 0 },
	{ 0x13, "RC_CMP_SWAP", "AtomicETH", 40, "req", "O", 0 },
	{ 0x14, "RC_FETCH_ADD", "AtomicETH", 40, "req", "O", 0 },
	{ 0x16, "RC_SEND_LAST_INV", "IETH", 16, "req", "L", 1 },
	{ 0x17, "RC_SEND_ONLY_INV", "IETH", 16, "req", "O", 1 },
	/* IBTA 1.5, Annex A19 */
	{ 0x1c, "RC_FLUSH", "FETH RETH", 32, "req", "O", 0 },
	{ 0x1d, "RC_ATOMIC_WRITE", "RETH", 28, "req", "O", 1 },
	{ 0x20, "UC_SEND_FIRST", "", 12, "req", "F", 1 },
	{ 0x21, "UC_SEND_MIDDLE", "", 12, "req", "M", 1 },
	{ 0x22, "UC_SEND_LAST", "", 12, "req", "L", 1 },
	{ 0x23, "UC_SEND_LAST_IMM", "ImmDt", 16, "req", "L", 1 },
	{ 0x24, "UC_SEND_ONLY", "", 12, "req", "O", 1 },
	{ 0x25, "UC_SEND_ONLY_IMM", "ImmDt", 16, "req", "O", 1 },
	{ 0x26, "UC_WRITE_FIRST", "RETH", 28, "req", "F", 1 },
	{ 0x27, "UC_WRITE_MIDDLE", "", 12, "req", "M", 1 },
	{ 0x28, "UC_WRITE_LAST", "", 12, "req", "L", 1 },
	{ 0x29, "UC_WRITE_LAST_IMM", "ImmDt", 16, "req", "L", 1 },
	{ 0x2a, "UC_WRITE_ONLY", "RETH", 28, "req", "O", 1 },
	{ 0x2b, "UC_WRITE_ONLY_IMM", "RETH ImmDt", 32, "req", "O", 1 },
	{ 0x64, "UD_SEND_ONLY", "DETH", 20, "req", "O", 1 },
	{ 0x65, "UD_SEND_ONLY_IMM", "DETH ImmDt", 24, "req", "O", 1 },
	{ 0x81, "CNP", "CNP", 28, "cnp", "O", 0 },
};

#define NSPEC ARRAY_SIZE(spec)

static const char * const ext_names[SROCE_EXT_NUM] = {
	[SROCE_EXT_DETH] = "DETH", [SROCE_EXT_FETH] = "FETH",
	[SROCE_EXT_RETH] = "RETH",
	[SROCE_EXT_ATMETH] = "AtomicETH", [SROCE_EXT_AETH] = "AETH",
	[SROCE_EXT_ATMACK] = "AtomicAckETH", [SROCE_EXT_IMMDT] = "ImmDt",
	[SROCE_EXT_IETH] = "IETH", [SROCE_EXT_CNP] = "CNP",
};

/* The table's headers of @info as text, in the order of enum sroce_ext */
static void hdrs_text(const struct sroce_opcode_info *info, char *buf)
{
	unsigned int x;

	buf[0] = 0;
	for (x = 0; x < SROCE_EXT_NUM; x++) {
		if (!(info->exts & (1u << x)))
			continue;
		if (buf[0])
			strcat(buf, " ");
		strcat(buf, ext_names[x]);
	}
}

static const struct spec_row *spec_of(unsigned int opcode)
{
	unsigned int i;

	for (i = 0; i < NSPEC; i++)
		if (spec[i].opcode == opcode)
			return &spec[i];
	return NULL;
}

static void check_row(const struct spec_row *s)
{
	const struct sroce_opcode_info *info = sroce_opcode(s->opcode);
	const char *kind;
	char hdrs[128], pos[2] = "?";
	unsigned int x, off, prev_end;

	ok(sroce_opcode_valid(s->opcode), "0x%02x %s is valid", s->opcode,
	   s->name);
	ok(info->name && !strcmp(info->name, s->name), "0x%02x named %s (%s)",
	   s->opcode, s->name, info->name ? info->name : "(null)");
	hdrs_text(info, hdrs);
	ok(!strcmp(hdrs, s->hdrs), "%s headers '%s' (table: '%s')", s->name,
	   s->hdrs, hdrs);
	is(info->length, s->length, "%s header length %u", s->name,
	   s->length);
	is(info->transport, s->opcode >> 5, "%s transport from opcode bits",
	   s->name);
	is(!!(info->flags & SROCE_OPF_PAYLOAD), s->payload, "%s payload %d",
	   s->name, s->payload);
	kind = (info->flags & SROCE_OPF_REQ) ?
		((info->flags & SROCE_OPF_RESP) ? "both" : "req") :
		((info->flags & SROCE_OPF_RESP) ? "resp" : "cnp");
	ok(!strcmp(kind, s->kind), "%s is a %s", s->name, s->kind);
	pos[0] = "MFLO"[info->pos & 3];
	ok(!strcmp(pos, s->pos), "%s position %s", s->name, s->pos);

	/* Offsets follow each other and end at the header length. */
	prev_end = SROCE_BTH_LEN;
	for (x = 0; x < SROCE_EXT_NUM; x++) {
		off = sroce_ext_off(info, x);
		if (!(info->exts & (1u << x))) {
			if (off)
				break;
			continue;
		}
		if (off != prev_end)
			break;
		prev_end = off + sroce_ext_len[x];
	}
	ok(x == SROCE_EXT_NUM && prev_end == info->length,
	   "%s headers are contiguous up to its length", s->name);
}

/* The rules of ch. 9 the flags encode, checked on every valid row. */
static void check_rules(void)
{
	unsigned int op, bad_se = 0, bad_ack = 0, bad_op = 0, bad_pos = 0;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *i = sroce_opcode(op);
		bool imm = i->exts & SROCE_HAS(IMMDT);
		bool last = i->pos & SROCE_POS_LAST;
		bool se_ok = last && (i->op == SROCE_OP_SEND ||
				      (i->op == SROCE_OP_WRITE && imm));
		bool ack_ok = i->transport == SROCE_TR_RC &&
			      (i->flags & SROCE_OPF_REQ);
		bool multi = i->op == SROCE_OP_SEND ||
			     i->op == SROCE_OP_WRITE ||
			     i->op == SROCE_OP_READ_RESP;

		if (!sroce_opcode_valid(op))
			continue;
		bad_se += !!(i->flags & SROCE_OPF_SE) != se_ok;
		bad_ack += !!(i->flags & SROCE_OPF_ACKREQ) != ack_ok;
		bad_pos += !multi && i->pos != SROCE_POS_ONLY;
		/* UC and UD carry no reads, atomics or acknowledges */
		bad_op += i->transport != SROCE_TR_RC &&
			  i->op != SROCE_OP_SEND && i->op != SROCE_OP_WRITE &&
			  i->op != SROCE_OP_CNP;
		/* UD is send only, single packet */
		bad_op += i->transport == SROCE_TR_UD &&
			  (i->op != SROCE_OP_SEND || i->pos != SROCE_POS_ONLY);
	}
	is(bad_se, 0, "SE only on the last/only packet of send and write imm");
	is(bad_ack, 0, "AckReq only on RC requests");
	is(bad_pos, 0, "only send, write and read response span packets");
	is(bad_op, 0, "UC/UD carry only sends and writes, UD only SEND_ONLY");
}

int main(void)
{
	unsigned int i, op, nvalid = 0, extra = 0, unnamed = 0;

	for (i = 0; i < NSPEC; i++)
		check_row(&spec[i]);

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode(op);

		if (!sroce_opcode_valid(op)) {
			unnamed += info->name || info->length;
			continue;
		}
		nvalid++;
		extra += !spec_of(op);
	}
	is(nvalid, NSPEC, "exactly %zu valid opcodes", NSPEC);
	is(extra, 0, "no valid opcode outside the spec list");
	is(unnamed, 0, "invalid opcodes have empty rows");
	for (op = 0x40; op < 0x60; op++)
		if (sroce_opcode_valid(op))
			break;
	is(op, 0x60, "RD opcodes 0x40-0x5f are invalid");
	for (op = 0xa0; op < 0x100; op++)
		if (sroce_opcode_valid(op) != 0)
			break;
	is(op, 0x100, "XRC and manufacturer opcodes 0xa0-0xff are invalid");
	ok(!sroce_opcode_valid(0x15) && !sroce_opcode_valid(0x18) &&
	   !sroce_opcode_valid(0x1f) && !sroce_opcode_valid(0x80),
	   "reserved RC opcodes and 0x80 are invalid");
	is(SROCE_OPCODE(RC, SEND_ONLY), 0x04, "SROCE_OPCODE(RC, SEND_ONLY)");
	is(SROCE_OPCODE(UC, WRITE_ONLY_IMM), 0x2b,
	   "SROCE_OPCODE(UC, WRITE_ONLY_IMM)");
	is(SROCE_OPCODE(UD, SEND_ONLY_IMM), 0x65,
	   "SROCE_OPCODE(UD, SEND_ONLY_IMM)");
	is(SROCE_OPCODE(RC, SEND_ONLY_INV), 0x17,
	   "SROCE_OPCODE(RC, SEND_ONLY_INV)");
	is(SROCE_CNP_OPCODE, 0x81, "CNP opcode 0x81");
	is(sroce_ext_off(sroce_opcode(0x0b), SROCE_EXT_IMMDT), 28,
	   "write only imm: ImmDt after the RETH");
	is(sroce_ext_off(sroce_opcode(0x12), SROCE_EXT_ATMACK), 16,
	   "atomic ack: AtomicAckETH after the AETH");
	is(sroce_ext_off(sroce_opcode(0x65), SROCE_EXT_IMMDT), 20,
	   "UD send imm: ImmDt after the DETH");
	is(sroce_ext_off(sroce_opcode(0x1c), SROCE_EXT_RETH), 16,
	   "flush: RETH after the FETH");
	is(sroce_ext_off(sroce_opcode(0x0b), SROCE_EXT_AETH), 0,
	   "absent header has offset 0");
	is(sroce_ext_off(sroce_opcode(0x0b), SROCE_EXT_NUM), 0,
	   "out-of-range header has offset 0");
	check_rules();
	return tap_done();
}
