// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* RoCEv2 invariant CRC; see icrc.h for the definition and byte order. */
#include "icrc.h"

#ifdef __KERNEL__
#include <linux/cache.h>
#include <linux/crc32.h>

u32 sroce_icrc_update(u32 crc, const void *buf, size_t len)
{
	return crc32_le(crc, buf, len);
}
#else
/*
 * Host build: the reflected CRC-32 four bits at a time. Entry i is the
 * register after shifting the nibble i through it four times.
 */
static const u32 sroce_crc32_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
	0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

u32 sroce_icrc_update(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ sroce_crc32_nibble[crc & 0xf];
		crc = (crc >> 4) ^ sroce_crc32_nibble[crc & 0xf];
	}
	return crc;
}
#endif

/*
 * The copy with the CRC in it, for the transmit path: eight bytes at a
 * time, each loaded once, stored once and run through the CRC eight table
 * lookups at once (slice-by-8). sroce_crc_slice[k][b] is the register
 * after byte b and then k zero bytes, from the reflected polynomial.
 */
#define SROCE_CRC32_POLY	0xedb88320u

#ifdef __KERNEL__
static u32 sroce_crc_slice[8][256] __ro_after_init;
#else
static u32 sroce_crc_slice[8][256];
#endif

void sroce_icrc_init(void)
{
	u32 c;
	int b, k, i;

	for (b = 0; b < 256; b++) {
		c = b;
		for (i = 0; i < 8; i++)
			c = (c >> 1) ^ (c & 1 ? SROCE_CRC32_POLY : 0);
		sroce_crc_slice[0][b] = c;
	}
	for (k = 1; k < 8; k++)
		for (b = 0; b < 256; b++) {
			c = sroce_crc_slice[k - 1][b];
			sroce_crc_slice[k][b] = (c >> 8) ^
						sroce_crc_slice[0][c & 0xff];
		}
}

u32 sroce_icrc_copy(u32 crc, void *dst, const void *src, size_t len)
{
	const u32 (*t)[256] = sroce_crc_slice;
	const u8 *s = src;
	u8 *d = dst;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; len >= 8; len -= 8, s += 8, d += 8) {
		u32 lo, hi;

		/* memcpy() of a constant 8: one unaligned load, one store. */
		memcpy(&lo, s, 4);
		memcpy(&hi, s + 4, 4);
		memcpy(d, s, 8);
		lo ^= crc;
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		      t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		      t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
	}
#endif
	for (; len; len--) {
		*d++ = *s;
		crc = (crc >> 8) ^ t[0][(crc ^ *s++) & 0xff];
	}
	return crc;
}

/* Offsets of the variant fields inside the IP and UDP headers */
#define IPV4_TOS	1
#define IPV4_TTL	8
#define IPV4_CSUM	10
#define IPV6_HOPLIMIT	7
#define UDP_CSUM	6

u32 sroce_icrc_begin(const void *iph, const void *udph, const void *bth)
{
	u8 ps[SROCE_IPV6_HLEN + SROCE_UDP_HLEN + SROCE_BTH_LEN];
	const u8 *ip = iph;
	size_t n;

	if ((ip[0] >> 4) == 4) {
		n = SROCE_IPV4_HLEN;
		memcpy(ps, ip, n);
		ps[IPV4_TOS] = 0xff;
		ps[IPV4_TTL] = 0xff;
		ps[IPV4_CSUM] = 0xff;
		ps[IPV4_CSUM + 1] = 0xff;
	} else {
		n = SROCE_IPV6_HLEN;
		memcpy(ps, ip, n);
		/* version:4 traffic class:8 flow label:20 */
		ps[0] |= 0x0f;
		ps[1] = 0xff;
		ps[2] = 0xff;
		ps[3] = 0xff;
		ps[IPV6_HOPLIMIT] = 0xff;
	}
	memcpy(ps + n, udph, SROCE_UDP_HLEN);
	ps[n + UDP_CSUM] = 0xff;
	ps[n + UDP_CSUM + 1] = 0xff;
	n += SROCE_UDP_HLEN;
	memcpy(ps + n, bth, SROCE_BTH_LEN);
	ps[n + SROCE_BTH_RESV8A_OFF] = 0xff;
	n += SROCE_BTH_LEN;

	return sroce_icrc_update(SROCE_ICRC_SEED, ps, n);
}

/* The IP header's length, or 0 for one the ICRC cannot be made over. */
static size_t sroce_icrc_iplen(const u8 *p, size_t len)
{
	if (len < 1)
		return 0;
	switch (p[0] >> 4) {
	case 4:
		/* IHL 5: RoCEv2 peers never send IPv4 options */
		return p[0] == 0x45 ? SROCE_IPV4_HLEN : 0;
	case 6:
		return SROCE_IPV6_HLEN;
	default:
		return 0;
	}
}

bool sroce_icrc_calc(const void *l3, size_t len, u32 *icrc)
{
	const u8 *p = l3;
	size_t iplen = sroce_icrc_iplen(p, len), hlen;
	u32 crc;

	if (!iplen)
		return false;
	hlen = iplen + SROCE_UDP_HLEN + SROCE_BTH_LEN;
	if (len < hlen + SROCE_ICRC_LEN)
		return false;

	crc = sroce_icrc_begin(p, p + iplen, p + iplen + SROCE_UDP_HLEN);
	crc = sroce_icrc_update(crc, p + hlen, len - hlen - SROCE_ICRC_LEN);
	*icrc = sroce_icrc_final(crc);
	return true;
}

bool sroce_icrc_ok(const void *l3, size_t len)
{
	u32 icrc;

	return sroce_icrc_calc(l3, len, &icrc) &&
	       icrc == sroce_icrc_get((const u8 *)l3 + len - SROCE_ICRC_LEN);
}

bool sroce_icrc_rxe_flush_ok(const void *l3, size_t len)
{
	const u8 *p = l3;
	size_t iplen = sroce_icrc_iplen(p, len), hlen;
	size_t tlen = SROCE_BTH_LEN + SROCE_FETH_LEN + SROCE_RETH_LEN;
	u32 crc;

	if (!iplen || len != iplen + SROCE_UDP_HLEN + tlen + SROCE_ICRC_LEN)
		return false;
	hlen = iplen + SROCE_UDP_HLEN;
	/* RC FLUSH, no pad */
	if (p[hlen] != 0x1c || (p[hlen + 1] & SROCE_BTH_PAD_MASK))
		return false;
	crc = sroce_icrc_begin(p, p + iplen, p + hlen);
	crc = sroce_icrc_update(crc, p + hlen + SROCE_BTH_LEN,
				tlen - SROCE_BTH_LEN);
	crc = sroce_icrc_update(crc, p + hlen, tlen);
	return sroce_icrc_final(crc) == sroce_icrc_get(p + len - SROCE_ICRC_LEN);
}
