#!/bin/bash
# `make demo`: what a user does on a real host, inside the VM.
. "$(dirname "$0")/lib.sh"
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
done_testing
