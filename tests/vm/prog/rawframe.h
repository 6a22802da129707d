/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw RoCEv2 frames for the programs that play a peer on the wire
 * (roce_inject, a19_wire): Ethernet, IPv4 and UDP around a transport
 * packet built with the driver's proto/ code, the ICRC made last.
 */
#ifndef SROCE_TEST_RAWFRAME_H
#define SROCE_TEST_RAWFRAME_H

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/icrc.h"
#include "proto/parse.h"

static unsigned short ip_csum(const unsigned char *p, int len)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* Ethernet + IPv4 (+ @opt option bytes) + UDP around @l4 of @l4len. */
static int frame(unsigned char *f, const unsigned char *dmac,
		 const unsigned char *smac, in_addr_t sip, in_addr_t dip,
		 int opt, const unsigned char *l4, int l4len, int fix_icrc)
{
	unsigned char *ip = f + 14, *udp;
	int ihl = 20 + opt, ulen = 8 + l4len, tot = ihl + ulen;
	unsigned short c;
	u32 icrc;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, ihl);
	ip[0] = 0x40 | (ihl / 4);
	ip[2] = tot >> 8;
	ip[3] = tot & 0xff;
	ip[6] = 0x40;		/* DF */
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, &sip, 4);
	memcpy(ip + 16, &dip, 4);
	if (opt)
		ip[20] = 1;	/* NOP options */
	udp = ip + ihl;
	udp[0] = 0xc0;
	udp[1] = 0x00;
	udp[2] = SROCE_UDP_DPORT >> 8;
	udp[3] = SROCE_UDP_DPORT & 0xff;
	udp[4] = ulen >> 8;
	udp[5] = ulen & 0xff;
	udp[6] = 0;
	udp[7] = 0;		/* no UDP checksum (IPv4) */
	memcpy(udp + 8, l4, l4len);
	c = ip_csum(ip, ihl);
	ip[10] = c >> 8;
	ip[11] = c & 0xff;
	/* The ICRC is over the IP packet; with options it cannot be made. */
	if (fix_icrc && !opt && sroce_icrc_calc(ip, tot, &icrc))
		sroce_icrc_put(udp + ulen - SROCE_ICRC_LEN, icrc);
	return 14 + tot;
}

/*
 * A raw socket that sends out of @ifname to the MAC @dmac_str: its fd,
 * with @smac the interface's own MAC and @sll the address to sendto(), or
 * -1 (said on stderr).
 */
static __attribute__((unused)) int raw_sender(const char *ifname,
					      const char *dmac_str,
					      unsigned char *smac,
					      struct sockaddr_ll *sll)
{
	unsigned char dmac[6];
	struct ifreq ifr;
	int fd;

	if (sscanf(dmac_str, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dmac[0],
		   &dmac[1], &dmac[2], &dmac[3], &dmac[4], &dmac[5]) != 6) {
		fprintf(stderr, "not a MAC: %s\n", dmac_str);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("SIOCGIFHWADDR");
		close(fd);
		return -1;
	}
	memcpy(smac, ifr.ifr_hwaddr.sa_data, 6);
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_ifindex = if_nametoindex(ifname);
	sll->sll_halen = 6;
	memcpy(sll->sll_addr, dmac, 6);
	return fd;
}

#endif /* SROCE_TEST_RAWFRAME_H */
