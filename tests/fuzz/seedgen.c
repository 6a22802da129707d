// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes the fuzzer's seed corpus into the directory given: one valid
 * packet per opcode (built with sroce_hdrs_encode) at a few payload sizes,
 * and the ICRC test vectors. Generated at build time, never committed.
 */
#include <stdio.h>
#include <string.h>
#include "proto/parse.h"
#include "icrc_vectors.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int put(const char *dir, const char *name, const void *buf, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const u32 lens[] = { 0, 1, 7, 256 };
	struct sroce_fields f;
	unsigned int op, i, rc = 0, n = 0;
	u8 buf[512];
	char name[64];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode(op);

		if (!sroce_opcode_valid(op))
			continue;
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			u32 plen = lens[i], h;

			if (!(info->flags & SROCE_OPF_PAYLOAD) && plen)
				continue;
			memset(&f, 0, sizeof(f));
			f.opcode = op;
			f.pkey = SROCE_DEFAULT_PKEY;
			f.dqpn = 0x11 + op;
			f.psn = 0xfffff0 + i;
			f.pad = sroce_pad(plen);
			f.reth.len = plen;
			f.deth.qkey = 0x80010000;
			f.deth.sqpn = 1;
			h = sroce_hdrs_encode(buf, sizeof(buf), &f);
			memset(buf + h, 'p', plen);
			memset(buf + h + plen, 0, f.pad + SROCE_ICRC_LEN);
			snprintf(name, sizeof(name), "%s-%u", info->name, plen);
			rc |= put(argv[1], name, buf,
				  h + plen + f.pad + SROCE_ICRC_LEN);
			n++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		rc |= put(argv[1], icrc_vectors[i].name, icrc_vectors[i].pkt,
			  icrc_vectors[i].len);
		n++;
	}
	printf("# %u seeds in %s\n", n, argv[1]);
	return rc;
}
