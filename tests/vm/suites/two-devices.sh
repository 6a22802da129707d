#!/bin/bash
# two-devices.sh: one host, two sroce devices on the two ends of a veth
# pair, one end in another network namespace: the packets cross the veth
# as on a wire, clean and under tc netem loss, duplication and reordering.
# ibv_rc_pingpong -c checks the data on the clean link; on the lossy one
# rc_peer does (pingpong has no closing handshake: see rc-two.bash).
#   scripts/vm-run.sh tests/vm/suites/two-devices.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

port=19000
# pp DESC SERVER_NS SERVER_DEV SERVER_GID CLIENT_NS CLIENT_DEV CLIENT_GID SERVER_IP TOOL ARGS...
pp() {
	local desc=$1 sns=$2 sdev=$3 sgid=$4 cns=$5 cdev=$6 cgid=$7 sip=$8 tool=$9 st
	shift 9
	port=$((port + 1))
	ip netns exec "$sns" timeout 120 "$tool" -d "$sdev" -g "$sgid" -p $port "$@" \
		>/tmp/srv.log 2>&1 &
	run_ok "$desc (client)" connect_retry ip netns exec "$cns" timeout 60 \
		"$tool" -d "$cdev" -g "$cgid" -p $port "$@" "$sip"
	wait $!
	st=$?
	ok "$((st == 0))" "$desc (server)" || diag "$(tail -3 /tmp/srv.log)"
}

two_ns_devices 0
run_ok "namespace b answers ping" retry 20 ip netns exec a ping -c 1 -W 1 10.9.0.2
for s in 1 65536; do
	pp "sroce0 -> sroce1 across a veth, $s B" b sroce1 "$g1" a sroce0 "$g0" 10.9.0.2 \
		ibv_rc_pingpong -c -s "$s" -n 5
done
pp "sroce0 <-> sroce1 across a veth, every operation" b sroce1 "$g1" a sroce0 "$g0" 10.9.0.2 \
	/usr/libexec/sroce/rc_peer -s 65536 -n 3
# A veth passes a packet list (tx_batch, sroce_tx.c) on whole, so a
# capture on its peer would see one frame of many packets: across a
# veth every packet goes alone, and no list was ever built.
run_ok "across a veth sroce0 sent no packet lists (tx_batches 0)" \
	test "$(port_stat sroce0 tx_batches)" = 0

netem="delay 1ms reorder 95% 50% loss 1% duplicate 1%"
# shellcheck disable=SC2086
run_ok "netem on va" ip netns exec a tc qdisc add dev va root netem $netem
# shellcheck disable=SC2086
run_ok "netem on vb" ip netns exec b tc qdisc add dev vb root netem $netem
# A 1 s local ACK timeout (-t 18): frames queue behind netem for longer
# than 67 ms when the guest is slow (TCG on a busy host), and each such
# spurious timeout costs a retry (rc-two.bash does the same).
for s in 4096 1048576; do
	pp "sroce0 -> sroce1 across a lossy veth, $s B" b sroce1 "$g1" a sroce0 "$g0" 10.9.0.2 \
		/usr/libexec/sroce/rc_peer -s "$s" -n 3 -t 18
done
rdma statistic show link sroce0/1 | tr ' ' '\n' | paste -sd' ' | sed 's/^/# /'
# A gap is mended by going back (retransmit), or by selective repeat
# (sel_rexmit) where a device offers it (cc_sel_repeat 2; not here).
rtx=$(port_stat sroce0 retransmit)
sel=$(port_stat sroce0 sel_rexmit)
ok "$(($((${rtx:-0} + ${sel:-0})) > 0))" "the lossy link made sroce0 resend ($sel PSNs alone, $rtx go-back-N restarts)"
# A route change reaches a QP that is already sending: sroce caches each
# QP's route, and the cache must not outlive the route. A stream of RDMA
# WRITEs from sroce0 runs while namespace a loses the address sroce0
# sends from; sroce0's next packets (new ones, or resends when its ACK
# timer fires, since the ACKs can no longer reach it) must be dropped for
# want of a route. A stream, not a ping-pong: a ping-pong side that has
# all its sends acknowledged and waits to receive would send nothing
# more. (A blackhole route would not do either: a lookup bound to the
# GID's netdev takes the peer as on-link.)
run_ok "netem off va" ip netns exec a tc qdisc del dev va root
run_ok "netem off vb" ip netns exec b tc qdisc del dev vb root
port=$((port + 1))
ip netns exec b timeout 90 ib_write_bw -d sroce1 -x "$g1" -F -s 65536 -D 60 -p $port \
	>/dev/null 2>&1 &
srv=$!
connect_retry ip netns exec a timeout 90 ib_write_bw -d sroce0 -x "$g0" -F -s 65536 -D 60 \
	-p $port 10.9.0.2 >/dev/null 2>&1 &
cli=$!
tx0=$(port_stat sroce0 tx_packets)
run_ok "a stream of writes sends" retry 20 stat_above sroce0 tx_packets $((tx0 + 100))
drop0=$(port_stat sroce0 tx_drop_route)
run_ok "namespace a drops sroce0's address" ip -n a addr del 10.9.0.1/24 dev va
run_ok "the QP in flight drops its packets for want of a route" \
	retry 20 stat_above sroce0 tx_drop_route "$drop0"
pkill -f "ib_write_bw .*-p $port"
wait "$cli" "$srv"
run_ok "rdma link delete sroce1" rdma link delete sroce1
run_ok "rdma link delete sroce0" rdma link delete sroce0
ip netns del a
ip netns del b
run_ok "rmmod sroce" rmmod sroce
done_testing
