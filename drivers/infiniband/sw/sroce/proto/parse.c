// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one place that converts transport headers between the wire and
 * struct sroce_fields, and the validation of a received packet's shape.
 */
#include "parse.h"

static void decode_ext(enum sroce_ext x, const void *h, struct sroce_fields *f)
{
	const struct sroce_deth *deth = h;
	const struct sroce_feth *feth = h;
	const struct sroce_reth *reth = h;
	const struct sroce_atmeth *atm = h;
	const struct sroce_aeth *aeth = h;
	const struct sroce_atmack *ack = h;
	const struct sroce_immdt *imm = h;
	const struct sroce_ieth *ieth = h;
	u32 v;

	switch (x) {
	case SROCE_EXT_DETH:
		f->deth.qkey = sroce_get_be32(deth->qkey);
		f->deth.sqpn = sroce_get_be24(deth->sqpn);
		break;
	case SROCE_EXT_FETH:
		/* Reserved bits are ignored, as receivers do (IBTA 9.2). */
		v = sroce_get_be32(feth->bits);
		f->feth.type = v & SROCE_FETH_TYPE_MASK;
		f->feth.level = (v & SROCE_FETH_LEVEL_MASK) >>
				SROCE_FETH_LEVEL_SHIFT;
		break;
	case SROCE_EXT_RETH:
		f->reth.va = sroce_get_be64(reth->va);
		f->reth.rkey = sroce_get_be32(reth->rkey);
		f->reth.len = sroce_get_be32(reth->len);
		break;
	case SROCE_EXT_ATMETH:
		f->atmeth.va = sroce_get_be64(atm->va);
		f->atmeth.rkey = sroce_get_be32(atm->rkey);
		f->atmeth.swap_add = sroce_get_be64(atm->swap_add);
		f->atmeth.compare = sroce_get_be64(atm->compare);
		break;
	case SROCE_EXT_AETH:
		f->aeth.syndrome = aeth->syndrome;
		f->aeth.msn = sroce_get_be24(aeth->msn);
		break;
	case SROCE_EXT_ATMACK:
		f->atmack_orig = sroce_get_be64(ack->orig);
		break;
	case SROCE_EXT_IMMDT:
		memcpy(&f->imm, imm->imm, sizeof(f->imm));
		break;
	case SROCE_EXT_IETH:
		f->ieth_rkey = sroce_get_be32(ieth->rkey);
		break;
	default:	/* the CNP's reserved bytes */
		break;
	}
}

static void encode_ext(enum sroce_ext x, void *h, const struct sroce_fields *f)
{
	struct sroce_deth *deth = h;
	struct sroce_feth *feth = h;
	struct sroce_reth *reth = h;
	struct sroce_atmeth *atm = h;
	struct sroce_aeth *aeth = h;
	struct sroce_atmack *ack = h;
	struct sroce_immdt *imm = h;
	struct sroce_ieth *ieth = h;

	switch (x) {
	case SROCE_EXT_DETH:
		sroce_put_be32(deth->qkey, f->deth.qkey);
		sroce_put_be24(deth->sqpn, f->deth.sqpn);
		break;
	case SROCE_EXT_FETH:
		sroce_put_be32(feth->bits,
			       (f->feth.type & SROCE_FETH_TYPE_MASK) |
			       ((f->feth.level << SROCE_FETH_LEVEL_SHIFT) &
				SROCE_FETH_LEVEL_MASK));
		break;
	case SROCE_EXT_RETH:
		sroce_put_be64(reth->va, f->reth.va);
		sroce_put_be32(reth->rkey, f->reth.rkey);
		sroce_put_be32(reth->len, f->reth.len);
		break;
	case SROCE_EXT_ATMETH:
		sroce_put_be64(atm->va, f->atmeth.va);
		sroce_put_be32(atm->rkey, f->atmeth.rkey);
		sroce_put_be64(atm->swap_add, f->atmeth.swap_add);
		sroce_put_be64(atm->compare, f->atmeth.compare);
		break;
	case SROCE_EXT_AETH:
		aeth->syndrome = f->aeth.syndrome;
		sroce_put_be24(aeth->msn, f->aeth.msn);
		break;
	case SROCE_EXT_ATMACK:
		sroce_put_be64(ack->orig, f->atmack_orig);
		break;
	case SROCE_EXT_IMMDT:
		memcpy(imm->imm, &f->imm, sizeof(f->imm));
		break;
	case SROCE_EXT_IETH:
		sroce_put_be32(ieth->rkey, f->ieth_rkey);
		break;
	default:
		break;
	}
}

/* @p holds at least the opcode's headers; the opcode is valid. */
static void decode(const u8 *p, struct sroce_fields *f, u8 *off)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)p;
	const struct sroce_opcode_info *info = sroce_opcode(bth->opcode);
	u32 o = SROCE_BTH_LEN;
	unsigned int x;

	memset(f, 0, sizeof(*f));
	f->opcode = bth->opcode;
	f->se = bth->flags & SROCE_BTH_SE;
	f->mig = bth->flags & SROCE_BTH_MIG;
	f->pad = (bth->flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	f->tver = bth->flags & SROCE_BTH_TVER_MASK;
	f->pkey = sroce_get_be16(bth->pkey);
	f->fecn = bth->ecn & SROCE_BTH_FECN;
	f->becn = bth->ecn & SROCE_BTH_BECN;
	f->dqpn = sroce_get_be24(bth->dqpn);
	f->ackreq = bth->ackreq & SROCE_BTH_ACKREQ;
	f->sr = bth->ackreq & SROCE_BTH_SR;
	f->psn = sroce_get_be24(bth->psn);

	for (x = 0; x < SROCE_EXT_NUM; x++) {
		off[x] = 0;
		if (!(info->exts & (1u << x)))
			continue;
		off[x] = o;
		decode_ext(x, p + o, f);
		o += sroce_ext_len[x];
	}
}

