/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCEv2 transport headers as they are on the wire (IBTA vol 1 ch. 9.2
 * and 9.3, Annex A17). Every multi-byte field is big-endian. The structs
 * are made of bytes only, so they have no padding and no alignment: headers
 * sit at any offset of a packet (AtomicETH even has 64-bit fields at
 * offsets 12 and 20). Fields are read and written with the few generic
 * sroce_get_be*()/sroce_put_be*() helpers below, and only in parse.c, which
 * converts all the headers of a packet to and from host-order struct
 * sroce_fields in one place.
 */
#ifndef SROCE_PROTO_HDR_H
#define SROCE_PROTO_HDR_H

#include "proto_types.h"

/* RoCEv2 encapsulation (Annex A17) */
#define SROCE_UDP_DPORT		4791
#define SROCE_UDP_HLEN		8
#define SROCE_IPV4_HLEN		20
#define SROCE_IPV6_HLEN		40
#define SROCE_TVER		0	/* BTH transport version */
#define SROCE_DEFAULT_PKEY	0xffff
#define SROCE_PKEY_MEMBER	0x8000	/* full member bit of a P_Key */
#define SROCE_QPN_MASK		0x00ffffff
#define SROCE_GSI_QPN		1
#define SROCE_MCAST_QPN		0x00ffffff
#define SROCE_ICRC_LEN		4
#define SROCE_MAX_PAD		3

/*
 * Does a BTH's P_Key match the port's? Its table holds one entry, the
 * default partition's as a full member, so every key of that partition
 * matches, a limited member's too (IBTA 10.9.3: the low 15 bits equal,
 * not both limited).
 */
static inline bool sroce_pkey_match(u16 pkey)
{
	return (pkey & ~SROCE_PKEY_MEMBER) ==
	       (SROCE_DEFAULT_PKEY & ~SROCE_PKEY_MEMBER);
}

/* Base Transport Header, 12 bytes */
struct sroce_bth {
	u8	opcode;
	u8	flags;		/* SE:1 MigReq:1 PadCnt:2 TVer:4 */
	u8	pkey[2];
	u8	ecn;		/* FECN:1 BECN:1 resv6:6 */
	u8	dqpn[3];
	u8	ackreq;		/* AckReq:1 resv7:7 */
	u8	psn[3];
};

#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_PAD_MASK	0x30
#define SROCE_BTH_TVER_MASK	0x0f
#define SROCE_BTH_FECN		0x80
#define SROCE_BTH_BECN		0x40
#define SROCE_BTH_ACKREQ	0x80
/*
 * sroce's own, in the first bit of resv7: selective repeat (sroce_ooo.c).
 * On a request, the requester takes a NAK that says so as a request for
 * the one PSN it names; on a PSN sequence NAK, the responder kept what
 * came past the gap. Others send the bit as 0 and ignore it on receive,
 * and the ICRC covers it like any other bit.
 */
#define SROCE_BTH_SR		0x40
/* The FECN/BECN byte (resv8a) is variant: the ICRC masks it. */
#define SROCE_BTH_RESV8A_OFF	4

/* RDMA Extended Transport Header, 16 bytes */
struct sroce_reth {
	u8	va[8];
	u8	rkey[4];
	u8	len[4];
};

/* ACK Extended Transport Header, 4 bytes: Syndrome:8 MSN:24 */
struct sroce_aeth {
	u8	syndrome;
	u8	msn[3];
};

/* Syndrome (IBTA ch. 9, AETH): bit 7 reserved, 6:5 type, 4:0 value. */
#define SROCE_AETH_TYPE_MASK	0x60
#define SROCE_AETH_ACK		0x00	/* value: credit count */
#define SROCE_AETH_RNR_NAK	0x20	/* value: RNR timer */
#define SROCE_AETH_NAK		0x60	/* value: NAK code below */
#define SROCE_AETH_VALUE_MASK	0x1f
#define SROCE_AETH_CREDIT_INVALID 0x1f
#define SROCE_NAK_PSN_SEQ	0
#define SROCE_NAK_INV_REQ	1
#define SROCE_NAK_REM_ACCESS	2
#define SROCE_NAK_REM_OP	3
#define SROCE_NAK_INV_RD_REQ	4

/*
 * FLUSH Extended Transport Header, 4 bytes (IBTA 1.5, Annex A19): one
 * big-endian word, placement type in bits 3:0, selectivity level in 5:4.
 */
struct sroce_feth {
	u8	bits[4];
};

#define SROCE_FETH_TYPE_MASK	0x0f
#define SROCE_FETH_LEVEL_SHIFT	4
#define SROCE_FETH_LEVEL_MASK	0x30
#define SROCE_FLUSH_GLOBAL	1	/* placement type: global visibility */
#define SROCE_FLUSH_PERSISTENT	2	/* placement type: persistence */
#define SROCE_FLUSH_RANGE	0	/* level: the RETH's range */
#define SROCE_FLUSH_MR		1	/* level: the whole MR */

