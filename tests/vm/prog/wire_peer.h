/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An RC peer played on the wire (a19_wire, sr_wire): programs called
 * DEVICE GID_INDEX PEER_IFACE give DEVICE (sroce, 10.99.0.1) QPs that talk
 * to 10.99.0.2, QPN WIRE_PEER_QPN, which is PEER_IFACE, the other end of
 * DEVICE's veth; frames are sent and captured there raw (AF_PACKET), built
 * and read with the driver's proto/ code (rawframe.h).
 */
#ifndef SROCE_PROG_WIRE_PEER_H
#define SROCE_PROG_WIRE_PEER_H

#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "rawframe.h"

#define WIRE_PEER_QPN	0x777

static struct {
	const char *dev;		/* DEVICE */
	struct ibv_context *ctx;
	int gidx;
	int fd, ifindex;		/* the raw socket on PEER_IFACE */
	unsigned char peer_mac[6], dev_mac[6];
	in_addr_t peer_ip, dev_ip;
} wire;

/*
 * What one packet from sroce was: parsed, whether its ICRC was right, and
 * when it reached PEER_IFACE (CLOCK_REALTIME, ns).
 */
struct wire_got {
	unsigned char frame[2048];
	struct sroce_pkt pkt;
	int icrc_ok;
	long long ns;
};

/*
 * A frame to @qp from @sip (the peer's address, or a stranger's), its IP
 * TOS byte @tos (ECN in the low two bits), with @paylen bytes of @pay:
 * 0, or -1. @f's P_Key is the port's (0xffff) where it is 0. The ICRC
 * masks the TOS; the IP checksum is made again.
 */
static __attribute__((unused)) int wire_send_as(struct ibv_qp *qp,
						struct sroce_fields *f,
						const void *pay, int paylen,
						in_addr_t sip, int tos)
{
	unsigned char l4[1152], fr[1280];	/* a full 1024-byte MTU fits */
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_ifindex = wire.ifindex,
		.sll_halen = 6,
	};
	int n, len;

	/* The port's P_Key unless the caller set another. */
	if (!f->pkey)
		f->pkey = SROCE_DEFAULT_PKEY;
	f->dqpn = qp->qp_num;
	f->pad = sroce_pad(paylen);
	n = sroce_hdrs_encode(l4, sizeof(l4), f);
	if (!n || n + paylen + f->pad + SROCE_ICRC_LEN > (int)sizeof(l4))
		return -1;
	memcpy(l4 + n, pay, paylen);
	n += paylen;
	memset(l4 + n, 0, f->pad + SROCE_ICRC_LEN);
	n += f->pad + SROCE_ICRC_LEN;
	len = frame(fr, wire.dev_mac, wire.peer_mac, sip, wire.dev_ip, 0, l4,
		    n, 1);
	if (tos) {
		unsigned short c;

		fr[14 + 1] = tos;
		fr[14 + 10] = 0;
		fr[14 + 11] = 0;
		c = ip_csum(fr + 14, 20);
		fr[14 + 10] = c >> 8;
		fr[14 + 11] = c & 0xff;
	}
	memcpy(sll.sll_addr, wire.dev_mac, 6);
	return sendto(wire.fd, fr, len, 0, (struct sockaddr *)&sll,
		      sizeof(sll)) == len ? 0 : -1;
}

/* A frame from the peer to @qp, with @paylen bytes of @pay: 0, or -1. */
static __attribute__((unused)) int wire_send(struct ibv_qp *qp,
					     struct sroce_fields *f,
					     const void *pay, int paylen)
{
	return wire_send_as(qp, f, pay, paylen, wire.peer_ip, 0);
}

/* The next RoCE packet from sroce within @ms: 1, or 0. */
static int wire_recv(struct wire_got *g, int ms)
{
	long long end = tap_now_ms() + ms;
	struct pollfd p = { .fd = wire.fd, .events = POLLIN };
	char ctl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { .iov_base = g->frame, .iov_len = sizeof(g->frame) };
	struct sockaddr_ll from;
	struct msghdr mh = {
		.msg_name = &from, .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl,
	};
	struct cmsghdr *c;
	struct timespec ts;
	unsigned char *ip, *udp;
	int n, ihl, tot;

	while (tap_now_ms() < end) {
		if (poll(&p, 1, (int)(end - tap_now_ms())) <= 0)
			continue;
		mh.msg_namelen = sizeof(from);
		mh.msg_controllen = sizeof(ctl);
		n = recvmsg(wire.fd, &mh, 0);
		g->ns = 0;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_TIMESTAMPNS) {
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				g->ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
			}
		if (n < 14 + 20 + 8 || from.sll_pkttype == PACKET_OUTGOING ||
		    g->frame[12] != 0x08 || g->frame[13] != 0x00)
			continue;
		ip = g->frame + 14;
		ihl = (ip[0] & 0xf) * 4;
		tot = ip[2] << 8 | ip[3];
		udp = ip + ihl;
		if (ip[9] != 17 || memcmp(ip + 12, &wire.dev_ip, 4) ||
		    tot > n - 14 || tot < ihl + 8 ||
		    (udp[2] << 8 | udp[3]) != SROCE_UDP_DPORT)
			continue;
		g->icrc_ok = sroce_icrc_ok(ip, tot);
		if (sroce_parse(udp + 8, tot - ihl - 8, 0, &g->pkt) ==
		    SROCE_PARSE_OK)
			return 1;
	}
	return 0;
}

