// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: the RoCEv2 UDP port.
 *
 * Each network namespace with at least one sroce device has a pair of
 * kernel UDP sockets (IPv4, IPv6) bound to port 4791 with an encap_rcv
 * hook, shared by the devices there. Only one RoCEv2 stack can own the
 * port in a namespace: with rdma_rxe loaded, adding an sroce device in the
 * same namespace fails with EADDRINUSE. The hook is receive's entry point
 * (sroce_rx.c).
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
#include "net/sroce_rx.h"
#include "core/sroce_sock.h"
#include "sched/sroce_task.h"
#include "proto/hdr.h"

static LIST_HEAD(sroce_socks);
static DEFINE_MUTEX(sroce_socks_lock);
static DECLARE_WAIT_QUEUE_HEAD(sroce_socks_gone);

/*
 * UDP encap_rcv, in softirq: 0 means the packet is ours (consumed). The
 * QP it is for runs at the end of the section, here, without a hop.
 */
static int sroce_sock_rcv(struct sock *sk, struct sk_buff *skb)
{
	sroce_sched_enter();
	sroce_rx_packet(skb);
	sroce_sched_leave();
	return 0;
}

static int sroce_sock_open(struct net *net, bool ipv6, struct socket **out)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = sroce_sock_rcv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(SROCE_UDP_DPORT),
	};
	int ret, on = 1;

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
	/*
	 * Tunnels turn IPv4 multicast loopback off; a group's packets must
	 * also reach the QPs of this host attached to it (sroce_mcast.c).
	 */
	if (!ipv6)
		ret = (*out)->ops->setsockopt(*out, SOL_IP, IP_MULTICAST_LOOP,
					      KERNEL_SOCKPTR(&on), sizeof(on));
	if (ret)
		udp_tunnel_sock_release(*out);
	return ret;
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

int sroce_sock_get(struct net *net, struct sroce_sock **out)
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

void sroce_sock_put(struct sroce_sock *s)
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

static bool sroce_sock_in_use(struct net *net)
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
	while (sroce_sock_in_use(net))
		wait_woken(&wait, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
	remove_wait_queue(&sroce_socks_gone, &wait);
}

static struct pernet_operations sroce_pernet_ops = {
	.exit = sroce_pernet_exit,
};

int sroce_sock_init(void)
{
	return register_pernet_subsys(&sroce_pernet_ops);
}

void sroce_sock_exit(void)
{
	unregister_pernet_subsys(&sroce_pernet_ops);
}
