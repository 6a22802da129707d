#!/usr/bin/perl
# vm-link.pl LOCAL_PORT PEER_PORT BYTES CMD...: open a UDP socket bound to
# 127.0.0.1:LOCAL_PORT and connected to 127.0.0.1:PEER_PORT, with a receive
# buffer of BYTES, and run CMD with that socket open; "@FD@" in CMD becomes
# its descriptor number (for QEMU's -netdev dgram,local.type=fd).
#
# Why: two QEMUs joined by -netdev socket,udp= get the kernel's default
# receive buffer (net.core.rmem_default, about 200 KiB: some 25 jumbo
# frames). A guest that falls behind (TCG, a busy host) then loses most of
# a burst in the host's UDP socket, far beyond the loss a suite asks netem
# for, and RC suites fail with retries exhausted. A large buffer turns
# that into queueing: the link loses only what netem drops.
use strict;
use warnings;
use Socket qw(PF_INET SOCK_DGRAM SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use Fcntl qw(F_GETFD F_SETFD FD_CLOEXEC);

my ($lport, $pport, $bytes, @cmd) = @ARGV;
die "usage: vm-link.pl LOCAL_PORT PEER_PORT BYTES CMD...\n" unless @cmd;
my $SO_RCVBUFFORCE = 33;	# Linux: past net.core.rmem_max, needs CAP_NET_ADMIN

socket(my $s, PF_INET, SOCK_DGRAM, 0) or die "vm-link: socket: $!\n";
setsockopt($s, SOL_SOCKET, $SO_RCVBUFFORCE, pack('i', $bytes)) or
	setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', $bytes)) or
	die "vm-link: SO_RCVBUF: $!\n";
my $lo = inet_aton('127.0.0.1');
bind($s, pack_sockaddr_in($lport, $lo)) or die "vm-link: bind $lport: $!\n";
connect($s, pack_sockaddr_in($pport, $lo)) or die "vm-link: connect $pport: $!\n";
my $flags = fcntl($s, F_GETFD, 0) or die "vm-link: F_GETFD: $!\n";
fcntl($s, F_SETFD, $flags & ~FD_CLOEXEC) or die "vm-link: F_SETFD: $!\n";
my $fd = fileno($s);
s/\@FD\@/$fd/g for @cmd;
exec { $cmd[0] } @cmd or die "vm-link: exec $cmd[0]: $!\n";
