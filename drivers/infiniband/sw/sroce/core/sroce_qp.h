/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Queue pairs and their engines. A run of a QP's engines takes them in
 * turn: the completer (responses from the wire), the responder (requests
 * from the wire) and the requester (the send queue). Runs of one QP never
 * overlap, so the engine state below needs no lock. The responder's
 * fields (resp) are its own; the requester's (req) and the completer's
 * (comp), with the private WQE copies, are the send queue's bookkeeping,
 * which both engines change through sroce_sq.c. The engines reach the QP
 * through sroce_svc.c only. Receive (softirq) hands packets over through
 * two bounded FIFOs.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/etherdevice.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "objects/sroce_queue.h"
#include "sched/sroce_task.h"
#include "proto/parse.h"
#include "model/rtt.h"
#include "net/sroce_net.h"

struct sroce_ooo;	/* engine/sroce_ooo.c */

/* Where packets go and how they are addressed, fixed at RTR. */
struct sroce_av {
	bool ipv6;
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
	int ifindex;		/* the source GID's netdev */
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
	u16 sport;
};

/* The requester's and completer's view of a send WQE. */
enum sroce_swqe_state {
	SROCE_SWQE_NEW,		/* copied from the ring, not yet sent */
	SROCE_SWQE_SENDING,	/* has PSNs, not every packet sent */
	SROCE_SWQE_SENT,	/* every packet sent, waiting for the peer */
	SROCE_SWQE_DONE,	/* status final; the completer retires it */
};

/*
 * The kernel's private copy of a send WQE, taken before validation. The
 * SGEs or inline bytes follow; never read back from the shared ring.
 */
struct sroce_swqe {
	struct sroce_send_wqe h;
	u64 length;		/* total bytes */
	u32 first_psn;
	u32 npsn;		/* PSNs it takes (reads: its responses) */
	u8 state;		/* enum sroce_swqe_state */
	u8 status;		/* enum ib_wc_status once DONE */
	u8 wc_opcode;		/* enum ib_wc_opcode */
	bool signaled;
	/*
	 * UD: the destination, from the AH. A kernel post writes it with the
	 * ring slot; for libsroce the requester looks the AH up on fetch.
	 */
	struct sroce_av av;
	union {
		DECLARE_FLEX_ARRAY(struct sroce_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inl);
	};
};

/* What a responder resource answered, so a duplicate gets the same. */
enum sroce_res_kind {
	SROCE_RES_READ,		/* read responses, read again */
	SROCE_RES_ATOMIC,	/* an atomic ACK with the saved value */
	SROCE_RES_EMPTY,	/* FLUSH, ATOMIC WRITE: an empty read response */
};

/* A responder's saved read, atomic, FLUSH or ATOMIC WRITE. */
struct sroce_rd_res {
	bool valid;
	u8 kind;		/* enum sroce_res_kind */
	u32 first_psn;
	u32 last_psn;
	u64 va;
	u32 rkey;
	u32 len;
	u64 orig;		/* atomic: the value returned */
	u8 syndrome;		/* atomic: the AETH sent */
	u32 msn;
	/* Read responses still to send: from next_psn to last_psn. */
	bool active;
	u32 next_psn;
};

struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_dev *sdev;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	bool is_user;
	bool sig_all;
	/* Groups attached to; under the device's mcast.lock. */
	u32 num_mcast;
	/* It bound a type 2B window once: destroy looks for its windows. */
	bool bound_mw2;
	/* Congestion control: CE marks pending, CNPs sent (sroce_cc.c). */
	struct sroce_qp_cc cc;
	/* Lookup by QPN: RCU + ref; destroy waits on done. */
	refcount_t ref;
	struct completion done;

	/* Serializes modify and query. */
	struct mutex modify_lock;
	/* Guards state changes; the engines read state with READ_ONCE. */
	spinlock_t state_lock;
	enum ib_qp_state state;
	struct ib_qp_attr attr;	/* as last modified, for query_qp */
	struct sroce_av av;
	struct dst_cache dst_cache;	/* the route to av's peer, per CPU */
	u32 mtu;		/* path MTU in bytes */
	bool sqd_notify;
	/*
	 * The peer's requests carry selective repeat's bit, as its last
	 * in-sequence one showed: the responder writes it, the requester
	 * reads it (sroce_ooo.c, sroce_qp_sr_offer()). READ_ONCE/WRITE_ONCE.
	 */
	bool sr_peer;

	/*
	 * Who runs the engines next: the completer and requester, and the
	 * responder; modify pauses both (sroce_task.c).
	 */
	struct sroce_task sq_task;
	struct sroce_task rq_task;
	struct sk_buff_head req_fifo;	/* requests, for the responder */
	struct sk_buff_head resp_fifo;	/* responses, for the completer */
	/* Deepest each FIFO was, under its lock (debugfs). */
	u32 req_fifo_hwm;
	u32 resp_fifo_hwm;
	/* Requester runs stopped by the PSN window, or held by an RNR wait. */
	u64 window_full;
	u64 rnr_stalls;
	/* /sys/kernel/debug/sroce/<dev>/qp<qpn>: sroce_debugfs.c */
	struct dentry *debugfs;

	/* The send queue: posters produce (sq_lock), the requester consumes. */
	spinlock_t sq_lock;
	struct sroce_queue sq;
	u32 sq_max_sge;
	u32 max_inline;
	u32 swqe_size;		/* stride of swqes */
	void *swqes;		/* private copies, one per ring slot */

	/* The receive queue: posters produce (rq_lock), the responder consumes. */
	spinlock_t rq_lock;
	struct sroce_queue rq;
	u32 rq_max_sge;

	struct {
		u32 fetched;	/* ring index: next WQE to copy */
		u32 cur;	/* ring index: next WQE to transmit */
		u64 off;	/* bytes of cur already sent */
		u32 psn;	/* next PSN to give out to a message */
		/*
		 * One past the last PSN a request went out for (a READ's:
		 * the last of its responses); what is between it and psn
		 * was given out to a message but not sent yet.
		 */
		u32 psn_sent;
		bool idle;	/* SROCE_SQ_IDLE set by us, not cleared since */
		bool failed;	/* a WQE failed locally: send nothing more */
		/* A request with selective repeat's bit left since RESET. */
		bool sr_sent;
		/* A new connection's window (sroce_req_window()). */
		struct sroce_start start;
		bool drained_sent; /* IB_EVENT_SQ_DRAINED raised for this SQD */
		/*
		 * WQEs taken in a row as a stream one way (sroce_req_stream()):
		 * the last one's signaled flag, resp.taken when counting
		 * began, and where the last send CQE went in the send CQ.
		 */
		u16 stream;
		bool stream_sig;
		u32 stream_taken;
		u32 stream_cqe;
		/*
		 * Packets to send again alone, oldest first, before anything
		 * new: the PSNs selective NAKs name, the early resend's probe.
		 */
		u32 one_psn[SROCE_RESEND_ONE_MAX];
		u8 one_n;
		/*
		 * A packet of this pass that asked for an ACK, and when it
		 * left (0: not timed): the first the completer may time, or
		 * the last if none. The requester writes them, the completer
		 * takes them at the end of the pass (sroce_comp_arm()).
		 */
		bool ackreq;
		u32 ackreq_psn;
		u64 ackreq_ns;
		/*
		 * The LOCAL_INV at cur (still SROCE_SWQE_NEW) invalidated
		 * this MR, and waits for copies under the old key to end.
		 */
		struct sroce_mr *inv_mr;
	} req;

	struct {
		u32 head;	/* ring index: oldest WQE not retired */
		u32 psn;	/* oldest PSN not acknowledged */
		u8 retry;	/* retry_cnt left */
		u8 rnr_retry;	/* rnr_retry left */
		bool rnr_wait;	/* RNR timer running: resend when it fires */
		u32 rnr_psn;
		bool gap;	/* rewound for a gap in read responses at psn */
		struct sroce_wake_timer ack;	/* the local ACK timeout */
		struct sroce_wake_timer rnr;	/* the RNR NAK's wait */
		/* The round trip (rtt.h), and the resend it times. */
		struct sroce_rtt rtt;
		bool rtt_on;	/* rtt_psn is being timed, since rtt_t0 */
		bool rtt_hold;	/* PSNs before rtt_fresh may have gone twice */
		u32 rtt_psn;
		u32 rtt_fresh;
		u32 rtt_base;	/* comp.psn when rtt_psn's timing began */
		u64 rtt_t0;
		/* PSNs per round trip, which sizes the window (rtt.h). */
		struct sroce_bdp bdp;
		u8 rto_shift;	/* early resends since the last progress */
		struct sroce_wake_timer rto;	/* the early resend */
		/* The early resend sent probe_psn alone; no answer yet. */
		bool probe;
		u32 probe_psn;
		/* The responder said it keeps what comes past a gap (debugfs). */
		bool peer_sr;
	} comp;

	struct {
		u32 psn;	/* expected PSN */
		u32 msn;
		bool nak_sent;	/* a PSN-sequence NAK for this gap is out */
		bool ack_pending;
		u32 ack_psn;
		/* The message in progress: a SEND into rwqe, or a WRITE */
		bool in_send;
		bool in_write;
		/* UC: the rest of a message that lost a packet is dropped */
		bool uc_drop;
		bool have_rwqe;
		u64 rcv_off;
		u64 wr_va;
		u32 wr_rkey;
		u64 wr_left;
		u32 wr_len;
		struct sroce_recv_wqe rwqe;
		struct sroce_sge rsge[SROCE_MAX_SGE];
		u32 rq_cons;	/* ring index: next receive WQE to take */
		struct sroce_rd_res *res;	/* max_dest_rd_atomic entries */
		u32 nres;
		u32 res_next;
		struct sroce_rd_res *active;	/* read responses under way */
		/* A FLUSH writing back in passes (sroce_resp_atomic.c). */
		struct {
			u64 va;
			u64 left;
			u32 rkey;
			u32 psn;
			int need;
			bool on;
		} flush;
		/*
		 * Selective repeat (sroce_ooo.c): requests kept past a gap,
		 * by PSN, allocated at the first; and whether the request
		 * being executed is one of them.
		 */
		struct sroce_ooo *ooo;
		u32 ooo_n;
		u32 ooo_top;	/* the highest PSN kept */
		u32 ooo_naks;	/* NAKs sent while the expected PSN ... */
		u32 ooo_nak_psn; /* ... was this one */
		bool from_ooo;
		unsigned long ooo_since;	/* jiffies of the last progress */
		/* Drops what was kept once it is SROCE_OOO_AGE old. */
		struct sroce_wake_timer ooo_age;
		/* The peer's last in-sequence request had SR, and we do it. */
		bool sr;
		/*
		 * Requests begun: the requester reads it (sroce_req_stream()),
		 * the responder alone writes it, with WRITE_ONCE.
		 */
		u32 taken;
		bool comm_est;
		bool last_wqe;	/* QP_LAST_WQE_REACHED raised in this ERR */
		/*
		 * A SEND_WITH_INV invalidated this MR and waits for copies
		 * under the old key to end: its receive CQE is held here,
		 * and no other request is taken meanwhile.
		 */
		struct sroce_mr *inv_mr;
		struct sroce_cqe inv_cqe;
		bool inv_se;
	} resp;
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

