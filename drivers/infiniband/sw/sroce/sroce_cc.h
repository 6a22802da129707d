/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Congestion control (sroce_cc.c): ECN on what sroce sends, and the
 * notification point of DCQCN: a packet that arrives marked Congestion
 * Experienced makes its QP send a CNP (BTH opcode 0x81, BECN) to the QP
 * that sent it, at most one per QP per interval. The parameters are the
 * device's, in sysfs (cc_*), Documentation/sroce-cc.rst.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/device.h>
#include <net/inet_ecn.h>

#include "proto/opcode.h"

/* What the notification point sends a CNP with: the network's control class. */
#define SROCE_CC_CNP_DSCP	48
#define SROCE_CC_CNP_INTERVAL_US	50

struct sroce_cc_params {
	bool ecn;		/* packets go out ECT(0), so queues mark them */
	u8 cnp_dscp;		/* the DSCP of the CNPs sent */
	u32 cnp_interval_us;	/* at most one CNP per QP in this time */
};

/* A QP's share; flags and last_cnp_ns are its receive and send tasks'. */
struct sroce_qp_cc {
	unsigned long flags;		/* SROCE_CC_* */
	atomic64_t last_cnp_ns;		/* ktime of the last CNP sent */
	atomic64_t ce_rcvd;		/* packets that came marked CE */
	atomic64_t cnp_sent;
};

enum {
	SROCE_CC_CE,	/* a packet came marked CE: the next pass decides */
};

static inline void sroce_cc_params_init(struct sroce_cc_params *p)
{
	p->ecn = true;
	p->cnp_dscp = SROCE_CC_CNP_DSCP;
	p->cnp_interval_us = SROCE_CC_CNP_INTERVAL_US;
}

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

/* A pass sends the CNP a CE mark asked for, if one is due. */
static inline void sroce_cc_pass(struct sroce_qp *qp, struct sroce_qp_cc *cc)
{
	if (test_bit(SROCE_CC_CE, &cc->flags))
		sroce_cc_np(qp);
}

extern struct device_attribute dev_attr_cc_ecn;
extern struct device_attribute dev_attr_cc_cnp_dscp;
extern struct device_attribute dev_attr_cc_cnp_interval_us;

#endif /* SROCE_CC_H */
