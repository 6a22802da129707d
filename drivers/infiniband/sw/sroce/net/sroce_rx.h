/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Receive, the QPN table and receive's device list: sroce_rx.c. */
#ifndef SROCE_RX_H
#define SROCE_RX_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

struct sroce_dev;
struct sroce_qp;

void sroce_rx_table_init(struct sroce_dev *sdev);
void sroce_rx_table_destroy(struct sroce_dev *sdev);
int sroce_rx_qpn_add(struct sroce_qp *qp);
void sroce_rx_qpn_del(struct sroce_qp *qp);
void sroce_rx_qpn_free(struct sroce_qp *qp);
/* Process context: add before registration, del from dealloc_driver. */
void sroce_rx_dev_add(struct sroce_dev *sdev);
void sroce_rx_dev_del(struct sroce_dev *sdev);
void sroce_rx_packet(struct sk_buff *skb);
void sroce_rx_local(struct sk_buff *skb, struct net_device *ndev, bool icrc);

#endif /* SROCE_RX_H */
