// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rds_test: RDS sockets forced onto the IB transport (rds_rdma), all on
 * one address so the connection loops back through the RDMA device, in
 * one thread with non-blocking sends (a blocking sender can deadlock
 * against RDS congestion control). Every byte of every message is
 * checked, and so is the order of each socket pair's messages.
 *
 *   rds_test -a ADDR -m pingpong|bulk [-s SIZE] [-n COUNT] [-k PAIRS]
 *            [-p BASE_PORT] [-t SECONDS] [-w WINDOW]
 *
 * pingpong: one pair, COUNT messages of SIZE each way, each echoed
 * before the next; bulk: PAIRS pairs, each sender streaming COUNT
 * messages of SIZE to its receiver, at most WINDOW of them in flight
 * if WINDOW is given (a steady stream, as rds-stress's queue depth;
 * without it the sender queues all it can at once). Both check at the
 * end that the RDS connection used is an IB one (RDS_INFO_IB_CONNECTIONS),
 * print TAP and a "# rate" line (make bench reads it). The run fails if
 * nothing moves for SECONDS (default 60).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define HDR_MAGIC 0x52445354u	/* "RDST" */
#define MAX_PAIRS 64

struct msg_hdr {
	uint32_t magic;
	uint32_t pair;
	uint64_t seq;
	uint32_t len;
};

struct pair {
	int tx, rx;
	struct sockaddr_in tx_addr, rx_addr;
	uint64_t sent, got;
};

static struct in_addr addr;
static size_t size = 1024;
static unsigned long count = 100;
static int npairs = 1, base_port = 18000, stall_s = 60;
/* Bulk: most messages a pair has in flight (sent, not yet received); 0 none. */
static unsigned long window;
static struct pair pairs[MAX_PAIRS];
static unsigned char *sbuf, *rbuf;
/* Why the bulk sender stopped, and how long it waited: the rate's context. */
static unsigned long n_eagain, n_enobufs, n_enomem, n_polls;
static double poll_s;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char pattern(uint32_t pair, uint64_t seq, size_t i)
{
	return (unsigned char)(i * 31 + seq * 7 + pair * 131 + (i >> 8));
}

static void fill(unsigned char *b, uint32_t pair, uint64_t seq)
{
	struct msg_hdr h = { HDR_MAGIC, pair, seq, (uint32_t)size };
	size_t i;

	for (i = sizeof(h); i < size; i++)
		b[i] = pattern(pair, seq, i);
	memcpy(b, &h, sizeof(h));
}

/* 0 if @b (@len bytes) is message @seq of @pair, else a message why not. */
static const char *bad_msg(const unsigned char *b, ssize_t len, uint32_t pair,
			   uint64_t seq)
{
	static char why[160];
	struct msg_hdr h;
	size_t i;

	if (len != (ssize_t)size) {
		snprintf(why, sizeof(why), "length %zd, want %zu", len, size);
		return why;
	}
	memcpy(&h, b, sizeof(h));
	if (h.magic != HDR_MAGIC || h.pair != pair || h.seq != seq) {
		snprintf(why, sizeof(why),
			 "header magic %#x pair %u seq %llu, want pair %u seq %llu",
			 h.magic, h.pair, (unsigned long long)h.seq, pair,
			 (unsigned long long)seq);
		return why;
	}
	for (i = sizeof(h); i < size; i++)
		if (b[i] != pattern(pair, seq, i)) {
			snprintf(why, sizeof(why),
				 "byte %zu of message %llu is %#x, want %#x", i,
				 (unsigned long long)seq, b[i],
				 pattern(pair, seq, i));
			return why;
		}
	return NULL;
}

static int rds_socket(int port, struct sockaddr_in *sa)
{
	int fd, t = RDS_TRANS_IB, buf = 8 << 20;

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &t, sizeof(t)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)))
		goto fail;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr = addr;
	sa->sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Send message @seq of pair @p: 1 sent, 0 try later, -1 error. */
static int try_send(struct pair *p, int idx, uint64_t seq)
{
	ssize_t n;

	fill(sbuf, idx, seq);
	n = sendto(p->tx, sbuf, size, MSG_DONTWAIT,
		   (struct sockaddr *)&p->rx_addr, sizeof(p->rx_addr));
	if (n == (ssize_t)size)
		return 1;
	if (n < 0 && (errno == EAGAIN || errno == ENOBUFS || errno == ENOMEM)) {
		n_eagain += errno == EAGAIN;
		n_enobufs += errno == ENOBUFS;
		n_enomem += errno == ENOMEM;
		return 0;
	}
	check(0, "send of message %llu on pair %d: %s",
	      (unsigned long long)seq, idx, n < 0 ? strerror(errno) : "short");
	return -1;
}

