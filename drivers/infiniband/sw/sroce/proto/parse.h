/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Parsing and building the RoCEv2 transport headers: the BTH and the
 * extension headers its opcode names, in host byte order in one struct.
 * The parser takes the UDP payload of a packet (BTH through ICRC) and
 * either describes it or names the one reason it is malformed. It never
 * reads outside the buffer it is given, whatever the bytes (it is fuzzed).
 * It does not check the ICRC (that needs the IP header, see icrc.h) nor
 * anything that needs a QP (P_Key, Q_Key, PSN window, QP state).
 */
#ifndef SROCE_PROTO_PARSE_H
#define SROCE_PROTO_PARSE_H

#include "proto_types.h"
#include "hdr.h"
#include "opcode.h"
#include "psn.h"

/* Every header field, host order; only those of the opcode's headers count */
struct sroce_fields {
	/* BTH */
	u8	opcode;
	u8	pad;		/* pad count, 0..3 */
	u8	tver;
	bool	se;
	bool	mig;
	bool	fecn;
	bool	becn;
	bool	ackreq;
	bool	sr;		/* SROCE_BTH_SR */
	u16	pkey;
	u32	dqpn;
	u32	psn;

	struct {
		u8	type;	/* placement type, bits 3:0 */
		u8	level;	/* selectivity level, bits 5:4 */
	} feth;
	struct {
		u64	va;
		u32	rkey;
		u32	len;
	} reth;
	struct {
		u8	syndrome;
		u32	msn;
	} aeth;
	struct {
		u64	va;
		u32	rkey;
		u64	swap_add;
		u64	compare;
	} atmeth;
	u64	atmack_orig;	/* AtomicAckETH */
	__be32	imm;		/* ImmDt, opaque: kept in wire order */
	u32	ieth_rkey;	/* IETH */
	struct {
		u32	qkey;
		u32	sqpn;
	} deth;
};

/* Why the parser rejected a packet, in the order it checks. */
enum sroce_parse_err {
	SROCE_PARSE_OK = 0,
	SROCE_PARSE_SHORT,		/* shorter than a BTH and an ICRC */
	SROCE_PARSE_TVER,		/* BTH transport version is not 0 */
	SROCE_PARSE_OPCODE,		/* opcode not in the table */
	SROCE_PARSE_HDR_SHORT,		/* shorter than the opcode's headers */
	SROCE_PARSE_UNALIGNED,		/* length not a multiple of 4 bytes */
	SROCE_PARSE_PAYLOAD,		/* payload on an opcode without one */
	SROCE_PARSE_PAD,		/* pad count larger than the payload */
	SROCE_PARSE_TOO_BIG,		/* payload larger than the path MTU */
	SROCE_PARSE_NOT_MTU,		/* first/middle payload != path MTU */
	SROCE_PARSE_NUM
};

/* A parsed packet: everything points into the buffer given to the parser */
struct sroce_pkt {
	const struct sroce_opcode_info *info;
	const u8	*bth;		/* start of the buffer */
	u32		len;		/* BTH through ICRC */
	u32		pay_off;	/* payload, from the BTH */
	u32		pay_len;	/* without pad */
	u32		icrc_off;	/* from the BTH */
	u8		off[SROCE_EXT_NUM]; /* headers, from the BTH; 0: none */
	struct sroce_fields f;
};

/*
 * Parse the @len bytes at @buf, a UDP payload from the BTH through the
 * ICRC. @mtu is the path MTU in bytes (0: not known yet, checks skipped;
 * see sroce_parse_check_mtu()). @pkt describes the packet on SROCE_PARSE_OK
 * and on the MTU errors (TOO_BIG, NOT_MTU), where the packet is well formed
 * and a responder needs its PSN to NAK it; on other errors it is undefined.
 */
enum sroce_parse_err sroce_parse(const void *buf, u32 len, u32 mtu,
				 struct sroce_pkt *pkt);

/* The MTU checks alone, for a packet parsed before its QP was known. */
enum sroce_parse_err sroce_parse_check_mtu(const struct sroce_pkt *pkt,
					   u32 mtu);

/* Where an extension header of a parsed packet starts, or NULL if absent */
static inline const void *sroce_pkt_ext(const struct sroce_pkt *pkt,
					enum sroce_ext ext)
{
	u8 off = pkt->off[ext];

	return off ? pkt->bth + off : NULL;
}

const char *sroce_parse_err_name(enum sroce_parse_err err);

/*
 * The inverse of sroce_parse(): write the BTH and the extension headers of
 * @f->opcode into @buf of @size bytes, reserved fields as zeros. Returns
 * the number of bytes written, or 0 if the opcode is invalid or @size too
 * small. The caller appends payload, @f->pad bytes of pad and the ICRC.
 */
u32 sroce_hdrs_encode(void *buf, u32 size, const struct sroce_fields *f);

#endif /* SROCE_PROTO_PARSE_H */
