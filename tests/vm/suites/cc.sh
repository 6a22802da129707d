#!/bin/bash
# cc.sh: congestion control, DCQCN's two ends. Two sroce devices on the
# two ends of a veth, one end in each of two namespaces (a sends, b
# receives); netem on a's end marks the packets it would drop
# Congestion Experienced instead ("loss P ecn", ECT packets only). b
# answers the marks with CNPs, at most one per QP per cc_cnp_interval_us,
# and a counts them; a capture on b's end checks the bytes: ECT(0) on the
# data, CE where netem marked, and every CNP as Annex A17 has it (BTH
# opcode 0x81 with BECN, to the sender's QP, 16 zero bytes, ECT(1) under
# the CNP DSCP). a cuts its rate for the CNPs (rate_cuts) and, at a low
# line rate, paces its packets; with cc_rp off it only counts them. With
# cc_ecn off a's packets are not ECN-capable: netem drops instead of
# marking, and no CNP is sent.
#   scripts/vm-run.sh tests/vm/suites/cc.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

P=/usr/libexec/sroce
port=19100
cap=/tmp/cc.pcap

# run_peer DESC ARGS...: rc_peer from a (sroce0) to b (sroce1), checked.
run_peer() {
	local desc=$1 st t0=$SECONDS
	shift
	port=$((port + 1))
	ip netns exec b timeout 120 $P/rc_peer -d sroce1 -g "$g1" -p $port "$@" \
		>/tmp/srv.log 2>&1 &
	run_ok "$desc (client)" connect_retry ip netns exec a timeout 120 \
		$P/rc_peer -d sroce0 -g "$g0" -p $port "$@" 10.9.1.2
	wait $!
	st=$?
	ok "$((st == 0))" "$desc (server)" || diag "$(tail -3 /tmp/srv.log)"
	diag "$desc: $((SECONDS - t0)) s"
}

# capture CMD...: CMD with tcpdump on b's end of the veth, into $cap.
# tcpdump is stopped only once every CNP sroce1 sent in CMD has reached
# sroce0 (and so passed vb) and is in the file: a tcpdump that a busy
# host runs late still has packets queued on its socket, which an
# interrupt would lose. 60 s at most for each.
capture() {
	local pid st c0 r0 want end
	c0=$(port_stat sroce1 tx_cnp)
	r0=$(port_stat sroce0 rx_cnp)
	# -Z root: the guest has no tcpdump user to drop privileges to.
	# --immediate-mode: each packet reaches the file as it comes, not a
	# block at a time. 80 bytes: up to the BTH and what follows it.
	ip netns exec b tcpdump -Z root -U --immediate-mode -B 32768 -i vb -nn -s 80 -w $cap \
		udp port 4791 2>/tmp/tcpdump.log &
	pid=$!
	# It says so once its socket is open.
	for _ in $(seq 600); do
		grep -q 'listening on' /tmp/tcpdump.log && break
		sleep 0.1
	done
	"$@"
	st=$?
	end=$((SECONDS + 60))
	while :; do
		want=$(($(port_stat sroce1 tx_cnp) - c0))
		[ "$want" = $(($(port_stat sroce0 rx_cnp) - r0)) ] && break
		[ $SECONDS -lt $end ] || break
		sleep 0.1
	done
	# Counted by tcpdump's own filter (the BTH opcode, the first byte
	# after the UDP header): cheap enough to ask again and again.
	end=$((SECONDS + 60))
	while [ "$(tcpdump -Z root -r $cap -nn 'src 10.9.1.2 and udp[8] == 0x81' 2>/dev/null |
		wc -l)" -lt "$want" ] && [ $SECONDS -lt $end ]; do
		sleep 0.5
	done
	kill -INT $pid
	wait $pid
	[ -s $cap ] || diag "tcpdump: $(cat /tmp/tcpdump.log)"
	return $st
}

