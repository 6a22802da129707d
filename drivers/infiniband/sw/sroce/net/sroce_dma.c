// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the dma engine's memory side, the only code that touches the
 * bytes of an MR. Every caller has passed sroce_mr_check() for the range
 * and ends the access (sroce_mr_access_end()) only after us, so the range
 * is inside the MR and its pages stay pinned while we work. A NULL MR is the local DMA lkey:
 * the address is kernel virtual, as every ib_dma_* address is under the
 * RDMA core's virt DMA; so are the DMA MR's and the fast-reg page lists'.
 *
 * sroce_dma_walk() hands out the range as virtually contiguous pieces,
 * page by page for user MRs (kmap_local_page(), so any context will do),
 * so the data path can fuse its work (the ICRC) with the copy.
 */
#include <linux/highmem.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "net/sroce_net.h"
#include "proto/icrc.h"

static int sroce_dma_walk_user(struct sroce_mr *mr, u64 addr, u64 len,
			       sroce_dma_fn fn, void *priv)
{
	const struct sroce_umap *umap = mr->umap;
	struct sroce_mr_pos p;
	int ret = 0;
	void *va;

	while (len && !ret) {
		p = sroce_mr_locate(umap->offset, PAGE_SHIFT, mr->attr.iova,
				    addr, len);
		if (WARN_ON_ONCE(p.idx >= umap->npages))
			return -EFAULT;
		va = kmap_local_page(umap->pages[p.idx]);
		ret = fn(va + p.off, p.n, priv);
		kunmap_local(va);
		addr += p.n;
		len -= p.n;
	}
	return ret;
}

static int sroce_dma_walk_frmr(struct sroce_mr *mr, u64 addr, u64 len,
			       sroce_dma_fn fn, void *priv)
{
	const struct sroce_pagelist *pl = &mr->frmr.active;
	/* The first page starts at the page-aligned address below iova. */
	u64 first_off = mr->attr.iova & ((1ULL << pl->shift) - 1);
	struct sroce_mr_pos p;
	int ret = 0;

	while (len && !ret) {
		p = sroce_mr_locate(first_off, pl->shift, mr->attr.iova, addr,
				    len);
		if (WARN_ON_ONCE(p.idx >= pl->npages))
			return -EFAULT;
		ret = fn((void *)(uintptr_t)(pl->addrs[p.idx] + p.off), p.n,
			 priv);
		addr += p.n;
		len -= p.n;
	}
	return ret;
}

/**
 * sroce_dma_walk - visit [addr, addr + len) of an MR piece by piece
 * @mr: from sroce_mr_check(); NULL for the local DMA lkey
 * @addr: first byte, as checked
 * @len: bytes, as checked
 * @fn: called for each virtually contiguous piece; non-zero stops the walk
 * @priv: passed to @fn
 *
 * Returns 0 or what @fn returned.
 */
int sroce_dma_walk(struct sroce_mr *mr, u64 addr, u64 len, sroce_dma_fn fn,
		   void *priv)
{
	if (!len)
		return 0;
	if (!mr || mr->type == SROCE_MR_DMA)
		return fn((void *)(uintptr_t)addr, len, priv);
	/* The gate checked this; a miss is a caller's bug, not a fault. */
	if (WARN_ON_ONCE(sroce_mr_range_check(mr->attr.iova, mr->attr.length,
					      addr, len)))
		return -EFAULT;
	if (mr->type == SROCE_MR_USER)
		return sroce_dma_walk_user(mr, addr, len, fn, priv);
	return sroce_dma_walk_frmr(mr, addr, len, fn, priv);
}

struct sroce_dma_copy_ctx {
	u8 *buf;
	enum sroce_dma_dir dir;
};

static int sroce_dma_copy_piece(void *va, size_t len, void *priv)
{
	struct sroce_dma_copy_ctx *ctx = priv;

	if (ctx->dir == SROCE_DMA_TO_MR)
		memcpy(va, ctx->buf, len);
	else
		memcpy(ctx->buf, va, len);
	ctx->buf += len;
	return 0;
}

/* Copy between an MR range (checked by sroce_mr_check()) and @buf. */
int sroce_dma_copy(struct sroce_mr *mr, u64 addr, void *buf, u64 len,
		   enum sroce_dma_dir dir)
{
	struct sroce_dma_copy_ctx ctx = { .buf = buf, .dir = dir };

	return sroce_dma_walk(mr, addr, len, sroce_dma_copy_piece, &ctx);
}

struct sroce_dma_crc_ctx {
	u8 *buf;
	u32 *crc;
};

static int sroce_dma_gather_piece(void *va, size_t len, void *priv)
{
	struct sroce_dma_crc_ctx *ctx = priv;

	*ctx->crc = sroce_icrc_copy(*ctx->crc, ctx->buf, va, len);
	ctx->buf += len;
	return 0;
}

/* Copy a checked MR range into a packet, running the ICRC over it. */
int sroce_dma_gather_crc(struct sroce_mr *mr, u64 addr, void *buf, u64 len,
			 u32 *crc)
{
	struct sroce_dma_crc_ctx ctx = { .buf = buf, .crc = crc };

	return sroce_dma_walk(mr, addr, len, sroce_dma_gather_piece, &ctx);
}

/**
 * sroce_sge_copy - move bytes between a local SGE list and a buffer
 * @sdev: the device
 * @acc: the access: the QP's PD, the bytes (len) and the rights:
 *	 IB_ACCESS_LOCAL_WRITE scatters into the list, 0 gathers from it;
 *	 each SGE gives the key and address
 * @sge: the list (a private copy: never shared memory)
 * @nsge: its length
 * @off: byte offset into the list where the copy starts
 * @buf: the other side
 * @crc: when gathering, the ICRC register to run over the bytes, or NULL
 *
 * Every piece passes sroce_mr_check() first. Returns 0, -ENOSPC if the
 * list ends before @off + @len, or -EACCES on a key that fails the gate.
 */
int sroce_sge_copy(struct sroce_dev *sdev, const struct sroce_access *acc,
		   const struct sroce_sge *sge, u32 nsge, u64 off, void *buf,
		   u32 *crc)
{
	bool to_sge = acc->rights & IB_ACCESS_LOCAL_WRITE;
	struct sroce_access one = {
		.pd = acc->pd, .qpn = acc->qpn, .rights = acc->rights,
	};
	u64 len = acc->len, n;
	struct sroce_mr *mr;
	u32 i;
	int ret;

	for (i = 0; i < nsge && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min_t(u64, sge[i].length - off, len);
		one.key = sge[i].lkey;
		one.addr = sge[i].addr + off;
		one.len = n;
		ret = sroce_mr_check(sdev, &one, &mr);
		if (ret)
			return -EACCES;
		if (to_sge)
			ret = sroce_dma_copy(mr, one.addr, buf, n,
					     SROCE_DMA_TO_MR);
		else if (crc)
			ret = sroce_dma_gather_crc(mr, one.addr, buf, n, crc);
		else
			ret = sroce_dma_copy(mr, one.addr, buf, n,
					     SROCE_DMA_FROM_MR);
		sroce_mr_access_end(mr);
		if (ret)
			return -EACCES;
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -ENOSPC : 0;
}
