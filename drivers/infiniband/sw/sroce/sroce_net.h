/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <net/net_namespace.h>

struct sroce_sock;

int sroce_net_get(struct net *net, struct sroce_sock **out);
void sroce_net_put(struct sroce_sock *s);
int sroce_net_init(void);
void sroce_net_exit(void);
struct sock *sroce_net_sk(struct sroce_sock *s, bool ipv6);
struct net *sroce_net_of(struct sroce_sock *s);

#endif /* SROCE_NET_H */
