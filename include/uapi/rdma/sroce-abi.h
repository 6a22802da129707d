/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The interface between the sroce kernel module and its rdma-core provider
 * (libsroce). Both sides build from this one file. Every structure is made of
 * fixed-width little-endian fields with explicit padding; sizes are pinned by
 * static asserts so a change that moves a field fails to build.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

/*
 * Reported as the device's uverbs ABI version; libsroce accepts only the
 * versions it was built for.
 */
#define SROCE_ABI_VERSION	1

/*
 * The device's sysfs attribute (under /sys/class/infiniband/<name>/) that
 * libsroce matches on: out-of-tree drivers report RDMA_DRIVER_UNKNOWN, so the
 * driver id cannot tell sroce devices apart. It holds SROCE_ABI_VERSION.
 */
#define SROCE_SYSFS_MATCH_ATTR	"sroce_abi_version"

struct sroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 reserved;
};

struct sroce_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

/*
 * Shared queues (CQ, SQ, RQ). A queue is one mapping: this
 * control block, then a power-of-two array of fixed-size entries. Indices
 * are free-running u32s; the slot of index i is i & (entries - 1). Each
 * field is written by one side only, and the two indices live on separate
 * cache lines so producer and consumer never write the same line.
 *
 * CQ arming (no syscall): userspace arms by storing into user_flag a new
 * value, (sequence << SROCE_CQ_ARM_SEQ_SHIFT) | mode, with a sequence it
 * increments on every arm, then issues a full barrier before it polls
 * again. The kernel, after publishing a CQE (release), issues a full
 * barrier, reads user_flag, and if it differs from kern_flag and the mode
 * matches the CQE, raises the completion event and copies user_flag into
 * kern_flag. Armed is exactly user_flag != kern_flag.
 */
struct sroce_queue_ctrl {
	__u32 prod;		/* written by the producer only */
	__u32 rsvd0[15];
	__u32 cons;		/* written by the consumer only */
	__u32 rsvd1[15];
	__u32 user_flag;	/* written by userspace only */
	__u32 rsvd2[15];
	__u32 kern_flag;	/* written by the kernel only */
	__u32 rsvd3[15];
};

#define SROCE_CQ_ARM_NEXT	1u
#define SROCE_CQ_ARM_SOLICITED	2u
#define SROCE_CQ_ARM_MODE_MASK	3u
#define SROCE_CQ_ARM_SEQ_SHIFT	2

/* sroce_cqe.flags */
#define SROCE_CQE_WITH_IMM	(1u << 0)
#define SROCE_CQE_WITH_INV	(1u << 1)
#define SROCE_CQE_GRH		(1u << 2)
#define SROCE_CQE_WITH_VLAN	(1u << 3)	/* vlan_id holds the VLAN */

struct sroce_cqe {
	__aligned_u64 wr_id;
	__u8 status;		/* enum ib_wc_status (== enum ibv_wc_status) */
	__u8 opcode;		/* enum ib_uverbs_wc_opcode */
	__u8 flags;		/* SROCE_CQE_* */
	__u8 network_hdr_type;	/* RDMA_NETWORK_* of a UD receive */
	__u32 vendor_err;
	__u32 byte_len;
	__be32 imm_data;	/* immediate data, in network byte order */
	__u32 invalidated_rkey;
	__u32 qp_num;
	__u32 src_qp;
	__u16 pkey_index;
	__u16 vlan_id;
	__u8 smac[6];
	__u8 sl;
	__u8 port_num;
	/*
	 * When the CQE was written, CLOCK_MONOTONIC in ns (the device's
	 * hca_core_clock is 1 GHz), on a CQ created with
	 * IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION; 0 on any other.
	 */
	__aligned_u64 timestamp;
	__aligned_u64 kctx;	/* the kernel's own; always 0 in user CQs */
};

/* create_cq and resize_cq: where the ring is and how big. */
struct sroce_cq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num_entries;	/* a power of two, >= the cqe asked for */
	__u32 reserved;
};

/*
 * Send and receive queues: struct sroce_queue_ctrl rings like the CQ's.
 * The provider produces WQEs, the kernel consumes them. An SQ slot is not
 * free again (cons does not pass it) until the WQE has completed.
 *
 * SQ doorbell elision: the provider publishes prod (release), issues a
 * full barrier, then reads the SQ's kern_flag; if SROCE_SQ_IDLE is set it
 * rings the doorbell, a post_send command with no work requests. The
 * kernel's requester, before it sleeps, sets SROCE_SQ_IDLE, issues a full
 * barrier and reads prod again; it clears the flag when it runs and finds
 * WQEs to take. So either the requester sees the new WQE or the provider
 * sees it idle. A doorbell that finds the requester running costs a
 * command, never a WQE.
 *
 * The QP's max_send_wr and max_recv_wr (in the core's reply) are the
 * rings' entry counts. Indices never go back: a QP moved to RESET drops
 * its WQEs by setting cons to prod, and the provider keeps producing from
 * its own copy of prod.
 *
 * RQ: post_recv never enters the kernel, except when the RQ's kern_flag
 * has SROCE_RQ_FLUSH set (the QP is in the error state): then the
 * provider, after publishing, sends a post_recv command with no work
 * requests so that the kernel completes the new WQEs with WR_FLUSH_ERR.
 */
