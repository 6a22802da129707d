// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: transmit. Resolves a QP's address vector at RTR and turns one
 * packet's headers and payload into an IP/UDP datagram.
 *
 * The IP and UDP headers are ours, not udp_tunnel_xmit_skb()'s: the ICRC
 * covers the IPv4 identification field, so the header must be final
 * before the payload is copied with the CRC fused into the copy. The
 * packet then leaves through ip_local_out()/ip6_local_out() on the QP's
 * cached route (a dst_cache, as tunnels keep one): a route change makes
 * the cached entry obsolete and the next packet looks the route up again,
 * so address and route changes still apply at once.
 *
 * A pass that sends many packets to one peer (the requester, a burst of
 * read responses) hands them to the IP layer as one list where it can
 * (struct sroce_txb): packets of one size to one peer, at most tx_batch
 * of them, leave as one skb of GSO type UDP_L4 | FRAGLIST, the type UDP
 * GRO builds from packets it forwards. Each packet on the list is whole
 * (its own IP and UDP headers and ICRC). The netdev segments it before
 * it transmits (and before any packet tap sees it): each packet gets its
 * link header back, and its IP length (and IPv4 checksum) is made again,
 * the one its ICRC was computed with; IPv4 identifications are numbered
 * on from the first's (the first reserves tx_batch of them, and each
 * ICRC was computed with its own). netfilter, the qdisc and the neighbour layer run once per list,
 * and the netdev gets its packets in one call (xmit_more): a virtio NIC
 * is notified once, not once per packet. The wire, and a capture on the
 * netdev, see the same packets. A netdev that would pass a list on whole
 * (veth, a bridge: NETIF_F_GSO_FRAGLIST) gets every packet alone.
 *
 * Packets to an address of this host skip the stack and enter receive
 * directly (sroce_rx_local()), as the wire would deliver them. They meet
 * no wire and no other implementation, so by default they carry no ICRC
 * (the field is zero) and receive does not check one: two CRC passes over
 * every payload byte saved. local_icrc=1 computes and checks it anyway,
 * for a model that does on one host all a NIC does.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dst_cache.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "sroce.h"
#include "core/sroce_qp.h"
#include "core/sroce_sock.h"
#include "net/sroce_net.h"
#include "net/sroce_rx.h"
#include "obs/sroce_trace.h"
#include "proto/icrc.h"

static bool local_icrc;
module_param(local_icrc, bool, 0644);
MODULE_PARM_DESC(local_icrc,
		 "compute and check the ICRC of packets between QPs of this host (default: no)");

/*
 * tx_batch: the most packets one list holds (1 sends each alone), at most
 * SROCE_TX_BATCH_MAX.
 */
#define SROCE_TX_BATCH_MAX	32
static unsigned int tx_batch = 16;

static int sroce_tx_batch_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n < 1 || n > SROCE_TX_BATCH_MAX)
		return -EINVAL;
	WRITE_ONCE(tx_batch, n);
	return 0;
}

static const struct kernel_param_ops sroce_tx_batch_ops = {
	.set = sroce_tx_batch_set,
	.get = param_get_uint,
};
module_param_cb(tx_batch, &sroce_tx_batch_ops, &tx_batch, 0644);
MODULE_PARM_DESC(tx_batch,
		 "packets of one QP handed to the IP layer as one list, 1 to 32 (default 16; 1: each alone)");

