#!/bin/bash
# loss.sh: loss recovery (Documentation/sroce-cc.rst). Two sroce devices
# on the two ends of a veth, one end in each of two namespaces, with
# netem on both ends: 2 ms of delay each way, and 1% random loss or none.
# 64 KiB WRITEs at 1% loss: with selective repeat (offered with 2) the
# responder keeps what comes past a gap and the requester resends the
# missing PSNs alone (how many more packets than without loss is
# reported); with no end offering it (the default) or with cc_sel_repeat
# 0 at either end, go-back-N. The goodput kept is reported (make bench
# compares it). Lost tails (ib_send_lat: every message is one packet) are
# resent after the measured RTO, not after the local ACK timeout: early
# resends (on by default); with cc_early_rexmit 0 they wait for the timer.
# Every operation of rc_peer goes through the lossy link with its data
# checked, and the requester's round trip is measured (debugfs srtt_us)
# while it runs. That early resends charge no retry, so a peer that is
# gone still takes the two local ACK timeouts retry_cnt 1 allows, is
# rc_ops' err-retry-measured.
#   scripts/vm-run.sh tests/vm/suites/loss.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

P=/usr/libexec/sroce
N=400
# 600 round trips: 1200 one-packet messages at 1% loss lose about 12, and
# a run that loses none (which the checks on early resends and local ACK
# timeouts would take for a failure) comes once in e^12.
LAT_N=600
port=19400
s0=/sys/class/infiniband/sroce0
s1=/sys/class/infiniband/sroce1

# netem ARGS...: the same netem on both ends of the veth.
netem() {
	tc -n a qdisc del dev va root 2>/dev/null
	tc -n b qdisc del dev vb root 2>/dev/null
	tc -n a qdisc add dev va root netem "$@" &&
		tc -n b qdisc add dev vb root netem "$@"
}

# early V: early resends on (1) or off (0) on both devices.
early() {
	echo "$1" > $s0/cc_early_rexmit && echo "$1" > $s1/cc_early_rexmit
}

# b_listens PORT: perftest's server in b listens on TCP PORT (10 s).
b_listens() {
	for _ in $(seq 100); do
		ip netns exec b ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# perf TOOL SIZE ITERS COLUMN: perftest's TOOL from a (sroce0) to b
# (sroce1): "ok" and the COLUMN of its result line, or "failed" and the
# end of its output. Under TCG perftest sometimes cannot calibrate its
# cycle counter and reports 0.00 (with -F it goes on): the figure is
# reported, the run's success is what is checked.
perf() {
	local tool=$1 size=$2 iters=$3 col=$4 out
	port=$((port + 1))
	ip netns exec b timeout 300 "$tool" -d sroce1 -x "$g1" -F -s "$size" \
		-n "$iters" -p $port >/dev/null 2>&1 &
	b_listens $port
	if out=$(retry 30 ip netns exec a timeout 300 "$tool" -d sroce0 \
		-x "$g0" -F -s "$size" -n "$iters" -p $port 10.9.2.2 2>&1); then
		echo "ok $(awk -v s="$size" -v n="$iters" -v c="$col" \
			'$1 == s && $2 == n { v = $c } END { print v }' <<< "$out")"
	else
		echo "failed $(tail -n 2 <<< "$out" | tr '\n' ' ')"
	fi
	wait $!
}

# goodput: N 64 KiB WRITEs, perftest's average MB/s.
goodput() {
	perf ib_write_bw 65536 $N 4
}

# frac A B: A / B with two decimals, or "n/a" when either is no figure.
frac() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else printf "n/a" }'
}

two_ns_devices 2
# netem drops ARP too: no neighbour lookups.
ip -n a neigh replace 10.9.2.2 lladdr "$(ip netns exec b cat /sys/class/net/vb/address)" dev va nud permanent
ip -n b neigh replace 10.9.2.1 lladdr "$(ip netns exec a cat /sys/class/net/va/address)" dev vb nud permanent
mount -t debugfs none /sys/kernel/debug 2>/dev/null

