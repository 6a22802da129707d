#!/bin/bash
# memcg.sh: what userspace sizes (CQ and QP rings, private WQE copies, MR
# page tables) is charged to the creator's memory cgroup. memcg_charge
# runs in a cgroup v2 group of its own and watches memory.current.
#   scripts/vm-run.sh tests/vm/suites/memcg.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}
cg=/sys/fs/cgroup

sroce_up "$dev" "$ND"
mkdir -p $cg
grep -q "^cgroup2 $cg " /proc/mounts || mount -t cgroup2 none $cg
run_ok "cgroup v2 with the memory controller" \
	bash -c "echo +memory > $cg/cgroup.subtree_control && mkdir -p $cg/sroce-t"
# The group holds only the test: its memory.current moves with it alone.
tap_merge memcg_charge \
	bash -c "echo \$\$ > $cg/sroce-t/cgroup.procs && exec timeout 120 /usr/libexec/sroce/memcg_charge $dev"
rmdir $cg/sroce-t 2>/dev/null

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