int sroce_av_resolve(const struct rdma_ah_attr *ah, struct sroce_av *av)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sattr;
	const union ib_gid *s, *d;
	struct net_device *ndev;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	sattr = grh->sgid_attr;
	if (!sattr || sattr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sattr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return PTR_ERR(ndev);
	}
	av->ifindex = ndev->ifindex;
	rcu_read_unlock();

	s = &sattr->gid;
	d = &grh->dgid;
	av->ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)s->raw);
	if (av->ipv6 == ipv6_addr_v4mapped((const struct in6_addr *)d->raw))
		return -EINVAL;	/* one IPv4 and one IPv6 address */
	if (av->ipv6) {
		memcpy(&av->saddr.v6, s->raw, sizeof(av->saddr.v6));
		memcpy(&av->daddr.v6, d->raw, sizeof(av->daddr.v6));
	} else {
		memcpy(&av->saddr.v4, s->raw + 12, sizeof(av->saddr.v4));
		memcpy(&av->daddr.v4, d->raw + 12, sizeof(av->daddr.v4));
	}
	av->tclass = grh->traffic_class;
	/* A hop limit of 0 would have every router drop the packet. */
	av->hop_limit = grh->hop_limit ? grh->hop_limit : 64;
	av->flow_label = grh->flow_label & SROCE_FLOW_LABEL_MASK;
	return 0;
}

/*
 * @b: the list this packet joins (NULL: it leaves alone). The first of a
 * list reserves the identifications of as many packets as a list may hold.
 */
static void sroce_build_ip4(struct sk_buff *skb, struct net *net,
			    const struct sroce_av *av, u8 tos, u32 len,
			    struct sroce_txb *b, unsigned int max)
{
	struct iphdr *iph;

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos;
	iph->tot_len = htons(len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr.v4;
	iph->daddr = av->daddr.v4;
	iph->check = 0;
	if (b && b->n) {
		iph->id = htons(b->id + b->n);
	} else {
		__ip_select_ident(net, iph, b ? max : 1);
		if (b)
			b->id = ntohs(iph->id);
	}
	skb->protocol = htons(ETH_P_IP);
}

static void sroce_build_ip6(struct sk_buff *skb, const struct sroce_av *av,
			    u8 tos, u32 len)
{
	struct ipv6hdr *ip6h;

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tos, htonl(av->flow_label));
	ip6h->payload_len = htons(len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit;
	ip6h->saddr = av->saddr.v6;
	ip6h->daddr = av->daddr.v6;
	skb->protocol = htons(ETH_P_IPV6);
}

/* For an address of this host, the netdev that has it (RCU-protected). */
static struct net_device *sroce_route_local(struct net *net,
					    const struct sroce_av *av,
					    struct dst_entry *dst)
{
	if (!av->ipv6) {
		if (((struct rtable *)dst)->rt_type != RTN_LOCAL)
			return NULL;
		return __ip_dev_find(net, av->daddr.v4, false);
	}
	if (!(((struct rt6_info *)dst)->rt6i_flags & RTF_LOCAL))
		return NULL;
	return ipv6_dev_find(net, &av->daddr.v6, NULL);
}

static struct dst_entry *sroce_route_lookup(struct sroce_dev *sdev,
					    const struct sroce_av *av,
					    struct net *net)
{
	struct sock *sk = sroce_sock_sk(sdev->sock, av->ipv6);

