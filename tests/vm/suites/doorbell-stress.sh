#!/bin/bash
# doorbell-stress.sh: many threads post SENDs on sroce while its requester
# keeps going idle (SQ doorbell elision, SROCE_SQ_IDLE): first each thread
# on an RC pair of its own, then all on one QP, over the device's own RoCE
# v2 address (loopback). Every message must arrive in order and intact, and
# nothing may hang (doorbell_stress has its own watchdogs; timeout is the
# last resort), while the receiving QPs' engines run on another CPU (the
# stream hand-off, Documentation/sroce-datapath.rst). ITERS is kept small:
# TCG runs ~20x slower than hardware.
#   scripts/vm-run.sh tests/vm/suites/doorbell-stress.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}

sroce_up -g "$dev" "$ND" "$SROCE_IP4"
gid=${up_gids[0]}

tap_merge doorbell_stress \
	timeout 300 /usr/libexec/sroce/doorbell_stress "$dev" "${gid:-0}" 4 1000
rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ' | sed 's/^/# /'
# A stream one way: after SROCE_STREAM_MSGS requests in a row, the
# receiving QP's engines run on another CPU (sroce_task_away()), and the
# messages above were checked all the same.
handed=$(rdma statistic show link "$dev/1" | tr ' ' '\n' |
	grep -A1 -x stream_handoffs | sed -n 2p)
if [ "$(nproc)" -ge 2 ]; then
	ok "$((${handed:-0} > 0))" "the streams' receive ran on another CPU (stream_handoffs ${handed:-none})"
else
	skip "one CPU: no other to run on" "the streams' receive ran on another CPU"
fi

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
