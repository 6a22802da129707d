// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: datagrams, for UD QPs and the GSI QP (QP1, through which the
 * RDMA core's MAD layer, and so the CM, talks to other nodes).
 *
 * A UD message is one packet, at most the port's MTU, with a DETH that
 * names the Q_Key and the sending QP. Nothing acknowledges it: the
 * requester completes a send once its packet left (as the wire may drop
 * it, the consumer's protocol recovers), and keeps the completer's PSN
 * with its own, so the window never fills and no ACK timer runs.
 *
 * The responder takes a packet only if its Q_Key is the QP's and its
 * P_Key the port's, and only into a posted receive that holds it: a
 * datagram that finds none, or one too small, is dropped and counted (no
 * RNR NAK on UD; a length error is silently dropped, responder class D
 * of IBTA 9.9.3, so a sender cannot end a QP it may only send datagrams
 * to) and the receive waits for the next one. The receive buffer gets
 * the 40-byte GRH area first, as IBTA 11.4.1.2 lays it out for RoCE: the
 * IPv6 header, or for IPv4 20 bytes of zeros and the IPv4 header, which is
 * where the RDMA core looks for the addresses (ib_init_ah_from_wc()).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "sroce.h"
#include "core/sroce_ah.h"
#include "core/sroce_qp.h"
#include "engine/sroce_engine.h"
#include "engine/sroce_svc.h"
#include "net/sroce_net.h"
#include "obs/sroce_trace.h"

/* The GRH area at the start of every UD receive buffer. */
#define SROCE_GRH_LEN		40
/* A Q_Key with this bit set is controlled: the QP's own is used instead. */
#define SROCE_QKEY_CONTROLLED	0x80000000u

/* The largest datagram: the port's MTU, from the netdev's. */
static u32 sroce_ud_mtu(struct sroce_dev *sdev)
{
	enum ib_mtu mtu = iboe_get_mtu(READ_ONCE(sdev->ndev->mtu));

	return ib_mtu_enum_to_int(mtu ? mtu : IB_MTU_256);
}

/*
 * The datagram's part of checking a send WQE, its length known: it fits
 * one packet, and it has a destination (for libsroce's WQEs, its AH's
 * vector, looked up now; a kernel post wrote it with the WQE).
 */
int sroce_ud_check(struct sroce_qp *qp, struct sroce_swqe *s)
{
	u32 dqpn = s->h.ud.remote_qpn & SROCE_QPN_MASK;

	if (s->length > sroce_ud_mtu(qp->sdev))
		return IB_WC_LOC_LEN_ERR;
	if (qp->is_user &&
	    sroce_ah_get_av(qp->sdev, s->h.ud.ah, qp->pd, &s->av))
		return IB_WC_LOC_QP_OP_ERR;
	/* Each QP pair its own flow, as for RC, unless the AH names one. */
	if (!s->av.flow_label)
		s->av.flow_label = sroce_flow_label(qp->ibqp.qp_num, dqpn);
	s->av.sport = sroce_udp_sport(s->av.flow_label);
	return IB_WC_SUCCESS;
}

/* Send the datagram of @s; it completes now. Returns what @fill returned. */
int sroce_ud_packet(struct sroce_qp *qp, struct sroce_swqe *s,
		    sroce_fill_fn fill, void *priv)
{
	const struct sroce_send_wqe *h = &s->h;
	bool imm = h->opcode == IB_WR_SEND_WITH_IMM;
	struct sroce_fields f = {
		.opcode = imm ? SROCE_OPCODE(UD, SEND_ONLY_IMM) :
				SROCE_OPCODE(UD, SEND_ONLY),
		.pkey = SROCE_DEFAULT_PKEY,
		.dqpn = h->ud.remote_qpn & SROCE_QPN_MASK,
		.psn = s->first_psn,
		.se = h->send_flags & IB_SEND_SOLICITED,
		.imm = h->ex.imm_data,
	};
	int ret;

	f.deth.qkey = h->ud.remote_qkey & SROCE_QKEY_CONTROLLED ?
		      qp->attr.qkey : h->ud.remote_qkey;
	f.deth.sqpn = qp->ibqp.qp_num;
	ret = sroce_tx_to(qp, &s->av, NULL, &f, s->length, fill, priv);
	if (ret)
		return ret;
	qp->req.off = s->length;
	sroce_sq_done(s, IB_WC_SUCCESS);
	/* Nothing will acknowledge it: nothing is outstanding. */
	qp->comp.psn = qp->req.psn;
	return 0;
}

/* The 40-byte GRH area of a datagram that came in as @skb. */
static void sroce_ud_grh(struct sk_buff *skb, u8 *grh, u8 *net_type)
{
	memset(grh, 0, SROCE_GRH_LEN);
	if (skb->protocol == htons(ETH_P_IP)) {
		memcpy(grh + SROCE_GRH_LEN - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
		*net_type = RDMA_NETWORK_IPV4;
	} else {
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
		*net_type = RDMA_NETWORK_IPV6;
	}
}

/*
 * Who sent it, on the link, as receive noted it: the CM finds the GID the
 * datagram was sent to by its VLAN.
 */
static void sroce_ud_link(struct sk_buff *skb, struct sroce_cqe *cqe)
{
	const struct sroce_rx_cb *cb = sroce_rx_cb(skb);

	ether_addr_copy(cqe->smac, cb->smac);
	if (cb->vlan) {
		cqe->vlan_id = cb->vlan_id;
		cqe->flags |= SROCE_CQE_WITH_VLAN;
	}
}

/* What the receive WQE taken can hold, in bytes. */
static u64 sroce_ud_rwqe_len(struct sroce_qp *qp)
{
	u32 i, n = min(qp->resp.rwqe.num_sge, qp->rq_max_sge);
	u64 len = 0;

	for (i = 0; i < n; i++)
		len += qp->resp.rsge[i].length;
	return len;
}

/*
 * The receive WQE taken fails (a local error: its SGEs are bad): its
 * completion carries @status, and the QP goes to ERR, as for any receive
 * that completes in error.
 */
static void sroce_ud_recv_fail(struct sroce_qp *qp, u8 status)
{
	struct sroce_cqe cqe = {
		.wr_id = qp->resp.rwqe.wr_id,
		.status = status,
		.opcode = IB_WC_RECV,
	};

	qp->resp.have_rwqe = false;
	sroce_svc_error(qp, 0);
	sroce_svc_complete(qp, true, &cqe, false);
}

static void sroce_ud_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_cqe cqe = {
		.opcode = IB_WC_RECV,
		.flags = SROCE_CQE_GRH,
	};
	struct sroce_access acc = {
		.pd = qp->pd, .rights = IB_ACCESS_LOCAL_WRITE,
	};
	u8 grh[SROCE_GRH_LEN];
	struct sroce_pkt pkt;
	int ret;

	if (sroce_parse(skb->data, skb->len, 0, &pkt) != SROCE_PARSE_OK ||
	    pkt.info->transport != SROCE_TR_UD ||
	    !sroce_pkey_match(pkt.f.pkey)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_BAD, 1);
		return;
	}
	if (pkt.f.deth.qkey != qp->attr.qkey) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_QKEY, 1);
		return;
	}
	/*
	 * Hostile or broken senders must not end QP1, and with it the CM of
	 * the whole device: a MAD that does not fit is dropped there.
	 */
	if (qp->ibqp.qp_type == IB_QPT_GSI &&
	    pkt.pay_len > IB_MGMT_MAD_SIZE) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_BAD, 1);
		return;
	}
	if (!sroce_rq_take(qp)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_NO_RECV, 1);
		return;
	}
	if (qp->resp.rwqe.num_sge > qp->rq_max_sge) {
		sroce_ud_recv_fail(qp, IB_WC_LOC_QP_OP_ERR);
		return;
	}
	if (SROCE_GRH_LEN + pkt.pay_len > sroce_ud_rwqe_len(qp)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_LEN, 1);
		return;
	}
	sroce_ud_grh(skb, grh, &cqe.network_hdr_type);
	acc.len = sizeof(grh);
	ret = sroce_sge_copy(sdev, &acc, qp->resp.rsge, qp->resp.rwqe.num_sge,
			     0, grh, NULL);
	acc.len = pkt.pay_len;
	if (!ret)
		ret = sroce_sge_copy(sdev, &acc, qp->resp.rsge,
				     qp->resp.rwqe.num_sge, sizeof(grh),
				     (void *)(pkt.bth + pkt.pay_off), NULL);
	if (ret) {
		sroce_ud_recv_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	cqe.wr_id = qp->resp.rwqe.wr_id;
	cqe.byte_len = sizeof(grh) + pkt.pay_len;
	cqe.src_qp = pkt.f.deth.sqpn;
	if (pkt.info->exts & SROCE_HAS(IMMDT)) {
		cqe.flags |= SROCE_CQE_WITH_IMM;
		cqe.imm_data = pkt.f.imm;
	}
	sroce_ud_link(skb, &cqe);
	qp->resp.have_rwqe = false;
	sroce_svc_complete(qp, true, &cqe, pkt.f.se);
}

void sroce_ud_resp_run(struct sroce_qp *qp, int *budget)
{
	struct sk_buff *skb;

	while (*budget > 0 && sroce_qp_state(qp) != IB_QPS_ERR &&
	       (skb = sroce_fifo_take(&qp->req_fifo))) {
		sroce_ud_recv(qp, skb);
		consume_skb(skb);
		(*budget)--;
	}
}
