#!/usr/bin/perl
# vm-monitor.pl PORT CMD...: run each CMD on the QEMU human monitor that
# listens on 127.0.0.1:PORT and print what it answers, one command after
# the other in one session.
#
# Why not a fixed wait: a monitor serves one client at a time and answers
# from QEMU's main loop, which under TCG on a busy host can take seconds
# to get to it (to accept a new session after the previous one closed,
# or to answer). Reading "for one second" then returns nothing at all.
# This waits for the monitor's prompt after each command instead, with a
# deadline (SROCE_MONITOR_WAIT seconds, default 30) that ends the session
# with a message rather than a hang.
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;

my ($port, @cmds) = @ARGV;
die "usage: vm-monitor.pl PORT CMD...\n" unless defined $port && @cmds;
my $wait = $ENV{SROCE_MONITOR_WAIT} || 30;

my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
			      Proto => 'tcp', Timeout => $wait)
	or die "vm-monitor: connect to port $port: $!\n";
my $sel = IO::Select->new($s);

# upto_prompt: everything the monitor sends until its next "(qemu) "
# prompt, or undef at the deadline or when the monitor closes.
sub upto_prompt {
	my $buf = '';
	my $end = time + $wait;
	while ($buf !~ /\(qemu\) $/) {
		my $left = $end - time;
		return undef if $left <= 0 || !$sel->can_read($left);
		my $n = sysread($s, $buf, 65536, length $buf);
		return undef unless $n;
	}
	$buf =~ s/\(qemu\) $//;
	return $buf;
}

defined upto_prompt() or die "vm-monitor: no prompt from port $port in ${wait} s\n";
for my $cmd (@cmds) {
	print $s "$cmd\n";
	my $out = upto_prompt();
	defined $out or die "vm-monitor: no answer to \"$cmd\" in ${wait} s\n";
	# The monitor echoes the command line with terminal escapes: drop
	# the escapes and carriage returns, then the echoed line.
	$out =~ s/\e\[[0-9;]*[A-Za-z]//g;
	$out =~ s/\e[^\[]//g;
	$out =~ tr/\r//d;
	$out =~ s/^[^\n]*\n// if index($out, "\n") >= 0;
	print $out;
}
close $s;
