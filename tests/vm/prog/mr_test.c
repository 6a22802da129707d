// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr_test DEVICE: memory registration through the public libibverbs API
 * only. Every access combination, sizes from 1 byte to 64 MiB, the
 * refusals (bad flags, empty, too big, unmapped, read-only memory made
 * writable), keys (never 0, new on every registration, kept by a
 * rereg), rereg of translation, access and PD, 1000 MRs at once, and a
 * close with MRs still registered. Prints TAP; exits non-zero if any test failed.
 *
 * mr_test DEVICE hold: register 100 MRs, print "ready", wait to be killed
 * (the device is removed under it meanwhile).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define NMANY	1000
#define NREREG	100
#define BIG	(64UL << 20)

static size_t pagesz;

/* Later tests need the earlier ones; stop with a plan that says so. */
static int bail(void)
{
	tap_done();
	return 1;
}

static const char *err(const void *p)
{
	return p ? "ok" : strerror(errno);
}

static void *map_pages(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A registration that must fail with want_errno. */
static void check_refused(struct ibv_pd *pd, void *addr, size_t len,
			  int access, int want_errno, const char *what)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(pd, addr, len, access);
	check(!mr && errno == want_errno, "%s: refused with %s (%s)", what,
	      strerror(want_errno), mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
}

static void check_access_combinations(struct ibv_pd *pd, void *buf)
{
	int acc;

	for (acc = 0; acc < 32; acc++) {
		int valid = !(acc & (IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_ATOMIC)) ||
			    (acc & IBV_ACCESS_LOCAL_WRITE);
		struct ibv_mr *mr;

		errno = 0;
		mr = ibv_reg_mr(pd, buf, pagesz, acc);
		if (valid)
			check(mr && mr->lkey && mr->rkey,
			      "access 0x%02x: registered, keys non-zero (%s)",
			      acc, err(mr));
		else
			check(!mr && errno == EINVAL,
			      "access 0x%02x: refused with EINVAL (%s)", acc,
			      mr ? "registered" : strerror(errno));
		if (mr)
			check(ibv_dereg_mr(mr) == 0, "access 0x%02x: dereg",
			      acc);
	}
}

#define RDWR	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
		 IBV_ACCESS_REMOTE_WRITE)

static void check_one_size(struct ibv_pd *pd, char *addr, size_t len,
			   int access, const char *what)
{
	struct ibv_mr *mr;

	mr = ibv_reg_mr(pd, addr, len, access);
	check(mr && mr->addr == addr && mr->length == len && mr->lkey,
	      "%s (%zu bytes at page offset %zu): registered (%s)", what, len,
	      (size_t)((uintptr_t)addr % pagesz), err(mr));
	if (mr)
		check(ibv_dereg_mr(mr) == 0, "%s: dereg", what);
}

static void check_sizes(struct ibv_pd *pd, struct ibv_device_attr *dattr)
{
	char *buf = map_pages(4 * pagesz, PROT_READ | PROT_WRITE);
	char *big = map_pages(BIG, PROT_READ | PROT_WRITE);
	char *ro = map_pages(pagesz, PROT_READ);
	char *gone = map_pages(pagesz, PROT_READ | PROT_WRITE);

	if (!check(buf && big && ro && gone, "test buffers mapped"))
		return;
	munmap(gone, pagesz);

	check_one_size(pd, buf, 1, RDWR, "1 byte");
	check_one_size(pd, buf + pagesz - 1, 1, RDWR, "the last byte of a page");
	check_one_size(pd, buf, pagesz, RDWR, "one page");
	check_one_size(pd, buf + 123, 2 * pagesz, RDWR,
		       "unaligned, 3 pages spanned");
	check_one_size(pd, buf + pagesz - 2, 4, RDWR,
		       "4 bytes across a page boundary");
	check_one_size(pd, big, BIG, RDWR, "64 MiB");
	check_one_size(pd, ro, pagesz, IBV_ACCESS_REMOTE_READ,
		       "read-only memory, remote read");

	check_refused(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE, EINVAL, "length 0");
	check_refused(pd, buf, dattr->max_mr_size + 1, 0, EINVAL,
		      "one byte over max_mr_size");
	check_refused(pd, gone, pagesz, IBV_ACCESS_LOCAL_WRITE, EFAULT,
		      "an unmapped address");
	munmap(buf + 3 * pagesz, pagesz);
	check_refused(pd, buf + 2 * pagesz, 2 * pagesz, 0, EFAULT,
		      "a range running into unmapped memory");
	check_refused(pd, ro, pagesz, IBV_ACCESS_LOCAL_WRITE, EFAULT,
		      "read-only memory, local write");

	munmap(buf, 3 * pagesz);
	munmap(big, BIG);
	munmap(ro, pagesz);
}

