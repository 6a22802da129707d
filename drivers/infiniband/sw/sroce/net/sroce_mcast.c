// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: multicast groups, for UD QPs (attach_mcast, detach_mcast).
 *
 * A RoCEv2 multicast GID is an IP multicast address (IPv4-mapped, or an
 * IPv6 one), and the packets of the group travel as IP multicast to UDP
 * port 4791 with destination QPN 0xffffff. So the netdev must take them:
 * the first QP attached to a group joins it on the netdev (IGMP or MLD,
 * and the link-layer filter with it), the last one detached leaves. The
 * RDMA CM joins for its own users as well; the stack counts both. With
 * the host a member, the IP stack also loops a group's packets sent from
 * this host back to it (as for any multicast socket), so every attached
 * QP here gets them, the sender's own QP included.
 *
 * Receive finds the group by the packet's destination address and hands
 * a copy to each QP attached (sroce_rx.c). A group's QP list is never
 * changed in place: attach and detach publish a new group and free the
 * old one after a grace period, so receive needs no lock.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "net/sroce_mcast.h"
#include "core/sroce_qp.h"

void sroce_mcast_table_init(struct sroce_mcast_table *t)
{
	mutex_init(&t->lock);
	hash_init(t->groups);
	t->num_groups = 0;
	t->num_attached = 0;
}

/* Every QP detached itself when it was destroyed. */
void sroce_mcast_table_destroy(struct sroce_mcast_table *t)
{
	WARN_ON(t->num_groups);
	mutex_destroy(&t->lock);
}

static u64 sroce_mcast_hash(const union ib_gid *mgid)
{
	return (__force u64)mgid->global.subnet_prefix ^
	       (__force u64)mgid->global.interface_id;
}