	if (!av->ipv6) {
		struct flowi4 fl4 = {
			.flowi4_oif = av->ifindex,
			.flowi4_proto = IPPROTO_UDP,
			.daddr = av->daddr.v4,
			.saddr = av->saddr.v4,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return ERR_CAST(rt);
		return &rt->dst;
	}
	if (!sk)
		return ERR_PTR(-EAFNOSUPPORT);
	{
		struct flowi6 fl6 = {
			.flowi6_oif = av->ifindex,
			.flowi6_proto = IPPROTO_UDP,
			.daddr = av->daddr.v6,
			.saddr = av->saddr.v6,
		};

		return ip6_dst_lookup_flow(net, sk, &fl6, NULL);
	}
}

/*
 * The route to @av's peer, a reference the caller puts, from @cache when
 * it is still valid (a connected QP's; UD sends, each to its own AH, have
 * none); and for an address of this host the netdev that has it (*local,
 * RCU-protected: the caller holds rcu_read_lock()). The owners of the
 * QP's two tasks transmit, each with BH off, as the per-CPU cache wants.
 */
static struct dst_entry *sroce_route(struct sroce_dev *sdev,
				     const struct sroce_av *av,
				     struct dst_cache *cache, struct net *net,
				     struct net_device **local)
{
	struct dst_entry *dst = NULL;
	struct in6_addr saddr6;
	__be32 saddr4;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "route lookup outside RCU");
	if (cache && av->ipv6)
		dst = dst_cache_get_ip6(cache, &saddr6);
	else if (cache)
		dst = (struct dst_entry *)dst_cache_get_ip4(cache, &saddr4);
	if (!dst) {
		dst = sroce_route_lookup(sdev, av, net);
		if (IS_ERR(dst))
			return dst;
		if (cache && av->ipv6)
			dst_cache_set_ip6(cache, dst, &av->saddr.v6);
		else if (cache)
			dst_cache_set_ip4(cache, dst, av->saddr.v4);
	}
	*local = sroce_route_local(net, av, dst);
	return dst;
}

/*
 * Packet buffers come from a page pool per CPU, carved into fragments as
 * NIC drivers carve receive buffers, and go back to the pool when the skb
 * is freed (on any CPU: into the pool's ring). A kernel that initialises
 * memory on allocation (Debian's default) zeroes every page the page
 * allocator hands out, which for a stream of packets cost as much as
 * copying the payload; a recycled page is not zeroed again. Nothing of a
 * page's last packet leaks: every byte of a packet is written before it
 * leaves. A pool's block is the pages that hold the largest packet (two
 * with 4 KiB pages, one with larger ones). It keeps at most
 * SROCE_TX_POOL_RING blocks in its ring, and the page pool up to 64 more
 * in its cache, until the module unloads; what comes back past that goes
 * to the page allocator. Heads too big for a block come from alloc_skb(),
 * and a CPU whose pool is empty and cannot grow, or has none, carves the
 * page fragment cache, as before the pools.
 */
#define SROCE_TX_POOL_BLOCK	8192
#define SROCE_TX_POOL_RING	128

static DEFINE_PER_CPU(struct page_pool *, sroce_tx_pool);

static struct sk_buff *sroce_tx_alloc_pool(unsigned int truesize)
{
	struct page_pool *pool;
	struct sk_buff *skb;
	struct page *page;
	unsigned int off;

	/* A pool has one allocator at a time: its CPU, with BH off. */
	local_bh_disable();
	pool = this_cpu_read(sroce_tx_pool);
	page = pool ? page_pool_dev_alloc_frag(pool, &off, truesize) : NULL;
	local_bh_enable();
	if (!page)
		return NULL;
	skb = build_skb(page_address(page) + off, truesize);
	if (!skb) {
		page_pool_put_full_page(pool, page, false);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	return skb;
}

static struct sk_buff *sroce_tx_alloc(unsigned int size, bool pool)
{
	unsigned int truesize = SKB_DATA_ALIGN(size) +
				SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	void *data;

