#!/bin/bash
# nvmeof.two.sh: NVMe over Fabrics between two VMs. Host 1 is the target
# (nvmet-rdma), host 2 the host (nvme-rdma), on sroce; then host 1's
# target moves to the kernel's rdma_rxe and host 2, still on sroce,
# connects to it. Each time: discovery, connect, fio writes and reads with
# every block checked, a controller reset, disconnect. The hosts take
# turns through TCP signals (tell_peer, peer_ready).
#   scripts/vm-run.sh --two tests/vm/suites/nvmeof.two.sh
# vm-image: ulp
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/nvmeof.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/nvmeof.bash"

peer=$SROCE_PEER_IP4

# target DRIVER: host 1 serves the subsystem on DRIVER's device.
target() {
	local drv=$1
	sroce_up -t "$drv" "${drv}0" eth0 "$SROCE_IP4"
	nvmet_port_up "$SROCE_IP4" ipv4 1
}

# target_gone DRIVER: the port and the device go.
target_gone() {
	local drv=$1
	run_ok "the target's port removed" bash -c \
		"rm $nvmeof_cfs/ports/1/subsystems/$nvmeof_nqn && rmdir $nvmeof_cfs/ports/1"
	run_ok "rdma link delete ${drv}0" rdma link delete "${drv}0"
	run_ok "rmmod $drv" rmmod "$([ "$drv" = rxe ] && echo rdma_rxe || echo sroce)"
}

# host_run TARGET_DRIVER: host 2's whole session with the target.
host_run() {
	local t=$1 out
	out=$(nvme discover -t rdma -a "$peer" -s 4420 2>&1)
	ok "$(grep -q "subnqn: *$nvmeof_nqn" <<<"$out" && echo 1 || echo 0)" \
		"nvme discover finds the $t target's subsystem" || diag "$out"
	nvme_connect "$peer"
	fio_run "randwrite QD1 ($t target)" "$ns1" --rw=randwrite --bsrange=4k-128k \
		--size=8M --iodepth=1
	fio_run "randwrite QD32 ($t target)" "$ns1" --rw=randwrite --bsrange=4k-128k \
		--size=24M --iodepth=32
	fio_run "randwrite 4k QD16 ($t target)" "$ns2" --rw=randwrite --bs=4k \
		--size=4M --iodepth=16
	run_ok "nvme reset ($t target)" nvme reset "/dev/$(nvme_ctrl)"
	ok "nvme_state_is live 30" "the controller is live again after the reset"
	fio_run "randread, verify only ($t target)" "$ns1" --rw=randwrite \
		--bsrange=4k-128k --size=24M --iodepth=32 --verify_only
	nvme_disconnect
}

run_ok "eth0 MTU 9000" ip link set eth0 mtu 9000
run_ok "peer $peer answers ping" retry 60 ping -c 1 -W 1 "$peer"
nvmeof_modules
if [ "$SROCE_HOST" = 1 ]; then
	nvmet_target_up_ns
	target sroce
	ok "tell_peer 31001 300" "host 2 heard the sroce target is up"
	ok "peer_ready $peer 31002 600" "host 2 is done with the sroce target"
	target_gone sroce
	target rxe
	ok "tell_peer 31003 300" "host 2 heard the rxe target is up"
	ok "peer_ready $peer 31004 600" "host 2 is done with the rxe target"
	target_gone rxe
	nvmet_target_down
else
	sroce_up sroce0 eth0
	ok "peer_ready $peer 31001 300" "host 1's sroce target is up"
	host_run sroce
	ok "tell_peer 31002 300" "host 1 heard this host is done"
	ok "peer_ready $peer 31003 300" "host 1's rxe target is up"
	host_run rxe
	ok "tell_peer 31004 300" "host 1 heard this host is done"
	run_ok "rdma link delete sroce0" rdma link delete sroce0
	run_ok "rmmod sroce" rmmod sroce
fi
run_ok "rmmod nvme-rdma nvmet-rdma" rmmod nvme_rdma nvmet_rdma
done_testing
