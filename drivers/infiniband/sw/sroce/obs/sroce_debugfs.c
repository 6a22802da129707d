// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce: debugfs. /sys/kernel/debug/sroce/<device>/qp<qpn> shows, read
 * only, what the NIC model does with one QP (Documentation/sroce-observe.rst).
 * Errors from debugfs are ignored, as debugfs asks: without it (not
 * mounted, CONFIG_DEBUG_FS=n) the driver works the same, with no files.
 *
 * A QP's file goes before the QP is freed: debugfs_remove() waits for a
 * read in progress, and reads after it fail (debugfs puts its proxy file
 * operations in front of ours and brackets each call with
 * debugfs_file_get/put()), so show() never meets a destroyed QP, even for
 * a reader that keeps the file open.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "sroce.h"
#include "core/sroce_qp.h"
#include "obs/sroce_debugfs.h"

static struct dentry *sroce_debugfs_root;

static const char *const sroce_qp_state_name[] = {
	[IB_QPS_RESET] = "RESET",
	[IB_QPS_INIT] = "INIT",
	[IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS",
	[IB_QPS_SQD] = "SQD",
	[IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

/* A figure of the scheduler: the sum over the QP's two tasks. */
static void sroce_tasks_show(struct seq_file *m, const char *name,
			     const u64 *send, const u64 *recv)
{
	seq_printf(m, "%s\t%llu\n", name, READ_ONCE(*send) + READ_ONCE(*recv));
}

/*
 * The engines' fields are read without their owner's consent: each value
 * is one the QP had, not all from the same instant.
 */
static int sroce_qp_show(struct seq_file *m, void *v)
{
	struct sroce_qp *qp = m->private;
	enum ib_qp_state state = sroce_qp_state(qp);
	u32 head = READ_ONCE(qp->comp.head);
	struct sroce_rtt rtt;

	seq_printf(m, "state\t%s\n", state < ARRAY_SIZE(sroce_qp_state_name) ?
		   sroce_qp_state_name[state] : "?");
	seq_printf(m, "req_fifo\t%u\n", skb_queue_len_lockless(&qp->req_fifo));
	seq_printf(m, "req_fifo_hwm\t%u\n", READ_ONCE(qp->req_fifo_hwm));
	seq_printf(m, "resp_fifo\t%u\n", skb_queue_len_lockless(&qp->resp_fifo));
	seq_printf(m, "resp_fifo_hwm\t%u\n", READ_ONCE(qp->resp_fifo_hwm));
	sroce_tasks_show(m, "dispatches", &qp->sq_task.stats.dispatches,
			 &qp->rq_task.stats.dispatches);
	sroce_tasks_show(m, "passes", &qp->sq_task.stats.passes,
			 &qp->rq_task.stats.passes);
	sroce_tasks_show(m, "budget_exhausted",
			 &qp->sq_task.stats.budget_exhausted,
			 &qp->rq_task.stats.budget_exhausted);
	sroce_tasks_show(m, "worker_handoffs",
			 &qp->sq_task.stats.worker_handoffs,
			 &qp->rq_task.stats.worker_handoffs);
	seq_printf(m, "window_full\t%llu\n", READ_ONCE(qp->window_full));
	seq_printf(m, "rnr_stalls\t%llu\n", READ_ONCE(qp->rnr_stalls));
	seq_printf(m, "rnr_wait\t%u\n", READ_ONCE(qp->comp.rnr_wait));
	seq_printf(m, "sq_psn\t%u\n", READ_ONCE(qp->req.psn));
	seq_printf(m, "unacked_psn\t%u\n", READ_ONCE(qp->comp.psn));
	rtt.srtt8 = READ_ONCE(qp->comp.rtt.srtt8);
	rtt.rttvar4 = READ_ONCE(qp->comp.rtt.rttvar4);
	seq_printf(m, "srtt_us\t%llu\n", sroce_rtt_srtt_us(&rtt));
	seq_printf(m, "rttvar_us\t%llu\n", sroce_rtt_var_us(&rtt));
	seq_printf(m, "min_rtt_us\t%u\n", READ_ONCE(qp->comp.bdp.min_us));
	seq_printf(m, "bdp_psns\t%u\n", READ_ONCE(qp->comp.bdp.psns));
	seq_printf(m, "expected_psn\t%u\n", READ_ONCE(qp->resp.psn));
	/* Selective repeat (sroce_ooo.c): the peer does it, requests kept. */
	seq_printf(m, "peer_sr\t%u\n", READ_ONCE(qp->comp.peer_sr));
	seq_printf(m, "peer_sr_req\t%u\n", READ_ONCE(qp->sr_peer));
	seq_printf(m, "ooo_held\t%u\n", READ_ONCE(qp->resp.ooo_n));
	seq_printf(m, "sq_outstanding\t%u\n", READ_ONCE(qp->req.fetched) - head);
	seq_printf(m, "sq_unsent\t%u\n", READ_ONCE(qp->req.fetched) -
		   READ_ONCE(qp->req.cur));
	seq_printf(m, "ecn_ce_rcvd\t%lld\n", atomic64_read(&qp->cc.ce_rcvd));
	seq_printf(m, "cnp_sent\t%lld\n", atomic64_read(&qp->cc.cnp_sent));
	seq_printf(m, "cnp_rcvd\t%lld\n", atomic64_read(&qp->cc.cnp_rcvd));
	seq_printf(m, "rate_cuts\t%llu\n", READ_ONCE(qp->cc.rate_cuts));
	seq_printf(m, "rate_mbps\t%u\n", READ_ONCE(qp->cc.rp.d.limited) ?
		   READ_ONCE(qp->cc.rp.d.rc) : 0);
	seq_printf(m, "target_mbps\t%u\n", READ_ONCE(qp->cc.rp.d.rt));
	seq_printf(m, "alpha\t%u\n", READ_ONCE(qp->cc.rp.d.alpha));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_qp);

void sroce_debugfs_qp_add(struct sroce_qp *qp)
{
	struct dentry *dir = READ_ONCE(qp->sdev->debugfs);
	char name[16];

	/* A QP made while its device registers has no file. */
	if (IS_ERR_OR_NULL(dir))
		return;
	snprintf(name, sizeof(name), "qp%u", qp->ibqp.qp_num);
	qp->debugfs = debugfs_create_file(name, 0400, dir, qp, &sroce_qp_fops);
}

void sroce_debugfs_qp_del(struct sroce_qp *qp)
{
	debugfs_remove(qp->debugfs);
	qp->debugfs = NULL;
}

/* What the device as a whole holds for remote peers. */
static int sroce_dev_show(struct seq_file *m, void *v)
{
	struct sroce_dev *sdev = m->private;

	seq_printf(m, "ooo_bytes\t%ld\n", atomic_long_read(&sdev->ooo_bytes));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_dev);

/* Named as the device was when it registered; a rename keeps the name. */
void sroce_debugfs_dev_add(struct sroce_dev *sdev)
{
	struct dentry *dir = debugfs_create_dir(dev_name(&sdev->ibdev.dev),
						sroce_debugfs_root);

	debugfs_create_file("device", 0400, dir, sdev, &sroce_dev_fops);
	/* Root may lower the limit of kept requests (0: the default). */
	debugfs_create_ulong("ooo_max_bytes", 0600, dir, &sdev->ooo_max);
	/* Tests only: widen the window after an invalidation's wait. */
	debugfs_create_u32("fault_inv_wake_ms", 0600, dir,
			   &sdev->fault_inv_wake_ms);
	debugfs_create_u32("fault_copy_us", 0600, dir, &sdev->fault_copy_us);
	/* Tests only: take the path of a CPU whose pool is empty. */
	debugfs_create_u32("fault_tx_nopool", 0600, dir,
			   &sdev->fault_tx_nopool);
	WRITE_ONCE(sdev->debugfs, dir);
}

/* Every QP of the device is gone. */
void sroce_debugfs_dev_del(struct sroce_dev *sdev)
{
	debugfs_remove(sdev->debugfs);
	sdev->debugfs = NULL;
}

void sroce_debugfs_init(void)
{
	sroce_debugfs_root = debugfs_create_dir(SROCE_DRV_NAME, NULL);
}

void sroce_debugfs_exit(void)
{
	debugfs_remove(sroce_debugfs_root);
}
