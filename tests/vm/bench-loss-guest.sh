#!/bin/bash
# `make bench`, two VMs joined by a link: RDMA WRITE goodput under packet
# loss (tc netem on both links), rdma_rxe and then sroce (they cannot share
# UDP 4791). Host 1 serves, host 2 is the client and prints
#   BENCH <impl> <test> <value> <unit>   or   BENCH <impl> <test> n/a <why>
# A one-host run cannot measure this: rdma_rxe loops traffic to a local
# address back inside itself, where netem never sees it.
N=${BENCH_ITERS:-300}
port=21000

# shellcheck source=tests/vm/roce.sh
. "$(dirname "$0")/roce.sh"

for _ in $(seq 60); do ping -c 1 -W 1 "$SROCE_PEER_IP4" >/dev/null 2>&1 && break; done

# goodput IMPL DEV LOSS
goodput() {
	local impl=$1 dev=$2 loss=$3 gid out v i
	gid=$(gid_index "$dev" "$SROCE_IP4")
	tc qdisc del dev eth0 root 2>/dev/null
	[ "$loss" = 0 ] || tc qdisc add dev eth0 root netem loss "$loss%"
	port=$((port + 1))
	if [ "$SROCE_HOST" = 1 ]; then
		timeout 300 ib_write_bw -d "$dev" -x "$gid" -F -s 65536 -n "$N" -p "$port" >/dev/null 2>&1
		return
	fi
	for i in $(seq 60); do
		out=$(timeout 300 ib_write_bw -d "$dev" -x "$gid" -F -s 65536 -n "$N" \
			-p "$port" "$SROCE_PEER_IP4" 2>&1) && break
		sleep 1
	done
	v=$(awk '/^ *[0-9]+ +[0-9]+ / { v = $4 } END { print v }' <<< "$out")
	if [ -n "$v" ]; then
		echo "BENCH $impl write_bw_64k_loss$loss $v MB/s"
	else
		echo "BENCH $impl write_bw_64k_loss$loss n/a $(tail -n 1 <<< "$out" | tr -s ' ' | cut -c1-60)"
	fi
	# The counters so far, for reading a figure (not part of the table).
	echo "# $impl loss $loss: $(rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ')"
}

modprobe rdma_rxe
rdma link add rxe0 type rxe netdev eth0
for l in 0 0.1 1; do goodput rxe rxe0 $l; done
rdma link delete rxe0
rmmod rdma_rxe

modprobe sroce
rdma link add sroce0 type sroce netdev eth0
for l in 0 0.1 1; do goodput sroce sroce0 $l; done
rdma link delete sroce0
rmmod sroce
tc qdisc del dev eth0 root 2>/dev/null
exit 0