is "$(cat $s0/cc_early_rexmit)" 1 "early resends are on by default"
fails_ok "cc_early_rexmit takes 0 or 1 only" sh -c "echo 2 > $s0/cc_early_rexmit"
is "$(cat $s0/cc_sel_repeat)" 1 "selective repeat is answered, not offered, by default"
fails_ok "cc_sel_repeat takes 0, 1 or 2 only" sh -c "echo 3 > $s0/cc_sel_repeat"

# sr A B: cc_sel_repeat A on sroce0 (the requester), B on sroce1.
sr() {
	echo "$1" > $s0/cc_sel_repeat && echo "$2" > $s1/cc_sel_repeat
}
# wire: goodput, with the packets sroce0 sent for it (requests only: it
# answers nothing): "PACKETS ok MB/s" or "PACKETS failed ...".
wire() {
	local t0 g
	t0=$(port_stat sroce0 tx_packets)
	g=$(goodput)
	echo "$(($(port_stat sroce0 tx_packets) - t0)) $g"
}
# run_wire DESC: wire, checked; its packets in pk, its MB/s in mb.
run_wire() {
	local w
	w=$(wire)
	pk=${w%% *}
	w=${w#* }
	mb=${w#* }
	ok "$([ "${w%% *}" = ok ] && echo 1 || echo 0)" "$1 ($mb MB/s, $pk packets)" ||
		diag "$w"
}
# counted CMD...: CMD, and how much selective repeat's counters and the
# go-back-N restarts grew in it (d_kept, d_sel, d_gbn).
d_kept=0
d_sel=0
d_gbn=0
counted() {
	local k s g
	k=$(port_stat sroce1 ooo_kept)
	s=$(port_stat sroce0 sel_rexmit)
	g=$(port_stat sroce0 retransmit)
	"$@"
	d_kept=$(($(port_stat sroce1 ooo_kept) - k))
	d_sel=$(($(port_stat sroce0 sel_rexmit) - s))
	d_gbn=$(($(port_stat sroce0 retransmit) - g))
}

run_ok "netem: 2 ms each way" netem delay 2ms limit 10000
run_wire "$N x 64 KiB WRITEs, 2 ms each way"
clean_pk=$pk
clean_mb=$mb

run_ok "netem: 2 ms each way and 1% loss" netem delay 2ms loss 1% limit 10000
# Selective repeat, offered by the requester (2) and answered by the
# responder (1, the default): the responder keeps what comes past a gap
# and asks for each missing PSN alone; about 1% of the requests go twice.
run_ok "sroce0 offers selective repeat" sr 2 1
counted run_wire "... and 1% loss: selective repeat"
sr_mb=$mb
diag "selective repeat: $d_kept requests kept past a gap, $d_sel resent alone, $d_gbn go-back-N restarts"
ok "$((d_kept > 0 && d_sel > 0))" \
	"the responder kept requests past gaps ($d_kept) and the requester resent PSNs alone ($d_sel)"
# A share of packets is a figure, not a check: it rises with the loss's
# luck and with resends a slow host times out early.
diag "selective repeat sent $pk packets against $clean_pk without loss ($(frac "$pk" "$clean_pk"))"
# Neither end offering it (the default), or either end without it:
# go-back-N, as towards any other peer.
for ends in "1 1" "2 0" "0 2"; do
	# shellcheck disable=SC2086 # two arguments
	sr $ends
	counted run_wire "... cc_sel_repeat ${ends% *} on the requester, ${ends#* } on the responder: go-back-N"
	ok "$((d_kept == 0 && d_sel == 0 && d_gbn > 0))" \
		"... nothing kept, nothing resent alone, $d_gbn go-back-N restarts ($pk packets)"
done
gbn_mb=$mb
sr 2 1
early 0
run_wire "... selective repeat without early resends"
off_mb=$mb
early 1
diag "64 KiB WRITE goodput kept at 1% loss (perftest's figures; make bench has the comparison): $(frac "$sr_mb" "$clean_mb") with selective repeat, $(frac "$gbn_mb" "$clean_mb") with go-back-N, $(frac "$off_mb" "$clean_mb") with selective repeat and no early resends"

# Lost tails: ib_send_lat's messages are one packet each, and the next
# waits for the last one to arrive (ib_write_lat too, but it has no
# closing handshake: rc-two.bash). Each device's counters, both ways.
both() {
	echo $(($(port_stat sroce0 "$1") + $(port_stat sroce1 "$1")))
}
# lat: LAT_N 64-byte SEND round trips, perftest's average latency (us).
lat() {
	perf ib_send_lat 64 $LAT_N 6
}
for e in 1 0; do
	early $e
	e0=$(both early_rexmit)
	t0=$(both ack_timeout)
	v=$(lat)
	en=$(($(both early_rexmit) - e0))
	tn=$(($(both ack_timeout) - t0))
	ok "$([ "${v%% *}" = ok ] && echo 1 || echo 0)" \
		"ib_send_lat 64 B x $LAT_N at 1% loss, cc_early_rexmit $e (average ${v#* } us)"
	diag "cc_early_rexmit $e: $en early resends, $tn local ACK timeouts"
	if [ $e = 1 ]; then
		# How many of each depends on which packets were lost (an
		# early resend lost too ends in the timer): not checked.
		ok "$((en > 0))" \
			"lost tails are resent after an RTO ($en early resends, $tn local ACK timeouts)"
	else
		ok "$((en == 0 && tn > 0))" \
			"with cc_early_rexmit 0 they wait for the local ACK timer ($tn, and $en early resends)"
	fi
done
early 1

# Every operation, both ways, the data checked, through the lossy link;
# the requester's round trip read while it runs.
port=$((port + 1))
ip netns exec b timeout 200 $P/rc_peer -d sroce1 -g "$g1" -p $port -s 65536 -n 10 \
	>/tmp/srv.log 2>&1 &
spid=$!
# The client tries once: under load the server may take a while to start.
b_listens $port
rtt0=$(port_stat sroce0 rtt_samples)
ip netns exec a timeout 200 $P/rc_peer -d sroce0 -g "$g0" -p $port -s 65536 -n 10 \
	10.9.2.2 >/tmp/cli.log 2>&1 &
cpid=$!
srtt=
psr=
# Until both are seen or the client ended (its QP then is gone).
while kill -0 $cpid 2>/dev/null; do
	srtt=$(awk '$1 == "srtt_us" && $2 > 0 { print $2; exit }' \
		/sys/kernel/debug/sroce/sroce0/qp* 2>/dev/null)
	psr=$(awk '$1 == "peer_sr" && $2 == 1 { print 1; exit }' \
		/sys/kernel/debug/sroce/sroce0/qp* 2>/dev/null)
	[ -n "$srtt" ] && [ -n "$psr" ] && break
	sleep 0.2
done
wait $cpid
ok "$(($? == 0))" "rc_peer: every operation through 2 ms and 1% loss, data intact (client)" ||
	diag "$(tail -3 /tmp/cli.log)"
wait $spid
ok "$(($? == 0))" "... (server)" || diag "$(tail -3 /tmp/srv.log)"
ok "$([ "${srtt:-0}" -ge 4000 ] && echo 1 || echo 0)" \
	"the requester measured a round trip of at least the 4 ms of delay (srtt_us ${srtt:-none})"
# Its ACKs came before its completions, so the client's end is the event.
rtt=$(($(port_stat sroce0 rtt_samples) - rtt0))
ok "$((rtt > 0))" "the requester's round trips are counted (rtt_samples +$rtt)"
ok "${psr:-0}" "the requester learnt from the ACKs that its peer does selective repeat (peer_sr)"

netem delay 0ms
diag "sroce0: $(rdma statistic show link sroce0/1 | tr ' ' '\n' | grep -A1 -E '^(retransmit|early_rexmit|ack_timeout|seq_nak_rcvd)$' | paste -sd' ')"
diag "sroce1: $(rdma statistic show link sroce1/1 | tr ' ' '\n' | grep -A1 -E '^(seq_nak_sent|rx_dup_req)$' | paste -sd' ')"
done_testing