/*
 * What receive notes with a datagram, in its skb's control block, for the
 * UD responder's completion: the responder may run long after the netdev
 * it came in on (a VLAN's, or the local one) is gone.
 */
struct sroce_rx_cb {
	u8 smac[ETH_ALEN];
	bool vlan;
	u16 vlan_id;
};

static inline struct sroce_rx_cb *sroce_rx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_rx_cb) > sizeof(skb->cb));
	return (struct sroce_rx_cb *)skb->cb;
}

/* Datagram QPs: UD and the GSI QP (QP1), which is UD on the wire. */
static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/*
 * Only RC acknowledges: a UC or UD send completes once its last packet
 * left, and its requester keeps no window and runs no ACK timer.
 */
static inline bool sroce_qp_acked(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC;
}

/*
 * Do this QP's requests carry selective repeat's bit? Only to a peer whose
 * own in-sequence requests did, unless the device offers it to all.
 */
static inline bool sroce_qp_sr_offer(struct sroce_qp *qp)
{
	u32 mode = READ_ONCE(qp->sdev->cc.sel_repeat);

	return mode == SROCE_SR_OFFER ||
	       (mode == SROCE_SR_ANSWER && READ_ONCE(qp->sr_peer));
}

static inline bool sroce_qp_is_uc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UC;
}

/* The responder's next resource, in a ring: the oldest is reused. */
static inline struct sroce_rd_res *sroce_resp_new_res(struct sroce_qp *qp)
{
	struct sroce_rd_res *res = &qp->resp.res[qp->resp.res_next];

	qp->resp.res_next = (qp->resp.res_next + 1) % qp->resp.nres;
	memset(res, 0, sizeof(*res));
	return res;
}

static inline struct sroce_swqe *sroce_swqe(struct sroce_qp *qp, u32 index)
{
	return qp->swqes + (size_t)(index & qp->sq.mask) * qp->swqe_size;
}

static inline enum ib_qp_state sroce_qp_state(struct sroce_qp *qp)
{
	return READ_ONCE(qp->state);
}

#endif /* SROCE_QP_H */
