// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ICRC against packets whose ICRC someone else computed: a CNP captured
 * from a ConnectX-4 Lx, and IPv4 and IPv6 packets built by Scapy's RoCE
 * layer (icrc_vectors.h, see gen_icrc_vectors.py). Then the masking of
 * every variant field, incremental == one shot, and the copy with the
 * CRC in it == a copy and an update.
 */
#include <string.h>
#include "tap.h"
#include "proto/icrc.h"
#include "proto/parse.h"
#include "icrc_vectors.h"

#define NVEC ARRAY_SIZE(icrc_vectors)

static unsigned int iphlen(const u8 *pkt)
{
	return (pkt[0] >> 4) == 4 ? SROCE_IPV4_HLEN : SROCE_IPV6_HLEN;
}

/* Is byte @i of the packet, or bit @mask of it, a variant field? */
static bool variant(const u8 *pkt, unsigned int i, u8 mask)
{
	unsigned int udp = iphlen(pkt);		/* the UDP header starts */

	if (i == udp + 6 || i == udp + 7)		/* UDP checksum */
		return true;
	if (i == udp + SROCE_UDP_HLEN + 4)		/* BTH FECN/BECN */
		return true;
	if (udp == SROCE_IPV4_HLEN)	/* TOS, TTL, header checksum */
		return i == 1 || i == 8 || i == 10 || i == 11;
	/* traffic class, flow label, hop limit */
	return (i == 0 && (mask & 0x0f)) || i == 1 || i == 2 || i == 3 ||
	       i == 7;
}

static void check_known_answers(void)
{
	static const u8 ff[8] = { 0xff, 0xff, 0xff, 0xff,
				  0xff, 0xff, 0xff, 0xff };
	u8 b[4];

	/* The CRC-32 check value of every catalogue of CRCs */
	is(sroce_icrc_final(sroce_icrc_update(~0u, "123456789", 9)),
	   0xcbf43926, "CRC-32 of \"123456789\" is 0xcbf43926");
	is(sroce_icrc_update(~0u, ff, 8), SROCE_ICRC_SEED,
	   "seed is the register after 8 bytes of 0xff");
	is(sroce_icrc_update(1234, "", 0), 1234, "empty update is identity");
	sroce_icrc_put(b, 0x2a00fd82);
	ok(b[0] == 0x82 && b[1] == 0xfd && b[2] == 0x00 && b[3] == 0x2a,
	   "ICRC is stored least significant byte first");
	is(sroce_icrc_get(b), 0x2a00fd82, "and loaded back");
}

static void check_vector(const struct icrc_vector *v)
{
	u8 pkt[512];
	unsigned int len = v->len, i, bit, ip = iphlen(v->pkt);
	unsigned int bad_var = 0, bad_inv = 0, bad_split = 0;
	unsigned int hlen = ip + SROCE_UDP_HLEN + SROCE_BTH_LEN;
	u32 want = sroce_icrc_get(v->pkt + len - 4), got = 0, crc;
	u8 iph[SROCE_IPV6_HLEN], udph[SROCE_UDP_HLEN], bth[SROCE_BTH_LEN];

	ok(len <= sizeof(pkt), "%s fits", v->name);
	memcpy(pkt, v->pkt, len);
	ok(sroce_icrc_calc(pkt, len, &got), "%s: calc accepts it", v->name);
	is(got, want, "%s: ICRC 0x%08x", v->name, want);
	ok(sroce_icrc_ok(pkt, len), "%s: check passes", v->name);

	/* Flip every bit before the ICRC: only variant fields may change */
	for (i = 0; i < len - 4; i++) {
		for (bit = 0; bit < 8; bit++) {
			pkt[i] ^= 1u << bit;
			if (variant(v->pkt, i, 1u << bit))
				bad_var += !sroce_icrc_ok(pkt, len);
			else
				bad_inv += sroce_icrc_ok(pkt, len);
			pkt[i] ^= 1u << bit;
		}
	}
	is(bad_var, 0, "%s: changing variant fields keeps the ICRC", v->name);
	is(bad_inv, 0, "%s: changing any other bit breaks it", v->name);
	for (i = len - 4; i < len; i++) {
		pkt[i] ^= 0x10;
		bad_inv += sroce_icrc_ok(pkt, len);
		pkt[i] ^= 0x10;
	}
	is(bad_inv, 0, "%s: a changed ICRC byte fails", v->name);

	/* Incremental over headers in separate buffers, split anywhere */
	memcpy(iph, v->pkt, ip);
	memcpy(udph, v->pkt + ip, sizeof(udph));
	memcpy(bth, v->pkt + ip + SROCE_UDP_HLEN, sizeof(bth));
	for (i = hlen; i <= len - 4; i++) {
		crc = sroce_icrc_begin(iph, udph, bth);
		crc = sroce_icrc_update(crc, v->pkt + hlen, i - hlen);
		crc = sroce_icrc_update(crc, v->pkt + i, len - 4 - i);
		bad_split += sroce_icrc_final(crc) != want;
	}
	is(bad_split, 0, "%s: incremental == one shot at every split",
	   v->name);
	/* ... and byte by byte */
	crc = sroce_icrc_begin(iph, udph, bth);
	for (i = hlen; i < len - 4; i++)
		crc = sroce_icrc_update(crc, v->pkt + i, 1);
	is(sroce_icrc_final(crc), want, "%s: byte by byte", v->name);
}

