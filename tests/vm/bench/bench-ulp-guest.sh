#!/bin/bash
# `make bench`, the kernel ULPs inside one VM: NVMe over Fabrics, NFS over
# RDMA and RDS on rdma_rxe and on sroce (one after the other: they cannot
# share UDP 4791), target and host on this host, RUNS rounds that
# alternate the two. Arguments:
#   bench-ulp-guest.sh [RUNS [SECONDS]]     (defaults 3 and 6)
# SECONDS is each fio run's length. Prints one line per result:
#   BENCH <impl> <test> <value> <unit>
# and "BENCH <impl> <test> n/a <reason>" for a run that did not complete.
# The setup's TAP lines (lib.sh) say what failed, if anything did.
# vm-image: ulp
RUNS=${1:-3}
SECS=${2:-6}
ND=${SROCE_NETDEV:-eth0}
IP=${SROCE_IP4:-10.0.2.15}
R=/usr/libexec/sroce/rds_test

# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/nvmeof.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/nvmeof.bash"
# shellcheck source=tests/vm/lib/nfs.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/nfs.bash"

# say IMPL NAME VALUE UNIT [WHY]: one BENCH line; an empty VALUE is n/a.
say() {
	if [[ $3 =~ ^[0-9.]+$ ]]; then
		echo "BENCH $1 $2 $3 $4"
	else
		echo "BENCH $1 $2 n/a ${5:-no result}"
	fi
}

# fio_read IMPL NAME DEV FIELD SCALE ARGS...: a read job of SECS seconds;
# FIELD 8 of fio's terse line is read IOPS, 7 read KiB/s (SCALE turns it
# into the unit).
fio_read() {
	local impl=$1 name=$2 dev=$3 f=$4 scale=$5 out v
	shift 5
	out=$(fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 --allow_file_create=0 \
		--time_based --runtime="$SECS" --output-format=terse --terse-version=3 "$@" 2>&1)
	v=$(awk -F';' -v f="$f" -v s="$scale" 'NF > 40 { printf "%.1f", $f * s }' <<<"$out")
	say "$impl" "$name" "$v" "$([ "$f" = 8 ] && echo IOPS || echo MB/s)" "$(tail -n 1 <<<"$out" | cut -c1-60)"
}

# dd_rate IMPL NAME ARGS...: dd's MB/s (bytes over its own wall time).
dd_rate() {
	local impl=$1 name=$2 t0 t1
	shift 2
	t0=$(date +%s.%N)
	if dd "$@" bs=1M count=64 2>/dev/null; then
		t1=$(date +%s.%N)
		say "$impl" "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 64 * 1048576 / (b - a) / 1e6 }')" MB/s
	else
		say "$impl" "$name" "" MB/s "dd failed"
	fi
}

# rds_rate IMPL NAME FIELD ARGS...: rds_test's "# rate:" line, field
# FIELD (3: msg/s, 5: MB/s).
rds_rate() {
	local impl=$1 name=$2 f=$3 out v
	shift 3
	out=$(timeout 120 $R -a "$IP" "$@" 2>&1)
	v=$(awk -v f="$f" '/^# rate:/ { print $f }' <<<"$out")
	say "$impl" "$name" "$v" "$([ "$f" = 3 ] && echo msg/s || echo MB/s)" "$(tail -n 1 <<<"$out" | cut -c1-60)"
}

ulps() {
	local impl=$1 dev=$2 port=$3
	gid_index "$dev" "$IP" >/dev/null
	# The target's listener goes with each device: a fresh port each time.
	nvmet_port_up "$IP" ipv4 1 >/dev/null
	if nvme connect -t rdma -a "$IP" -s 4420 -n "$nvmeof_nqn" >/dev/null 2>&1 &&
		nvme_state_is live 30; then
		sleep 1
		fio_read "$impl" nvme_4k_qd1 "$(nvme_ns 1)" 8 1 --rw=randread --bs=4k --iodepth=1
		fio_read "$impl" nvme_4k_qd16 "$(nvme_ns 1)" 8 1 --rw=randread --bs=4k --iodepth=16
		fio_read "$impl" nvme_128k_seq "$(nvme_ns 1)" 7 0.001024 --rw=read --bs=128k --iodepth=8
		nvme disconnect -n "$nvmeof_nqn" >/dev/null 2>&1
	else
		for t in nvme_4k_qd1 nvme_4k_qd16 nvme_128k_seq; do say "$impl" $t "" - "no connect"; done
	fi
	rm "$nvmeof_cfs/ports/1/subsystems/$nvmeof_nqn" && rmdir "$nvmeof_cfs/ports/1"

	if mount -t nfs -o vers=4.2,proto=rdma,port=20049 "$IP:/export" /mnt/nfs; then
		dd_rate "$impl" nfs_write if=/dev/zero of=/mnt/nfs/b oflag=direct
		dd_rate "$impl" nfs_read if=/mnt/nfs/b of=/dev/null iflag=direct
		rm -f /mnt/nfs/b
		umount /mnt/nfs
	else
		say "$impl" nfs_write "" MB/s "no mount"
		say "$impl" nfs_read "" MB/s "no mount"
	fi

	modprobe rds_rdma
	rds_rate "$impl" rds_64 3 -m bulk -s 64 -n 60000 -w 128 -p "$port"
	rds_rate "$impl" rds_64k 5 -m bulk -s 65536 -n 1500 -w 128 -p $((port + 10))
	# RDS keeps its connections and redials them when the device goes:
	# 6.1's rdma_cm can oops when a device is deleted under a redial
	# (cma_cancel_operation() on an id in ROUTE_QUERY without a device).
	# The bench measures; rds.sh tests removal.
	modprobe -r rds_rdma
}

nvmeof_modules >/dev/null
nvmet_target_up_ns >/dev/null
sysctl -q -w net.core.wmem_max=8388608 net.core.rmem_max=8388608
run_ok "nfsd exporting a tmpfs, with an RDMA listener on 20049" nfs_server_up 200m
mkdir -p /mnt/nfs

for r in $(seq "$RUNS"); do
	echo "# round $r of $RUNS ($(date +%T))"
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev "$ND"
	ulps rxe rxe0 $((19000 + r * 100))
	rdma link delete rxe0
	rmmod rdma_rxe

	modprobe sroce
	rdma link add sroce0 type sroce netdev "$ND"
	ulps sroce sroce0 $((19050 + r * 100))
	rdma link delete sroce0
	rmmod sroce
done
done_testing
