#!/bin/bash
# netns-cm.sh: sroce devices in network namespaces, exclusive mode. Two
# namespaces joined by a veth pair, a device on each end: each device
# uses its namespace's addresses (GIDs), routes and UDP socket, and is
# seen only there. RC and the RDMA CM run across them. Then a device is
# moved to another namespace while a process holds it open with one of
# every object: the process gets IBV_EVENT_DEVICE_FATAL and errors, the
# device comes up in its new namespace with its QP1, and works again once
# moved back. rdma_rxe (6.1, 6.12) has no disassociate and cannot move.
#   scripts/vm-run.sh tests/vm/suites/netns-cm.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

P=/usr/libexec/sroce
A4=10.9.0.1
B4=10.9.0.2
A6=fd99::1
B6=fd99::2

run_ok "modprobe sroce" modprobe sroce
# Before any namespace exists: the core refuses the switch afterwards.
run_ok "rdma system set netns exclusive" rdma system set netns exclusive
run_ok "namespaces a and b, init named" bash -c \
	'ip netns add a && ip netns add b && ip netns attach init 1'
run_ok "veth va (in a) to vb (in b), addressed" bash -c "
	ip link add va type veth peer name vb &&
	ip link set va netns a && ip link set vb netns b &&
	ip -n a addr add $A4/24 dev va && ip -n b addr add $B4/24 dev vb &&
	ip -n a addr add $A6/64 dev va nodad && ip -n b addr add $B6/64 dev vb nodad &&
	ip -n a link set va up && ip -n b link set vb up &&
	ip -n a link set lo up && ip -n b link set lo up"
run_ok "a reaches b" retry 10 ip netns exec a ping -c 1 -W 1 $B4

# Created from inside its namespace (the netdev is only there), then
# given to it: exclusive mode registers new devices in the initial one.
run_ok "rdma link add sa (netdev va, from a)" ip netns exec a rdma link add sa type sroce netdev va
run_ok "rdma link add sb (netdev vb, from b)" ip netns exec b rdma link add sb type sroce netdev vb
run_ok "rdma dev set sa netns a" rdma dev set sa netns a
run_ok "rdma dev set sb netns b" rdma dev set sb netns b
is "$(ip netns exec a rdma dev | awk '{print $2}' | tr -d : | paste -sd' ')" "sa" \
	"namespace a sees sa only"
is "$(ip netns exec b ibv_devices | awk 'NR > 2 {print $1}' | paste -sd' ')" "sb" \
	"ibv_devices in b lists sb only"
ok "! rdma dev | grep -q 'sa\|sb'" "the initial namespace sees neither"

# gid NS DEV ADDR: the GID index, looked up in NS's sysfs view.
gid() { ip netns exec "$1" bash -c ". $SROCE_TESTS/lib/roce.sh; gid_index $2 $3"; }
ga=$(gid a sa $A4) || ga=
gb=$(gid b sb $B4) || gb=
ga6=$(gid a sa $A6) || ga6=
ok "$([ -n "$ga" ] && [ -n "$gb" ] && [ -n "$ga6" ] && echo 1 || echo 0)" \
	"each device has its namespace's addresses as GIDs ($ga $gb $ga6)"
ok "ip netns exec a rdma res show qp | grep -q 'lqpn 1 type GSI state RTS'" \
	"sa's QP1 is up, in a"

# nsrun NAME NS_SERVER SERVER_CMD NS_CLIENT CLIENT_CMD [CM_PORT]: an RDMA
# CM server (CM_PORT given) is waited for until it listens, so its client
# runs once: a client of several connections that gave up after a
# rejection would leave its server waiting on the one accepted. A TCP
# one (the ibv_*_pingpong programs) is retried while refused.
nsrun() {
	local name=$1 spid st
	ip netns exec "$2" timeout 60 bash -c "$3" >/tmp/ns_srv.log 2>&1 &
	spid=$!
	if [ -n "${6:-}" ]; then
		wait_listen "$6" 30 "$2" || diag "$name: nothing listens on port $6"
		run_ok "$name (client)" ip netns exec "$4" timeout 60 bash -c "$5"
	else
		run_ok "$name (client)" connect_retry ip netns exec "$4" timeout 60 bash -c "$5"
	fi
	wait $spid
	st=$?
	ok "$((st == 0))" "$name (server)" || diag "$(tail -5 /tmp/ns_srv.log)"
}

