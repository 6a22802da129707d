// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the RoCEv2 UDP port and the first stage of receive.
 *
 * Each network namespace with at least one sroce device has a pair of
 * kernel UDP sockets (IPv4, IPv6) bound to port 4791 with an encap_rcv
 * hook, shared by the devices there. Only one RoCEv2 stack can own the
 * port in a namespace: with rdma_rxe loaded, adding an sroce device in the
 * same namespace fails with EADDRINUSE.
 *
 * Receive runs in softirq: find the device by the netdev the packet came
 * in on, check the IP and UDP framing, the ICRC and the transport headers,
 * then hand the packet on by destination QP (sroce_qp_rx()), whose engines
 * take it from there. Every drop is counted.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_vlan.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "proto/icrc.h"
#include "proto/parse.h"

struct sroce_sock {
	struct list_head list;
	struct net *net;
	struct socket *sk4;
	struct socket *sk6;	/* NULL when IPv6 is disabled */
	unsigned int users;	/* sroce devices in the namespace */
};

static LIST_HEAD(sroce_socks);
static DEFINE_MUTEX(sroce_socks_lock);
static DECLARE_WAIT_QUEUE_HEAD(sroce_socks_gone);

/*
 * The sroce device the packet arrived for, with a registration reference:
 * the one on the netdev it came in on, else, for a VLAN without a device
 * of its own, the one on the real netdev (whose GID table holds the VLAN's
 * addresses).
 */
static struct sroce_dev *sroce_rx_dev(struct sk_buff *skb)
{
	struct sroce_dev *sdev;

	sdev = sroce_dev_get_by_netdev_rcu(skb->dev);
	if (!sdev && is_vlan_dev(skb->dev))
		sdev = sroce_dev_get_by_netdev_rcu(vlan_dev_real_dev(skb->dev));
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
					 struct sroce_pkt *pkt)
{
	u32 ulen, l3len;

	if (!sroce_rx_ip_ok(skb))
		return SROCE_CNT_RX_DROP_IP;
	ulen = ntohs(udp_hdr(skb)->len);
	if (ulen < sizeof(struct udphdr) || ulen > skb->len)
		return SROCE_CNT_RX_DROP_UDP_LEN;
	l3len = skb_network_header_len(skb) + ulen;
	if (!sroce_icrc_ok(skb_network_header(skb), l3len))
		return SROCE_CNT_RX_DROP_ICRC;
	if (sroce_parse(udp_hdr(skb) + 1, ulen - sizeof(struct udphdr), 0,
			pkt) != SROCE_PARSE_OK)
		return SROCE_CNT_RX_DROP_HDR;
	return SROCE_CNT_RX_PACKETS;
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

	if (info->transport == SROCE_TR_CNP) {
		/* Congestion control (the reaction point) is not built yet. */
		sroce_count(sdev, SROCE_CNT_RX_CNP, 1);
		goto drop;
	}
	qp = sroce_qp_get_rcu(sdev, pkt->f.dqpn);
	if (!qp) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_NO_QP, 1);
		goto drop;
	}
	skb_pull(skb, (const u8 *)pkt->bth - skb->data);
	skb_trim(skb, pkt->len);
	sroce_qp_rx(qp, skb, info->flags & SROCE_OPF_REQ);
	sroce_qp_put(qp);
	return;
drop:
	kfree_skb(skb);
}

/* UDP encap_rcv: 0 means the packet is ours (consumed or dropped). */
static int sroce_udp_recv(struct sock *sk, struct sk_buff *skb)
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
	verdict = sroce_rx_check(skb, &pkt);
	if (verdict != SROCE_CNT_RX_PACKETS) {
		sroce_count(sdev, verdict, 1);
		goto put;
	}
	sroce_count(sdev, SROCE_CNT_RX_PACKETS, 1);
	sroce_count(sdev, SROCE_CNT_RX_BYTES, pkt.len);
	sroce_rx_deliver(sdev, skb, &pkt);
	ib_device_put(&sdev->ibdev);
	return 0;
put:
	ib_device_put(&sdev->ibdev);
drop:
	kfree_skb(skb);
	return 0;
}

