#!/bin/bash
# NOT A SUITE: does a lost DREQ leave rping's passive side waiting for
# ever? Host 2 (rping's client) drops the CM DREQs it sends (MAD
# attribute 0x0015 at IP offset 64) in its second round; the CM counters
# show whether its CM resent the DREQ before rping destroyed its id.
# Seen (stop 28): round 1 both exit 0; round 2 the client exits 0 with
# one DREQ sent, dropped, and cm_tx_retries/dreq 0, and the server
# waits until timeout kills it (124). So rc_two_cm runs rping on clean
# links only.
#   scripts/vm-run.sh --two tests/vm/wip/dreq-loss.two.sh
set -u
tests=${SROCE_TESTS:-$(dirname "$0")/..}
# shellcheck source=tests/vm/lib.sh
. "$tests/lib.sh"
# shellcheck source=tests/vm/rc-two.bash
. "$tests/rc-two.bash"
cmstat() {
	local d=/sys/class/infiniband/sroce0/ports/1 f
	for f in cm_tx_msgs/dreq cm_tx_retries/dreq cm_rx_msgs/dreq cm_tx_msgs/drep cm_rx_msgs/drep cm_rx_duplicates/dreq; do
		printf '%s=%s ' "$f" "$(cat $d/$f 2>/dev/null)"
	done
}
rc_two_setup sroce sroce
for drop in 0 1; do
	if [ "$SROCE_HOST" = 1 ]; then
		timeout 40 rping -s -a "$SROCE_IP4" -p 700$drop -C 5 -S 100 -V >/tmp/s.log 2>&1 &
		spid=$!
		wait_listen 700$drop 30; tell_peer 1700$drop 60
		wait $spid; st=$?
		diag "drop=$drop server exit $st; $(cmstat)"
	else
		if [ $drop = 1 ]; then
			tc qdisc add dev eth0 root handle 1: prio 2>&1
			tc qdisc add dev eth0 parent 1:3 handle 30: netem loss 100% 2>&1
			tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
				match ip dport 4791 0xffff match u16 0x0015 0xffff at 64 flowid 1:3 2>&1
			tc -s filter show dev eth0 parent 1: 2>&1
		fi
		peer_ready "$SROCE_PEER_IP4" 1700$drop 60
		rping -c -a "$SROCE_PEER_IP4" -p 700$drop -C 5 -S 100 -V >/tmp/c.log 2>&1; st=$?
		sleep 30; cat /tmp/c.log | head -5
		diag "drop=$drop client exit $st; $(cmstat); $(tc -s qdisc show dev eth0 2>&1 | tr '\n' ' ')"
		tc qdisc del dev eth0 root 2>/dev/null
	fi
	peer_ready "$SROCE_PEER_IP4" 1800$drop 60 & tell_peer 1800$drop 60; wait
done
done_testing
