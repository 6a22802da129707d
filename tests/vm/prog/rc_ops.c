// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_ops [-k ID=REASON]... [-s ID=REASON]... [-t GLOB]... DEVICE GID_INDEX: RC (and UC)
 * conformance on one device.
 *
 * Two RC QPs on DEVICE, "a" (the requester) and "b" (the responder), are
 * connected to each other through the RoCE v2 GID at GID_INDEX (loopback:
 * both use the same GID), path MTU 1024. Every RC operation, the send
 * flags, message sizes around the MTU and the error paths are checked
 * against the IBTA spec, each as one TAP test named "ID: what". Every
 * destination buffer is patterned and surrounded by guard bytes, and the
 * whole of it (guards included) is compared with what it must hold.
 *
 * -k ID=REASON marks test ID as a known deviation of a reference device
 * (never for sroce): it still runs and is reported with "# TODO REASON",
 * so a failure is an expected one and a pass ("ok ... # TODO") shows the
 * entry is stale. A capability the device does not have yet (memory
 * windows on sroce) is reported the same way, "# TODO not built: ...".
 *
 * -s ID=REASON does not run test ID on a reference device that its
 * running would harm (a WARN in its kernel): "ok ... # SKIP REASON".
 *
 * -t GLOB runs only the tests whose ID matches one of the GLOBs (fnmatch):
 * report() is a macro that does not evaluate its test unless it is
 * selected, so a quick look at one check needs no full run.
 *
 * Every wait has a deadline, so a broken device gives "not ok", not a hang.
 * Prints TAP; exits non-zero if anything failed.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "rc_ops/rc_ops.h"

static struct { const char *id, *why; } known[MAX_KNOWN];
static int nknown;
static const char *only[MAX_KNOWN];
static int nonly;
static struct { const char *id, *why; } unsafe[MAX_KNOWN];
static int nunsafe;
static struct rc *cur_rc;

/* ---- TAP ---------------------------------------------------------------- */

static const char *known_why(const char *id)
{
	int i;

	for (i = 0; i < nknown; i++)
		if (!strcmp(known[i].id, id))
			return known[i].why;
	return NULL;
}

/* Is test @id to run (-t, -s)? A test -s names is reported as skipped. */
int selected(const char *id)
{
	int i;

	for (i = 0; i < nunsafe; i++) {
		if (strcmp(unsafe[i].id, id))
			continue;
		ntest++;
		printf("ok %d - %s: not run # SKIP %s\n", ntest, id,
		       unsafe[i].why);
		return 0;
	}
	for (i = 0; i < nonly; i++)
		if (!fnmatch(only[i], id, 0))
			return 1;
	return !nonly;
}

/* One TAP line for test @id; @err is NULL when it passed. */
__attribute__((format(printf, 3, 4)))
void report_result(const char *id, const char *err, const char *fmt, ...)
{
	char name[256];
	const char *why;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (err && cur_rc)
		cur_rc->dirty = 1;
	if (skip_why) {
		ntest++;
		printf("ok %d - %s: %s # SKIP %s\n", ntest, id, name, skip_why);
		skip_why = NULL;
		return;
	}
	why = todo_why ? todo_why : known_why(id);
	todo_why = NULL;
	if (why) {
		ntest++;
		if (err) {
			printf("not ok %d - %s: %s # TODO %s\n", ntest, id, name, why);
			printf("# %s still fails: %s\n", id, err);
		} else {
			printf("ok %d - %s: %s # TODO %s\n", ntest, id, name, why);
			printf("# %s passes now: its TODO entry is stale\n", id);
		}
		return;
	}
	check(!err, "%s: %s%s%s", id, name, err ? ": " : "", err ? err : "");
}

/* ---- main --------------------------------------------------------------- */

