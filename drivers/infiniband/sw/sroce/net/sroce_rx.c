// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: receive, from the UDP socket to a QP's FIFO.
 *
 * Receive runs in softirq: find the device by the netdev the packet came
 * in on, check the IP and UDP framing, the ICRC and the transport headers,
 * find the destination QP by QPN, and admit the packet to one of its two
 * bounded FIFOs (requests for the responder, responses for the completer),
 * and mark the QP's task for it: its engines run when the section receive is in
 * ends (sroce_task.c). Every drop is counted. Packets that
 * sroce_tx() sends to an address of this host enter here too
 * (sroce_rx_local()). The QPN table and the device list it searches are
 * receive's, too.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_vlan.h>
#include <linux/list.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "core/sroce_qp.h"
#include "sched/sroce_task.h"
#include "net/sroce_rx.h"
#include "obs/sroce_trace.h"
#include "proto/icrc.h"
#include "proto/parse.h"

/*
 * QPN 0 and 1 are the special QPs (1 is the GSI QP's); 0xffffff is the
 * multicast QPN.
 */
#define SROCE_QPN_MIN	2
#define SROCE_QPN_MAX	(SROCE_QPN_MASK - 1)

void sroce_rx_table_init(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC);
	/* A random start, so QPNs differ across devices and reloads. */
	sdev->qp_next = SROCE_QPN_MIN +
			get_random_u32() % (SROCE_QPN_MAX - SROCE_QPN_MIN);
}

void sroce_rx_table_destroy(struct sroce_dev *sdev)
{
	WARN_ON(!xa_empty(&sdev->qps));
	xa_destroy(&sdev->qps);
}

/* Receive's lookup; the caller holds rcu_read_lock(). */
static struct sroce_qp *sroce_rx_qp_get_rcu(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "QPN lookup outside RCU");
	qp = xa_load(&sdev->qps, qpn);

	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	return qp;
}

static void sroce_rx_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->done);
}

/* A QPN for @qp: receive finds it from now on. */
int sroce_rx_qpn_add(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	u32 qpn;
	int ret;

	/* The GSI QP is QP1 on the wire; a port has one. */
	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		qpn = SROCE_GSI_QPN;
		ret = xa_insert(&sdev->qps, qpn, qp, GFP_KERNEL);
	} else {
		ret = xa_alloc_cyclic(&sdev->qps, &qpn, qp,
				      XA_LIMIT(SROCE_QPN_MIN, SROCE_QPN_MAX),
				      &sdev->qp_next, GFP_KERNEL);
	}
	if (ret < 0)
		return ret;
	qp->ibqp.qp_num = qpn;
	return 0;
}

/*
 * Receive can no longer find @qp, nor holds it, on return. Its QPN stays
 * taken (an allocating xarray keeps a NULL store as a reservation) until
 * sroce_rx_qpn_free(): nothing may take it while the QP is being undone.
 */
void sroce_rx_qpn_del(struct sroce_qp *qp)
{
	xa_store(&qp->sdev->qps, qp->ibqp.qp_num, NULL, GFP_KERNEL);
	synchronize_rcu();
	sroce_rx_qp_put(qp);
	wait_for_completion(&qp->done);
}

/* @qp is undone: its QPN may go to another QP. */
void sroce_rx_qpn_free(struct sroce_qp *qp)
{
	xa_erase(&qp->sdev->qps, qp->ibqp.qp_num);
}

/*
 * The devices, for the receive path, which runs in softirq: an RCU list.
 * The RDMA core frees an ib_device only after a grace period, so a reader
 * may still look at an entry just removed; ib_device_try_get() tells it
 * the device is gone.
 */
static LIST_HEAD(sroce_rx_devs);
static DEFINE_SPINLOCK(sroce_rx_devs_lock);

void sroce_rx_dev_add(struct sroce_dev *sdev)
{
	spin_lock(&sroce_rx_devs_lock);
	list_add_tail_rcu(&sdev->rx_node, &sroce_rx_devs);
	sdev->rx_listed = true;
	spin_unlock(&sroce_rx_devs_lock);
}

void sroce_rx_dev_del(struct sroce_dev *sdev)
{
	spin_lock(&sroce_rx_devs_lock);
	if (sdev->rx_listed)
		list_del_rcu(&sdev->rx_node);
	sdev->rx_listed = false;
	spin_unlock(&sroce_rx_devs_lock);
}