/* Receive on @fd without waiting: length, 0 nothing there, -1 error. */
static ssize_t try_recv(int fd)
{
	ssize_t n = recv(fd, rbuf, size + 1, MSG_DONTWAIT);

	if (n >= 0)
		return n;
	if (errno == EAGAIN)
		return 0;
	check(0, "recv: %s", strerror(errno));
	return -1;
}

/* Has pair @p more of its first @upto messages to send, within the window? */
static bool may_send(const struct pair *p, unsigned long upto)
{
	return p->sent < upto && (!window || p->sent - p->got < window);
}

/* Wait until some socket of the test can move, or @stall_s seconds. */
static int wait_any(double last_progress, unsigned long upto)
{
	struct pollfd pf[2 * MAX_PAIRS];
	double t;
	int i;

	for (i = 0; i < npairs; i++) {
		pf[2 * i] = (struct pollfd){ .fd = pairs[i].rx, .events = POLLIN };
		pf[2 * i + 1] = (struct pollfd){ .fd = pairs[i].tx,
			.events = may_send(&pairs[i], upto) ? POLLOUT | POLLIN : POLLIN };
	}
	t = now();
	poll(pf, 2 * npairs, 100);
	poll_s += now() - t;
	n_polls++;
	if (now() - last_progress > stall_s) {
		check(0, "nothing moved for %d s", stall_s);
		return -1;
	}
	return 0;
}

/*
 * Stream on every pair until each has sent and received its first @upto
 * messages (the messages carry their sequence numbers, so the order is
 * checked across calls).
 */
static int pump(unsigned long upto)
{
	unsigned long long total = 0, want = 0;
	double last = now();
	const char *why;
	int i, moved, r = 0;
	ssize_t n;

	for (i = 0; i < npairs; i++) {
		want += upto;
		total += pairs[i].got;
	}
	while (total < want) {
		moved = 0;
		for (i = 0; i < npairs; i++) {
			struct pair *p = &pairs[i];

			while (may_send(p, upto) && (r = try_send(p, i, p->sent)) > 0) {
				p->sent++;
				moved = 1;
			}
			if (p->sent < upto && r < 0)
				return -1;
			while ((n = try_recv(p->rx)) > 0) {
				why = bad_msg(rbuf, n, i, p->got);
				if (why) {
					check(0, "pair %d: %s", i, why);
					return -1;
				}
				p->got++;
				total++;
				moved = 1;
			}
			if (n < 0)
				return -1;
		}
		if (moved)
			last = now();
		else if (wait_any(last, upto))
			return -1;
	}
	return 0;
}

/*
 * The first message of each pair brings the RDS connection up (an RDMA
 * CM connect); the clock starts when it is through, so the rate is of
 * the transfer alone.
 */
static int bulk(void)
{
	double t0, dt;
	unsigned long long total;

	if (pump(1))
		return -1;
	t0 = now();
	n_eagain = n_enobufs = n_enomem = n_polls = 0;
	poll_s = 0;
	if (pump(count))
		return -1;
	dt = now() - t0;
	printf("# sender refused: %lu EAGAIN, %lu ENOBUFS, %lu ENOMEM; %lu polls, %.3f s in poll\n",
	       n_eagain, n_enobufs, n_enomem, n_polls, poll_s);
	total = (unsigned long long)(count - 1) * npairs;
	printf("# rate: %.0f msg/s %.2f MB/s (%d pairs, %zu B, %.2f s)\n",
	       total / dt, total * (double)size / dt / 1e6, npairs, size, dt);
	return 0;
}

/* Wait for one message on @fd into rbuf: its length, or -1. */
static ssize_t recv_one(int fd)
{
	double last = now();
	ssize_t n;

	for (;;) {
		n = try_recv(fd);
		if (n)
			return n;
		if (wait_any(last, count))
			return -1;
	}
}

/* Send until it goes: 0, or -1. */
static int send_one(int idx, uint64_t seq, int tx, struct sockaddr_in *to)
{
	double last = now();
	ssize_t n;

	for (;;) {
		fill(sbuf, idx, seq);
		n = sendto(tx, sbuf, size, MSG_DONTWAIT, (struct sockaddr *)to,
			   sizeof(*to));
		if (n == (ssize_t)size)
			return 0;
		if (n >= 0 || (errno != EAGAIN && errno != ENOBUFS && errno != ENOMEM)) {
			check(0, "send of message %llu: %s",
			      (unsigned long long)seq, n < 0 ? strerror(errno) : "short");
			return -1;
		}
		if (wait_any(last, count))
			return -1;
	}
}

