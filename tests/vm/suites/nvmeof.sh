#!/bin/bash
# nvmeof.sh: NVMe over Fabrics on one sroce device, the kernel's nvmet-rdma
# target and nvme-rdma host talking through sroce's loopback: discovery,
# connect, fio writes and reads with every block checked (4 KiB to 128 KiB,
# queue depth 1 to 32) on a ramdisk and a null_blk namespace, a controller
# reset and a reconnect with the data still there, and the target's port
# taken away under I/O and given back (the host reconnects and the I/O
# completes).
#   scripts/vm-run.sh tests/vm/suites/nvmeof.sh
# vm-image: ulp
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/nvmeof.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/nvmeof.bash"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}
IP4=$SROCE_IP4

sroce_up "$dev" "$ND" "$IP4"
nvmeof_modules
nvmet_target_up "$IP4" ipv4 1

out=$(nvme discover -t rdma -a "$IP4" -s 4420 2>&1)
ok "$(grep -q "subnqn: *$nvmeof_nqn" <<<"$out" && echo 1 || echo 0)" \
	"nvme discover over RDMA finds the subsystem" || diag "$out"

# Controller loss after 60 s, reconnects every 2 s: the port test below
# takes the port away for a few seconds.
nvme_connect "$IP4" --ctrl-loss-tmo=60 --reconnect-delay=2
ok "rdma res show qp link $dev/1 | grep -c 'type RC' | grep -qv '^0$'" \
	"the queues are RC QPs on $dev" || diag "$(rdma res show qp)"

w=(--rw=randwrite --bsrange=4k-128k --size=24M)
fio_run "randwrite QD1" "$ns1" "${w[@]}" --iodepth=1
fio_run "randwrite QD32" "$ns1" "${w[@]}" --iodepth=32
fio_run "randwrite 4k QD16" "$ns2" --rw=randwrite --bs=4k --size=8M --iodepth=16
fio_run "randwrite 128k QD8" "$ns2" --rw=randwrite --bs=128k --size=24M --iodepth=8
# The last job's blocks, read back in random order and checked.
fio_run "randread, verify only" "$ns2" --rw=randwrite --bs=128k --size=24M \
	--iodepth=16 --verify_only

run_ok "nvme reset" nvme reset "/dev/$(nvme_ctrl)"
ok "nvme_state_is live 30" "the controller is live again after the reset"
fio_run "randread after the reset" "$ns2" --rw=randwrite --bs=128k --size=24M \
	--iodepth=16 --verify_only

nvme_disconnect
nvme_connect "$IP4" --ctrl-loss-tmo=60 --reconnect-delay=2
fio_run "randread after a reconnect" "$ns1" "${w[@]}" --iodepth=32 --verify_only

# fio_bg NAME DEV SECONDS: random writes, checked, for SECONDS in the
# background (pid in fpid, output in /tmp/fio_NAME.log); a fio that
# hangs is killed a minute after it should have ended (status 124).
fio_bg() {
	timeout $(($3 + 60)) fio --name="$1" --filename="$2" "${fio_checked[@]}" \
		--rw=randwrite --bsrange=4k-128k \
		--size=48M --iodepth=16 --time_based --runtime="$3" >"/tmp/fio_$1.log" 2>&1 &
	fpid=$!
	sleep 2
	ok "kill -0 $fpid" "fio $1 is running"
}

# The port goes under I/O: the host loses its queues, retries every 2 s,
# gets them back once the port is back, and the I/O it held completes.
fio_bg port "$ns1" 12
run_ok "the target's port removed under I/O" bash -c \
	"rm $nvmeof_cfs/ports/1/subsystems/$nvmeof_nqn && rmdir $nvmeof_cfs/ports/1"
ok "nvme_state_is connecting 30" "the host notices and reconnects" ||
	diag "state $(cat /sys/class/nvme/"$(nvme_ctrl)"/state 2>&1)"
sleep 3
nvmet_port_up "$IP4" ipv4 1
ok "nvme_state_is live 60" "the host is back once the port is"
wait $fpid
st=$?
ok "$((st == 0))" "fio across the port's removal: every block checked" ||
	diag "$(tail -n 20 /tmp/fio_port.log)"

# The netdev goes down under I/O for a few seconds: the I/O waits and
# goes on.
fio_bg netdev "$ns1" 15
run_ok "ip link set $ND down under I/O" ip link set "$ND" down
sleep 4
run_ok "ip link set $ND up" ip link set "$ND" up
wait $fpid
st=$?
ok "$((st == 0))" "fio across the netdev's down and up: every block checked" ||
	diag "$(tail -n 20 /tmp/fio_netdev.log)"
ok "nvme_state_is live 60" "the controller is live"

# gone_under_io NAME CMD...: CMD takes the device away under I/O: fio
# ends with errors and does not hang, the host deletes its controller.
gone_under_io() {
	local name=$1 st
	shift
	fio_bg "$name" "$ns1" 20
	run_ok "$* under I/O" timeout 60 "$@"
	wait $fpid
	st=$?
	ok "$((st != 0 && st != 124))" "fio ends with I/O errors, not hung (exit $st)" ||
		diag "$(tail -n 20 "/tmp/fio_$name.log")"
	for _ in $(seq 300); do nvme_ctrl >/dev/null || break; sleep 0.1; done
	ok "! nvme_ctrl" "the host deleted its controller"
}

# back_again: the device is back; the target's listener went with the
# device (nvmet-rdma does not listen again by itself), so its port is
# made again; the host connects and finds the data it wrote.
back_again() {
	gid_index "$dev" "$IP4" >/dev/null || diag "no GID for $IP4 yet"
	run_ok "the target's port made again" bash -c \
		"rm $nvmeof_cfs/ports/1/subsystems/$nvmeof_nqn && rmdir $nvmeof_cfs/ports/1"
	nvmet_port_up "$IP4" ipv4 1
	nvme_connect "$IP4" --ctrl-loss-tmo=60 --reconnect-delay=2
	fio_run "randread after the device came back" "$ns2" --rw=randwrite --bs=128k \
		--size=24M --iodepth=16 --verify_only
}

gone_under_io linkdel rdma link delete "$dev"
run_ok "rdma link add $dev again" rdma link add "$dev" type sroce netdev "$ND"
back_again
gone_under_io rmmod rmmod sroce
run_ok "modprobe sroce, rdma link add $dev again" bash -c \
	"modprobe sroce && rdma link add $dev type sroce netdev $ND"
back_again

nvme_disconnect
nvmet_target_down
run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod nvme-rdma nvmet-rdma" rmmod nvme_rdma nvmet_rdma
run_ok "rmmod sroce" rmmod sroce
done_testing
