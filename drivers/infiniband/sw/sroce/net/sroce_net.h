/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: the network layer's calls for the engines above it: transmit
 * (sroce_tx.c) and the one gate between MR memory and packets
 * (sroce_dma.c). Receive is net/sroce_rx.h, congestion control
 * net/sroce_cc.h.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct dst_cache;
struct sk_buff;
struct sroce_av;
struct sroce_dev;
struct sroce_fields;
struct sroce_mr;
struct sroce_pd;
struct sroce_qp;

/* sroce_tx.c */
void sroce_tx_init(void);
void sroce_tx_exit(void);
int sroce_av_resolve(const struct rdma_ah_attr *ah, struct sroce_av *av);
typedef int (*sroce_fill_fn)(void *dst, u32 len, u32 *crc, void *priv);

/**
 * struct sroce_txb - packets of one pass, handed to the IP layer as one
 * @head: the first packet; the others hang on its frag_list
 * @last: the last packet held
 * @len: IP bytes of them all
 * @seg: UDP payload bytes of each (they are all the same size)
 * @id: the IPv4 identification of @head; packet i carries @id + i
 * @n: packets held
 * @max: the most packets this list may hold: tx_batch when @head was
 *	built (for IPv4, as many identifications as @head reserved)
 * @ipv6: the packets are IPv6 ones
 * @alone: the packets from now on leave one by one (a paced QP)
 *
 * One owner (the pass that sends) and no lock; it lives on the owner's
 * stack and is empty when the pass ends (sroce_txb_flush()). sroce_tx.c
 * says how the list leaves.
 */
struct sroce_txb {
	struct sk_buff *head;
	struct sk_buff *last;
	u32 len;
	u16 seg;
	u16 id;
	u8 n;
	u8 max;
	bool ipv6;
	bool alone;
};

int sroce_tx_to(struct sroce_qp *qp, const struct sroce_av *av,
		struct dst_cache *cache, struct sroce_fields *f, u32 paylen,
		sroce_fill_fn fill, void *priv);
int sroce_tx(struct sroce_qp *qp, struct sroce_fields *f, u32 paylen,
	     sroce_fill_fn fill, void *priv);
int sroce_tx_batch(struct sroce_qp *qp, struct sroce_txb *b,
		   struct sroce_fields *f, u32 paylen, sroce_fill_fn fill,
		   void *priv);
void sroce_txb_flush(struct sroce_qp *qp, struct sroce_txb *b);
int sroce_tx_aeth(struct sroce_qp *qp, u8 opcode, u32 psn, u8 syndrome,
		  u32 msn, u64 orig, bool sr);
int sroce_tx_ack(struct sroce_qp *qp, u8 opcode, u32 psn, u8 syndrome,
		 u32 msn, u64 orig);

/* sroce_dma.c: payload between MR memory and kernel buffers */
enum sroce_dma_dir {
	SROCE_DMA_TO_MR,
	SROCE_DMA_FROM_MR,
};

typedef int (*sroce_dma_fn)(void *va, size_t len, void *priv);
int sroce_dma_walk(struct sroce_mr *mr, u64 addr, u64 len, sroce_dma_fn fn,
		   void *priv);
int sroce_dma_copy(struct sroce_mr *mr, u64 addr, void *buf, u64 len,
		   enum sroce_dma_dir dir);
int sroce_dma_gather_crc(struct sroce_mr *mr, u64 addr, void *buf, u64 len,
			 u32 *crc);
struct sroce_sge;
struct sroce_access;
int sroce_sge_copy(struct sroce_dev *sdev, const struct sroce_access *acc,
		   const struct sroce_sge *sge, u32 nsge, u64 off, void *buf,
		   u32 *crc);

#endif /* SROCE_NET_H */