const struct sroce_mcg *sroce_mcast_find_rcu(struct sroce_dev *sdev,
					     const union ib_gid *mgid)
{
	struct sroce_mcg *g;

	hash_for_each_possible_rcu(sdev->mcast.groups, g, node,
				   sroce_mcast_hash(mgid))
		if (!memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

static struct sroce_mcg *sroce_mcast_find(struct sroce_dev *sdev,
					  const union ib_gid *mgid)
{
	struct sroce_mcg *g;

	lockdep_assert_held(&sdev->mcast.lock);
	hash_for_each_possible(sdev->mcast.groups, g, node,
			       sroce_mcast_hash(mgid))
		if (!memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

/* An IPv4-mapped IPv4 multicast address, or an IPv6 multicast address. */
static bool sroce_mcast_gid_ok(const union ib_gid *mgid)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

/* Join (@join) or leave the group on the netdev, as a socket would. */
static int sroce_mcast_netdev(struct sroce_dev *sdev,
			      const union ib_gid *mgid, bool join)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int ret = 0;

	rtnl_lock();
	if (!ipv6_addr_v4mapped(a)) {
		ret = join ? ipv6_dev_mc_inc(sdev->ndev, a) :
			     ipv6_dev_mc_dec(sdev->ndev, a);
	} else {
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (!in_dev)
			ret = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, a->s6_addr32[3]);
		else
			ip_mc_dec_group(in_dev, a->s6_addr32[3]);
	}
	rtnl_unlock();
	return ret;
}

/*
 * @old with @add attached or @del detached (old may be NULL), to be
 * published in its place.
 */
static struct sroce_mcg *sroce_mcg_copy(const struct sroce_mcg *old,
					const union ib_gid *mgid,
					struct sroce_qp *add,
					struct sroce_qp *del, gfp_t gfp)
{
	u32 i, n = old ? old->num_qp : 0;
	struct sroce_mcg *g;

	g = kzalloc(struct_size(g, qps, n + !!add), gfp);
	if (!g)
		return NULL;
	g->mgid = *mgid;
	for (i = 0; i < n; i++)
		if (old->qps[i] != del)
			g->qps[g->num_qp++] = old->qps[i];
	if (add)
		g->qps[g->num_qp++] = add;
	return g;
}

static void sroce_mcg_replace(struct sroce_mcg *old, struct sroce_mcg *g)
{
	hlist_replace_rcu(&old->node, &g->node);
	kfree_rcu(old, rcu);
}

static bool sroce_mcg_has(const struct sroce_mcg *g, struct sroce_qp *qp)
{
	u32 i;

	for (i = 0; i < g->num_qp; i++)
		if (g->qps[i] == qp)
			return true;
	return false;
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcg *old, *g;
	int ret = 0;

	if (ibqp->qp_type != IB_QPT_UD || !sroce_mcast_gid_ok(gid))
		return -EINVAL;
	mutex_lock(&t->lock);
	old = sroce_mcast_find(sdev, gid);
	if (old && sroce_mcg_has(old, qp))
		goto out;	/* attached already: nothing changes */
	if (t->num_attached >= SROCE_MAX_TOTAL_MCAST_QP_ATTACH ||
	    (old && old->num_qp >= SROCE_MAX_MCAST_QP_ATTACH) ||
	    (!old && t->num_groups >= SROCE_MAX_MCAST_GRP)) {
		ret = -ENOMEM;
		goto out;
	}
	g = sroce_mcg_copy(old, gid, qp, NULL, GFP_KERNEL);
	if (!g) {
		ret = -ENOMEM;
		goto out;
	}
	if (old) {
		sroce_mcg_replace(old, g);
	} else {
		ret = sroce_mcast_netdev(sdev, gid, true);
		if (ret) {
			kfree(g);
			goto out;
		}
		hash_add_rcu(t->groups, &g->node, sroce_mcast_hash(gid));
		t->num_groups++;
	}
	t->num_attached++;
	qp->num_mcast++;
out:
	mutex_unlock(&t->lock);
	return ret;
}

/* Detach @qp from @old, under the table's lock. */
static int sroce_mcast_del(struct sroce_dev *sdev, struct sroce_mcg *old,
			   struct sroce_qp *qp, gfp_t gfp)
{
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcg *g;

	lockdep_assert_held(&t->lock);
	if (old->num_qp == 1) {
		hash_del_rcu(&old->node);
		t->num_groups--;
		/* Gone from receive now; leaving the group may fail alone. */
		sroce_mcast_netdev(sdev, &old->mgid, false);
		kfree_rcu(old, rcu);
	} else {
		g = sroce_mcg_copy(old, &old->mgid, NULL, qp, gfp);
		if (!g)
			return -ENOMEM;
		sroce_mcg_replace(old, g);
	}
	t->num_attached--;
	qp->num_mcast--;
	return 0;
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcg *old;
	int ret = -EINVAL;

	mutex_lock(&sdev->mcast.lock);
	old = sroce_mcast_find(sdev, gid);
	if (old && sroce_mcg_has(old, qp))
		ret = sroce_mcast_del(sdev, old, qp, GFP_KERNEL);
	mutex_unlock(&sdev->mcast.lock);
	return ret;
}

/*
 * @qp is being destroyed: out of every group it is still in. The core
 * refuses to destroy an attached QP (each attach holds it) and uverbs
 * detaches a process's QPs on cleanup, so this is a guard: a QP in a group
 * must never outlive its memory. Receive may still hold it in a copy it
 * reads; the caller waits for that.
 */
void sroce_mcast_qp_gone(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcg *g;
	struct hlist_node *tmp;
	int bkt;

	mutex_lock(&sdev->mcast.lock);
	hash_for_each_safe(sdev->mcast.groups, bkt, tmp, g, node) {
		/* It must go before its memory does: the copy cannot fail. */
		if (qp->num_mcast && sroce_mcg_has(g, qp))
			sroce_mcast_del(sdev, g, qp, GFP_KERNEL | __GFP_NOFAIL);
	}
	mutex_unlock(&sdev->mcast.lock);
}
