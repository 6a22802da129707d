/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one table of BTH opcodes (IBTA vol 1 ch. 9.2.1 and Annex A17 for the
 * CNP): which headers follow the BTH, in which order, and what the packet
 * means. It drives both building and parsing; adding an opcode is one row
 * in opcode.c. Opcodes without a row (RD, XRC, reserved) are invalid and
 * every packet carrying one is dropped.
 */
#ifndef SROCE_PROTO_OPCODE_H
#define SROCE_PROTO_OPCODE_H

#include "proto_types.h"
#include "hdr.h"

/* The top three bits of an opcode name the transport. */
enum sroce_transport {
	SROCE_TR_RC	= 0,
	SROCE_TR_UC	= 1,
	SROCE_TR_RD	= 2,
	SROCE_TR_UD	= 3,
	SROCE_TR_CNP	= 4,
	SROCE_TR_XRC	= 5,
};

/* The low five bits name the operation and the packet's place in it. */
enum sroce_opc5 {
	SROCE_SEND_FIRST		= 0x00,
	SROCE_SEND_MIDDLE		= 0x01,
	SROCE_SEND_LAST			= 0x02,
	SROCE_SEND_LAST_IMM		= 0x03,
	SROCE_SEND_ONLY			= 0x04,
	SROCE_SEND_ONLY_IMM		= 0x05,
	SROCE_WRITE_FIRST		= 0x06,
	SROCE_WRITE_MIDDLE		= 0x07,
	SROCE_WRITE_LAST		= 0x08,
	SROCE_WRITE_LAST_IMM		= 0x09,
	SROCE_WRITE_ONLY		= 0x0a,
	SROCE_WRITE_ONLY_IMM		= 0x0b,
	SROCE_READ_REQ			= 0x0c,
	SROCE_READ_RESP_FIRST		= 0x0d,
	SROCE_READ_RESP_MIDDLE		= 0x0e,
	SROCE_READ_RESP_LAST		= 0x0f,
	SROCE_READ_RESP_ONLY		= 0x10,
	SROCE_ACK			= 0x11,
	SROCE_ATOMIC_ACK		= 0x12,
	SROCE_CMP_SWAP			= 0x13,
	SROCE_FETCH_ADD			= 0x14,
	SROCE_SEND_LAST_INV		= 0x16,
	SROCE_SEND_ONLY_INV		= 0x17,
	SROCE_FLUSH			= 0x1c,	/* IBTA 1.5, Annex A19 */
	SROCE_ATOMIC_WRITE		= 0x1d,	/* IBTA 1.5, Annex A19 */
};

/* A full BTH opcode, e.g. SROCE_OPCODE(RC, SEND_ONLY) == 0x04. */
#define SROCE_OPCODE(tr, op)	((SROCE_TR_##tr << 5) | SROCE_##op)
#define SROCE_CNP_OPCODE	0x81

/*
 * Extension headers, in the order they follow the BTH on the wire (IBTA
 * 9.2: RDETH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; the
 * FLUSH's FETH comes before its RETH (Annex A19); the CNP's reserved bytes
 * last). Offsets are derived from this order.
 */
enum sroce_ext {
	SROCE_EXT_DETH,
	SROCE_EXT_FETH,
	SROCE_EXT_RETH,
	SROCE_EXT_ATMETH,
	SROCE_EXT_AETH,
	SROCE_EXT_ATMACK,
	SROCE_EXT_IMMDT,
	SROCE_EXT_IETH,
	SROCE_EXT_CNP,
	SROCE_EXT_NUM
};

#define SROCE_HAS(ext)		(1u << SROCE_EXT_##ext)

/* What a packet does; 0 marks an invalid opcode. */
enum sroce_op {
	SROCE_OP_INVALID = 0,
	SROCE_OP_SEND,
	SROCE_OP_WRITE,
	SROCE_OP_READ_REQ,
	SROCE_OP_READ_RESP,
	SROCE_OP_ACK,
	SROCE_OP_ATOMIC_ACK,
	SROCE_OP_CMP_SWAP,
	SROCE_OP_FETCH_ADD,
	SROCE_OP_CNP,
	SROCE_OP_FLUSH,
	SROCE_OP_ATOMIC_WRITE,
};

/* Place of a packet in its message: first, middle, last or only. */
#define SROCE_POS_MIDDLE	0
#define SROCE_POS_FIRST		0x1
#define SROCE_POS_LAST		0x2
#define SROCE_POS_ONLY		(SROCE_POS_FIRST | SROCE_POS_LAST)

/* Flags of an opcode */
#define SROCE_OPF_PAYLOAD	0x01	/* carries a payload (may be empty) */
#define SROCE_OPF_REQ		0x02	/* requester -> responder */
#define SROCE_OPF_RESP		0x04	/* responder -> requester */
#define SROCE_OPF_SE		0x08	/* may set the solicited event bit */
#define SROCE_OPF_ACKREQ	0x10	/* may request an acknowledge */

struct sroce_opcode_info {
	const char	*name;
	u8		op;		/* enum sroce_op */
	u8		transport;	/* enum sroce_transport */
	u8		pos;		/* SROCE_POS_* */
	u8		flags;		/* SROCE_OPF_* */
	u16		exts;		/* SROCE_HAS() bits */
	u8		length;		/* BTH and extension headers */
};

extern const struct sroce_opcode_info sroce_opcodes[256];
extern const u8 sroce_ext_len[SROCE_EXT_NUM];

static inline const struct sroce_opcode_info *sroce_opcode(u8 opcode)
{
	return &sroce_opcodes[opcode];
}

static inline bool sroce_opcode_valid(u8 opcode)
{
	return sroce_opcodes[opcode].op != SROCE_OP_INVALID;
}

/* Offset of @ext from the start of the BTH, or 0 if @info has none. */
u32 sroce_ext_off(const struct sroce_opcode_info *info, enum sroce_ext ext);

#endif /* SROCE_PROTO_OPCODE_H */
