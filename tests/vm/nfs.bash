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
