// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_storm IFACE DST_MAC DST_IP STRANGER_IP PEER_IP COUNT SEED QPNS VICTIMS
 *
 * Sends COUNT hostile RoCEv2 frames out of IFACE (AF_PACKET) to DST_IP,
 * each of a kind drawn at random (SEED makes the draw repeatable):
 *   garbage     random bytes of random length after a valid UDP header
 *   badicrc     a well-formed request with one ICRC bit flipped
 *   badop       a reserved opcode
 *   ipopt       a good packet behind an IPv4 header with options
 *   udplen      a UDP length beyond the end of the frame
 *   short       a BTH cut short
 *   ud_qkey, ud_pkey, gsi_junk   datagrams to QP1: wrong Q_Key, wrong
 *               P_Key, random MADs
 *   stranger    a well-formed RC packet (any RC opcode, random PSN, SR and
 *               AckReq bits, keys, addresses and lengths) from STRANGER_IP
 *               to a live QPN (one of QPNS, or one just above the highest,
 *               where QPs created meanwhile land)
 *   cnp         a CNP from STRANGER_IP to such a QPN
 *   victim      the same RC packets from PEER_IP, the victims' own peer,
 *               to one of VICTIMS ("-" for none): a spoofer who knows the
 *               QPN and the peer
 *   victim_cnp  a CNP from PEER_IP to a victim
 * Prints one line per kind, "kind N", of what it sent. Built with the
 * driver's own proto/ code, so every frame but the malformed ones parses.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rawframe.h"

enum kind {
	K_GARBAGE, K_BADICRC, K_BADOP, K_IPOPT, K_UDPLEN, K_SHORT,
	K_UD_QKEY, K_UD_PKEY, K_GSI_JUNK, K_STRANGER, K_CNP, K_VICTIM,
	K_VICTIM_CNP, K_NR
};

static const char *const kind_name[K_NR] = {
	"garbage", "badicrc", "badop", "ipopt", "udplen", "short", "ud_qkey",
	"ud_pkey", "gsi_junk", "stranger", "cnp", "victim", "victim_cnp",
};

/* Every RC opcode the parser knows: requests and responses. */
static const unsigned char rc_ops[] = {
	SROCE_SEND_FIRST, SROCE_SEND_MIDDLE, SROCE_SEND_LAST,
	SROCE_SEND_LAST_IMM, SROCE_SEND_ONLY, SROCE_SEND_ONLY_IMM,
	SROCE_WRITE_FIRST, SROCE_WRITE_MIDDLE, SROCE_WRITE_LAST,
	SROCE_WRITE_LAST_IMM, SROCE_WRITE_ONLY, SROCE_WRITE_ONLY_IMM,
	SROCE_READ_REQ, SROCE_READ_RESP_FIRST, SROCE_READ_RESP_MIDDLE,
	SROCE_READ_RESP_LAST, SROCE_READ_RESP_ONLY, SROCE_ACK,
	SROCE_ATOMIC_ACK, SROCE_CMP_SWAP, SROCE_FETCH_ADD,
	SROCE_SEND_LAST_INV, SROCE_SEND_ONLY_INV, SROCE_FLUSH,
	SROCE_ATOMIC_WRITE,
};

#define QP1_QKEY	0x80010000u
#define MAX_QPNS	4096

static unsigned int qpns[MAX_QPNS], nqpns, qpn_top;
static unsigned int victims[MAX_QPNS], nvictims;

static unsigned int rnd32(void)
{
	return ((unsigned int)rand() << 16) ^ (unsigned int)rand();
}

static unsigned long long rnd64(void)
{
	return ((unsigned long long)rnd32() << 32) | rnd32();
}