nsrun "ibv_rc_pingpong -c a <- b" a "ibv_rc_pingpong -d sa -g $ga -s 65536 -n 20 -c" \
	b "ibv_rc_pingpong -d sb -g $gb -s 65536 -n 20 -c $A4"
nsrun "ibv_ud_pingpong -c a <- b" a "ibv_ud_pingpong -d sa -g $ga -s 1024 -n 50 -c" \
	b "ibv_ud_pingpong -d sb -g $gb -s 1024 -n 50 -c $A4"
nsrun "rping -V a <- b" a "rping -s -a $A4 -C 20 -V" b "rping -c -a $A4 -C 20 -V" 7174
nsrun "rping -V IPv6 b <- a" b "rping -s -a $B6 -C 20 -V" a "rping -c -a $B6 -C 20 -V" 7174
nsrun "ucmatose a <- b" a "ucmatose -b $A4 -c 2 -C 20" b "ucmatose -s $A4 -c 2 -C 20" 7471
nsrun "udaddy b <- a" b "udaddy -b $B4 -c 2 -C 20" a "udaddy -s $B4 -c 2 -C 20" 7174

# A VLAN on the veth: its addresses are GIDs of the devices on the veth,
# and UD and the CM over them go tagged (the VLAN device counts them).
run_ok "VLAN 100 on the veth, addressed" bash -c "
	ip -n a link add link va name va.100 type vlan id 100 &&
	ip -n b link add link vb name vb.100 type vlan id 100 &&
	ip -n a addr add 10.9.100.1/24 dev va.100 &&
	ip -n b addr add 10.9.100.2/24 dev vb.100 &&
	ip -n a link set va.100 up && ip -n b link set vb.100 up"
gav=$(gid a sa 10.9.100.1) || gav=
gbv=$(gid b sb 10.9.100.2) || gbv=
ok "$([ -n "$gav" ] && [ -n "$gbv" ] && echo 1 || echo 0)" \
	"the VLAN's addresses are GIDs ($gav $gbv)"
vrx() { ip netns exec a cat /sys/class/net/va.100/statistics/rx_packets; }
before=$(vrx)
nsrun "ibv_ud_pingpong -c over VLAN 100" a "ibv_ud_pingpong -d sa -g $gav -s 1024 -n 50 -c" \
	b "ibv_ud_pingpong -d sb -g $gbv -s 1024 -n 50 -c 10.9.100.1"
nsrun "rping -V over VLAN 100" a "rping -s -a 10.9.100.1 -C 20 -V" \
	b "rping -c -a 10.9.100.1 -C 20 -V" 7174
n=$(($(vrx) - before))
ok "$((n >= 90))" "the VLAN device received them ($n packets)"

# Moved away under a live user: the user is disassociated.
ip netns exec a timeout 60 $P/dev_hold sa "$ga" 30 >/tmp/hold.out 2>&1 &
hpid=$!
for _ in $(seq 100); do grep -q ready /tmp/hold.out && break; sleep 0.1; done
ok "grep -q ready /tmp/hold.out" "a process holds sa open, one of every object"
run_ok "rdma dev set sa netns init, from a, under it" ip netns exec a rdma dev set sa netns init
wait $hpid
st=$?
tap_merge "dev_hold" bash -c "grep -v '^ready' /tmp/hold.out; exit $st"
ok "rdma dev | grep -q sa" "sa is in the initial namespace now"
ok "! ip netns exec a rdma dev | grep -q sa" "and no longer in a"
ok "rdma res show qp link sa/1 | grep -q 'lqpn 1 type GSI state RTS'" \
	"its QP1 came back with it"
run_ok "rdma dev set sa netns a (back)" rdma dev set sa netns a
nsrun "rping -V after the round trip a <- b" a "rping -s -a $A4 -C 20 -V" \
	b "rping -c -a $A4 -C 20 -V" 7174

# Namespaces go: their veth goes, and with it the devices on it.
run_ok "ip netns del a, b" bash -c 'ip netns del a && ip netns del b && ip netns del init'
for _ in $(seq 150); do rdma dev | grep -q 'sa\|sb' || break; sleep 0.2; done
ok "! rdma dev | grep -q 'sa\|sb'" "the devices went with their netdevs"
run_ok "rmmod sroce" rmmod sroce
done_testing
