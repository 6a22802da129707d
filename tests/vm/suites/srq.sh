#!/bin/bash
# srq.sh: shared receive queues on one sroce device: srq_ops (RC and UD
# on one SRQ, the limit event, RNR on an empty SRQ, Last WQE Reached,
# destroy refused while in use), rdma-core's ibv_srq_pingpong with its
# data checked, and perftest's SRQ mode.
#   scripts/vm-run.sh tests/vm/suites/srq.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}

sroce_up -g "$dev" "$ND" "$SROCE_IP4" "$SROCE_IP6"
gid4=${up_gids[0]} gid6=${up_gids[1]}
ok "ibv_devinfo -v -d $dev | grep -q 'max_srq:.*[1-9]'" "ibv_devinfo advertises SRQs"

tap_merge "srq_ops IPv4" timeout 300 /usr/libexec/sroce/srq_ops "$dev" "${gid4:-0}"
tap_merge "srq_ops IPv6" timeout 300 /usr/libexec/sroce/srq_ops "$dev" "${gid6:-0}"

# 4 QPs on one SRQ each side, 100 exchanges per QP, data checked (-c).
for ev in "" -e; do
	pingpong_local "ibv_srq_pingpong -q 4 $ev" \
		ibv_srq_pingpong -d "$dev" -g "${gid4:-0}" -q 4 -n 100 -c $ev
done

# perftest's SRQ mode: send bandwidth into an SRQ.
pingpong_local "ib_send_bw --use-srq" \
	ib_send_bw -d "$dev" -x "${gid4:-0}" --use-srq -s 4096 -n 200 -F

is "$(rdma res show srq 2>/dev/null | grep -c "$dev")" "0" "no SRQ left"
run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
