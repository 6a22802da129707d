#!/bin/bash
# nfs-rdma.sh: NFS over RDMA on one sroce device, the kernel's nfsd
# (svcrdma, port 20049) and NFS client (xprtrdma) talking through sroce's
# loopback, NFSv3 and NFSv4.2: a 32 MiB file written and read back with
# its checksum (reads with O_DIRECT, so they cross the wire), a churn of
# small files checked after a remount, and an unmount under load.
#   scripts/vm-run.sh tests/vm/suites/nfs-rdma.sh
# vm-image: ulp
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/nfs.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/nfs.bash"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}
IP4=$SROCE_IP4

sroce_up "$dev" "$ND" "$IP4"

run_ok "nfsd exporting a tmpfs, with an RDMA listener on 20049" nfs_server_up 400m
mkdir -p /mnt/v3 /mnt/v4
ok "rdma res show cm_id | grep -q 'state LISTEN.*:20049 '" \
	"nfsd's RDMA CM id listens on 20049" || diag "$(rdma res show cm_id)"

head -c $((32 << 20)) /dev/urandom >/tmp/big
want=$(sha256sum </tmp/big | cut -d' ' -f1)

# nfs_cases VERS DIR: the cases on one mount.
nfs_cases() {
	local v=$1 m=$2 got i bad
	run_ok "mount NFSv$v over RDMA" mount -t nfs \
		-o "vers=$v,proto=rdma,port=20049${3:+,$3}" "$IP4:/export" "$m"
	ok "grep \" $m nfs\" /proc/mounts | grep -q 'proto=rdma'" \
		"NFSv$v mount uses proto=rdma" || diag "$(grep " $m " /proc/mounts)"
	run_ok "NFSv$v: 32 MiB written" bash -c "cp /tmp/big $m/big$v && sync"
	got=$(dd if="$m/big$v" iflag=direct bs=1M 2>/dev/null | sha256sum | cut -d' ' -f1)
	is "$got" "$want" "NFSv$v: read back with O_DIRECT, same sha256"
	got=$(sha256sum <"/export/big$v" | cut -d' ' -f1)
	is "$got" "$want" "NFSv$v: the server's copy has the same sha256"
	# Many small files: created, written, renamed, half removed.
	run_ok "NFSv$v: 200 small files created, renamed, half removed" bash -c "
		mkdir -p $m/churn && cd $m/churn &&
		for i in \$(seq 200); do echo \"file \$i \$((i * 7919))\" >f\$i || exit 1; done &&
		for i in \$(seq 200); do mv f\$i g\$i || exit 1; done &&
		for i in \$(seq 2 2 200); do rm g\$i || exit 1; done"
	run_ok "NFSv$v: remount (no cached pages or attributes)" bash -c \
		"umount $m && mount -t nfs -o vers=$v,proto=rdma,port=20049${3:+,$3} $IP4:/export $m"
	bad=0
	for i in $(seq 1 2 200); do
		[ "$(cat "$m/churn/g$i" 2>/dev/null)" = "file $i $((i * 7919))" ] || bad=$((bad + 1))
	done
	is "$bad/$(find "$m/churn" -type f | wc -l)" "0/100" \
		"NFSv$v: the 100 files left read back right, and only they are there"
	rm -rf "$m/churn" "$m/big$v"
}

nfs_cases 3 /mnt/v3 nolock
nfs_cases 4.2 /mnt/v4
ok "rdma res show qp link $dev/1 | grep -q 'type RC'" \
	"the mounts' transports are RC QPs on $dev" || diag "$(rdma res show qp)"
run_ok "umount NFSv3" umount /mnt/v3

# Unmount under load, on the NFSv4.2 mount, the writes inline: with MRs
# in flight the forced unmount meets xprtrdma's own race (sroce-ulp.rst;
# tests/vm/stress/nfs-umount-stress.sh reproduces it).
nfs_umount_under_load /mnt/v4 2048

run_ok "nfsd stopped" bash -c 'rpc.nfsd 0 && exportfs -ua'
pkill rpc.mountd
pkill rpcbind
run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
