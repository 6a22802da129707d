#!/bin/bash
# ring-scribble.sh: a process that writes garbage into its own QPs' shared
# SQ and RQ rings (ring_scribble) gets error completions or QPs in ERR,
# never a hang or an oops, and the device works afterwards.
#   scripts/vm-run.sh tests/vm/suites/ring-scribble.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}
bad='BUG:|WARNING:|Oops|general protection'

# Only what the kernel logs from here on counts.
log0=$(dmesg | wc -l)

sroce_up -g "$dev" "$ND" "$SROCE_IP4"
gid=${up_gids[0]}

tap_merge ring_scribble timeout 300 /usr/libexec/sroce/ring_scribble "$dev" "${gid:-0}"

oops=$(dmesg | tail -n +"$((log0 + 1))" | grep -E "$bad")
ok "$([ -z "$oops" ] && echo 1 || echo 0)" "no BUG, WARNING, Oops or general protection fault in the kernel log"
[ -z "$oops" ] || diag "$(printf '%s\n' "$oops" | head -n 20)"

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
