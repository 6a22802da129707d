#!/bin/bash
# `make profile`, inside one VM: where the time goes, on rdma_rxe and on
# sroce, each device on eth0 with client and server on this host (the
# loopback of `make bench`). For each device and each of four loads
# (2-byte ib_send_lat, 64 KiB ib_write_bw and ib_send_bw, 64-byte
# ib_send_bw over 4 QPs; SECS seconds each) `perf record -a -g` samples
# both CPUs and the report (tests/vm/lib/perf.sh) prints the hottest
# symbols and the call chains of a few of them.
# Arguments:  profile-guest.sh [SECS [TOP]]   (defaults 8 and 40)
# Every line of a report goes to the console as
#   PROFILE <impl>-<load> <line>
# and scripts/profile.sh sorts them into build/profile-<impl>-<load>.txt.
ND=${SROCE_NETDEV:-eth0}
IP=${SROCE_IP4:-10.0.2.15}
SECS=${1:-8}
PERF_TOP=${2:-40}

# shellcheck source=tests/vm/lib/roce.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/roce.sh"
# shellcheck source=tests/vm/lib/perf.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/perf.sh"
perf_setup

# profile IMPL DEV GID LOAD TOOL ARGS...
profile() {
	local impl=$1 dev=$2 gid=$3 tool=$5 tag=$1-$4 out
	shift 5
	perf_begin "$tag"
	timeout $((SECS + 60)) "$tool" -d "$dev" -x "$gid" -F -D "$SECS" "$@" > /tmp/srv 2>&1 &
	sleep 0.5
	out=$(timeout $((SECS + 60)) "$tool" -d "$dev" -x "$gid" -F -D "$SECS" "$@" "$IP" 2>&1)
	wait $! 2>/dev/null
	perf_end "$tag" "$impl, $tool $* for ${SECS}s" \
		"$(awk '/^ *[0-9]+ +[0-9]+ / { l = $0 } END { print l }' <<< "$out" | tr -s ' ')"
}

matrix() {
	local impl=$1 dev=$2 gid=$3
	profile "$impl" "$dev" "$gid" send_lat_2 ib_send_lat -s 2
	profile "$impl" "$dev" "$gid" write_bw_64k ib_write_bw -s 65536
	profile "$impl" "$dev" "$gid" send_bw_64k ib_send_bw -s 65536
	profile "$impl" "$dev" "$gid" msg_rate_64_4qp ib_send_bw -s 64 -q 4
}

modprobe rdma_rxe
rdma link add rxe0 type rxe netdev "$ND"
matrix rxe rxe0 "$(gid_index rxe0 "$IP")"
rdma link delete rxe0
rmmod rdma_rxe

rdma link add sroce0 type sroce netdev "$ND"
matrix sroce sroce0 "$(gid_index sroce0 "$IP")"
rdma link delete sroce0
rmmod sroce
exit 0
