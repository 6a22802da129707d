#!/bin/bash
# cm-listen-stress.sh [ROUNDS] [HOGS]: not a make check suite, a tool:
# cm-sroce's perftest pair (ib_send_lat -R through cm_pair) ROUNDS times
# (50) in one boot, with HOGS busy loops (2) loading the guest's CPUs. It
# counts perftest 4.5-0.17's own -R race (the client connects before the
# server's second listen, roce.sh's cm_pair): about 1 round in 50 with
# two hogs on 6.12. Each race shows as a TODO line and the round's rerun.
#   scripts/vm-run.sh --timeout 1800 tests/vm/stress/cm-listen-stress.sh 100
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

rounds=${1:-50}
hogs=${2:-2}
dev=sroce0
IP4=$SROCE_IP4
sroce_up "$dev" "${SROCE_NETDEV:-eth0}" "$IP4"
hog_pids=()
for _ in $(seq "$hogs"); do
	(while :; do :; done) &
	hog_pids+=($!)
done
# The IB CM's and the RDMA CM's tracepoints, shown for a round that failed.
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs tracefs $T
for e in ib_cm ib_cma ib_mad; do
	[ ! -d $T/events/$e ] || echo 1 >$T/events/$e/enable
done
port=19000
for r in $(seq "$rounds"); do
	port=$((port + 1))
	failed=$_tap_failed
	echo >$T/trace
	cm_pair "round $r: ib_send_lat -R" $port "ib_send_lat -d $dev -R -F -p $port -n 20" \
		"ib_send_lat -d $dev -R -F -p $port -n 20 $IP4"
	[ "$_tap_failed" = "$failed" ] || diag "$(grep -v '^#' $T/trace | tail -n 80)"
done
kill "${hog_pids[@]}"
done_testing