static unsigned int parse_list(const char *s, unsigned int *out)
{
	unsigned int n = 0;
	char *end;

	if (!strcmp(s, "-"))
		return 0;
	while (*s && n < MAX_QPNS) {
		out[n++] = strtoul(s, &end, 0) & 0xffffff;
		if (end == s)
			break;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* Payload of 0..252 bytes after @n header bytes, then room for the ICRC. */
static int payload(unsigned char *buf, int n, int max)
{
	int len = (rand() % 64) * 4, i;

	if (len > max)
		len = max;
	for (i = 0; i < len; i++)
		buf[n + i] = rand();
	n += len;
	memset(buf + n, 0, SROCE_ICRC_LEN);
	return n + SROCE_ICRC_LEN;
}

/* A well-formed RC packet (or CNP if @cnp) to @qpn; its length. */
static int rc_packet(unsigned char *buf, unsigned int qpn, int cnp)
{
	struct sroce_fields f = { 0 };
	int n;

	if (cnp) {
		f.opcode = SROCE_CNP_OPCODE;
		f.becn = true;
	} else {
		f.opcode = (SROCE_TR_RC << 5) |
			   rc_ops[rand() % sizeof(rc_ops)];
		f.sr = rand() & 1;
		f.ackreq = rand() & 1;
		f.se = rand() & 1;
	}
	f.pkey = SROCE_DEFAULT_PKEY;
	f.dqpn = qpn;
	f.psn = rnd32() & 0xffffff;
	f.reth.va = rand() & 1 ? rnd64() : rnd32() & 0xffff;
	f.reth.rkey = rnd32();
	f.reth.len = rand() % 8192;
	f.aeth.syndrome = rand();
	f.aeth.msn = rnd32() & 0xffffff;
	f.atmeth.va = rnd64() & ~7ull;
	f.atmeth.rkey = rnd32();
	f.atmeth.swap_add = rnd64();
	f.atmeth.compare = rnd64();
	f.atmack_orig = rnd64();
	f.imm = rnd32();
	f.ieth_rkey = rnd32();
	f.feth.type = rand() & 3;
	f.feth.level = rand() & 1;
	n = sroce_hdrs_encode(buf, 128, &f);
	if (!n)
		return 0;
	return payload(buf, n, 256);
}

/* A UD SEND_ONLY to QP1. */
static int ud(unsigned char *buf, unsigned int qkey, unsigned int pkey)
{
	struct sroce_fields f = { 0 };
	int n;

	f.opcode = SROCE_OPCODE(UD, SEND_ONLY);
	f.pkey = pkey;
	f.dqpn = SROCE_GSI_QPN;
	f.psn = rnd32() & 0xffffff;
	f.deth.qkey = qkey;
	f.deth.sqpn = rnd32() & 0xffffff;
	n = sroce_hdrs_encode(buf, 64, &f);
	return payload(buf, n, 256);
}

static unsigned int live_qpn(void)
{
	if (!nqpns || rand() % 4 == 0)
		return (qpn_top + 1 + rand() % 128) & 0xffffff;
	return qpns[rand() % nqpns];
}

int main(int argc, char **argv)
{
	unsigned char smac[6], l4[2048], f[2200];
	in_addr_t dip, stranger, peer, sip;
	unsigned long sent[K_NR] = { 0 };
	struct sockaddr_ll sll;
	int fd, n, len, l4len, opt, fix;
	unsigned int i, k;
	long count;

	if (argc != 10) {
		fprintf(stderr,
			"usage: %s IFACE DST_MAC DST_IP STRANGER_IP PEER_IP COUNT SEED QPNS VICTIMS\n",
			argv[0]);
		return 2;
	}
	dip = inet_addr(argv[3]);
	stranger = inet_addr(argv[4]);
	peer = inet_addr(argv[5]);
	count = atol(argv[6]);
	srand(atoi(argv[7]));
	nqpns = parse_list(argv[8], qpns);
	nvictims = parse_list(argv[9], victims);
	for (i = 0; i < nqpns; i++)
		if (qpns[i] > qpn_top)
			qpn_top = qpns[i];

	fd = raw_sender(argv[1], argv[2], smac, &sll);
	if (fd < 0)
		return 1;

	for (; count > 0; count--) {
		k = rand() % K_NR;
		if ((k == K_VICTIM || k == K_VICTIM_CNP) && !nvictims)
			k = K_STRANGER;
		sip = stranger;
		opt = 0;
		fix = 1;
		switch (k) {
		case K_GARBAGE:
			l4len = rand() % 600;
			for (n = 0; n < l4len; n++)
				l4[n] = rand();
			fix = 0;
			break;
		case K_BADICRC:
		case K_IPOPT:
			l4len = rc_packet(l4, live_qpn(), 0);
			opt = k == K_IPOPT ? 4 : 0;
			break;
		case K_BADOP:
			l4len = rc_packet(l4, live_qpn(), 0);
			l4[0] = 0x18 + rand() % 4;	/* reserved RC opcodes */
			break;
		case K_UDPLEN:
		case K_SHORT:
			l4len = k == K_SHORT ? 1 + rand() % 11 : 40;
			for (n = 0; n < l4len; n++)
				l4[n] = rand();
			fix = 0;
			break;
		case K_UD_QKEY:
			l4len = ud(l4, rnd32() | 1, SROCE_DEFAULT_PKEY);
			break;
		case K_UD_PKEY:
			l4len = ud(l4, QP1_QKEY, 0x1234);
			break;
		case K_GSI_JUNK:
			l4len = ud(l4, QP1_QKEY, SROCE_DEFAULT_PKEY);
			break;
		case K_STRANGER:
		case K_CNP:
			l4len = rc_packet(l4, live_qpn(), k == K_CNP);
			break;
		default:
			sip = peer;
			l4len = rc_packet(l4, victims[rand() % nvictims],
					  k == K_VICTIM_CNP);
			break;
		}
		if (!l4len && k != K_GARBAGE) {
			fprintf(stderr, "roce_storm: kind %s: no packet\n",
				kind_name[k]);
			return 1;
		}
		len = frame(f, sll.sll_addr, smac, sip, dip, opt, l4, l4len, fix);
		if (k == K_BADICRC)
			f[len - 1] ^= 0x10;
		if (k == K_UDPLEN) {
			/* UDP length 64 bytes past the frame's end. */
			f[14 + 20 + 4] = (8 + l4len + 64) >> 8;
			f[14 + 20 + 5] = (8 + l4len + 64) & 0xff;
		}
		if (sendto(fd, f, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != len) {
			perror("sendto");
			return 1;
		}
		sent[k]++;
	}
	close(fd);
	for (k = 0; k < K_NR; k++)
		printf("%s %lu\n", kind_name[k], sent[k]);
	return 0;
}