/* ATOMIC WRITE (Annex A19) carries exactly this many payload bytes. */
#define SROCE_ATOMIC_WRITE_LEN	8

/* Atomic Extended Transport Header, 28 bytes */
struct sroce_atmeth {
	u8	va[8];
	u8	rkey[4];
	u8	swap_add[8];
	u8	compare[8];
};

/* Atomic ACK Extended Transport Header, 8 bytes */
struct sroce_atmack {
	u8	orig[8];
};

/* Immediate data, 4 bytes; opaque, passed through in wire order. */
struct sroce_immdt {
	u8	imm[4];
};

/* Invalidate Extended Transport Header, 4 bytes */
struct sroce_ieth {
	u8	rkey[4];
};

/* Datagram Extended Transport Header, 8 bytes */
struct sroce_deth {
	u8	qkey[4];
	u8	rsvd;
	u8	sqpn[3];
};

/* A CNP carries 16 reserved bytes after its BTH (Annex A17, CNP). */
struct sroce_cnp {
	u8	rsvd[16];
};

#define SROCE_BTH_LEN		12
#define SROCE_FETH_LEN		4
#define SROCE_RETH_LEN		16
#define SROCE_AETH_LEN		4
#define SROCE_ATMETH_LEN	28
#define SROCE_ATMACK_LEN	8
#define SROCE_IMMDT_LEN		4
#define SROCE_IETH_LEN		4
#define SROCE_DETH_LEN		8
#define SROCE_CNP_LEN		16

static_assert(sizeof(struct sroce_bth) == SROCE_BTH_LEN, "BTH");
static_assert(sizeof(struct sroce_feth) == SROCE_FETH_LEN, "FETH");
static_assert(sizeof(struct sroce_reth) == SROCE_RETH_LEN, "RETH");
static_assert(sizeof(struct sroce_aeth) == SROCE_AETH_LEN, "AETH");
static_assert(sizeof(struct sroce_atmeth) == SROCE_ATMETH_LEN, "AtomicETH");
static_assert(sizeof(struct sroce_atmack) == SROCE_ATMACK_LEN, "AtomicAckETH");
static_assert(sizeof(struct sroce_immdt) == SROCE_IMMDT_LEN, "ImmDt");
static_assert(sizeof(struct sroce_ieth) == SROCE_IETH_LEN, "IETH");
static_assert(sizeof(struct sroce_deth) == SROCE_DETH_LEN, "DETH");
static_assert(sizeof(struct sroce_cnp) == SROCE_CNP_LEN, "CNP");

/* The generic field helpers: big-endian loads and stores at any address */
static inline u32 sroce_get_be24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static inline u16 sroce_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 sroce_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | sroce_get_be24(p + 1);
}

static inline u64 sroce_get_be64(const u8 *p)
{
	return (u64)sroce_get_be32(p) << 32 | sroce_get_be32(p + 4);
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void sroce_put_be24(u8 *p, u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	sroce_put_be24(p + 1, v);
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	sroce_put_be32(p, v >> 32);
	sroce_put_be32(p + 4, v);
}

/* Pad bytes that bring a payload of @len bytes to a multiple of 4. */
static inline u32 sroce_pad(u32 len)
{
	return -len & SROCE_MAX_PAD;
}

/*
 * Source-port entropy (Annex A17, UDP header): the UDP source port
 * identifies the flow for ECMP and must not change within a QP's flow, so
 * packets stay in order. It is taken from the flow, here a 20-bit label
 * (the IPv6 flow label the same QP pair uses) derived from both QPNs, and
 * lies in 0xC000..0xFFFF. The label is symmetric, so both directions of a
 * connection agree on it, and never 0, which IPv6 reserves for "no label".
 */
#define SROCE_SPORT_MIN		0xc000
#define SROCE_FLOW_LABEL_MASK	0x000fffff

static inline u32 sroce_flow_label(u32 sqpn, u32 dqpn)
{
	u32 a = sqpn & SROCE_QPN_MASK, b = dqpn & SROCE_QPN_MASK;
	u32 h = (a < b ? a : b) * 0x9e3779b1u + (a < b ? b : a);

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	h &= SROCE_FLOW_LABEL_MASK;
	return h ? h : 1;
}

/* Fold a 20-bit flow label into the 14 free bits of the source port. */
static inline u16 sroce_udp_sport(u32 flow_label)
{
	u32 fl = flow_label & SROCE_FLOW_LABEL_MASK;

	return SROCE_SPORT_MIN | ((fl ^ (fl >> 14)) & 0x3fff);
}

#endif /* SROCE_PROTO_HDR_H */
