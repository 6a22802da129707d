# shellcheck shell=bash
# The NFS server of the NFS over RDMA suite and of make bench's ULP boot,
# sourced after lib.sh.

# nfs_server_up SIZE: nfsd exporting a tmpfs of SIZE at /export to
# everyone, rpcbind and mountd (NFSv3's MOUNT protocol, over TCP), an
# RDMA listener on 20049, and NFSv4's grace period ended at once (no
# client had state before). Quiet; what failed goes to stderr.
nfs_server_up() {
	modprobe -a nfsd rpcrdma nfsv3 nfsv4 || return
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return
	mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs /run/rpcbind /export
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	mount -t tmpfs -o "size=$1" tmpfs /export || return
	echo "/export *(rw,sync,no_root_squash,insecure,no_subtree_check,fsid=1)" >/etc/exports
	rpcbind && exportfs -ra && rpc.mountd || return
	echo 10 >/proc/fs/nfsd/nfsv4leasetime && echo 10 >/proc/fs/nfsd/nfsv4gracetime &&
		rpc.nfsd 4 && echo "rdma 20049" >/proc/fs/nfsd/portlist || return
	grep -q "^rdma 20049" /proc/fs/nfsd/portlist || {
		echo "portlist: $(cat /proc/fs/nfsd/portlist)" >&2
		return 1
	}
	echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null || echo "no v4_end_grace" >&2
	return 0
}

# nfs_umount_under_load MOUNT BS [LABEL]: a forced unmount of MOUNT while a
# writer runs (O_DIRECT, BS bytes a write, so each write is an RPC in
# flight): the unmount kills its RPCs, the writer ends with an error, the
# unmount then succeeds, and nothing hangs. Four checks, their names
# after LABEL. A write of 2048 B goes inline; larger ones go through MRs
# registered for the server to read, and killing those RPCs meets a race
# in xprtrdma itself that can lock the guest up (sroce-ulp.rst).
nfs_umount_under_load() {
	local m=$1 bs=$2 l=${3:-} dpid
	dd if=/dev/zero of="$m/load" bs="$bs" count=$(((400 << 20) / bs)) \
		oflag=direct >/tmp/dd_load.log 2>&1 &
	dpid=$!
	sleep 2
	ok "kill -0 $dpid" "${l}a writer ($bs B writes) is running on $m"
	run_ok "${l}umount -f under load" timeout 60 bash -c \
		"until umount -f $m 2>/dev/null; do sleep 0.5; done"
	for _ in $(seq 600); do kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
	ok "! kill -0 $dpid" "${l}the writer ended (dd: $(tail -n 1 /tmp/dd_load.log))"
	kill -9 $dpid 2>/dev/null
	wait $dpid 2>/dev/null
	ok "! grep -q ' $m ' /proc/mounts" "${l}the mount is gone"
}
