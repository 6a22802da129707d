// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: persistent memory, for a FLUSH whose placement type is
 * PERSISTENT (IBTA 1.5, Annex A19). Only a user MR whose every page is
 * persistent memory may grant that right: pages the firmware's NFIT
 * names so (an NVDIMM region, mapped through device DAX; a file on a DAX
 * file system cannot be pinned). The FLUSH then writes the CPU's cache
 * lines of its range back and fences, so what was placed before it has
 * reached the memory controller, inside the persistence domain of a
 * platform with ADR: what any pmem writer that stores through the cache
 * does, and as rdma_rxe does.
 */
#include <linux/ioport.h>
#include <linux/libnvdimm.h>
#include <linux/mm.h>

#include "sroce.h"

/*
 * Is every page of @sgt persistent memory? Stops at the first that is
 * not, so a region of ordinary memory costs one lookup.
 */
bool sroce_pmem_pages(struct sg_table *sgt)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i) {
		if (region_intersects(sg_phys(sg), sg->length, IORESOURCE_MEM,
				      IORES_DESC_PERSISTENT_MEMORY) !=
		    REGION_INTERSECTS)
			return false;
		cond_resched();
	}
	return true;
}

/**
 * sroce_pmem_write_back - a sroce_dma_fn: write a piece of a pmem MR back
 * @va: the piece, from sroce_dma_walk() over an MR that granted
 *	FLUSH_PERSISTENT (its pages are pmem)
 * @len: its bytes
 * @priv: unused
 *
 * One CLWB per cache line, with BH off: a whole-MR FLUSH of a large MR
 * takes its time. The caller fences (wmb()) after the walk.
 */
int sroce_pmem_write_back(void *va, size_t len, void *priv)
{
	arch_wb_cache_pmem(va, len);
	return 0;
}
