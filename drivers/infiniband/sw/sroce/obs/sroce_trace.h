/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce's tracepoints, under events/sroce/ in tracefs: the life of a WQE
 * and of its packets (Documentation/sroce-observe.rst). sroce_trace.c
 * instantiates them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/sroce-abi.h>

#ifndef SROCE_TRACE_HELPERS
#define SROCE_TRACE_HELPERS
/* Bytes a receive WQE's SGEs take. */
static inline u64 sroce_trace_sge_len(const struct sroce_sge *sge, u32 n)
{
	u64 len = 0;

	while (n--)
		len += sge[n].length;
	return len;
}

/* Why the requester goes back: sroce_sq_rewind() labels the trace. */
#define SROCE_REXMIT_TIMEOUT	0	/* the local ACK timer expired */
#define SROCE_REXMIT_NAK	1	/* a PSN sequence error NAK */
#define SROCE_REXMIT_RNR	2	/* an RNR NAK's wait is over */
#define SROCE_REXMIT_READ	3	/* read responses missing */
#define SROCE_REXMIT_EARLY	4	/* no progress for an RTO (rtt.h) */
#define SROCE_REXMIT_SR		5	/* a selective NAK (sroce_ooo.c) */
#define SROCE_REXMIT_PROBE	6	/* the early resend's answer: a gap */
#endif

/* SROCE_REXMIT_* by name */
#define sroce_show_rexmit(r)				\
	__print_symbolic(r,				\
		{ SROCE_REXMIT_TIMEOUT, "timeout" },	\
		{ SROCE_REXMIT_NAK, "nak" },		\
		{ SROCE_REXMIT_RNR, "rnr" },		\
		{ SROCE_REXMIT_READ, "read" },		\
		{ SROCE_REXMIT_EARLY, "early" },	\
		{ SROCE_REXMIT_SR, "selective" },	\
		{ SROCE_REXMIT_PROBE, "probe" })

/* The requester took a send WQE from its ring (kernel and user alike). */
TRACE_EVENT(sroce_post_send,
	    TP_PROTO(u32 qpn, u64 wr_id, u8 opcode, u64 length),
	    TP_ARGS(qpn, wr_id, opcode, length),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u8, opcode)
			     __field(u64, wr_id)
			     __field(u64, length)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->opcode = opcode;
			   __entry->wr_id = wr_id;
			   __entry->length = length;),
	    TP_printk("qpn=%u wr_id=0x%llx opcode=%u length=%llu",
		      __entry->qpn, __entry->wr_id, __entry->opcode,
		      __entry->length)
);

/* The responder took a receive WQE for a message that came in. */
TRACE_EVENT(sroce_post_recv,
	    TP_PROTO(u32 qpn, u64 wr_id, const struct sroce_sge *sge, u32 nsge),
	    TP_ARGS(qpn, wr_id, sge, nsge),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, nsge)
			     __field(u64, wr_id)
			     __field(u64, length)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->nsge = nsge;
			   __entry->wr_id = wr_id;
			   __entry->length = sroce_trace_sge_len(sge, nsge);),
	    TP_printk("qpn=%u wr_id=0x%llx nsge=%u length=%llu",
		      __entry->qpn, __entry->wr_id, __entry->nsge,
		      __entry->length)
);

/* A packet left (or went to a QP of this host); length is its payload. */
TRACE_EVENT(sroce_xmit,
	    TP_PROTO(u32 qpn, u32 dqpn, u32 psn, u8 opcode, u32 length),
	    TP_ARGS(qpn, dqpn, psn, opcode, length),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, dqpn)
			     __field(u32, psn)
			     __field(u32, length)
			     __field(u8, opcode)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->dqpn = dqpn;
			   __entry->psn = psn;
			   __entry->length = length;
			   __entry->opcode = opcode;),
	    TP_printk("qpn=%u dqpn=%u psn=%u opcode=0x%02x length=%u",
		      __entry->qpn, __entry->dqpn, __entry->psn,
		      __entry->opcode, __entry->length)
);

/* A checked packet for an existing QP; length is BTH through ICRC. */
TRACE_EVENT(sroce_recv,
	    TP_PROTO(u32 qpn, u32 psn, u8 opcode, u32 length),
	    TP_ARGS(qpn, psn, opcode, length),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, psn)
			     __field(u32, length)
			     __field(u8, opcode)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->psn = psn;
			   __entry->length = length;
			   __entry->opcode = opcode;),
	    TP_printk("qpn=%u psn=%u opcode=0x%02x length=%u",
		      __entry->qpn, __entry->psn, __entry->opcode,
		      __entry->length)
);

/* A CQE, as it goes into the CQ. */
TRACE_EVENT(sroce_complete,
	    TP_PROTO(u32 qpn, bool recv, u64 wr_id, u8 status, u8 opcode),
	    TP_ARGS(qpn, recv, wr_id, status, opcode),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(bool, recv)
			     __field(u8, status)
			     __field(u8, opcode)
			     __field(u64, wr_id)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->recv = recv;
			   __entry->status = status;
			   __entry->opcode = opcode;
			   __entry->wr_id = wr_id;),
	    TP_printk("qpn=%u %s wr_id=0x%llx status=%u opcode=%u",
		      __entry->qpn, __entry->recv ? "recv" : "send",
		      __entry->wr_id, __entry->status, __entry->opcode)
);

/* Go-back-N: the requester sends again from psn (it was at next_psn). */
TRACE_EVENT(sroce_retransmit,
	    TP_PROTO(u32 qpn, u32 psn, u32 next_psn, int reason),
	    TP_ARGS(qpn, psn, next_psn, reason),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, psn)
			     __field(u32, next_psn)
			     __field(int, reason)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->psn = psn;
			   __entry->next_psn = next_psn;
			   __entry->reason = reason;),
	    TP_printk("qpn=%u from_psn=%u next_psn=%u reason=%s",
		      __entry->qpn, __entry->psn, __entry->next_psn,
		      sroce_show_rexmit(__entry->reason))
);

/* An RNR NAK or NAK (AETH syndrome), sent by the responder or received. */
TRACE_EVENT(sroce_nak,
	    TP_PROTO(u32 qpn, u32 psn, u8 syndrome, bool sent),
	    TP_ARGS(qpn, psn, syndrome, sent),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, psn)
			     __field(u8, syndrome)
			     __field(bool, sent)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->psn = psn;
			   __entry->syndrome = syndrome;
			   __entry->sent = sent;),
	    TP_printk("qpn=%u psn=%u syndrome=0x%02x %s", __entry->qpn,
		      __entry->psn, __entry->syndrome,
		      __entry->sent ? "sent" : "received")
);

#endif /* SROCE_TRACE_H */

/*
 * define_trace.h includes this file again as obs/sroce_trace.h, from the
 * driver's folder on the include path: the Kbuild's -I, or in a kernel
 * tree built with O= the one Kbuild adds for the folder of a Makefile.
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH obs
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sroce_trace
#include <trace/define_trace.h>