u32 sroce_hdrs_encode(void *buf, u32 size, const struct sroce_fields *f)
{
	const struct sroce_opcode_info *info = sroce_opcode(f->opcode);
	struct sroce_bth *bth = buf;
	u32 o = SROCE_BTH_LEN;
	unsigned int x;

	if (!sroce_opcode_valid(f->opcode) || size < info->length)
		return 0;

	memset(buf, 0, info->length);
	bth->opcode = f->opcode;
	bth->flags = (f->se ? SROCE_BTH_SE : 0) |
		     (f->mig ? SROCE_BTH_MIG : 0) |
		     ((f->pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK) |
		     (f->tver & SROCE_BTH_TVER_MASK);
	sroce_put_be16(bth->pkey, f->pkey);
	bth->ecn = (f->fecn ? SROCE_BTH_FECN : 0) |
		   (f->becn ? SROCE_BTH_BECN : 0);
	sroce_put_be24(bth->dqpn, f->dqpn);
	bth->ackreq = (f->ackreq ? SROCE_BTH_ACKREQ : 0) |
		      (f->sr ? SROCE_BTH_SR : 0);
	sroce_put_be24(bth->psn, f->psn);

	for (x = 0; x < SROCE_EXT_NUM; x++) {
		if (!(info->exts & (1u << x)))
			continue;
		encode_ext(x, (u8 *)buf + o, f);
		o += sroce_ext_len[x];
	}
	return info->length;
}

enum sroce_parse_err sroce_parse_check_mtu(const struct sroce_pkt *pkt,
					   u32 mtu)
{
	if (!mtu || !(pkt->info->flags & SROCE_OPF_PAYLOAD))
		return SROCE_PARSE_OK;
	if (pkt->pay_len > mtu)
		return SROCE_PARSE_TOO_BIG;
	/* IBTA ch. 9: first and middle packets carry exactly the PMTU */
	if (!(pkt->info->pos & SROCE_POS_LAST) && pkt->pay_len != mtu)
		return SROCE_PARSE_NOT_MTU;
	return SROCE_PARSE_OK;
}

enum sroce_parse_err sroce_parse(const void *buf, u32 len, u32 mtu,
				 struct sroce_pkt *pkt)
{
	const struct sroce_bth *bth = buf;
	const struct sroce_opcode_info *info;
	u32 hlen, avail, pad;

	if (len < SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return SROCE_PARSE_SHORT;
	if ((bth->flags & SROCE_BTH_TVER_MASK) != SROCE_TVER)
		return SROCE_PARSE_TVER;
	if (!sroce_opcode_valid(bth->opcode))
		return SROCE_PARSE_OPCODE;
	info = sroce_opcode(bth->opcode);
	hlen = info->length;
	if (len < hlen + SROCE_ICRC_LEN)
		return SROCE_PARSE_HDR_SHORT;
	/* Headers, payload + pad and ICRC are all whole 4-byte words. */
	if (len & 3)
		return SROCE_PARSE_UNALIGNED;

	avail = len - hlen - SROCE_ICRC_LEN;
	pad = (bth->flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	if (!(info->flags & SROCE_OPF_PAYLOAD) && avail)
		return SROCE_PARSE_PAYLOAD;
	if (pad > avail)
		return SROCE_PARSE_PAD;

	pkt->info = info;
	pkt->bth = buf;
	pkt->len = len;
	pkt->pay_off = hlen;
	pkt->pay_len = avail - pad;
	pkt->icrc_off = len - SROCE_ICRC_LEN;
	decode(buf, &pkt->f, pkt->off);
	return sroce_parse_check_mtu(pkt, mtu);
}

static const char * const sroce_parse_err_names[SROCE_PARSE_NUM] = {
	[SROCE_PARSE_OK]	= "ok",
	[SROCE_PARSE_SHORT]	= "shorter than BTH + ICRC",
	[SROCE_PARSE_TVER]	= "bad transport version",
	[SROCE_PARSE_OPCODE]	= "invalid opcode",
	[SROCE_PARSE_HDR_SHORT]	= "shorter than the opcode's headers",
	[SROCE_PARSE_UNALIGNED]	= "length not a multiple of 4",
	[SROCE_PARSE_PAYLOAD]	= "payload on an opcode without payload",
	[SROCE_PARSE_PAD]	= "pad count larger than the payload",
	[SROCE_PARSE_TOO_BIG]	= "payload larger than the path MTU",
	[SROCE_PARSE_NOT_MTU]	= "first/middle payload not the path MTU",
};

const char *sroce_parse_err_name(enum sroce_parse_err err)
{
	return (unsigned int)err < SROCE_PARSE_NUM ?
		sroce_parse_err_names[err] : "unknown";
}
