// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pmem_flush [-t ID=REASON]... DEVICE GID_INDEX DAX: FLUSH with placement
 * type PERSISTENT (IBTA 1.5, Annex A19) over persistent memory, a device
 * DAX mapping DAX (/dev/daxN.M) of the VM's emulated NVDIMM
 * (tests/vm/suites/pmem.sh). Built against rdma-core 56.1 for ibv_wr_flush, as
 * flush_ops is; RC QPs of DEVICE talk to its own address.
 *
 * Checks: the device advertises FLUSH_PERSISTENT; an MR over the DAX
 * mapping may grant it, one over ordinary memory may not (reg and rereg:
 * EINVAL); a WRITE, then FLUSHes of a range, of the whole MR, of both
 * placement types, of nothing, and after an ATOMIC WRITE, each
 * IBV_WC_FLUSH with the data in place; a range past the MR is
 * REM_ACCESS_ERR; a type 1 window over the DAX MR may grant persistence
 * and carries a FLUSH, one over ordinary memory may not (MW_BIND_ERR).
 *
 * Each check has an ID; -t ID=REASON reports it as TODO REASON (an
 * expected failure of a reference device, such as rdma_rxe). The last
 * line before the plan is "# wb-bytes N": the bytes the successful
 * PERSISTENT FLUSHes asked to write back, which the suite compares with
 * what the kernel's arch_wb_cache_pmem() was given. Prints TAP; exits
 * non-zero if a check that is not TODO failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define PM_LEN		(2u << 20)	/* device DAX aligns mappings to 2 MiB */
#define RAM_LEN		8192
#define DEPTH		16
#define MAX_TODO	8
/* IB_UVERBS_DEVICE_FLUSH_PERSISTENT: no libibverbs name for it */
#define DEV_FLUSH_PERSISTENT	(1ULL << 39)
#define ACC_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define ACC_FLUSH	(IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx;
static unsigned char *pm, *ram;
static struct ibv_mr *pmr, *ram_mr;
static unsigned long long wb_bytes;
static struct {
	const char *id, *why;
} todo[MAX_TODO];
static int ntodo;

static int is_todo(const char *id)
{
	int i;

	for (i = 0; i < ntodo; i++)
		if (!strcmp(todo[i].id, id))
			return 1;
	return 0;
}

