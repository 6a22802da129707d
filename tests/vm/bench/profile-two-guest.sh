#!/bin/bash
# `make profile`, two VMs joined by the link of `make bench` (one vCPU
# each): where the time goes on each end of a stream between hosts, for
# rdma_rxe, sroce and TCP. Host 2 sends (64 KiB ib_write_bw, or iperf3),
# host 1 receives; each host samples itself with `perf record -a -g` for
# the whole run (tests/vm/lib/perf.sh) and reports as
#   PROFILE <impl>-two-<send|recv> <line>
# which scripts/profile.sh sorts into build/profile-<impl>-two-<end>.txt.
# Arguments:  profile-two-guest.sh [SECS [TOP]]   (defaults 8 and 40)
SECS=${1:-8}
PERF_TOP=${2:-40}
port=22000

# shellcheck source=tests/vm/lib/roce.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/roce.sh"
# shellcheck source=tests/vm/lib/perf.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/perf.sh"
perf_setup

if [ "$SROCE_HOST" = 2 ]; then end=send; else end=recv; fi
for _ in $(seq 60); do ping -c 1 -W 1 "$SROCE_PEER_IP4" >/dev/null 2>&1 && break; done

# rdma IMPL DEV: SECS seconds of 64 KiB ib_write_bw from host 2 to host 1.
rdma_stream() {
	local impl=$1 dev=$2 gid out
	gid=$(gid_index "$dev" "$SROCE_IP4")
	port=$((port + 1))
	perf_begin "$impl-two-$end"
	if [ "$SROCE_HOST" = 1 ]; then
		out=$(timeout $((SECS + 120)) ib_write_bw -d "$dev" -x "$gid" -F -s 65536 \
			-D "$SECS" -p "$port" 2>&1)
	else
		for _ in $(seq 60); do
			out=$(timeout $((SECS + 60)) ib_write_bw -d "$dev" -x "$gid" -F \
				-s 65536 -D "$SECS" -p "$port" "$SROCE_PEER_IP4" 2>&1) && break
			sleep 1
		done
	fi
	perf_end "$impl-two-$end" "$impl, 64 KiB ib_write_bw for ${SECS}s, host $SROCE_HOST ($end)" \
		"$(awk '/^ *[0-9]+ +[0-9]+ / { l = $0 } END { print l }' <<< "$out" | tr -s ' ')"
	echo "# $impl: $(rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ')"
}

stack_up rxe
rdma_stream rxe rxe0
stack_down rxe

# Both ends are sroce: selective repeat offered, as in make bench.
stack_up sroce sr
rdma_stream sroce sroce0
stack_down sroce

port=$((port + 1))
perf_begin "tcp-two-$end"
if [ "$SROCE_HOST" = 1 ]; then
	out=$(timeout $((SECS + 120)) iperf3 -s -1 -p "$port" -f M 2>&1)
else
	for _ in $(seq 60); do
		out=$(timeout $((SECS + 60)) iperf3 -c "$SROCE_PEER_IP4" -p "$port" \
			-t "$SECS" -f M 2>&1) && break
		sleep 1
	done
fi
perf_end "tcp-two-$end" "tcp, iperf3 for ${SECS}s, host $SROCE_HOST ($end)" \
	"$(grep receiver <<< "$out" | tail -n 1 | tr -s ' ')"
exit 0