/*
 * A packet for an address of this host, built by sroce_tx(): it enters
 * receive as if the netdev that has the address had received it, in the
 * context receive has (softirq, under RCU).
 */
void sroce_rx_local(struct sk_buff *skb, struct net_device *ndev)
{
	skb->dev = ndev;
	skb->pkt_type = PACKET_HOST;
	skb_pull(skb, skb_transport_offset(skb));
	local_bh_disable();
	rcu_read_lock();
	sroce_udp_recv(NULL, skb);
	rcu_read_unlock();
	local_bh_enable();
}

struct net *sroce_net_of(struct sroce_sock *s)
{
	return s->net;
}

struct sock *sroce_net_sk(struct sroce_sock *s, bool ipv6)
{
	if (ipv6)
		return s->sk6 ? s->sk6->sk : NULL;
	return s->sk4->sk;
}

static int sroce_sock_open(struct net *net, bool ipv6, struct socket **out)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(SROCE_UDP_DPORT),
	};
	int ret;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
	} else {
		cfg.family = AF_INET;
	}
	ret = udp_sock_create(net, &cfg, out);
	if (ret)
		return ret;
	setup_udp_tunnel_sock(net, *out, &tcfg);
	return 0;
}

static struct sroce_sock *sroce_sock_create(struct net *net)
{
	struct sroce_sock *s;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->net = net;
	ret = sroce_sock_open(net, false, &s->sk4);
	if (ret)
		goto err;
	ret = sroce_sock_open(net, true, &s->sk6);
	if (ret == -EAFNOSUPPORT || ret == -EPFNOSUPPORT) {
		s->sk6 = NULL;	/* IPv6 disabled: IPv4 only */
	} else if (ret) {
		udp_tunnel_sock_release(s->sk4);
		goto err;
	}
	return s;
err:
	kfree(s);
	if (ret == -EADDRINUSE)
		pr_warn_ratelimited("sroce: UDP port %d is taken (rdma_rxe loaded?)\n",
				    SROCE_UDP_DPORT);
	return ERR_PTR(ret);
}

int sroce_net_get(struct net *net, struct sroce_sock **out)
{
	struct sroce_sock *s;
	int ret = 0;

	mutex_lock(&sroce_socks_lock);
	list_for_each_entry(s, &sroce_socks, list)
		if (s->net == net)
			goto found;
	s = sroce_sock_create(net);
	if (IS_ERR(s)) {
		ret = PTR_ERR(s);
		goto out;
	}
	list_add(&s->list, &sroce_socks);
found:
	s->users++;
	*out = s;
out:
	mutex_unlock(&sroce_socks_lock);
	return ret;
}

void sroce_net_put(struct sroce_sock *s)
{
	bool last;

	mutex_lock(&sroce_socks_lock);
	last = --s->users == 0;
	if (last)
		list_del(&s->list);
	mutex_unlock(&sroce_socks_lock);
	if (!last)
		return;
	if (s->sk6)
		udp_tunnel_sock_release(s->sk6);
	udp_tunnel_sock_release(s->sk4);
	kfree(s);
	wake_up(&sroce_socks_gone);
}

static bool sroce_net_in_use(struct net *net)
{
	struct sroce_sock *s;
	bool used = false;

	mutex_lock(&sroce_socks_lock);
	list_for_each_entry(s, &sroce_socks, list)
		used |= s->net == net;
	mutex_unlock(&sroce_socks_lock);
	return used;
}

/*
 * A dying namespace has already unregistered or moved out its netdevs, so
 * the removal of their sroce devices is under way; the sockets must be
 * gone before the namespace's memory is.
 */
static void __net_exit sroce_pernet_exit(struct net *net)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	/* wait_woken(): the condition takes a mutex, so it may sleep. */
	add_wait_queue(&sroce_socks_gone, &wait);
	while (sroce_net_in_use(net))
		wait_woken(&wait, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
	remove_wait_queue(&sroce_socks_gone, &wait);
}

static struct pernet_operations sroce_pernet_ops = {
	.exit = sroce_pernet_exit,
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_pernet_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_pernet_ops);
}