/* check(), but a check named by -t is reported as TODO, never failed. */
static __attribute__((format(printf, 3, 4)))
int pcheck(const char *id, int cond, const char *fmt, ...)
{
	const char *why = NULL;
	va_list ap;
	int i;

	for (i = 0; i < ntodo; i++)
		if (!strcmp(todo[i].id, id))
			why = todo[i].why;
	ntest++;
	printf("%s %d - %s: ", cond ? "ok" : "not ok", ntest, id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (why)
		printf(" # TODO %s", why);
	putchar('\n');
	if (!cond && !why)
		nfail++;
	return cond;
}

static int pair_new(struct tap_pair *p)
{
	return tap_pair_new(p, pd, gidx, &gid, IBV_QP_EX_WITH_FLUSH |
			    IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_ATOMIC_WRITE,
			    DEPTH, ACC_ALL | ACC_FLUSH, 4);
}

/* The next completion: NULL if it is @wr_id with @want, else why not. */
static const char *wc_is(struct tap_pair *p, uint64_t wr_id,
			 enum ibv_wc_status want, int opcode, uint32_t len)
{
	static char why[128];
	struct ibv_wc wc;

	if (!tap_next_wc(p->cq, &wc))
		return "no completion";
	if (wc.wr_id != wr_id || wc.status != want ||
	    (want == IBV_WC_SUCCESS &&
	     (wc.opcode != (enum ibv_wc_opcode)opcode || wc.byte_len != len))) {
		snprintf(why, sizeof(why), "wr_id %llu, %s, opcode %d, byte_len %u",
			 (unsigned long long)wc.wr_id,
			 ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
		return why;
	}
	return NULL;
}

/*
 * One FLUSH and its completion: NULL if it was @want, else why not. A
 * successful PERSISTENT one of a range counts its bytes as written back,
 * of the MR (@mr_len) the MR's.
 */
static const char *flush(struct tap_pair *p, uint64_t wr_id, uint32_t rkey,
			 void *addr, size_t len, uint8_t type, uint8_t level,
			 enum ibv_wc_status want, size_t mr_len)
{
	const char *err;

	ibv_wr_start(p->ax);
	p->ax->wr_id = wr_id;
	p->ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(p->ax, rkey, (uintptr_t)addr, len, type, level);
	if (ibv_wr_complete(p->ax))
		return "posting failed";
	err = wc_is(p, wr_id, want, IBV_WC_FLUSH, len);
	if (!err && want == IBV_WC_SUCCESS && (type & IBV_FLUSH_PERSISTENT))
		wb_bytes += level == IBV_FLUSH_MR ? mr_len : len;
	return err;
}

static void registration(void)
{
	struct ibv_device_attr_ex attr = {};
	struct ibv_mr *mr;
	int ret;

	ret = ibv_query_device_ex(ctx, NULL, &attr);
	pcheck("cap", !ret && (attr.device_cap_flags_ex & DEV_FLUSH_PERSISTENT),
	       "the device advertises FLUSH_PERSISTENT (device_cap_flags_ex %#llx)",
	       (unsigned long long)attr.device_cap_flags_ex);
	pmr = ibv_reg_mr(pd, pm, PM_LEN, ACC_ALL | ACC_FLUSH |
			 IBV_ACCESS_MW_BIND);
	pcheck("reg-pmem", pmr != NULL,
	       "an MR over device DAX grants FLUSH_PERSISTENT (%s)",
	       pmr ? "ok" : strerror(errno));
	errno = 0;
	mr = ibv_reg_mr(pd, ram, RAM_LEN, ACC_ALL | ACC_FLUSH);
	pcheck("reg-ram", !mr && errno == EINVAL,
	       "an MR over ordinary memory may not: EINVAL (%s)",
	       mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	ram_mr = ibv_reg_mr(pd, ram, RAM_LEN, ACC_ALL | IBV_ACCESS_FLUSH_GLOBAL |
			    IBV_ACCESS_MW_BIND);
	if (!pcheck("reg-ram-global", ram_mr != NULL,
		    "... and with FLUSH_GLOBAL alone it registers (%s)",
		    ram_mr ? "ok" : strerror(errno)))
		return;
	errno = 0;
	ret = ibv_rereg_mr(ram_mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   ACC_ALL | ACC_FLUSH);
	pcheck("rereg-ram", ret && errno == EINVAL,
	       "a rereg that adds FLUSH_PERSISTENT to it: EINVAL (%d, %s)",
	       ret, strerror(errno));
}

static void flushes(void)
{
	unsigned char want[256], v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct tap_pair p = {};
	const char *err;
	int i;

	if (!pcheck("pair", !pair_new(&p), "an RC pair that allows FLUSH"))
		goto out;
	for (i = 0; i < (int)sizeof(want); i++)
		ram[i] = want[i] = (unsigned char)(i * 13 + 5);
	ibv_wr_start(p.ax);
	p.ax->wr_id = 1;
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(p.ax, pmr->rkey, (uintptr_t)pm + 512);
	ibv_wr_set_sge(p.ax, ram_mr->lkey, (uintptr_t)ram, sizeof(want));
	err = ibv_wr_complete(p.ax) ? "posting failed" :
	      wc_is(&p, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, sizeof(want));
	pcheck("write", !err && !memcmp(pm + 512, want, sizeof(want)),
	       "a WRITE of 256 bytes lands in pmem (%s)", err ? err : "ok");
	err = flush(&p, 2, pmr->rkey, pm + 512, sizeof(want),
		    IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE, IBV_WC_SUCCESS, 0);
	pcheck("range", !err, "FLUSH PERSISTENT of the range written (%s)",
	       err ? err : "ok");
	err = flush(&p, 3, pmr->rkey, pm, 0, IBV_FLUSH_PERSISTENT,
		    IBV_FLUSH_MR, IBV_WC_SUCCESS, PM_LEN);
	pcheck("mr", !err, "FLUSH PERSISTENT of the whole MR, length 0 (%s)",
	       err ? err : "ok");
	err = flush(&p, 4, pmr->rkey, pm, 4096,
		    IBV_FLUSH_PERSISTENT | IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE,
		    IBV_WC_SUCCESS, 0);
	pcheck("both", !err, "FLUSH PERSISTENT|GLOBAL of 4096 bytes (%s)",
	       err ? err : "ok");
	err = flush(&p, 5, pmr->rkey, pm + 512, 0, IBV_FLUSH_PERSISTENT,
		    IBV_FLUSH_RANGE, IBV_WC_SUCCESS, 0);
	pcheck("empty", !err, "FLUSH PERSISTENT of an empty range (%s)",
	       err ? err : "ok");
	pcheck("data", !memcmp(pm + 512, want, sizeof(want)),
	       "the data flushed is what was written");
	ibv_wr_start(p.ax);
	p.ax->wr_id = 6;
	p.ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(p.ax, pmr->rkey, (uintptr_t)pm + 1024, v);
	err = ibv_wr_complete(p.ax) ? "posting failed" :
	      wc_is(&p, 6, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 8);
	if (!err)
		err = flush(&p, 7, pmr->rkey, pm + 1024, 8,
			    IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE,
			    IBV_WC_SUCCESS, 0);
	pcheck("atomic-write", !err && !memcmp(pm + 1024, v, 8),
	       "an ATOMIC WRITE, then FLUSH PERSISTENT of its 8 bytes (%s)",
	       err ? err : "ok");
out:
	tap_pair_free(&p);
	p = (struct tap_pair){};
	if (!pcheck("pair-past", !pair_new(&p), "another pair"))
		goto out2;
	err = flush(&p, 8, pmr->rkey, pm + PM_LEN - 8, 64,
		    IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE,
		    IBV_WC_REM_ACCESS_ERR, 0);
	pcheck("past", !err, "FLUSH PERSISTENT past the MR: REM_ACCESS_ERR (%s)",
	       err ? err : "ok");
out2:
	tap_pair_free(&p);
}

/*
 * A type 1 window over @mr's [@addr, +64) granting persistence, bound by
 * a new pair's a: the bind's completion is @want; bound, a FLUSH
 * PERSISTENT through it succeeds, of a range and of the whole "MR",
 * which for a window is the window (64 bytes written back, not the MR's:
 * the suite compares wb-bytes with what the kernel wrote back).
 */
static void window(const char *id, struct ibv_mr *mr, void *addr,
		   enum ibv_wc_status want, const char *what)
{
	struct ibv_mw_bind bind = {
		.wr_id = 20,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = mr,
			.addr = (uintptr_t)addr,
			.length = 64,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_FLUSH_PERSISTENT,
		},
	};
	struct tap_pair p = {};
	struct ibv_mw *mw = NULL;
	const char *err = "no pair or window";
	int ret;

	if (!pair_new(&p) && (mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1))) {
		ret = ibv_bind_mw(p.a, mw, &bind);
		err = ret ? strerror(ret) :
		      wc_is(&p, 20, want, IBV_WC_BIND_MW, 0);
	}
	if (want != IBV_WC_SUCCESS || err) {
		pcheck(id, !err, "%s: %s (%s)", what, ibv_wc_status_str(want),
		       err ? err : "ok");
		goto out;
	}
	err = flush(&p, 21, mw->rkey, addr, 64, IBV_FLUSH_PERSISTENT,
		    IBV_FLUSH_RANGE, IBV_WC_SUCCESS, 0);
	pcheck(id, !err, "%s, and a FLUSH PERSISTENT through it (%s)", what,
	       err ? err : "ok");
	/* A device that would write back the whole MR is not asked. */
	if (is_todo("window-mr")) {
		pcheck("window-mr", 0, "a FLUSH PERSISTENT of the whole window: not run");
		goto out;
	}
	err = flush(&p, 22, mw->rkey, addr, 0, IBV_FLUSH_PERSISTENT,
		    IBV_FLUSH_MR, IBV_WC_SUCCESS, 64);
	pcheck("window-mr", !err,
	       "a FLUSH PERSISTENT of the whole window writes back the window's 64 bytes, not its MR's (%s)",
	       err ? err : "ok");
out:
	if (mw)
		ibv_dealloc_mw(mw);
	tap_pair_free(&p);
}

int main(int argc, char **argv)
{
	char *args[3];
	int fd, opt;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		char *eq = strchr(optarg, '=');

		if (opt != 't' || !eq || ntodo == MAX_TODO) {
			fprintf(stderr, "usage: %s [-t ID=REASON]... DEVICE GID_INDEX DAX\n",
				argv[0]);
			return 2;
		}
		*eq = '\0';
		todo[ntodo].id = optarg;
		todo[ntodo++].why = eq + 1;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: %s [-t ID=REASON]... DEVICE GID_INDEX DAX\n",
			argv[0]);
		return 2;
	}
	args[0] = argv[0];
	args[1] = argv[optind];
	args[2] = argv[optind + 1];
	ctx = open_dev_gid(3, args, &gidx, &gid);
	if (!ctx || !check((pd = ibv_alloc_pd(ctx)) != NULL, "a PD"))
		return tap_done();
	fd = open(argv[optind + 2], O_RDWR);
	pm = fd < 0 ? MAP_FAILED : mmap(NULL, PM_LEN, PROT_READ | PROT_WRITE,
					MAP_SHARED, fd, 0);
	ram = aligned_alloc(4096, RAM_LEN);
	if (!check(pm != MAP_FAILED && ram, "map 2 MiB of %s (%s)",
		   argv[optind + 2], pm != MAP_FAILED ? "ok" : strerror(errno)))
		return tap_done();
	memset(pm, 0, PM_LEN);
	registration();
	if (pmr && ram_mr) {
		flushes();
		window("window-pmem", pmr, pm + 8192, IBV_WC_SUCCESS,
		       "a type 1 window over pmem granting FLUSH_PERSISTENT");
		window("window-ram", ram_mr, ram, IBV_WC_MW_BIND_ERR,
		       "one over ordinary memory");
	}
	check((!pmr || !ibv_dereg_mr(pmr)) && (!ram_mr || !ibv_dereg_mr(ram_mr)) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
	      "everything released");
	munmap(pm, PM_LEN);
	close(fd);
	free(ram);
	printf("# wb-bytes %llu\n", wb_bytes);
	return tap_done();
}