	if (truesize > PAGE_SIZE << get_order(SROCE_TX_POOL_BLOCK))
		return alloc_skb(size, GFP_ATOMIC);
	skb = pool ? sroce_tx_alloc_pool(truesize) : NULL;
	if (skb)
		return skb;
	data = netdev_alloc_frag(truesize);
	if (!data)
		return NULL;
	skb = build_skb(data, truesize);
	if (!skb)
		skb_free_frag(data);
	return skb;
}

/*
 * The pools, one per possible CPU; before the first device. A CPU whose
 * pool could not be made does without. A pool's pages still in flight
 * when it is destroyed return to the page allocator as their skbs are
 * freed.
 */
void sroce_tx_init(void)
{
	struct page_pool_params pp = {
		.flags = SROCE_PP_FLAG_FRAG,
		.order = get_order(SROCE_TX_POOL_BLOCK),
		.pool_size = SROCE_TX_POOL_RING,
		/* Refills from the node of the CPU that allocates. */
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool;
	int cpu;

	for_each_possible_cpu(cpu) {
		pool = page_pool_create(&pp);
		per_cpu(sroce_tx_pool, cpu) = IS_ERR(pool) ? NULL : pool;
	}
}

/* After the last device is gone. */
void sroce_tx_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		page_pool_destroy(per_cpu(sroce_tx_pool, cpu));
		per_cpu(sroce_tx_pool, cpu) = NULL;
	}
}

/* Hands @skb, one packet or a list, to the IP layer; under RCU. */
static void sroce_tx_out(struct net *net, struct sroce_dev *sdev,
			 struct sk_buff *skb, bool ipv6)
{
	if (ipv6)
		ip6_local_out(net, sroce_sock_sk(sdev->sock, true), skb);
	else
		ip_local_out(net, sroce_sock_sk(sdev->sock, false), skb);
}

/*
 * Whether a packet on route @dst may go in a list at all: to another
 * host, a QP not paced, and a netdev that segments the list before any
 * packet tap sees it. A netdev that takes lists as they are (veth, a
 * bridge, loopback: NETIF_F_GSO_FRAGLIST) would hand the whole list to
 * whatever captures on it or on its peer (tcpdump, a packet-level RoCE
 * peer) as one frame: there each packet goes alone.
 */
static bool sroce_tx_listable(const struct sroce_txb *b,
			      struct dst_entry *dst, struct net_device *local,
			      const struct sroce_av *av, unsigned int max)
{
	return !local && max > 1 && !b->alone &&
	       !(dst->dev->features & NETIF_F_GSO_FRAGLIST);
}

/* IP header bytes of @b's packets. */
static u32 sroce_txb_l3len(const struct sroce_txb *b)
{
	return b->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
}

/*
 * Whether a packet of @len IP bytes on route @dst may join @b's list:
 * within the bound its head took (tx_batch may have changed since). A
 * route is one address family's, so the same route means the same IP
 * header.
 */
static bool sroce_txb_fits(const struct sroce_txb *b, struct dst_entry *dst,
			   u32 len)
{
	/* The head's IP length is the whole list's until segmentation. */
	return b->n < b->max && skb_dst(b->head) == dst &&
	       len - sroce_txb_l3len(b) - sizeof(struct udphdr) == b->seg &&
	       b->len + len <= IP_MAX_MTU;
}

/*
 * Adds a finished packet to @b's list, which takes @dst's reference; the
 * first sets the list's bound (@max) and address family (@ipv6).
 */
static void sroce_txb_add(struct sroce_txb *b, struct sk_buff *skb,
			  struct dst_entry *dst, u32 len, unsigned int max,
			  bool ipv6)
{
	struct sk_buff *head = b->head;

	if (!b->n) {
		skb_dst_set(skb, dst);
		b->head = skb;
		b->last = skb;
		b->len = len;
		b->max = max;
		b->ipv6 = ipv6;
		b->seg = len - sroce_txb_l3len(b) - sizeof(struct udphdr);
		b->n = 1;
		return;
	}
	/* The head's route is the list's; segmentation copies it. */
	dst_release(dst);
	if (b->n == 1)
		skb_shinfo(head)->frag_list = skb;
	else
		b->last->next = skb;
	b->last = skb;
	head->len += skb->len;
	head->data_len += skb->len;
	head->truesize += skb->truesize;
	b->len += len;
	b->n++;
}

/**
 * sroce_txb_flush - send what @b holds
 * @qp: the sender
 * @b: its list, empty afterwards
 *
 * A list of two or more leaves as one GSO skb. Its head says, as GRO's
 * lists do, the whole list's length in its UDP header, so a receiver on
 * this host (a veth peer) takes it whole before it segments it;
 * segmentation gives the head its own length back, which its ICRC covers.
 */
void sroce_txb_flush(struct sroce_qp *qp, struct sroce_txb *b)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sk_buff *skb = b->head;
	struct skb_shared_info *sh;

	if (!b->n)
		return;
	if (b->n > 1) {
		sh = skb_shinfo(skb);
		udp_hdr(skb)->len = htons(b->len - sroce_txb_l3len(b));
		sh->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
		sh->gso_size = b->seg;
		sh->gso_segs = b->n;
		/* The UDP checksum is zero: nothing for segmentation to do. */
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		sroce_count(sdev, SROCE_CNT_TX_BATCHES, 1);
	}
	b->head = NULL;
	b->last = NULL;
	b->n = 0;
	rcu_read_lock();
	sroce_tx_out(dev_net(sdev->ndev), sdev, skb, b->ipv6);
	rcu_read_unlock();
}

