/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RoCEv2 invariant CRC (IBTA vol 1 ch. 7.8.1, Annex A17): CRC-32 with
 * the Ethernet polynomial (reflected, initial value ~0, final complement)
 * over a pseudo-packet: 8 bytes of 0xff standing for the LRH, the IP header
 * with its variant fields set to ones (IPv4: TOS, TTL, checksum; IPv6:
 * traffic class, flow label, hop limit), the UDP header with its checksum
 * set to ones, the BTH with its FECN/BECN/resv6 byte set to ones, then the
 * rest of the packet up to the ICRC.
 *
 * The ICRC goes on the wire least significant byte first: a packet whose
 * CRC-32 is 0x2a00fd82 ends in 82 fd 00 2a. rdma_rxe stores its
 * crc32_le() result in CPU order, which on the little-endian machines it
 * interoperates on is this order, and ConnectX NICs emit the same.
 *
 * The incremental API lets the data path compute the CRC in the same pass
 * that copies the payload:
 *	crc = sroce_icrc_begin(iph, udph, bth);
 *	crc = sroce_icrc_update(crc, rest_of_headers, len);
 *	crc = sroce_icrc_update(crc, payload_chunk, n);	(as often as needed)
 *	crc = sroce_icrc_update(crc, pad, pad_len);
 *	sroce_icrc_put(icrc_field, sroce_icrc_final(crc));
 */
#ifndef SROCE_PROTO_ICRC_H
#define SROCE_PROTO_ICRC_H

#include "proto_types.h"
#include "hdr.h"

/* The CRC register after ~0 and the 8 bytes of 0xff of the masked LRH. */
#define SROCE_ICRC_SEED		0xdebb20e3u

/*
 * Start the ICRC of a packet from its IP header (IPv4 if the version field
 * says 4, else IPv6; 20 or 40 bytes, no options or extension headers), its
 * UDP header and its BTH, which need not be contiguous. Returns the CRC
 * register to pass to sroce_icrc_update().
 */
u32 sroce_icrc_begin(const void *iph, const void *udph, const void *bth);

/* Run the CRC register over @len more bytes. */
u32 sroce_icrc_update(u32 crc, const void *buf, size_t len);

/*
 * Copy @len bytes from @src to @dst and run the CRC register over them,
 * in one pass: the register over exactly the bytes stored, whatever
 * another CPU writes to @src meanwhile. Needs sroce_icrc_init() first.
 */
u32 sroce_icrc_copy(u32 crc, void *dst, const void *src, size_t len);

/* Build sroce_icrc_copy()'s tables; once, before any copy. */
void sroce_icrc_init(void);

/* The ICRC value of a register that has seen the whole packet. */
static inline u32 sroce_icrc_final(u32 crc)
{
	return ~crc;
}

/* Store or load an ICRC value in its wire order (little-endian). */
static inline void sroce_icrc_put(void *dst, u32 icrc)
{
	u8 *p = dst;

	p[0] = icrc;
	p[1] = icrc >> 8;
	p[2] = icrc >> 16;
	p[3] = icrc >> 24;
}

static inline u32 sroce_icrc_get(const void *src)
{
	const u8 *p = src;

	return p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/*
 * One shot over a whole RoCEv2 packet in one buffer: @l3 is its IP header,
 * followed by the UDP header, the BTH and the rest, @len its length from
 * there through the ICRC. Returns false if the IP version is neither 4
 * (without options) nor 6, or @len is too short for the IP, UDP, BTH and
 * ICRC; else stores the ICRC the packet should carry in @icrc.
 */
bool sroce_icrc_calc(const void *l3, size_t len, u32 *icrc);

/* True if the packet at @l3 (as above) carries a correct ICRC. */
bool sroce_icrc_ok(const void *l3, size_t len);

/*
 * rdma_rxe (6.2 to at least 6.12) computes a FLUSH's ICRC as if the packet
 * had a payload that started at the BTH: over the headers, then over BTH
 * (unmasked), FETH and RETH once more. True if the packet at @l3 is an
 * RC FLUSH whose ICRC is that one. It is still a CRC over every byte, so
 * accepting it costs no integrity; sroce never sends it.
 */
bool sroce_icrc_rxe_flush_ok(const void *l3, size_t len);

#endif /* SROCE_PROTO_ICRC_H */
