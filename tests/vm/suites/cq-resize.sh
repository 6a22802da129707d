#!/bin/bash
# cq-resize.sh: several threads resize one CQ at once (raw RESIZE_CQ
# commands, past libsroce's own lock) while RDMA WRITEs complete into it:
# each reply describes the ring its call made, every completion arrives,
# and the harness finds no splat (slub_debug).
#   scripts/vm-run.sh tests/vm/suites/cq-resize.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}

sroce_up -g "$dev" "$ND" "$SROCE_IP4"
gid=${up_gids[0]}

tap_merge cq_resize_race timeout 300 /usr/libexec/sroce/cq_resize_race "$dev" "${gid:-0}"

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