/*
 * Builds one packet and sends it, or adds it to @b's list (NULL: no list).
 * A packet that cannot join the list sends the list first, so a QP's
 * packets leave in the order they were built.
 */
static int sroce_tx_one(struct sroce_qp *qp, const struct sroce_av *av,
			struct dst_cache *cache, struct sroce_txb *b,
			struct sroce_fields *f, u32 paylen, sroce_fill_fn fill,
			void *priv)
{
	struct sroce_dev *sdev = qp->sdev;
	struct net *net = dev_net(sdev->ndev);
	u32 hlen, l3len, pad, len, crc;
	unsigned int max = READ_ONCE(tx_batch);
	struct net_device *local;
	struct dst_entry *dst;
	struct udphdr *udph;
	struct sk_buff *skb;
	bool icrc;
	u8 *bth, *p, tos;
	int ret = 0;

	hlen = sroce_opcode(f->opcode)->length;
	pad = sroce_pad(paylen);
	f->pad = pad;
	f->tver = SROCE_TVER;
	l3len = av->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	len = l3len + sizeof(*udph) + hlen + paylen + pad + SROCE_ICRC_LEN;

	rcu_read_lock();
	dst = sroce_route(sdev, av, cache, net, &local);
	if (b && (IS_ERR(dst) || !sroce_tx_listable(b, dst, local, av, max))) {
		/* This one leaves alone: the list before it goes first. */
		sroce_txb_flush(qp, b);
		b = NULL;
	}
	if (b && b->n && !sroce_txb_fits(b, dst, len))
		sroce_txb_flush(qp, b);
	if (IS_ERR(dst)) {
		rcu_read_unlock();
		sroce_count(sdev, SROCE_CNT_TX_DROP_ROUTE, 1);
		return 0;
	}
	skb = sroce_tx_alloc(LL_RESERVED_SPACE(dst->dev) + len,
			     !READ_ONCE(sdev->fault_tx_nopool));
	if (!skb) {
		dst_release(dst);
		rcu_read_unlock();
		sroce_count(sdev, SROCE_CNT_TX_DROP_NOMEM, 1);
		return 0;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(dst->dev) + l3len + sizeof(*udph));
	bth = skb_put(skb, hlen);
	sroce_hdrs_encode(bth, hlen, f);

	udph = skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph->source = htons(av->sport);
	udph->dest = htons(SROCE_UDP_DPORT);
	udph->len = htons(len - l3len);
	/* Zero: the ICRC protects the payload (Annex A17). */
	udph->check = 0;
	tos = sroce_cc_tos(&sdev->cc, f->opcode, av->tclass);
	if (av->ipv6)
		sroce_build_ip6(skb, av, tos, len);
	else
		sroce_build_ip4(skb, net, av, tos, len, b, max);

	icrc = !local || READ_ONCE(local_icrc);
	if (icrc) {
		crc = sroce_icrc_begin(skb_network_header(skb), udph, bth);
		crc = sroce_icrc_update(crc, bth + SROCE_BTH_LEN,
					hlen - SROCE_BTH_LEN);
	}
	if (paylen) {
		ret = fill(skb_put(skb, paylen), paylen, icrc ? &crc : NULL,
			   priv);
		if (ret) {
			kfree_skb(skb);
			dst_release(dst);
			rcu_read_unlock();
			return ret;
		}
	}
	if (pad) {
		p = skb_put_zero(skb, pad);
		if (icrc)
			crc = sroce_icrc_update(crc, p, pad);
	}
	p = skb_put(skb, SROCE_ICRC_LEN);
	if (icrc)
		sroce_icrc_put(p, sroce_icrc_final(crc));
	else
		memset(p, 0, SROCE_ICRC_LEN);
	skb->ip_summed = CHECKSUM_NONE;
	trace_sroce_xmit(qp->ibqp.qp_num, f->dqpn, f->psn, f->opcode, paylen);
	sroce_count(sdev, SROCE_CNT_TX_PACKETS, 1);
	sroce_count(sdev, SROCE_CNT_TX_BYTES, len - l3len - sizeof(*udph));

	if (local) {
		dst_release(dst);
		sroce_rx_local(skb, local, icrc);
	} else if (b) {
		sroce_txb_add(b, skb, dst, len, max, av->ipv6);
		if (b->n >= b->max)
			sroce_txb_flush(qp, b);
	} else {
		skb_dst_set(skb, dst);
		sroce_tx_out(net, sdev, skb, av->ipv6);
	}
	rcu_read_unlock();
	return 0;
}