# frames: one line per captured RoCE frame: the IP TOS, the source
# address, then the UDP payload's first 32 bytes in hex (BTH first).
frames() {
	tcpdump -Z root -nn -x -r $cap 2>/dev/null | awk '
		function hex(s,   i, v) {
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		function flush(   i, ihl, tos, src, out) {
			if (n < 20) { n = 0; return }
			ihl = (hex(b[0]) % 16) * 4
			tos = b[1]
			src = hex(b[12]) "." hex(b[13]) "." hex(b[14]) "." hex(b[15])
			out = tos " " src " "
			for (i = ihl + 8; i < ihl + 40 && i < n; i++)
				out = out b[i]
			print out
			n = 0
		}
		/^[0-9]/ { flush(); next }
		/0x[0-9a-f]+:/ {
			for (i = 2; i <= NF; i++)
				if (length($i) == 4 && $i ~ /^[0-9a-f]+$/) {
					b[n++] = substr($i, 1, 2)
					b[n++] = substr($i, 3, 2)
				}
		}
		END { flush() }'
}

two_ns_devices 1
# netem drops what it does not mark, ARP too: no neighbour lookups.
ip -n a neigh replace 10.9.1.2 lladdr "$(ip netns exec b cat /sys/class/net/vb/address)" dev va nud permanent
ip -n b neigh replace 10.9.1.1 lladdr "$(ip netns exec a cat /sys/class/net/va/address)" dev vb nud permanent

s0=/sys/class/infiniband/sroce0
is "$(cat $s0/cc_ecn) $(cat $s0/cc_cnp_dscp) $(cat $s0/cc_cnp_interval_us)" "1 48 50" \
	"the defaults: ECN on, CNPs with DSCP 48, at most one per QP per 50 us"
params="rp line_rate_mbps min_rate_mbps g alpha_us rate_timer_us byte_counter_kb fast_recovery ai_mbps hai_mbps pace_line"
is "$(for p in $params; do cat $s0/cc_$p; done | tr '\n' ' ')" "1 100000 10 4 55 300 10240 5 40 200 0 " \
	"DCQCN's defaults: on, 100 Gb/s, g 1/256, K 55 us, T 300 us, B 10 MiB, F 5, AI 40, HAI 200, no pacing at line rate"
fails_ok "cc_line_rate_mbps takes no 0" sh -c "echo 0 > $s0/cc_line_rate_mbps"
fails_ok "cc_g takes no more than 1024 (1)" sh -c "echo 1025 > $s0/cc_g"
fails_ok "cc_cnp_dscp takes no value over 63" sh -c "echo 64 > $s0/cc_cnp_dscp"
fails_ok "cc_cnp_interval_us takes no more than a second" sh -c "echo 1000001 > $s0/cc_cnp_interval_us"
fails_ok "cc_ecn takes a boolean only" sh -c "echo maybe > $s0/cc_ecn"
is "$(cat $s0/cc_ecn) $(cat $s0/cc_cnp_dscp) $(cat $s0/cc_cnp_interval_us)" "1 48 50" \
	"... and a refused value changes nothing"

# Both ends are sroce: a loss (netem drops what it cannot mark) is mended
# by selective repeat, offered by sroce0.
run_ok "sroce0 offers selective repeat" sh -c "echo 2 > $s0/cc_sel_repeat"
run_ok "netem on va marks 5% of what it sends CE" \
	ip netns exec a tc qdisc add dev va root netem loss 5% ecn
ce0=$(port_stat sroce1 rx_ecn_ce)
cnp0=$(port_stat sroce1 tx_cnp)
rcnp0=$(port_stat sroce0 rx_cnp)
capture run_peer "rc_peer -s 65536 -n 10 through the marking queue" -s 65536 -n 10
ce=$(($(port_stat sroce1 rx_ecn_ce) - ce0))
cnp=$(($(port_stat sroce1 tx_cnp) - cnp0))
rcnp=$(($(port_stat sroce0 rx_cnp) - rcnp0))
diag "marks $ce, CNPs sent $cnp, CNPs received $rcnp"
ok "$((ce > 0))" "sroce1 counts the CE marks (rx_ecn_ce $ce)"
ok "$((cnp > 0 && cnp <= ce))" "sroce1 answers them with CNPs, no more than one a mark (tx_cnp $cnp)"
is "$rcnp" "$cnp" "sroce0 receives and counts each CNP (rx_cnp)"
cuts=$(port_stat sroce0 rate_cuts)
ok "$((cuts > 0 && cuts <= rcnp))" "sroce0 cuts its rate for them, once a pass at most (rate_cuts $cuts)"
frames > /tmp/cc.frames
awk '$2 == "10.9.1.1"' /tmp/cc.frames > /tmp/cc.data
awk '$2 == "10.9.1.2" && substr($3, 1, 2) == "81"' /tmp/cc.frames > /tmp/cc.cnps
ok "$(($(wc -l < /tmp/cc.data) > 100))" "the capture has sroce0's packets ($(wc -l < /tmp/cc.data))"
is "$(awk '$1 != "02" && $1 != "03"' /tmp/cc.data | wc -l)" 0 \
	"they go out ECT(0), and arrive so or CE"
ok "$(awk '$1 == "03"' /tmp/cc.data | wc -l)" "some arrive marked CE"
is "$(wc -l < /tmp/cc.cnps)" "$cnp" "the capture has every CNP sroce1 counted"
# A CNP's UDP payload: opcode 81, flags 00, P_Key ffff, 40 (BECN), the
# sender's QPN, a zero PSN word, 16 zero bytes, then the ICRC.
dqpn=$(awk '$2 == "10.9.1.2" && substr($3, 1, 2) == "11" { print substr($3, 11, 6); exit }' /tmp/cc.frames)
ok "$([ -n "$dqpn" ] && echo 1 || echo 0)" "sroce1's ACKs name sroce0's QP (${dqpn:-none})"
bad=$(awk -v q="${dqpn:-x}" 'substr($3, 1, 24) != "8100ffff40" q "00000000" ||
	substr($3, 25, 32) != "00000000000000000000000000000000" || $1 != "c1"' /tmp/cc.cnps)
ok "$([ -z "$bad" ] && [ -s /tmp/cc.cnps ] && echo 1 || echo 0)" \
	"every CNP: opcode 0x81, BECN, to sroce0's QP, 16 zero bytes, DSCP 48 with ECT(1)" ||
	diag "$(head -3 <<<"$bad")"

# The interval: one CNP a second at most, whatever the marks.
echo 1000000 > /sys/class/infiniband/sroce1/cc_cnp_interval_us
cnp0=$(port_stat sroce1 tx_cnp)
start=$(date +%s)
run_peer "rc_peer -s 65536 -n 20 with a CNP interval of 1 s" -s 65536 -n 20
secs=$(($(date +%s) - start))
cnp=$(($(port_stat sroce1 tx_cnp) - cnp0))
ok "$((cnp >= 1 && cnp <= secs + 1))" "one CNP a second at most ($cnp in $secs s)"
echo 50 > /sys/class/infiniband/sroce1/cc_cnp_interval_us

# The reaction point paces: at a line rate of 10 Mb/s (which any guest
# outruns) every cut holds the requester back (paced) and the data still
# arrives whole.
echo 10 > $s0/cc_line_rate_mbps
paced0=$(port_stat sroce0 paced)
run_peer "rc_peer -s 65536 -n 10, line rate 10 Mb/s" -s 65536 -n 10
ok "$(($(port_stat sroce0 paced) > paced0))" "sroce0's requester waits for its rate (paced $(($(port_stat sroce0 paced) - paced0)))"
echo 100000 > $s0/cc_line_rate_mbps

# pace_line: with no mark at all, a QP keeps to the line rate (10 Mb/s,
# which any guest outruns: 10 x 64 KiB and their headers take 0.54 s at
# least).
run_ok "no netem now: nothing is marked" ip netns exec a tc qdisc del dev va root
echo 10 > $s0/cc_line_rate_mbps
echo 1 > $s0/cc_pace_line
paced0=$(port_stat sroce0 paced)
cuts0=$(port_stat sroce0 rate_cuts)
run_peer "rc_peer -s 65536 -n 10 paced at a line rate of 10 Mb/s" -s 65536 -n 10
ok "$(($(port_stat sroce0 paced) > paced0))" "an unlimited QP waits for the line rate (paced $(($(port_stat sroce0 paced) - paced0)))"
is "$(port_stat sroce0 rate_cuts)" "$cuts0" "... with no CNP and no cut"
echo 0 > $s0/cc_pace_line
echo 100000 > $s0/cc_line_rate_mbps
run_ok "netem marks 5% again" ip netns exec a tc qdisc add dev va root netem loss 5% ecn

# A QP without congestion control counts the CNPs and ignores them.
echo 0 > $s0/cc_rp
cuts0=$(port_stat sroce0 rate_cuts)
rcnp0=$(port_stat sroce0 rx_cnp)
run_peer "rc_peer -s 65536 -n 10 with sroce0's reaction point off" -s 65536 -n 10
ok "$(($(port_stat sroce0 rx_cnp) > rcnp0))" "CNPs still come and are counted (rx_cnp)"
is "$(port_stat sroce0 rate_cuts)" "$cuts0" "... and cut nothing"
echo 1 > $s0/cc_rp

# ECN off: nothing to mark, so netem drops instead; the data still arrives.
echo 0 > $s0/cc_ecn
ce0=$(port_stat sroce1 rx_ecn_ce)
cnp0=$(port_stat sroce1 tx_cnp)
capture run_peer "rc_peer -s 65536 -n 5 with ECN off (5% loss now)" -s 65536 -n 5
is "$(($(port_stat sroce1 rx_ecn_ce) - ce0)) $(($(port_stat sroce1 tx_cnp) - cnp0))" "0 0" \
	"with cc_ecn 0 no mark and no CNP"
frames > /tmp/cc.frames
ok "$(awk '$2 == "10.9.1.1"' /tmp/cc.frames | wc -l)" "the capture has sroce0's packets"
is "$(awk '$2 == "10.9.1.1" && $1 != "00"' /tmp/cc.frames | wc -l)" 0 \
	"they go out with the QP's traffic class, not ECN-capable"
echo 1 > $s0/cc_ecn

run_ok "rdma link delete sroce0" ip netns exec a rdma link delete sroce0
run_ok "rdma link delete sroce1" ip netns exec b rdma link delete sroce1
run_ok "rmmod sroce" rmmod sroce
done_testing