static int setup(struct rc *rc, const char *name, int gidx)
{
	struct ibv_port_attr port;
	const char *err;

	memset(rc, 0, sizeof(*rc));
	rc->qpt = IBV_QPT_RC;
	rc->gidx = gidx;
	rc->ctx = open_dev(name);
	if (!check(rc->ctx != NULL, "setup: open %s", name))
		return -1;
	if (!check(ibv_query_device(rc->ctx, &rc->dev) == 0 &&
		   ibv_query_port(rc->ctx, 1, &port) == 0 &&
		   port.state == IBV_PORT_ACTIVE,
		   "setup: device and port 1 (ACTIVE) queried"))
		return -1;
	if (!check(ibv_query_gid(rc->ctx, 1, gidx, &rc->gid) == 0 &&
		   (rc->gid.global.subnet_prefix || rc->gid.global.interface_id),
		   "setup: GID %d", gidx))
		return -1;
	rc->pd = ibv_alloc_pd(rc->ctx);
	rc->ch = ibv_create_comp_channel(rc->ctx);
	if (!check(rc->pd && rc->ch, "setup: a PD and a completion channel"))
		return -1;
	if (rc->dev.atomic_cap != IBV_ATOMIC_NONE)
		rc->acc_atomic = IBV_ACCESS_REMOTE_ATOMIC;
	printf("# %s: max_qp_wr %d, max_sge %d, atomic_cap %d, max_qp_rd_atom %d, max_qp_init_rd_atom %d, active_mtu %d\n",
	       name, rc->dev.max_qp_wr, rc->dev.max_sge, rc->dev.atomic_cap,
	       rc->dev.max_qp_rd_atom, rc->dev.max_qp_init_rd_atom,
	       port.active_mtu);
	err = pair_up(rc, &defaults, &defaults);
	if (!check(!err, "setup: two RC QPs connected through GID %d%s%s", gidx,
		   err ? ": " : "", err ? err : ""))
		return -1;
	printf("# QPs %#x and %#x, max_inline_data %u, send/recv SGEs %u/%u\n",
	       rc->a.qp->qp_num, rc->b.qp->qp_num, rc->a.cap.max_inline_data,
	       rc->a.cap.max_send_sge, rc->a.cap.max_recv_sge);
	return 0;
}