/*
 * Message @seq of stream @idx from socket @tx to @to, received on @rx and
 * checked: 0, or -1 (said as "@what").
 */
static int hop(int idx, uint64_t seq, int tx, struct sockaddr_in *to, int rx,
	       const char *what)
{
	const char *why;
	ssize_t n;

	if (send_one(idx, seq, tx, to))
		return -1;
	n = recv_one(rx);
	why = n < 0 ? "no message" : bad_msg(rbuf, n, idx, seq);
	if (why) {
		check(0, "%s %llu: %s", what, (unsigned long long)seq, why);
		return -1;
	}
	return 0;
}

/* A sends message i to B, B checks it and sends its own message i back. */
static int pingpong(void)
{
	struct pair *p = &pairs[0];
	double t0 = now(), dt;
	unsigned long i;

	for (i = 0; i < count; i++)
		if (hop(0, i, p->tx, &p->rx_addr, p->rx, "ping") ||
		    hop(1, i, p->rx, &p->tx_addr, p->tx, "pong"))
			return -1;
	dt = now() - t0;
	printf("# rate: %.0f msg/s %.1f us/round trip (%zu B, %lu round trips)\n",
	       2 * count / dt, dt / count * 1e6, size, count);
	return 0;
}

/* How many RDS connections on the IB transport are from ADDR to ADDR. */
static int ib_connections(int fd)
{
	struct rds_info_rdma_connection *c;
	socklen_t len = 0;
	int each, n = 0, i;
	char *buf = NULL;

	for (;;) {
		each = getsockopt(fd, SOL_RDS, RDS_INFO_IB_CONNECTIONS, buf, &len);
		if (each >= 0 || errno != ENOSPC)
			break;
		free(buf);
		buf = malloc(len ? len : 1);
		if (!buf)
			return -1;
	}
	if (each <= 0) {
		free(buf);
		return each < 0 ? -1 : 0;
	}
	for (i = 0; (socklen_t)((i + 1) * each) <= len; i++) {
		c = (struct rds_info_rdma_connection *)(buf + i * each);
		if (c->src_addr == addr.s_addr && c->dst_addr == addr.s_addr)
			n++;
	}
	free(buf);
	return n;
}

static int usage(void)
{
	fprintf(stderr, "usage: rds_test -a ADDR -m pingpong|bulk [-s SIZE] [-n COUNT] "
		"[-k PAIRS] [-p BASE_PORT] [-t SECONDS] [-w WINDOW]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	int opt, i, r, conns;

	while ((opt = getopt(argc, argv, "a:m:s:n:k:p:t:w:")) != -1) {
		switch (opt) {
		case 'a':
			if (inet_pton(AF_INET, optarg, &addr) != 1)
				return usage();
			break;
		case 'm': mode = optarg; break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'k': npairs = atoi(optarg); break;
		case 'p': base_port = atoi(optarg); break;
		case 't': stall_s = atoi(optarg); break;
		case 'w': window = strtoul(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	if (!mode || !addr.s_addr || size < sizeof(struct msg_hdr) ||
	    size > (1 << 20) || npairs < 1 || npairs > MAX_PAIRS || !count ||
	    (strcmp(mode, "bulk") && strcmp(mode, "pingpong")))
		return usage();
	if (!strcmp(mode, "pingpong"))
		npairs = 1;
	sbuf = malloc(size);
	rbuf = malloc(size + 1);
	if (!sbuf || !rbuf)
		return 1;
	for (i = 0; i < npairs; i++) {
		pairs[i].tx = rds_socket(base_port + 2 * i, &pairs[i].tx_addr);
		pairs[i].rx = rds_socket(base_port + 2 * i + 1, &pairs[i].rx_addr);
		if (pairs[i].tx < 0 || pairs[i].rx < 0) {
			check(0, "RDS socket on the IB transport, bound to %s:%d: %s",
			      inet_ntoa(addr), base_port + 2 * i, strerror(errno));
			return tap_done();
		}
	}
	r = !strcmp(mode, "bulk") ? bulk() : pingpong();
	if (r)
		return tap_done();
	check(1, "%s: %lu messages of %zu B on %d socket pairs, every byte checked, in order",
		      mode, count, size, npairs);
	conns = ib_connections(pairs[0].tx);
	check(conns > 0, "the messages went over an RDS IB connection (%d)", conns);
	for (i = 0; i < npairs; i++) {
		close(pairs[i].tx);
		close(pairs[i].rx);
	}
	return tap_done();
}
