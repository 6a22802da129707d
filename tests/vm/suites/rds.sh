#!/bin/bash
# rds.sh: RDS over sroce (rds_rdma, the IB transport), sockets on one
# address so the RDS connection loops back through sroce: ping-pong and
# bulk from 64 B to 1 MiB, many socket pairs at once, every byte and the
# order checked (tests/vm/prog/rds_test.c). Then the device goes under a
# live transfer (rdma link delete, the netdev down, rmmod sroce): RDS
# sees it go, nothing hangs, and once the device is back RDS reconnects
# by itself and delivers every message, in order.
#   scripts/vm-run.sh tests/vm/suites/rds.sh
# vm-image: ulp
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}
IP4=$SROCE_IP4
R=/usr/libexec/sroce/rds_test

sroce_up "$dev" "$ND" "$IP4"
# 1 MiB messages need socket buffers larger than the default maximum.
run_ok "socket buffers up to 8 MiB" sysctl -q -w net.core.wmem_max=8388608 \
	net.core.rmem_max=8388608
run_ok "modprobe rds_rdma" modprobe rds_rdma

tap_merge "ping-pong 64 B" $R -a "$IP4" -m pingpong -s 64 -n 200 -p 18000
tap_merge "ping-pong 64 KiB" $R -a "$IP4" -m pingpong -s 65536 -n 20 -p 18010
tap_merge "bulk 64 B" $R -a "$IP4" -m bulk -s 64 -n 3000 -p 18020
tap_merge "bulk 64 KiB" $R -a "$IP4" -m bulk -s 65536 -n 200 -p 18030
tap_merge "bulk 1 MiB, 2 pairs" $R -a "$IP4" -m bulk -s 1048576 -n 8 -k 2 -p 18040
tap_merge "bulk 4 KiB, 32 pairs" $R -a "$IP4" -m bulk -s 4096 -n 50 -k 32 -p 18100
ok "rdma res show qp link $dev/1 | grep -q 'type RC'" \
	"RDS's QPs are RC QPs on $dev" || diag "$(rdma res show qp)"

# gone_under_traffic NAME BACK CMD...: CMD takes the device away under a
# bulk transfer; nothing hangs; BACK brings it back, and the transfer
# ends with every message delivered, in order.
gone_under_traffic() {
	local name=$1 back=$2 bpid port=$((18200 + _tap_n))
	shift 2
	$R -a "$IP4" -m bulk -s 16384 -n 8000 -k 2 -p "$port" -t 120 \
		>"/tmp/rds_$name.log" 2>&1 &
	bpid=$!
	sleep 2
	ok "kill -0 $bpid" "$name: the transfer is running"
	run_ok "$name: $* under traffic" timeout 60 "$@"
	sleep 2
	run_ok "$name: $back" timeout 60 bash -c "$back"
	gid_index "$dev" "$IP4" >/dev/null || diag "no GID for $IP4 yet"
	wait $bpid
	tap_merge "$name: transfer across it" cat "/tmp/rds_$name.log"
}

gone_under_traffic "link delete" "rdma link add $dev type sroce netdev $ND" \
	rdma link delete "$dev"
gone_under_traffic "netdev down" "ip link set $ND up" ip link set "$ND" down
gone_under_traffic "rmmod sroce" \
	"modprobe sroce && rdma link add $dev type sroce netdev $ND" rmmod sroce

tap_merge "ping-pong after it all" $R -a "$IP4" -m pingpong -s 1024 -n 50 -p 18300
run_ok "rmmod rds_rdma rds" rmmod rds_rdma rds
run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
