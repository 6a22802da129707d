/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <linux/hashtable.h>
#include <linux/mutex.h>

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;

/* rdma_rxe's figures, so that nothing that runs there fails here. */
#define SROCE_MAX_MCAST_GRP		8192
#define SROCE_MAX_MCAST_QP_ATTACH	56
#define SROCE_MAX_TOTAL_MCAST_QP_ATTACH	(SROCE_MAX_MCAST_GRP * \
					 SROCE_MAX_MCAST_QP_ATTACH)

/*
 * A multicast group and the QPs attached to it. Never changed once
 * published: attach and detach publish a new copy (RCU), so receive reads
 * a consistent list without a lock.
 */
struct sroce_mcg {
	struct hlist_node node;
	struct rcu_head rcu;
	union ib_gid mgid;
	u32 num_qp;
	struct sroce_qp *qps[];
};

/* A device's multicast groups (sroce_mcast.c). */
struct sroce_mcast_table {
	/* Serializes attach and detach; receive reads under RCU. */
	struct mutex lock;
	DECLARE_HASHTABLE(groups, 6);
	u32 num_groups;
	u32 num_attached;
};

void sroce_mcast_table_init(struct sroce_mcast_table *t);
void sroce_mcast_table_destroy(struct sroce_mcast_table *t);
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sroce_mcast_qp_gone(struct sroce_qp *qp);
const struct sroce_mcg *sroce_mcast_find_rcu(struct sroce_dev *sdev,
					     const union ib_gid *mgid);

#endif