static int key_seen(const uint32_t *keys, int n, uint32_t key)
{
	int i;

	for (i = 0; i < n; i++)
		if (keys[i] == key)
			return 1;
	return 0;
}

/* The same buffer again and again: a new key every time, never 0. */
static void check_keys(struct ibv_pd *pd, char *buf)
{
	uint32_t keys[NREREG];
	int i, zero = 0, dup = 0, lr = 0, n = 0;

	for (i = 0; i < NREREG; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, pagesz,
					       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_READ);

		if (!mr)
			break;
		zero += !mr->lkey || !mr->rkey;
		lr += mr->lkey != mr->rkey;
		dup += key_seen(keys, n, mr->lkey);
		keys[n++] = mr->lkey;
		if (ibv_dereg_mr(mr))
			break;
	}
	check(n == NREREG, "%d of %d registrations of one buffer", n, NREREG);
	check(!zero, "no key was 0 (%d were)", zero);
	check(!dup, "every registration had a new key (%d repeats)", dup);
	check(!lr, "lkey == rkey (%d differed)", lr);
}

static int can_read_via(struct ibv_mr *mr, void *addr, size_t len)
{
	return mr->addr == addr && mr->length == len;
}

static void check_rereg(struct ibv_context *ctx, struct ibv_pd *pd,
			char *buf, char *buf2)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	uint32_t key;
	struct ibv_mr *mr;
	int ret;

	if (!check(pd2 != NULL, "a second PD (%s)", err(pd2)))
		return;
	mr = ibv_reg_mr(pd, buf, pagesz, IBV_ACCESS_LOCAL_WRITE);
	if (!check(mr != NULL, "an MR to rereg (%s)", err(mr))) {
		ibv_dealloc_pd(pd2);
		return;
	}

	key = mr->lkey;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE);
	check(ret == 0 && mr->lkey == key && mr->rkey == mr->lkey,
	      "rereg access: key 0x%x kept (was 0x%x) (%d %s)", mr->lkey, key,
	      ret, ret ? strerror(errno) : "ok");

	key = mr->lkey;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf2 + 7,
			   3 * pagesz, 0);
	check(ret == 0 && mr->lkey == key && can_read_via(mr, buf2 + 7,
							  3 * pagesz),
	      "rereg translation: new range, key kept (%d %s)", ret,
	      ret ? strerror(errno) : "ok");

	key = mr->lkey;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	check(ret == 0 && mr->pd == pd2 && mr->lkey == key,
	      "rereg PD: moved to the second PD, key kept (%d %s)", ret,
	      ret ? strerror(errno) : "ok");
	ret = ibv_dealloc_pd(pd2);
	check(ret == EBUSY, "the second PD is busy with the MR (%d)", ret);

	key = mr->lkey;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD |
			   IBV_REREG_MR_CHANGE_ACCESS |
			   IBV_REREG_MR_CHANGE_TRANSLATION, pd, buf, pagesz,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	check(ret == 0 && mr->pd == pd && mr->lkey == key &&
	      can_read_via(mr, buf, pagesz),
	      "rereg all three at once (%d %s)", ret,
	      ret ? strerror(errno) : "ok");

	key = mr->lkey;
	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_REMOTE_WRITE);
	check(ret != 0 && errno == EINVAL && mr->lkey == key,
	      "rereg to remote write without local write: EINVAL, MR kept (%s)",
	      ret ? strerror(errno) : "succeeded");
	errno = 0;
	ret = ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0);
	check(ret != 0 && errno == EINVAL, "rereg with no flags: EINVAL (%s)",
	      ret ? strerror(errno) : "succeeded");
	check(ibv_dereg_mr(mr) == 0, "the MR deregisters after rereg");
	check(ibv_dealloc_pd(pd2) == 0, "the second PD frees after the MR");
}

