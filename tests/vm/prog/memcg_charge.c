// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memcg_charge DEVICE: memory whose size userspace chooses is charged to
 * the memory cgroup of the process that made it (__GFP_ACCOUNT), so a
 * container cannot pin unbounded kernel memory through the device. Run it
 * in a cgroup v2 group of its own with the memory controller on; it reads
 * that group's memory.current before and after creating a big CQ, a QP
 * with deep queues and large MRs (their page tables), each freed again.
 * Prints TAP; exits non-zero if anything failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define MR_BYTES	(128ul << 20)
#define NMR		4

static char path[512];

/* The group's memory.current, or -1. */
static long long charged(void)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* /sys/fs/cgroup/<our group>/memory.current, from /proc/self/cgroup. */
static int find_group(void)
{
	char line[400], *p;
	FILE *f = fopen("/proc/self/cgroup", "r");
	int ok = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		p = line + 3;
		p[strcspn(p, "\n")] = '\0';
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current",
			 p);
		ok = 1;
	}
	fclose(f);
	return ok && charged() >= 0 ? 0 : -1;
}

static void report(const char *what, long long before, long long after,
		   long long want)
{
	check(after - before >= want,
	      "%s: memory.current grew by %lld KiB, want >= %lld KiB", what,
	      (after - before) >> 10, want >> 10);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr ia;
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr[NMR];
	long long before;
	int i, dereg = 0;
	uint32_t wr;
	void *buf;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!check(find_group() == 0, "in a memory cgroup (%s)", path))
		return tap_done();
	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!check(pd && !ibv_query_device(ctx, &da), "open %s, a PD", argv[1]))
		return tap_done();

	/*
	 * A CQ of 65535: a ring of 65536 CQEs of 64 bytes, 4 MiB. The
	 * cgroup charges in batches (64 pages per CPU kept in stock), so
	 * memory.current may move by up to a batch less than was charged.
	 */
	before = charged();
	cq = ibv_create_cq(ctx, 65535, NULL, NULL, 0);
	if (check(cq != NULL, "a CQ of 65535 (%s)", cq ? "ok" : strerror(errno)))
		report("the CQ's ring", before, charged(), 3ll << 20);

	/* Send and receive rings and the private WQE copies. */
	wr = da.max_qp_wr < 16384 ? da.max_qp_wr : 16384;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = wr;
	ia.cap.max_recv_wr = wr;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	before = charged();
	qp = cq ? ibv_create_qp(pd, &ia) : NULL;
	if (check(qp != NULL, "a QP of %u send and %u receive WRs (%s)", wr, wr,
		  qp ? "ok" : strerror(errno)))
		report("the QP's rings and WQE copies", before, charged(),
		       (long long)wr * (64 + 16));

	/*
	 * MR page tables: 8 bytes per page, 256 KiB for each of NMR
	 * registrations of one buffer (a batch's worth each). The pages are
	 * touched first, so their own charge comes before the measurement,
	 * and pinning them again charges nothing.
	 */
	buf = mmap(NULL, MR_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		buf = NULL;
	if (buf)
		memset(buf, 1, MR_BYTES);
	before = charged();
	for (i = 0; i < NMR && buf; i++) {
		mr[i] = ibv_reg_mr(pd, buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE);
		if (!mr[i])
			break;
	}
	if (check(i == NMR, "%d MRs of %lu MiB (%s)", NMR, MR_BYTES >> 20,
		  i == NMR ? "ok" : strerror(errno)))
		report("the MRs' page tables", before, charged(),
		       (long long)(MR_BYTES / 4096) * 8 * NMR * 3 / 4);
	while (i > 0)
		dereg |= ibv_dereg_mr(mr[--i]);

	check(!dereg && (!qp || !ibv_destroy_qp(qp)) &&
	      (!cq || !ibv_destroy_cq(cq)) && !ibv_dealloc_pd(pd) &&
	      !ibv_close_device(ctx), "everything released");
	if (buf)
		munmap(buf, MR_BYTES);
	return tap_done();
}
