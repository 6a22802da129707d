// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BTH opcode table (IBTA vol 1 ch. 9.2.1; CNP: Annex A17). Each row
 * gives an opcode's operation, position, flags, extension headers and
 * header length; the unit tests check every length against the headers.
 */
#include "opcode.h"

#define ROW(tr, opc, o, p, fl, e, len)					\
	[SROCE_OPCODE(tr, opc)] = {					\
		.name = #tr "_" #opc, .op = SROCE_OP_##o,		\
		.transport = SROCE_TR_##tr, .pos = SROCE_POS_##p,	\
		.flags = (fl), .exts = (e), .length = (len),		\
	}

/* Shorthands for the rows only */
#define PAY	SROCE_OPF_PAYLOAD
#define REQ	SROCE_OPF_REQ
#define RESP	SROCE_OPF_RESP
#define SE	SROCE_OPF_SE
#define ACKREQ	SROCE_OPF_ACKREQ
#define RETH	SROCE_HAS(RETH)
#define AETH	SROCE_HAS(AETH)
#define ATMETH	SROCE_HAS(ATMETH)
#define ATMACK	SROCE_HAS(ATMACK)
#define IMMDT	SROCE_HAS(IMMDT)
#define IETH	SROCE_HAS(IETH)
#define DETH	SROCE_HAS(DETH)
#define FETH	SROCE_HAS(FETH)

/*
 * SE may be set where the responder completes a receive WQE: the last or
 * only packet of a send, and of a write with immediate. AckReq is an RC
 * requester's to set on any request; UC and UD have no acknowledges.
 */
