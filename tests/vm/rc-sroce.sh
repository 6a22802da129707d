#!/bin/bash
# rc-sroce.sh: the RC conformance test (rc_ops) on sroce, one device, two
# QPs over its own address (the packets loop back inside sroce), every
# check must pass: sroce keeps the IBTA spec where rxe does not
# (Documentation/rxe-differences.rst). What sroce has not built yet
# (memory windows) is a TODO "not built", never a pass.
#   scripts/vm-run.sh tests/vm/rc-sroce.sh [-t GLOB]...
# (arguments go to rc_ops: -t runs only the checks whose ID matches)
set -u
# shellcheck source=tests/vm/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")}/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}

run_ok "modprobe sroce" modprobe sroce
run_ok "rdma link add $dev on $ND" rdma link add "$dev" type sroce netdev "$ND"
gid=$(gid_index "$dev" "$SROCE_IP4") || gid=
ok "$([ -n "$gid" ] && echo 1 || echo 0)" "RoCE v2 GID for $SROCE_IP4 (index ${gid:-none})"

tap_merge rc_ops timeout 600 /usr/libexec/sroce/rc_ops "$@" "$dev" "${gid:-0}"
rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ' | sed 's/^/# /'

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
