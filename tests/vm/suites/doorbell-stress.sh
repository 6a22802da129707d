#!/bin/bash
# doorbell-stress.sh: many threads post SENDs on sroce while its requester
# keeps going idle (SQ doorbell elision, SROCE_SQ_IDLE): first each thread
# on an RC pair of its own, then all on one QP, over the device's own RoCE
# v2 address (loopback). Every message must arrive in order and intact, and
# nothing may hang (doorbell_stress has its own watchdogs; timeout is the
# last resort). Then the stream hand-off (Documentation/sroce-datapath.rst):
# which patterns send a receiving QP's engines to another CPU. ITERS is
# kept small: TCG runs ~20x slower than hardware.
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

# The stream hand-off (sroce_task_away()): a sender that waits for each
# answer or completion keeps its chain on its own CPU; a stream one way
# sends its receiver's engines to another. Counted by stream_handoffs,
# which only the runs below move here.
handoffs() {
	rdma statistic show link "$dev/1" | tr ' ' '\n' |
		grep -A1 -x stream_handoffs | sed -n 2p
}
h0=$(handoffs)
ok "$([[ $h0 =~ ^[0-9]+$ ]] && echo 1 || echo 0)" "rdma statistic shows stream_handoffs ($h0; doorbell_stress's own streams)"
pingpong_local "ib_send_lat (ping-pong)" \
	ib_send_lat -d "$dev" -x "${gid:-0}" -F -s 8 -n 300
pingpong_local "ib_read_lat (each READ waited for)" \
	ib_read_lat -d "$dev" -x "${gid:-0}" -F -s 8 -n 300
h1=$(handoffs)
is "$h1" "$h0" "ping-pong and lockstep stay on the posting CPU (stream_handoffs)"
pingpong_local "ib_send_bw -s 64 (a stream one way)" \
	ib_send_bw -d "$dev" -x "${gid:-0}" -F -s 64 -n 2000
h2=$(handoffs)
# Every WQE signaled, posted 16 to a list: a WQE taken behind one not yet
# complete was not waited for, so the lists are a stream too.
pingpong_local "ib_send_bw -Q 1 -l 16 (signaled, in lists)" \
	ib_send_bw -d "$dev" -x "${gid:-0}" -F -s 64 -n 2000 -Q 1 -l 16
h3=$(handoffs)
if [ "$(nproc)" -ge 2 ]; then
	ok "$((${h2:-0} > ${h1:-0}))" "the stream's receive ran on another CPU (stream_handoffs $h1 -> $h2)"
	ok "$((${h3:-0} > ${h2:-0}))" "so did the signaled lists' (stream_handoffs $h2 -> $h3)"
else
	skip "one CPU: no other to run on" "the stream's receive ran on another CPU"
	skip "one CPU: no other to run on" "so did the signaled lists'"
fi

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