const struct sroce_opcode_info sroce_opcodes[256] = {
	ROW(RC, SEND_FIRST,	  SEND,	     FIRST,  PAY | REQ | ACKREQ, 0, 12),
	ROW(RC, SEND_MIDDLE,	  SEND,	     MIDDLE, PAY | REQ | ACKREQ, 0, 12),
	ROW(RC, SEND_LAST,	  SEND,	     LAST,   PAY | REQ | ACKREQ | SE,
	    0, 12),
	ROW(RC, SEND_LAST_IMM,	  SEND,	     LAST,   PAY | REQ | ACKREQ | SE,
	    IMMDT, 16),
	ROW(RC, SEND_ONLY,	  SEND,	     ONLY,   PAY | REQ | ACKREQ | SE,
	    0, 12),
	ROW(RC, SEND_ONLY_IMM,	  SEND,	     ONLY,   PAY | REQ | ACKREQ | SE,
	    IMMDT, 16),
	ROW(RC, WRITE_FIRST,	  WRITE,     FIRST,  PAY | REQ | ACKREQ,
	    RETH, 28),
	ROW(RC, WRITE_MIDDLE,	  WRITE,     MIDDLE, PAY | REQ | ACKREQ, 0, 12),
	ROW(RC, WRITE_LAST,	  WRITE,     LAST,   PAY | REQ | ACKREQ, 0, 12),
	ROW(RC, WRITE_LAST_IMM,	  WRITE,     LAST,   PAY | REQ | ACKREQ | SE,
	    IMMDT, 16),
	ROW(RC, WRITE_ONLY,	  WRITE,     ONLY,   PAY | REQ | ACKREQ,
	    RETH, 28),
	ROW(RC, WRITE_ONLY_IMM,	  WRITE,     ONLY,   PAY | REQ | ACKREQ | SE,
	    RETH | IMMDT, 32),
	ROW(RC, READ_REQ,	  READ_REQ,  ONLY,   REQ | ACKREQ, RETH, 28),
	ROW(RC, READ_RESP_FIRST,  READ_RESP, FIRST,  PAY | RESP, AETH, 16),
	ROW(RC, READ_RESP_MIDDLE, READ_RESP, MIDDLE, PAY | RESP, 0, 12),
	ROW(RC, READ_RESP_LAST,	  READ_RESP, LAST,   PAY | RESP, AETH, 16),
	ROW(RC, READ_RESP_ONLY,	  READ_RESP, ONLY,   PAY | RESP, AETH, 16),
	ROW(RC, ACK,		  ACK,	     ONLY,   RESP, AETH, 16),
	ROW(RC, ATOMIC_ACK,	  ATOMIC_ACK, ONLY,  RESP, AETH | ATMACK, 24),
	ROW(RC, CMP_SWAP,	  CMP_SWAP,  ONLY,   REQ | ACKREQ, ATMETH, 40),
	ROW(RC, FETCH_ADD,	  FETCH_ADD, ONLY,   REQ | ACKREQ, ATMETH, 40),
	ROW(RC, SEND_LAST_INV,	  SEND,	     LAST,   PAY | REQ | ACKREQ | SE,
	    IETH, 16),
	ROW(RC, SEND_ONLY_INV,	  SEND,	     ONLY,   PAY | REQ | ACKREQ | SE,
	    IETH, 16),
	/* Annex A19: answered by a READ_RESP_ONLY without payload */
	ROW(RC, FLUSH,		  FLUSH,     ONLY,   REQ | ACKREQ, FETH | RETH, 32),
	ROW(RC, ATOMIC_WRITE,	  ATOMIC_WRITE, ONLY, PAY | REQ | ACKREQ,
	    RETH, 28),

	ROW(UC, SEND_FIRST,	  SEND,	     FIRST,  PAY | REQ, 0, 12),
	ROW(UC, SEND_MIDDLE,	  SEND,	     MIDDLE, PAY | REQ, 0, 12),
	ROW(UC, SEND_LAST,	  SEND,	     LAST,   PAY | REQ | SE, 0, 12),
	ROW(UC, SEND_LAST_IMM,	  SEND,	     LAST,   PAY | REQ | SE, IMMDT, 16),
	ROW(UC, SEND_ONLY,	  SEND,	     ONLY,   PAY | REQ | SE, 0, 12),
	ROW(UC, SEND_ONLY_IMM,	  SEND,	     ONLY,   PAY | REQ | SE, IMMDT, 16),
	ROW(UC, WRITE_FIRST,	  WRITE,     FIRST,  PAY | REQ, RETH, 28),
	ROW(UC, WRITE_MIDDLE,	  WRITE,     MIDDLE, PAY | REQ, 0, 12),
	ROW(UC, WRITE_LAST,	  WRITE,     LAST,   PAY | REQ, 0, 12),
	ROW(UC, WRITE_LAST_IMM,	  WRITE,     LAST,   PAY | REQ | SE, IMMDT, 16),
	ROW(UC, WRITE_ONLY,	  WRITE,     ONLY,   PAY | REQ, RETH, 28),
	ROW(UC, WRITE_ONLY_IMM,	  WRITE,     ONLY,   PAY | REQ | SE,
	    RETH | IMMDT, 32),

	ROW(UD, SEND_ONLY,	  SEND,	     ONLY,   PAY | REQ | SE, DETH, 20),
	ROW(UD, SEND_ONLY_IMM,	  SEND,	     ONLY,   PAY | REQ | SE,
	    DETH | IMMDT, 24),

	[SROCE_CNP_OPCODE] = {
		.name = "CNP", .op = SROCE_OP_CNP, .transport = SROCE_TR_CNP,
		.pos = SROCE_POS_ONLY, .exts = SROCE_HAS(CNP), .length = 28,
	},
};

const u8 sroce_ext_len[SROCE_EXT_NUM] = {
	[SROCE_EXT_DETH]	= SROCE_DETH_LEN,
	[SROCE_EXT_FETH]	= SROCE_FETH_LEN,
	[SROCE_EXT_RETH]	= SROCE_RETH_LEN,
	[SROCE_EXT_ATMETH]	= SROCE_ATMETH_LEN,
	[SROCE_EXT_AETH]	= SROCE_AETH_LEN,
	[SROCE_EXT_ATMACK]	= SROCE_ATMACK_LEN,
	[SROCE_EXT_IMMDT]	= SROCE_IMMDT_LEN,
	[SROCE_EXT_IETH]	= SROCE_IETH_LEN,
	[SROCE_EXT_CNP]		= SROCE_CNP_LEN,
};

u32 sroce_ext_off(const struct sroce_opcode_info *info, enum sroce_ext ext)
{
	u32 off = SROCE_BTH_LEN;
	unsigned int x;

	if ((unsigned int)ext >= SROCE_EXT_NUM || !(info->exts & (1u << ext)))
		return 0;
	for (x = 0; x < ext; x++)
		if (info->exts & (1u << x))
			off += sroce_ext_len[x];
	return off;
}