#define SROCE_SQ_IDLE		1u
#define SROCE_RQ_FLUSH		1u
/*
 * The QP is in a state that refuses posting: SQ in RESET, INIT or RTR, RQ
 * in RESET. The provider fails the post with EINVAL and writes nothing.
 */
#define SROCE_SQ_NOT_READY	2u
#define SROCE_RQ_NOT_READY	2u

struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * A send WQE is this 64-byte header followed by num_sge SGEs, or, with
 * IB_SEND_INLINE, by inline_len bytes of data.
 */
struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u8 opcode;		/* enum ib_uverbs_wr_opcode */
	__u8 num_sge;
	__u16 rsvd0;
	__u32 send_flags;	/* IB_SEND_* == IBV_SEND_* */
	__u32 inline_len;
	union {
		__be32 imm_data;	/* network byte order, as posted */
		__u32 invalidate_rkey;
	} ex;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 rsvd1;
		} rdma;
		/* UD */
		struct {
			__u32 ah;	/* sroce_create_ah_resp.ah_num */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 rsvd1;
		} ud;
		/* BIND_MW */
		struct {
			__u32 mw_rkey;	/* the window, by an rkey it had */
			__u32 new_rkey;	/* its rkey once bound */
			__u32 mr_lkey;	/* the MR it is bound to */
			__u32 access;	/* IB_ACCESS_REMOTE_* it grants */
		} bind;
		/* FLUSH: the range, as in rdma */
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 length;
		} flush;
	};
	union {
		__aligned_u64 compare_add;	/* atomics */
		__aligned_u64 bind_addr;	/* BIND_MW: the window's start */
		/*
		 * ATOMIC_WRITE: the 8 bytes to place, as they were in the
		 * caller's buffer (no byte order: they land as they are).
		 */
		__u8 atomic_wr[8];
		/* FLUSH */
		struct {
			__u8 type;	/* IB_FLUSH_GLOBAL | IB_FLUSH_PERSISTENT */
			__u8 level;	/* IB_FLUSH_RANGE or IB_FLUSH_MR */
			__u8 rsvd[6];
		} flush_sel;
	};
	union {
		__aligned_u64 swap;
		__aligned_u64 bind_length;	/* BIND_MW; 0 unbinds type 1 */
	};
	__u32 rsvd2[2];
};

/* A receive WQE: this header followed by num_sge SGEs. */
struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 rsvd;
};

/*
 * create_qp reply: the rings to map. Slot sizes are powers of two; an SQ
 * slot holds the header and max(max_send_sge SGEs, max_inline_data bytes),
 * an RQ slot the header and max_recv_sge SGEs. The QP's capabilities are
 * in the core's reply.
 */
struct sroce_create_qp_resp {
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 sq_mmap_size;
	__aligned_u64 rq_mmap_offset;
	__aligned_u64 rq_mmap_size;
	__u32 sq_entries;
	__u32 sq_entry_size;
	__u32 rq_entries;
	__u32 rq_entry_size;
};

/*
 * create_srq reply: the SRQ's ring, which libsroce produces into as into
 * a QP's RQ (same control block and WQE layout), without a doorbell. The
 * responders of the QPs attached consume it; a QP with an SRQ has no RQ
 * ring (its create_qp reply has rq_mmap_size 0).
 */
struct sroce_create_srq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num_entries;
	__u32 entry_size;
};

/*
 * modify_srq with IB_SRQ_MAX_WR (resize): the command has no reply, so the
 * kernel writes a struct sroce_create_srq_resp, the new ring to map, at
 * resp_addr in the caller's memory. The ring keeps its indices: WQEs not
 * yet taken move to the new ring in their order.
 */
struct sroce_modify_srq_cmd {
	__aligned_u64 resp_addr;
};

/*
 * create_ah reply. A UD send WQE names its address handle by this number;
 * the kernel looks it up when it takes the WQE, so a handle destroyed
 * before then fails that WQE (IBV_WC_LOC_QP_OP_ERR), nothing worse.
 */
struct sroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

static_assert(sizeof(struct sroce_alloc_ucontext_resp) == 8, "ABI size");
static_assert(sizeof(struct sroce_alloc_pd_resp) == 8, "ABI size");
static_assert(sizeof(struct sroce_queue_ctrl) == 256, "ABI size");
static_assert(sizeof(struct sroce_cqe) == 64, "ABI size");
static_assert(sizeof(struct sroce_cq_resp) == 24, "ABI size");
static_assert(sizeof(struct sroce_sge) == 16, "ABI size");
static_assert(sizeof(struct sroce_send_wqe) == 64, "ABI size");
static_assert(sizeof(struct sroce_recv_wqe) == 16, "ABI size");
static_assert(sizeof(struct sroce_create_qp_resp) == 48, "ABI size");
static_assert(sizeof(struct sroce_create_ah_resp) == 8, "ABI size");
static_assert(sizeof(struct sroce_create_srq_resp) == 24, "ABI size");
static_assert(sizeof(struct sroce_modify_srq_cmd) == 8, "ABI size");

#endif /* SROCE_ABI_USER_H */
