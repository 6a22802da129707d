/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The RoCEv2 UDP sockets of a namespace: sroce_sock.c. */
#ifndef SROCE_SOCK_H
#define SROCE_SOCK_H

#include <linux/net.h>
#include <net/net_namespace.h>

struct sroce_sock {
	struct list_head list;
	struct net *net;
	struct socket *sk4;
	struct socket *sk6;	/* NULL when IPv6 is disabled */
	unsigned int users;	/* sroce devices in the namespace */
};

static inline struct sock *sroce_sock_sk(struct sroce_sock *s, bool ipv6)
{
	if (ipv6)
		return s->sk6 ? s->sk6->sk : NULL;
	return s->sk4->sk;
}

int sroce_sock_get(struct net *net, struct sroce_sock **out);
void sroce_sock_put(struct sroce_sock *s);
int sroce_sock_init(void);
void sroce_sock_exit(void);

#endif /* SROCE_SOCK_H */