/* Read-only pages first, then made writable: rereg must pin again. */
static void check_rereg_writable(struct ibv_pd *pd, char *buf)
{
	struct ibv_mr *mr;
	int ret;

	mr = ibv_reg_mr(pd, buf, pagesz, IBV_ACCESS_REMOTE_READ);
	if (!check(mr != NULL, "a read-only MR (%s)", err(mr)))
		return;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	check(ret == 0, "rereg read-only to writable (%d %s)", ret,
	      ret ? strerror(errno) : "ok");
	check(ibv_dereg_mr(mr) == 0, "dereg after the upgrade");
}

static void check_many(struct ibv_pd *pd)
{
	size_t len = NMANY * pagesz;
	char *buf = map_pages(len, PROT_READ | PROT_WRITE);
	struct ibv_mr **mrs = calloc(NMANY, sizeof(*mrs));
	uint32_t *keys = calloc(NMANY, sizeof(*keys));
	int i, n, dup = 0, freed = 0;

	if (!check(buf && mrs && keys, "room for %d MRs", NMANY))
		goto out;
	for (n = 0; n < NMANY; n++) {
		mrs[n] = ibv_reg_mr(pd, buf + n * pagesz, pagesz,
				    IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[n])
			break;
		dup += key_seen(keys, n, mrs[n]->lkey);
		keys[n] = mrs[n]->lkey;
	}
	check(n == NMANY, "%d MRs registered at once (%s)", n,
	      n == NMANY ? "ok" : strerror(errno));
	check(!dup, "all their keys differ (%d repeats)", dup);
	check(ibv_dealloc_pd(pd) == EBUSY, "their PD is busy");
	for (i = 0; i < n; i++)
		freed += ibv_dereg_mr(mrs[i]) == 0;
	check(freed == n, "%d of %d deregistered", freed, n);
out:
	free(keys);
	free(mrs);
	if (buf)
		munmap(buf, len);
}

static int hold(struct ibv_pd *pd)
{
	size_t len = 100 * pagesz;
	char *buf = map_pages(len, PROT_READ | PROT_WRITE);
	int i;

	if (!buf)
		return 1;
	for (i = 0; i < 100; i++)
		if (!ibv_reg_mr(pd, buf + i * pagesz, pagesz,
				IBV_ACCESS_LOCAL_WRITE))
			return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	struct ibv_device_attr dattr;
	struct ibv_context *ctx;
	struct ibv_mr *left[10];
	struct ibv_pd *pd;
	char *buf, *buf2;
	int nleft;

	if (argc != 2 && (argc != 3 || strcmp(argv[2], "hold"))) {
		fprintf(stderr, "usage: %s DEVICE [hold]\n", argv[0]);
		return 2;
	}
	pagesz = sysconf(_SC_PAGESIZE);

	ctx = open_dev(argv[1]);
	if (!check(ctx != NULL, "open %s (%s)", argv[1], err(ctx)))
		return bail();

	memset(&dattr, 0, sizeof(dattr));
	if (!check(ibv_query_device(ctx, &dattr) == 0, "ibv_query_device"))
		return bail();
	check(dattr.max_mr >= NMANY, "max_mr %d", dattr.max_mr);
	check(dattr.max_mr_size >= BIG, "max_mr_size %llu",
	      (unsigned long long)dattr.max_mr_size);
	check(dattr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS,
	      "fast registration (REG_MR, LOCAL_INV) is advertised");

	pd = ibv_alloc_pd(ctx);
	buf = map_pages(4 * pagesz, PROT_READ | PROT_WRITE);
	buf2 = map_pages(4 * pagesz, PROT_READ | PROT_WRITE);
	if (!check(pd && buf && buf2, "a PD and buffers (%s)", err(pd)))
		return bail();
	if (argc == 3)
		return hold(pd);

	check_access_combinations(pd, buf);
	check_sizes(pd, &dattr);
	check_keys(pd, buf);
	check_rereg(ctx, pd, buf, buf2);
	check_rereg_writable(pd, buf);
	check_many(pd);

	/* Left for the kernel to clean up when the device closes. */
	for (nleft = 0; nleft < 10; nleft++) {
		left[nleft] = ibv_reg_mr(pd, buf, pagesz, IBV_ACCESS_LOCAL_WRITE);
		if (!left[nleft])
			break;
	}
	check(nleft == 10, "10 MRs left registered");
	check(ibv_close_device(ctx) == 0, "close with MRs and a PD still held");

	return tap_done();
}