/* Nothing from sroce within @ms. */
static __attribute__((unused)) int wire_silence(int ms)
{
	struct wire_got g;

	return !wire_recv(&g, ms);
}

/*
 * An answer from sroce within 10 s into @g: this opcode, PSN, AETH syndrome,
 * MSN (unless ~0u) and SR bit (unless -1), no payload, to the peer's QPN,
 * a good ICRC. NULL, or what came instead.
 */
static __attribute__((unused)) const char *
wire_expect(struct wire_got *g, int opcode, unsigned int psn, int syn,
	    unsigned int msn, int sr)
{
	static char why[200];
	const struct sroce_fields *f = &g->pkt.f;

	if (!wire_recv(g, 10000))
		return "no answer";
	if (f->opcode != opcode || f->psn != psn || f->aeth.syndrome != syn ||
	    (msn != ~0u && f->aeth.msn != msn) || (sr >= 0 && f->sr != sr) ||
	    g->pkt.pay_len || f->dqpn != WIRE_PEER_QPN || !g->icrc_ok) {
		snprintf(why, sizeof(why),
			 "got %s PSN %#x syndrome %#x MSN %u SR %d, %u payload bytes, QPN %#x, ICRC %s",
			 g->pkt.info->name, f->psn, f->aeth.syndrome,
			 f->aeth.msn, f->sr, g->pkt.pay_len, f->dqpn,
			 g->icrc_ok ? "ok" : "bad");
		return why;
	}
	return NULL;
}

/* Is @qp in @want within 10 s? (A NAK leaves before the QP goes to ERR.) */
static __attribute__((unused)) int wire_qp_in(struct ibv_qp *qp, int want)
{
	long long end = tap_now_ms() + 10000;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	do {
		if (!ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) &&
		    (int)a.qp_state == want)
			return 1;
		usleep(10000);
	} while (tap_now_ms() < end);
	return 0;
}

/*
 * Counter @name reaches @want within 10 s (the core caches the device's
 * counters for a few milliseconds): its value then, or the last seen.
 */
static __attribute__((unused)) long long wire_counter_at(const char *name,
							 long long want)
{
	long long end = tap_now_ms() + 10000, v;

	do {
		v = hw_counter(wire.dev, name);
		if (v == want)
			break;
		usleep(20000);
	} while (tap_now_ms() < end);
	return v;
}

/*
 * RC @qp from RESET to RTS with the peer: the peer may do @access, with
 * @res responder resources; the peer's requests start at @rq_psn, sroce's
 * at @sq_psn, with the local ACK timeout @timeout. 0, or -1.
 */
static __attribute__((unused)) int wire_qp_rts(struct ibv_qp *qp, int access,
					       int res, unsigned int rq_psn,
					       unsigned int sq_psn,
					       int timeout)
{
	struct tap_rts r = {
		.dqpn = WIRE_PEER_QPN, .gidx = wire.gidx,
		.access = access, .res = res,
		.rq_psn = rq_psn, .sq_psn = sq_psn, .timeout = timeout,
	};

	/* ::ffff:10.99.0.2 */
	r.dgid.raw[10] = 0xff;
	r.dgid.raw[11] = 0xff;
	memcpy(&r.dgid.raw[12], &wire.peer_ip, 4);
	return qp_to_rts_with(qp, &r);
}

static int wire_mac_of(const char *ifname, unsigned char *mac)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(wire.fd, SIOCGIFHWADDR, &ifr) < 0)
		return -1;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/* The netdev of GID @gidx of @dev into @netdev (IFNAMSIZ), or "". */
static void wire_gid_netdev(const char *dev, int gidx, char *netdev)
{
	char path[256];
	FILE *nf;

	netdev[0] = 0;
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/%d", dev,
		 gidx);
	nf = fopen(path, "r");
	if (!nf)
		return;
	if (fscanf(nf, "%15s", netdev) != 1)
		netdev[0] = 0;
	fclose(nf);
}

