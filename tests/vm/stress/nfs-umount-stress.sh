#!/bin/bash
# nfs-umount-stress.sh [sroce|rxe] [ROUNDS] [BS]: not a make check suite,
# a tool: nfs-rdma's forced unmount under a writer of BS-byte O_DIRECT
# writes (1 MiB), ROUNDS times (30) in one boot, on sroce or on rdma_rxe.
# With 1 MiB writes it reproduces a race in xprtrdma (an MR freed under
# frwr_unmap_sync()'s wait by a concurrent disconnect, which locks up the
# guest): on 6.1, 3 lockups in 35 rounds on sroce, none in 45 on
# rdma_rxe (Documentation/sroce-ulp.rst).
#   scripts/vm-run.sh --timeout 1800 tests/vm/stress/nfs-umount-stress.sh sroce 40
# vm-image: ulp
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/nfs.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/nfs.bash"

kind=${1:-sroce}
rounds=${2:-30}
bs=${3:-1048576}
ND=${SROCE_NETDEV:-eth0}
IP4=$SROCE_IP4
if [ "$kind" = rxe ]; then
	run_ok "modprobe rdma_rxe" modprobe rdma_rxe
	run_ok "rdma link add rxe0 on $ND" rdma link add rxe0 type rxe netdev "$ND"
	gid_index rxe0 "$IP4" >/dev/null || diag "no GID for $IP4 yet"
else
	sroce_up sroce0 "$ND" "$IP4"
fi
run_ok "nfsd exporting a tmpfs, with an RDMA listener on 20049" nfs_server_up 400m
mkdir -p /mnt/v4
for r in $(seq "$rounds"); do
	run_ok "round $r: mount NFSv4.2 over RDMA" mount -t nfs \
		-o vers=4.2,proto=rdma,port=20049 "$IP4:/export" /mnt/v4
	nfs_umount_under_load /mnt/v4 "$bs" "round $r: "
	rm -f /export/load
done
done_testing
