// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the RoCEv2 parser and the one-shot ICRC on any bytes.
 * ASan/UBSan catch every read outside the input; the checks below abort on
 * a parse that contradicts itself or does not survive a rebuild.
 */
#include <stdlib.h>
#include <string.h>
#include "proto/parse.h"
#include "proto/icrc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define check(cond) do { if (!(cond)) abort(); } while (0)

static const u32 mtus[] = { 256, 512, 1024, 2048, 4096 };

static void rebuild(const u8 *data, const struct sroce_pkt *pkt)
{
	static u8 copy[65536];
	struct sroce_pkt again;
	u32 n;

	/* Headers from the fields, then the input's payload, pad and ICRC */
	n = sroce_hdrs_encode(copy, sizeof(copy), &pkt->f);
	check(n == pkt->info->length);
	memcpy(copy + n, data + n, pkt->len - n);
	check(sroce_parse(copy, pkt->len, 0, &again) == SROCE_PARSE_OK);
	check(again.info == pkt->info && again.pay_len == pkt->pay_len);
	/* The rebuilt headers differ at most in reserved bits */
	check(!memcmp(&again.f, &pkt->f, sizeof(again.f)));
	check(!memcmp(copy, data, 4));
	check(!memcmp(copy + 5, data + 5, 3) && !memcmp(copy + 9, data + 9, 3));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_pkt pkt;
	enum sroce_parse_err err, e2;
	u32 len = size > 65536 ? 65536 : size, icrc, sum = 0, i;

	err = sroce_parse(data, len, 0, &pkt);
	check((unsigned int)err < SROCE_PARSE_NUM);
	if (err == SROCE_PARSE_OK) {
		check(sroce_opcode_valid(data[0]));
		check(pkt.len == len && !(len & 3));
		check(pkt.pay_off == pkt.info->length);
		check(pkt.pay_off + pkt.pay_len + pkt.f.pad + SROCE_ICRC_LEN ==
		      len);
		check(pkt.icrc_off == len - SROCE_ICRC_LEN);
		check(pkt.f.tver == SROCE_TVER);
		for (i = 0; i < pkt.pay_len; i++)
			sum += pkt.bth[pkt.pay_off + i];
		for (i = 0; i < SROCE_EXT_NUM; i++) {
			const u8 *h = sroce_pkt_ext(&pkt, i);

			if (h)
				sum += h[sroce_ext_len[i] - 1];
		}
		rebuild(data, &pkt);
		for (i = 0; i < ARRAY_SIZE(mtus); i++) {
			e2 = sroce_parse(data, len, mtus[i], &pkt);
			check(e2 == sroce_parse_check_mtu(&pkt, mtus[i]));
		}
	}
	/* The same bytes as an IP packet for the ICRC */
	if (sroce_icrc_calc(data, size, &icrc))
		sum += sroce_icrc_ok(data, size);
	return sum == 0xdeadbeef;
}