static void check_rejects(void)
{
	const struct icrc_vector *v4 = &icrc_vectors[0];
	u8 pkt[128];
	u32 icrc = 0x12345678;

	memcpy(pkt, v4->pkt, v4->len);
	ok(!sroce_icrc_calc(pkt, 0, &icrc), "empty buffer rejected");
	ok(!sroce_icrc_calc(pkt, 20 + 8 + 12 + 3, &icrc),
	   "IPv4 shorter than IP+UDP+BTH+ICRC rejected");
	ok(sroce_icrc_calc(pkt, 20 + 8 + 12 + 4, &icrc),
	   "IPv4 with exactly IP+UDP+BTH+ICRC accepted");
	pkt[0] = 0x46;
	ok(!sroce_icrc_calc(pkt, v4->len, &icrc), "IPv4 options rejected");
	pkt[0] = 0x55;
	ok(!sroce_icrc_calc(pkt, v4->len, &icrc), "IP version 5 rejected");
	ok(!sroce_icrc_ok(pkt, v4->len), "and fails the check");
	pkt[0] = 0x60;
	ok(!sroce_icrc_calc(pkt, 40 + 8 + 12 + 3, &icrc),
	   "IPv6 shorter than IP+UDP+BTH+ICRC rejected");
}

/* CRC-32 bit by bit (reflected 0xedb88320, ~0 in, ~ out): a second opinion */
static u32 crc32_bits(const u8 *p, size_t n)
{
	u32 c = ~0u;
	unsigned int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

/*
 * rdma_rxe's FLUSH ICRC, spelled out: the masked LRH, IP, UDP and BTH, the
 * FETH and RETH, then BTH (unmasked), FETH and RETH once more.
 */
static void check_rxe_flush(void)
{
	u8 pkt[20 + 8 + 32 + 4], ps[8 + 20 + 8 + 32 + 32];
	struct sroce_fields f = {
		.opcode = 0x1c, .pkey = 0xffff, .dqpn = 0x123, .psn = 7,
		.ackreq = true, .feth = { .type = 1, .level = 0 },
		.reth = { .va = 0x1000, .rkey = 0x4242, .len = 64 },
	};
	u32 icrc;

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;
	pkt[3] = sizeof(pkt);
	pkt[8] = 64;
	pkt[9] = 17;
	pkt[12] = 10;
	pkt[16] = 10;
	pkt[22] = 0x12;
	pkt[23] = 0xb7;		/* UDP port 4791 */
	pkt[25] = 8 + 32 + 4;
	sroce_hdrs_encode(pkt + 28, 32, &f);
	pkt[28 + 4] = 0x40;	/* BECN: masked once, not the second time */

	memset(ps, 0xff, 8);
	memcpy(ps + 8, pkt, 20 + 8 + 32);
	ps[8 + 1] = 0xff;		/* TOS */
	ps[8 + 8] = 0xff;		/* TTL */
	ps[8 + 10] = ps[8 + 11] = 0xff;	/* IP checksum */
	ps[8 + 26] = ps[8 + 27] = 0xff;	/* UDP checksum */
	ps[8 + 28 + 4] = 0xff;		/* BTH resv8a */
	memcpy(ps + 8 + 60, pkt + 28, 32);
	sroce_icrc_put(pkt + 60, crc32_bits(ps, sizeof(ps)));
	ok(sroce_icrc_rxe_flush_ok(pkt, sizeof(pkt)),
	   "rdma_rxe's FLUSH ICRC (headers twice) is recognized");
	ok(!sroce_icrc_ok(pkt, sizeof(pkt)), "... and is not the IBTA's");
	ok(sroce_icrc_calc(pkt, sizeof(pkt), &icrc), "the IBTA's ICRC of it");
	sroce_icrc_put(pkt + 60, icrc);
	ok(!sroce_icrc_rxe_flush_ok(pkt, sizeof(pkt)) &&
	   sroce_icrc_ok(pkt, sizeof(pkt)),
	   "a FLUSH with the IBTA's ICRC is not taken for rxe's");
	sroce_icrc_put(pkt + 60, crc32_bits(ps, sizeof(ps)));
	pkt[40] ^= 1;
	ok(!sroce_icrc_rxe_flush_ok(pkt, sizeof(pkt)),
	   "rxe's variant with a bit flipped fails");
	pkt[40] ^= 1;
	pkt[28] = 0x1d;
	ok(!sroce_icrc_rxe_flush_ok(pkt, sizeof(pkt)),
	   "the variant is taken for a FLUSH only");
}

/*
 * The transmit path's copy with the CRC in it: the same register as
 * sroce_icrc_update() and the same bytes as memcpy(), for every length
 * up to 3 slices past a packet's worth and every alignment of either end.
 */
static void check_copy(void)
{
	static u8 src[1100], dst[1120], want[1120];
	unsigned int len, so, dof, bad_crc = 0, bad_copy = 0, n = 0;
	u32 x = 0x12345678, crc;

	for (len = 0; len < sizeof(src); len++) {
		x = x * 1103515245 + 12345;
		src[len] = x >> 16;
	}
	for (len = 0; len <= 1056; len += len < 40 ? 1 : 61)
		for (so = 0; so < 8; so++)
			for (dof = 0; dof < 8; dof++) {
				memset(dst, 0xa5, sizeof(dst));
				memcpy(want, dst, sizeof(want));
				memcpy(want + dof, src + so, len);
				crc = sroce_icrc_copy(~0u, dst + dof, src + so,
						      len);
				bad_crc += crc !=
					   sroce_icrc_update(~0u, src + so, len);
				bad_copy += !!memcmp(dst, want, sizeof(dst));
				n++;
			}
	ok(!bad_crc, "copy with CRC: the register of a plain update (%u of %u differ)",
	   bad_crc, n);
	ok(!bad_copy, "copy with CRC: the bytes of memcpy, nothing around them (%u of %u differ)",
	   bad_copy, n);
	is(sroce_icrc_final(sroce_icrc_copy(~0u, dst, "123456789", 9)),
	   0xcbf43926, "copy with CRC: the CRC-32 check value");
}

int main(void)
{
	unsigned int i, v4 = 0, v6 = 0;

	sroce_icrc_init();
	check_known_answers();
	check_copy();
	for (i = 0; i < NVEC; i++) {
		check_vector(&icrc_vectors[i]);
		if ((icrc_vectors[i].pkt[0] >> 4) == 4)
			v4++;
		else
			v6++;
	}
	ok(v4 >= 5 && v6 >= 5, "%u IPv4 and %u IPv6 vectors", v4, v6);
	check_rejects();
	check_rxe_flush();
	return tap_done();
}