/* Receive path: any context; takes a registration reference. */
static struct sroce_dev *sroce_rx_dev_get_rcu(struct net_device *ndev)
{
	struct sroce_dev *sdev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(sdev, &sroce_rx_devs, rx_node) {
		if (sdev->ndev == ndev && ib_device_try_get(&sdev->ibdev)) {
			found = sdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Connected QPs take packets from their peer's address only. */
static bool sroce_rx_from_peer(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_av *av = &qp->av;

	if (skb->protocol == htons(ETH_P_IP))
		return !av->ipv6 && ip_hdr(skb)->saddr == av->daddr.v4;
	return av->ipv6 &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &av->daddr.v6);
}

/* Who sent a datagram, on the link, while skb->dev is still ours to read. */
static void sroce_rx_note_link(struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = sroce_rx_cb(skb);

	if (skb_mac_header_was_set(skb) &&
	    skb_mac_header_len(skb) >= ETH_HLEN)
		ether_addr_copy(cb->smac, eth_hdr(skb)->h_source);
	else	/* from this host (sroce_rx_local()): its own address */
		ether_addr_copy(cb->smac, skb->dev->dev_addr);
	cb->vlan = is_vlan_dev(skb->dev);
	cb->vlan_id = cb->vlan ? vlan_dev_vlan_id(skb->dev) : 0;
}

/*
 * A connected QP's peer speaking to it: a CNP or a CE mark may act on the
 * QP only then. Anyone on the path can forge the address, but not without
 * knowing it (and the QPN); a host that is not the peer cannot throttle
 * the QP or make it send CNPs.
 */
static bool sroce_rx_peer_live(struct sroce_qp *qp, struct sk_buff *skb)
{
	switch (sroce_qp_state(qp)) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		return !sroce_qp_is_ud(qp) && sroce_rx_from_peer(qp, skb);
	default:
		return false;
	}
}

/*
 * Receive hands a packet over (@ce: it met congestion on its way);
 * called with a reference on qp.
 */
static void sroce_rx_admit(struct sroce_qp *qp, struct sk_buff *skb,
			   bool request, bool ce)
{
	struct sk_buff_head *fifo = request ? &qp->req_fifo : &qp->resp_fifo;
	enum ib_qp_state state = sroce_qp_state(qp);
	unsigned long flags;
	u32 len, *hwm;

	/* Nothing of a connection that was, nor for one not yet made. */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_ERR) {
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_STATE, 1);
		kfree_skb(skb);
		return;
	}
	if (sroce_qp_is_ud(qp)) {
		sroce_rx_note_link(skb);
	} else if (!sroce_rx_from_peer(qp, skb)) {
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_BAD, 1);
		kfree_skb(skb);
		return;
	}
	/* Before the admission's mark: the pass that follows sends the CNP. */
	if (ce && sroce_rx_peer_live(qp, skb)) {
		atomic64_inc(&qp->cc.ce_rcvd);
		set_bit(SROCE_CC_CE, &qp->cc.flags);
	}
	/*
	 * The packet leaves the IP stack: a request kept past a gap
	 * (sroce_ooo.c) may wait long, and its route or conntrack entry
	 * would hold a netdev or a namespace that is going away.
	 */
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	spin_lock_irqsave(&fifo->lock, flags);
	len = skb_queue_len(fifo);
	if (len >= SROCE_RX_FIFO_LEN) {
		spin_unlock_irqrestore(&fifo->lock, flags);
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_FIFO, 1);
		kfree_skb(skb);
		return;
	}
	__skb_queue_tail(fifo, skb);
	/* The marks are written only when they rise. */
	hwm = request ? &qp->req_fifo_hwm : &qp->resp_fifo_hwm;
	if (++len > *hwm)
		WRITE_ONCE(*hwm, len);
	spin_unlock_irqrestore(&fifo->lock, flags);
	sroce_count_max(qp->sdev, SROCE_CNT_FIFO_HWM, len);
	sroce_task_mark(request ? &qp->rq_task : &qp->sq_task);
}

/*
 * The sroce device the packet arrived for, with a registration reference:
 * the one on the netdev it came in on, else, for a VLAN without a device
 * of its own, the one on the real netdev (whose GID table holds the VLAN's
 * addresses).
 */
static struct sroce_dev *sroce_rx_dev(struct sk_buff *skb)
{
	struct sroce_dev *sdev;

	sdev = sroce_rx_dev_get_rcu(skb->dev);
	if (!sdev && is_vlan_dev(skb->dev))
		sdev = sroce_rx_dev_get_rcu(vlan_dev_real_dev(skb->dev));
	return sdev;
}

