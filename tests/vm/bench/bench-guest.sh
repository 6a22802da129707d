#!/bin/bash
# `make bench`, inside one VM: the same perftest matrix on rdma_rxe and on
# sroce (one after the other: they cannot share UDP 4791), each device on
# eth0 with client and server on this host, RUNS rounds that alternate the
# two (so a slow patch of the shared machine hits both). Arguments:
#   bench-guest.sh [ITERS [RUNS]]      (defaults 1000 and 3)
# ITERS is the bandwidth and message-rate tests' iteration count; the
# latency tests make ten times as many round trips (a 2-byte round trip
# is ~100 times shorter than a 64 KiB transfer).
# Prints one line per result, RUNS lines per figure (the host takes the
# median):
#   BENCH <impl> <test> <value> <unit>
# and "BENCH <impl> <test> n/a <reason>" for a run that did not complete.
ND=${SROCE_NETDEV:-eth0}
IP=${SROCE_IP4:-10.0.2.15}
N=${1:-1000}
RUNS=${2:-3}

# shellcheck source=tests/vm/lib/roce.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/roce.sh"


# run IMPL DEV GID NAME TOOL COLUMN UNIT ARGS...: server and client of
# TOOL on DEV; COLUMN is the field of the result line to report. GID
# "cm": the two connect through the RDMA CM (-R) instead.
run() {
	local impl=$1 dev=$2 gid=$3 name=$4 tool=$5 col=$6 unit=$7 out v
	local -a how=(-x "$gid")
	shift 7
	[ "$gid" = cm ] && how=(-R)
	timeout 120 "$tool" -d "$dev" "${how[@]}" -F "$@" > /tmp/srv 2>&1 &
	sleep 0.5
	out=$(timeout 120 "$tool" -d "$dev" "${how[@]}" -F "$@" "$IP" 2>&1)
	wait $! 2>/dev/null
	v=$(awk -v c="$col" '/^ *[0-9]+ +[0-9]+ / { v = $c } END { print v }' <<< "$out")
	if [ -n "$v" ]; then
		echo "BENCH $impl $name $v $unit"
	else
		echo "BENCH $impl $name n/a $(tail -n 1 <<< "$out" | tr -s ' ' | cut -c1-60)"
	fi
}

matrix() {
	local impl=$1 dev=$2 gid=$3
	run "$impl" "$dev" "$gid" send_bw_64k ib_send_bw 4 MB/s -s 65536 -n "$N"
	run "$impl" "$dev" "$gid" write_bw_64k ib_write_bw 4 MB/s -s 65536 -n "$N"
	run "$impl" "$dev" "$gid" read_bw_64k ib_read_bw 4 MB/s -s 65536 -n "$N"
	run "$impl" "$dev" "$gid" send_lat_2 ib_send_lat 5 us -s 2 -n "$((N * 10))"
	run "$impl" "$dev" "$gid" write_lat_2 ib_write_lat 5 us -s 2 -n "$((N * 10))"
	run "$impl" "$dev" "$gid" msg_rate_64_4qp ib_send_bw 5 Mpps -s 64 -q 4 -n "$N"
	# UD, and RC connected through the RDMA CM (QP1 on both sides).
	run "$impl" "$dev" "$gid" ud_send_bw_1k ib_send_bw 4 MB/s -c UD -s 1024 -n "$N"
	run "$impl" "$dev" "$gid" ud_msg_rate_64 ib_send_bw 5 Mpps -c UD -s 64 -n "$N"
	run "$impl" "$dev" cm send_bw_64k_cm ib_send_bw 4 MB/s -s 65536 -n "$N"
	run "$impl" "$dev" cm write_bw_64k_cm ib_write_bw 4 MB/s -s 65536 -n "$N"
	run "$impl" "$dev" cm send_lat_2_cm ib_send_lat 5 us -s 2 -n "$((N * 10))"
	# Goodput under loss needs the two-VM form: rdma_rxe loops traffic to a
	# local address back inside itself, so netem on one host never sees it.
}

for r in $(seq "$RUNS"); do
	echo "# round $r of $RUNS, $N iterations ($(date +%T))"
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev "$ND"
	matrix rxe rxe0 "$(gid_index rxe0 "$IP")"
	rdma link delete rxe0
	rmmod rdma_rxe

	rdma link add sroce0 type sroce netdev "$ND"
	matrix sroce sroce0 "$(gid_index sroce0 "$IP")"
	rdma link delete sroce0
	rmmod sroce
done
exit 0
