/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Congestion control (sroce_cc.c, Documentation/sroce-cc.rst): ECN on what
 * sroce sends, and DCQCN, as RoCE NICs run it. The notification point: a
 * packet that arrives marked Congestion Experienced makes its QP send a
 * CNP (BTH opcode 0x81, BECN) to the QP that sent it, at most one per QP
 * per interval. The reaction point: a CNP cuts the rate of the QP it
 * names, which then climbs back by itself; the requester paces its
 * packets to that rate. The parameters are the device's, in sysfs (cc_*).
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <net/inet_ecn.h>

#include "model/cc_rp.h"
#include "proto/opcode.h"

/* A QP's reaction point: DCQCN's state, and the timer of its pacing. */
struct sroce_cc_rp {
	struct sroce_dcqcn d;
	/* Kicks the send task at d.next_ns (sroce_task.c owns it). */
	struct hrtimer pace;
};

/* Ethernet, IP, UDP, BTH, an extension header and the ICRC, about. */
#define SROCE_CC_HDR_BYTES	80

/* A QP's share of congestion control. */
struct sroce_qp_cc {
	unsigned long flags;		/* SROCE_CC_*, set by receive */
	atomic64_t last_cnp_ns;		/* ktime of the last CNP sent */
	atomic64_t ce_rcvd;		/* packets that came marked CE */
	atomic64_t cnp_sent;
	atomic64_t cnp_rcvd;		/* CNPs that named this QP */
	u64 rate_cuts;			/* CNPs that cut the rate */
	struct sroce_cc_rp rp;
};

enum {
	SROCE_CC_CE,	/* a packet came marked CE: the next pass decides */
	SROCE_CC_CNP,	/* a CNP came: the next pass of the send task cuts */
};

void sroce_cc_params_init(struct sroce_cc_params *p);

/*
 * The IP traffic class of a packet: the QP's (@tclass) with ECT(0) when
 * ECN is on; a CNP's, the CNP DSCP with ECT(1), so that an ECN queue
 * marks it rather than drops it.
 */
static inline u8 sroce_cc_tos(const struct sroce_cc_params *p, u8 opcode,
			      u8 tclass)
{
	if (opcode == SROCE_CNP_OPCODE)
		return READ_ONCE(p->cnp_dscp) << 2 | INET_ECN_ECT_1;
	if (READ_ONCE(p->ecn))
		return (tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;
	return tclass;
}

struct sroce_qp;
void sroce_cc_np(struct sroce_qp *qp);
void sroce_cc_rp_cnp(struct sroce_qp *qp);
bool sroce_cc_rp_wait(struct sroce_qp *qp);
void sroce_cc_rp_sent(struct sroce_qp *qp, u32 bytes);
void sroce_cc_reset(struct sroce_qp *qp);

/* A pass sends the CNP a CE mark asked for, if one is due. */
static inline void sroce_cc_pass(struct sroce_qp *qp, struct sroce_qp_cc *cc)
{
	if (test_bit(SROCE_CC_CE, &cc->flags))
		sroce_cc_np(qp);
}

/* The send task's pass, before the requester: a CNP received cuts. */
static inline void sroce_cc_send_pass(struct sroce_qp *qp,
				      struct sroce_qp_cc *cc)
{
	sroce_cc_pass(qp, cc);
	if (test_bit(SROCE_CC_CNP, &cc->flags))
		sroce_cc_rp_cnp(qp);
}

#endif /* SROCE_CC_H */