/*
 * The ICRC covers the IP header with only some fields masked, so options
 * and extension headers would change it; RoCEv2 packets carry neither.
 */
static bool sroce_rx_ip_ok(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ip_hdr(skb)->ihl == 5;
	if (skb->protocol == htons(ETH_P_IPV6))
		return ipv6_hdr(skb)->nexthdr == IPPROTO_UDP;
	return false;
}

static enum sroce_counter sroce_rx_check(struct sk_buff *skb,
					 struct sroce_pkt *pkt, bool icrc)
{
	u32 ulen, l3len;

	if (!sroce_rx_ip_ok(skb))
		return SROCE_CNT_RX_DROP_IP;
	ulen = ntohs(udp_hdr(skb)->len);
	if (ulen < sizeof(struct udphdr) || ulen > skb->len)
		return SROCE_CNT_RX_DROP_UDP_LEN;
	l3len = skb_network_header_len(skb) + ulen;
	/* rdma_rxe's FLUSH carries an ICRC of its own making: taken too. */
	if (icrc && !sroce_icrc_ok(skb_network_header(skb), l3len) &&
	    !sroce_icrc_rxe_flush_ok(skb_network_header(skb), l3len))
		return SROCE_CNT_RX_DROP_ICRC;
	if (sroce_parse(udp_hdr(skb) + 1, ulen - sizeof(struct udphdr), 0,
			pkt) != SROCE_PARSE_OK)
		return SROCE_CNT_RX_DROP_HDR;
	return SROCE_CNT_RX_PACKETS;
}

/* Did the packet meet a congested queue on its way (RFC 3168)? */
static bool sroce_rx_ce(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

/*
 * A CNP names the QP whose packets met congestion: its send task's next
 * pass cuts the rate (sroce_cc.c), unless the device's reaction point is
 * off (then it was only counted). Only the QP's peer may slow it (a CNP
 * from elsewhere is dropped as rx_drop_bad); datagram QPs keep no rate.
 */
static void sroce_rx_cnp(struct sroce_dev *sdev, struct sk_buff *skb,
			 const struct sroce_pkt *pkt)
{
	struct sroce_qp *qp;

	qp = sroce_rx_qp_get_rcu(sdev, pkt->f.dqpn);
	if (!qp) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_NO_QP, 1);
		return;
	}
	if (!sroce_rx_peer_live(qp, skb)) {
		/* Not from the peer of a connected QP: forged, or stale. */
		sroce_count(sdev, SROCE_CNT_RX_DROP_BAD, 1);
	} else if (READ_ONCE(sdev->cc.rp)) {
		atomic64_inc(&qp->cc.cnp_rcvd);
		set_bit(SROCE_CC_CNP, &qp->cc.flags);
		sroce_task_mark(&qp->sq_task);
	}
	sroce_rx_qp_put(qp);
}

/* The multicast GID a packet was sent to, if it went to a group. */
static bool sroce_rx_mgid(struct sk_buff *skb, union ib_gid *mgid)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		__be32 daddr = ip_hdr(skb)->daddr;

		ipv6_addr_set_v4mapped(daddr, (struct in6_addr *)mgid->raw);
		return ipv4_is_multicast(daddr);
	}
	memcpy(mgid->raw, &ipv6_hdr(skb)->daddr, sizeof(mgid->raw));
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/*
 * A datagram to QPN 0xffffff: a copy, trimmed to BTH..ICRC, to every QP
 * attached to the group it was sent to (sroce_mcast.c). Consumes the skb.
 */
static void sroce_rx_mcast(struct sroce_dev *sdev, struct sk_buff *skb,
			   const struct sroce_pkt *pkt)
{
	const struct sroce_mcg *g;
	struct sk_buff *copy;
	struct sroce_qp *qp;
	union ib_gid mgid;
	u32 i, n = 0;

	if (!sroce_rx_mgid(skb, &mgid) || pkt->info->transport != SROCE_TR_UD) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_BAD, 1);
		goto drop;
	}
	g = sroce_mcast_find_rcu(sdev, &mgid);
	for (i = 0; g && i < g->num_qp; i++) {
		qp = g->qps[i];
		if (!refcount_inc_not_zero(&qp->ref))
			continue;
		copy = skb_clone(skb, GFP_ATOMIC);
		if (!copy) {
			sroce_count(sdev, SROCE_CNT_RX_DROP_NOMEM, 1);
			sroce_rx_qp_put(qp);
			continue;
		}
		trace_sroce_recv(qp->ibqp.qp_num, pkt->f.psn, pkt->f.opcode,
				 pkt->len);
		skb_pull(copy, (const u8 *)pkt->bth - copy->data);
		skb_trim(copy, pkt->len);
		sroce_rx_admit(qp, copy, true, false);
		sroce_rx_qp_put(qp);
		n++;
	}
	if (!n)
		sroce_count(sdev, SROCE_CNT_RX_DROP_NO_QP, 1);
