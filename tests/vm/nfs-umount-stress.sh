#!/bin/bash
# nfs-umount-stress.sh [sroce|rxe] [ROUNDS]: not a make check suite, a
# tool: nfs-rdma's forced unmount under a writer, ROUNDS times (30) in one
# boot, on sroce or on rdma_rxe. It reproduces a race in xprtrdma (an MR
# freed under frwr_unmap_sync()'s wait by a concurrent disconnect, which
# locks up the guest): on 6.1, 2 lockups in 26 rounds on sroce, none in
# 45 on rdma_rxe (Documentation/sroce-ulp.rst).
#   scripts/vm-run.sh --timeout 1800 tests/vm/nfs-umount-stress.sh sroce 40
# vm-image: ulp
set -u
# shellcheck source=tests/vm/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/vm/nfs.bash
. "${SROCE_TESTS:-$(dirname "$0")}/nfs.bash"

kind=${1:-sroce}
rounds=${2:-30}
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
	dd if=/dev/zero of=/mnt/v4/load bs=1M count=400 oflag=direct >/dev/null 2>&1 &
	dpid=$!
	sleep 2
	run_ok "round $r: umount -f under load" timeout 60 bash -c \
		'until umount -f /mnt/v4 2>/dev/null; do sleep 0.5; done'
	for _ in $(seq 600); do kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
	ok "! kill -0 $dpid" "round $r: the writer ended"
	kill -9 $dpid 2>/dev/null
	wait $dpid 2>/dev/null
	rm -f /export/load
done
done_testing
