// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject IFACE DST_MAC SRC_IP DST_IP KIND COUNT: sends COUNT crafted
 * RoCEv2 frames of one KIND out of IFACE (an AF_PACKET socket), built with
 * the driver's own proto/ code:
 *   good     SEND_ONLY to QPN 0x123 with a correct ICRC
 *   badicrc  the same with one ICRC bit flipped
 *   badop    a reserved opcode (0x1f), correct ICRC
 *   ipopt    a good packet behind an IPv4 header with options
 *   garbage  random bytes of random length after a valid UDP header
 * and UD SEND_ONLY datagrams to the GSI QP (QP1), correct ICRC:
 *   ud_qkey  with a Q_Key that is not QP1's
 *   ud_pkey  with QP1's Q_Key and a P_Key that is not the port's
 *   gsi_big  a 1 KiB payload, more than a MAD
 *   gsi_junk random payloads of 0..256 bytes with QP1's Q_Key, for the
 *            MAD layer to survive
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

static int transport(unsigned char *buf, unsigned char opcode)
{
	struct sroce_fields f = { 0 };
	int n;

	f.opcode = opcode;
	f.pkey = SROCE_DEFAULT_PKEY;
	f.dqpn = 0x123;
	f.psn = 7;
	n = sroce_hdrs_encode(buf, 64, &f);
	if (!n) {
		/* An opcode the builder refuses: a BTH by hand. */
		memset(buf, 0, 12);
		buf[0] = opcode;
		buf[2] = 0xff;
		buf[3] = 0xff;
		buf[7] = 0x23;
		buf[6] = 0x01;
		n = 12;
	}
	memset(buf + n, 0xab, 16);	/* payload */
	n += 16;
	memset(buf + n, 0, SROCE_ICRC_LEN);
	return n + SROCE_ICRC_LEN;
}

#define QP1_QKEY	0x80010000u

/* A UD SEND_ONLY to QP1: @paylen bytes of payload, random if @rnd. */
static int ud(unsigned char *buf, unsigned int qkey, unsigned int pkey,
	      int paylen, int rnd)
{
	struct sroce_fields f = { 0 };
	int n, i;

	f.opcode = SROCE_OPCODE(UD, SEND_ONLY);
	f.pkey = pkey;
	f.dqpn = SROCE_GSI_QPN;
	f.psn = 7;
	f.deth.qkey = qkey;
	f.deth.sqpn = 0x4321;
	paylen &= ~3;	/* no pad: the parser wants PadCnt to fit */
	n = sroce_hdrs_encode(buf, 64, &f);
	for (i = 0; i < paylen; i++)
		buf[n + i] = rnd ? rand() : 0x01;
	n += paylen;
	memset(buf + n, 0, SROCE_ICRC_LEN);
	return n + SROCE_ICRC_LEN;
}

int main(int argc, char **argv)
{
	unsigned char smac[6], l4[2048], f[2200];
	struct sockaddr_ll sll;
	int fd, i, n, count, len, l4len;
	in_addr_t sip, dip;
	const char *kind;

	if (argc != 7) {
		fprintf(stderr, "usage: %s IFACE DST_MAC SRC_IP DST_IP KIND COUNT\n",
			argv[0]);
		return 2;
	}
	sip = inet_addr(argv[3]);
	dip = inet_addr(argv[4]);
	kind = argv[5];
	count = atoi(argv[6]);

	fd = raw_sender(argv[1], argv[2], smac, &sll);
	if (fd < 0)
		return 1;

	srand(4791);
	for (i = 0; i < count; i++) {
		if (!strcmp(kind, "garbage")) {
			l4len = rand() % 600;
			for (n = 0; n < l4len; n++)
				l4[n] = rand();
			len = frame(f, sll.sll_addr, smac, sip, dip, 0, l4, l4len, 0);
		} else if (!strncmp(kind, "ud_", 3) || !strncmp(kind, "gsi_", 4)) {
			if (!strcmp(kind, "ud_qkey"))
				l4len = ud(l4, 0x12345678, SROCE_DEFAULT_PKEY, 256, 0);
			else if (!strcmp(kind, "ud_pkey"))
				l4len = ud(l4, QP1_QKEY, 0x1234, 256, 0);
			else if (!strcmp(kind, "gsi_big"))
				l4len = ud(l4, QP1_QKEY, SROCE_DEFAULT_PKEY, 1024, 0);
			else
				l4len = ud(l4, QP1_QKEY, SROCE_DEFAULT_PKEY,
					   rand() % 257, 1);
			len = frame(f, sll.sll_addr, smac, sip, dip, 0, l4, l4len, 1);
		} else if (!strcmp(kind, "badop")) {
			l4len = transport(l4, 0x1f);
			len = frame(f, sll.sll_addr, smac, sip, dip, 0, l4, l4len, 1);
		} else {
			l4len = transport(l4, SROCE_SEND_ONLY);
			len = frame(f, sll.sll_addr, smac, sip, dip,
				    !strcmp(kind, "ipopt") ? 4 : 0, l4, l4len, 1);
			if (!strcmp(kind, "badicrc"))
				f[len - 1] ^= 0x10;
		}
		if (sendto(fd, f, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != len) {
			perror("sendto");
			return 1;
		}
	}
	close(fd);
	return 0;
}
