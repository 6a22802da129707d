// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udp_encap_hold: a UDP socket (IPv6, so both families' keys) marked as an
 * encapsulation socket (UDP_ENCAP_L2TPINUDP, which any process may set),
 * held until stdin closes; prints "held" once it is. While it lives, the
 * kernel's udp_encap_needed_key and udpv6_encap_needed_key stay on, so
 * closing the last sroce socket does not patch the UDP receive path's
 * jump labels under a CPU that runs them (storm.sh says why that
 * matters under QEMU's TCG).
 */
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_UDP
#define SOL_UDP		17
#endif
#define UDP_ENCAP		100
#define UDP_ENCAP_L2TPINUDP	3

int main(void)
{
	int fd = socket(AF_INET6, SOCK_DGRAM, 0), v = UDP_ENCAP_L2TPINUDP;
	char c;

	if (fd < 0 || setsockopt(fd, SOL_UDP, UDP_ENCAP, &v, sizeof(v))) {
		perror("udp_encap_hold");
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	close(fd);
	return 0;
}