drop:
	kfree_skb(skb);
}

/*
 * Hand a checked packet to its QP, trimmed to BTH..ICRC: requests to the
 * responder, responses to the completer. Consumes the skb.
 */
static void sroce_rx_deliver(struct sroce_dev *sdev, struct sk_buff *skb,
			     const struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info = pkt->info;
	struct sroce_qp *qp;
	bool ce;

	if (info->transport == SROCE_TR_CNP) {
		sroce_count(sdev, SROCE_CNT_RX_CNP, 1);
		sroce_rx_cnp(sdev, skb, pkt);
		goto drop;
	}
	ce = sroce_rx_ce(skb);
	if (ce)
		sroce_count(sdev, SROCE_CNT_RX_ECN_CE, 1);
	if (pkt->f.dqpn == SROCE_MCAST_QPN) {
		sroce_rx_mcast(sdev, skb, pkt);
		return;
	}
	qp = sroce_rx_qp_get_rcu(sdev, pkt->f.dqpn);
	if (!qp) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_NO_QP, 1);
		goto drop;
	}
	/*
	 * A connected QP's packets carry its partition's P_Key; a datagram
	 * QP checks its own with the Q_Key (sroce_ud.c).
	 */
	if (!sroce_qp_is_ud(qp) && !sroce_pkey_match(pkt->f.pkey)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_BAD, 1);
		sroce_rx_qp_put(qp);
		goto drop;
	}
	trace_sroce_recv(pkt->f.dqpn, pkt->f.psn, pkt->f.opcode, pkt->len);
	skb_pull(skb, (const u8 *)pkt->bth - skb->data);
	skb_trim(skb, pkt->len);
	sroce_rx_admit(qp, skb, info->flags & SROCE_OPF_REQ, ce);
	sroce_rx_qp_put(qp);
	return;
drop:
	kfree_skb(skb);
}

/*
 * A packet from the UDP socket, or from sroce_rx_local() (@icrc: it has
 * one to check); consumes it.
 */
static void sroce_rx_one(struct sk_buff *skb, bool icrc)
{
	enum sroce_counter verdict;
	struct sroce_dev *sdev;
	struct sroce_pkt pkt;

	sdev = sroce_rx_dev(skb);
	if (!sdev)
		goto drop;
	/* The parser and the ICRC want the packet in one piece. */
	if (skb_linearize(skb)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_NOMEM, 1);
		goto put;
	}
	verdict = sroce_rx_check(skb, &pkt, icrc);
	if (verdict != SROCE_CNT_RX_PACKETS) {
		sroce_count(sdev, verdict, 1);
		goto put;
	}
	sroce_count(sdev, SROCE_CNT_RX_PACKETS, 1);
	sroce_count(sdev, SROCE_CNT_RX_BYTES, pkt.len);
	sroce_rx_deliver(sdev, skb, &pkt);
	ib_device_put(&sdev->ibdev);
	return;
put:
	ib_device_put(&sdev->ibdev);
drop:
	kfree_skb(skb);
}

/*
 * A packet for an address of this host, built by sroce_tx() in a pass: it
 * enters receive as if the netdev that has the address had received it,
 * with its ICRC checked if it has one (@icrc). The pass runs in a section,
 * so the destination QP is only marked and runs after the pass, never
 * inside it.
 */
void sroce_rx_local(struct sk_buff *skb, struct net_device *ndev, bool icrc)
{
	WARN_ON_ONCE(!sroce_sched_in_section());
	skb->dev = ndev;
	skb->pkt_type = PACKET_HOST;
	skb_pull(skb, skb_transport_offset(skb));
	rcu_read_lock();
	sroce_rx_one(skb, icrc);
	rcu_read_unlock();
}

/* A packet from the UDP socket; consumes it. */
void sroce_rx_packet(struct sk_buff *skb)
{
	sroce_rx_one(skb, true);
}
