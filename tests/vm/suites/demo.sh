#!/bin/bash
# `make demo`: what a user does on a real host, inside the VM.
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
ND=${SROCE_NETDEV:-eth0}

echo "+ modprobe sroce"
modprobe sroce
echo "+ rdma link add sroce0 type sroce netdev $ND"
run_ok "rdma link add sroce0" rdma link add sroce0 type sroce netdev "$ND"
echo "+ rdma link show"
rdma link show
echo "+ ibv_devices"
ibv_devices
echo "+ ibv_devinfo -d sroce0"
ibv_devinfo -d sroce0
ok "ibv_devinfo -d sroce0 | grep -q 'link_layer:.*Ethernet'" "ibv_devinfo shows sroce0"

# ibv_rc_pingpong over sroce0, server and client on this one host: the
# packets go to sroce0's own address and loop back inside sroce. -c checks
# the data.
gid=$(gid_index sroce0 "$SROCE_IP4")
echo "+ ibv_rc_pingpong -d sroce0 -g $gid -s 65536 -n 20 -c &   (server)"
timeout 120 ibv_rc_pingpong -d sroce0 -g "$gid" -s 65536 -n 20 -c >/tmp/srv.log 2>&1 &
srv=$!
echo "+ ibv_rc_pingpong -d sroce0 -g $gid -s 65536 -n 20 -c 127.0.0.1   (client)"
for _ in $(seq 20); do
	timeout 60 ibv_rc_pingpong -d sroce0 -g "$gid" -s 65536 -n 20 -c 127.0.0.1 \
		>/tmp/cli.log 2>&1 && break
	sleep 0.5
done
cat /tmp/cli.log
wait $srv
st=$?
echo "+ server:"
cat /tmp/srv.log
ok "$((st == 0))" "ibv_rc_pingpong over sroce0: 20 round trips of 64 KiB, data checked"
ok "grep -q 'iters in' /tmp/cli.log" "the client finished"
done_testing