/**
 * sroce_tx_to - build and send one packet of a QP to an address vector
 * @qp: the sender
 * @av: where the packet goes
 * @cache: the route to @av's peer, or NULL
 * @f: the transport headers; the pad count is filled in here
 * @paylen: payload bytes
 * @fill: copies the payload to its first argument, updating the CRC (when
 *	the CRC pointer is not NULL)
 * @priv: for @fill
 *
 * Returns 0 when the packet left (or was dropped on the way, as the wire
 * may drop it: the sender's timers recover), or what @fill returned.
 */
int sroce_tx_to(struct sroce_qp *qp, const struct sroce_av *av,
		struct dst_cache *cache, struct sroce_fields *f, u32 paylen,
		sroce_fill_fn fill, void *priv)
{
	return sroce_tx_one(qp, av, cache, NULL, f, paylen, fill, priv);
}

/*
 * A packet of a connected QP, to its peer, on @b's list: it leaves when
 * the list is full or flushed (sroce_txb_flush()), or before the next
 * packet that cannot join it.
 */
int sroce_tx_batch(struct sroce_qp *qp, struct sroce_txb *b,
		   struct sroce_fields *f, u32 paylen, sroce_fill_fn fill,
		   void *priv)
{
	return sroce_tx_one(qp, &qp->av, &qp->dst_cache, b, f, paylen, fill,
			    priv);
}

/* A packet of a connected QP, to its peer. */
int sroce_tx(struct sroce_qp *qp, struct sroce_fields *f, u32 paylen,
	     sroce_fill_fn fill, void *priv)
{
	return sroce_tx_to(qp, &qp->av, &qp->dst_cache, f, paylen, fill,
			   priv);
}

/*
 * An ACK, NAK or atomic ACK (for @opcode SROCE_OPCODE(RC, ATOMIC_ACK)),
 * with selective repeat's bit (@sr): on an ACK, the responder keeps what
 * comes past a gap; on a PSN sequence NAK, it asks for that PSN alone
 * (sroce_ooo.c).
 */
int sroce_tx_aeth(struct sroce_qp *qp, u8 opcode, u32 psn, u8 syndrome,
		  u32 msn, u64 orig, bool sr)
{
	struct sroce_fields f = {
		.opcode = opcode,
		.pkey = SROCE_DEFAULT_PKEY,
		.dqpn = qp->attr.dest_qp_num,
		.psn = psn,
		.sr = sr,
	};

	f.aeth.syndrome = syndrome;
	f.aeth.msn = msn & SROCE_PSN_MASK;
	f.atmack_orig = orig;
	if ((syndrome & SROCE_AETH_TYPE_MASK) != SROCE_AETH_ACK)
		trace_sroce_nak(qp->ibqp.qp_num, psn, syndrome, true);
	return sroce_tx(qp, &f, 0, NULL, NULL);
}

/* The same, without selective repeat's bit. */
int sroce_tx_ack(struct sroce_qp *qp, u8 opcode, u32 psn, u8 syndrome,
		 u32 msn, u64 orig)
{
	return sroce_tx_aeth(qp, opcode, psn, syndrome, msn, orig, false);
}