/*
 * main()'s start for DEVICE GID_INDEX PEER_IFACE: stdout line-buffered,
 * the raw socket bound to PEER_IFACE (its own frames not looped back to
 * it, a receive buffer for a window of sroce's, each frame stamped when it
 * arrives), both MACs, DEVICE opened
 * and its GID read, as the first check. The context, or NULL (the check
 * failed); a wrong command line exits with 2.
 */
static __attribute__((unused)) struct ibv_context *wire_open(int argc,
							     char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int one = 1, rcvbuf = 16 << 20;
	char netdev[IFNAMSIZ];
	union ibv_gid gid;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX PEER_IFACE\n",
			argv[0]);
		exit(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	wire.dev = argv[1];
	wire.gidx = atoi(argv[2]);
	wire.peer_ip = inet_addr("10.99.0.2");
	wire.dev_ip = inet_addr("10.99.0.1");
	wire_gid_netdev(wire.dev, wire.gidx, netdev);
	wire.fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	wire.ifindex = if_nametoindex(argv[3]);
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = wire.ifindex;
	wire.ctx = open_dev(wire.dev);
	if (!check(wire.fd >= 0 && wire.ifindex && netdev[0] &&
		   !bind(wire.fd, (struct sockaddr *)&sll, sizeof(sll)) &&
		   !setsockopt(wire.fd, SOL_PACKET, PACKET_IGNORE_OUTGOING,
			       &one, sizeof(one)) &&
		   !setsockopt(wire.fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			       sizeof(rcvbuf)) &&
		   !setsockopt(wire.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
			       sizeof(one)) &&
		   !wire_mac_of(argv[3], wire.peer_mac) &&
		   !wire_mac_of(netdev, wire.dev_mac) && wire.ctx &&
		   !ibv_query_gid(wire.ctx, 1, wire.gidx, &gid),
		   "a raw socket on %s, %s's netdev %s, its GID %d", argv[3],
		   wire.dev, netdev, wire.gidx))
		return NULL;
	return wire.ctx;
}

/* Counter @name reached @from + @by within 10 s: printed either way. */
static __attribute__((unused)) int wire_grew(const char *name, long long from,
					     long long by)
{
	long long v = wire_counter_at(name, from + by);

	printf("# %s %lld -> %lld, want +%lld\n", name, from, v, by);
	return v == from + by;
}

/* What a test against the played peer holds on the device. */
struct wire_rc {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned char *mem;	/* @len bytes, page-aligned, under @mr */
	struct ibv_mr *mr;
	struct ibv_qp *qp;	/* RC, in RTS with the peer */
};

/*
 * After wire_open(): a PD, a CQ for both queues, @len bytes of memory
 * registered with @access, and an RC QP in RTS with the peer as
 * wire_qp_rts() makes it (@access, 4 responder resources, the peer's
 * requests from @rq_psn, sroce's from @sq_psn, local ACK timeout 20), as
 * two checks. 0, or -1 (a check failed).
 */
static __attribute__((unused)) int wire_rc_open(struct wire_rc *r, size_t len,
						int access,
						unsigned int rq_psn,
						unsigned int sq_psn)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	r->pd = ibv_alloc_pd(wire.ctx);
	r->cq = ibv_create_cq(wire.ctx, 16, NULL, NULL, 0);
	r->mem = aligned_alloc(4096, len);
	if (!check(r->pd && r->cq && r->mem, "a PD, a CQ, the buffer"))
		return -1;
	r->mr = ibv_reg_mr(r->pd, r->mem, len, access);
	ia.send_cq = r->cq;
	ia.recv_cq = r->cq;
	r->qp = r->mr ? ibv_create_qp(r->pd, &ia) : NULL;
	if (!check(r->qp && !wire_qp_rts(r->qp, access, 4, rq_psn, sq_psn, 20),
		   "an MR, an RC QP in RTS with the peer"))
		return -1;
	return 0;
}

/* The end of such a test: the QP still in RTS, then all of it released. */
static __attribute__((unused)) void wire_rc_close(struct wire_rc *r)
{
	check(wire_qp_in(r->qp, IBV_QPS_RTS), "the QP is still in RTS");
	check(!ibv_destroy_qp(r->qp) && !ibv_dereg_mr(r->mr) &&
	      !ibv_destroy_cq(r->cq) && !ibv_dealloc_pd(r->pd) &&
	      !ibv_close_device(wire.ctx), "everything released");
	free(r->mem);
}

#endif /* SROCE_PROG_WIRE_PEER_H */