static void usage(const char *me)
{
	fprintf(stderr, "usage: %s [-k ID=REASON]... [-s ID=REASON]... [-t GLOB]... DEVICE GID_INDEX\n",
		me);
	exit(2);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 1023, 1024, 1025, 65536, 1 << 20 };
	static struct rc rc;
	const uint64_t x = 0x0123456789abcdefull, y = 0xfedcba98ffffffffull;
	char id[32];
	unsigned int i;
	size_t n;
	char *eq;
	int c;

	while ((c = getopt(argc, argv, "k:s:t:")) != -1) {
		if (c == 't' && nonly < MAX_KNOWN) {
			only[nonly++] = optarg;
			continue;
		}
		if ((c != 'k' && c != 's') || nknown == MAX_KNOWN ||
		    nunsafe == MAX_KNOWN)
			usage(argv[0]);
		eq = strchr(optarg, '=');
		if (!eq)
			usage(argv[0]);
		*eq = '\0';
		if (c == 's') {
			unsafe[nunsafe].id = optarg;
			unsafe[nunsafe++].why = eq + 1;
			continue;
		}
		known[nknown].id = optarg;
		known[nknown++].why = eq + 1;
	}
	if (argc - optind != 2)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup(&rc, argv[optind], atoi(argv[optind + 1])))
		return tap_done();
	cur_rc = &rc;

	/* State machine and limits. */
	report("qp-query", t_query(&rc), "the connected QP reads back RTS, MTU 1024, its peer, timers, AV");
	report("sm-reset-rtr", t_sm(&rc, 0), "RESET->RTR fails with EINVAL");
	report("sm-reset-rts", t_sm(&rc, 1), "RESET->RTS fails with EINVAL");
	report("sm-init-attrs", t_sm(&rc, 2), "RESET->INIT without its required attributes fails with EINVAL");
	report("sm-rtr-av", t_sm(&rc, 3), "INIT->RTR without an address vector fails with EINVAL");
	report("sm-backward", t_sm(&rc, 4), "RTS->RTR and ERR->RTS fail with EINVAL, ERR->RESET->INIT works");
	report("sm-max-send-wr", t_sm_caps(&rc, 0), "create with max_send_wr = max_qp_wr + 1 fails with EINVAL");
	report("sm-max-recv-wr", t_sm_caps(&rc, 1), "create with max_recv_wr = max_qp_wr + 1 fails with EINVAL");
	report("sm-max-sge", t_sm_caps(&rc, 2), "create with max_send_sge = max_sge + 1 fails with EINVAL");
	report("post-send-reset", t_sm_post(&rc, 0), "ibv_post_send on a RESET QP fails, no completion");
	report("post-send-init", t_sm_post(&rc, 1), "ibv_post_send on an INIT QP fails, no completion");
	report("post-send-rtr", t_sm_post(&rc, 2), "ibv_post_send on an RTR QP fails, no completion");
	report("post-recv-reset", t_sm_post(&rc, 3), "ibv_post_recv on a RESET QP fails, no completion");
	report("post-send-sge", t_post_limit(&rc, 0), "a send with max_send_sge + 1 SGEs fails with EINVAL, nothing sent");
	report("post-send-inline", t_post_limit(&rc, 1), "inline data of max_inline_data + 1 bytes fails with EINVAL, nothing sent");
	report("post-recv-sge", t_post_limit(&rc, 2), "a receive with max_recv_sge + 1 SGEs fails with EINVAL");
	report("post-send-full", t_post_limit(&rc, 3), "max_send_wr SENDs waiting on RNR fill the SQ, one more fails with ENOMEM; all complete in order");
	report("post-recv-full", t_post_limit(&rc, 4), "max_recv_wr receives fill the RQ, one more fails with ENOMEM");
	report("max-msg", t_max_msg(&rc, 0), "max_msg_sz is above 4 KiB; a WRITE of max_msg_sz (at most 8 MiB) arrives intact");
	report("max-msg-mtu256", t_max_msg(&rc, 1), "at path MTU 256 a READ of max_msg_sz is accepted (fails only on the keys' ranges)");
	report("max-msg-over", t_max_msg(&rc, 2), "at path MTU 256 a READ of max_msg_sz + 1 ends in LOC_LEN_ERR");

	/* Operations and sizes. */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(id, sizeof(id), "send-%zu", sizes[i]);
		report(id, t_send(&rc, sizes[i], 0), "SEND of %zu B", sizes[i]);
	}
	report("send-0", t_send(&rc, 0, 0), "zero-length SEND: byte_len 0, receive buffer untouched");
	report("send-imm", t_send(&rc, 1500, 1), "SEND_WITH_IMM of 1500 B: IBV_WC_WITH_IMM and the immediate");
	report("send-imm-0", t_send(&rc, 0, 1), "zero-length SEND_WITH_IMM");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(id, sizeof(id), "write-%zu", sizes[i]);
		report(id, t_write(&rc, sizes[i], 0), "RDMA WRITE of %zu B", sizes[i]);
	}
	report("write-0", t_write(&rc, 0, 0), "zero-length RDMA WRITE: target untouched");
	report("write-imm", t_write(&rc, 4097, 1), "RDMA WRITE_WITH_IMM of 4097 B: RECV_RDMA_WITH_IMM, byte_len, receive buffer untouched");
	report("write-imm-0", t_write(&rc, 0, 1), "zero-length RDMA WRITE_WITH_IMM");
	report("write-imm-rnr", t_write_imm_rnr(&rc, 1000), "one-packet WRITE_WITH_IMM meets RNR NAKs until the receive is posted: success, data, RECV_RDMA_WITH_IMM");
	report("write-imm-rnr-multi", t_write_imm_rnr(&rc, 4097), "five-packet WRITE_WITH_IMM meets RNR NAKs until the receive is posted: success, data, RECV_RDMA_WITH_IMM");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(id, sizeof(id), "read-%zu", sizes[i]);
		report(id, t_read(&rc, sizes[i]), "RDMA READ of %zu B", sizes[i]);
	}
	report("cas-swap", t_atomic(&rc, IBV_WR_ATOMIC_CMP_AND_SWP, x, x, y, y),
	       "ATOMIC_CMP_AND_SWP that matches: swapped, original returned");
	report("cas-noswap", t_atomic(&rc, IBV_WR_ATOMIC_CMP_AND_SWP, x, x ^ 1, y, x),
	       "ATOMIC_CMP_AND_SWP that does not match: unchanged, original returned");
	report("fetch-add", t_atomic(&rc, IBV_WR_ATOMIC_FETCH_AND_ADD, y, 1, 0, y + 1),
	       "ATOMIC_FETCH_AND_ADD with a carry across bit 32, original returned");

	/* Send flags and scatter/gather. */
	n = rc.a.cap.max_inline_data;
	report("inline-send-1", t_inline(&rc, 1, 0), "inline SEND of 1 B");
	report("inline-send-max", t_inline(&rc, n, 0), "inline SEND of max_inline_data (%zu B)", n);
	report("inline-write-odd", t_inline(&rc, n / 2 | 1, 1), "inline RDMA WRITE of %zu B", n / 2 | 1);
	report("inline-write-max", t_inline(&rc, n, 1), "inline RDMA WRITE of max_inline_data (%zu B)", n);
	report("sge-send", t_sge(&rc, 0), "SEND from 3 SGEs (7+1001+333 B) into a receive of 4 (5+600+1+900 B)");
	report("sge-write", t_sge(&rc, 1), "RDMA WRITE gathered from 3 SGEs");
	report("sge-read", t_sge(&rc, 2), "RDMA READ scattered into 3 SGEs (500+1+840 B)");
	report("unsignaled", t_unsignaled(&rc, 4), "4 unsignaled SENDs and a signaled one: 5 receives, 1 send completion");
	report("fence", t_fence(&rc), "RDMA READ then a FENCEd SEND of the read buffer carries the read data");
	report("solicited-no-event", t_solicited(&rc, 0), "an unsolicited SEND raises no event on a CQ armed for solicited");
	report("solicited-event", t_solicited(&rc, 1), "a SOLICITED SEND raises the completion event");
	if (selected("mw-bind") || selected("mw-write") ||
	    selected("send-inv") || selected("mw-invalidated"))
		t_mw(&rc);
	t_mw_more(&rc);

	/* Memory registration changed under traffic. */
	report("rereg-access", t_rereg(&rc, 0), "rereg local-only -> remote: WRITE and READ work with the rkey the peer had; -> no REMOTE_WRITE: WRITE gets REM_ACCESS_ERR");
	report("rereg-trans", t_rereg(&rc, 1), "rereg to another buffer: the keys known before work there, the old range is REM_ACCESS_ERR");
	report("rereg-pd", t_rereg(&rc, 2), "rereg to another PD and back: the keys known before work; to another PD: REM_ACCESS_ERR");
	report("rereg-local", t_rereg(&rc, 3), "the lkey known before of an MR reregistered (translation, PD, access) and back still works");
	report("rereg-writable", t_rereg(&rc, 4), "rereg a read-only MR to remote write: a SEND (lkey), WRITE and READ (rkey) land through the keys known before");

	/* Error paths: each on fresh QPs. */
	report("err-bad-rkey", t_err_access(&rc, 0, 0), "RDMA WRITE with a bad rkey: REM_ACCESS_ERR, target untouched, QP in ERR");
	report("err-read-bounds", t_err_access(&rc, 1, 0), "RDMA READ past the end of the MR: REM_ACCESS_ERR, QP in ERR");
	report("err-write-perm", t_err_access(&rc, 2, 0), "RDMA WRITE to an MR without REMOTE_WRITE: REM_ACCESS_ERR, untouched");
	report("err-atomic-align", t_err_access(&rc, 3, 0), "atomic on an address not 8-byte aligned: REM_INV_REQ_ERR");
	report("err-len", t_err_len(&rc), "200 B SEND into a 100 B receive: REM_INV_REQ_ERR and LOC_LEN_ERR, guards intact");
	report("err-flush-rq", t_err_flush(&rc, 0), "modify to ERR flushes 3 outstanding receives with WR_FLUSH_ERR");
	report("err-flush-post-recv", t_err_flush(&rc, 1), "a receive posted in ERR completes with WR_FLUSH_ERR");
	report("err-flush-post-send", t_err_flush(&rc, 2), "a send posted in ERR completes with WR_FLUSH_ERR");
	report("reset-cleans-cq", t_reset_cleans_cq(&rc), "a QP moved to RESET takes its completions off a shared CQ; the other QP's stay, in order");
	report("err-flush-big-sq", t_err_flush_big(&rc, 0), "modify to ERR with a full SQ (up to 16384 SENDs): every one WR_FLUSH_ERR, in order");
	report("err-flush-big-rq", t_err_flush_big(&rc, 1), "modify to ERR with a full RQ (up to 16384 receives): every one WR_FLUSH_ERR, in order");
	report("err-retry-destroyed", t_err_retry(&rc, 0), "SEND to a destroyed peer, retry_cnt 1: RETRY_EXC_ERR");
	report("err-retry-reset", t_err_retry(&rc, 1), "SEND to a peer in RESET, retry_cnt 1: RETRY_EXC_ERR");
	report("err-retry-err", t_err_retry(&rc, 2), "SEND to a peer in ERR, retry_cnt 1: RETRY_EXC_ERR");
	report("err-retry-measured", t_err_retry(&rc, 3), "SEND to a peer destroyed after 20 round trips, retry_cnt 1, timeout 15: RETRY_EXC_ERR, no sooner than two local ACK timeouts (early resends are not charged)");
	report("err-rnr", t_err_rnr(&rc), "SEND with no receive posted, rnr_retry 0: RNR_RETRY_EXC_ERR");

	/* Asynchronous events. */
	report("ev-comm-est", t_ev_comm_est(&rc), "a QP in RTR that receives a SEND raises COMM_EST and answers it");
	report("ev-sq-drained", t_ev_sq_drained(&rc), "RTS->SQD just after a WRITE: SQ_DRAINED; a SEND posted in SQD waits; after SQD->RTS both complete, in order");
	report("ev-cq-overrun", t_ev_cq_overrun(&rc, 0), "signaled WRITEs past what the send CQ holds: CQ_ERR on that CQ");
	report("ev-cq-overrun-qp", t_ev_cq_overrun(&rc, 1), "... and QP_FATAL on the QP, which goes to ERR");
	report("ev-access-err", t_err_access(&rc, 0, 1), "RDMA WRITE with a bad rkey: the responder QP raises QP_ACCESS_ERR and goes to ERR");
	report("ev-req-err", t_err_access(&rc, 3, 1), "unaligned atomic: the responder QP raises QP_REQ_ERR and goes to ERR");

	/* UC queue pairs (uc.c). */
	t_uc(&rc);

	/* Data still flows after all that. */
	report("send-after-errors", t_send(&rc, 1025, 0), "SEND of 1025 B on fresh QPs after the error tests");

	pair_down(&rc);
	check(ibv_destroy_comp_channel(rc.ch) == 0 &&
	      ibv_dealloc_pd(rc.pd) == 0 && ibv_close_device(rc.ctx) == 0,
	      "teardown: channel, PD, device released");
	return tap_done();
}
